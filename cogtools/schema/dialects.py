"""OpenAPI 3.0 Schema Objects translated to the dialects clients read.

Translation is not a copy. What a target cannot express is dropped *and reported*: every function
returns the translated schema and a list of notes (``key path: what was lost``), which the
commands print on stderr.
"""

from __future__ import annotations

import copy
import json
import typing as t

from cogtools.errors import format_key_path
from cogtools.validate import INTEGER_RANGES

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
    if not any(key in out for key in ("allOf", "oneOf", "not")):
        if "anyOf" in out and {"type": "null"} not in out["anyOf"]:
            out["anyOf"] = [*out["anyOf"], {"type": "null"}]
        return out
    # A combinator that could refuse null: the schema becomes one branch of two.
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
    if "enum" in schema:
        _gemini_enum(schema, out, where, notes)
    fmt = out.get("format")
    type_ = "integer" if out.get("type") == "INTEGER" else schema.get("type")
    if fmt is not None and fmt not in GEMINI_API_FORMATS.get(type_ or "", ()):
        del out["format"]
        allowed = " and ".join(GEMINI_API_FORMATS.get(type_ or "", ())) or "none"
        checked = " (a call still checks it)" if _checked_format(fmt) else ""
        notes.append(
            f"{where}: `format: {fmt}` dropped: the Gemini API takes only {allowed} on a {type_ or 'schema without type'}{checked}"
        )
    return out


def _checked_format(fmt: str) -> bool:
    from cogtools.string_formats import CHECKS

    return fmt in CHECKS or fmt in INTEGER_RANGES


def _gemini_enum(schema: t.Mapping[str, t.Any], out: dict[str, t.Any], where: str, notes: Notes) -> None:
    """The Gemini API's enum: a list of strings; on an INTEGER, with ``format: enum`` (Google's
    documented spelling). Null is said by ``nullable``, never in the list."""
    from cogtools.validate import json_type

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
    "$ref",
    "$defs",
    "definitions",
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
        if key == "type":
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
        elif key == "const":
            out["enum"] = [copy.deepcopy(value)]
        elif key == "examples":
            if isinstance(value, list) and value:
                out["example"] = copy.deepcopy(value[0])
        elif key in ("exclusiveMinimum", "exclusiveMaximum") and not isinstance(value, bool):
            bound = "minimum" if key == "exclusiveMinimum" else "maximum"
            out[bound] = value
            out[key] = True
        elif key == "properties":
            out[key] = {name: from_json_schema(sub, (*path, name)) for name, sub in value.items()}
        elif key in ("items", "not") or (key == "additionalProperties" and isinstance(value, dict)):
            out[key] = from_json_schema(value, (*path, key))
        elif key in ("anyOf", "oneOf") and isinstance(value, list) and any(_only_null(sub) for sub in value):
            # `anyOf: [{type: string}, {type: "null"}]` (an Optional, as pydantic writes it):
            # OpenAPI says it with `nullable` on the schema that holds the branches.
            rest = [sub for sub in value if not _only_null(sub)]
            out["nullable"] = True
            if rest:
                out[key] = [from_json_schema(sub, (*path, key, i)) for i, sub in enumerate(rest)]
            else:
                raise Unreadable("a schema that only allows null has no OpenAPI 3.0 form", (*path, key))
        elif key in _SUBSCHEMA_LISTS:
            out[key] = [from_json_schema(sub, (*path, key, i)) for i, sub in enumerate(value)]
        else:
            out[key] = copy.deepcopy(value)
    return out


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
