"""``cogtools doctor``: every broken link between a project and Gemini CLI, found and explained.
Each test breaks one link of a project that ``cogtools init`` made, as a person would.

``cogtools doctor`` runs in process (``cli``); ``test_an_mcp_entry_whose_cogtools_is_not_on_path_is_a_problem``
keeps the real ``cogtools`` process (init and doctor, on the PATH the process is given), and doctor
itself starts the real ``cogtools-discover`` wherever discovery is checked. A test of a check that
discovery has no part in runs doctor with ``--no-discovery`` (one ``cogtools-discover`` less a run)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from cogtools.cli import porcelain
from cogtools.services.doctor import is_path_trusted, satisfies

from .conftest import BIN, Cli, run_script, write

INIT = ("init", "--non-interactive")


@pytest.fixture
def ready(isolated: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project made by ``cogtools init``, its folder trusted, cogtools on PATH."""
    monkeypatch.setenv("PATH", os.pathsep.join([str(BIN), "/usr/bin", "/bin"]))
    assert cli(porcelain.main, *INIT).status == 0
    write(Path(os.environ["HOME"]) / ".gemini" / "trustedFolders.json", json.dumps({str(isolated): "TRUST_FOLDER"}))
    return isolated


def doctor(cli: Cli, *argv: str) -> tuple[int, dict[str, list[dict[str, str]]]]:
    result = cli(porcelain.main, "doctor", "--format", "json", *argv)
    document = json.loads(result.stdout)
    by_check: dict[str, list[dict[str, str]]] = {}
    for finding in document["findings"]:
        by_check.setdefault(finding["check"], []).append(finding)
    assert document["problems"] == sum(f["status"] == "problem" for f in document["findings"])
    return result.status, by_check


def statuses(by_check: dict[str, list[dict[str, str]]]) -> dict[str, set[str]]:
    return {check: {f["status"] for f in found} for check, found in by_check.items()}


def test_a_fresh_project_is_well(ready: Path, cli: Cli) -> None:
    status, found = doctor(cli, "--test")
    assert status == 0, found
    assert statuses(found) == {
        "project": {"ok"}, "tools": {"ok"}, "settings": {"ok"}, "commands": {"ok"}, "trust": {"ok"},
        "allowed": {"ok"}, "pins": {"ok"}, "GEMINI.md": {"ok"}, "node": {"warning"}, "discovery": {"ok"},
        "examples": {"ok"},
    }  # fmt: skip
    assert "printed 1 declaration in" in found["discovery"][0]["message"]
    assert found["examples"][0]["message"] == "2 examples passed"
    text = cli(porcelain.main, "doctor").stdout
    assert text.startswith("ok       project: root ") and text.endswith("0 problems, 1 warning\n")


def test_a_typo_in_the_configuration(ready: Path, cli: Cli) -> None:
    write(ready / ".cogtoolrc.yaml", "tool_source:\n  - local: ./tools\n")
    status, found = doctor(cli, "--no-discovery")
    assert status == 1
    [finding] = found["project"]
    assert finding["status"] == "problem" and "did you mean 'tool_sources'" in finding["message"]


def test_a_broken_configuration_does_not_hide_the_other_problems(ready: Path, cli: Cli) -> None:
    """Independent problems are found in one run: a configuration that does not load, and a
    discovery command Gemini CLI cannot spawn."""
    write(ready / ".cogtoolrc.yaml", "env_priority: banana\n")
    write(
        ready / ".gemini" / "settings.json",
        json.dumps({"tools": {"discoveryCommand": "no-such-discover", "callCommand": "cogtools-call"}}),
    )
    status, found = doctor(cli, "--no-discovery")
    assert status == 1
    assert found["project"][0]["status"] == "problem" and "banana" in found["project"][0]["message"]
    spawn = [f for f in found["commands"] if f["status"] == "problem"]
    assert spawn and "no-such-discover" in spawn[0]["message"]
    assert found["trust"][0]["status"] == "ok"


def test_an_example_the_role_may_not_run_says_how_to_run_it(ready: Path, cli: Cli) -> None:
    write(
        ready / "tools" / "restart.yaml",
        "description: Restart.\nimplementation: done\nmin_role: admin\nexamples:\n  - {}\n",
    )
    status, found = doctor(cli, "--test", "--no-discovery")
    [failed] = [f for f in found["examples"] if f["message"].startswith("restart[0]")]
    assert "POLICY_DENIED" in failed["message"] and "cogtools test --role ROLE restart" in failed["fix"]


def test_a_broken_definition_is_counted_and_named(ready: Path, cli: Cli) -> None:
    write(ready / "tools" / "broken.yaml", "description: [\n")
    status, found = doctor(cli)
    assert status == 1
    assert found["tools"][0]["message"] == "1 tool from 2 sources; 1 broken definition"
    assert "broken.yaml" in found["definition"][0]["message"] and "cogtools lint" in found["definition"][0]["fix"]
    # the discovery command still succeeds, and offers the tool that names the problem
    assert "printed 2 declarations" in found["discovery"][0]["message"]


def test_commands_that_gemini_cannot_spawn(ready: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    status, found = doctor(cli)
    assert status == 1
    assert [f["status"] for f in found["commands"]] == ["problem", "problem"]
    assert "Gemini CLI will not start" in found["commands"][0]["message"]
    assert "pipx install or uv tool install of the Python package" in found["commands"][0]["fix"]
    assert "discovery" not in found  # not run: its problem is said already


@pytest.mark.parametrize(
    ("command", "fragment"),
    [("false", "exited with status 1"), ("echo hello", "its output is not JSON"), ("echo {}", "not a JSON array")],
)
def test_a_discovery_command_that_fails(ready: Path, cli: Cli, command: str, fragment: str) -> None:
    settings = ready / ".gemini" / "settings.json"
    settings.write_text(settings.read_text().replace('"cogtools-discover"', json.dumps(command)))
    status, found = doctor(cli)
    assert status == 1 and fragment in found["discovery"][0]["message"], found["discovery"]


def test_settings_gemini_cannot_read(ready: Path, cli: Cli) -> None:
    write(ready / ".gemini" / "settings.json", '{"tools": {"discoveryCommand": "cogtools-discover",},}\n')
    status, found = doctor(cli)
    assert status == 1 and "no trailing commas" in found["settings"][0]["message"]


def test_no_settings_at_all(ready: Path, cli: Cli) -> None:
    (ready / ".gemini" / "settings.json").unlink()
    status, found = doctor(cli)
    assert status == 1 and "cogtools init" in found["settings"][0]["fix"]


@pytest.mark.parametrize(
    ("rules", "trusted"),
    [
        ({}, None),
        ({"{root}": "DO_NOT_TRUST"}, False),
        ({"{root}/sub": "TRUST_PARENT"}, True),
        ({"{parent}": "TRUST_FOLDER", "{root}": "DO_NOT_TRUST"}, False),
        ({"{parent}": "DO_NOT_TRUST", "{root}": "TRUST_FOLDER"}, True),
        ({"{root}-other": "TRUST_FOLDER"}, None),
    ],
)
def test_folder_trust_as_gemini_decides_it(isolated: Path, rules: dict[str, str], trusted: bool | None) -> None:
    filled = {k.format(root=isolated, parent=isolated.parent): v for k, v in rules.items()}
    assert is_path_trusted(isolated, filled) is trusted


def test_an_untrusted_folder_and_how_to_trust_it(ready: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    trusted = Path(os.environ["HOME"]) / ".gemini" / "trustedFolders.json"
    trusted.unlink()
    status, found = doctor(cli, "--no-discovery")
    assert status == 1
    assert found["trust"][0]["status"] == "problem"
    assert f'add "{ready}": "TRUST_FOLDER" to {trusted}' in found["trust"][0]["fix"]
    monkeypatch.setenv("GEMINI_CLI_TRUST_WORKSPACE", "true")
    assert doctor(cli, "--no-discovery")[1]["trust"][0]["status"] == "ok"
    monkeypatch.delenv("GEMINI_CLI_TRUST_WORKSPACE")
    write(trusted, "{not json")
    assert "Gemini CLI stops at start-up" in doctor(cli, "--no-discovery")[1]["trust"][0]["message"]


def test_allowed_and_gemini_md_out_of_step(ready: Path, cli: Cli) -> None:
    write(
        ready / "tools" / "look.yaml", "description: Look.\nside_effects: []\nrisk_level: low\nimplementation: seen\n"
    )
    status, found = doctor(cli, "--no-discovery")
    assert status == 0  # warnings only
    [step] = [finding for finding in found["allowed"] if finding["status"] == "warning"]
    assert "missing look" in step["message"] and step["fix"] == "run `cogtools sync`"
    assert found["allowed"][0]["message"].startswith("Policy Engine rules in ")  # the mechanism in force
    assert found["GEMINI.md"][0]["status"] == "warning"
    assert cli(porcelain.main, "doctor", "--strict", "--no-discovery").status == 1
    cli(porcelain.main, "sync", "--yes")
    assert (
        doctor(cli, "--no-discovery")[0] == 0
        and cli(porcelain.main, "doctor", "--strict", "--no-discovery").status == 1
    )  # node: no gemini


def test_a_changed_allowed_tool_is_refused_and_said(ready: Path, cli: Cli) -> None:
    hello = ready / "tools" / "hello.yaml"
    hello.write_text(hello.read_text().replace("Greet someone", "Greet anyone"))
    status, found = doctor(cli, "--no-discovery")
    assert status == 1
    [refused] = [f for f in found["allowed"] if f["status"] == "problem"]
    assert refused["message"].startswith("hello: calls are refused") and "cogtools sync" in refused["fix"]


def test_node_too_old_for_the_installed_gemini(
    ready: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    package = tmp_path / "lib" / "node_modules" / "@google" / "gemini-cli"
    write(
        package / "package.json",
        json.dumps({"name": "@google/gemini-cli", "version": "9.9.9", "engines": {"node": ">=99"}}),
    )
    write(package / "dist" / "index.js", "#!/usr/bin/env node\n", mode=0o755)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "gemini").symlink_to(package / "dist" / "index.js")
    monkeypatch.setenv("PATH", os.pathsep.join([str(bin_dir), os.environ["PATH"]]))
    status, found = doctor(cli, "--no-discovery")
    assert status == 1
    assert found["node"][0]["message"].startswith("Gemini CLI 9.9.9 needs node >=99; ")


def test_a_failing_example_with_test(ready: Path, cli: Cli) -> None:
    write(ready / "tools" / "bad.yaml", "description: Bad.\nexamples:\n  - {}\nimplementation: '{{ 1 // 0 }}'\n")
    status, found = doctor(cli, "--test", "--no-discovery")
    assert status == 1 and found["examples"][0]["message"].startswith("bad[0]: RENDER_FAILED")


@pytest.mark.parametrize(
    ("version", "wanted", "met"),
    [("v20.20.2", ">=20", True), ("v18.1.0", ">=20", False), ("v19.1.0", ">=18 <20", True), ("v20.3.1", "^20.3", True),
     ("v21.0.0", "^20.3", False), ("v20.9.0", "20.x", True), ("v22.0.0", "18 || >=22", True), ("v20.0.0", "~20.1", False)],
)  # fmt: skip
def test_node_ranges(version: str, wanted: str, met: bool) -> None:
    assert satisfies(version, wanted) is met


@pytest.mark.slow
def test_a_discovery_command_that_floods_or_hangs(ready: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """Output past Gemini CLI's limit is measured on disk, not read into memory; a command that
    never ends is stopped with everything it started."""
    from cogtools.services import doctor as core

    settings = ready / ".gemini" / "settings.json"
    original = settings.read_text()
    settings.write_text(original.replace('"cogtools-discover"', json.dumps("head -c 11000000 /dev/zero")))
    found = doctor(cli)[1]["discovery"][0]
    assert "printed 11000000 bytes, past Gemini CLI's limit" in found["message"]
    monkeypatch.setattr(core, "DISCOVERY_TIMEOUT", 1.0)
    pidfile = ready / "child.pid"
    script = write(ready / "hang.sh", f"#!/bin/sh\nsleep 300 &\necho $! > {pidfile}\nwait\n", mode=0o755)
    settings.write_text(original.replace('"cogtools-discover"', json.dumps(str(script))))
    found = doctor(cli)[1]["discovery"][0]
    assert "ran past 1 s" in found["message"]
    stat = Path(f"/proc/{int(pidfile.read_text())}/stat")
    time.sleep(0.2)
    assert not stat.exists() or stat.read_text().split(") ")[1].startswith("Z")  # gone, or dead unreaped


def test_doctor_says_when_a_pinned_script_would_be_read_again(
    ready: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without bubblewrap (or user namespaces), a pinned script is read again by path after its
    check: doctor warns, and says what to install."""
    from cogtools.run import bind

    monkeypatch.setattr(bind, "BWRAP_PATHS", ("/nonexistent/bwrap",))
    bind.bwrap.cache_clear()
    try:
        status, found = doctor(cli, "--no-discovery")
    finally:
        bind.bwrap.cache_clear()
    [finding] = found["pins"]
    assert finding["status"] == "warning" and "install bubblewrap" in finding["fix"]


# -- papercuts (issue 43): what doctor said ok of ------------------------------------------------


def test_a_policy_engine_rules_file_that_does_not_exist_is_a_problem(ready: Path, cli: Cli) -> None:
    """The finding: doctor printed "ok allowed: Policy Engine rules in FILE" with no such file."""
    rules = next((Path(os.environ["HOME"]) / ".gemini" / "policies").glob("cogtools-*.toml"))
    rules.unlink()
    status, found = doctor(cli, "--no-discovery")
    assert status == 1
    [problem] = [f for f in found["allowed"] if f["status"] == "problem"]
    assert f"the Policy Engine rules file {rules} does not exist" in problem["message"], problem
    assert "hello" in problem["message"] and problem["fix"] == "run `cogtools sync`, which writes it"
    assert not [f for f in found["allowed"] if f["status"] == "ok"], found["allowed"]  # nothing says it is there
    assert cli(porcelain.main, "sync", "--yes").status == 0
    status, found = doctor(cli, "--no-discovery")
    assert {f["status"] for f in found["allowed"]} == {"ok"}, found["allowed"]


@pytest.mark.parametrize(
    ("command", "said"),
    [
        ("cogtols", "'cogtols' is not found on this PATH (did you mean 'cogtools'?)"),
        ("cogtools-discover", "cogtools-discover is Gemini CLI's command; an MCP client starts `cogtools mcp`"),
    ],
)
def test_an_mcp_entry_named_cogtools_that_does_not_start_it_is_a_problem(
    ready: Path, cli: Cli, command: str, said: str
) -> None:
    """The finding: an entry named cogtools whose command had a typo was not cogtools' to doctor,
    which said nothing of it. It is not started (it is not cogtools)."""
    assert cli(porcelain.main, *INIT, "--mcp", "claude-code").status == 0
    path = ready / ".mcp.json"
    path.write_text(path.read_text().replace('"command": "cogtools"', f'"command": "{command}"'))
    status, found = doctor(cli, "--no-discovery")
    assert status == 1
    [problem] = [f for f in found["mcp"] if f["status"] == "problem"]
    assert f"server 'cogtools' does not start `cogtools mcp` ({command} mcp)" in problem["message"], problem
    assert said in problem["message"] and "cogtools init --mcp claude-code --force" in problem["fix"], problem


def test_an_mcp_entry_whose_cogtools_is_not_on_path_is_a_problem(ready: Path) -> None:
    assert run_script("cogtools", *INIT, "--mcp", "claude-code", cwd=ready).status == 0
    done = run_script("cogtools", "doctor", "--no-discovery", cwd=ready, env={**os.environ, "PATH": "/usr/bin:/bin"})
    assert done.status == 1 and "problem  mcp: Claude Code cannot start 'cogtools'" in done.stdout, done.stdout
