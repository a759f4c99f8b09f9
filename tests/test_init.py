"""``cogtools init`` and ``cogtools sync``: files created, merged, kept, and never half-written."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from cogtools.cli import porcelain
from cogtools.core import jsonc
from cogtools.core.errors import ERROR_TABLE

from .conftest import BIN, Cli, write
from .test_gemini_policy import allowed_by_rules, older_gemini, rules_file  # noqa: F401 (older_gemini: a fixture)

STATUS = {code: status for code, status, _ in ERROR_TABLE}
INIT = ("init", "--non-interactive", "--defaults")
NO_SETTINGS = "no .gemini/settings.json: no tools.allowed to keep in step (`cogtools init` makes it)"


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_init_makes_a_working_project(isolated: Path, cli: Cli) -> None:
    result = cli(porcelain.main, *INIT)
    assert result.status == 0 and result.stderr == ""
    assert result.stdout.splitlines() == [
        "created .cogtoolrc.yaml",
        "created tools/hello.yaml",
        "created .gemini/settings.json (Policy Engine rules: 1 diagnostic tool and cogtools_problems)",
        f"created {rules_file(isolated)} (Policy Engine rules, user-wide; no `gemini` on PATH: written as Gemini CLI"
        " 0.30.0 and later read them)",
        "allowed to run without confirmation, and pinned:",
        "  hello (tools/hello.yaml; new)",
        "      runs: template: renders text, runs no program",
        "      declares: risk low; side effects: none",
        "      can: changes nothing; reaches no network",
        "created GEMINI.md",
    ]
    settings = json.loads((isolated / ".gemini" / "settings.json").read_text())
    assert settings == {
        "tools": {
            "discoveryCommand": "cogtools-discover",
            "callCommand": "cogtools-call",
        }
    }
    assert allowed_by_rules(isolated) == ["discovered_tool_hello", "discovered_tool_cogtools_problems"]
    assert os.access(isolated / "tools" / "hello.yaml", os.X_OK)
    assert (
        "| `discovered_tool_hello` | Greet someone by name. | low | changes nothing; no network |"
        in (isolated / "GEMINI.md").read_text()
    )
    from cogtools.cli import call

    assert cli(call.main, "hello", stdin='{"who": "Ada", "times": 2}').stdout == "Hello, Ada!\nHello, Ada!\n"


def test_init_twice_changes_nothing(isolated: Path, cli: Cli) -> None:
    cli(porcelain.main, *INIT)
    before = snapshot(isolated)
    result = cli(porcelain.main, *INIT)
    assert all(line.startswith("unchanged ") for line in result.stdout.splitlines())
    assert snapshot(isolated) == before


def test_existing_settings_are_merged(isolated: Path, cli: Cli) -> None:
    original = {
        "theme": "dark",
        "tools": {"allowed": ["discovered_tool_x"], "callCommand": "my-caller"},
        "mcpServers": {"a": {"command": "x"}},
    }
    write(isolated / ".gemini" / "settings.json", json.dumps(original))
    result = cli(porcelain.main, *INIT)
    assert (
        "updated .gemini/settings.json (Policy Engine rules: 1 diagnostic tool and cogtools_problems; kept your tools.callCommand; --force to replace)"
        in result.stdout
    )
    merged = json.loads((isolated / ".gemini" / "settings.json").read_text())
    assert merged == {
        **original,
        "tools": {
            "allowed": ["discovered_tool_x"],  # a person's: the tools cogtools allows have rules of their own
            "callCommand": "my-caller",
            "discoveryCommand": "cogtools-discover",
        },
    }
    cli(porcelain.main, *INIT, "--force")
    forced = json.loads((isolated / ".gemini" / "settings.json").read_text())
    assert forced["tools"]["callCommand"] == "cogtools-call" and forced["theme"] == "dark"


def test_a_file_a_person_changed_is_kept_without_force(isolated: Path, cli: Cli) -> None:
    cli(porcelain.main, *INIT)
    write(isolated / ".cogtoolrc.yaml", "env_priority: system\n")
    result = cli(porcelain.main, *INIT)
    assert "kept .cogtoolrc.yaml (it differs from the default; --force to replace)" in result.stdout
    assert (isolated / ".cogtoolrc.yaml").read_text() == "env_priority: system\n"
    cli(porcelain.main, *INIT, "--force")
    assert "tool_sources" in (isolated / ".cogtoolrc.yaml").read_text()


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("{not json", "not valid JSON"),
        ('{"a": 1, // comment\n}', "not valid JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"tools": ["x"]}', "`tools` is not an object"),
    ],
)
def test_unparseable_settings_are_left_untouched(isolated: Path, cli: Cli, text: str, fragment: str) -> None:
    path = write(isolated / ".gemini" / "settings.json", text)
    result = cli(porcelain.main, *INIT)
    assert result.status == STATUS["CONFIG_INVALID"]
    assert fragment in result.stderr and str(path) in result.stderr
    assert path.read_text() == text


def test_init_in_a_read_only_directory(isolated: Path, cli: Cli) -> None:
    target = isolated / "ro"
    target.mkdir()
    target.chmod(0o555)
    try:
        if os.access(target, os.W_OK):
            pytest.skip("running as a user who writes everywhere")
        result = cli(porcelain.main, "init", "--non-interactive", str(target))
        assert result.status == STATUS["CONFIG_INVALID"] and "cannot write" in result.stderr
        assert list(target.iterdir()) == []
    finally:
        target.chmod(0o755)


@pytest.mark.parametrize("within_project", [True, False])
def test_writes_are_atomic(isolated: Path, monkeypatch: pytest.MonkeyPatch, within_project: bool) -> None:
    """An interrupted write leaves the old file whole and no temporary file behind (a file of the
    project, written only inside it, or one a person named)."""
    from cogtools.core import fsutil

    path = write(isolated / "f.txt", "old\n")

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        fsutil.write_atomic(path, "new\n", within=isolated if within_project else None)
    assert path.read_text() == "old\n"
    assert [p.name for p in isolated.iterdir()] == ["f.txt"]


def test_interactive_init_asks_on_a_terminal(isolated: Path) -> None:
    import pty

    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [str(BIN / "cogtools"), "init"], stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=isolated
    )
    os.close(slave)
    os.write(master, b"mytools\nn\n\nn\n")
    out, err = proc.communicate(timeout=60)
    os.close(master)
    assert proc.returncode == 0, err
    text = out.decode()
    assert "Directory for tool definitions [tools]: " in text
    assert "Create a starter tool? [Y/n]: " in text
    assert (isolated / "mytools").is_dir() and not (isolated / "mytools" / "hello.yaml").exists()
    assert (isolated / ".gemini" / "settings.json").exists() and not (isolated / "GEMINI.md").exists()
    assert "local: ./mytools" in (isolated / ".cogtoolrc.yaml").read_text()


# -- sync ----------------------------------------------------------------------------------------


def test_sync_keeps_every_other_line(echo_project: Path, cli: Cli) -> None:
    path = write(echo_project / "GEMINI.md", "# My project\n\nRules of the house.\n")
    assert cli(porcelain.main, "sync").stdout == f"{NO_SETTINGS}\nupdated GEMINI.md\n"
    text = path.read_text()
    assert text.startswith("# My project\n\nRules of the house.\n\n<!-- cogtools:tools:begin")
    assert "| `discovered_tool_echo` | Say something back. | not stated |" in text
    write(echo_project / "GEMINI.md", text + "\n## After\n\nMore rules.\n")
    write(echo_project / "tools" / "pipe.yaml", "description: 'a | b'\nrisk_level: high\nimplementation: x\n")
    cli(porcelain.main, "sync")
    updated = path.read_text()
    assert updated.startswith("# My project\n\nRules of the house.\n\n<!-- cogtools")
    assert updated.endswith("<!-- cogtools:tools:end -->\n\n## After\n\nMore rules.\n")
    assert "| `discovered_tool_pipe` | a \\| b | high |" in updated


def test_sync_again_is_byte_identical(echo_project: Path, cli: Cli) -> None:
    cli(porcelain.main, "sync")
    before = (echo_project / "GEMINI.md").read_bytes()
    stat = (echo_project / "GEMINI.md").stat()
    time.sleep(0.01)
    assert cli(porcelain.main, "sync").stdout == f"{NO_SETTINGS}\nunchanged GEMINI.md\n"
    assert (echo_project / "GEMINI.md").read_bytes() == before
    assert (echo_project / "GEMINI.md").stat().st_mtime_ns == stat.st_mtime_ns


@pytest.mark.parametrize(
    "text",
    [
        "<!-- cogtools:tools:begin -->\nno end\n",
        "no begin\n<!-- cogtools:tools:end -->\n",
        "<!-- cogtools:tools:end -->\n<!-- cogtools:tools:begin -->\n",
        "<!-- cogtools:tools:begin -->\n<!-- cogtools:tools:begin -->\n<!-- cogtools:tools:end -->\n",
    ],
)
def test_sync_refuses_broken_markers(echo_project: Path, cli: Cli, text: str) -> None:
    path = write(echo_project / "GEMINI.md", text)
    result = cli(porcelain.main, "sync")
    assert result.status == STATUS["CONFIG_INVALID"] and "markers are broken" in result.stderr
    assert path.read_text() == text


def test_init_where_nothing_can_be_written(isolated: Path, cli: Cli) -> None:
    """Root can write into a read-only directory, so these failures are made another way."""
    blocker = write(isolated / "a-file", "x")
    result = cli(porcelain.main, "init", "--non-interactive", str(blocker / "project"))
    assert result.status == STATUS["CONFIG_INVALID"] and "cannot" in result.stderr
    assert "Traceback" not in result.stderr
    (isolated / "p" / ".cogtoolrc.yaml").mkdir(parents=True)  # a directory where the file goes
    result = cli(porcelain.main, "init", "--non-interactive", str(isolated / "p"))
    assert result.status == STATUS["CONFIG_INVALID"]
    assert [p.name for p in (isolated / "p").iterdir()] == [".cogtoolrc.yaml"]


@pytest.mark.usefixtures("older_gemini")
def test_sync_manages_tools_allowed_and_keeps_a_persons_entries(isolated: Path, cli: Cli) -> None:
    cli(porcelain.main, *INIT)
    settings_path = isolated / ".gemini" / "settings.json"
    settings = json.loads(settings_path.read_text())
    settings["tools"]["allowed"].insert(0, "run_shell_command(git status)")
    settings["tools"]["allowed"].append("discovered_tool_handpicked")
    settings_path.write_text(json.dumps(settings))
    write(
        isolated / "tools" / "look.yaml",
        "description: Look.\nrisk_level: SAFE\nside_effects: [filesystem_read]\nimplementation: x\n",
    )
    write(
        isolated / "tools" / "act.yaml",
        "description: Act.\nrisk_level: low\nside_effects: [process]\nimplementation: x\n",
    )
    assert cli(porcelain.main, "sync", "--yes").stdout.startswith(
        "updated .gemini/settings.json (tools.allowed: 2 diagnostic tools and cogtools_problems; 2 pinned)"
    )
    allowed = json.loads(settings_path.read_text())["tools"]["allowed"]
    assert allowed == [
        "run_shell_command(git status)",
        "discovered_tool_hello",
        "discovered_tool_cogtools_problems",
        "discovered_tool_handpicked",
        "discovered_tool_look",
    ]
    # The starter tool becomes an action tool: cogtools takes back its own entry, nobody else's.
    hello = isolated / "tools" / "hello.yaml"
    hello.write_text(hello.read_text().replace("risk_level: low", "risk_level: high"))
    cli(porcelain.main, "sync")
    allowed = json.loads(settings_path.read_text())["tools"]["allowed"]
    assert allowed == [
        "run_shell_command(git status)",
        "discovered_tool_cogtools_problems",
        "discovered_tool_handpicked",
        "discovered_tool_look",
    ]
    before = settings_path.read_bytes()
    assert "unchanged .gemini/settings.json" in cli(porcelain.main, "sync").stdout
    assert settings_path.read_bytes() == before


def test_sync_refuses_a_malformed_allowed_list(isolated: Path, cli: Cli) -> None:
    cli(porcelain.main, *INIT)
    path = write(isolated / ".gemini" / "settings.json", '{"tools": {"allowed": "discovered_tool_x"}}')
    result = cli(porcelain.main, "sync")
    assert result.status == STATUS["CONFIG_INVALID"] and "`tools.allowed` is not a list" in result.stderr
    assert path.read_text() == '{"tools": {"allowed": "discovered_tool_x"}}'


def test_init_edits_an_mcp_file_with_comments_keeping_them(tmp_path: Path, cli: Cli) -> None:
    root = tmp_path / "proj"
    commented = '// my servers\n{"servers": {}}\n'
    path = write(root / ".vscode" / "mcp.json", commented)
    result = cli(porcelain.main, "init", str(root), "--non-interactive", "--defaults", "--mcp", "vscode")
    assert result.status == 0 and "updated .vscode/mcp.json" in result.stdout
    text = path.read_text()
    assert text.startswith("// my servers\n{") and "cogtools" in jsonc.loads(text)["servers"]


JSONC_SETTINGS = """\
{
  // Gemini CLI reads comments in its settings; so does cogtools, and keeps them.
  "theme": "dark", /* the person's */
  "tools": {
    "allowed": ["discovered_tool_mine"] // mine
  }
}
"""


def test_init_edits_settings_with_comments_and_keeps_every_one(isolated: Path, cli: Cli) -> None:
    path = write(isolated / ".gemini" / "settings.json", JSONC_SETTINGS)
    result = cli(porcelain.main, *INIT)
    assert result.status == 0, result
    text = path.read_text()
    for comment in ("// Gemini CLI reads comments", "/* the person's */", "// mine"):
        assert comment in text
    assert jsonc.loads(text) == {
        "theme": "dark",
        "tools": {
            "discoveryCommand": "cogtools-discover",
            "callCommand": "cogtools-call",
            "allowed": ["discovered_tool_mine"],  # the tools cogtools allows have Policy Engine rules
        },
    }
    assert cli(porcelain.main, *INIT).stdout.count("unchanged") == 5  # the rules file too
    assert path.read_text() == text


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('{\n  "tools": {"allowed": ["x",]},\n}\n', "no trailing commas"),
        (
            '{\n  "tools": {"allowed": [ /* reviewed */ "x"]}\n}\n',
            'Set these keys by hand: {"tools.allowed": ["x", "discovered_tool_hello", "discovered_tool_cogtools_problems"]}',
        ),
        (
            '{\n  "tools": {\n    "discoveryCommand": /* mine */ "cogtools-discover",\n    "callCommand": "cogtools-call" // mine\n  }\n}\n',
            None,
        ),
    ],
    ids=["trailing-comma", "comment-in-allowed", "comments-beside-values"],
)
@pytest.mark.usefixtures("older_gemini")
def test_init_changes_nothing_at_all_when_settings_cannot_be_edited(
    isolated: Path, cli: Cli, text: str, fragment: str | None
) -> None:
    """A settings file Gemini CLI itself refuses, or one that cannot be edited without losing a
    comment, stops init before its first write: no half project."""
    path = write(isolated / ".gemini" / "settings.json", text)
    result = cli(porcelain.main, *INIT)
    if fragment is None:  # comments beside the values, not inside: nothing to lose
        assert result.status == 0, result
        assert "/* mine */" in path.read_text() and "// mine" in path.read_text()
        return
    assert result.status == STATUS["CONFIG_INVALID"], result
    assert fragment in result.stderr
    assert snapshot(isolated) == {".gemini/settings.json": text.encode()}


def test_init_replaces_the_bare_commands_an_earlier_init_wrote(
    isolated: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli(porcelain.main, *INIT)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # cogtools is not on this PATH
    result = cli(porcelain.main, *INIT)
    tools = json.loads((isolated / ".gemini" / "settings.json").read_text())["tools"]
    assert tools["callCommand"] == "cogtools-call"  # a project's settings name no path of this machine
    assert (
        "note: cogtools-discover and cogtools-call are not on PATH, so Gemini CLI will not find them" in result.stdout
    )


def test_init_from_a_virtual_environment_that_is_not_activated(tmp_path: Path) -> None:
    """``.venv/bin/cogtools init`` with the venv's bin not on PATH: the project's settings, which
    teammates share, get the bare names (issue 43: no path of this machine), and init says that
    Gemini CLI will not find them, and how to have it find them."""

    root = tmp_path / "my project"
    root.mkdir()
    env = {**os.environ, "PATH": "/usr/bin:/bin", "HOME": str(tmp_path / "home")}
    proc = subprocess.run(
        [str(BIN / "cogtools"), "init", "--non-interactive"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "cogtools-discover and cogtools-call are not on PATH, so Gemini CLI will not find them" in proc.stdout
    assert (
        f"add {BIN} to PATH" in proc.stdout and "pipx install or uv tool install of the Python package" in proc.stdout
    ), proc.stdout
    tools = json.loads((root / ".gemini" / "settings.json").read_text())["tools"]
    assert (tools["discoveryCommand"], tools["callCommand"]) == ("cogtools-discover", "cogtools-call")
    env["PATH"] = f"{BIN}:{env['PATH']}"
    # as Gemini CLI spawns them once its PATH finds them: no shell
    discovered = subprocess.run(
        [tools["discoveryCommand"]], cwd=root, env=env, capture_output=True, text=True, timeout=60
    )
    assert discovered.returncode == 0 and json.loads(discovered.stdout)[0]["name"] == "hello"
