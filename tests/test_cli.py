"""The commands, in process: output, errors and exit statuses (DESIGN §7)."""

from __future__ import annotations

import json
import typing as t
from pathlib import Path

import click
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cogtools.cli import call, discover, porcelain, yaml_cmd
from cogtools.cli.plumbing import FLAGS, parse_plain
from cogtools.core.errors import BY_CODE, ERROR_TABLE
from cogtools.core.limits import MAX_INPUT_BYTES

from .conftest import EXAMPLES, Cli, Result, examples, write

STATUS = {code: status for code, status, _ in ERROR_TABLE}


def assert_error(result: Result, code: str, fragment: str = "") -> dict[str, t.Any]:
    """The DESIGN §7 contract: the JSON error on stdout, one line on stderr, the code's status."""
    assert result.status == STATUS[code], result
    error: dict[str, t.Any] = result.json()["error"]
    assert set(error) == {"code", "message", "tool", "details"}
    assert error["code"] == code
    assert fragment in error["message"]
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("cogtools-")
    assert f"error: {code}: " in result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    return error


def test_error_codes_have_distinct_fixed_statuses() -> None:
    statuses = [status for _, status, _ in ERROR_TABLE]
    assert len(set(statuses)) == len(statuses) and 0 not in statuses and 1 not in statuses
    assert all(BY_CODE[code].exit_status == status for code, status, _ in ERROR_TABLE)


# -- cogtools-call ----------------------------------------------------------------------------


def test_call_prints_the_result_and_nothing_on_stderr(echo_project: Path, cli: Cli) -> None:
    result = cli(call.main, "echo", stdin='{"text": "hi", "times": 2}')
    assert result == Result(0, "hi\nhi\n", "")


def test_call_applies_defaults_and_defines_absent_optionals(echo_project: Path, cli: Cli) -> None:
    assert cli(call.main, "echo", stdin='{"text": "hi"}') == Result(0, "hi\n", "")
    assert cli(call.main, "echo", stdin='{"text": "hi", "shout": true}').stdout == "HI\n"


def test_call_drops_wait_for_previous_unless_declared(echo_project: Path, cli: Cli) -> None:
    assert cli(call.main, "echo", stdin='{"text": "hi", "wait_for_previous": true}').stdout == "hi\n"
    write(
        echo_project / "tools" / "waiter.yaml",
        "description: d\nparameters:\n  wait_for_previous: {type: boolean}\nimplementation: '{{ wait_for_previous }}'\n",
    )
    assert cli(call.main, "waiter", stdin='{"wait_for_previous": true}').stdout == "True"
    assert_error(cli(call.main, "waiter", stdin='{"wait_for_previous": "yes"}'), "SCHEMA_VIOLATION")


def test_call_reads_yaml_with_the_flag(echo_project: Path, cli: Cli) -> None:
    assert cli(call.main, "--yaml", "echo", stdin="text: hi\ntimes: 2\n").stdout == "hi\nhi\n"
    assert cli(call.main, "echo", "--yaml", stdin="text: '2025-01-31'\n").stdout == "2025-01-31\n"
    assert cli(call.main, "echo", "--yaml", stdin="text: 2025-01-31\n").stdout == "2025-01-31\n"


def test_empty_stdin_means_no_arguments(project: Path, cli: Cli) -> None:
    write(project / "tools" / "hello.yaml", "description: d\nimplementation: hello\n")
    assert cli(call.main, "hello", stdin="").stdout == "hello"
    assert cli(call.main, "hello", stdin=" \n").stdout == "hello"


@pytest.mark.parametrize(
    ("stdin", "fragment"),
    [
        (b"{not json", "not valid JSON"),
        (b"[1, 2]", "must be an object, not array"),
        (b'"text"', "must be an object, not string"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b'{"text": "a", "text": "b"}', "given twice"),
        (b'{"text": NaN}', "NaN is not valid JSON"),
        (b"[" * 100_000, "levels deep"),
    ],
)
def test_call_bad_stdin_is_invalid_input(echo_project: Path, cli: Cli, stdin: bytes, fragment: str) -> None:
    assert_error(cli(call.main, "echo", stdin=stdin), "INVALID_INPUT", fragment)


def test_call_bad_yaml_stdin(echo_project: Path, cli: Cli) -> None:
    assert_error(cli(call.main, "--yaml", "echo", stdin="text: [unclosed\n"), "INVALID_INPUT", "not valid YAML")
    assert_error(cli(call.main, "--yaml", "echo", stdin="- a\n"), "INVALID_INPUT", "not array")
    assert_error(cli(call.main, "--yaml", "echo", stdin="1: a\n"), "INVALID_INPUT", "keys are strings")


def test_call_stdin_over_the_limit(echo_project: Path, cli: Cli) -> None:
    big = b'{"text": "' + b"a" * MAX_INPUT_BYTES + b'"}'
    error = assert_error(cli(call.main, "echo", stdin=big), "INVALID_INPUT", "larger than the limit")
    assert error["details"] == {"limit_bytes": MAX_INPUT_BYTES}


def test_call_unknown_tool(echo_project: Path, cli: Cli) -> None:
    error = assert_error(cli(call.main, "ehco", stdin="{}"), "TOOL_NOT_FOUND", "did you mean 'echo'")
    assert error["tool"] == "ehco"


@pytest.mark.parametrize("name", ["../echo", "tools/echo", "..", "a..b", "/etc/passwd"])
def test_call_names_with_paths_are_refused(echo_project: Path, cli: Cli, name: str) -> None:
    error = assert_error(cli(call.main, "--", name, stdin="{}"), "TOOL_NOT_FOUND", "not a valid tool name")
    assert error["details"]["reason"] == "invalid_name"


@pytest.mark.parametrize(
    ("stdin", "field", "fragment"),
    [
        ("{}", "text", "is required (a string) but missing"),
        ('{"text": 5}', "text", "expected a string, got integer"),
        ('{"text": "a", "times": 4}', "times", "more than the maximum 3"),
        ('{"text": "a", "times": 1.5}', "times", "expected an integer"),
        ('{"text": "a", "colour": "red"}', "colour", "not a known name (declared: text, times, shout)"),
        ('{"text": null}', "text", "null is not allowed"),
    ],
)
def test_call_schema_violations_name_the_field(
    echo_project: Path, cli: Cli, stdin: str, field: str, fragment: str
) -> None:
    error = assert_error(cli(call.main, "echo", stdin=stdin), "SCHEMA_VIOLATION", fragment)
    (violation,) = error["details"]["violations"]
    assert violation["field"] == field and violation["accepted"]
    assert error["tool"] == "echo"


def test_call_broken_definition_is_definition_invalid(project: Path, cli: Cli) -> None:
    write(project / "tools" / "broken.yaml", "description: d\nimplementation: '{% if x %}'\n")
    error = assert_error(cli(call.main, "broken", stdin="{}"), "DEFINITION_INVALID", "template syntax error")
    assert error["details"]["file"] == "tools/broken.yaml" and error["details"]["line"] == 2
    write(project / "tools" / "typo.yaml", "descripton: d\nimplementation: x\n")
    assert_error(cli(call.main, "typo", stdin="{}"), "DEFINITION_INVALID", "unknown key 'descripton'")
    write(project / "tools" / "notyaml.yaml", "description: [\n")
    assert_error(cli(call.main, "notyaml", stdin="{}"), "DEFINITION_INVALID", "invalid YAML")


@pytest.mark.parametrize(
    ("template", "reason", "fragment"),
    [
        ("{{ ''.__class__.__mro__ }}", "sandbox", "__class__"),
        ("{{ text.__init__.__globals__ }}", "sandbox", "__init__"),
        ("{{ cycler.__init__.__globals__.os }}", "sandbox", "__init__"),
    ],
)
def test_templates_cannot_reach_python_internals(
    project: Path, cli: Cli, template: str, reason: str, fragment: str
) -> None:
    write(
        project / "tools" / "evil.yaml",
        f'description: d\nparameters:\n  text: {{type: string}}\nimplementation: "{template}"\n',
    )
    error = assert_error(cli(call.main, "evil", stdin='{"text": "x"}'), "RENDER_FAILED", fragment)
    assert error["details"]["reason"] == reason


@pytest.mark.parametrize(
    ("definition", "fragment", "line"),
    [
        (
            'parameters:\n  name: {type: string}\nimplementation: "Hello, {{ nmae }}!"\n',
            "uses 'nmae', which is not a parameter (did you mean 'name'?)",
            4,
        ),
        (
            "parameters:\n  name: {type: string}\nimplementation: |\n  Hello,\n  {{ name }}\n  {{ nmae }}\n",
            "(did you mean 'name'?)",
            7,
        ),
        ('implementation: "{{ env.HOME }}"\n', "declares no `environment`; add `environment: [HOME]`", 2),
        (
            'environment: [USER]\nimplementation: "{{ env.HOME }}"\n',
            "reads env.HOME, which `environment` does not list",
            3,
        ),
        (
            "implementation: {kind: command, argv: [echo, '{{ msg }}']}\n",
            "uses 'msg', which is not a parameter; declare 'msg'",
            None,
        ),
        (
            "parameters:\n  max-len: {type: integer}\nimplementation: '{{ max-len }}'\n",
            "'max-len' cannot be named in a template, where '-' subtracts; rename it 'max_len'",
            4,
        ),
    ],
    ids=["typo", "multi-line", "env-without-environment", "env-not-listed", "command-argv", "hyphen"],
)
def test_a_template_name_that_is_not_declared_is_a_load_error(
    project: Path, cli: Cli, definition: str, fragment: str, line: int | None
) -> None:
    """kinds.md's promise: a typo cannot slip through to fail every call; it is a load error
    (at the template's own line), seen by discovery --strict, test and call alike."""
    write(project / "tools" / "greet.yaml", "description: Greet.\n" + definition)
    error = assert_error(cli(call.main, "greet", stdin='{"name": "Ada"}'), "DEFINITION_INVALID", fragment)
    assert error["details"].get("line") == line
    assert cli(discover.main, "--strict").status == STATUS["DEFINITION_INVALID"]


def test_template_failing_at_render(project: Path, cli: Cli) -> None:
    write(
        project / "tools" / "div.yaml",
        "description: d\nparameters:\n  n: {type: integer}\nimplementation: '{{ 10 / n }}'\n",
    )
    assert cli(call.main, "div", stdin='{"n": 4}').stdout == "2.5"
    assert_error(cli(call.main, "div", stdin='{"n": 0}'), "RENDER_FAILED", "ZeroDivisionError")


def test_call_usage_errors_are_json_too(echo_project: Path, cli: Cli) -> None:
    assert_error(cli(call.main, stdin="{}"), "USAGE", "Missing argument 'NAME'")
    assert_error(cli(call.main, "--frobnicate", "echo", stdin="{}"), "USAGE", "No such option")
    assert_error(cli(call.main, "echo", "extra", stdin="{}"), "USAGE", "unexpected extra argument")


def test_call_verbose_explains_resolution(echo_project: Path, cli: Cli) -> None:
    result = cli(call.main, "--verbose", "echo", stdin='{"text": "hi"}')
    assert result.stdout == "hi\n"
    assert f"project root: {echo_project} (by .cogtoolrc.yaml)" in result.stderr
    assert "echo: tools/echo.yaml (source local:./tools, format yaml)" in result.stderr


def test_help_and_version(cli: Cli) -> None:
    for main, prog in (
        (call.main, "cogtools-call"),
        (yaml_cmd.main, "cogtools-yaml"),
        (discover.main, "cogtools-discover"),
        (porcelain.main, "cogtools"),
    ):
        result = cli(main, "--help")
        assert result.status == 0 and result.stdout.startswith(f"Usage: {prog} ")
        assert cli(main, "--version") == Result(0, f"{prog} 0.1.0\n", "")


# The plain command line of cogtools-call and cogtools-yaml skips click; it must mean what
# click would make of it.

ARGV_WORDS = st.sampled_from(
    [
        *["--yaml", "-v", "--verbose", "--", "-", "echo", "x", "--help", "-V", "-vv", "--y", "-x"],
        *["--role", "admin", "--role=admin", "--role=root", "--role=", "ai_agent", "--rol"],
    ]
)


@pytest.mark.parametrize("module", [call, yaml_cmd])
@settings(max_examples=examples(300), deadline=None)
@given(argv=st.lists(ARGV_WORDS, max_size=5))
def test_plain_parse_agrees_with_click(module: t.Any, argv: list[str]) -> None:
    plain = parse_plain(argv)
    if plain is None:
        return
    command = module.command()
    ctx = command.make_context(command.name, list(argv), resilient_parsing=False)
    params = dict(ctx.params)
    positional = params.pop("name", None) or params.pop("file", None)
    assert (positional, params) == (plain[0], plain[1]._asdict())


@pytest.mark.parametrize("module", [call, yaml_cmd])
def test_plain_flags_are_the_commands_flags(module: t.Any) -> None:
    flags = {
        opt: param.name
        for param in module.command().params
        if isinstance(param, click.Option) and param.is_flag and param.name not in ("version",)
        for opt in param.opts
    }
    assert flags == FLAGS


# -- cogtools-yaml ------------------------------------------------------------------------------


def test_yaml_runs_a_file(tmp_path: Path, cli: Cli) -> None:
    args = {"facepalm": "F", "what_happened": "W", "but_really": "B", "therefore": "T", "next": "N", "remarks": "R"}
    result = cli(yaml_cmd.main, str(EXAMPLES / "tools" / "facepalm.yaml"), stdin=json.dumps(args))
    assert result.status == 0 and result.stderr == ""
    assert result.stdout.startswith("# Facepalm\n\nF\n\n## What Happened?\n\nW\n")
    assert "## Remarks\n\nR\n" in result.stdout


def test_yaml_errors(tmp_path: Path, cli: Cli) -> None:
    assert_error(cli(yaml_cmd.main, str(tmp_path / "missing.yaml"), stdin="{}"), "TOOL_NOT_FOUND", "no such tool file")
    assert_error(cli(yaml_cmd.main, str(tmp_path), stdin="{}"), "TOOL_NOT_FOUND", "is a directory")
    bad = write(tmp_path / "bad.yaml", "description: d\n")
    assert_error(
        cli(yaml_cmd.main, str(bad), stdin="{}"), "DEFINITION_INVALID", "'implementation' is a required property"
    )
    assert_error(cli(yaml_cmd.main, str(EXAMPLES / "tools" / "facepalm.yaml"), stdin="{}"), "SCHEMA_VIOLATION")


# -- cogtools-discover --------------------------------------------------------------------------


def test_discover_prints_only_json_sorted(echo_project: Path, cli: Cli) -> None:
    write(echo_project / "tools" / "alpha.yaml", "description: first\nimplementation: a\n")
    result = cli(discover.main)
    assert result.status == 0 and result.stderr == ""
    declarations = result.json()
    assert [d["name"] for d in declarations] == ["alpha", "echo"]
    assert declarations[1]["parametersJsonSchema"]["properties"]["times"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 3,
        "default": 1,
        "description": "How many times.",
    }


def test_discover_reports_broken_definitions_and_still_succeeds(echo_project: Path, cli: Cli) -> None:
    write(echo_project / "tools" / "broken.yaml", "description: d\nimplementation: '{{ unclosed'\n")
    write(echo_project / "tools" / "typo.yaml", "descripton: d\nimplementation: x\n")
    result = cli(discover.main)
    assert result.status == 0
    assert [d["name"] for d in result.json()] == ["echo", "cogtools_problems"]
    lines = result.stderr.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(
        "cogtools-discover: skipped: DEFINITION_INVALID: tools/broken.yaml:2: implementation: template syntax error"
    )
    assert (
        lines[1]
        == "cogtools-discover: skipped: DEFINITION_INVALID: tools/typo.yaml:1: descripton: unknown key 'descripton' (did you mean 'description'?)"
    )
    strict = cli(discover.main, "--strict")
    assert strict.status == STATUS["DEFINITION_INVALID"] and strict.stdout == ""
    assert "2 broken definitions (--strict)" in strict.stderr


def test_a_skip_line_says_how_many_more_problems_its_file_has(echo_project: Path, cli: Cli) -> None:
    write(
        echo_project / "tools" / "bad tool.yaml",
        "descripton: x\nparameters:\n  a: {type: strin}\nimplementation: '{{ a }'\n",
    )
    write(echo_project / "tools" / "typo.yaml", "descripton: d\nimplementation: x\n")
    lines = sorted(cli(discover.main).stderr.splitlines())
    # (four: the key, the type, the template, and a name that a file name with a space cannot give)
    assert lines[0].endswith("(and 3 more: `cogtools lint 'tools/bad tool.yaml'` shows them all)"), lines[0]
    assert lines[1].endswith("(did you mean 'description'?)")  # one problem: nothing added


def test_discover_yaml_for_people(echo_project: Path, cli: Cli) -> None:
    import yaml

    result = cli(discover.main, "--yaml")
    assert result.status == 0
    assert yaml.safe_load(result.stdout) == cli(discover.main).json()
    assert "description: Say something back." in result.stdout


@pytest.mark.parametrize("fmt", ["gemini-cli", "gemini-api", "mcp", "openai", "anthropic"])
def test_discover_formats(echo_project: Path, cli: Cli, fmt: str) -> None:
    result = cli(discover.main, "--format", fmt)
    assert result.status == 0 and isinstance(result.json(), list) and len(result.json()) == 1


def test_discover_reports_what_a_format_drops(project: Path, cli: Cli) -> None:
    write(
        project / "tools" / "t.yaml",
        "description: d\nparameters:\n  n: {type: integer, multipleOf: 2}\nimplementation: x\n",
    )
    result = cli(discover.main, "--format", "gemini-api")
    assert result.status == 0 and "multipleOf" not in result.stdout
    assert (
        result.stderr
        == "cogtools-discover: note: t: n: `multipleOf` dropped: the Gemini API schema has no `multipleOf`\n"
    )


def test_discover_bad_format_is_usage(cli: Cli) -> None:
    result = cli(discover.main, "--format", "soap")
    assert result.status == STATUS["USAGE"] and result.stdout == ""
    assert "'soap' is not one of" in result.stderr


def test_discover_in_an_empty_directory(cli: Cli) -> None:
    assert cli(discover.main) == Result(0, "[]\n", "")


def test_discover_shadowed_tools_are_reported(echo_project: Path, cli: Cli) -> None:
    write(echo_project / "tools" / "z" / "echo2.yaml", "name: echo\ndescription: d\nimplementation: x\n")
    result = cli(discover.main)
    assert len(result.json()) == 1
    assert result.stderr == "cogtools-discover: warning: echo: tools/z/echo2.yaml is shadowed by tools/echo.yaml\n"


def test_broken_configuration_is_config_invalid(echo_project: Path, cli: Cli) -> None:
    write(echo_project / ".cogtoolrc.yaml", "tool_source: []\n")
    error = assert_error(cli(call.main, "echo", stdin='{"text": "hi"}'), "CONFIG_INVALID", "unknown key 'tool_source'")
    assert error["details"]["file"] == str(echo_project / ".cogtoolrc.yaml") and error["details"]["line"] == 1
    # discovery still answers (Gemini CLI would not start otherwise), with the tool that says why
    result = cli(discover.main)
    assert result.status == 0 and "error: CONFIG_INVALID" in result.stderr
    [declaration] = result.json()
    assert declaration["name"] == "cogtools_problems" and "unknown key 'tool_source'" in declaration["description"]
    report = json.loads(cli(call.main, "cogtools_problems", stdin='{"wait_for_previous": true}').stdout)
    assert report["problems"][0]["check"] == "project" and "tool_sources" in report["problems"][0]["message"]
    strict = cli(discover.main, "--strict")
    assert strict.status == STATUS["CONFIG_INVALID"] and strict.stdout == ""
    assert_error(cli(call.main, "cogtools_problems", stdin='{"x": 1}'), "SCHEMA_VIOLATION", "x")


@pytest.mark.parametrize(
    ("definition", "fragment"),
    [
        ("risk_level: lo\n", "'lo' is not one of low, medium, high, safe, caution, elevated (did you mean 'low'?)"),
        ("min_role: admn\n", "(did you mean 'admin'?)"),
        ("parameters:\n  a:\n    type: string\n    required: false\n", "write `optional: true` for `required: false`"),
        ("parameters:\n  a:\n    type: string\n    required: true\n", "remove `required: true`"),
        ("parameters:\n  a:\n  type: string\n", "'type' is beside the parameters, not under one"),
        ("parameters:\n  a:\n", "the parameter 'a' has no schema: indent its keys"),
        ('parameters:\n  a: {type: [integer, "null"]}\n', "writes `type: integer` with `nullable: true`"),
        (
            "parameters:\n  a: {tpye: integer, minimun: 1}\n",
            "'minimun' (did you mean 'minimum'?), 'tpye' (did you mean 'type'?)",
        ),
        ("parameters:\n  a:\n\ttype: string\n", "indented with a tab, and YAML indents with spaces only"),
    ],
    ids=[
        "risk-level",
        "min-role",
        "required-false",
        "required-true",
        "not-indented",
        "no-schema",
        "type-list",
        "two-typos",
        "tab",
    ],
)
def test_a_definition_mistake_gets_a_message_that_teaches(
    project: Path, cli: Cli, definition: str, fragment: str
) -> None:
    write(project / "tools" / "t.yaml", "description: d\n" + definition + "implementation: x\n")
    assert_error(cli(call.main, "t", stdin="{}"), "DEFINITION_INVALID", fragment)


def test_outside_a_project_commands_say_so(isolated: Path, cli: Cli) -> None:
    """No .cogtoolrc.yaml, .gemini/ or .git here or above: the read-only commands say there is no
    project and how to make one; sync, which would write GEMINI.md anywhere, refuses."""
    from cogtools.cli import porcelain

    for argv in (("list",), ("lint",), ("test",)):
        result = cli(porcelain.main, *argv)
        assert "no cogtools project here" in result.stderr and "`cogtools init` makes one" in result.stderr, argv
    refused = cli(porcelain.main, "sync")
    assert refused.status == STATUS["USAGE"] and "no cogtools project here" in refused.stderr
    assert list(isolated.iterdir()) == []


def test_which_and_search_help_a_near_miss(echo_project: Path, cli: Cli) -> None:
    write(
        echo_project / "tools" / "a_much_longer_name.yaml",
        "description: Echo the text back, longer.\nimplementation: x\n",
    )
    missed = cli(porcelain.main, "which", "ecko")
    assert missed.status == STATUS["TOOL_NOT_FOUND"] and "(did you mean 'echo'?)" in missed.stderr
    assert cli(porcelain.main, "search", "xyzzy").stdout == "no tool matches 'xyzzy' (among 2 tools; try other words)\n"
    lines = cli(porcelain.main, "search", "echo").stdout.splitlines()
    assert len(lines) == 2 and len({line.index(" ", 8 + len("a_much_longer_name")) for line in lines}) == 1


def test_json_definition_errors_name_their_line(project: Path, cli: Cli) -> None:
    write(
        project / "tools" / "j.json",
        '{\n  "description": "d",\n  "parameters": {\n    "a": {"tpye": "integer"}\n  },\n  "implementation": "x"\n}\n',
    )
    error = assert_error(cli(call.main, "j", stdin="{}"), "DEFINITION_INVALID", "'tpye' (did you mean 'type'?)")
    assert error["details"]["line"] == 4
    write(
        project / "tools" / "many.json",
        '[\n {"name": "a", "description": "d", "implementation": "x"},\n {"name": "b", "descripton": "d", "implementation": "x"}\n]\n',
    )
    assert assert_error(cli(call.main, "b", stdin="{}"), "DEFINITION_INVALID", "descripton")["details"]["line"] == 3


def test_a_name_too_long_says_the_limit(project: Path, cli: Cli) -> None:
    write(project / "tools" / "long.yaml", "name: " + "a" * 60 + "\ndescription: d\nimplementation: x\n")
    report = cli(porcelain.main, "lint", "--format", "json")
    [finding] = json.loads(report.stdout)["findings"]
    assert finding["message"].endswith("has 60 characters; a tool name has at most 48")


def test_a_person_calls_as_a_role_of_their_own(project: Path, cli: Cli) -> None:
    """``--role`` is COGTOOLS_ROLE on the command line: for a person's own call (an agent gets
    the configured role); every way of reaching the plumbing takes it (each entry point's own
    ``main``, in process: what the console script runs)."""
    write(project / "tools" / "restart.yaml", "description: Restart.\nimplementation: restarted\nmin_role: admin\n")
    denied = cli(call.main, "restart", stdin="{}")  # hidden from the role: not there for it
    assert denied.status != 0 and "no tool named 'restart'" in denied.stdout
    for main, *argv in (
        (call.main, "--role", "admin", "restart"),
        (call.main, "--role=admin", "restart"),
        (porcelain.main, "call", "--role", "admin", "restart"),
        (yaml_cmd.main, "--role", "admin", "tools/restart.yaml"),
    ):
        done = cli(main, *argv, stdin="{}")
        assert (done.status, done.stdout) == (0, "restarted"), argv
    lower = cli(call.main, "--role", "human_agent", "restart", stdin="{}")
    assert "no tool named 'restart'" in lower.stdout
    lower = cli(yaml_cmd.main, "--role", "human_agent", "tools/restart.yaml", stdin="{}")
    assert "it needs admin or above, and the role is human_agent" in lower.stdout
    bad = cli(call.main, "--role", "root", "restart", stdin="{}")
    assert bad.status == 2 and "'root' is not one of 'ai_agent', 'human_agent', 'admin'" in bad.stdout
