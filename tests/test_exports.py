"""Every ``--format`` of cogtools-discover: a real conversion of the one model, checked against
the target's documented shape."""

from __future__ import annotations

import typing as t
from pathlib import Path

import jsonschema
import pytest

from cogtools.clients.export import EXPORTS, export
from cogtools.core.model import Tool
from cogtools.load.catalog import load_tool_file
from cogtools.schema.dialects import to_gemini_api, to_json_schema

from .conftest import EXAMPLES, write

# The documented shapes, transcribed from each vendor's reference.

#: Gemini API FunctionDeclaration and its Schema object (ai.google.dev, "Function calling" and
#: the REST reference of `Schema`): the OpenAPI subset, with upper-case type names.
GEMINI_API_SCHEMA: dict[str, t.Any] = {
    "$defs": {
        "schema": {
            "type": "object",
            "properties": {
                "type": {"enum": ["STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"]},
                "format": {"type": "string"},
                "title": {"type": "string"},
                "description": {"type": "string"},
                "nullable": {"type": "boolean"},
                "enum": {"type": "array", "items": {"type": "string"}},
                "maxItems": {"type": "integer"},
                "minItems": {"type": "integer"},
                "properties": {"type": "object", "additionalProperties": {"$ref": "#/$defs/schema"}},
                "required": {"type": "array", "items": {"type": "string"}},
                "minProperties": {"type": "integer"},
                "maxProperties": {"type": "integer"},
                "minLength": {"type": "integer"},
                "maxLength": {"type": "integer"},
                "pattern": {"type": "string"},
                "example": True,
                "anyOf": {"type": "array", "items": {"$ref": "#/$defs/schema"}},
                "default": True,
                "items": {"$ref": "#/$defs/schema"},
                "minimum": {"type": "number"},
                "maximum": {"type": "number"},
                "additionalProperties": {"anyOf": [{"type": "boolean"}, {"$ref": "#/$defs/schema"}]},
            },
            "additionalProperties": False,
        }
    },
    "type": "object",
    "required": ["name", "description", "parameters"],
    "properties": {
        "name": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$"},
        "description": {"type": "string"},
        "parameters": {"$ref": "#/$defs/schema"},
    },
    "additionalProperties": False,
}

#: A JSON Schema object schema for the arguments, as every JSON Schema dialect target wants.
OBJECT_SCHEMA = {"type": "object", "required": ["type", "properties"], "properties": {"type": {"const": "object"}}}

#: OpenAI Chat Completions `tools[]` entry (platform.openai.com, "Function calling").
OPENAI_SCHEMA = {
    "type": "object",
    "required": ["type", "function"],
    "properties": {
        "type": {"const": "function"},
        "function": {
            "type": "object",
            "required": ["name", "parameters"],
            "properties": {
                "name": {"type": "string", "pattern": "^[a-zA-Z0-9_-]{1,64}$"},
                "description": {"type": "string"},
                "parameters": OBJECT_SCHEMA,
                "strict": {"type": "boolean"},
            },
            "additionalProperties": False,
        },
    },
    "additionalProperties": False,
}

#: Anthropic Messages API `tools[]` entry (docs.anthropic.com, "Tool use").
ANTHROPIC_SCHEMA = {
    "type": "object",
    "required": ["name", "input_schema"],
    "properties": {
        "name": {"type": "string", "pattern": "^[a-zA-Z0-9_-]{1,64}$"},
        "description": {"type": "string"},
        "input_schema": OBJECT_SCHEMA,
    },
    "additionalProperties": False,
}

#: Gemini CLI's discovered declaration (DESIGN §4; the end-to-end test checks the real thing).
GEMINI_CLI_SCHEMA = {
    "type": "object",
    "required": ["name", "description", "parametersJsonSchema"],
    "properties": {
        "name": {"type": "string"},
        "description": {"type": "string"},
        "parametersJsonSchema": OBJECT_SCHEMA,
    },
    "additionalProperties": False,
}


@pytest.fixture
def rich(tmp_path: Path) -> Tool:
    return load_tool_file(
        write(
            tmp_path / "rich.yaml",
            """\
            name: search_logs
            title: Search logs
            description: Search the logs.
            parameters:
              query: {type: string, description: What to find., example: timeout, minLength: 1}
              level: {type: string, enum: [info, error], nullable: true, optional: true, description: Level.}
              limit: {type: integer, minimum: 0, exclusiveMinimum: true, maximum: 100, default: 10, optional: true, description: Max.}
              hosts: {type: array, items: {type: string, format: hostname}, uniqueItems: true, optional: true, description: Hosts.}
              window:
                type: object
                optional: true
                description: Time window.
                properties:
                  from: {type: string, format: date-time}
                  to: {type: string, format: date-time}
                required: [from]
                additionalProperties: false
                x-ui: picker
              severity: {type: integer, enum: [1, 2, 3], optional: true, description: Severity.}
            implementation: x
            """,
        )
    )


def test_json_schema_translation(rich: Tool) -> None:
    schema, notes = to_json_schema(rich.input_schema())
    props = schema["properties"]
    assert props["query"] == {"type": "string", "description": "What to find.", "examples": ["timeout"], "minLength": 1}
    assert props["level"]["type"] == ["string", "null"] and props["level"]["enum"] == ["info", "error", None]
    assert props["limit"] == {
        "type": "integer",
        "exclusiveMinimum": 0,
        "maximum": 100,
        "default": 10,
        "description": "Max.",
    }
    assert "x-ui" not in props["window"]
    assert notes == ["window: `x-ui` dropped: JSON Schema has no such keyword"]
    assert schema["required"] == ["query"] and schema["additionalProperties"] is False
    jsonschema.Draft7Validator.check_schema(schema)
    jsonschema.Draft202012Validator.check_schema(schema)


def test_gemini_api_translation_reports_what_it_drops(rich: Tool) -> None:
    schema, notes = to_gemini_api(rich.input_schema())
    assert schema["type"] == "OBJECT"
    # hostname is not a format the Gemini API takes on a STRING (it refuses the declaration).
    assert schema["properties"]["hosts"] == {"type": "ARRAY", "items": {"type": "STRING"}, "description": "Hosts."}
    assert schema["properties"]["level"]["nullable"] is True
    # An exclusive integer bound is the inclusive bound next to it: nothing is lost.
    assert schema["properties"]["limit"]["minimum"] == 1
    # google-genai's Schema has additionalProperties: it is kept, at every level.
    assert schema["additionalProperties"] is False and schema["properties"]["window"]["additionalProperties"] is False
    assert schema["properties"]["window"]["properties"]["from"]["format"] == "date-time"
    # An enum of integers is Google's documented `format: enum` with the members as strings.
    assert schema["properties"]["severity"] == {
        "type": "INTEGER",
        "format": "enum",
        "enum": ["1", "2", "3"],
        "description": "Severity.",
    }
    assert sorted(notes) == sorted(
        [
            "hosts: `uniqueItems` dropped: the Gemini API schema has no `uniqueItems`",
            "hosts[]: `format: hostname` dropped: the Gemini API takes only enum and date-time on a string (a call still checks it)",
            "window: `x-ui` dropped: the Gemini API schema has no extensions",
        ]
    )


SHAPES = {
    "gemini-cli": GEMINI_CLI_SCHEMA,
    "gemini-api": GEMINI_API_SCHEMA,
    "openai": OPENAI_SCHEMA,
    "anthropic": ANTHROPIC_SCHEMA,
}


@pytest.mark.parametrize("fmt", sorted(SHAPES))
def test_every_format_has_its_documented_shape(fmt: str, rich: Tool) -> None:
    facepalm = load_tool_file(EXAMPLES / "tools" / "facepalm.yaml")
    declarations, _ = export([facepalm, rich], fmt)
    assert len(declarations) == 2
    for declaration in declarations:
        jsonschema.validate(declaration, SHAPES[fmt])


def test_mcp_format_is_an_mcp_sdk_tool(rich: Tool) -> None:
    types = pytest.importorskip("mcp.types", reason="the MCP SDK is a test extra")
    (declaration,), _ = export([rich], "mcp")
    tool = types.Tool.model_validate(declaration)
    assert tool.name == "search_logs" and tool.title == "Search logs"
    assert tool.model_dump(by_alias=True, exclude_none=True) == declaration
    assert declaration["inputSchema"]["type"] == "object"


def test_names_openai_and_anthropic_cannot_take_are_left_out_and_reported(tmp_path: Path) -> None:
    dotted = load_tool_file(write(tmp_path / "t.yaml", "name: logs.search\ndescription: d\nimplementation: x\n"))
    for fmt in ("openai", "anthropic"):
        declarations, notes = export([dotted], fmt)
        assert declarations == []
        assert notes[0].startswith("logs.search: left out:")
    declarations, notes = export([dotted], "gemini-cli")
    assert declarations[0]["name"] == "logs.search" and notes == []


def test_all_formats_are_registered() -> None:
    assert list(EXPORTS) == ["gemini-cli", "gemini-api", "mcp", "openai", "openai-responses", "anthropic"]
