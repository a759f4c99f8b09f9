"""JSON printed by a program (kinds ``script`` and ``command``) reaches an MCP client as
``structuredContent`` where the tool declares an output schema (issue 43), with a text block of the
same JSON (MCP 2025-06-18); without one, as text. Through the SDK's own client over stdio."""

from __future__ import annotations

import json
import os
import shutil
import typing as t
from pathlib import Path

import pytest

from .conftest import BIN, write

pytestmark = pytest.mark.slow  # a real server, started by the SDK's client

COUNT = (
    "// cogtools-tool\n// description: Count the words.\n// parameters:\n"
    "//   text: {type: string, description: The text.}\n// side_effects: []\n// risk_level: low\n"
    "// output:\n//   schema:\n//     type: object\n//     properties: {words: {type: integer}}\n"
    "//     required: [words]\n//\n"
    "console.log(JSON.stringify({ words: process.env.COGTOOLS_ARG_TEXT.split(' ').length }));\n"
)
COMMAND = """\
description: Say the words as JSON.
parameters:
  text: {type: string, description: The text.}
side_effects: []
risk_level: low
output:
  schema: {type: object, properties: {said: {type: string}}, required: [said]}
implementation: {kind: command, argv: [printf, '{"said": "%s"}', '{{ text }}']}
"""


def calls(project: Path, *wanted: tuple[str, dict[str, t.Any]]) -> list[t.Any]:
    pytest.importorskip("mcp")
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def main() -> list[t.Any]:
        server = StdioServerParameters(
            command=str(BIN / "cogtools"), args=["mcp"], cwd=str(project), env={**os.environ}
        )
        with open(project.parent / "server.err", "w") as errlog:
            async with stdio_client(server, errlog) as (read, written), ClientSession(read, written) as session:
                await session.initialize()
                await session.list_tools()  # the client learns each output schema, which it checks results against
                return [await session.call_tool(name, arguments) for name, arguments in wanted]

    return anyio.run(main)


def test_a_programs_json_is_structured_content(project: Path) -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    write(project / "tools" / "count.mjs", COUNT)
    write(project / "tools" / "say.yaml", COMMAND)
    write(project / "tools" / "plain.yaml", COMMAND.replace("output:\n  schema: ", "# no schema: "))
    count, say, plain = calls(project, ("count", {"text": "a b c"}), ("say", {"text": "hi"}), ("plain", {"text": "hi"}))
    assert not count.is_error and count.structured_content == {"words": 3}, count
    assert [json.loads(part.text) for part in count.content] == [{"words": 3}]
    assert not say.is_error and say.structured_content == {"said": "hi"}, say
    assert json.loads(say.content[0].text) == {"said": "hi"}
    assert plain.structured_content is None and plain.content[0].text == '{"said": "hi"}'


def test_json_that_does_not_match_the_schema_is_an_error_not_structured(project: Path) -> None:
    write(project / "tools" / "say.yaml", COMMAND.replace("[said]", "[said, missing]"))
    (said,) = calls(project, ("say", {"text": "hi"}))
    error = said.structured_content["error"]
    assert said.is_error and error["code"] == "EXECUTION_FAILED", said
    assert "missing" in json.dumps(error["details"]) and json.loads(said.content[0].text)["error"] == error
