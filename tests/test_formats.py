"""TOML and JSON definitions (seeds 003, 002 and 000) load to the same model as their YAML
twins: the discovered declarations are compared."""

from __future__ import annotations

import json
import typing as t
from pathlib import Path

import pytest

from cogtools.clients.export import export
from cogtools.core.errors import DefinitionInvalidError
from cogtools.core.model import Tool
from cogtools.load.catalog import load_catalog
from cogtools.load.formats import FORMATS

from .conftest import write

IMPL = "implementation = 'ran'\n"


def load(path: Path) -> tuple[Tool, ...]:
    fmt = {".toml": "toml", ".json": "json", ".yaml": "yaml"}[path.suffix]
    return FORMATS[fmt].loader()(path, path.read_bytes(), display_path=path.name, source="test").tools


def declarations(tools: tuple[Tool, ...]) -> list[dict[str, t.Any]]:
    out = {}
    for fmt in ("gemini-cli", "gemini-api", "mcp"):
        out[fmt] = export(tools, fmt)[0]
    return [out]


SEED_003_TOML = """\
description = "Execute a shell command and return the output"
keywords = ["shell", "command", "execute", "run"]
discoverable = true
implementation = "ran"

[[parameters]]
name = "command"
type = "string"
description = "The shell command to execute"
required = true

[[parameters]]
name = "args"
type = "array:string"
description = "Command arguments"
required = false

[[parameters]]
name = "timeout"
type = "int"
description = "Timeout in seconds (default: 30)"
required = false
"""

SEED_003_JSON = {
    "description": "Execute a shell command and return the output",
    "keywords": ["shell", "command", "execute", "run"],
    "discoverable": True,
    "implementation": "ran",
    "parameters": [
        {"name": "command", "type": "string", "description": "The shell command to execute", "required": True},
        {"name": "args", "type": "array:string", "description": "Command arguments", "required": False},
        {"name": "timeout", "type": "int", "description": "Timeout in seconds (default: 30)", "required": False},
    ],
}

YAML_TWIN = """\
description: Execute a shell command and return the output
keywords: [shell, command, execute, run]
discoverable: true
implementation: ran
parameters:
  command: {type: string, description: The shell command to execute}
  args: {type: array, items: {type: string}, description: Command arguments, optional: true}
  timeout: {type: integer, description: "Timeout in seconds (default: 30)", optional: true}
"""


def test_seed_003_toml_and_json_match_their_yaml_twin(tmp_path: Path) -> None:
    toml = load(write(tmp_path / "execute_command.toml", SEED_003_TOML))
    from_json = load(write(tmp_path / "execute_command.json", json.dumps(SEED_003_JSON)))
    twin = load(write(tmp_path / "execute_command.yaml", YAML_TWIN))
    assert declarations(toml) == declarations(twin) == declarations(from_json)
    assert toml[0].metadata.keywords == ("shell", "command", "execute", "run") and toml[0].metadata.discoverable
    assert toml[0].name == from_json[0].name == "execute_command"


SEED_002: dict[str, t.Any] = {
    "name": "read_file",
    "description": "Reads the content of a file at the specified path relative to the workspace root.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "The relative path to the file within the workspace."}
        },
        "required": ["path"],
    },
    "implementation": "ran",
}


def test_seed_002_input_schema_matches_its_yaml_twin(tmp_path: Path) -> None:
    seed = load(write(tmp_path / "read_file.json", json.dumps(SEED_002)))
    twin = load(
        write(
            tmp_path / "read_file.yaml",
            "description: Reads the content of a file at the specified path relative to the workspace root.\n"
            "parameters:\n  path: {type: string, description: The relative path to the file within the workspace.}\n"
            "implementation: ran\n",
        )
    )
    assert declarations(seed) == declarations(twin)
    assert export(seed, "mcp")[0][0]["inputSchema"] == {**SEED_002["inputSchema"], "additionalProperties": False}


def test_a_json_array_of_tools(tmp_path: Path) -> None:
    second = {**SEED_002, "name": "list_files", "description": "Lists files."}
    tools = load(write(tmp_path / "workspace.json", json.dumps([SEED_002, second])))
    assert [t.name for t in tools] == ["read_file", "list_files"]
    with pytest.raises(DefinitionInvalidError) as info:
        load(write(tmp_path / "bad.json", json.dumps([SEED_002, {"description": "no name", "implementation": "x"}])))
    assert info.value.key_path == (1,) and "names itself" in info.value.message
    with pytest.raises(DefinitionInvalidError) as info:
        load(write(tmp_path / "bad2.json", json.dumps([SEED_002, {**second, "descripton": "typo"}])))
    assert info.value.key_path == (1, "descripton")


def test_json_schema_translation_of_input_schema(tmp_path: Path) -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "note": {"type": ["string", "null"]},
            "mode": {"const": "fast"},
            "count": {"type": "integer", "exclusiveMinimum": 0, "examples": [3]},
            "either": {"type": ["string", "integer"]},
        },
    }
    (tool,) = load(
        write(
            tmp_path / "t.json",
            json.dumps({"name": "t", "description": "d", "inputSchema": schema, "implementation": "x"}),
        )
    )
    params = {p.name: dict(p.schema) for p in tool.parameters}
    assert params["note"] == {"type": "string", "nullable": True}
    assert params["mode"] == {"enum": ["fast"]}
    assert params["count"] == {"type": "integer", "minimum": 0, "exclusiveMinimum": True, "example": 3}
    assert params["either"] == {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    assert all(not p.required for p in tool.parameters)


@pytest.mark.parametrize(
    ("input_schema", "fragment", "key_path"),
    [
        (
            {"type": "object", "properties": {"a": {"$ref": "#/$defs/x"}}},
            "refers to #/$defs/x, which is not defined",
            ("inputSchema", "properties", "a", "$ref"),
        ),
        (
            {"type": "object", "properties": {"a": {"$ref": "https://example.com/s.json"}}},
            "only a reference to a definition of the schema's own `$defs`",
            ("inputSchema", "a", "$ref"),
        ),
        (
            {"type": "object", "properties": {"a": {"$ref": "#/properties/b"}}},
            "only a reference to a definition",
            ("inputSchema", "a", "$ref"),
        ),
        (
            {"type": "object", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}}},
            "refers to itself with no value between (a -> b -> a)",
            ("inputSchema", "$defs", "a"),
        ),
        (
            {"type": "object", "$defs": {"a": {"$ref": "#/$defs/a"}}},
            "refers to itself with no value between (a -> a)",
            ("inputSchema", "$defs", "a"),
        ),
        (
            {"type": "object", "properties": {"a": {"$defs": {"x": {}}}}},
            "`$defs` is read only at the top",
            ("inputSchema", "a", "$defs"),
        ),
        (
            {"type": "object", "$defs": [1]},
            "`$defs` is an object of schemas by name",
            ("inputSchema", "$defs"),
        ),
        (
            {"type": "object", "$defs": {"a": {}}, "definitions": {"a": {}}},
            "defined in both",
            ("inputSchema", "definitions", "a"),
        ),
        ({"type": "array"}, "`inputSchema` is a JSON Schema of type object", ("inputSchema",)),
        (  # (an AttributeError before, an INTERNAL error)
            {"type": "object", "properties": 1},
            "`properties` is an object of schemas by name",
            ("inputSchema", "properties"),
        ),
        (
            {"type": "object", "properties": {"a": {"type": "object", "properties": ["b"]}}},
            "`properties` is an object of schemas by name",
            ("inputSchema", "a", "properties"),
        ),
        ({"type": "object", "properties": {"a": {"type": "null"}}}, "only allows null", ("inputSchema", "a", "type")),
    ],
)
def test_unreadable_input_schemas(
    tmp_path: Path, input_schema: dict[str, t.Any], fragment: str, key_path: tuple[str | int, ...]
) -> None:
    with pytest.raises(DefinitionInvalidError) as info:
        load(
            write(
                tmp_path / "t.json",
                json.dumps({"name": "t", "description": "d", "inputSchema": input_schema, "implementation": "x"}),
            )
        )
    assert fragment in info.value.message and info.value.key_path == key_path


def test_input_schema_and_parameters_together(tmp_path: Path) -> None:
    with pytest.raises(DefinitionInvalidError, match="not both"):
        load(write(tmp_path / "t.json", json.dumps({**SEED_002, "parameters": {}})))


SEED_000_TOOLS_JSON: list[dict[str, t.Any]] = [
    {
        "name": "close-program",
        "description": "Finds and gracefully closes a running application's main window and process.",
        "parameters": {
            "type": "OBJECT",
            "properties": {
                "ProgramName": {
                    "type": "STRING",
                    "description": "The process name of the application to close (e.g., 'chrome', 'notepad').",
                },
                "FullProgramName": {
                    "type": "STRING",
                    "description": "The user-facing full name of the application (e.g., 'Google Chrome'). Used for descriptive output.",
                },
                "ProgramAliasName": {
                    "type": "STRING",
                    "description": "An alternative process name for the application.",
                },
            },
            "required": ["ProgramName"],
        },
        "implementation": "ran",
    }
]


def test_seed_000_tools_json_reads_back_to_what_gemini_api_export_writes(tmp_path: Path) -> None:
    tools = load(write(tmp_path / "tools.json", json.dumps(SEED_000_TOOLS_JSON)))
    exported, notes = export(tools, "gemini-api")
    expected = [{k: v for k, v in entry.items() if k != "implementation"} for entry in SEED_000_TOOLS_JSON]
    # The export says one thing more than the seed's file: the arguments object is closed (a call
    # refuses names it does not declare), and google-genai's Schema can say so.
    for entry in expected:
        entry["parameters"] = {**entry["parameters"], "additionalProperties": False}
    assert exported == expected and notes == []
    assert [p.name for p in tools[0].parameters if p.required] == ["ProgramName"]


def test_unknown_toml_type_is_an_error(tmp_path: Path) -> None:
    """A misspelt type is not read as a string: the tool does not load, and says the nearest type
    (issue 31)."""
    from cogtools.core.errors import DefinitionInvalidError

    path = write(
        tmp_path / "t.toml",
        IMPL + 'description = "d"\n[[parameters]]\nname = "when"\ntype = "strin"\ndescription = "w"\n',
    )
    with pytest.raises(DefinitionInvalidError) as caught:
        FORMATS["toml"].loader()(path, path.read_bytes(), display_path="t.toml", source="test")
    assert caught.value.message == "unknown type 'strin' (did you mean 'string'?)"
    assert caught.value.key_path == ("parameters", 0, "type")


@pytest.mark.parametrize(
    ("name", "text", "fragment", "line"),
    [
        ("t.toml", 'description = "d"\nimplementation = [\n', "invalid TOML", None),
        ("t.json", '{"description": "d",\n "implementation": }', "invalid JSON", 2),
        ("t.json", '"just a string"', "a mapping, not a string", None),
        ("t.toml", 'descripton = "d"\n' + IMPL, "unknown key 'descripton'", 1),
        # TOML's trap: keys after a [[table]] line belong to that table
        (
            "t.toml",
            'description = "d"\n[[examples]]\nx = 1\n' + IMPL,
            "`implementation` is inside the last [[examples]] table",
            4,
        ),
        (
            "t.toml",
            IMPL + '[[parameters]]\nname = "p"\ndescription = "d"\n',
            "'description' is a required property",
            None,
        ),
        (
            "t.toml",
            IMPL + 'description = "d"\n[parameters.n]\ntype = "integer"\nminimun = 1\n',
            "did you mean 'minimum'",
            5,
        ),
        ("t.toml", 'description = "d"\nimplementation = """\nHello\n{{ nmae }}\n"""\n', "uses 'nmae'", 4),
    ],
)
def test_broken_toml_and_json(tmp_path: Path, name: str, text: str, fragment: str, line: int | None) -> None:
    with pytest.raises(DefinitionInvalidError) as info:
        load(write(tmp_path / name, text))
    assert fragment in info.value.message and info.value.line == line


TOML_LINES = """\
# a comment = not a key
description = \"\"\"
[not.a.header]
key = "inside a string"
\"\"\"
tags = [
  "a", "b",  # [[not a header]]
]
"quoted.key" = 1
site."dotted key".name = 2
inline = {a = 1, b = {c = 2}}

[[parameters]]
name = "first"

[[parameters]]
name = "second"
  [parameters.schema]
  minimum = 3

[[parameters]]
name = "third"

[implementation]
kind = "command"
argv = ['echo', "{{ x }}"]
"""


@pytest.mark.parametrize(
    ("key_path", "line"),
    [
        (("description",), 2),
        (("key",), None),
        (("not",), None),
        (("tags", 1), 6),
        (("quoted.key",), 9),
        (("site", "dotted key", "name"), 10),
        (("inline", "b", "c"), 11),
        (("parameters",), 13),
        (("parameters", 0, "name"), 14),
        (("parameters", 1), 16),
        (("parameters", 1, "schema", "minimum"), 19),
        (("parameters", 2, "name"), 22),
        (("implementation", "argv", 1), 26),
        (("nothing",), None),
    ],
)
def test_toml_lines(key_path: tuple[str | int, ...], line: int | None) -> None:
    from cogtools.core.tomlio import line_of, loads

    loads(TOML_LINES)  # the document is valid TOML
    assert line_of(TOML_LINES, key_path) == line


def test_toml_and_json_in_a_project(project: Path) -> None:
    write(project / "tools" / "a.toml", 'description = "from toml"\n' + IMPL)
    write(project / "tools" / "b.json", json.dumps({"description": "from json", "implementation": "x"}))
    write(project / "tools" / "many.json", json.dumps([SEED_002, {**SEED_002, "name": "other"}]))
    write(project / "package.json", '{"name": "not a tool"}')  # root files must declare themselves
    write(
        project / "marked.json",
        json.dumps(
            {"$schema": "schema:agladysh-research.org,2025/cogtools:tool", "description": "d", "implementation": "x"}
        ),
    )
    catalog = load_catalog()
    assert list(catalog.tools) == ["a", "b", "marked", "other", "read_file"]
    assert catalog.tools["a"].origin.format == "toml" and catalog.problems == []


@pytest.mark.parametrize(
    "text",
    [
        '{"description": "d",\n  "implementation":\n    "x"}',
        '{"description": "say \\"implementation\\": no",\n "implementation": "x"}',
        '{"description": "d", "parameters": {"implementation": {"type": "string"}},\n "implementation": "{{ implementation }}"}',
        '[{"name": "a", "implementation": "x"},\n {"name": "b",\n  "implementation": "y"}]',
    ],
)
def test_the_quick_implementation_line_agrees_with_the_parser(text: str) -> None:
    """Every JSON tool's implementation line is asked for; a single `"implementation":` key is
    found without parsing the document for positions, and where there is not exactly one, the
    parser decides."""
    from cogtools.core import jsonc
    from cogtools.load.formats.json_format import _implementation_line

    for value in (False, True):
        quick = _implementation_line(text, value)
        assert quick is None or quick == jsonc.line_of(text, ("implementation",), value), (text, value)
    assert (_implementation_line(text, True) is None) == (
        text.count('"implementation":') + text.count('"implementation" :') != 1
    )
