"""A catalog of tools that exercises every schema construct the export formats take, and a seeded
generator of arguments for them, valid and invalid (tests/test_schema_fidelity.py).

Each fixture is a tool file (name -> (file name, text)): a template tool that prints ``ok``,
except ``program_echo``, a command tool (a program cannot take NUL). The generator
draws each argument from candidates made from the schema (bounds and the values either side,
every enum member and near misses, each format's valid and invalid spellings, Unicode digits and
letters, a trailing newline, the wrong types, null), leaves optional ones out, and now and then
adds an unknown name.
"""

from __future__ import annotations

import json
import random
import typing as t

#: name -> (file name, text). Parameters use every spelling of each construct.
FIXTURES: dict[str, tuple[str, str]] = {}


def _yaml(name: str, parameters: str) -> None:
    FIXTURES[name] = (
        f"{name}.yaml",
        f"name: {name}\ndescription: Fixture {name}.\nparameters:\n{parameters}implementation: ok\n",
    )


def _json(name: str, input_schema: dict[str, t.Any]) -> None:
    FIXTURES[name] = (
        f"{name}.json",
        json.dumps(
            {"name": name, "description": f"Fixture {name}.", "inputSchema": input_schema, "implementation": "ok"}
        ),
    )


FIXTURES["no_parameters"] = (
    "no_parameters.yaml",
    "name: no_parameters\ndescription: Fixture with none.\nimplementation: ok\n",
)
_yaml(
    "strings",
    "  s: {type: string, minLength: 2, maxLength: 5, description: S.}\n  t: {type: string, optional: true, description: T.}\n",
)
_yaml("pattern_version", "  v: {type: string, pattern: '^v?\\d+\\.\\d+\\.\\d+$', description: A version.}\n")
_yaml("pattern_zip", "  zip: {type: string, pattern: '^\\d{5}$', description: A ZIP code.}\n")
_yaml(
    "pattern_word",
    "  w: {type: string, pattern: '^\\w+$', description: A word.}\n  b: {type: string, pattern: '\\bend', optional: true, description: B.}\n",
)
_yaml(
    "pattern_unicode",
    "  u: {type: string, pattern: '^\\p{Lu}\\p{Ll}*$', description: A capitalised word.}\n  dot: {type: string, pattern: '^.$', optional: true, description: One character.}\n",
)
_yaml("integers", "  n: {type: integer, minimum: -3, maximum: 3, description: N.}\n")
_yaml(
    "exclusive_integers",
    "  n: {type: integer, minimum: 0, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: true, description: N.}\n",
)
_yaml("exclusive_numbers", "  x: {type: number, minimum: 0, exclusiveMinimum: true, maximum: 1, description: X.}\n")
_yaml(
    "multiples",
    "  n: {type: integer, multipleOf: 3, description: N.}\n  x: {type: number, multipleOf: 0.5, optional: true, description: X.}\n",
)
_yaml("enum_strings", "  e: {type: string, enum: [red, green, 'yes', '01'], description: E.}\n")
_yaml("enum_integers", "  e: {type: integer, enum: [1, 2, 30], description: E.}\n")
_yaml("enum_untyped", "  e: {enum: [a, 1, true], description: E.}\n")
_yaml(
    "nullable_typed",
    "  s: {type: string, nullable: true, description: S.}\n  n: {type: integer, nullable: true, minimum: 1, optional: true, description: N.}\n",
)
_yaml(
    "nullable_enum",
    "  e: {type: string, enum: [low, high, null], nullable: true, description: E.}\n  f: {type: string, enum: [on_, off_], nullable: true, optional: true, description: F.}\n",
)
_yaml(
    "nullable_anyof",
    "  cell: {anyOf: [{type: string}, {type: number}, {type: boolean}], nullable: true, description: A cell.}\n",
)
_yaml("nullable_allof", "  v: {allOf: [{type: string}, {minLength: 2}], nullable: true, description: V.}\n")
_json(
    "nullable_json_types",
    {
        "type": "object",
        "properties": {
            "v": {"type": ["string", "number", "null"], "description": "V."},
            "o": {"anyOf": [{"type": "integer"}, {"type": "null"}], "description": "O."},
            "w": {"type": ["boolean", "null"], "description": "W."},
        },
        "required": ["v"],
    },
)
_yaml(
    "defaults",
    "  n: {type: integer, default: 3, minimum: 0, optional: true, description: N.}\n  s: {type: string, default: x, optional: true, description: S.}\n",
)
_yaml(
    "nested_object",
    "  o:\n    type: object\n    description: O.\n    additionalProperties: false\n    required: [a]\n"
    "    properties:\n      a: {type: integer, minimum: 0}\n      b: {type: string, maxLength: 3}\n"
    "      c:\n        type: object\n        additionalProperties: false\n        properties:\n          d: {type: boolean}\n",
)
_yaml(
    "array_of_objects",
    "  rows:\n    type: array\n    minItems: 1\n    maxItems: 3\n    description: Rows.\n"
    "    items:\n      type: object\n      additionalProperties: false\n      required: [k]\n      properties:\n"
    "        k: {type: string, enum: [a, b]}\n        v: {type: number, nullable: true}\n"
    "  tags: {type: array, items: {type: string}, uniqueItems: true, optional: true, description: Tags.}\n",
)
_yaml("format_date_time", "  at: {type: string, format: date-time, description: When.}\n")
_yaml(
    "format_date_and_time",
    "  d: {type: string, format: date, description: D.}\n  t: {type: string, format: time, optional: true, description: T.}\n",
)
_yaml("format_email", "  e: {type: string, format: email, description: E.}\n")
_yaml("format_uuid", "  u: {type: string, format: uuid, description: U.}\n")
_yaml(
    "format_ip",
    "  v4: {type: string, format: ipv4, description: V4.}\n  v6: {type: string, format: ipv6, optional: true, description: V6.}\n",
)
_yaml(
    "format_host_uri",
    "  h: {type: string, format: hostname, description: H.}\n  u: {type: string, format: uri, optional: true, description: U.}\n",
)
_yaml(
    "format_integers",
    "  i: {type: integer, format: int32, description: I.}\n  j: {type: number, format: int64, optional: true, description: J.}\n",
)
_yaml(
    "format_byte",
    "  b: {type: string, format: byte, description: B.}\n  p: {type: string, format: password, optional: true, description: P.}\n",
)
_yaml(
    "combinators",
    "  one: {oneOf: [{type: integer, multipleOf: 2}, {type: integer, multipleOf: 3}], description: One.}\n"
    "  all: {allOf: [{type: string, minLength: 1}, {type: string, maxLength: 3}], optional: true, description: All.}\n"
    "  nope: {type: string, not: {enum: [admin, root]}, optional: true, description: Nope.}\n",
)
_yaml(
    "unicode",
    "  名前: {type: string, description: 名前を入れる., pattern: '^\\p{Script=Han}+$'}\n  émoji: {type: string, maxLength: 2, optional: true, description: Ça.}\n",
)
_yaml(
    "open_object",
    "  type: object\n  required: [m]\n  additionalProperties: {type: string}\n"
    "  properties:\n    m: {type: object, additionalProperties: {type: integer}, description: M.}\n",
)
_yaml(
    "booleans",
    "  flag: {type: boolean, description: F.}\n  maybe: {type: boolean, nullable: true, optional: true, description: M.}\n",
)
FIXTURES["program_echo"] = (
    "program_echo.yaml",
    "name: program_echo\ndescription: Fixture program.\nparameters:\n  w: {type: string, description: W.}\n"
    "  xs: {type: array, items: {type: string}, optional: true, description: Xs.}\n"
    "implementation:\n  kind: command\n  argv: [printf, '%s', '--', '{{ w }}']\n",
)

# ------------------------------------------------------------------------------ candidates

#: Values of each string format: (valid ones, invalid ones), by the format's standard.
FORMAT_VALUES: dict[str, tuple[list[str], list[str]]] = {
    "date-time": (
        [
            "2025-01-31T12:00:00Z",
            "2016-12-31T23:59:60Z",
            "2025-01-31t12:00:00.5+01:00",
            "2024-02-29T00:00:00z",
            "2016-12-31T18:59:60-05:00",
        ],
        [
            "2025-01-31 12:00:00Z",
            "2025-02-30T12:00:00Z",
            "2025-01-31T12:00:00",
            "2025-01-31T12:00:00Z\n",
            "2025-01-31T24:00:00Z",
            "2025-01-31T12:00:60Z",
            "２０２５-01-31T12:00:00Z",
            "2025-1-31T12:00:00Z",
        ],
    ),
    "date": (
        ["2025-01-31", "2024-02-29", "0000-01-01"],
        ["2025-02-29", "2025-13-01", "2025-01-31T00:00:00Z", "25-01-31", "2025-01-31\n"],
    ),
    "time": (
        ["12:00:00Z", "23:59:60Z", "08:30:00.25+05:30"],
        ["12:00:00", "24:00:00Z", "12:60:00Z", "12:00Z", "١٢:00:00Z"],
    ),
    "email": (
        ["a@example.com", "first.last+tag@sub.example.org", "X@Y.CO"],
        ["a@b", "no-at.example.com", "a b@example.com", "a@@example.com", "@example.com", "a@-x.com"],
    ),
    "uuid": (
        ["123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-426614174000"],
        [
            "123e4567e89b12d3a456426614174000",
            "{123e4567-e89b-12d3-a456-426614174000}",
            "urn:uuid:123e4567-e89b-12d3-a456-426614174000",
            "123e4567-e89b-12d3-a456-42661417400g",
        ],
    ),
    "ipv4": (["192.168.0.1", "0.0.0.0", "255.255.255.255"], ["256.1.1.1", "01.2.3.4", "1.2.3", "1.2.3.4\n", "١.٢.٣.٤"]),
    "ipv6": (["::1", "2001:db8::1", "::ffff:192.168.0.1"], ["fe80::1%eth0", "2001:db8:::1", "12345::", "::1\n"]),
    "hostname": (
        ["example.com", "a-b.example", "localhost", "xn--nxasmq6b.example"],
        ["-bad.example", "exa mple.com", "a" * 64 + ".com", "bad_host.example", ""],
    ),
    "uri": (
        ["https://example.com/a?b=c#d", "mailto:a@example.com", "urn:isbn:0451450523", "file:///etc/hosts"],
        ["example.com/path", "/relative/path", "http://exa mple.com", "://x", "1http://x"],
    ),
    "byte": (["", "YWJj", "YWI=", "YQ=="], ["YWJ", "YW==x", "****", "YWJj\n", "YQ="]),
    "password": (["anything", ""], []),
}

_WRONG_TYPES: list[t.Any] = [None, True, 0, 1.5, "x", [], {}]
_UNICODE = [
    "١٢٣٤٥",
    "12345\n",
    "é",
    "Ωmega",
    "😀",
    "a\u0000b",
    "Ünïcödé",
    "ab",
    "12345",
    "00000",
    "98765",
    "1234",
    "123456",
]


def candidates(schema: t.Mapping[str, t.Any], rng: random.Random, depth: int = 0) -> list[t.Any]:
    """Values for ``schema`` (an OpenAPI Schema Object): likely valid ones and near misses."""
    out: list[t.Any] = list(_WRONG_TYPES)
    out += list(schema.get("enum", ())) * 8  # weighted, so that whole objects are often valid
    for member in schema.get("enum", ()):
        if isinstance(member, str):
            out += [member.upper(), member + " ", member + "\n"]
        elif isinstance(member, (int, float)) and not isinstance(member, bool):
            out += [member + 1, float(member), str(member)]
    type_ = schema.get("type")
    fmt = schema.get("format")
    if type_ == "string" or (type_ is None and not schema.get("enum")):
        out += _UNICODE + [
            "",
            "a",
            "abc",
            "abcdef",
            "v1.2.3",
            "1.2.3",
            "١.٢.٣",
            "the end",
            "endless",
            "Word",
            "word",
            "WORD",
            "名前",
            "漢字",
            "Ça",
            "x" * 10,
        ]
        for bound in ("minLength", "maxLength"):
            if bound in schema:
                out += [
                    "y" * max(schema[bound] - 1, 0),
                    "y" * schema[bound],
                    "y" * (schema[bound] + 1),
                    "é" * schema[bound],
                ]
        if fmt in FORMAT_VALUES:
            valid, invalid = FORMAT_VALUES[fmt]
            out += valid * 3 + invalid * 2
    if type_ in ("integer", "number") or type_ is None:
        out += [0, 1, -1, 2, 3, 6, 7, 0.5, 1.0, -0.0, 2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 2**63, 2**53 + 1, 1e300]
        for bound in ("minimum", "maximum"):
            if bound in schema:
                b = schema[bound]
                out += [b, b - 1, b + 1, b - 0.5, b + 0.5, b + 1e-9]
    if type_ == "boolean" or type_ is None:
        out += [True, False, "true", 0]
    if schema.get("anyOf") or schema.get("oneOf") or schema.get("allOf"):
        for sub in (*schema.get("anyOf", ()), *schema.get("oneOf", ()), *schema.get("allOf", ())):
            out += rng.sample(candidates(sub, rng, depth + 1), 5)
    if "not" in schema:
        out += list(schema["not"].get("enum", ()))
    if type_ == "array" and depth < 3:
        item_schema = schema.get("items", {})
        items = candidates(item_schema, rng, depth + 1)
        # Objects made for the item schema are likelier to be valid than any candidate.
        likely = (
            [objects(item_schema, rng, depth + 1) for _ in range(8)] if item_schema.get("type") == "object" else items
        )
        for size in {0, 1, 2, 3, 4, schema.get("minItems", 0), schema.get("maxItems", 4) + 1}:
            out += [[rng.choice(items) for _ in range(size)] for _ in range(2)]
            out += [[rng.choice(likely) for _ in range(size)] for _ in range(4)]
            good = [v for v in items if v is not None and not isinstance(v, (list, dict))][:1]
            out.append(good * size)  # a repeat, for uniqueItems
    if type_ == "object" and depth < 3:
        out += [obj for obj in (objects(schema, rng, depth + 1) for _ in range(12))]
    return out


def preferred(schema: t.Mapping[str, t.Any]) -> list[t.Any]:
    """Values likelier than most to be valid: the enum, a format's valid values, the bounds."""
    out = [m for m in schema.get("enum", ()) if m is not None]
    out += FORMAT_VALUES.get(schema.get("format", ""), ([], []))[0]
    out += [
        schema[b]
        for b in ("minimum", "maximum", "default")
        if b in schema and not schema.get("exclusive" + b[:1].upper() + b[1:])
    ]
    return out


def objects(schema: t.Mapping[str, t.Any], rng: random.Random, depth: int = 0) -> dict[str, t.Any]:
    """An object for ``schema``: each property drawn from its candidates or left out, now and then
    a name it does not declare."""
    out: dict[str, t.Any] = {}
    required = set(schema.get("required", ()))
    for name, sub in (schema.get("properties") or {}).items():
        if name in required and rng.random() < 0.9 or rng.random() < 0.6:
            likely = preferred(sub)
            out[name] = rng.choice(likely if likely and rng.random() < 0.5 else candidates(sub, rng, depth))
    if rng.random() < 0.08:
        out["unknown"] = rng.choice(["x", 1, None])
    additional = schema.get("additionalProperties")
    if isinstance(additional, dict) and rng.random() < 0.5:
        out["extra"] = rng.choice(candidates(additional, rng, depth))
    return out


def arguments(schema: t.Mapping[str, t.Any], seed: int, count: int) -> list[dict[str, t.Any]]:
    """``count`` argument objects for the arguments schema ``schema``, from ``seed``."""
    rng = random.Random(seed)
    return [objects(schema, rng) for _ in range(count)]
