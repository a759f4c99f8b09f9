"""Arguments against an OpenAPI 3.0 Schema Object, with OpenAPI's own semantics.

OpenAPI 3.0 is not JSON Schema: ``nullable`` adds null to the declared type, ``exclusiveMinimum``
is a boolean beside ``minimum``, ``type`` is one name, ``format`` includes ``int32``/``int64``/
``byte``. This module implements that dialect directly, so a call pays for neither jsonschema's
import (about 90 ms, more than the rest of a call) nor a translation; its verdicts are tested
against jsonschema on the translated schemas (tests/test_validate.py).

Every violation says where (``field``), what was given and what is accepted, so a model can
correct its next call.
"""

from __future__ import annotations

import contextvars
import math
import typing as t

from cogtools.core.errors import format_key_path
from cogtools.schema import patterns

Path = t.Tuple[t.Union[str, int], ...]

#: The ``given`` of a violation about an argument that was not given at all.
MISSING: t.Any = type("Missing", (), {"__repr__": lambda self: "MISSING"})()


class Violation(t.NamedTuple):
    path: Path
    given: t.Any
    accepted: str
    message: str

    @property
    def field(self) -> str:
        return format_key_path(self.path) or "(arguments)"

    def to_json(self) -> dict[str, t.Any]:
        out = {"field": self.field, "given": self.given, "accepted": self.accepted, "message": self.message}
        if self.given is MISSING:
            del out["given"]
        return out

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"


def validate(schema: t.Mapping[str, t.Any], instance: t.Any, path: Path = ()) -> list[Violation]:
    """Every way ``instance`` fails ``schema`` (an OpenAPI 3.0 Schema Object); empty when valid.
    Its pattern searches that cannot run in linear time take :data:`~cogtools.schema.patterns.BUDGET_SECONDS`
    together at most (:func:`cogtools.schema.patterns.budget`).

    A schema may refer to a definition (``{"$ref": "#/$defs/NAME"}``, the keywords beside it
    applying too, as in JSON Schema 2020-12): the definitions are the ``$defs`` of the schema
    given, or of the one an outer call was given."""
    out: list[Violation] = []
    definitions = schema.get("$defs")
    token = _DEFINITIONS.set(definitions) if definitions is not None else None
    try:
        with patterns.budget():
            _validate(schema, instance, path, out)
    finally:
        if token is not None:
            _DEFINITIONS.reset(token)
    return out


#: The definitions the schema being checked refers to.
_DEFINITIONS: contextvars.ContextVar[t.Mapping[str, t.Any] | None] = contextvars.ContextVar(
    "cogtools_definitions", default=None
)
_REFERENCE = "#/$defs/"


def is_valid(schema: t.Mapping[str, t.Any], instance: t.Any) -> bool:
    return not validate(schema, instance)


TYPE_NAMES = {
    "string": "a string",
    "number": "a number",
    "integer": "an integer",
    "boolean": "a boolean",
    "array": "an array",
    "object": "an object",
}


def json_type(value: t.Any) -> str:
    """The JSON type name of a Python value loaded from JSON or YAML."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def is_type(value: t.Any, type_: str) -> bool:
    if type_ == "string":
        return isinstance(value, str)
    if type_ == "boolean":
        return isinstance(value, bool)
    if type_ == "integer":
        if isinstance(value, bool):
            return False
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if type_ == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if type_ == "array":
        return isinstance(value, list)
    if type_ == "object":
        return isinstance(value, dict)
    return True


def json_equal(a: t.Any, b: t.Any) -> bool:
    """Equality as JSON means it: ``true`` is not ``1``; ``1`` is ``1.0``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _short(value: t.Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _validate(schema: t.Mapping[str, t.Any], value: t.Any, path: Path, out: list[Violation]) -> None:
    def add(accepted: str, message: str) -> None:
        out.append(Violation(path, value, accepted, message))

    type_ = schema.get("type")
    if value is None and schema.get("nullable", False):
        # `nullable` accepts null whatever the other keywords say: with `type` or without it, in
        # an `enum` that does not list it, beside `anyOf` or `$ref` (the JSON exports say the same).
        return
    reference = schema.get("$ref")
    if isinstance(reference, str) and reference.startswith(_REFERENCE):
        # (a tool's references were checked when it loaded: each names a definition)
        definitions = _DEFINITIONS.get() or {}
        _validate(definitions.get(reference[len(_REFERENCE) :], {}), value, path, out)
    if type_ is not None and (value is None or not is_type(value, type_)):
        _wrong_type(type_, value, add)
        return
    if "enum" in schema and not any(json_equal(value, option) for option in schema["enum"]):
        options = ", ".join(_short(o) for o in schema["enum"])
        add(f"one of: {options}", f"{_short(value)} is not one of: {options}")
    if isinstance(value, str):
        _string(schema, value, add)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        _number(schema, value, add)
    elif isinstance(value, list):
        _array(schema, value, path, out, add)
    elif isinstance(value, dict):
        _object(schema, value, path, out, add)
    if "allOf" in schema or "anyOf" in schema or "oneOf" in schema or "not" in schema:
        _combined(schema, value, path, out, add)


def _wrong_type(type_: str, value: t.Any, add: t.Callable[[str, str], None]) -> None:
    expected = TYPE_NAMES.get(type_, type_)
    if value is None:
        add(expected, f"null is not allowed; expected {expected}")
    else:
        add(expected, f"expected {expected}, got {json_type(value)}")


def _combined(
    schema: t.Mapping[str, t.Any],
    value: t.Any,
    path: Path,
    out: list[Violation],
    add: t.Callable[[str, str], None],
) -> None:
    """What the schemas ``schema`` combines say of ``value``: all of ``allOf``, at least one of
    ``anyOf``, exactly one of ``oneOf``, not ``not``."""
    for sub in schema.get("allOf", ()):
        _validate(sub, value, path, out)
    if "anyOf" in schema and not any(is_valid(sub, value) for sub in schema["anyOf"]):
        add("a value matching at least one of the `anyOf` schemas", "matches none of the allowed shapes (anyOf)")
    if "oneOf" in schema:
        matches = sum(1 for sub in schema["oneOf"] if is_valid(sub, value))
        if matches != 1:
            add(
                "a value matching exactly one of the `oneOf` schemas",
                f"matches {matches} of the allowed shapes; exactly one is required (oneOf)",
            )
    if "not" in schema and is_valid(schema["not"], value):
        add("a value not matching the `not` schema", "matches a shape that is not allowed (not)")


def _string(schema: t.Mapping[str, t.Any], value: str, add: t.Callable[[str, str], None]) -> None:
    if "minLength" in schema and len(value) < schema["minLength"]:
        add(
            f"at least {schema['minLength']} characters",
            f"is {len(value)} characters, fewer than {schema['minLength']}",
        )
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        add(f"at most {schema['maxLength']} characters", f"is {len(value)} characters, more than {schema['maxLength']}")
    if "pattern" in schema:
        try:
            if not patterns.search(schema["pattern"], value):
                add(f"a string matching {schema['pattern']}", f"{_short(value)} does not match {schema['pattern']}")
        except patterns.PatternTimeout as e:
            add(
                f"a string matching {schema['pattern']} that can be checked in time",
                f"{_short(value)} could not be checked against {schema['pattern']} in time ({e}): give a shorter value",
            )
    fmt = schema.get("format")
    if fmt is not None:
        from cogtools.schema.string_formats import check_string_format

        problem = check_string_format(fmt, value)
        if problem:
            add(problem, f"{_short(value)} is not {problem}")


#: OpenAPI's integer formats and their ranges (a value must be an integer within it).
INTEGER_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}


def _number(schema: t.Mapping[str, t.Any], value: int | float, add: t.Callable[[str, str], None]) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        add("a finite number", f"{value!r} is not a finite number")
        return
    if "minimum" in schema:
        low = schema["minimum"]
        if schema.get("exclusiveMinimum", False):
            if value <= low:
                add(f"a number greater than {low}", f"{value} is not greater than {low}")
        elif value < low:
            add(f"a number at least {low}", f"{value} is less than the minimum {low}")
    if "maximum" in schema:
        high = schema["maximum"]
        if schema.get("exclusiveMaximum", False):
            if value >= high:
                add(f"a number less than {high}", f"{value} is not less than {high}")
        elif value > high:
            add(f"a number at most {high}", f"{value} is more than the maximum {high}")
    if "multipleOf" in schema:
        step = schema["multipleOf"]
        if isinstance(value, int) and isinstance(step, int):
            bad = value % step != 0
        else:
            try:
                quotient = value / step
                bad = not math.isfinite(quotient) or quotient != int(quotient)
            except OverflowError:  # an integer past a float's range: exactly, then
                from fractions import Fraction

                bad = (Fraction(value) / Fraction(step)).denominator != 1
        if bad:
            add(f"a multiple of {step}", f"{value} is not a multiple of {step}")
    fmt = schema.get("format")
    if fmt in INTEGER_RANGES:
        low, high = INTEGER_RANGES[fmt]
        if not (is_type(value, "integer") and low <= value <= high):
            add(
                f"an {fmt}: an integer from {low} to {high}",
                f"{value} is not an {fmt} (an integer from {low} to {high})",
            )


def _array(
    schema: t.Mapping[str, t.Any],
    value: list[t.Any],
    path: Path,
    out: list[Violation],
    add: t.Callable[[str, str], None],
) -> None:
    if "minItems" in schema and len(value) < schema["minItems"]:
        add(f"at least {schema['minItems']} items", f"has {len(value)} items, fewer than {schema['minItems']}")
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        add(f"at most {schema['maxItems']} items", f"has {len(value)} items, more than {schema['maxItems']}")
    if schema.get("uniqueItems", False):
        for i, item in enumerate(value):
            if any(json_equal(item, other) for other in value[:i]):
                add("items that are all different", f"item {i} ({_short(item)}) repeats an earlier item")
                break
    items = schema.get("items")
    if items is not None:
        for i, item in enumerate(value):
            _validate(items, item, (*path, i), out)


def _object(
    schema: t.Mapping[str, t.Any],
    value: dict[str, t.Any],
    path: Path,
    out: list[Violation],
    add: t.Callable[[str, str], None],
) -> None:
    properties: t.Mapping[str, t.Any] = schema.get("properties", {})
    for name in schema.get("required", ()):
        if name not in value:
            sub = properties.get(name, {})
            kind = TYPE_NAMES.get(sub.get("type", ""), "a value")
            out.append(Violation((*path, name), MISSING, kind, f"is required ({kind}) but missing"))
    if "minProperties" in schema and len(value) < schema["minProperties"]:
        add(
            f"at least {schema['minProperties']} properties",
            f"has {len(value)} properties, fewer than {schema['minProperties']}",
        )
    if "maxProperties" in schema and len(value) > schema["maxProperties"]:
        add(
            f"at most {schema['maxProperties']} properties",
            f"has {len(value)} properties, more than {schema['maxProperties']}",
        )
    additional = schema.get("additionalProperties", True)
    for name, item in value.items():
        if name in properties:
            _validate(properties[name], item, (*path, name), out)
        elif additional is False:
            known = ", ".join(properties) or "none"
            out.append(
                Violation(
                    (*path, name),
                    item,
                    f"one of the declared names: {known}",
                    f"is not a known name (declared: {known})",
                )
            )
        elif isinstance(additional, dict):
            _validate(additional, item, (*path, name), out)
