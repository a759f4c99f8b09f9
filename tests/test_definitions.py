"""Parameters that refer to definitions (JSON Schema's ``$defs`` and ``$ref``, what pydantic and
most MCP servers write): read from seed 002's ``inputSchema`` and from an object schema of
``parameters``, calls checked through them, and each export as its client takes it (kept for MCP,
OpenAI and Anthropic; written out in full for Gemini, where a tree cannot be)."""

from __future__ import annotations

import json
import typing as t
from pathlib import Path

import jsonschema
import pytest

from cogtools.cli import porcelain
from cogtools.clients.export import export
from cogtools.core.errors import DefinitionInvalidError
from cogtools.core.model import Tool
from cogtools.schema.dialects import to_json_schema
from cogtools.schema.validate import validate

from .conftest import Cli, run_script, write
from .test_formats import load

DIALECT = "https://json-schema.org/draft/2020-12/schema"
#: The reference tool of the MCP conformance suite's json-schema-2020-12 scenario, and a tree.
ADDRESS: dict[str, t.Any] = {
    "$schema": DIALECT,
    "type": "object",
    "$defs": {
        "address": {
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
            "required": ["city"],
        },
        "node": {
            "type": "object",
            "properties": {
                "label": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
            },
            "required": ["label"],
            "additionalProperties": False,
        },
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address", "description": "Where."},
        "tree": {"$ref": "#/$defs/node"},
    },
    "required": ["name"],
    "additionalProperties": False,
}


def tool_of(tmp_path: Path, input_schema: dict[str, t.Any], name: str = "t") -> Tool:
    definition = {"name": name, "description": "d", "inputSchema": input_schema, "implementation": "done"}
    (tool,) = load(write(tmp_path / f"{name}.json", json.dumps(definition)))
    return tool


def test_an_input_schema_with_definitions_is_read_and_kept(tmp_path: Path) -> None:
    tool = tool_of(tmp_path, ADDRESS)
    assert set(tool.definitions) == {"address", "node"}
    assert tool.parameter("address").schema == {"$ref": "#/$defs/address", "description": "Where."}  # type: ignore[union-attr]
    assert tool.dialect == DIALECT
    assert Tool.from_dict(json.loads(json.dumps(tool.to_dict()))) == tool  # the cached form


def test_draft_07_definitions_are_read_as_defs(tmp_path: Path) -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "definitions": {"n": {"type": "integer"}},
        "properties": {"count": {"$ref": "#/definitions/n"}},
    }
    tool = tool_of(tmp_path, schema)
    assert tool.parameter("count").schema == {"$ref": "#/$defs/n"}  # type: ignore[union-attr]
    assert tool.dialect is None  # not a dialect the exports write: not given back
    assert validate(tool.input_schema(), {"count": "x"})[0].field == "count"


@pytest.mark.parametrize(
    ("arguments", "fields"),
    [
        ({"name": "a", "address": {"city": "Oslo"}}, []),
        ({"name": "a", "address": {"street": 5, "city": "Oslo"}}, ["address.street"]),
        ({"name": "a", "address": {"street": "x"}}, ["address.city"]),
        ({"name": "a", "tree": {"label": "r", "children": [{"label": "c", "children": [{"label": "g"}]}]}}, []),
        ({"name": "a", "tree": {"label": "r", "children": [{"label": "c", "children": [{"lable": "g"}]}]}}, None),
    ],
)
def test_a_call_is_checked_through_the_references(
    tmp_path: Path, arguments: dict[str, t.Any], fields: list[str] | None
) -> None:
    tool = tool_of(tmp_path, ADDRESS)
    violations = validate(tool.input_schema(), arguments)
    if fields is not None:
        assert [v.field for v in violations] == fields
    else:
        assert {v.field for v in violations} == {
            "tree.children[0].children[0].label",
            "tree.children[0].children[0].lable",
        }
    exported = to_json_schema(tool.input_schema())[0]
    assert jsonschema.Draft202012Validator(exported).is_valid(arguments) == (not violations)


def test_cogtools_call_checks_and_runs_through_references(project: Path) -> None:
    definition = {"name": "where", "description": "d", "inputSchema": ADDRESS, "implementation": "{{ address.city }}"}
    write(project / "tools" / "where.json", json.dumps(definition))
    good = run_script("cogtools-call", "where", cwd=project, stdin='{"name": "a", "address": {"city": "Oslo"}}')
    assert (good.status, good.stdout) == (0, "Oslo"), good
    bad = run_script("cogtools-call", "where", cwd=project, stdin='{"name": "a", "address": {"city": 1}}')
    error = json.loads(bad.stdout)["error"]
    assert error["code"] == "SCHEMA_VIOLATION" and error["details"]["violations"][0]["field"] == "address.city"


def test_yaml_parameters_may_define_and_refer(tmp_path: Path) -> None:
    text = """\
        name: route
        description: Route between two points.
        parameters:
          type: object
          $defs:
            point:
              type: object
              properties:
                lat: {type: number, minimum: -90, maximum: 90}
                lon: {type: number, nullable: true}
              required: [lat]
          properties:
            start: {$ref: '#/$defs/point'}
            end: {$ref: '#/$defs/point', nullable: true}
          required: [start]
        implementation: "{{ start.lat }}"
    """
    (tool,) = load(write(tmp_path / "route.yaml", text))
    assert validate(tool.input_schema(), {"start": {"lat": 91}})[0].field == "start.lat"
    assert validate(tool.input_schema(), {"start": {"lat": 1}, "end": None}) == []
    exported = to_json_schema(tool.input_schema())[0]
    # OpenAPI's nullable beside a reference: null, or what the reference says
    assert exported["properties"]["end"] == {"anyOf": [{"$ref": "#/$defs/point"}, {"type": "null"}]}
    assert exported["$defs"]["point"]["properties"]["lon"]["type"] == ["number", "null"]


def test_yaml_references_are_checked(tmp_path: Path) -> None:
    text = "name: r\ndescription: d\nparameters:\n  type: object\n  properties:\n    a: {$ref: '#/$defs/missing'}\nimplementation: x\n"
    with pytest.raises(DefinitionInvalidError) as info:
        load(write(tmp_path / "r.yaml", text))
    assert "not defined" in info.value.message
    assert info.value.key_path == ("parameters", "properties", "a", "$ref") and info.value.line == 6
    wrong = text.replace("'#/$defs/missing'", "'#/components/schemas/x'")
    with pytest.raises(DefinitionInvalidError, match="does not match"):
        load(write(tmp_path / "r.yaml", wrong))


def exported(tool: Tool, fmt: str) -> tuple[dict[str, t.Any] | None, list[str]]:
    found, notes = export([tool], fmt)
    return (found[0] if found else None), notes


def test_each_export_as_its_client_takes_it(tmp_path: Path) -> None:
    flat = {**ADDRESS, "$defs": {"address": ADDRESS["$defs"]["address"]}}
    flat["properties"] = {k: v for k, v in ADDRESS["properties"].items() if k != "tree"}
    tool = tool_of(tmp_path, flat)
    mcp, _ = exported(tool, "mcp")
    assert mcp is not None
    schema = mcp["inputSchema"]
    assert schema["$schema"] == DIALECT and "address" in schema["$defs"]
    assert schema["properties"]["address"] == {"$ref": "#/$defs/address", "description": "Where."}
    assert schema["additionalProperties"] is False
    for fmt, key in (("anthropic", "input_schema"), ("openai-responses", "parameters")):
        declaration, _ = exported(tool, fmt)
        assert declaration is not None and "$defs" in declaration[key] and "$schema" not in declaration[key]
    for fmt, key in (("gemini-cli", "parametersJsonSchema"), ("gemini-api", "parameters")):
        declaration, _ = exported(tool, fmt)
        assert declaration is not None
        text = json.dumps(declaration[key])
        assert "$ref" not in text and "$defs" not in text
        city = declaration[key]["properties"]["address"]["properties"]["city"]["type"]
        assert city in ("string", "STRING")
        assert declaration[key]["properties"]["address"]["description"] == "Where."


def test_a_tree_is_kept_where_references_are_and_left_out_where_not(tmp_path: Path) -> None:
    tool = tool_of(tmp_path, ADDRESS)
    mcp, _ = exported(tool, "mcp")
    assert mcp is not None and mcp["inputSchema"]["$defs"]["node"]["properties"]["children"]["items"] == {
        "$ref": "#/$defs/node"
    }
    for fmt in ("gemini-cli", "gemini-api"):
        declaration, notes = exported(tool, fmt)
        assert declaration is None
        assert notes == [
            f"t: left out: {'gemini-cli' if fmt == 'gemini-cli' else 'the Gemini API'} takes no references, and"
            " #/$defs/node refers to itself, which cannot be written without references"
            " ($defs/node/properties/children/items)"
        ]


def test_openai_strict_mode_carries_closed_definitions(tmp_path: Path) -> None:
    schema = {
        "type": "object",
        "$defs": {
            "p": {
                "type": "object",
                "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
                "required": ["x"],
                "additionalProperties": False,
            }
        },
        "properties": {"a": {"$ref": "#/$defs/p"}, "b": {"$ref": "#/$defs/p"}},
        "required": ["a"],
        "additionalProperties": False,
    }
    declaration, notes = exported(tool_of(tmp_path, schema), "openai")
    assert declaration is not None and notes == []
    function = declaration["function"]
    assert function["strict"] is True
    parameters = function["parameters"]
    assert parameters["$defs"]["p"]["required"] == ["x", "y"]
    assert parameters["$defs"]["p"]["properties"]["y"]["type"] == ["number", "null"]
    # an optional reference: null stands for "not given"
    assert parameters["properties"]["b"] == {"anyOf": [{"$ref": "#/$defs/p"}, {"type": "null"}]}
    assert parameters["required"] == ["a", "b"]


def test_lint_reads_definitions(tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    schema = {
        "type": "object",
        "$defs": {"code": {"type": "string", "pattern": "(a|a)*\\1", "enum": [1]}},
        "properties": {"c": {"$ref": "#/$defs/code", "description": "A code."}},
    }
    write(tmp_path / ".cogtoolrc.yaml", "")
    definition = {"name": "t", "description": "d", "inputSchema": schema, "implementation": "{{ c }}"}
    write(tmp_path / "tools" / "t.json", json.dumps(definition))
    monkeypatch.chdir(tmp_path)
    result = cli(porcelain.main, "lint", "--format", "json")
    findings = {(f["rule"], f["key"]) for f in json.loads(result.stdout)["findings"]}
    assert ("pattern-backtracks", "parameters.$defs.code.pattern") in findings
    assert ("enum-type", "parameters.$defs.code.enum[0]") in findings
    assert not any(rule == "openapi" for rule, _ in findings)


def test_too_many_definitions_are_refused(tmp_path: Path) -> None:
    schema = {"type": "object", "$defs": {f"d{i}": {"type": "string"} for i in range(257)}}
    with pytest.raises(DefinitionInvalidError, match="more than 256 definitions"):
        tool_of(tmp_path, schema)


def test_a_definition_that_doubles_at_each_level_is_not_written_out(tmp_path: Path) -> None:
    """Written without references, 24 levels of a definition used twice would be 16 million
    schemas: the Gemini exports leave the tool out, at once; MCP keeps it as written."""
    definitions: dict[str, t.Any] = {"d0": {"type": "string"}}
    for level in range(1, 25):
        below = {"$ref": f"#/$defs/d{level - 1}"}
        definitions[f"d{level}"] = {"type": "object", "properties": {"l": below, "r": below}}
    schema = {"type": "object", "$defs": definitions, "properties": {"top": {"$ref": "#/$defs/d24"}}}
    tool = tool_of(tmp_path, schema)
    declaration, notes = exported(tool, "gemini-cli")
    assert declaration is None and "more than 10000 parts" in notes[0]
    assert exported(tool, "mcp")[0] is not None


def test_a_value_that_looks_like_a_reference_is_left_as_it_is(tmp_path: Path) -> None:
    """A default or an example is data: one shaped like a reference to nothing is no reference,
    and every export takes it as it is."""
    schema = {
        "type": "object",
        "$defs": {"n": {"type": "integer"}},
        "properties": {
            "count": {"$ref": "#/$defs/n"},
            "raw": {"type": "object", "default": {"$ref": "#/$defs/nowhere"}, "example": {"$ref": 5}},
        },
    }
    tool = tool_of(tmp_path, schema)
    for fmt in ("gemini-cli", "gemini-api", "mcp", "openai", "anthropic"):
        declaration, notes = exported(tool, fmt)
        assert declaration is not None, (fmt, notes)
        assert "#/$defs/nowhere" in json.dumps(declaration), fmt
