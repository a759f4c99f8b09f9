"""The clients behind one interface (issue 40): the call path asks :mod:`cogtools.trust.clients`
what any client runs unasked, and a client that keeps no file that could allow a tool is not
asked (nor imported). These tests hold the shortcut equal to asking: wherever Gemini CLI reads
something that lets a tool run unasked, its registration's places say so."""

from __future__ import annotations

import os
import typing as t
from pathlib import Path

import pytest

from cogtools.clients.gemini.client import CLIENT as GEMINI
from cogtools.clients.gemini.rules import policy_sources
from cogtools.clients.gemini.settings import SCOPES, settings_layers, settings_path
from cogtools.clients.mcp_clients import CLIENTS as MCP_CLIENTS
from cogtools.trust import clients

from .conftest import write

RULE = '[[rule]]\ntoolName = "discovered_tool_{name}"\ndecision = "allow"\npriority = 100\n'


def environ(home: Path, **more: str) -> dict[str, str]:
    return {"HOME": str(home), "PATH": os.environ["PATH"], **more}


def placed(root: Path, env: t.Mapping[str, str]) -> list[str]:
    return clients.CLIENTS["gemini"].places(root, env)


def covered(path: Path, places: t.Sequence[str]) -> bool:
    """``path`` is a place or lies under one."""
    return any(os.path.commonpath([str(path), place]) == place for place in places)


@pytest.mark.parametrize(
    "variables",
    [
        {},
        {"GEMINI_CLI_HOME": "elsewhere"},
        {"GEMINI_CLI_SYSTEM_SETTINGS_PATH": "s.json", "GEMINI_CLI_SYSTEM_DEFAULTS_PATH": "d.json"},
        {"GEMINI_CLI_SYSTEM_SETTINGS_PATH": "corp/settings.json"},  # the defaults beside it
    ],
)
def test_every_file_gemini_cli_reads_is_among_its_places(project: Path, variables: dict[str, str]) -> None:
    """The four settings files and the policy directories, wherever the variables move them."""
    env = environ(project / "home", **{key: str(project / value) for key, value in variables.items()})
    places = placed(project, env)
    for scope in SCOPES:
        assert covered(settings_path(scope, project, env), places), scope
    sources = policy_sources(settings_layers(project, env), project, env)
    assert covered(sources.default_user, places)
    assert covered(Path("/etc/gemini-cli/policies"), places)


def test_nothing_there_nothing_asked(project: Path) -> None:
    env = environ(project / "home")
    assert not clients.CLIENTS["gemini"].present(project, env)
    assert clients.unasked(project, env) is clients.NOTHING


@pytest.mark.parametrize(
    "where",
    ["project settings", "user settings", "gemini home settings", "user rules", "rules a project setting names"],
)
def test_whatever_allows_a_tool_opens_the_way_to_asking(project: Path, where: str) -> None:
    """Each thing that lets Gemini CLI run ``t`` unasked is seen through the shortcut, with the
    same words as the client's own answer."""
    home = project / "home"
    env = environ(home)
    allowed = '{"tools": {"allowed": ["discovered_tool_t"]}}\n'
    if where == "project settings":
        write(project / ".gemini" / "settings.json", allowed)
    elif where == "user settings":
        write(home / ".gemini" / "settings.json", allowed)
    elif where == "gemini home settings":
        env["GEMINI_CLI_HOME"] = str(project / "gemini-home")
        write(project / "gemini-home" / ".gemini" / "settings.json", allowed)
    elif where == "user rules":
        write(home / ".gemini" / "policies" / "mine.toml", RULE.format(name="t"))
    else:
        write(project / ".gemini" / "settings.json", '{"policyPaths": ["../rules"]}\n')
        write(project.parent / "rules" / "r.toml", RULE.format(name="t"))
    answer = clients.unasked(project, env, only="t")
    assert answer.source("t") is not None and answer.source("other") is None
    assert answer == GEMINI.unasked(project, env, only="t")
    assert str(answer.source("t")).startswith("in Gemini CLI (")


def test_an_unknown_client_is_named_with_the_known_ones() -> None:
    with pytest.raises(LookupError, match="known: gemini"):
        clients.client("nope")
    assert clients.client("gemini") is GEMINI


def test_every_client_is_one_interface(project: Path) -> None:
    """Gemini CLI and every MCP client answer the same questions: their files, what they run
    unasked (an MCP client: nothing cogtools can read)."""
    env = environ(project / "home")
    for client in (GEMINI, *MCP_CLIENTS.values()):
        assert isinstance(client, clients.Client) and client.title
        files = client.files(project, env)
        assert files and all(isinstance(path, Path) for path in files)
    for name, client in MCP_CLIENTS.items():
        assert client.name == name and client.unasked(project, env) is clients.NOTHING
        expected = {project / client.project_file} if client.project_file else set()
        assert expected <= set(client.files(project, env))
