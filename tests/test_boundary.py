"""The boundary under hostile conditions (issue 11): text that is not valid Unicode, a closed or
full stdout, a closed stderr, values no program can receive. Each gets its code and a parseable
JSON error where stdout can carry one; never a traceback, never another exit status."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from .conftest import BIN, run_script, write
from .test_cli import STATUS, assert_error
from .test_command import PY, command_tool


def shell(command: str, cwd: Path, stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    """``command`` run by bash, with cogtools' scripts first on PATH and fd 3 open on ``status``."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(
        ["bash", "-c", f"exec 3>status; {command}"], input=stdin, capture_output=True, cwd=cwd, env=env, timeout=30
    )


def status_of(cwd: Path, command: str, stdin: bytes = b'{"text": "hi"}') -> tuple[int, str]:
    result = shell(f"{command}; echo $? >&3", cwd, stdin)
    stderr = result.stderr.decode("utf-8", "replace")
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr
    return int((cwd / "status").read_text()), stderr


def test_a_tool_name_that_is_not_utf8(echo_project: Path) -> None:
    proc = subprocess.run(
        [str(BIN / "cogtools-call"), b"caf\xe9"], input=b"{}", capture_output=True, cwd=echo_project, timeout=30
    )
    assert proc.returncode == STATUS["TOOL_NOT_FOUND"], proc
    error = json.loads(proc.stdout)["error"]
    assert error["code"] == "TOOL_NOT_FOUND" and error["tool"] == "caf\udce9"
    assert b"Traceback" not in proc.stderr


@pytest.mark.slow
def test_a_closed_or_full_stdout_is_reported_on_stderr(echo_project: Path) -> None:
    for redirect in (">&-", ">/dev/full"):
        status, stderr = status_of(echo_project, f"cogtools-call echo {redirect}")
        assert status == STATUS["USAGE"], (redirect, stderr)
        assert "cannot write the output to stdout" in stderr
        status, stderr = status_of(echo_project, f"cogtools-discover {redirect}")
        assert status == STATUS["USAGE"] and "cannot write" in stderr
    # an error that cannot be printed as JSON still has its own status, and its line on stderr
    status, stderr = status_of(echo_project, "cogtools-call nosuchtool >/dev/full")
    assert status == STATUS["TOOL_NOT_FOUND"] and "TOOL_NOT_FOUND" in stderr


def test_a_closed_stderr_changes_nothing(echo_project: Path) -> None:
    assert status_of(echo_project, "cogtools-call nosuchtool >/dev/null 2>&-")[0] == STATUS["TOOL_NOT_FOUND"]
    assert status_of(echo_project, "cogtools-call echo >/dev/null 2>&-")[0] == 0


def test_nul_in_a_program_argument_is_refused_before_it_runs(project: Path) -> None:
    command_tool(project, "argv", [PY, "-c", "print(1)", "{{ value }}"])
    error = assert_error(
        run_script("cogtools-call", "argv", stdin='{"value": "a\\u0000b"}', cwd=project), "SCHEMA_VIOLATION", "NUL"
    )
    assert error["tool"] == "argv" and error["details"]["violations"][0]["field"] == "value"


def test_nul_in_a_script_argument_is_refused_before_it_runs(project: Path) -> None:
    write(
        project / "tools" / "s.sh",
        '#!/bin/sh\n# cogtools-tool\n# description: d\n# parameters:\n#   v: {type: string}\necho "$COGTOOLS_ARG_V"\n',
        0o755,
    )
    error = assert_error(
        run_script("cogtools-call", "s", stdin='{"v": "a\\u0000b"}', cwd=project), "SCHEMA_VIOLATION", "NUL"
    )
    assert error["details"]["violations"][0]["field"] == "v"


def test_nul_made_by_a_template_is_execution_failed(project: Path) -> None:
    """The runner's own check stays, for a NUL that no argument brought."""
    command_tool(project, "argv", [PY, "-c", "print(1)", "{{ 'a\\x00b' }}"])
    error = assert_error(run_script("cogtools-call", "argv", stdin="{}", cwd=project), "EXECUTION_FAILED", "NUL")
    assert error["details"]["argument"] == 3


@pytest.mark.slow
def test_a_boolean_is_not_a_timeout(project: Path) -> None:
    command_tool(project, "t", [PY, "-c", "print(1)"], timeout=True)
    assert_error(
        run_script("cogtools-call", "t", stdin="{}", cwd=project),
        "DEFINITION_INVALID",
        "implementation.timeout: True is not of type 'number'",
    )


@pytest.mark.slow
def test_an_error_before_the_lookup_still_names_the_tool(echo_project: Path) -> None:
    write(echo_project / ".cogtoolrc.yaml", "polcy: {}\n")
    error = assert_error(run_script("cogtools-call", "echo", stdin="{}", cwd=echo_project), "CONFIG_INVALID", "polcy")
    assert error["tool"] == "echo"
