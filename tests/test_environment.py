"""What a tool sees of the environment: declared names only, .env against the process, and
values that never show."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cogtools.cli import call, discover, porcelain, yaml_cmd
from cogtools.core.errors import ERROR_TABLE

from .conftest import Cli, write

STATUS = {code: status for code, status, _ in ERROR_TABLE}
SECRET = "s3cr3t-token-value"

TOOL = """\
description: Show the greeting.
environment: [GREETING, MISSING, API_TOKEN]
implementation: "{{ env.GREETING }}|{{ env.MISSING }}||{{ env.API_TOKEN | length }}"
"""


@pytest.fixture
def env_project(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write(project / "tools" / "greet.yaml", TOOL)
    write(project / ".env", f"# project settings\nGREETING=from-dotenv\nexport API_TOKEN={SECRET}\n")
    monkeypatch.setenv("GREETING", "from-system")
    monkeypatch.setenv("HOME", os.environ["HOME"])
    return project


def test_project_env_wins_by_default(env_project: Path, cli: Cli) -> None:
    before = dict(os.environ)
    result = cli(call.main, "greet")
    assert result == (0, f"from-dotenv|||{len(SECRET)}", "")
    assert dict(os.environ) == before  # cogtools' own environment is untouched


def test_system_env_wins_with_the_flag_or_the_setting(
    env_project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert cli(call.main, "--system-env", "greet").stdout.startswith("from-system|")
    write(env_project / ".cogtoolrc.yaml", "env_priority: system\n")
    assert cli(call.main, "greet").stdout.startswith("from-system|")
    monkeypatch.setenv("COGTOOLS_ENV_PRIORITY", "project")
    assert cli(call.main, "greet").stdout.startswith("from-dotenv|")


def test_cogtools_yaml_reads_the_env_of_the_files_project(
    env_project: Path, cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = cli(yaml_cmd.main, str(env_project / "tools" / "greet.yaml"))
    assert result.stdout.startswith("from-dotenv|")
    assert cli(yaml_cmd.main, "--system-env", str(env_project / "tools" / "greet.yaml")).stdout.startswith(
        "from-system|"
    )


def test_values_never_show_in_discovery_listing_or_verbose(env_project: Path, cli: Cli) -> None:
    outputs = [
        cli(discover.main),
        cli(discover.main, "--yaml"),
        cli(discover.main, "--format", "mcp"),
        cli(porcelain.main, "list"),
        cli(call.main, "--verbose", "greet"),
    ]
    for result in outputs:
        assert SECRET not in result.stdout + result.stderr
        assert "from-dotenv" not in result.stdout.replace("from-dotenv|", "") + result.stderr
    assert "environment: GREETING, MISSING, API_TOKEN (project .env first)" in outputs[-1].stderr


def test_values_are_scrubbed_from_errors(project: Path, cli: Cli) -> None:
    # Jinja names the missing key in its message: here, the secret.
    write(
        project / "tools" / "bad.yaml",
        "description: d\nenvironment: [API_TOKEN]\nimplementation: '{{ {}[env.API_TOKEN].x }}'\n",
    )
    write(project / ".env", f"API_TOKEN={SECRET}\n")
    result = cli(call.main, "bad")
    assert result.status == STATUS["RENDER_FAILED"]
    assert SECRET not in result.stdout + result.stderr
    assert "has no attribute '***'" in result.stderr


def test_broken_dotenv_line_is_config_invalid_without_its_content(env_project: Path, cli: Cli) -> None:
    write(env_project / ".env", f"GREETING=ok\nthis line is {SECRET} broken\n")
    result = cli(call.main, "greet")
    assert result.status == STATUS["CONFIG_INVALID"]
    error = json.loads(result.stdout)["error"]
    assert error["details"]["line"] == 2 and "NAME=VALUE" in error["message"]
    assert SECRET not in result.stdout + result.stderr


def test_tools_without_declared_environment_never_read_dotenv(project: Path, cli: Cli) -> None:
    write(project / "tools" / "plain.yaml", "description: d\nimplementation: plain\n")
    write(project / ".env", "this is not parseable\n")
    assert cli(call.main, "plain") == (0, "plain", "")


def test_a_parameter_named_env_conflicts_with_declared_environment(project: Path, cli: Cli) -> None:
    write(
        project / "tools" / "clash.yaml",
        "description: d\nenvironment: [A]\nparameters:\n  env: {type: string}\nimplementation: x\n",
    )
    result = cli(call.main, "clash", stdin='{"env": "x"}')
    assert result.status == STATUS["DEFINITION_INVALID"] and "rename the parameter `env`" in result.stderr


@pytest.mark.parametrize("name", ["1BAD", "WITH-DASH", "sp ace"])
def test_declared_names_are_variable_names(project: Path, cli: Cli, name: str) -> None:
    write(project / "tools" / "t.yaml", f"description: d\nenvironment: ['{name}']\nimplementation: x\n")
    assert cli(call.main, "t").status == STATUS["DEFINITION_INVALID"]


def test_dotenv_does_not_interpolate_process_variables(
    project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An undeclared process secret must not reach the tool through a declared variable.
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    write(
        project / "tools" / "tok.yaml",
        "description: d\nenvironment: [API_TOKEN]\nimplementation: '{{ env.API_TOKEN }}'\n",
    )
    write(project / ".env", "API_TOKEN=${AWS_SECRET_ACCESS_KEY}\n")
    assert cli(call.main, "tok") == (0, "${AWS_SECRET_ACCESS_KEY}", "")


def test_a_secret_across_the_stderr_cut_is_scrubbed_whole(project: Path, cli: Cli) -> None:
    from cogtools.run.process import STDERR_TAIL

    # The secret starts before the last STDERR_TAIL characters and ends inside them.
    script = f"import os, sys; sys.stderr.write(os.environ['API_TOKEN'] + 'x' * {STDERR_TAIL - 5}); sys.exit(1)"
    definition = {
        "description": "d",
        "environment": ["API_TOKEN"],
        "implementation": {"kind": "command", "argv": ["python3", "-c", script]},
    }
    write(project / "tools" / "leak.json", json.dumps(definition))
    write(project / ".env", f"API_TOKEN={SECRET}\n")
    result = cli(call.main, "leak")
    error = result.json()["error"]
    assert result.status == STATUS["EXECUTION_FAILED"]
    tail = error["details"]["stderr_tail"]
    assert tail.startswith("***x")
    for n in range(4, len(SECRET) + 1):  # no piece of it, from any end
        assert SECRET[-n:] not in tail and SECRET[:n] not in tail


def test_a_program_is_told_its_output_is_plain_text_unless_the_tool_says_otherwise(
    project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(issue 43, a new user's m3: vitest's colour sequences reached the model in stderr_tail)"""
    shown = "{kind: command, argv: [sh, -c, 'echo \"$NO_COLOR/$FORCE_COLOR\"']}"
    write(project / "tools" / "plain.yaml", f"description: d\nimplementation: {shown}\n")
    write(project / "tools" / "coloured.yaml", f"description: d\nenvironment: [FORCE_COLOR]\nimplementation: {shown}\n")
    monkeypatch.setenv("FORCE_COLOR", "3")
    assert cli(call.main, "plain").stdout == "1/0\n"
    assert cli(call.main, "coloured").stdout == "1/3\n"  # (declared: the caller's value)
