"""OpenAI's strict mode: a JSON Schema the model's output is held to, in a subset of JSON Schema.

Strict mode wants every property of every object listed in ``required`` and ``additionalProperties:
false`` on every object, and takes only some keywords. An optional property is made nullable (the
model gives null for what it would leave out; a call reads null for an optional, non-nullable
parameter as not given, see :func:`cogtools.services.invoke.prepare`). A tool strict mode cannot carry
exactly (a keyword it refuses, an open object, a limit passed) is offered without it, and the
reason is said.
"""

from __future__ import annotations

import copy
import json
import typing as t

from cogtools.schema.dialects import or_null

#: The keywords strict mode takes (OpenAI, "Structured Outputs: supported schemas").
KEYWORDS = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "const",
        "anyOf",
        "title",
        "description",
        "pattern",
        "format",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minItems",
        "maxItems",
        "$ref",
        "$defs",
    }
)
#: The string formats strict mode takes.
FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"})
#: Keywords that only inform: folded into the description, where the model still reads them.
FOLDED = {"default": "Default", "examples": "Example"}
#: Strict mode's limits: levels of nesting, properties in all, enum values in all.
MAX_DEPTH, MAX_PROPERTIES, MAX_ENUM_VALUES = 10, 5000, 1000


class NotStrict(ValueError):
    """Why a schema cannot be carried exactly by strict mode."""


def to_openai_strict(schema: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    """``schema`` (a JSON Schema export of the arguments object) made strict; NotStrict says why
    it cannot be."""
    counts = {"properties": 0, "enum": 0}
    out = _strict(schema, "(arguments)", 1, counts)
    if counts["properties"] > MAX_PROPERTIES:
        raise NotStrict(f"{counts['properties']} properties; strict mode takes at most {MAX_PROPERTIES}")
    if counts["enum"] > MAX_ENUM_VALUES:
        raise NotStrict(f"{counts['enum']} enum values; strict mode takes at most {MAX_ENUM_VALUES}")
    return out


def _strict(schema: t.Mapping[str, t.Any], where: str, depth: int, counts: dict[str, int]) -> dict[str, t.Any]:
    if depth > MAX_DEPTH:
        raise NotStrict(f"{where}: nested more than {MAX_DEPTH} levels deep, strict mode's limit")
    out: dict[str, t.Any] = {}
    folded: list[str] = []
    for key, value in schema.items():
        if key in FOLDED:
            shown = value[0] if key == "examples" and value else value
            folded.append(f"{FOLDED[key]}: {json.dumps(shown, ensure_ascii=False)}.")
        elif key not in KEYWORDS:
            raise NotStrict(f"{where}: strict mode does not take `{key}`")
        elif key == "format" and value not in FORMATS:
            raise NotStrict(f"{where}: strict mode does not take `format: {value}`")
        elif key == "properties":
            out[key] = {name: _strict(sub, _join(where, name), depth + 1, counts) for name, sub in value.items()}
        elif key == "items":
            out[key] = _strict(value, where + "[]", depth + 1, counts)
        elif key == "anyOf":
            out[key] = [_strict(sub, where, depth + 1, counts) for sub in value]
        elif key == "$defs":
            out[key] = {name: _strict(sub, f"$defs.{name}", 1, counts) for name, sub in value.items()}
        else:
            out[key] = copy.deepcopy(value)
    counts["enum"] += len(out.get("enum", ()))
    if folded:
        out["description"] = " ".join([out["description"], *folded] if out.get("description") else folded)
    if _is_object(out):
        _close(out, where, counts)
    return out


def _join(where: str, name: str) -> str:
    return name if where == "(arguments)" else f"{where}.{name}"


def _is_object(schema: t.Mapping[str, t.Any]) -> bool:
    type_ = schema.get("type")
    return type_ == "object" or (isinstance(type_, list) and "object" in type_)


def _close(out: dict[str, t.Any], where: str, counts: dict[str, int]) -> None:
    """Every property required (the optional ones nullable), and nothing else allowed."""
    properties: dict[str, t.Any] = out.get("properties", {})
    if out.get("additionalProperties", True) is not False:
        raise NotStrict(f"{where}: an object open to other names, which strict mode cannot say")
    counts["properties"] += len(properties)
    required = set(out.get("required", ()))
    for name, sub in properties.items():
        if name not in required:
            properties[name] = or_null(sub)
    if properties:
        out["required"] = list(properties)
