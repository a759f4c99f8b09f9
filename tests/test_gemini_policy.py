"""Gemini CLI's settings layers and its Policy Engine (issue: tools.allowed is deprecated).

Gemini CLI 0.61 warns at every start while ``tools.allowed`` is set, and reads allow rules from
TOML files of the user's (``~/.gemini/policies/*.toml``, or the files ``policyPaths`` names), never
from the workspace. So where the installed Gemini CLI has the Policy Engine, ``cogtools sync``
writes the rules of the tools it pins into a file of the user's, one per project, moves the
entries it wrote into tools.allowed before out of it, and a tool that any rule lets through
unasked is refused by cogtools until it is pinned for the project, since a rule is user-wide.
The settings are read as the four files Gemini CLI merges (system-defaults < user < workspace <
system), and doctor names the file each value comes from."""

from __future__ import annotations

import json
import os
import typing as t
from pathlib import Path

import pytest

from cogtools.cli import call, porcelain

from .conftest import Cli, write


def rules_file(root: Path, environ: t.Mapping[str, str] | None = None) -> Path:
    from cogtools.clients.gemini.rules import policy_file

    return policy_file(root.resolve(), os.environ if environ is None else environ)


def allowed_by_rules(root: Path, environ: t.Mapping[str, str] | None = None) -> list[str]:
    """The tools the project's rules file allows (``discovered_tool_NAME``), in order."""
    from cogtools.clients.gemini.rules import read_rules

    path = rules_file(root, environ)
    return [rule.tool for rule in read_rules(path) if rule.decision == "allow"] if path.exists() else []


def unasked_names(root: Path) -> list[str]:
    """What Gemini CLI runs unasked in ``root``: the rules file's tools, then the entries of the
    project's tools.allowed that are not among them."""
    names = allowed_by_rules(root)
    settings = root / ".gemini" / "settings.json"
    if settings.exists():
        from cogtools.core import jsonc

        tools = jsonc.loads(settings.read_text()).get("tools", {})
        entries = tools.get("allowed", []) if isinstance(tools, dict) else []
        names += [entry for entry in entries if entry not in names]
    return names


def installed_gemini(where: Path, version: str) -> Path:
    """A ``gemini`` as npm installs it (a link into @google/gemini-cli, whose package.json says
    ``version``), in ``where``/bin; it is never run."""
    package = where / "lib" / "node_modules" / "@google" / "gemini-cli"
    write(package / "package.json", json.dumps({"name": "@google/gemini-cli", "version": version}))
    script = write(package / "bundle" / "gemini.js", "#!/usr/bin/env node\n", mode=0o755)
    (where / "bin").mkdir(parents=True, exist_ok=True)
    (where / "bin" / "gemini").symlink_to(script)
    return where / "bin"


@pytest.fixture
def older_gemini(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A Gemini CLI before the Policy Engine (0.29) first on PATH: tools.allowed is written."""
    directory = installed_gemini(tmp_path / "old-gemini", "0.29.0")
    monkeypatch.setenv("PATH", f"{directory}{os.pathsep}{os.environ['PATH']}")
    return directory


HELLO = "description: Say hello.\nrisk_level: low\nside_effects: []\nimplementation: hello from {project}\n"
ACT = "description: Change things.\nrisk_level: medium\nside_effects: [process]\nimplementation: acted\n"
DIVERT = "description: Say hello.\nrisk_level: low\nside_effects: []\nimplementation: diverted\n"


def make_project(root: Path, tools: t.Mapping[str, str], settings: str | None = "{}\n") -> Path:
    write(root / ".cogtoolrc.yaml", "tool_sources:\n  - local: ./tools\n")
    for name, text in tools.items():
        write(root / "tools" / f"{name}.yaml", text.format(project=root.name))
    if settings is not None:
        write(root / ".gemini" / "settings.json", settings)
    return root


def user_settings(settings: t.Mapping[str, t.Any]) -> Path:
    return write(Path(os.environ["HOME"]) / ".gemini" / "settings.json", json.dumps(settings))


@pytest.fixture
def root_owned(tmp_path: Path) -> t.Iterator[Path]:
    """A directory Gemini CLI takes system files from: it and every directory above it root's and
    writable by no one else (so not under /tmp); only root can make one."""
    import shutil
    import tempfile

    from .conftest import REAL_HOME

    if os.geteuid() != 0:
        pytest.skip("only root can make a directory Gemini CLI reads system settings from")
    base = Path(REAL_HOME) / ".cache" / "cogtools"
    base.mkdir(parents=True, exist_ok=True)
    directory = Path(tempfile.mkdtemp(prefix="system-settings-", dir=base))
    directory.chmod(0o755)
    from cogtools.clients.gemini.settings import insecure

    if insecure(directory / "settings.json") is not None or insecure(directory) is not None:
        shutil.rmtree(directory)
        pytest.skip(f"{base} is not a root-only place: {insecure(directory)}")
    yield directory
    shutil.rmtree(directory)


# -- the settings layers ----------------------------------------------------------------------------


def test_the_settings_layers_merge_as_gemini_cli_merges_them(
    project: Path, root_owned: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """system-defaults < user < workspace < system for a key that is replaced; policyPaths is the
    union of them all; a system file that someone else could write is skipped, and said to be."""
    from cogtools.clients.gemini.rules import policy_sources
    from cogtools.clients.gemini.settings import effective, settings_layers

    write(root_owned / "system-defaults.json", json.dumps({"tools": {"callCommand": "defaults-call"}}))
    write(root_owned / "settings.json", json.dumps({"policyPaths": ["/etc/shared-rules"]}))
    monkeypatch.setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", str(root_owned / "settings.json"))
    user_settings({"tools": {"discoveryCommand": "user-discover"}, "policyPaths": ["~/my-rules"]})
    write(project / ".gemini" / "settings.json", '{"tools": {"discoveryCommand": "$PROJECT_DISCOVER"}}')
    monkeypatch.setenv("PROJECT_DISCOVER", "workspace-discover")
    layers = settings_layers(project, os.environ)
    assert [layer.scope for layer in layers] == ["system-defaults", "user", "workspace", "system"]
    discovery = effective(layers, "tools", "discoveryCommand")
    assert discovery is not None and (discovery.value, discovery.layer.scope) == ("workspace-discover", "workspace")
    call_command = effective(layers, "tools", "callCommand")
    assert call_command is not None and call_command.layer.path == root_owned / "system-defaults.json"
    assert [str(path) for path, _ in policy_sources(layers, project, os.environ).user] == [
        f"{os.environ['HOME']}/my-rules",
        "/etc/shared-rules",
    ]
    # the system file wins over the workspace's
    write(root_owned / "settings.json", json.dumps({"tools": {"discoveryCommand": "system-discover"}}))
    discovery = effective(settings_layers(project, os.environ), "tools", "discoveryCommand")
    assert discovery is not None and (discovery.value, discovery.layer.scope) == ("system-discover", "system")
    # ... unless someone but root could have written it: then Gemini CLI skips it
    loose = write(tmp_path / "loose" / "settings.json", json.dumps({"tools": {"discoveryCommand": "loose"}}))
    monkeypatch.setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", str(loose))
    layers = settings_layers(project, os.environ)
    assert layers[-1].skipped is not None and "writable by group or others" in layers[-1].skipped
    discovery = effective(layers, "tools", "discoveryCommand")
    assert discovery is not None and discovery.value == "workspace-discover"


def test_doctor_names_the_file_a_command_comes_from(
    project: Path, cli: Cli, root_owned: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(root_owned / "settings.json", json.dumps({"tools": {"callCommand": "cogtools-call"}}))
    monkeypatch.setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", str(root_owned / "settings.json"))
    user_settings({"tools": {"discoveryCommand": "cogtools-discover"}})
    (project / ".gemini").mkdir(exist_ok=True)
    found = doctor(cli, "--no-discovery")
    assert found["settings"][0]["message"].endswith(f"the discovery command comes from {user_settings_path()}")
    commands = [finding["message"] for finding in found["commands"]]
    assert f"tools.discoveryCommand 'cogtools-discover' (from {user_settings_path()}) runs" in commands[0]
    assert f"tools.callCommand 'cogtools-call' (from {root_owned / 'settings.json'}) runs" in commands[1]


def test_doctor_says_when_the_system_settings_override_the_projects(
    project: Path, cli: Cli, root_owned: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_project(project, {"hello": HELLO}, '{"tools": {"discoveryCommand": "cogtools-discover"}}')
    write(root_owned / "settings.json", json.dumps({"tools": {"discoveryCommand": "/opt/site/discover"}}))
    monkeypatch.setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", str(root_owned / "settings.json"))
    found = doctor(cli, "--no-discovery")
    [warning] = [f for f in found["settings"] if f["status"] == "warning"]
    assert warning["message"] == (
        f"tools.discoveryCommand 'cogtools-discover' of {project / '.gemini' / 'settings.json'} is overridden by"
        f" '/opt/site/discover' of {root_owned / 'settings.json'} (system settings, which Gemini CLI merges last)"
    )
    assert found["commands"][0]["status"] == "problem" and "/opt/site/discover" in found["commands"][0]["message"]
    result = cli(porcelain.main, "init", "--non-interactive", str(project / "other"))
    assert (
        f"note: tools.discoveryCommand is set to '/opt/site/discover' in {root_owned / 'settings.json'}, the system"
        " settings, which Gemini CLI merges last: it, not the project's, runs"
    ) in result.stdout.splitlines()


def user_settings_path() -> Path:
    return Path(os.environ["HOME"]) / ".gemini" / "settings.json"


def doctor(cli: Cli, *argv: str) -> dict[str, list[dict[str, str]]]:
    result = cli(porcelain.main, "doctor", "--format", "json", *argv)
    by_check: dict[str, list[dict[str, str]]] = {}
    for finding in json.loads(result.stdout)["findings"]:
        by_check.setdefault(finding["check"], []).append(finding)
    return by_check


# -- which mechanism --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "policy_engine"), [(None, True), ("0.29.9", False), ("0.30.0", True), ("0.61.0", True)]
)
def test_the_mechanism_follows_the_gemini_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: str | None, policy_engine: bool
) -> None:
    """No process is started: the package.json of the gemini PATH finds says its version."""
    from cogtools.clients.gemini.install import mechanism

    if version is not None:
        monkeypatch.setenv("PATH", f"{installed_gemini(tmp_path / 'g', version)}{os.pathsep}{os.environ['PATH']}")
    found = mechanism(os.environ)
    assert found.policy_engine is policy_engine
    assert (version or "no `gemini` on PATH") in found.why


# -- sync and init ----------------------------------------------------------------------------------

OLD_SETTINGS = """\
{
  // the person's own comment
  "tools": {
    "discoveryCommand": "cogtools-discover",
    "callCommand": "cogtools-call",
    "allowed": ["run_shell_command(git status)", "discovered_tool_hello", "discovered_tool_cogtools_problems"]
  }
}
"""


def test_sync_moves_what_it_wrote_into_tools_allowed_to_a_rules_file_of_the_users(project: Path, cli: Cli) -> None:
    """A project an older cogtools synced: its entries leave tools.allowed (the person's stays,
    and every comment), and a rules file outside the workspace, private, allows exactly the
    pinned tools above the shipped default for discovered tools."""
    make_project(project, {"hello": HELLO, "act": ACT}, OLD_SETTINGS)
    write(
        project / ".gemini" / "cogtools-allowed.json",
        '{"allowed": ["discovered_tool_hello", "discovered_tool_cogtools_problems"]}',
    )
    result = cli(porcelain.main, "sync", "--yes")
    assert result.status == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == (
        "updated .gemini/settings.json (Policy Engine rules: 1 diagnostic tool and cogtools_problems;"
        " moved 2 entries cogtools wrote out of tools.allowed; 1 pinned)"
    )
    path = rules_file(project)
    assert lines[1].startswith(f"created {path} (Policy Engine rules, user-wide; ")
    assert "note: tools.allowed is still set in" in lines[2]  # the person's own entry: they are told
    settings = (project / ".gemini" / "settings.json").read_text()
    assert "// the person's own comment" in settings and '"run_shell_command(git status)"' in settings
    assert "discovered_tool" not in settings
    text = path.read_text()
    assert text.startswith(f'# Gemini CLI Policy Engine rules for the cogtools project at "{project}".')
    assert path.name.startswith(f"cogtools-{project.name}-") and path.stat().st_mode & 0o777 == 0o600
    from cogtools.clients.gemini.rules import read_rules

    assert [(r.tool, r.decision, r.priority) for r in read_rules(path)] == [
        ("discovered_tool_hello", "allow", 100),
        ("discovered_tool_cogtools_problems", "allow", 100),
    ]
    before = text
    again = cli(porcelain.main, "sync").stdout
    assert again.startswith("unchanged .gemini/settings.json") and f"unchanged {path}" in again
    assert path.read_text() == before


def test_a_tool_left_out_has_no_rule_and_one_made_an_action_tool_loses_it(project: Path, cli: Cli) -> None:
    make_project(project, {"hello": HELLO})
    assert cli(porcelain.main, "sync").status == 0  # nobody to ask: hello is left out
    assert allowed_by_rules(project) == ["discovered_tool_cogtools_problems"]
    assert cli(porcelain.main, "sync", "--yes").status == 0
    assert allowed_by_rules(project) == ["discovered_tool_hello", "discovered_tool_cogtools_problems"]
    write(project / "tools" / "hello.yaml", ACT)
    assert cli(porcelain.main, "sync", "--yes").status == 0
    assert allowed_by_rules(project) == ["discovered_tool_cogtools_problems"]


def test_with_a_gemini_cli_before_the_policy_engine_sync_writes_tools_allowed_again(
    project: Path, cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_project(project, {"hello": HELLO})
    assert cli(porcelain.main, "sync", "--yes").status == 0 and rules_file(project).exists()
    old = installed_gemini(tmp_path / "old", "0.29.0")
    monkeypatch.setenv("PATH", f"{old}{os.pathsep}{os.environ['PATH']}")
    result = cli(porcelain.main, "sync", "--yes")
    assert result.stdout.startswith("updated .gemini/settings.json (tools.allowed: 1 diagnostic tool")
    assert f"removed {rules_file(project)} (Gemini CLI 0.29.0 (" in result.stdout
    assert not rules_file(project).exists()
    assert unasked_names(project) == ["discovered_tool_hello", "discovered_tool_cogtools_problems"]
    assert cli(call.main, "hello").stdout == f"hello from {project.name}"


def test_a_discovery_command_set_for_the_user_counts(project: Path, cli: Cli) -> None:
    make_project(project, {"hello": HELLO}, settings=None)
    result = cli(porcelain.main, "sync", "--yes")
    assert "no .gemini/settings.json: no tools.allowed" in result.stdout and not rules_file(project).exists()
    user_settings({"tools": {"discoveryCommand": "cogtools-discover", "callCommand": "cogtools-call"}})
    result = cli(porcelain.main, "sync", "--yes")
    assert result.stdout.startswith("no .gemini/settings.json (the user's settings set the commands)")
    assert allowed_by_rules(project) == ["discovered_tool_hello", "discovered_tool_cogtools_problems"]
    assert not (project / ".gemini").exists()  # nothing written in the workspace
    assert cli(call.main, "hello").stdout == f"hello from {project.name}"


def test_the_rules_file_is_never_written_in_the_workspace(
    project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_project(project, {"hello": HELLO})
    monkeypatch.setenv("GEMINI_CLI_HOME", str(project))
    result = cli(porcelain.main, "sync", "--yes")
    assert result.status == 7 and "inside the project, which the agent can write" in result.stderr
    assert not (project / ".gemini" / "policies").exists()
    monkeypatch.setenv("GEMINI_CLI_HOME", str(project / "sub"))
    result = cli(porcelain.main, "init", str(project / "sub"), "--non-interactive")
    assert result.status == 7 and not (project / "sub").exists()  # checked before the first write


# -- a rule is user-wide ------------------------------------------------------------------------------


def test_a_rule_is_user_wide_and_the_missing_pin_refuses(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Project one's rule lets Gemini CLI run project two's tool of the same name unasked:
    cogtools refuses it there, naming the rule, until a person pins it for project two."""
    from .test_cli import assert_error

    one = make_project(tmp_path / "one", {"hello": HELLO})
    two = make_project(tmp_path / "two", {"hello": DIVERT})
    monkeypatch.chdir(one)
    assert cli(porcelain.main, "sync", "--yes").status == 0
    monkeypatch.chdir(two)
    error = assert_error(cli(call.main, "hello"), "POLICY_DENIED", "never reviewed it for this project")
    assert str(rules_file(one)) in error["message"] and error["details"]["reason"] == "not_pinned"
    # (the newcomer's finding: the message said nothing of whose the rule is, nor what to do)
    assert f"That rule is another project's ({rules_file(one).name})" in error["message"], error
    assert "rename one of the two tools" in error["message"], error
    found = doctor(cli, "--no-discovery")
    [missing, refused] = [f for f in found["allowed"] if f["status"] == "problem"]
    assert "does not exist" in missing["message"]  # two was never synced: no rules file of its own
    assert refused["message"].startswith("hello: Gemini CLI runs it unasked (a rule in ")
    assert "rules are user-wide" in refused["message"] and "rename the tool" in refused["fix"]
    assert cli(call.main, "act").status != 8  # a tool no rule names runs as before (here: unknown)
    assert cli(porcelain.main, "sync", "--yes").status == 0  # reviews two's hello, and pins it
    assert cli(call.main, "hello").stdout == "diverted"


@pytest.mark.slow
def test_a_rule_for_gemini_clis_discovered_tool_does_not_refuse_the_same_name_over_mcp(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(Gemini CLI's rules name the tools of its discovery command, discovered_tool_NAME: a call
    over MCP, Claude Code's or any other client's, is none of theirs, and was refused in every
    project that had a tool of a name another project's rules allowed)"""
    from .test_cli import assert_error
    from .test_mcp import session, text_of

    one = make_project(tmp_path / "one", {"hello": HELLO})
    two = make_project(tmp_path / "two", {"hello": DIVERT})
    monkeypatch.chdir(one)
    assert cli(porcelain.main, "sync", "--yes").status == 0
    monkeypatch.chdir(two)
    assert_error(cli(call.main, "hello"), "POLICY_DENIED", "never reviewed it for this project")

    async def body(client: t.Any) -> t.Any:
        return await client.call_tool("hello", {})

    result = session(two, body)
    assert not result.is_error and text_of(result) == "diverted"


def test_a_rule_the_workspace_names_through_policy_paths_runs_nothing_unpinned(project: Path, cli: Cli) -> None:
    """A trusted workspace's settings can name rule files (policyPaths, read in the user tier):
    what they let through is refused unless pinned, and doctor says the workspace does it."""
    from .test_cli import assert_error

    make_project(project, {"hello": HELLO, "act": ACT})
    assert cli(porcelain.main, "sync", "--yes").status == 0
    write(
        project / ".gemini" / "mine" / "rules.toml",
        '[[rule]]\ntoolName = "discovered_tool_act"\ndecision = "allow"\npriority = 999\n',
    )
    write(project / ".gemini" / "settings.json", '{"policyPaths": [".gemini/mine"]}')
    error = assert_error(cli(call.main, "act"), "POLICY_DENIED", "never reviewed")
    assert ".gemini/mine/rules.toml" in error["message"]
    found = doctor(cli, "--no-discovery")
    messages = [f["message"] for f in found["allowed"]]
    assert any("sets policyPaths: rules the agent can write there" in m for m in messages)
    assert any(m.startswith("policyPaths (set in ") and "does not read" in m for m in messages)


def test_policy_paths_of_the_users_replace_the_policies_directory(project: Path, cli: Cli) -> None:
    make_project(project, {"hello": HELLO})
    user_settings({"policyPaths": ["~/elsewhere"]})
    result = cli(porcelain.main, "sync", "--yes")
    assert f"warning: policyPaths (set in {user_settings_path()}) replaces" in result.stdout
    found = doctor(cli, "--no-discovery")
    [problem] = [f for f in found["allowed"] if f["status"] == "problem"]
    assert f"add {rules_file(project).parent} to policyPaths" in problem["fix"]
    user_settings({"policyPaths": [str(rules_file(project).parent)]})
    assert "warning" not in cli(porcelain.main, "sync").stdout
