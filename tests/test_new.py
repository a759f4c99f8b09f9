"""``cogtools new``: a new tool file that lints clean and whose example passes, as generated.

``cogtools new`` runs in process (``cli``) but on a terminal: ``test_prompts_on_a_terminal`` and
``test_the_prompt_refuses_a_parameter_name_that_param_refuses`` keep the real process (a
pseudo-terminal), and so does ``test_a_node_tool_lints_and_tests_clean`` (slow)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from cogtools.cli import porcelain
from cogtools.core.errors import ERROR_TABLE
from cogtools.load.catalog import load_catalog

from .conftest import BIN, Cli

STATUS = {code: status for code, status, _ in ERROR_TABLE}


@pytest.mark.parametrize("fmt", ["yaml", "toml", "json"])
@pytest.mark.parametrize("kind", ["template", "command"])
def test_round_trip(project: Path, cli: Cli, fmt: str, kind: str) -> None:
    params = [
        *(["--end-of-options"] if kind == "command" else []),  # echo's values, after '--', lint clean
        "--param",
        "text:string:The text to show.",
        "--param",
        "count:integer",
        "--param",
        "flag:boolean",
        "--param",
        "ratio:number",
    ]
    created = cli(
        porcelain.main,
        "new",
        "shiny",
        "--format",
        fmt,
        "--kind",
        kind,
        "--description",
        "Show things.",
        *params,
        "--non-interactive",
    )
    path = project / "tools" / f"shiny.{fmt}"
    assert created.status == 0 and created.stdout.startswith(f"created {path}\nnext: `cogtools lint tools/shiny.{fmt}`")
    assert "then `cogtools sync`" in created.stdout and "it is an action tool" in created.stdout
    lint = cli(porcelain.main, "lint", "--strict")
    assert lint.status == 0, lint.stdout
    test = cli(porcelain.main, "test")
    assert test.stdout == "PASS shiny[0]\n1 passed, 0 failed\n"
    if fmt == "yaml":
        assert os.access(path, os.X_OK) and path.read_text().startswith("#! /usr/bin/env cogtools-yaml\n")


def test_a_command_tool_of_another_program_passes_its_own_test(project: Path, cli: Cli) -> None:
    """Its example cannot be guessed: none is written, and new says to write one."""
    created = cli(
        porcelain.main,
        "new",
        "now",
        "--kind",
        "command",
        "--program",
        "date",
        "--param",
        "fmt:string",
        "--non-interactive",
    )
    assert "write one that date accepts under `examples`" in created.stdout
    assert cli(porcelain.main, "test", "now").status == 0


@pytest.mark.parametrize("fmt", ["yaml", "toml", "json"])
def test_http_and_python_tools(project: Path, cli: Cli, fmt: str) -> None:
    """Their examples cannot be guessed either; what is written loads, and runs."""
    created = cli(
        porcelain.main,
        "new",
        "web",
        "--format",
        fmt,
        "--kind",
        "http",
        "--url",
        "https://api.example.com/v1/find",
        "--param",
        "q",
        "--non-interactive",
    )
    assert (
        created.status == 0
        and "write one that https://api.example.com/v1/find accepts under `examples`" in created.stdout
    )
    shown = cli(porcelain.main, "call", "--dry-run", "web", stdin='{"q": "a b"}').json()
    assert shown["url"] == "https://api.example.com/v1/find?q=a+b" and shown["method"] == "GET"
    created = cli(
        porcelain.main,
        "new",
        "month",
        "--format",
        fmt,
        "--kind",
        "python",
        "--callable",
        "calendar:month",
        "--param",
        "theyear:integer",
        "--param",
        "themonth:integer",
        "--non-interactive",
    )
    assert created.status == 0 and "write one that calendar:month accepts" in created.stdout
    assert cli(porcelain.main, "call", "month", stdin='{"theyear": 2026, "themonth": 1}').stdout.startswith(
        "    January 2026\n"
    )
    findings = cli(porcelain.main, "lint").stdout
    assert "error" not in findings.replace("0 errors", "") and "examples-missing" in findings


def test_toml_is_written_by_a_toml_writer(project: Path, cli: Cli) -> None:
    created = cli(
        porcelain.main,
        "new",
        "accents",
        "--format",
        "toml",
        "--description",
        'Crème brûlée, "quoted" \\ and all.',
        "--param",
        'x:string:Ünïcode, "quoted"',
        "--non-interactive",
    )
    assert created.status == 0
    tool = load_catalog().get("accents")
    assert (
        tool.description == 'Crème brûlée, "quoted" \\ and all.'
        and tool.parameters[0].schema["description"] == 'Ünïcode, "quoted"'
    )


def test_the_prompt_refuses_a_parameter_name_that_param_refuses(project: Path) -> None:
    """Interactive `new` asks again for a name --param would refuse."""
    import pty
    import time

    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [str(BIN / "cogtools"), "new", "asked", "--description", "Asked."],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        cwd=project,
    )
    os.close(follower)
    shown = b""
    answers = iter([b"max-len\n", b"max_len\n", b"\n", b"The limit.\n", b"n\n"])
    deadline = time.monotonic() + 30
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            chunk = os.read(leader, 4096)
        except OSError:
            break
        shown += chunk
        if chunk.rstrip().endswith((b"]:", b":", b"?")):
            answer = next(answers, None)
            if answer is not None:
                os.write(leader, answer)
    proc.wait(timeout=10)
    os.close(leader)
    text = shown.decode("utf-8", "replace")
    assert "'max-len' is not a parameter name" in text, text
    assert load_catalog().get("asked").parameters[0].name == "max_len"


def test_no_parameters(project: Path, cli: Cli) -> None:
    assert cli(porcelain.main, "new", "bare", "--non-interactive").status == 0
    assert cli(porcelain.main, "lint", "--strict").status == 0 and cli(porcelain.main, "test").status == 0


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["bad name"], "cannot be a tool name"),
        (["ok", "--param", "1x:string"], "is not a parameter name"),
        (["ok", "--param", "x:date"], "the type is one of"),
        (["ok", "--kind", "http"], "--kind http needs --url URL"),
        (
            ["ok", "--kind", "http", "--url", "ftp://example.com/x"],
            "the new tool would not load: `url` is http:// or https://",
        ),
        (["ok", "--kind", "python"], "--kind python needs --callable MODULE:FUNCTION"),
        (
            ["ok", "--kind", "python", "--callable", "calendar"],
            "the new tool would not load: `callable` is MODULE:FUNCTION",
        ),
    ],
)
def test_bad_input(project: Path, cli: Cli, args: list[str], fragment: str) -> None:
    result = cli(porcelain.main, "new", *args, "--non-interactive")
    assert result.status == STATUS["USAGE"] and fragment in result.stderr
    assert list((project / "tools").iterdir()) == []


def test_an_existing_file_is_kept_without_force(project: Path, cli: Cli) -> None:
    cli(porcelain.main, "new", "one", "--non-interactive")
    path = project / "tools" / "one.yaml"
    path.write_text("mine\n")
    result = cli(porcelain.main, "new", "one", "--non-interactive")
    assert result.status == STATUS["USAGE"] and "exists" in result.stderr and path.read_text() == "mine\n"
    assert cli(porcelain.main, "new", "one", "--non-interactive", "--force").status == 0
    assert path.read_text() != "mine\n"


def test_prompts_on_a_terminal(project: Path) -> None:
    import pty

    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [str(BIN / "cogtools"), "new", "asked"],
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=project,
    )
    os.close(slave)
    os.write(master, b"Say hello.\nwho\nstring\nWhom to greet.\nn\n")
    out, err = proc.communicate(timeout=60)
    os.close(master)
    assert proc.returncode == 0, err
    assert "What does the tool do (for the model)?" in out.decode()
    text = (project / "tools" / "asked.yaml").read_text()
    assert "description: Say hello." in text and "description: Whom to greet." in text


def test_a_command_tools_values_follow_the_program_unless_asked(project: Path, cli: Cli) -> None:
    """The finding: `argv: [git, --, '{{ limit }}']`, which git refuses. The values follow the
    program as they are; '--' only with --end-of-options; new says what lint will."""
    import yaml

    created = cli(
        porcelain.main,
        "new",
        "git_log",
        "--kind",
        "command",
        "--program",
        "git",
        "--param",
        "limit:integer",
        "--non-interactive",
    )
    assert "could be read as an option" in created.stdout and "--end-of-options" in created.stdout
    argv = yaml.safe_load((project / "tools" / "git_log.yaml").read_text())["implementation"]["argv"]
    assert argv == ["git", "{{ limit }}"]
    cli(
        porcelain.main,
        "new",
        "grep_it",
        "--kind",
        "command",
        "--program",
        "grep",
        "--param",
        "pattern",
        "--end-of-options",
        "--non-interactive",
    )
    argv = yaml.safe_load((project / "tools" / "grep_it.yaml").read_text())["implementation"]["argv"]
    assert argv == ["grep", "--", "{{ pattern }}"]


def test_an_http_tools_parameter_goes_in_the_path_or_the_query_not_both(project: Path, cli: Cli) -> None:
    """The finding: `--url '.../users/{{ id }}.json'` also put `id` in the query."""
    import json as json_module

    import yaml

    url = "https://api.example.com/users/{{ id }}.json"
    assert (
        cli(
            porcelain.main,
            "new",
            "get_user",
            "--kind",
            "http",
            "--url",
            url,
            "--param",
            "id:integer",
            "--param",
            "fields",
            "--non-interactive",
        ).status
        == 0
    )
    implementation = yaml.safe_load((project / "tools" / "get_user.yaml").read_text())["implementation"]
    assert (implementation["url"], implementation["query"]) == (url, {"fields": "{{ fields }}"})
    from cogtools.cli import call

    shown = json_module.loads(cli(call.main, "--dry-run", "get_user", stdin='{"id": 7, "fields": "name"}').stdout)
    assert shown["url"] == "https://api.example.com/users/7.json?fields=name"


NODE_NEEDED = pytest.mark.skipif(__import__("shutil").which("node") is None, reason="node is not installed")


@pytest.mark.slow  # real processes: new, lint, test (node runs each example)
@NODE_NEEDED
@pytest.mark.parametrize(
    ("how", "written"),
    [
        (["shout", "--kind", "node"], "shout.mjs"),
        (["shout.mjs"], "shout.mjs"),
        (["shout.js"], "shout.js"),
        (["shout.cjs", "--kind", "node"], "shout.cjs"),
    ],
)
def test_a_node_tool_lints_and_tests_clean(project: Path, how: list[str], written: str) -> None:
    """Issue 43: `cogtools new` could not write a JavaScript tool. It writes a script with its
    header, whose example node runs, through the real commands."""
    from .conftest import run_script

    params = ["--param", "text:string:The text to shout.", "--param", "times:integer", "--param", "loud:boolean"]
    created = run_script("cogtools", "new", *how, "--description", "Shout the text.", *params, cwd=project)
    path = project / "tools" / written
    assert created.status == 0 and created.stdout.startswith(f"created {path}\n"), created
    assert path.read_text().startswith("// cogtools-tool\n// description: Shout the text.\n")
    lint = run_script("cogtools", "lint", "--strict", cwd=project)
    assert lint.status == 0, lint
    test = run_script("cogtools", "test", cwd=project)
    assert test.stdout == "PASS shout[0]\n1 passed, 0 failed\n", test
    called = run_script("cogtools-call", "shout", stdin='{"text": "hi", "times": 2, "loud": true}', cwd=project)
    assert called.status == 0 and called.stdout == "text=hi times=2 loud=true\n", called


def test_new_refuses_a_definition_format_for_a_node_tool(project: Path, cli: Cli) -> None:
    refused = cli(porcelain.main, "new", "shout.ts", "--format", "toml")
    assert refused.status == STATUS["USAGE"] and "--format" in refused.stderr, refused
    refused = cli(porcelain.main, "new", "shout.mjs", "--kind", "command")
    assert refused.status == STATUS["USAGE"] and "is a node tool (by its suffix)" in refused.stderr, refused
