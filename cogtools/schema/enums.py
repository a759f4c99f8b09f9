"""Enum members no call can give: of another type than their schema's, or null where the schema
refuses null. ``cogtools lint`` reports them (``enum-type``) for a tool that loads, and the
builder of a definition that does not load carries them with its problems, so that one run of
lint tells every mistake of a file (:func:`cogtools.load.formats.build.build_tool`)."""

from __future__ import annotations

import json
import typing as t

from cogtools.schema.validate import TYPE_NAMES, is_type, json_type

KeyPath = t.Tuple[t.Union[str, int], ...]


class Misfit(t.NamedTuple):
    """An enum member no call can give: where it is, what is wrong, and how to mend it."""

    key_path: KeyPath
    message: str
    hint: str


def subschemas(schema: t.Mapping[str, t.Any], key: KeyPath) -> t.Iterator[tuple[t.Mapping[str, t.Any], KeyPath]]:
    """``schema`` and every schema inside it, each with its key path (what is not a mapping is
    left out: a definition the schema refused may hold anything)."""
    if not isinstance(schema, t.Mapping):
        return
    yield schema, key
    properties = schema.get("properties")
    for name, sub in properties.items() if isinstance(properties, t.Mapping) else ():
        yield from subschemas(sub, (*key, "properties", name))
    for word in ("items", "additionalProperties", "not"):
        if isinstance(schema.get(word), t.Mapping):
            yield from subschemas(schema[word], (*key, word))
    for word in ("allOf", "anyOf", "oneOf"):
        listed = schema.get(word)
        for index, sub in enumerate(listed if isinstance(listed, list) else ()):
            yield from subschemas(sub, (*key, word, index))


def misfits(schema: t.Mapping[str, t.Any], key: KeyPath) -> t.Iterator[Misfit]:
    """The enum members of ``schema`` and of the schemas inside it that no call can give (YAML
    1.1 reads yes, no, on and off unquoted as booleans, and 01 as a number)."""
    for sub, where in subschemas(schema, key):
        type_ = sub.get("type")
        members = sub.get("enum")
        if not isinstance(type_, str) or not isinstance(members, list):
            continue
        for index, member in enumerate(members):
            if member is None and not sub.get("nullable"):
                yield Misfit(
                    (*where, "enum", index),
                    "the enum lists null, which the schema refuses",
                    "add `nullable: true`, or remove null",
                )
            elif member is not None and not is_type(member, type_):
                named = TYPE_NAMES.get(type_, type_)
                yield Misfit(
                    (*where, "enum", index),
                    f"the enum member {json.dumps(member)} is {TYPE_NAMES.get(json_type(member), json_type(member))},"
                    f" not {named}, so no call can give it",
                    "quote it: YAML reads yes, no, on, off, true and false unquoted as booleans, and 01 as a number"
                    if type_ == "string"
                    else f"write it as {named}",
                )
