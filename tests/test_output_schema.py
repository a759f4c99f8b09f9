"""A tool may say what it prints (``output: {schema: ...}``, or seed 002's ``outputSchema``): every
result is checked against it, MCP clients get it as ``outputSchema`` and the result as structured
content, and the Gemini API export carries it as the declaration's ``response``."""

from __future__ import annotations

import json
import textwrap
import typing as t
from pathlib import Path

import pytest

from cogtools.cli import call, porcelain
from cogtools.clients.export import export
from cogtools.core.errors import DefinitionInvalidError

from .conftest import Cli, run_script, write
from .test_formats import load

STAT = """\
    name: disk_stat
    description: Disk use.
    parameters:
      path: {type: string, description: Where.}
    output:
      schema:
        type: object
        properties:
          used: {type: integer, minimum: 0}
          mount: {$ref: '#/$defs/mount'}
        required: [used]
      $defs:
        mount: {type: string, nullable: true}
    implementation: '{"used": {{ path | length }}, "mount": null}'
"""


def test_a_result_is_checked_against_what_the_tool_says_it_prints(project: Path, cli: Cli) -> None:
    write(project / "tools" / "stat.yaml", STAT)
    good = cli(call.main, "disk_stat", stdin='{"path": "/tmp"}')
    assert good.status == 0 and json.loads(good.stdout) == {"used": 4, "mount": None}, good
    write(
        project / "tools" / "liar.yaml",
        STAT.replace("name: disk_stat", "name: liar").replace("{{ path | length }}", '"{{ path }}"'),
    )
    bad = cli(call.main, "liar", stdin='{"path": "/tmp"}')
    error = json.loads(bad.stdout)["error"]
    assert bad.status == 10 and error["code"] == "EXECUTION_FAILED", bad
    assert "used: expected an integer" in error["message"]
    assert error["details"]["violations"][0]["field"] == "used"
    write(project / "tools" / "prose.yaml", STAT.replace("name: disk_stat", "name: prose").replace("'{", "'not json {"))
    prose = json.loads(cli(call.main, "prose", stdin='{"path": "/"}').stdout)["error"]
    assert prose["code"] == "EXECUTION_FAILED" and "printed something else" in prose["message"]


def test_seed_002s_output_schema_is_read(tmp_path: Path) -> None:
    definition = {
        "name": "weather",
        "description": "d",
        "inputSchema": {"type": "object", "properties": {}},
        "outputSchema": {
            "type": "object",
            "$defs": {"t": {"type": "number"}},
            "properties": {"temperature": {"$ref": "#/$defs/t"}, "note": {"type": ["string", "null"]}},
            "required": ["temperature"],
        },
        "implementation": '{"temperature": 3.5}',
    }
    (tool,) = load(write(tmp_path / "w.json", json.dumps(definition)))
    assert tool.output_schema is not None and tool.output_schema["properties"]["note"] == {
        "type": "string",
        "nullable": True,
    }
    assert tool.definitions == {"t": {"type": "number"}}
    (mcp,), _ = export([tool], "mcp")
    assert mcp["outputSchema"]["properties"]["temperature"] == {"$ref": "#/$defs/t"}
    assert mcp["outputSchema"]["$defs"] == {"t": {"type": "number"}}
    (gemini,), _ = export([tool], "gemini-api")
    assert gemini["response"]["properties"]["temperature"] == {"type": "NUMBER"}
    for fmt in ("openai", "anthropic", "gemini-cli"):
        (declaration,), _ = export([tool], fmt)
        assert "outputSchema" not in json.dumps(declaration) and "response" not in declaration


@pytest.mark.parametrize(
    ("change", "fragment", "key_path"),
    [
        ({"outputSchema": {"type": "array"}}, "`outputSchema` is a JSON Schema of type object", ("outputSchema",)),
        ({"output": {"schema": {"type": "string"}}}, "object", ("output", "schema", "type")),
        ({"output": {"schema": {"type": "object"}}, "outputSchema": {"type": "object"}}, "not both", ("outputSchema",)),
        (
            {"output": {"schema": {"type": "object", "properties": {"a": {"$ref": "#/$defs/nope"}}}}},
            "not defined",
            ("output", "schema", "properties", "a", "$ref"),
        ),
        (
            {
                "parameters": {"type": "object", "$defs": {"a": {"type": "string"}}, "properties": {}},
                "output": {"schema": {"type": "object"}, "$defs": {"a": {"type": "integer"}}},
            },
            "defined otherwise",
            ("output", "$defs", "a"),
        ),
    ],
)
def test_an_output_schema_that_cannot_be_is_refused(
    tmp_path: Path, change: dict[str, t.Any], fragment: str, key_path: tuple[str | int, ...]
) -> None:
    definition = {"name": "t", "description": "d", "implementation": "{}", **change}
    with pytest.raises(DefinitionInvalidError) as info:
        load(write(tmp_path / "t.json", json.dumps(definition)))
    assert fragment in info.value.message and info.value.key_path == key_path, info.value


def test_cogtools_test_checks_examples_against_the_output_schema(project: Path, cli: Cli) -> None:
    write(project / "tools" / "stat.yaml", textwrap.dedent(STAT) + "examples:\n  - {path: /var}\n")
    assert cli(porcelain.main, "test").status == 0
    liar = textwrap.dedent(STAT).replace("{{ path | length }}", "-1") + "examples:\n  - {path: /var}\n"
    write(project / "tools" / "stat.yaml", liar)
    failed = cli(porcelain.main, "test")
    assert failed.status != 0 and "minimum" in failed.stdout + failed.stderr, failed


#: The eight bytes every PNG file begins with, and a little more, with a NUL and invalid UTF-8.
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe"


def picture_tool(project: Path, name: str = "picture", **output: t.Any) -> None:
    printf = "".join(f"\\{byte:03o}" for byte in PNG)
    definition = {
        "name": name,
        "description": "Draw.",
        "output": output or {"media_type": "image/png"},
        "implementation": {"kind": "command", "argv": ["printf", printf]},
    }
    write(project / "tools" / f"{name}.json", json.dumps(definition))


def test_a_program_that_prints_an_image_gives_its_bytes(project: Path) -> None:
    import subprocess

    from .conftest import BIN

    picture_tool(project)
    done = subprocess.run([str(BIN / "cogtools-call"), "picture"], input=b"{}", capture_output=True, cwd=project)
    assert (done.returncode, done.stdout) == (0, PNG), done
    dry = run_script("cogtools-call", "--dry-run", "picture", cwd=project, stdin="{}")
    assert dry.status == 0 and json.loads(dry.stdout)["kind"] == "command"
    limited = json.loads((project / "tools" / "picture.json").read_text())
    limited["implementation"]["max_output_bytes"] = 8
    write(project / "tools" / "picture.json", json.dumps(limited))
    cut = json.loads(run_script("cogtools-call", "picture", cwd=project, stdin="{}").stdout)["error"]
    assert cut["code"] == "EXECUTION_FAILED" and "more than the output limit" in cut["message"], cut


@pytest.mark.parametrize(
    ("definition", "fragment"),
    [
        ({"implementation": "text", "output": {"media_type": "image/png"}}, "a template tool returns text"),
        (
            {"implementation": "{}", "output": {"media_type": "image/png", "schema": {"type": "object"}}},
            "`schema` or `media_type`, not both",
        ),
        ({"implementation": "{}", "output": {}}, "`schema` or `media_type`, one of them"),
        ({"implementation": "{}", "output": {"media_type": "png"}}, "does not match"),
    ],
)
def test_a_media_type_that_cannot_be_is_refused(tmp_path: Path, definition: dict[str, t.Any], fragment: str) -> None:
    with pytest.raises(DefinitionInvalidError) as info:
        load(write(tmp_path / "t.json", json.dumps({"name": "t", "description": "d", **definition})))
    assert fragment in info.value.message and (info.value.key_path or ("",))[0] == "output", info.value


def multipart(*parts: tuple[str, bytes], boundary: str = "b0undary") -> bytes:
    """A multipart/mixed entity of ``parts`` (media type, bytes), each in base64."""
    import base64

    body = b"".join(
        f"--{boundary}\nContent-Type: {kind}\nContent-Transfer-Encoding: base64\n\n".encode()
        + base64.b64encode(data)
        + b"\n"
        for kind, data in parts
    )
    return f"Content-Type: multipart/mixed; boundary={boundary}\n\n".encode() + body + f"--{boundary}--\n".encode()


@pytest.mark.parametrize(
    ("printed", "fragment"),
    [
        (b"just text", "Content-Type is text/plain"),
        (multipart(*[("text/plain", b"x")] * 65), "more than 64 parts"),
        (
            b"Content-Type: multipart/mixed; boundary=a\n\n--a\nContent-Type: multipart/mixed; boundary=b\n\n"
            b"--b\nContent-Type: text/plain\n\nx\n--b--\n--a--\n",
            "part 1 is multipart itself",
        ),
        (b"Content-Type: multipart/mixed; boundary=a\n\nno parts at all\n", "no part"),
    ],
)
def test_a_multipart_result_that_cannot_be_read_fails_the_call(
    project: Path, cli: Cli, printed: bytes, fragment: str
) -> None:
    import base64

    definition = {
        "name": "parts",
        "description": "Several.",
        "output": {"media_type": "multipart/mixed"},
        "implementation": {
            "kind": "command",
            "argv": ["sh", "-c", 'printf %s "$0" | base64 -d', base64.b64encode(printed).decode()],
        },
    }
    write(project / "tools" / "parts.json", json.dumps(definition))
    error = json.loads(cli(call.main, "parts", stdin="{}").stdout)["error"]
    assert error["code"] == "EXECUTION_FAILED" and fragment in error["message"], error


@pytest.mark.parametrize(
    ("text", "structured"),
    [
        ("[1, 2]\n", {"result": [1, 2]}),
        ("3", {"result": 3}),
        ('"quoted"', {"result": "quoted"}),
        ("null\n", {"result": None}),
        ('{"a": 1}', None),  # (an object: a client takes it as it is)
        ("not json", None),
        ("-x", None),
        ("[1, 2", None),
        ("", None),
    ],
)
def test_a_result_that_is_json_but_no_object_is_given_as_an_object_too(text: str, structured: t.Any) -> None:
    """(issue 43: Gemini CLI takes a text that parses as JSON for structuredContent, which must be
    an object; tests/test_gemini_binary.py drives the real client)"""
    from cogtools.mcp.calls import wrapped_json

    assert wrapped_json(text) == structured
