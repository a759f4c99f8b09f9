"""The OpenAPI 3.0 argument validator: its verdicts agree with jsonschema on the translated
schema, and its messages say field, given and accepted."""

from __future__ import annotations

import typing as t

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cogtools.schema.dialects import to_json_schema
from cogtools.schema.validate import json_equal, validate

from .conftest import examples

# -- the differential test --------------------------------------------------------------------

json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-20, 20),
    st.floats(-20, 20, allow_nan=False).map(lambda f: round(f, 2)),
    st.sampled_from(["", "a", "ab", "abc", "hello", "A1", "12", "x-y"]),
)
json_values = st.recursive(
    json_leaf,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), children, max_size=4),
    ),
    max_leaves=8,
)


@st.composite
def leaf_schemas(draw: st.DrawFn) -> dict[str, t.Any]:
    type_ = draw(st.sampled_from(["string", "integer", "number", "boolean", None]))
    schema: dict[str, t.Any] = {} if type_ is None else {"type": type_}
    if type_ is not None and draw(st.booleans()):
        schema["nullable"] = True
    if type_ == "string":
        if draw(st.booleans()):
            schema["minLength"] = draw(st.integers(0, 3))
        if draw(st.booleans()):
            schema["maxLength"] = draw(st.integers(0, 4))
        if draw(st.booleans()):
            schema["pattern"] = draw(st.sampled_from(["^a", "b", "^[A-Z]", "\\d"]))
    if type_ in ("integer", "number"):
        for bound, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
            if draw(st.booleans()):
                schema[bound] = draw(st.integers(-10, 10))
                if draw(st.booleans()):
                    schema[exclusive] = draw(st.booleans())
        if draw(st.booleans()):
            schema["multipleOf"] = draw(st.sampled_from([2, 3, 0.5]))
    if draw(st.integers(0, 4)) == 0:
        schema["enum"] = draw(st.lists(json_leaf, min_size=1, max_size=4))
    return schema


def schemas(depth: int = 2) -> st.SearchStrategy[dict[str, t.Any]]:
    if depth == 0:
        return leaf_schemas()
    child = schemas(depth - 1)

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, t.Any]:
        kind = draw(st.sampled_from(["leaf", "array", "object", "allOf", "anyOf", "oneOf", "not"]))
        if kind == "leaf":
            return draw(leaf_schemas())
        if kind == "array":
            schema: dict[str, t.Any] = {"type": "array", "items": draw(child)}
            if draw(st.booleans()):
                schema["minItems"] = draw(st.integers(0, 2))
            if draw(st.booleans()):
                schema["maxItems"] = draw(st.integers(0, 3))
            if draw(st.booleans()):
                schema["uniqueItems"] = True
            if draw(st.booleans()):
                schema["nullable"] = True
            return schema
        if kind == "object":
            names = draw(st.lists(st.sampled_from(["a", "b", "c"]), unique=True, max_size=3))
            schema = {"type": "object", "properties": {n: draw(child) for n in names}}
            required = draw(st.lists(st.sampled_from(["a", "b", "c"]), unique=True, max_size=2))
            if required:
                schema["required"] = required
            extra = draw(st.sampled_from([None, False, True, "schema"]))
            if extra == "schema":
                schema["additionalProperties"] = draw(child)
            elif extra is not None:
                schema["additionalProperties"] = extra
            if draw(st.booleans()):
                schema["minProperties"] = draw(st.integers(0, 2))
            if draw(st.booleans()):
                schema["maxProperties"] = draw(st.integers(0, 3))
            return schema
        if kind == "not":
            return {"not": draw(child)}
        return {kind: draw(st.lists(child, min_size=1, max_size=3))}

    return build()


def near_values(schema: t.Any) -> list[t.Any]:
    """Values on and around every constant of a schema: where validators go wrong."""
    out: list[t.Any] = []
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key in ("minimum", "maximum", "multipleOf", "minLength", "maxLength"):
                out += [value, value - 1, value + 1, value * 2, value + 0.5, float(value)]
            elif key == "enum":
                out += value
            else:
                out += near_values(value)
    elif isinstance(schema, list):
        for item in schema:
            out += near_values(item)
    return out


@pytest.mark.slow
@settings(max_examples=examples(2000), deadline=None)
@given(schema=schemas(), data=st.data())
def test_verdicts_agree_with_jsonschema_on_the_translation(schema: dict[str, t.Any], data: st.DataObject) -> None:
    near = near_values(schema)
    leaf = st.one_of(json_leaf, st.sampled_from(near)) if near else json_leaf
    instance = data.draw(
        st.one_of(
            json_values,
            leaf,
            st.lists(leaf, max_size=4),
            st.dictionaries(
                st.sampled_from(["a", "b", "c", "d"]), st.one_of(leaf, st.lists(leaf, max_size=3)), max_size=4
            ),
        )
    )
    translated, _ = to_json_schema(schema)
    expected = jsonschema.Draft7Validator(translated).is_valid(instance)
    assert (not validate(schema, instance)) == expected, (schema, translated, instance)


# -- messages and OpenAPI specifics ---------------------------------------------------------------


def only(violations: list[t.Any]) -> t.Any:
    assert len(violations) == 1, violations
    return violations[0]


def test_missing_required_says_what_is_accepted() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    v = only(validate(schema, {}))
    assert v.to_json() == {"field": "n", "accepted": "an integer", "message": "is required (an integer) but missing"}


def test_wrong_type_names_field_given_and_accepted() -> None:
    schema = {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}}
    v = only(validate(schema, {"tags": ["a", 3]}))
    assert (v.field, v.given, v.accepted) == ("tags[1]", 3, "a string")


def test_unknown_argument_lists_the_declared_names() -> None:
    schema = {"type": "object", "properties": {"a": {}, "b": {}}, "additionalProperties": False}
    v = only(validate(schema, {"c": 1}))
    assert v.field == "c" and "declared: a, b" in v.message


def test_nullable_is_openapi_semantics() -> None:
    assert validate({"type": "string"}, None)
    assert not validate({"type": "string", "nullable": True}, None)
    assert not validate({"type": "string", "nullable": True, "enum": ["a"]}, None)
    assert validate({"type": "string", "nullable": True, "enum": ["a"]}, "b")


def test_exclusive_bounds_are_booleans() -> None:
    schema = {"type": "integer", "minimum": 1, "exclusiveMinimum": True, "maximum": 5}
    assert "greater than 1" in only(validate(schema, 1)).message
    assert not validate(schema, 2)
    assert "more than the maximum 5" in only(validate(schema, 6)).message


def test_integers_and_booleans_are_kept_apart() -> None:
    assert not validate({"type": "integer"}, 3.0)
    assert validate({"type": "integer"}, 3.5)
    assert validate({"type": "integer"}, True)
    assert validate({"type": "number"}, False)
    assert validate({"enum": [1]}, True)
    assert json_equal([1, {"a": 1.0}], [1.0, {"a": 1}]) and not json_equal(True, 1)


@pytest.mark.parametrize(
    ("fmt", "good", "bad"),
    [
        ("date", "2025-01-31", "2025-02-30"),
        ("date-time", "2025-01-31T12:00:00Z", "2025-01-31 noon"),
        ("date-time", "2025-01-31T12:00:00.5+02:00", "2025-01-31T25:00:00Z"),
        ("byte", "aGVsbG8=", "hello!"),
        ("email", "a@b.example", "not-an-address"),
        ("uuid", "123e4567-e89b-12d3-a456-426614174000", "123e4567"),
        ("uri", "https://example.org/x", "no scheme"),
        ("ipv4", "192.0.2.1", "999.0.0.1"),
        ("ipv6", "2001:db8::1", "192.0.2.1"),
        ("hostname", "example.org", "-bad-.org"),
    ],
)
def test_string_formats(fmt: str, good: str, bad: str) -> None:
    schema = {"type": "string", "format": fmt}
    assert not validate(schema, good)
    assert only(validate(schema, bad)).accepted


def test_integer_formats_bound_the_range() -> None:
    assert not validate({"type": "integer", "format": "int32"}, 2**31 - 1)
    assert "int32" in only(validate({"type": "integer", "format": "int32"}, 2**31)).message
    assert validate({"type": "integer", "format": "int64"}, 2**63)


def test_unknown_formats_are_hints_only() -> None:
    assert not validate({"type": "string", "format": "password"}, "anything")
    assert not validate({"type": "string", "format": "no-such-format"}, "anything")


@pytest.mark.parametrize(
    ("value", "step", "multiple"),
    [(10**400, 0.5, True), (10**400, 0.3, False), (-(10**400) - 1, 0.5, True), (10**400 + 1, 2.0, False)],
)
def test_an_integer_past_a_floats_range_against_a_fractional_multiple_is_checked_exactly(
    value: int, step: float, multiple: bool
) -> None:
    """10**400 / 0.5 has no float: it was an OverflowError (an INTERNAL error for any caller)."""
    from cogtools.schema.validate import validate

    found = validate({"type": "object", "properties": {"n": {"type": "number", "multipleOf": step}}}, {"n": value})
    assert (found == []) is multiple
