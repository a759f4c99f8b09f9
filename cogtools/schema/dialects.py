"""OpenAPI 3.0 Schema Objects translated to the dialects clients read.

Translation is not a copy. What a target cannot express is dropped *and reported*: every function
returns the translated schema and a list of notes (``key path: what was lost``), which the
commands print on stderr.
"""

from __future__ import annotations

import copy
import typing as t

from cogtools.errors import format_key_path

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
    if schema.get("nullable") and "type" in schema:
        out["type"] = [schema["type"], "null"]
        if "enum" in out and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
    return out


#: What the Gemini API's ``Schema`` (the OpenAPI subset of function declarations) accepts.
GEMINI_API_KEYS = frozenset(
    {
        "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems",
        "properties", "required", "minProperties", "maxProperties", "minLength", "maxLength",
        "pattern", "example", "anyOf", "default", "items", "minimum", "maximum",
    }
)


def to_gemini_api(schema: t.Mapping[str, t.Any], path: Path = ()) -> tuple[dict[str, t.Any], Notes]:
    """OpenAPI 3.0 -> the Gemini API's ``Schema`` subset, with upper-case type names."""
    notes: Notes = []
    return _gemini(schema, path, notes, top=True), notes


def _gemini(schema: t.Mapping[str, t.Any], path: Path, notes: Notes, top: bool = False) -> dict[str, t.Any]:
    out: dict[str, t.Any] = {}
    for key, value in schema.items():
        if key not in GEMINI_API_KEYS:
            if key == "additionalProperties" and top and value is False:
                continue  # the arguments object is closed anyway: cogtools-call rejects unknown names
            if key.startswith("x-"):
                notes.append(f"{_where(path)}: `{key}` dropped: the Gemini API has no extensions")
            else:
                notes.append(f"{_where(path)}: `{key}` dropped: the Gemini API schema cannot express it")
            continue
        if key == "type":
            out[key] = value.upper()
        elif key == "enum" and schema.get("type") != "string":
            notes.append(f"{_where(path)}: `enum` dropped: the Gemini API takes enums of strings only")
        elif key == "properties":
            out[key] = {name: _gemini(sub, (*path, name), notes) for name, sub in value.items()}
        elif key == "items":
            out[key] = _gemini(value, (*path, "[]"), notes)
        elif key == "anyOf":
            out[key] = [_gemini(sub, path, notes) for sub in value]
        else:
            out[key] = copy.deepcopy(value)
    return out


#: JSON Schema keywords with no OpenAPI 3.0 counterpart: a schema using them cannot be read.
_UNREADABLE = (
    "$ref", "$defs", "definitions", "patternProperties", "if", "then", "else", "dependentRequired",
    "dependentSchemas", "dependencies", "prefixItems", "contains", "propertyNames", "unevaluatedProperties",
    "unevaluatedItems", "minContains", "maxContains",
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
        elif key in _SUBSCHEMA_LISTS:
            out[key] = [from_json_schema(sub, (*path, key, i)) for i, sub in enumerate(value)]
        else:
            out[key] = copy.deepcopy(value)
    return out


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
