"""The ``command`` implementation kind: real programs, no shell, bounded in time and output."""

from __future__ import annotations

import json
import os
import sys
import time
import typing as t
from pathlib import Path

import pytest

from cogtools.cli import call
from cogtools.core.errors import ERROR_TABLE

from .conftest import Cli, write

STATUS = {code: status for code, status, _ in ERROR_TABLE}
PY = sys.executable
PRINT_ARGV = "import json, sys; print(json.dumps(sys.argv[1:]))"


def command_tool(project: Path, name: str, argv: list[str], **settings: object) -> None:
    spec = {"kind": "command", "argv": argv, **settings}
    definition = {
        "description": f"{name} tool",
        "parameters": {"value": {"type": "string", "optional": True}, "n": {"type": "integer", "optional": True}},
        "implementation": spec,
    }
    write(project / "tools" / f"{name}.json", json.dumps(definition))


@pytest.mark.parametrize(
    "value",
    [
        "; rm -rf /",
        "$(id)",
        "`id`",
        "\"double\" 'single'",
        "line one\nline two",
        "-n",
        "--help",
        "",
        " spaced ",
        "*",
        "a\\b",
        "ünïcødé",
    ],
)
def test_every_value_is_exactly_one_argument(project: Path, cli: Cli, value: str) -> None:
    command_tool(project, "argv", [PY, "-c", PRINT_ARGV, "{{ value }}", "pre-{{ value }}", "--", "{{ value }}"])
    result = cli(call.main, "argv", stdin=json.dumps({"value": value}))
    assert result.status == 0 and result.stderr == ""
    assert json.loads(result.stdout) == [value, f"pre-{value}", "--", value]


def test_stdin_template(project: Path, cli: Cli) -> None:
    command_tool(project, "cat", ["cat"], stdin="got: {{ value }}")
    assert cli(call.main, "cat", stdin='{"value": "$(id) `x`"}').stdout == "got: $(id) `x`"


def test_a_program_that_does_not_read_its_input(project: Path, cli: Cli) -> None:
    command_tool(project, "ignore", [PY, "-c", "print('done')"], stdin="{{ value }}")
    assert cli(call.main, "ignore", stdin=json.dumps({"value": "x" * 2_000_000})) == (0, "done\n", "")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as f:
            return "\nState:\tZ" not in f.read()
    except (FileNotFoundError, ProcessLookupError):  # (gone before it was opened, or while it was read)
        return False


@pytest.mark.slow
def test_timeout_kills_the_whole_process_group(project: Path, cli: Cli) -> None:
    pidfile = project / "grandchild.pid"
    command_tool(project, "slow", ["sh", "-c", f"sleep 60 & echo $! > {pidfile}; wait"], timeout=1)
    started = time.monotonic()
    result = cli(call.main, "slow")
    assert time.monotonic() - started < 20
    error = json.loads(result.stdout)["error"]
    assert result.status == STATUS["TIMEOUT"] and error["code"] == "TIMEOUT"
    assert error["details"]["timeout_seconds"] == 1 and "killed" in error["message"]
    pid = int(pidfile.read_text())
    for _ in range(50):
        if not _alive(pid):
            break
        time.sleep(0.1)
    assert not _alive(pid), "the grandchild outlived the timeout"


def test_configured_timeout(project: Path, cli: Cli) -> None:
    write(project / ".cogtoolrc.yaml", "limits:\n  timeout: 0.2\n")
    command_tool(project, "slow", ["sleep", "30"])
    assert cli(call.main, "slow").status == STATUS["TIMEOUT"]


def test_output_is_capped_with_a_marker(project: Path, cli: Cli) -> None:
    command_tool(project, "flood", [PY, "-c", "import sys; sys.stdout.write('x' * 3_000_000)"], max_output_bytes=1000)
    result = cli(call.main, "flood")
    assert result.status == 0
    assert result.stdout == "x" * 1000 + "\n[cogtools: output truncated: 2999000 more bytes not shown]\n"


def test_configured_output_cap(project: Path, cli: Cli) -> None:
    write(project / ".cogtoolrc.yaml", "limits:\n  max_output_bytes: 10\n")
    command_tool(project, "flood", [PY, "-c", "print('y' * 100)"])
    assert cli(call.main, "flood").stdout.startswith("y" * 10 + "\n[cogtools: output truncated: 91 more bytes")


def test_non_zero_exit_reports_status_and_stderr_tail(project: Path, cli: Cli) -> None:
    command_tool(project, "fail", ["sh", "-c", "echo partial; echo first >&2; echo 'it broke' >&2; exit 3"])
    result = cli(call.main, "fail")
    error = json.loads(result.stdout)["error"]
    assert result.status == STATUS["EXECUTION_FAILED"]
    assert error["message"] == "'sh' exited with status 3: it broke"
    assert error["details"]["exit_status"] == 3 and error["details"]["stderr_tail"] == "first\nit broke\n"


def test_a_failed_check_that_prints_its_findings_on_stdout_shows_them(project: Path, cli: Cli) -> None:
    """tsc, eslint, jest, pytest print what they found on stdout and exit 1: the model reads it
    (issue 43), the telling line in the message, the end of stdout in the details, its secrets
    masked."""
    script = (
        "echo 'src/a.ts(3,7): error TS2322: Type string is not assignable to type number.'; "
        'echo "token $API_TOKEN"; echo "Found 1 error."; exit 2'
    )
    write(
        project / "tools" / "check.yaml",
        "description: Type-check.\nenvironment: [{name: API_TOKEN, secret: true}]\n"
        f"implementation: {{kind: command, argv: [sh, -c, {json.dumps(script)}]}}\n",
    )
    os.environ["API_TOKEN"] = "s3cr3t-value"
    try:
        result = cli(call.main, "check")
    finally:
        del os.environ["API_TOKEN"]
    error = json.loads(result.stdout)["error"]
    assert result.status == STATUS["EXECUTION_FAILED"]
    assert error["message"] == "'sh' exited with status 2: Found 1 error."
    tail = error["details"]["stdout_tail"]
    assert tail.startswith("src/a.ts(3,7): error TS2322") and tail.endswith("Found 1 error.\n")
    assert "s3cr3t-value" not in result.stdout and "token ***" in tail
    assert error["details"]["stderr_tail"] == ""


def test_a_runners_warning_on_stderr_does_not_hide_the_error_on_stdout(project: Path, cli: Cli) -> None:
    """The newcomer's finding: ``yarn -s typecheck`` failed and the model read yarn's warning
    (stderr's last line), not tsc's error (on stdout)."""
    script = (
        "echo 'src/server.ts(5,76): error TS2322: Type number is not assignable to type string.'; "
        "echo 'warning Cannot find a suitable global folder. Tried these: \"/usr/local\"' >&2; exit 2"
    )
    command_tool(project, "typecheck_all", ["sh", "-c", script])
    error = json.loads(cli(call.main, "typecheck_all").stdout)["error"]
    assert error["message"].startswith("'sh' exited with status 2: src/server.ts(5,76): error TS2322"), error
    assert error["details"]["stderr_tail"].startswith("warning Cannot find"), error


def test_the_message_is_the_line_that_says_what_went_wrong(project: Path, cli: Cli) -> None:
    """Not the pointer to --help that GNU tools print last."""
    command_tool(project, "du_it", ["du", "--", "no such dir"])
    error = json.loads(cli(call.main, "du_it").stdout)["error"]
    assert error["message"].startswith("'du' exited with status 1: du: cannot access 'no such dir'")
    command_tool(project, "bad_option", ["du", "--no-such-option"])
    error = json.loads(cli(call.main, "bad_option").stdout)["error"]
    assert "unrecognized option" in error["message"] and "Try 'du --help'" in error["details"]["stderr_tail"]


def test_integers_written_as_floats_reach_the_program_as_integers(project: Path, cli: Cli) -> None:
    write(
        project / "tools" / "count.yaml",
        "description: d\nparameters:\n  n: {type: integer}\n  l: {type: array, items: {type: integer}}\n"
        "  o: {type: object, properties: {k: {type: integer}}}\n  x: {type: number}\n"
        "implementation: {kind: command, argv: [echo, '{{ n }} {{ l }} {{ o.k }} {{ x }}']}\n",
    )
    result = cli(call.main, "count", stdin='{"n": 3.0, "l": [1.0, 2], "o": {"k": 5.0}, "x": 2.0}')
    assert result.stdout == "3 [1, 2] 5 2.0\n"  # a number schema keeps what was given


def test_killed_by_a_signal(project: Path, cli: Cli) -> None:
    command_tool(project, "killed", ["sh", "-c", "kill -9 $$"])
    error = json.loads(cli(call.main, "killed").stdout)["error"]
    assert error["message"] == "'sh' was killed by signal 9"


def test_a_program_that_cannot_start(project: Path, cli: Cli) -> None:
    command_tool(project, "missing", ["no-such-program-anywhere"])
    result = cli(call.main, "missing")
    error = json.loads(result.stdout)["error"]
    assert result.status == STATUS["EXECUTION_FAILED"] and "cannot run 'no-such-program-anywhere'" in error["message"]
    not_executable = write(project / "data.txt", "x")
    command_tool(project, "noexec", [str(not_executable)])
    assert "Permission denied" in json.loads(cli(call.main, "noexec").stdout)["error"]["message"]


def test_stderr_on_success_is_dropped_or_appended(project: Path, cli: Cli) -> None:
    command_tool(project, "noisy", ["sh", "-c", "echo out; echo warn >&2"])
    assert cli(call.main, "noisy") == (0, "out\n", "")
    command_tool(project, "noisy2", ["sh", "-c", "echo out; echo warn >&2"], stderr="append")
    assert cli(call.main, "noisy2") == (0, "out\n[stderr]\nwarn\n", "")


def test_declared_success_statuses_and_the_empty_result(project: Path, cli: Cli) -> None:
    exits = "import sys; print(sys.argv[1] if sys.argv[1] != '-' else ''); sys.exit(int(sys.argv[2]))"
    command_tool(
        project,
        "grepish",
        [PY, "-c", exits, "{{ value }}", "{{ n }}"],
        success_exit_status=[1],
        empty_result="Nothing found.",
    )
    assert cli(call.main, "grepish", stdin='{"value": "a match", "n": 0}') == (0, "a match\n", "")
    assert cli(call.main, "grepish", stdin='{"value": "-", "n": 1}') == (0, "Nothing found.", "")
    assert cli(call.main, "grepish", stdin='{"value": "-", "n": 0}') == (0, "Nothing found.", "")
    failed = cli(call.main, "grepish", stdin='{"value": "-", "n": 2}')
    assert (
        failed.status == STATUS["EXECUTION_FAILED"]
        and json.loads(failed.stdout)["error"]["details"]["exit_status"] == 2
    )
    # Without the settings, status 1 fails and an empty result is empty.
    command_tool(project, "strict", [PY, "-c", exits, "{{ value }}", "{{ n }}"])
    assert cli(call.main, "strict", stdin='{"value": "-", "n": 1}').status == STATUS["EXECUTION_FAILED"]
    assert cli(call.main, "strict", stdin='{"value": "-", "n": 0}') == (0, "\n", "")


def test_a_signal_is_never_success(project: Path, cli: Cli) -> None:
    command_tool(project, "killed", ["sh", "-c", "kill -9 $$"], success_exit_status=list(range(1, 256)))
    assert cli(call.main, "killed").status == STATUS["EXECUTION_FAILED"]


def test_output_that_is_not_utf8(project: Path, cli: Cli) -> None:
    command_tool(project, "bytes", [PY, "-c", "import sys; sys.stdout.buffer.write(b'ok \\xff\\xfe end')"])
    assert cli(call.main, "bytes").stdout == "ok \ufffd\ufffd end"


def test_the_program_sees_only_declared_environment(project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COGTOOLS_TEST_LEAK", "leaked")
    monkeypatch.setenv("DECLARED", "visible")
    spec = {"kind": "command", "argv": [PY, "-c", "import json, os; print(json.dumps(dict(os.environ)))"]}
    write(
        project / "tools" / "env.json",
        json.dumps({"description": "d", "environment": ["DECLARED"], "implementation": spec}),
    )
    seen = json.loads(cli(call.main, "env").stdout)
    assert seen["DECLARED"] == "visible" and "COGTOOLS_TEST_LEAK" not in seen and "PATH" in seen


def test_runs_in_the_project_root_or_its_cwd(project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "sub").mkdir()
    monkeypatch.chdir(project / "sub")
    command_tool(project, "where", [PY, "-c", "import os; print(os.getcwd())"])
    assert cli(call.main, "where").stdout == f"{project}\n"
    command_tool(project, "where2", [PY, "-c", "import os; print(os.getcwd())"], cwd="sub")
    assert cli(call.main, "where2").stdout == f"{project / 'sub'}\n"


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ({"argv": ["{{ value }}"]}, "written literally"),
        ({"argv": []}, "implementation.argv: [] should be non-empty"),
        ({"argv": ["echo", 3]}, "implementation.argv[1]: 3 is a number to YAML, not text: quote it ('3')"),
        ({"argv": "echo hi"}, "implementation.argv: 'echo hi' is not of type 'array'"),
        ({"argv": ["echo"], "stderr": "keep"}, "implementation.stderr: 'keep' is not one of drop, append"),
        ({"argv": ["echo"], "timeout": 0}, "implementation.timeout: 0 is less than or equal to the minimum of 0"),
        ({"argv": ["echo"], "shell": True}, "unknown key 'shell'"),
        ({"argv": ["echo"], "success_exit_status": 1}, "implementation.success_exit_status: 1 is not of type 'array'"),
        (
            {"argv": ["echo"], "success_exit_status": [0, 256]},
            "implementation.success_exit_status[1]: 256 is greater than the maximum of 255",
        ),
        ({"argv": ["echo"], "success_exit_status": ["1"]}, "success_exit_status[0]: '1' is not of type 'integer'"),
        ({"argv": ["echo"], "success_exit_status": [True]}, "success_exit_status[0]: True is not of type 'integer'"),
        (
            {"argv": ["echo"], "empty_result": 3},
            "implementation.empty_result: 3 is a number to YAML, not text: quote it",
        ),
        ({"argv": ["echo", "{{ value"]}, "template syntax error"),
        # (a new user's m8: `-1`, `yes` written bare in YAML; the advice says to quote them)
        ({"argv": ["git", "log", -1]}, "implementation.argv[2]: -1 is a number to YAML, not text: quote it ('-1')"),
        ({"argv": ["x", True]}, "implementation.argv[1]: true is a boolean to YAML, not text: quote it"),
        ({"argv": ["x", None]}, "implementation.argv[1]: it is empty (null), not text"),
    ],
)
def test_broken_command_definitions(project: Path, cli: Cli, spec: dict[str, t.Any], fragment: str) -> None:
    write(
        project / "tools" / "bad.json", json.dumps({"description": "d", "implementation": {"kind": "command", **spec}})
    )
    result = cli(call.main, "bad")
    assert result.status == STATUS["DEFINITION_INVALID"] and fragment in result.stderr, result.stderr


def test_environment_values_do_not_leak_into_failures(project: Path, cli: Cli) -> None:
    write(project / ".env", "TOKEN=very-secret-token\n")
    spec = {"kind": "command", "argv": ["sh", "-c", 'echo "bad token $TOKEN" >&2; exit 1']}
    write(
        project / "tools" / "leak.json",
        json.dumps({"description": "d", "environment": ["TOKEN"], "implementation": spec}),
    )
    result = cli(call.main, "leak")
    assert result.status == STATUS["EXECUTION_FAILED"]
    assert "very-secret-token" not in result.stdout + result.stderr and "bad token ***" in result.stdout


def test_no_shell_is_involved(project: Path, cli: Cli) -> None:
    marker = project / "pwned"
    command_tool(project, "echo", ["echo", "{{ value }}"])
    result = cli(call.main, "echo", stdin=json.dumps({"value": f"hi; touch {marker}"}))
    assert result.stdout == f"hi; touch {marker}\n" and not marker.exists()
    assert os.path.exists(project)


def test_a_long_literal_word_that_looks_like_a_path_is_no_file(project: Path, cli: Cli) -> None:
    """A word of argv longer than a file name may be (inline code with a `/` in it) names no file
    the pin covers or the program runs: it is not an error of cogtools' own."""
    code = "print('a/b')  # " + "x" * 300
    write(
        project / "tools" / "inline.yaml",
        f"description: Inline.\nimplementation:\n  kind: command\n  argv: [{sys.executable!r}, -c, {code!r}]\n",
    )
    assert cli(call.main, "inline") == (0, "a/b\n", "")


@pytest.mark.parametrize(
    "trailer",
    [
        "\\033[31merror\\033[0m Command failed with exit code 2.",  # yarn 1, coloured
        " ELIFECYCLE  Command failed with exit code 2.",  # pnpm
        "npm error Lifecycle script `typecheck` failed with error:",
    ],
)
def test_a_package_managers_trailer_does_not_hide_the_error_on_stdout(project: Path, cli: Cli, trailer: str) -> None:
    """(issue 43, found by a new user: the model read pnpm's or yarn's last word, that the script
    failed, and not tsc's error on stdout; Berry's colours reached it as escapes)"""
    script = (
        "printf '\\033[1msrc/a.ts(9,9)\\033[0m: error TS2322: Type string is not assignable.\\n'; "
        f"printf '{trailer}\\n' >&2; exit 2"
    )
    command_tool(project, "typecheck", ["sh", "-c", script])
    error = json.loads(cli(call.main, "typecheck").stdout)["error"]
    assert error["message"] == "'sh' exited with status 2: src/a.ts(9,9): error TS2322: Type string is not assignable."
    assert "\x1b" not in error["message"], error  # (the tails in the details stay exact)
