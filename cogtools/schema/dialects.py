"""OpenAPI 3.0 Schema Objects translated to the dialects clients read.

Translation is not a copy. What a target cannot express is dropped *and reported*: every function
returns the translated schema and a list of notes (``key path: what was lost``), which the
commands print on stderr.
"""

from __future__ import annotations

import copy
import json
import typing as t

from cogtools.core.errors import format_key_path
from cogtools.schema.validate import INTEGER_RANGES, json_type

Notes = t.List[str]
Path = t.Tuple[t.Union[str, int], ...]

_SUBSCHEMA_LISTS = ("allOf", "anyOf", "oneOf")
_OPENAPI_ONLY = ("discriminator", "xml", "externalDocs")


def _where(path: Path) -> str:
    return format_key_path(path) or "(arguments)"


def to_json_schema(schema: t.Mapping[str, t.Any], path: Path = ()) -> tuple[dict[str, t.Any], Notes]:
    """OpenAPI 3.0 -> JSON Schema (draft-07 keywords, valid in 2020-12 too)."""
    notes: Notes = []
    return _json(schema, path, notes), notes


def _json(schema: t.Mapping[str, t.Any], path: Path, notes: Notes) -> dict[str, t.Any]:
    out: dict[str, t.Any] = {}
    for key, value in schema.items():
        if key == "nullable":
            continue
        if key in ("exclusiveMinimum", "exclusiveMaximum"):
            if value:
                out[key] = schema["minimum" if key == "exclusiveMinimum" else "maximum"]
            continue
        if key in ("minimum", "maximum"):
            exclusive = "exclusiveMinimum" if key == "minimum" else "exclusiveMaximum"
            if not schema.get(exclusive, False):
                out[key] = value
            continue
        if key == "example":
            out["examples"] = [copy.deepcopy(value)]
        elif key in _OPENAPI_ONLY or key.startswith("x-"):
            notes.append(f"{_where(path)}: `{key}` dropped: JSON Schema has no such keyword")
        elif key == "properties":
            out[key] = {name: _json(sub, (*path, name), notes) for name, sub in value.items()}
        elif key == "$defs":
            out[key] = {name: _json(sub, ("$defs", name), notes) for name, sub in value.items()}
        elif key in ("items", "not") or (key == "additionalProperties" and isinstance(value, dict)):
            out[key] = _json(value, path if key != "items" else (*path, "[]"), notes)
        elif key in _SUBSCHEMA_LISTS:
            out[key] = [_json(sub, path, notes) for sub in value]
        else:
            out[key] = copy.deepcopy(value)
    if schema.get("format") in INTEGER_RANGES and schema.get("type") in ("integer", "number"):
        _integer_range(out, *INTEGER_RANGES[schema["format"]])
    return or_null(out) if schema.get("nullable") else out


def _integer_range(out: dict[str, t.Any], low: int, high: int) -> None:
    """OpenAPI's ``int32``/``int64`` as what every JSON Schema validator checks (a format it may
    not know): an integer, within the range."""
    out["type"] = "integer"
    for bound, exclusive, limit, tighter in (
        ("minimum", "exclusiveMinimum", low, max),
        ("maximum", "exclusiveMaximum", high, min),
    ):
        given = out.get(exclusive, out.get(bound))
        if given is None or tighter(given, limit) == limit:
            out.pop(exclusive, None)
            out[bound] = limit


#: Keywords that say what a value is, not what it must be: they stay at the top of a schema that
#: :func:`or_null` wraps, where clients read them.
_ANNOTATIONS = ("title", "description", "default", "examples", "readOnly", "writeOnly", "deprecated")


def or_null(out: dict[str, t.Any]) -> dict[str, t.Any]:
    """``out`` (JSON Schema) or null: OpenAPI's ``nullable`` as cogtools reads it, null accepted
    whatever the other keywords say (with ``type`` or without; an ``enum`` need not list null).
    A schema that says null already is left as it is."""
    type_ = out.get("type")
    if type_ is not None:
        types = type_ if isinstance(type_, list) else [type_]
        out["type"] = types if "null" in types else [*types, "null"]
    if "enum" in out and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    if not any(key in out for key in ("allOf", "oneOf", "not", "$ref")):
        if "anyOf" in out and {"type": "null"} not in out["anyOf"]:
            out["anyOf"] = [*out["anyOf"], {"type": "null"}]
        return out
    # A combinator or a reference that could refuse null: the schema becomes one branch of two.
    top = {key: out.pop(key) for key in _ANNOTATIONS if key in out}
    return {**top, "anyOf": [out, {"type": "null"}]}


#: What the Gemini API's ``Schema`` (the OpenAPI subset of function declarations; google-genai's
#: ``types.Schema``) takes.
GEMINI_API_KEYS = frozenset(
    {
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "maxItems",
        "minItems",
        "properties",
        "required",
        "minProperties",
        "maxProperties",
        "minLength",
        "maxLength",
        "pattern",
        "example",
        "anyOf",
        "default",
        "items",
        "minimum",
        "maximum",
        "additionalProperties",
    }
)

#: The formats the Gemini API takes, by type; it refuses a declaration with any other.
GEMINI_API_FORMATS = {
    "string": ("enum", "date-time"),
    "number": ("float", "double"),
    "integer": ("int32", "int64", "enum"),
}


def to_gemini_api(schema: t.Mapping[str, t.Any], path: Path = ()) -> tuple[dict[str, t.Any], Notes]:
    """OpenAPI 3.0 -> the Gemini API's ``Schema`` subset, with upper-case type names."""
    notes: Notes = []
    return _gemini(schema, path, notes), notes


def _gemini(schema: t.Mapping[str, t.Any], path: Path, notes: Notes) -> dict[str, t.Any]:
    where = _where(path)
    out: dict[str, t.Any] = {}
    for key, value in schema.items():
        if key in ("exclusiveMinimum", "exclusiveMaximum"):
            continue  # folded into minimum and maximum below
        if key not in GEMINI_API_KEYS:
            what = "extensions" if key.startswith("x-") else f"`{key}`"
            notes.append(f"{where}: `{key}` dropped: the Gemini API schema has no {what}")
            continue
        if key == "type":
            integer = value == "number" and schema.get("format") in INTEGER_RANGES
            out[key] = "INTEGER" if integer else value.upper()
        elif key == "properties":
            out[key] = {name: _gemini(sub, (*path, name), notes) for name, sub in value.items()}
        elif key == "items":
            out[key] = _gemini(value, (*path, "[]"), notes)
        elif key == "additionalProperties" and isinstance(value, dict):
            out[key] = _gemini(value, (*path, "{}"), notes)
        elif key == "anyOf":
            out[key] = [_gemini(sub, path, notes) for sub in value]
        elif key != "enum":
            out[key] = copy.deepcopy(value)
    _gemini_bounds(schema, out, where, notes)
    if "enum" in schema:
        _gemini_enum(schema, out, where, notes)
    _gemini_format(schema, out, where, notes)
    return out


def _gemini_bounds(schema: t.Mapping[str, t.Any], out: dict[str, t.Any], where: str, notes: Notes) -> None:
    """The Gemini API's bounds, which are inclusive: an exclusive bound on integers as the
    inclusive one next to it; any other dropped, and said."""
    for bound, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
        if schema.get(exclusive) and bound in schema:
            limit = schema[bound]
            if schema.get("type") == "integer" and isinstance(limit, int) and not isinstance(limit, bool):
                out[bound] = limit + 1 if bound == "minimum" else limit - 1  # the same integers
            else:
                notes.append(
                    f"{where}: `{exclusive}` dropped: the Gemini API has inclusive bounds only,"
                    f" so the model may give {limit}, which a call refuses"
                )


def _gemini_format(schema: t.Mapping[str, t.Any], out: dict[str, t.Any], where: str, notes: Notes) -> None:
    """A format the Gemini API takes on the type (:data:`GEMINI_API_FORMATS`); any other dropped,
    and said."""
    fmt = out.get("format")
    type_ = "integer" if out.get("type") == "INTEGER" else schema.get("type")
    if fmt is not None and fmt not in GEMINI_API_FORMATS.get(type_ or "", ()):
        del out["format"]
        allowed = " and ".join(GEMINI_API_FORMATS.get(type_ or "", ())) or "none"
        checked = " (a call still checks it)" if _checked_format(fmt) else ""
        notes.append(
            f"{where}: `format: {fmt}` dropped: the Gemini API takes only {allowed} on a {type_ or 'schema without type'}{checked}"
        )


def _checked_format(fmt: str) -> bool:
    from cogtools.schema.string_formats import CHECKS  # (not on cogtools-discover's way to its answer)

    return fmt in CHECKS or fmt in INTEGER_RANGES


def _gemini_enum(schema: t.Mapping[str, t.Any], out: dict[str, t.Any], where: str, notes: Notes) -> None:
    """The Gemini API's enum: a list of strings; on an INTEGER, with ``format: enum`` (Google's
    documented spelling). Null is said by ``nullable``, never in the list."""
    members = [m for m in schema["enum"] if m is not None]
    if not members:
        return  # null alone: `nullable` says it
    type_ = schema.get("type")
    kinds = {json_type(m) for m in members}
    if type_ is None and len(kinds) == 1 and kinds <= {"string", "integer"}:
        type_ = kinds.pop()
        out["type"] = type_.upper()
    if type_ == "string":
        strings = [m for m in members if isinstance(m, str)]
        others = [m for m in members if not isinstance(m, str)]
        if others:
            listed = ", ".join(json.dumps(m) for m in others)
            notes.append(
                f"{where}: enum member{'s' if len(others) > 1 else ''} {listed} dropped: not a string, so no call can"
                " give it (YAML reads yes, no, on, off and 01 unquoted as booleans and numbers: quote them)"
            )
        if strings:
            out["enum"] = strings
    elif type_ == "integer" and all(json_type(m) == "integer" for m in members):
        if out.get("format") in (None, "enum"):
            out["format"] = "enum"
            out["enum"] = [str(m) for m in members]
        else:
            notes.append(
                f"{where}: `enum` dropped: a Gemini API enum of integers is `format: enum`, and this has `format: {out['format']}`"
            )
    elif type_ is None:
        notes.append(f"{where}: `enum` dropped: its members are of several types, and a Gemini API enum holds one")
    else:
        notes.append(
            f"{where}: `enum` dropped: the Gemini API takes enums of strings and integers only, not of {type_} values"
        )


#: JSON Schema keywords with no OpenAPI 3.0 counterpart: a schema using them cannot be read.
_UNREADABLE = (
    "patternProperties",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "prefixItems",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "minContains",
    "maxContains",
)
_DROPPED = ("$schema", "$id", "$comment", "$anchor")


class Unreadable(ValueError):
    """A JSON Schema that OpenAPI 3.0 cannot express, and where."""

    def __init__(self, message: str, path: Path) -> None:
        super().__init__(message)
        self.message = message
        self.path = path


def from_json_schema(schema: t.Any, path: Path = ()) -> dict[str, t.Any]:
    """JSON Schema (seed 002's ``inputSchema``, MCP) -> an OpenAPI 3.0 Schema Object: a type list
    with "null" becomes ``nullable``, ``const`` an ``enum``, ``examples`` an ``example``, a
    numeric ``exclusiveMinimum`` a boolean beside ``minimum``. Raises Unreadable for what has no
    OpenAPI 3.0 form."""
    if not isinstance(schema, dict):
        raise Unreadable("a schema is an object", path)
    out: dict[str, t.Any] = {}
    for key, value in schema.items():
        if key in _DROPPED:
            continue
        if key in _UNREADABLE:
            raise Unreadable(f"`{key}` has no OpenAPI 3.0 equivalent", (*path, key))
        if key in ("$defs", "definitions"):
            raise Unreadable(f"`{key}` is read only at the top of the schema", (*path, key))
        translate = _FROM_JSON_SCHEMA.get(key)
        if translate is None:
            out[key] = copy.deepcopy(value)
        else:
            translate(out, key, value, path)
    return out


def _from_reference(out: dict[str, t.Any], key: str, value: t.Any, path: Path) -> None:
    out[key] = f"{REFERENCE}{referred(value, (*path, key))}"


def _from_type(out: dict[str, t.Any], key: str, value: t.Any, path: Path) -> None:
    """A type or a list of types: "null" among them as ``nullable``, several as an ``anyOf``."""
    types = value if isinstance(value, list) else [value]
    concrete = [x for x in types if x != "null"]
    if len(types) != len(concrete):
        out["nullable"] = True
    if len(concrete) == 1:
        out["type"] = concrete[0]
    elif concrete:
        out["anyOf"] = [{"type": x} for x in concrete]
    else:
        raise Unreadable("a schema that only allows null has no OpenAPI 3.0 form", (*path, key))


def _from_const(out: dict[str, t.Any], key: str, value: t.Any, path: Path) -> None:
    out["enum"] = [copy.deepcopy(value)]


def _from_examples(out: dict[str, t.Any], key: str, value: t.Any, path: Path) -> None:
    if isinstance(value, list) and value:
        out["example"] = copy.deepcopy(value[0])


def _from_exclusive(out: dict[str, t.Any], key: str, value: t.Any, path: Path) -> None:
    """A numeric exclusive bound as OpenAPI 3.0's boolean beside the bound (a boolean as it is)."""
    if isinstance(value, bool):
        out[key] = copy.deepcopy(value)
    else:
        out["minimum" if key == "exclusiveMinimum" else "maximum"] = value
        out[key] = True


def _from_properties(out: dict[str, t.Any], key: str, value: t.Any, path: Path) -> None:
    if not isinstance(value, dict):
        raise Unreadable(f"`{key}` is an object of schemas by name", (*path, key))
    out[key] = {name: from_json_schema(sub, (*path, name)) for name, sub in value.items()}


def _from_subschema(out: dict[str, t.Any], key: str, value: t.Any, path: Path) -> None:
    out[key] = from_json_schema(value, (*path, key))


def _from_additional(out: dict[str, t.Any], key: str, value: t.Any, path: Path) -> None:
    out[key] = from_json_schema(value, (*path, key)) if isinstance(value, dict) else copy.deepcopy(value)


def _from_branches(out: dict[str, t.Any], key: str, value: t.Any, path: Path) -> None:
    """``allOf``, ``anyOf`` or ``oneOf``; a branch of ``anyOf`` or ``oneOf`` that allows only
    null (an Optional, as pydantic writes it: ``anyOf: [{type: string}, {type: "null"}]``) as
    OpenAPI says it, with ``nullable`` on the schema that holds the branches."""
    if key != "allOf" and isinstance(value, list) and any(_only_null(sub) for sub in value):
        value = [sub for sub in value if not _only_null(sub)]
        out["nullable"] = True
        if not value:
            raise Unreadable("a schema that only allows null has no OpenAPI 3.0 form", (*path, key))
    out[key] = [from_json_schema(sub, (*path, key, i)) for i, sub in enumerate(value)]


#: How :func:`from_json_schema` translates a keyword; any other is copied as it is.
_FROM_JSON_SCHEMA: dict[str, t.Callable[[dict[str, t.Any], str, t.Any, Path], None]] = {
    "$ref": _from_reference,
    "type": _from_type,
    "const": _from_const,
    "examples": _from_examples,
    "exclusiveMinimum": _from_exclusive,
    "exclusiveMaximum": _from_exclusive,
    "properties": _from_properties,
    "items": _from_subschema,
    "not": _from_subschema,
    "additionalProperties": _from_additional,
    "allOf": _from_branches,
    "anyOf": _from_branches,
    "oneOf": _from_branches,
}


#: How a schema refers to one of the tool's definitions: ``{"$ref": "#/$defs/NAME"}``.
REFERENCE = "#/$defs/"
#: The dialects whose keywords the JSON exports write, given back when a tool names one.
DIALECTS = ("https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2019-09/schema")
#: The most definitions a tool may have, and the deepest a reference may be followed when they
#: are written out in full (:func:`inline`): a schema that refers to a schema that refers... is
#: as large as it is deep.
MAX_DEFINITIONS = 256
MAX_INLINED = 10_000


def referred(reference: t.Any, path: Path) -> str:
    """The name of the definition a ``$ref`` names: a local one, ``#/$defs/NAME`` (or draft-07's
    ``#/definitions/NAME``). Raises Unreadable for any other reference."""
    for prefix in (REFERENCE, "#/definitions/"):
        if isinstance(reference, str) and reference.startswith(prefix):
            name = reference[len(prefix) :]
            if name and "/" not in name:
                return name.replace("~1", "/").replace("~0", "~")
    raise Unreadable(
        f"only a reference to a definition of the schema's own `$defs` ({REFERENCE}NAME) is read, not {reference!r}",
        path,
    )


def read_input_schema(schema: t.Mapping[str, t.Any]) -> tuple[dict[str, t.Any], dict[str, t.Any], str | None]:
    """A JSON Schema of the arguments (seed 002's ``inputSchema``, MCP) -> its OpenAPI 3.0 form
    (:func:`from_json_schema`), the definitions it refers to (its ``$defs``, or draft-07's
    ``definitions``), each in OpenAPI 3.0 form too, and the dialect it names when the exports can
    give it back (:data:`DIALECTS`)."""
    body = {key: value for key, value in schema.items() if key not in ("$defs", "definitions")}
    found: dict[str, t.Any] = {}
    for key in ("$defs", "definitions"):
        given = schema.get(key)
        if given is None:
            continue
        if not isinstance(given, dict):
            raise Unreadable(f"`{key}` is an object of schemas by name", (key,))
        for name, definition in given.items():
            if name in found:
                raise Unreadable(f"{name!r} is defined in both `$defs` and `definitions`", (key, name))
            found[name] = from_json_schema(definition, (key, name))
    dialect = schema.get("$schema")
    parameters = from_json_schema(body)
    check_definitions(parameters.get("properties", {}), found)
    return parameters, found, dialect if dialect in DIALECTS else None


def check_definitions(schemas: t.Mapping[str, t.Any], definitions: t.Mapping[str, t.Any]) -> None:
    """Raise Unreadable (its path from the arguments object: ``properties``, NAME... or
    ``$defs``, NAME...) when ``schemas`` (by parameter) or the ``definitions`` refer to a
    definition there is not, when there are too many, or when a definition refers to itself with
    no value between (``a: {$ref: a}``, or through ``allOf``): a value could never be checked
    against it. A definition that refers to itself within a property or an item (a tree) is fine:
    each value checked is smaller than the one before."""
    if len(definitions) > MAX_DEFINITIONS:
        raise Unreadable(f"more than {MAX_DEFINITIONS} definitions", ("$defs",))
    direct: dict[str, set[str]] = {}
    named = [
        *((("$defs", n), d) for n, d in definitions.items()),
        *((("properties", n), s) for n, s in schemas.items()),
    ]
    for where, schema in named:
        for name, path, within in _references(schema, where, False):
            if name not in definitions:
                raise Unreadable(f"refers to {REFERENCE}{name}, which is not defined", path)
            if not within and where[0] == "$defs":
                direct.setdefault(str(where[1]), set()).add(name)
    done: set[str] = set()

    def visit(name: str, trail: list[str]) -> None:
        if name in trail:
            cycle = " -> ".join([*trail[trail.index(name) :], name])
            raise Unreadable(f"a definition refers to itself with no value between ({cycle})", ("$defs", name))
        if name not in done:
            for target in sorted(direct.get(name, ())):
                visit(target, [*trail, name])
            done.add(name)

    for name in sorted(direct):
        visit(name, [])


def _references(schema: t.Any, path: Path, within: bool) -> t.Iterator[tuple[str, Path, bool]]:
    """Each definition ``schema`` refers to, where, and whether within a value (a property, an
    item) rather than of the value itself."""
    if not isinstance(schema, dict):
        return
    if isinstance(schema.get("$ref"), str) and schema["$ref"].startswith(REFERENCE):
        yield schema["$ref"][len(REFERENCE) :], (*path, "$ref"), within
    for key, value in schema.items():
        if key == "properties" and isinstance(value, dict):
            for name, sub in value.items():
                yield from _references(sub, (*path, key, name), True)
        elif key in ("items", "additionalProperties"):
            yield from _references(value, (*path, key), True)
        elif key == "not":
            yield from _references(value, (*path, key), within)
        elif key in _SUBSCHEMA_LISTS and isinstance(value, list):
            for i, sub in enumerate(value):
                yield from _references(sub, (*path, key, i), within)


def inline(schema: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    """``schema`` (an OpenAPI 3.0 arguments object, its definitions in ``$defs``) with each
    reference replaced by what it refers to, for a dialect that has no references (the keywords
    beside a ``$ref`` are kept, and win). Raises Unreadable for a definition that refers to
    itself (a tree has no finite form without references), or one that would grow too large."""
    definitions = schema.get("$defs", {})
    budget = [MAX_INLINED]

    def out(node: t.Any, path: Path, trail: tuple[str, ...]) -> t.Any:
        budget[0] -= 1
        if budget[0] < 0:
            raise Unreadable(f"written without references, the schema has more than {MAX_INLINED} parts", path)
        if isinstance(node, list):
            return [out(item, (*path, i), trail) for i, item in enumerate(node)]
        if not isinstance(node, dict):
            return copy.deepcopy(node)
        reference = node.get("$ref")
        rest = {key: out(value, (*path, key), trail) for key, value in node.items() if key not in ("$ref", "$defs")}
        name = reference[len(REFERENCE) :] if isinstance(reference, str) and reference.startswith(REFERENCE) else None
        if name is None or name not in definitions:  # (a value that only looks like one: a default, an example)
            return rest if name is None else {**rest, "$ref": reference}
        if name in trail:
            raise Unreadable(f"{REFERENCE}{name} refers to itself, which cannot be written without references", path)
        return {**out(definitions[name], ("$defs", name), (*trail, name)), **rest}

    return t.cast("dict[str, t.Any]", out(schema, (), ()))


def _only_null(schema: t.Any) -> bool:
    return isinstance(schema, dict) and schema.get("type") in ("null", ["null"]) and len(schema) == 1


def from_gemini_api(schema: t.Any) -> t.Any:
    """The Gemini API's upper-case type names (seed 000's ``tools.json``) back to OpenAPI's."""
    if isinstance(schema, dict):
        return {
            key: (value.lower() if key == "type" and isinstance(value, str) else from_gemini_api(value))
            for key, value in schema.items()
        }
    if isinstance(schema, list):
        return [from_gemini_api(item) for item in schema]
    return schema
