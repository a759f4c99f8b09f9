"""Discovery mode: tools marked discoverable are left out of the full list; two meta-tools find
and call them, through the same checks and policy as a direct call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cogtools.cli import call, discover, porcelain
from cogtools.core.errors import ERROR_TABLE
from cogtools.core.model import CALL_TOOL as CALL
from cogtools.core.model import SEARCH_TOOL as SEARCH

from .conftest import Cli, Result, run_script, write
from .test_gemini_policy import allowed_by_rules

STATUS = {code: status for code, status, _ in ERROR_TABLE}

CONVERT = """\
description: Convert a temperature between Celsius and Fahrenheit.
keywords: [temperature, celsius, fahrenheit, convert]
discoverable: true
risk_level: low
side_effects: []
parameters:
  celsius:
    type: number
    description: Degrees Celsius.
implementation: "{{ celsius * 9 / 5 + 32 }}"
"""
WIPE = """\
description: Wipe the temperature log.
keywords: [temperature, log, wipe]
discoverable: true
min_role: admin
implementation: wiped
"""
VISIBLE = """\
description: Say hello.
risk_level: low
side_effects: []
implementation: hello
"""


@pytest.fixture
def hidden_project(project: Path) -> Path:
    write(project / "tools" / "convert.yaml", CONVERT)
    write(project / "tools" / "wipe.yaml", WIPE)
    write(project / "tools" / "hello.yaml", VISIBLE)
    return project


def names(result: Result) -> list[str]:
    return [declaration["name"] for declaration in result.json()]


def test_out_of_discovery_mode_discoverable_tools_are_listed(hidden_project: Path, cli: Cli) -> None:
    # nothing else would reach them: no tool is left unreachable
    result = cli(discover.main)
    assert result.status == 0 and result.stderr == ""
    # wipe needs admin: an ai_agent is not even told it exists
    assert names(result) == ["convert", "hello"]


def test_discovery_mode_offers_the_meta_tools_instead(hidden_project: Path, cli: Cli) -> None:
    assert names(cli(discover.main, "--discovery-mode")) == ["cogtools_call", "cogtools_search", "hello"]
    write(hidden_project / ".cogtoolrc.yaml", "discovery_mode: true\n")
    result = cli(discover.main)
    assert names(result) == ["cogtools_call", "cogtools_search", "hello"]
    assert "left out" not in result.stderr
    assert names(cli(discover.main, "--no-discovery-mode")) == ["convert", "hello"]


def test_meta_tools_follow_the_policy_filters(hidden_project: Path, cli: Cli) -> None:
    # cogtools_search only reads: it is diagnostic; cogtools_call may run anything: an action
    assert names(cli(discover.main, "--discovery-mode", "--toolset", "diagnostic")) == ["cogtools_search", "hello"]
    assert names(cli(discover.main, "--discovery-mode", "--toolset", "action")) == ["cogtools_call"]


def test_search_finds_hidden_tools_with_their_schema(hidden_project: Path, cli: Cli) -> None:
    result = cli(call.main, SEARCH, stdin='{"query": "convert a temperature to fahrenheit"}')
    assert result.status == 0, result
    found = result.json()
    assert found["query"] == "convert a temperature to fahrenheit"
    assert [tool["name"] for tool in found["tools"]] == ["convert"]  # wipe: admin only
    assert found["tools"][0]["parametersJsonSchema"]["properties"]["celsius"]["type"] == "number"


def test_search_sees_what_the_role_may_use(hidden_project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COGTOOLS_ROLE", "admin")
    found = cli(call.main, SEARCH, stdin='{"query": "temperature", "limit": 1}').json()
    assert len(found["tools"]) == 1
    found = cli(call.main, SEARCH, stdin='{"query": "temperature"}').json()
    assert sorted(tool["name"] for tool in found["tools"]) == ["convert", "wipe"]


def test_search_with_no_match_is_an_empty_list(hidden_project: Path, cli: Cli) -> None:
    assert cli(call.main, SEARCH, stdin='{"query": "zebra"}').json()["tools"] == []


def test_call_by_name_runs_the_tool(hidden_project: Path, cli: Cli) -> None:
    assert cli(call.main, CALL, stdin='{"name": "convert", "arguments": {"celsius": 100}}') == (0, "212.0", "")


@pytest.mark.parametrize(
    ("arguments", "code", "tool"),
    [
        ({"name": "convert", "arguments": {"celsius": "hot"}}, "SCHEMA_VIOLATION", "convert"),
        ({"name": "convert", "arguments": {"celsius": 1, "kelvin": 2}}, "SCHEMA_VIOLATION", "convert"),
        ({"name": "convrt", "arguments": {}}, "TOOL_NOT_FOUND", "convrt"),
        ({"name": "cogtools_call", "arguments": {}}, "TOOL_NOT_FOUND", "cogtools_call"),
        ({"arguments": {}}, "SCHEMA_VIOLATION", "cogtools_call"),
        ({"name": "convert", "arguments": [1]}, "SCHEMA_VIOLATION", "cogtools_call"),
        ({"name": "wipe"}, "TOOL_NOT_FOUND", "wipe"),  # its role hides it
    ],
)
def test_call_by_name_meets_the_checks_of_a_direct_call(
    hidden_project: Path, cli: Cli, arguments: dict[str, object], code: str, tool: str
) -> None:
    result = cli(call.main, CALL, stdin=json.dumps(arguments))
    error = result.json()["error"]
    assert (result.status, error["code"], error["tool"]) == (STATUS[code], code, tool)
    if tool == arguments.get("name") and (code != "TOOL_NOT_FOUND" or tool == "wipe"):
        direct = cli(call.main, str(arguments["name"]), stdin=json.dumps(arguments.get("arguments", {})))
        assert direct.json()["error"] == error  # the very same answer as a direct call


def test_a_hidden_tool_through_the_meta_tool_as_a_process(hidden_project: Path) -> None:
    """A tool the role may not use is not there for it, through the meta-tool too."""
    result = run_script("cogtools-call", CALL, stdin='{"name": "wipe", "arguments": {}}', cwd=hidden_project)
    assert result.status == STATUS["TOOL_NOT_FOUND"]
    assert "wipe" not in result.json()["error"]["details"]["available"]
    assert "admin" not in result.stdout + result.stderr


def test_hidden_tools_are_still_callable_directly(hidden_project: Path, cli: Cli) -> None:
    assert cli(call.main, "convert", stdin='{"celsius": 0}') == (0, "32.0", "")


@pytest.mark.parametrize("name", [SEARCH, CALL])
def test_the_meta_tool_names_are_reserved(project: Path, cli: Cli, name: str) -> None:
    write(project / "tools" / "mine.yaml", f"name: {name}\ndescription: Mine.\nimplementation: mine\n")
    result = cli(porcelain.main, "lint")
    assert result.status == 1  # lint found an error
    assert result.stdout.startswith(f"tools/mine.yaml:1: error[definition] name: the name '{name}' is reserved")
    write(project / "tools" / f"{name}.yaml", "description: Mine.\nimplementation: mine\n")  # by file name too
    assert "reserved" in cli(discover.main).stderr


def test_list_marks_discoverable_tools(hidden_project: Path, cli: Cli) -> None:
    lines = cli(porcelain.main, "list").stdout.splitlines()
    assert [line.split()[0] for line in lines] == ["convert", "hello"]
    assert lines[0].endswith("tools/convert.yaml (local:./tools, discoverable)")
    assert lines[1].endswith("tools/hello.yaml (local:./tools)")


def test_sync_writes_what_discovery_offers(hidden_project: Path, cli: Cli) -> None:
    write(hidden_project / ".gemini" / "settings.json", "{}\n")
    assert cli(porcelain.main, "sync", "--yes").status == 0
    assert allowed_by_rules(hidden_project) == [
        "discovered_tool_convert",
        "discovered_tool_hello",
        "discovered_tool_cogtools_problems",
    ]
    table = (hidden_project / "GEMINI.md").read_text()
    assert "discovered_tool_hello" in table and "discovered_tool_convert" in table

    write(hidden_project / ".cogtoolrc.yaml", "discovery_mode: true\n")
    assert cli(porcelain.main, "sync", "--yes").status == 0
    # the search only reads, so it runs without a prompt; a call by name always asks
    assert sorted(allowed_by_rules(hidden_project)) == [
        "discovered_tool_cogtools_problems",
        "discovered_tool_cogtools_search",
        "discovered_tool_hello",
    ]  # convert withdrawn
    table = (hidden_project / "GEMINI.md").read_text()
    assert "discovered_tool_cogtools_call" in table and "convert" not in table


def test_discovery_mode_must_be_a_boolean(project: Path, cli: Cli) -> None:
    write(project / ".cogtoolrc.yaml", "discovery_mode: sometimes\n")
    result = cli(discover.main, "--strict")
    assert result.status == STATUS["CONFIG_INVALID"]
    assert "discovery_mode" in result.stderr
