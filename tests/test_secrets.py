"""Secrets: declared, resolved from the .env, the process environment or a file, and never shown."""

from __future__ import annotations

import json
import os
import typing as t
from pathlib import Path

import pytest

from cogtools.cli import call
from cogtools.core.errors import ERROR_TABLE

from .conftest import Cli, run_script, write

STATUS = {code: status for code, status, _ in ERROR_TABLE}
SECRET = "s3cr3t-Value-Only-Here"
SHORT = "xy"  # a secret shorter than the scrubber's usual minimum is masked all the same

#: A tool that declares the secret and does everything a tool can do with it: says it, fails
#: with it on stderr, puts it in an argument, and has examples that show it.
LEAKY = {
    "description": "Use a token.",
    "parameters": {"mode": {"type": "string", "enum": ["say", "fail", "short"]}},
    "environment": [{"name": "API_TOKEN", "secret": True}, {"name": "PIN", "secret": True}, "PLAIN"],
    "examples": [
        {"arguments": {"mode": "say"}, "expect": {"output": "nothing like it"}},
        {"arguments": {"mode": "fail"}},
    ],
    "implementation": {
        "kind": "command",
        "argv": [
            "sh",
            "-c",
            'if [ "$1" = fail ]; then echo "token $API_TOKEN rejected" >&2; exit 3; fi; echo "token=$API_TOKEN pin=$PIN arg=$2"',
            "sh",
            "{{ mode }}",
            "{{ env.API_TOKEN }}",
        ],
    },
}

#: A tool that does not declare the secret: it must not see it.
OTHER = {
    "description": "Print the environment.",
    "implementation": {"kind": "command", "argv": ["env"]},
}


@pytest.fixture
def secret_project(project: Path) -> Path:
    write(project / "tools" / "leaky.json", json.dumps(LEAKY))
    write(project / "tools" / "other.json", json.dumps(OTHER))
    write(project / ".env", f"API_TOKEN={SECRET}\nPIN={SHORT}\n")
    return project


def outputs(project: Path) -> list[tuple[str, t.Any]]:
    """Every way cogtools prints something about the project's tools, as real processes."""
    env = {**os.environ, "COGTOOLS_DEBUG": "1"}
    runs: list[tuple[str, t.Any]] = []
    for mode in ("say", "fail", "short"):
        runs.append(
            (
                "call " + mode,
                run_script("cogtools-call", "-v", "leaky", stdin=json.dumps({"mode": mode}), cwd=project, env=env),
            )
        )
        runs.append(
            (
                "dry run " + mode,
                run_script("cogtools-call", "--dry-run", "leaky", stdin=json.dumps({"mode": mode}), cwd=project),
            )
        )
        runs.append(
            (
                "yaml " + mode,
                run_script("cogtools-yaml", "-v", "tools/leaky.json", stdin=json.dumps({"mode": mode}), cwd=project),
            )
        )
    runs.append(("other", run_script("cogtools-call", "other", cwd=project)))
    for args in (
        ["config", "--show-origin"],
        ["lint", "--strict"],
        ["list"],
        ["which", "leaky"],
        ["doctor"],
        ["test", "--junit-xml", str(project / "report.xml")],
        ["search", "token"],
        ["discover"],
        *(["discover", "--format", fmt] for fmt in ("gemini-api", "mcp", "openai", "openai-responses", "anthropic")),
        ["sync"],
    ):
        runs.append((" ".join(args), run_script("cogtools", *args, cwd=project, env=env)))
    runs.append(("junit report", (project / "report.xml").read_text()))
    return runs


@pytest.mark.slow
def test_a_secret_is_shown_nowhere(secret_project: Path) -> None:
    runs = outputs(secret_project)
    for what, result in runs:
        text = result if isinstance(result, str) else result.stdout + result.stderr
        assert SECRET not in text and f"pin={SHORT}" not in text, f"{what} shows the secret: {text}"
    said = dict(runs)
    # It did reach the tool, masked on the way out; the tool that did not declare it never saw it.
    assert said["call say"].stdout == "token=*** pin=*** arg=***\n"
    assert said["call fail"].status == STATUS["EXECUTION_FAILED"] and "token *** rejected" in said["call fail"].stdout
    assert "API_TOKEN" not in said["other"].stdout and said["other"].status == 0
    assert '"secrets": [\n    "API_TOKEN",\n    "PIN"\n  ]' in said["dry run say"].stdout


def test_a_missing_secret_names_the_variable_and_where_it_was_looked_for(secret_project: Path, cli: Cli) -> None:
    write(secret_project / ".env", "PLAIN=1\n")
    result = cli(call.main, "leaky", stdin='{"mode": "say"}')
    error = result.json()["error"]
    assert result.status == STATUS["CONFIG_INVALID"] and error["details"]["variable"] == "API_TOKEN"
    assert (
        error["message"]
        == f"the secret API_TOKEN is not set: it is looked for in {secret_project / '.env'}, then the process environment"
    )
    # A dry run checks the secrets too: its exit status is a real call's.
    assert cli(call.main, "--dry-run", "leaky", stdin='{"mode": "say"}').status == STATUS["CONFIG_INVALID"]


def test_an_empty_secret_is_missing(secret_project: Path, cli: Cli) -> None:
    write(secret_project / ".env", "API_TOKEN=\nPIN=1234\n")
    assert cli(call.main, "leaky", stdin='{"mode": "say"}').json()["error"]["details"]["variable"] == "API_TOKEN"


def test_the_process_environment_and_the_priority(
    secret_project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("API_TOKEN", "from-the-process")
    write(secret_project / ".env", f"PIN={SHORT}\n")
    assert cli(call.main, "leaky", stdin='{"mode": "say"}').stdout == "token=*** pin=*** arg=***\n"
    write(secret_project / ".env", f"API_TOKEN={SECRET}\nPIN={SHORT}\n")
    error = cli(call.main, "--system-env", "leaky", stdin='{"mode": "fail"}').json()["error"]
    assert error["details"]["stderr_tail"] == "token *** rejected\n"


def test_a_secret_from_a_file(project: Path, cli: Cli, isolated: Path) -> None:
    definition = {
        "description": "Say a token.",
        "environment": [{"name": "TOKEN", "secret": True, "file": "~/.config/acme/token"}],
        "implementation": {"kind": "command", "argv": ["sh", "-c", 'printf "%s" "$TOKEN" | wc -c']},
    }
    write(project / "tools" / "tok.json", json.dumps(definition))
    home = Path(os.environ["HOME"])
    error = cli(call.main, "tok").json()["error"]
    assert error["details"]["looked_in"] == [
        str(project / ".env"),
        "the process environment",
        str(home / ".config/acme/token"),
    ]
    write(home / ".config" / "acme" / "token", "0123456789\n")  # the final newline is not part of it
    assert cli(call.main, "tok").stdout.strip() == "10"
    write(project / ".env", "TOKEN=abc\n")  # the .env and the process environment come first
    assert cli(call.main, "tok").stdout.strip() == "3"


def test_a_value_file_that_is_not_a_small_regular_file(project: Path, cli: Cli) -> None:
    definition = {
        "description": "Say a token.",
        "environment": [{"name": "TOKEN", "secret": True, "file": "secrets/token"}],
        "implementation": "{{ env.TOKEN | length }}",
    }
    write(project / "tools" / "tok.json", json.dumps(definition))
    (project / "secrets" / "token").mkdir(parents=True)
    assert cli(call.main, "tok").json()["error"]["code"] == "CONFIG_INVALID"
    (project / "secrets" / "token").rmdir()
    (project / "secrets" / "token").write_bytes(b"x" * (64 * 1024 + 1))
    error = cli(call.main, "tok").json()["error"]
    assert error["code"] == "CONFIG_INVALID" and "xxxx" not in json.dumps(error)
    (project / "secrets" / "token").write_bytes(b"\xff\xfe")
    assert cli(call.main, "tok").json()["error"]["code"] == "CONFIG_INVALID"


@pytest.mark.parametrize(
    ("environment", "message"),
    [
        ([{"name": "A", "secret": "yes"}], "is not of type 'boolean'"),
        ([{"name": "A", "vault": "x"}], "'vault'"),
        ([{"secret": True}], "'name' is a required property"),
        (["A", {"name": "A", "secret": True}], "the variable 'A' is declared twice"),
        ([{"name": "A-B"}], "does not match"),
    ],
)
def test_a_bad_declaration(project: Path, cli: Cli, environment: list[t.Any], message: str) -> None:
    write(
        project / "tools" / "bad.json",
        json.dumps({"description": "bad", "environment": environment, "implementation": "x"}),
    )
    result = cli(call.main, "bad")
    assert result.status == STATUS["DEFINITION_INVALID"] and message in result.json()["error"]["message"], result


def test_a_python_tool_masks_its_secret_in_a_traceback(
    project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(project / "lib" / "leaks.py", "def leak(env):\n    raise RuntimeError('bad token ' + env['TOKEN'])\n")
    write(project / ".cogtoolrc.yaml", "python_path: [lib]\n")
    write(project / ".env", f"TOKEN={SECRET}\n")
    definition = {
        "description": "Leak.",
        "environment": [{"name": "TOKEN", "secret": True}],
        "implementation": {"kind": "python", "callable": "leaks:leak"},
    }
    write(project / "tools" / "leak.json", json.dumps(definition))
    monkeypatch.setenv("COGTOOLS_DEBUG", "1")
    result = cli(call.main, "leak")
    assert result.status == STATUS["EXECUTION_FAILED"] and SECRET not in result.stdout + result.stderr
    assert "bad token ***" in result.json()["error"]["details"]["traceback"]
