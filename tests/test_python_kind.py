"""The ``python`` implementation kind: a function of the project's python_path, called in process."""

from __future__ import annotations

import json
import sys
import time
import typing as t
from pathlib import Path

import pytest

from cogtools.cli import call
from cogtools.core.errors import ERROR_TABLE

from .conftest import Cli, run_script, write

STATUS = {code: status for code, status, _ in ERROR_TABLE}

MODULE = """\
import time


class Thing:
    pass


def good(text, times=2):
    print("this goes nowhere")
    return {"text": text * times, "times": times}


def plain(text, times=2):
    return text.upper()


def printed(text, times=2):
    print("printed:", text)


def raises(text, times=2):
    raise ValueError(f"cannot take {text!r}")


def spins(text, times=2):
    while True:
        pass


def sleeps(text, times=2):
    time.sleep(60)


def not_json(text, times=2):
    return Thing()


def a_set(text, times=2):
    return {1, 2}


def exits(text, times=2):
    raise SystemExit(3)


def big(text, times=2):
    return "z" * 5000


def nothing(text, times=2):
    return ""


def with_env(text, times=2, env=None):
    return sorted(env)


def noisy(text, times=2):
    import sys

    print("to stderr", file=sys.stderr)
    return "result"


NOT_A_FUNCTION = 3
"""


@pytest.fixture
def py_project(project: Path) -> Path:
    write(project / "lib" / "team_tools.py", MODULE)
    write(project / ".cogtoolrc.yaml", "python_path: [lib]\n")
    sys.modules.pop("team_tools", None)  # each test's own copy of the module
    return project


def python_tool(project: Path, name: str, target: str, **settings: t.Any) -> None:
    definition = {
        "description": f"{name} tool",
        "parameters": {"text": {"type": "string"}, "times": {"type": "integer", "default": 2, "optional": True}},
        "implementation": {"kind": "python", "callable": target, **settings},
    }
    write(project / "tools" / f"{name}.json", json.dumps(definition))


def test_a_good_function_gets_the_validated_arguments_and_its_result_is_json(py_project: Path, cli: Cli) -> None:
    python_tool(py_project, "good", "team_tools:good")
    result = cli(call.main, "good", stdin='{"text": "ab"}')
    assert result == (
        0,
        json.dumps({"text": "abab", "times": 2}, indent=2) + "\n",
        "",
    )  # the default filled in; the print kept out
    python_tool(py_project, "plain", "team_tools:plain")
    assert cli(call.main, "plain", stdin='{"text": "ab"}').stdout == "AB"


def test_a_function_that_returns_none_gives_what_it_printed(py_project: Path, cli: Cli) -> None:
    python_tool(py_project, "printed", "team_tools:printed")
    assert cli(call.main, "printed", stdin='{"text": "x"}') == (0, "printed: x\n", "")


def test_stderr_is_dropped_or_appended(py_project: Path, cli: Cli) -> None:
    python_tool(py_project, "noisy", "team_tools:noisy")
    assert cli(call.main, "noisy", stdin='{"text": "x"}') == (0, "result", "")
    python_tool(py_project, "noisy2", "team_tools:noisy", stderr="append")
    assert cli(call.main, "noisy2", stdin='{"text": "x"}').stdout == "result[stderr]\nto stderr\n"


def test_an_exception_is_execution_failed_without_a_traceback(
    py_project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    python_tool(py_project, "raises", "team_tools:raises")
    result = cli(call.main, "raises", stdin='{"text": "x"}')
    error = result.json()["error"]
    assert result.status == STATUS["EXECUTION_FAILED"]
    assert error["message"] == "team_tools:raises raised ValueError: cannot take 'x'"
    assert error["details"] == {"callable": "team_tools:raises", "exception": "ValueError"}
    assert "Traceback" not in result.stdout + result.stderr
    monkeypatch.setenv("COGTOOLS_DEBUG", "1")
    debug = cli(call.main, "raises", stdin='{"text": "x"}').json()["error"]["details"]
    assert "Traceback" in debug["traceback"] and "team_tools.py" in debug["traceback"]


def test_sys_exit_is_execution_failed(py_project: Path, cli: Cli) -> None:
    python_tool(py_project, "exits", "team_tools:exits")
    result = cli(call.main, "exits", stdin='{"text": "x"}')
    assert result.status == STATUS["EXECUTION_FAILED"] and "sys.exit(3)" in result.json()["error"]["message"]


@pytest.mark.slow
@pytest.mark.parametrize("target", ["team_tools:spins", "team_tools:sleeps"])
def test_a_function_that_hangs_meets_the_timeout(py_project: Path, cli: Cli, target: str) -> None:
    python_tool(py_project, "hangs", target, timeout=0.5)
    started = time.monotonic()
    result = cli(call.main, "hangs", stdin='{"text": "x"}')
    assert result.status == STATUS["TIMEOUT"] and time.monotonic() - started < 3
    assert result.json()["error"]["details"]["timeout_seconds"] == 0.5


@pytest.mark.parametrize(("target", "returned"), [("team_tools:not_json", "Thing"), ("team_tools:a_set", "set")])
def test_a_result_json_cannot_hold_is_execution_failed(py_project: Path, cli: Cli, target: str, returned: str) -> None:
    python_tool(py_project, "odd", target)
    error = cli(call.main, "odd", stdin='{"text": "x"}').json()["error"]
    assert error["code"] == "EXECUTION_FAILED" and error["details"]["returned_type"] == returned
    assert "which is not JSON" in error["message"]


def test_output_limit_and_empty_result(py_project: Path, cli: Cli) -> None:
    python_tool(py_project, "big", "team_tools:big", max_output_bytes=100)
    assert (
        cli(call.main, "big", stdin='{"text": "x"}').stdout
        == "z" * 100 + "\n[cogtools: output truncated: 4900 more bytes not shown]\n"
    )
    python_tool(py_project, "nothing", "team_tools:nothing", empty_result="Nothing.")
    assert cli(call.main, "nothing", stdin='{"text": "x"}').stdout == "Nothing."


def test_the_declared_environment_is_the_env_argument(
    py_project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    definition = {
        "description": "env tool",
        "parameters": {"text": {"type": "string"}},
        "environment": ["DECLARED"],
        "implementation": {"kind": "python", "callable": "team_tools:with_env"},
    }
    write(py_project / "tools" / "env.json", json.dumps(definition))
    monkeypatch.setenv("UNDECLARED", "x")
    assert json.loads(cli(call.main, "env", stdin='{"text": "x"}').stdout) == ["DECLARED"]


@pytest.mark.parametrize(
    ("target", "reason", "words"),
    [
        ("no_such_module:f", "import", "cannot import 'no_such_module'"),
        ("team_tools:missing", "attribute", "has no 'missing'"),
        ("team_tools:NOT_A_FUNCTION", "attribute", "is not a function but int"),
    ],
)
def test_a_callable_that_is_not_there(py_project: Path, cli: Cli, target: str, reason: str, words: str) -> None:
    python_tool(py_project, "missing", target)
    error = cli(call.main, "missing", stdin='{"text": "x"}').json()["error"]
    assert error["code"] == "EXECUTION_FAILED" and error["details"]["reason"] == reason and words in error["message"]


def test_an_installed_module_without_python_path(project: Path, cli: Cli) -> None:
    definition = {
        "description": "A month's calendar.",
        "parameters": {"theyear": {"type": "integer"}, "themonth": {"type": "integer", "minimum": 1, "maximum": 12}},
        "implementation": {"kind": "python", "callable": "calendar:month"},
    }
    write(project / "tools" / "month.json", json.dumps(definition))
    assert cli(call.main, "month", stdin='{"theyear": 2026, "themonth": 2}').stdout.startswith(
        "   February 2026\nMo Tu We"
    )


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"callable": "team_tools"}, "`callable` is MODULE:FUNCTION"),
        ({"callable": "team tools:f"}, "`callable` is MODULE:FUNCTION"),
        ({"callable": "team_tools:good", "argv": ["x"]}, "unknown key 'argv'"),
        (
            {"callable": "team_tools:good", "timeout": -1},
            "implementation.timeout: -1 is less than or equal to the minimum of 0",
        ),
    ],
)
def test_a_definition_that_can_never_work_is_refused(
    py_project: Path, cli: Cli, settings: dict[str, t.Any], message: str
) -> None:
    write(
        py_project / "tools" / "bad.json",
        json.dumps({"description": "bad", "implementation": {"kind": "python", **settings}}),
    )
    result = cli(call.main, "bad")
    assert result.status == STATUS["DEFINITION_INVALID"] and message in result.json()["error"]["message"], result


def test_dry_run_imports_nothing(py_project: Path, cli: Cli) -> None:
    python_tool(py_project, "good", "team_tools:good", timeout=3)
    shown = cli(call.main, "--dry-run", "good", stdin='{"text": "ab"}').json()
    assert shown == {
        "dry_run": True,
        "tool": "good",
        "kind": "python",
        "callable": "team_tools:good",
        "arguments": {"text": "ab", "times": 2},
        "python_path": [str(py_project / "lib")],
        "environment": [],
        "limits": {"timeout": 3.0, "max_output_bytes": 1048576},
        "confinement": "not confined: it declares no side_effects, so it may do anything",
    }
    assert "team_tools" not in sys.modules


def test_through_the_installed_entry_point(py_project: Path) -> None:
    python_tool(py_project, "good", "team_tools:good")
    result = run_script("cogtools-call", "good", stdin='{"text": "a", "times": 3}', cwd=py_project)
    assert result.status == 0 and json.loads(result.stdout) == {"text": "aaa", "times": 3} and result.stderr == ""
    python_tool(py_project, "spins", "team_tools:spins", timeout=0.5)
    assert run_script("cogtools-call", "spins", stdin='{"text": "a"}', cwd=py_project).status == STATUS["TIMEOUT"]
