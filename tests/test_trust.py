"""The trust model (DESIGN §11, issue 11): what the agent can write (the workspace) cannot raise
what it may run; a tool allowed to run without confirmation is pinned to what a person allowed;
every way of running a tool checks policy; the files cogtools writes keep what they were."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from cogtools.cli import call, porcelain, yaml_cmd
from cogtools.core.jsonc import strip_comments

from .conftest import Cli, run_script, write
from .test_cli import STATUS, assert_error
from .test_gemini_policy import allowed_by_rules

LOOK = "description: Look around.\nrisk_level: low\nside_effects: [filesystem_read]\nimplementation: looked\n"
ACT = "description: Change things.\nrisk_level: medium\nside_effects: [process]\nimplementation: acted\n"


@pytest.fixture
def gemini_project(project: Path, cli: Cli) -> Path:
    """A project whose diagnostic tool ``look`` is in tools.allowed, synced by a person."""
    write(project / "tools" / "look.yaml", LOOK)
    write(project / "tools" / "act.yaml", ACT)
    write(project / ".gemini" / "settings.json", "{}\n")
    assert cli(porcelain.main, "sync", "--yes").status == 0
    assert allowed_by_rules(project) == ["discovered_tool_look", "discovered_tool_cogtools_problems"]
    return project


def pins_files(home_state: Path) -> list[Path]:
    return sorted((home_state / "cogtools" / "pins").glob("*.json"))


def test_an_allowed_tool_runs_while_it_is_what_was_allowed(gemini_project: Path, cli: Cli) -> None:
    assert cli(call.main, "look") == (0, "looked", "")
    write(gemini_project / "tools" / "look.yaml", LOOK.replace("looked", "rm -rf, of course"))
    result = cli(call.main, "look")
    error = assert_error(result, "POLICY_DENIED", "changed since it was allowed")
    assert error["details"]["reason"] == "changed" and "cogtools sync" in error["message"]
    assert cli(porcelain.main, "sync", "--yes").status == 0  # a person reviewed it
    assert cli(call.main, "look") == (0, "rm -rf, of course", "")


def test_a_new_file_that_shadows_an_allowed_tool_is_refused(gemini_project: Path, cli: Cli) -> None:
    # A marked file in the project root wins over tools/: the agent could drop one there.
    write(
        gemini_project / "look.yaml",
        "$schema: schema:agladysh-research.org,2025/cogtools:tool\n" + LOOK.replace("looked", "evil"),
    )
    error = assert_error(cli(call.main, "look"), "POLICY_DENIED", "is now defined in look.yaml")
    assert error["details"] == {
        "reason": "shadowed",
        "allowed_file": "tools/look.yaml",
        "file": "look.yaml",
        "change": "it is now defined in look.yaml, not tools/look.yaml",
    }


def test_a_tool_the_agent_adds_to_tools_allowed_is_refused(gemini_project: Path, cli: Cli) -> None:
    settings = gemini_project / ".gemini" / "settings.json"
    document = json.loads(settings.read_text())
    document.setdefault("tools", {}).setdefault("allowed", []).append("discovered_tool_act")
    # with a comment, as Gemini CLI allows: still read
    settings.write_text("// the agent was here\n" + json.dumps(document))
    error = assert_error(cli(call.main, "act"), "POLICY_DENIED", "never reviewed")
    assert error["details"]["reason"] == "not_pinned"


def test_a_tool_that_is_not_allowed_runs_as_before(gemini_project: Path, cli: Cli) -> None:
    # Gemini CLI asks the person before each call of it; a change needs no sync.
    write(gemini_project / "tools" / "act.yaml", ACT.replace("acted", "acted again"))
    assert cli(call.main, "act") == (0, "acted again", "")


def test_the_meta_tool_meets_the_same_pins(gemini_project: Path, cli: Cli) -> None:
    write(gemini_project / "tools" / "look.yaml", LOOK.replace("looked", "changed"))
    result = cli(call.main, "cogtools_call", stdin='{"name": "look"}')
    assert_error(result, "POLICY_DENIED", "changed since it was allowed")


def test_pins_live_outside_the_project_and_are_private(gemini_project: Path) -> None:
    state = Path(os.environ["HOME"]) / ".local" / "state"
    files = pins_files(state)
    assert len(files) == 1
    assert stat.S_IMODE(files[0].stat().st_mode) == 0o600
    assert stat.S_IMODE(files[0].parent.stat().st_mode) == 0o700
    assert json.loads(files[0].read_text())["pins"]["look"]["path"] == "tools/look.yaml"
    assert not any("pins" in str(p.relative_to(gemini_project)) for p in gemini_project.rglob("*"))


def test_pins_writable_by_others_are_not_trusted(gemini_project: Path, cli: Cli) -> None:
    state = Path(os.environ["HOME"]) / ".local" / "state"
    pins = pins_files(state)[0]
    pins.chmod(0o666)
    # unreadable pins mean no pins: the allowed tool is refused, never run unchecked
    assert_error(cli(call.main, "look"), "POLICY_DENIED", "never reviewed")


def test_json_comments_are_stripped_outside_strings() -> None:
    text = '{"a": "// not a comment", /* gone */ "b": "/* kept */"} // gone\n'
    assert json.loads(strip_comments(text)) == {"a": "// not a comment", "b": "/* kept */"}


def test_cogtools_yaml_answers_to_the_callers_policy_too(project: Path, cli: Cli, tmp_path: Path) -> None:
    write(project / ".cogtoolrc.yaml", "policy:\n  denied_categories: [Billing]\n")
    bill = write(project / "tools" / "bill.yaml", "description: Bill.\ncategory: billing\nimplementation: billed\n")
    assert cli(yaml_cmd.main, str(bill)).status == STATUS["POLICY_DENIED"]
    outside = tmp_path / "elsewhere"
    copy = write(outside / "bill.yaml", bill.read_text())
    assert cli(yaml_cmd.main, str(copy)).status == STATUS["POLICY_DENIED"]
    link = outside / "link.yaml"
    link.symlink_to(bill)
    assert cli(yaml_cmd.main, str(link)).status == STATUS["POLICY_DENIED"]


def test_cogtools_test_runs_under_policy(project: Path, cli: Cli) -> None:
    write(
        project / "tools" / "admin.yaml", "description: Admin.\nmin_role: admin\nexamples: [{}]\nimplementation: done\n"
    )
    result = cli(porcelain.main, "test")
    assert result.status == 1
    assert "FAIL admin[0]: POLICY_DENIED" in result.stdout
    write(
        project / "tools" / "admin.yaml",
        "description: Admin.\nmin_role: admin\nexamples: [{arguments: {}, expect: {error: POLICY_DENIED}}]\nimplementation: done\n",
    )
    assert cli(porcelain.main, "test").stdout.startswith("PASS admin[0]")


# The files cogtools writes


def test_sync_writes_through_a_symlinked_gemini_md(project: Path, cli: Cli) -> None:
    write(project / "tools" / "look.yaml", LOOK)
    write(project / "AGENTS.md", "# Agents\n\nBe nice.\n")
    (project / "GEMINI.md").symlink_to("AGENTS.md")
    assert cli(porcelain.main, "sync").status == 0
    assert (project / "GEMINI.md").is_symlink()
    text = (project / "AGENTS.md").read_text()
    assert text.startswith("# Agents\n\nBe nice.\n") and "discovered_tool_look" in text


def test_sync_keeps_crlf_line_endings(project: Path, cli: Cli) -> None:
    write(project / "tools" / "look.yaml", LOOK)
    (project / "GEMINI.md").write_bytes(b"# Notes\r\n\r\nKeep these.\r\n")
    assert cli(porcelain.main, "sync").status == 0
    data = (project / "GEMINI.md").read_bytes()
    assert data.startswith(b"# Notes\r\n\r\nKeep these.\r\n") and b"discovered_tool_look" in data
    assert data.count(b"\n") == data.count(b"\r\n")
    assert cli(porcelain.main, "sync").stdout.endswith("unchanged GEMINI.md\n")


def test_markers_quoted_in_prose_are_text(project: Path, cli: Cli) -> None:
    write(project / "tools" / "look.yaml", LOOK)
    prose = "cogtools writes its table between `<!-- cogtools:tools:begin` and `<!-- cogtools:tools:end -->` markers.\n"
    write(project / "GEMINI.md", prose)
    assert cli(porcelain.main, "sync").status == 0
    text = (project / "GEMINI.md").read_text()
    assert text.startswith(prose) and "discovered_tool_look" in text


def test_a_read_only_gemini_md_is_left_alone(project: Path, cli: Cli) -> None:
    write(project / "tools" / "look.yaml", LOOK)
    path = write(project / "GEMINI.md", "# Mine\n")
    path.chmod(0o444)
    result = cli(porcelain.main, "sync")
    assert result.status == STATUS["CONFIG_INVALID"] and "read-only" in result.stderr
    assert path.read_text() == "# Mine\n" and stat.S_IMODE(path.stat().st_mode) == 0o444


def test_new_files_get_the_umask_mode(project: Path, cli: Cli) -> None:
    write(project / "tools" / "look.yaml", LOOK)
    old = os.umask(0o027)
    try:
        assert cli(porcelain.main, "sync").status == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE((project / "GEMINI.md").stat().st_mode) == 0o640


def test_a_process_call_is_refused_as_in_process(gemini_project: Path) -> None:
    write(gemini_project / "tools" / "look.yaml", LOOK.replace("looked", "other"))
    assert_error(run_script("cogtools-call", "look", stdin="{}", cwd=gemini_project), "POLICY_DENIED")
