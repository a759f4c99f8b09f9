"""``--dry-run``: everything up to running (lookup, policy, arguments, secrets), then what would run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cogtools.cli import call, porcelain, yaml_cmd
from cogtools.core.errors import ERROR_TABLE

from .conftest import Cli, run_script, write

STATUS = {code: status for code, status, _ in ERROR_TABLE}


@pytest.fixture
def marker(project: Path) -> Path:
    """A file that a tool which really ran would have made."""
    return project / "ran"


def command_tool(project: Path, marker: Path) -> None:
    definition = {
        "description": "Touch a file.",
        "parameters": {"name": {"type": "string"}},
        "environment": ["GREETING"],
        "implementation": {
            "kind": "command",
            "argv": ["touch", str(marker), "--", "{{ name }}"],
            "stdin": "hello {{ name }}",
            "cwd": "sub",
            "timeout": 5,
            "success_exit_status": [1],
        },
    }
    write(project / "tools" / "touch.json", json.dumps(definition))
    (project / "sub").mkdir()


def test_a_command_is_shown_not_run(project: Path, cli: Cli, marker: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    command_tool(project, marker)
    monkeypatch.setenv("GREETING", "hi-greeting-value")
    result = cli(call.main, "--dry-run", "touch", stdin='{"name": "-rf /"}')
    assert result.status == 0 and result.stderr == "" and not marker.exists()
    shown = result.json()
    assert shown["argv"] == ["touch", str(marker), "--", "-rf /"] and shown["stdin"] == "hello -rf /"
    assert shown["cwd"] == str(project / "sub") and shown["limits"] == {"timeout": 5.0, "max_output_bytes": 1048576}
    assert (
        "GREETING" in shown["environment"]
        and "PATH" in shown["environment"]
        and "hi-greeting-value" not in result.stdout
    )
    assert shown["success_exit_status"] == [1] and shown["tool"] == "touch" and shown["kind"] == "command"


def test_a_template_shows_its_text(echo_project: Path, cli: Cli) -> None:
    result = cli(call.main, "--dry-run", "echo", stdin='{"text": "hi", "times": 2}')
    assert result.json() == {"dry_run": True, "tool": "echo", "kind": "template", "text": "hi\nhi\n"}


def test_a_script_is_shown_not_run(project: Path, cli: Cli, marker: Path) -> None:
    write(
        project / "tools" / "mark.py",
        f"""\
        #!/usr/bin/env python3
        # cogtools-tool
        # description: Make the marker.
        # parameters:
        #   size: {{type: integer, description: A size.}}

        open({str(marker)!r}, "w").close()
        """,
        mode=0o755,
    )
    result = cli(call.main, "--dry-run", "mark", stdin='{"size": 3}')
    assert result.status == 0 and not marker.exists(), result
    shown = result.json()
    assert shown["kind"] == "script" and shown["argv"][-1] == str(project / "tools" / "mark.py")
    assert json.loads(shown["stdin"]) == {"size": 3} and "COGTOOLS_ARG_SIZE" in shown["environment"]


def test_the_checks_still_apply(project: Path, cli: Cli, marker: Path) -> None:
    command_tool(project, marker)
    assert cli(call.main, "--dry-run", "touch", stdin='{"name": 3}').status == STATUS["SCHEMA_VIOLATION"]
    assert cli(call.main, "--dry-run", "touch", stdin="[").status == STATUS["INVALID_INPUT"]
    assert cli(call.main, "--dry-run", "nope").status == STATUS["TOOL_NOT_FOUND"]
    assert not marker.exists()


def test_a_denied_tool_is_refused_in_a_dry_run_too(project: Path, cli: Cli, marker: Path) -> None:
    command_tool(project, marker)
    definition = json.loads((project / "tools" / "touch.json").read_text())
    write(project / "tools" / "touch.json", json.dumps({**definition, "category": "Files"}))
    write(project / ".cogtoolrc.yaml", "policy:\n  denied_categories: [Files]\n")
    result = cli(call.main, "--dry-run", "touch", stdin='{"name": "x"}')  # hidden: not there for the caller
    assert result.status == STATUS["TOOL_NOT_FOUND"] and result.json()["error"]["code"] == "TOOL_NOT_FOUND"
    assert (
        cli(yaml_cmd.main, "--dry-run", str(project / "tools" / "touch.json"), stdin='{"name": "x"}').status
        == STATUS["POLICY_DENIED"]
    )
    assert not marker.exists()


def test_every_entry_point_takes_it(project: Path, cli: Cli, marker: Path) -> None:
    command_tool(project, marker)
    argv = ["touch", str(marker), "--", "x"]
    assert cli(porcelain.main, "call", "--dry-run", "touch", stdin='{"name": "x"}').json()["argv"] == argv
    assert cli(yaml_cmd.main, "--dry-run", "tools/touch.json", stdin='{"name": "x"}').json()["argv"] == argv
    # The plain command line (no click) and click's agree, wherever the flag is.
    for args in (["--dry-run", "touch"], ["touch", "--dry-run"], ["-v", "--dry-run", "--", "touch"]):
        result = run_script("cogtools-call", *args, stdin='{"name": "x"}', cwd=project)
        assert result.status == 0 and json.loads(result.stdout)["argv"] == argv, (args, result)
    assert not marker.exists()
    assert "--dry-run" in run_script("cogtools-call", "--help").stdout
