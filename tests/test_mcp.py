"""``cogtools mcp`` driven by the official MCP SDK's own client, over stdio, as a real process: the
same tools, policy, checks and errors as cogtools-call, and a catalog that follows the files."""

from __future__ import annotations

import json
import os
import typing as t
from pathlib import Path

import anyio
import pytest

from .conftest import BIN, ECHO_TOOL, run_script, write

mcp = pytest.importorskip("mcp")
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

ADMIN = "description: Admin only.\nmin_role: admin\nimplementation: secret\n"
LOOK = "title: Look\ndescription: Look around.\nrisk_level: low\nside_effects: [filesystem_read]\nimplementation: looked\n"


def server(cwd: Path, *args: str) -> StdioServerParameters:
    return StdioServerParameters(command=str(BIN / "cogtools"), args=["mcp", "--interval", "0.2", *args], cwd=str(cwd), env=dict(os.environ))


def session(cwd: Path, body: t.Callable[[Client], t.Awaitable[t.Any]], **options: t.Any) -> t.Any:
    async def main() -> t.Any:
        with anyio.fail_after(60):
            async with Client(server(cwd), **options) as client:
                return await body(client)

    return anyio.run(main)


@pytest.fixture
def mcp_project(echo_project: Path) -> Path:
    write(echo_project / "tools" / "admin.yaml", ADMIN)
    write(echo_project / "tools" / "look.yaml", LOOK)
    return echo_project


def test_the_list_is_what_discovery_offers_in_the_mcp_dialect(mcp_project: Path) -> None:
    async def body(client: Client) -> t.Any:
        return (await client.list_tools()).tools

    tools = {tool.name: tool for tool in session(mcp_project, body)}
    assert sorted(tools) == ["echo", "look"]  # admin needs a role the project does not have
    exported = {d["name"]: d for d in json.loads(run_script("cogtools-discover", "--format", "mcp", cwd=mcp_project).stdout)}
    for name, tool in tools.items():
        assert tool.input_schema == exported[name]["inputSchema"]
        assert tool.annotations is not None
        assert tool.annotations.model_dump(by_alias=True, exclude_none=True) == exported[name]["annotations"]
    assert tools["look"].title == "Look" and tools["look"].annotations.read_only_hint is True


def test_calls_succeed_and_fail_as_cogtools_call_does(mcp_project: Path) -> None:
    async def body(client: Client) -> t.Any:
        return [
            await client.call_tool("echo", {"text": "hi", "times": 2}),
            await client.call_tool("echo", {"text": "hi", "times": 9}),
            await client.call_tool("admin", {}),
            await client.call_tool("nosuch", {}),
            await client.call_tool("echo", {"text": nested(150)}),
        ]

    good, invalid, denied, missing, deep = session(mcp_project, body)
    assert not good.is_error and good.content[0].text == "hi\nhi\n"
    for result, code, stdin in (
        (invalid, "SCHEMA_VIOLATION", '{"text": "hi", "times": 9}'),
        (denied, "POLICY_DENIED", "{}"),
        (missing, "TOOL_NOT_FOUND", "{}"),
    ):
        assert result.is_error
        error = json.loads(result.content[0].text)
        assert error == result.structured_content and error["error"]["code"] == code
        name = {"SCHEMA_VIOLATION": "echo", "POLICY_DENIED": "admin", "TOOL_NOT_FOUND": "nosuch"}[code]
        direct = json.loads(run_script("cogtools-call", name, stdin=stdin, cwd=mcp_project).stdout)
        assert error == direct  # the very error object cogtools-call prints
    assert deep.is_error and deep.structured_content["error"]["code"] == "INVALID_INPUT"
    assert "levels deep" in deep.structured_content["error"]["message"]


def nested(depth: int) -> t.Any:
    value: t.Any = "x"
    for _ in range(depth):
        value = [value]
    return value


def test_discovery_mode_offers_the_meta_tools(mcp_project: Path) -> None:
    write(mcp_project / ".cogtoolrc.yaml", "discovery_mode: true\n")
    write(mcp_project / "tools" / "hidden.yaml", "description: Convert temperatures.\ndiscoverable: true\nimplementation: converted\n")

    async def body(client: Client) -> t.Any:
        names = [tool.name for tool in (await client.list_tools()).tools]
        found = await client.call_tool("cogtools_search", {"query": "convert temperatures"})
        called = await client.call_tool("cogtools_call", {"name": "hidden", "arguments": {}})
        return names, found, called

    names, found, called = session(mcp_project, body)
    assert "hidden" not in names and {"cogtools_search", "cogtools_call"} <= set(names)
    assert json.loads(found.content[0].text)["tools"][0]["name"] == "hidden"
    assert called.content[0].text == "converted"


def test_an_edit_is_announced_and_a_broken_edit_keeps_the_old_tool(mcp_project: Path) -> None:
    async def body(client: Client) -> t.Any:
        before = {tool.name: tool for tool in (await client.list_tools()).tools}
        async with client.listen(tools_list_changed=True) as changes:
            write(
                mcp_project / "tools" / "echo.yaml",
                ECHO_TOOL.replace("description: Say something back.", "description: Say it back, louder."),
            )
            with anyio.fail_after(20):
                await changes.__anext__()
            after = {tool.name: tool for tool in (await client.list_tools()).tools}
            write(mcp_project / "tools" / "echo.yaml", "name: echo\ndescription: [broken\n")
            with anyio.fail_after(20):
                await changes.__anext__()
        broken = {tool.name: tool for tool in (await client.list_tools()).tools}
        still = await client.call_tool("echo", {"text": "still here"})
        return before, after, broken, still

    before, after, broken, still = session(mcp_project, body)
    assert before["echo"].description == "Say something back."
    assert after["echo"].description == "Say it back, louder."
    assert broken["echo"].description == "Say it back, louder."  # the last good one
    assert not still.is_error and still.content[0].text == "still here\n"


def test_without_the_extra_it_says_how_to_install_it(mcp_project: Path, tmp_path: Path) -> None:
    shadow = tmp_path / "shadow"
    write(shadow / "mcp" / "__init__.py", "raise ImportError('mcp is not installed')\n")
    env = {**os.environ, "PYTHONPATH": str(shadow)}
    result = run_script("cogtools", "mcp", cwd=mcp_project, env=env)
    assert result.status == 2 and "pip install 'cogtools[mcp]'" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
