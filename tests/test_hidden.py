"""Hidden is not callable (issue 41): a tool that the policy hides from a caller (its toolset,
max_risk, category, denied categories, or a min_role above the caller's role) is TOOL_NOT_FOUND
to that caller by every name it could be called by (``cogtools-call``, the meta-tool
``cogtools_call``, MCP's ``tools/call``), with the very error a name that no tool has gets; a
definition handed over whole (``cogtools-yaml FILE``) is POLICY_DENIED, saying why. ``cogtools
test`` is the author trying every tool: the filters of what to show do not apply to it, the role
does. A tool that discovery mode leaves out of the list but lets the model find stays
callable."""

from __future__ import annotations

import json
import os
import time
import typing as t
from pathlib import Path

import pytest

from cogtools.core.errors import ERROR_TABLE
from cogtools.load.cache import RACY_SECONDS

from .conftest import run_script, write

STATUS = {code: status for code, status, _ in ERROR_TABLE}

#: filter -> (the project's policy, the shown tool's metadata, the hidden tool's metadata,
#: whether the meta-tool cogtools_call, risk high, category discovery, is hidden too)
FILTERS: dict[str, tuple[str, dict[str, t.Any], dict[str, t.Any], bool]] = {
    "toolset": (
        "{toolset: action}",
        {"risk_level": "medium", "side_effects": ["process"]},
        {"risk_level": "low", "side_effects": ["filesystem_read"]},
        False,
    ),
    "max_risk": ("{max_risk: low}", {"risk_level": "low"}, {"risk_level": "medium"}, True),
    "category": ("{category: Ops}", {"category": "ops"}, {"category": "Billing"}, True),
    "denied_categories": ("{denied_categories: [billing]}", {"category": "Ops"}, {"category": "Billing"}, False),
    "role": ("{}", {"min_role": "ai_agent"}, {"min_role": "human_agent"}, False),
}


def tool(project: Path, name: str, metadata: t.Mapping[str, t.Any], **more: t.Any) -> Path:
    lines = [f"description: The {name} tool.", f"implementation: {name} ran", "examples: [{}]"]
    lines += [f"{key}: {json.dumps(value)}" for key, value in {**metadata, **more}.items()]
    return write(project / "tools" / f"{name}.yaml", "\n".join(lines) + "\n")


def filtered(project: Path, which: str) -> bool:
    """A project whose policy hides ``hidden`` by ``which`` and shows ``shown``; whether it hides
    the meta-tool ``cogtools_call`` too."""
    policy, shown, hidden, meta_hidden = FILTERS[which]
    write(project / ".cogtoolrc.yaml", f"policy: {policy}\n")
    tool(project, "shown", shown)
    tool(project, "hidden", hidden)
    return meta_hidden


def error_of(result: t.Any) -> dict[str, t.Any]:
    return t.cast("dict[str, t.Any]", json.loads(result.stdout)["error"])


def not_found_as_a_miss(project: Path, name: str, error: dict[str, t.Any]) -> None:
    """``error`` is the one a name no tool has gets: nothing says the tool is there."""
    miss = error_of(run_script("cogtools-call", "no_such_tool", cwd=project))
    assert error["code"] == miss["code"] == "TOOL_NOT_FOUND"
    assert error["message"] == miss["message"].replace("no_such_tool", name)
    assert error["details"] == {"available": miss["details"]["available"]}
    assert name not in error["details"]["available"]


@pytest.mark.slow
@pytest.mark.parametrize("which", list(FILTERS))
def test_a_hidden_tool_is_not_found_by_any_name(project: Path, which: str) -> None:
    meta_hidden = filtered(project, which)
    listed = run_script("cogtools", "list", cwd=project).stdout
    assert "shown" in listed and "hidden" not in listed
    offered = [d["name"] for d in json.loads(run_script("cogtools-discover", cwd=project).stdout)]
    assert offered == ["shown"]
    assert run_script("cogtools-call", "shown", cwd=project).stdout == "shown ran"
    # cogtools-call
    result = run_script("cogtools-call", "hidden", cwd=project)
    assert result.status == STATUS["TOOL_NOT_FOUND"]
    not_found_as_a_miss(project, "hidden", error_of(result))
    assert "hidden ran" not in result.stdout
    # the meta-tool, itself hidden or not
    call = json.dumps({"name": "hidden", "arguments": {}})
    result = run_script("cogtools-call", "cogtools_call", stdin=call, cwd=project)
    error = error_of(result)
    assert error["code"] == "TOOL_NOT_FOUND" and error["tool"] == ("cogtools_call" if meta_hidden else "hidden")
    call = json.dumps({"name": "shown", "arguments": {}})
    result = run_script("cogtools-call", "cogtools_call", stdin=call, cwd=project)
    assert (error_of(result)["code"] == "TOOL_NOT_FOUND") if meta_hidden else (result.stdout == "shown ran")
    # a definition handed over whole: refused, saying why
    result = run_script("cogtools-yaml", "tools/hidden.yaml", cwd=project)
    error = error_of(result)
    assert error["code"] == "POLICY_DENIED" and "hides" in error["message"]
    assert run_script("cogtools-yaml", "tools/shown.yaml", cwd=project).stdout == "shown ran"
    # cogtools test: the author's; the role still applies
    tested = run_script("cogtools", "test", "hidden", cwd=project)
    if which in ("role", "denied_categories"):
        assert tested.status == 1 and "FAIL hidden[0]: POLICY_DENIED" in tested.stdout
    else:
        assert tested.status == 0 and "PASS hidden[0]" in tested.stdout


@pytest.mark.slow
@pytest.mark.parametrize("which", list(FILTERS))
def test_a_hidden_tool_is_not_found_over_mcp(project: Path, which: str) -> None:
    pytest.importorskip("mcp")
    from mcp import Client
    from mcp.shared.exceptions import MCPError

    from .test_mcp import session

    meta_hidden = filtered(project, which)

    async def body(client: Client) -> t.Any:
        names = [tool.name for tool in (await client.list_tools()).tools]
        shown = await client.call_tool("shown", {})
        outcomes: list[t.Any] = []
        for name, arguments in (("hidden", {}), ("cogtools_call", {"name": "hidden", "arguments": {}})):
            try:
                outcomes.append(await client.call_tool(name, arguments))
            except MCPError as e:
                outcomes.append(e)
        return names, shown, outcomes

    names, shown, (direct, meta) = session(project, body)
    assert names == ["shown"] and shown.content[0].text == "shown ran"
    miss = error_of(run_script("cogtools-call", "hidden", cwd=project))
    # a tool the server does not offer: the JSON-RPC error of a name no tool has
    assert isinstance(direct, MCPError) and direct.code == -32602 and direct.data == {"error": miss}
    if meta_hidden:
        assert isinstance(meta, MCPError) and meta.code == -32602
    else:  # the meta-tool's argument names no tool it may call: its result says so
        assert meta.is_error and meta.structured_content == {"error": miss}


@pytest.mark.slow
def test_what_discovery_mode_leaves_out_stays_callable(project: Path) -> None:
    """Discovery mode leaves discoverable tools out of the list for the meta-tools to find: they
    are not hidden from the caller, and a call reaches them by every name."""
    write(project / ".cogtoolrc.yaml", "discovery_mode: true\npolicy: {max_risk: medium}\n")
    tool(project, "found", {"risk_level": "low"}, discoverable=True)
    offered = [d["name"] for d in json.loads(run_script("cogtools-discover", cwd=project).stdout)]
    assert "found" not in offered and "cogtools_search" in offered
    search = json.dumps({"query": "found tool"})
    hits = json.loads(run_script("cogtools-call", "cogtools_search", stdin=search, cwd=project).stdout)
    assert [hit["name"] for hit in hits["tools"]] == ["found"]
    assert run_script("cogtools-call", "found", cwd=project).stdout == "found ran"
    # cogtools_call declares nothing: risk high, so max_risk medium hides the meta-tool itself
    call = json.dumps({"name": "found", "arguments": {}})
    assert error_of(run_script("cogtools-call", "cogtools_call", stdin=call, cwd=project))["code"] == "TOOL_NOT_FOUND"
    write(project / ".cogtoolrc.yaml", "discovery_mode: true\n")
    assert run_script("cogtools-call", "cogtools_call", stdin=call, cwd=project).stdout == "found ran"


@pytest.mark.slow
def test_a_warm_call_of_a_hidden_tool_is_a_miss_too(project: Path) -> None:
    """A warm call reads one tool from the cache's fast index; the error of a hidden one still
    lists what the caller may call, as a miss does."""
    filtered(project, "max_risk")
    time.sleep(RACY_SECONDS + 0.5)  # a file changed just now is read again by every call
    for _ in range(2):
        not_found_as_a_miss(project, "hidden", error_of(run_script("cogtools-call", "hidden", cwd=project)))


@pytest.mark.slow
def test_a_person_is_told_why_a_tool_is_hidden(project: Path) -> None:
    filtered(project, "max_risk")
    told = run_script("cogtools-call", "-v", "hidden", cwd=project).stderr
    assert "hidden: hidden from this caller by the policy (its risk, medium, is above policy.max_risk low)" in told
    shown = run_script("cogtools", "show", "hidden", cwd=project).stdout
    assert "no: the configured policy hides it (its risk, medium, is above policy.max_risk low)" in shown
    assert json.loads(run_script("cogtools", "show", "--format", "json", "shown", cwd=project).stdout)["hidden"] is None


@pytest.mark.slow
def test_a_project_file_cannot_show_what_the_user_hides(project: Path) -> None:
    """What the filters hide is no longer callable, so the agent, which can write the project's
    files, may only narrow them, as it may the role."""
    write(Path(os.environ["XDG_CONFIG_HOME"]) / "cogtools" / "config.yaml", "policy: {max_risk: low}\n")
    tool(project, "medium", {"risk_level": "medium"})
    tool(project, "low", {"risk_level": "low"})
    write(project / ".cogtoolrc.yaml", "policy: {max_risk: high}\n")
    assert error_of(run_script("cogtools-call", "medium", cwd=project))["code"] == "TOOL_NOT_FOUND"
    assert run_script("cogtools-call", "low", cwd=project).stdout == "low ran"
    refused = run_script("cogtools", "config", "set", "policy.max_risk", "medium", cwd=project)
    assert refused.status == STATUS["POLICY_DENIED"] and "can only narrow the policy" in refused.stderr
    write(project / ".cogtoolrc.yaml", "policy: {toolset: diagnostic}\n")  # narrower: taken
    assert error_of(run_script("cogtools-call", "low", cwd=project))["code"] == "TOOL_NOT_FOUND"
