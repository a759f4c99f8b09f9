"""``cogtools lint``: a fixture for every rule that must fire, and a clean file that fires none."""

from __future__ import annotations

import json
import typing as t
from pathlib import Path

import pytest

from cogtools.cli import porcelain
from cogtools.services.lint import RULES

from .conftest import EXAMPLES, Cli, write

CLEAN = """\
name: clean
description: Repeat a word.
parameters:
  word: {type: string, description: The word to repeat.}
  times: {type: integer, minimum: 1, maximum: 3, default: 1, optional: true, description: How often.}
examples:
  - word: hi
  - arguments: {word: hi, times: 2}
    expect: {output: "hi hi"}
implementation: "{{ ([word] * times) | join(' ') }}"
"""

#: rule -> a tool file (YAML) on which that rule, and only that rule, fires.
FIRES = {
    "definition": "name: d\ndescripton: typo\nimplementation: x\n",
    "openapi": "description: Shows n.\nparameters:\n  n: {type: integer, description: A number., externalDocs: {description: no url}}\nexamples: [{n: 2}]\nimplementation: '{{ n }}'\n",
    "dialect-loss": "description: Unique things.\nparameters:\n  xs: {type: array, items: {type: string}, uniqueItems: true, description: Things.}\nexamples: [{xs: [a]}]\nimplementation: '{{ xs }}'\n",
    "description-missing": "description: Shows p.\nparameters:\n  p: {type: string}\nexamples: [{p: a}]\nimplementation: '{{ p }}'\n",
    "description-copies-name": "description: Shows p.\nparameters:\n  user_name: {type: string, description: User name}\nexamples: [{user_name: a}]\nimplementation: '{{ user_name }}'\n",
    "type-unknown": "description: Shows a.\nparameters:\n  - {name: a, type: weird_type, description: The first., required: true}\nexamples: [{a: x}]\nimplementation: '{{ a }}'\n",
    "enum-type": "description: Shows a.\nparameters:\n  a: {type: string, enum: [on, maybe], description: The answer.}\nexamples: [{a: maybe}]\nimplementation: '{{ a }}'\n",
    "bounds-empty": "description: Shows n.\nparameters:\n  n: {type: integer, minimum: 10, maximum: 1, description: A number.}\nexamples: [Show a number.]\nimplementation: '{{ n }}'\n",
    "default-invalid": "description: Shows n.\nparameters:\n  n: {type: integer, minimum: 1, default: 0, optional: true, description: A number.}\nexamples: [{n: 2}]\nimplementation: '{{ n }}'\n",
    "example-invalid": "description: Shows n.\nparameters:\n  n: {type: integer, description: A number.}\nexamples: [{n: two}]\nimplementation: '{{ n }}'\n",
    "example-coverage": "description: Shows a and b.\nparameters:\n  a: {type: string, description: The first.}\n  b: {type: string, optional: true, description: The second.}\nexamples:\n  - arguments: {b: x}\n    expect: {error: SCHEMA_VIOLATION}\nimplementation: '{{ a }}{{ b }}'\n",
    "template-undeclared": "description: Shows a.\nparameters:\n  a: {type: string, description: The first.}\nexamples: [{a: x}]\nimplementation: '{{ a }}{{ typo }}'\n",
    "parameter-unused": "description: Shows a.\nparameters:\n  a: {type: string, description: The first.}\n  b: {type: string, optional: true, description: The second.}\nexamples: [{a: x, b: y}]\nimplementation: '{{ a }}'\n",
    "program-missing": "description: Shows a.\nparameters:\n  a: {type: string, description: The first.}\nexamples: [{a: x}]\nimplementation: {kind: command, argv: [no-such-program-here, --, '{{ a }}']}\n",
    "examples-missing": "description: Shows a.\nparameters:\n  a: {type: string, description: The first.}\nimplementation: '{{ a }}'\n",
    "option-injection": "description: Greps.\nparameters:\n  pattern: {type: string, description: What to find.}\nexamples: [{pattern: x}]\nimplementation: {kind: command, argv: [grep, '{{ pattern }}', /dev/null]}\n",
    "callable-missing": "description: Calls f.\nparameters:\n  a: {type: string, description: The first.}\nexamples: [{a: x}]\nimplementation: {kind: python, callable: 'no_such_module_here.sub:f'}\n",
    "callable-parameter": "description: Reads a docstring.\nparameters:\n  text: {type: string, description: The docstring.}\n  txet: {type: string, optional: true, description: A misspelt name.}\nexamples: [{text: x}]\nside_effects: []\nimplementation: {kind: python, callable: 'cogtools.run.signatures:parse_docstring'}\n",
    "callable-required": "description: Reads a docstring.\nparameters:\n  text: {type: string, optional: true, description: The docstring.}\nexamples: [{text: x}]\nside_effects: []\nimplementation: {kind: python, callable: 'cogtools.run.signatures:parse_docstring'}\n",
    "callable-type": "description: Reads a docstring.\nparameters:\n  text: {type: integer, description: The docstring.}\nexamples: [{text: 1}]\nside_effects: []\nimplementation: {kind: python, callable: 'cogtools.run.signatures:parse_docstring'}\n",
    "secret-exposed": "description: Logs in.\nparameters:\n  a: {type: string, description: The first.}\nexamples: [{a: x}]\nenvironment: [{name: TOKEN, secret: true}]\nimplementation: {kind: command, argv: [/bin/true, '--token={{ env.TOKEN }}', --, '{{ a }}']}\n",
    "effects-undeclared": "description: Removes a.\nparameters:\n  a: {type: string, description: The first.}\nexamples: [{a: x}]\nrisk_level: low\nside_effects: [filesystem_read]\nimplementation: {kind: command, argv: [rm, --, '{{ a }}']}\n",
    "pattern-backtracks": "description: Shows a.\nparameters:\n  a: {type: string, pattern: '^(\\w)\\1$', description: The first.}\nexamples: [{a: xx}]\nimplementation: '{{ a }}'\n",
    "unconfined": "description: Lists.\nparameters:\n  a: {type: string, description: The first.}\nexamples: [{a: x}]\nimplementation: {kind: command, argv: [ls, --, '{{ a }}']}\n",
    "secret-cleartext": "description: Logs in.\nparameters:\n  a: {type: string, description: The first.}\nexamples: [{a: x}]\nenvironment: [{name: TOKEN, secret: true}]\nimplementation: {kind: http, method: POST, url: 'http://api.example.com/{{ a }}', headers: {Authorization: 'Bearer {{ env.TOKEN }}'}}\n",
}


#: Rules that fire together with another by nature: an OpenAPI-only keyword is also lost in
#: JSON Schema; an enum member of the wrong type is also left out of the Gemini API's enum.
ALSO = {
    "openapi": {"dialect-loss"},
    "enum-type": {"dialect-loss"},
    **dict.fromkeys(("program-missing", "option-injection", "secret-exposed", "callable-missing"), {"unconfined"}),
}


def findings(cli: Cli, *args: str) -> tuple[int, dict[str, t.Any]]:
    result = cli(porcelain.main, "lint", "--format", "json", *args)
    return result.status, json.loads(result.stdout)


#: Rules whose firing depends on the machine, tested where they are made: typescript-unsupported
#: on the node on PATH (tests/test_scripts.py).
MACHINE_RULES = {"typescript-unsupported"}


def test_every_rule_has_a_fixture() -> None:
    # name-duplicate, code-open, program-agent-path, program-shadowed and package-hidden need a
    # project around the tool (tests/test_code_pins.py for code-open, tests/test_bin_path.py for
    # program-agent-path and program-shadowed; package-hidden, a package a confined tool imports
    # but cannot read, no longer fires for a package of the project, which is pinned and shown
    # whole: tests/test_ts_tools.py says so)
    around = {"name-duplicate", "code-open", "program-agent-path", "program-shadowed", "package-hidden"}
    assert set(FIRES) | around | MACHINE_RULES == set(RULES)


def test_the_clean_file_fires_nothing(tmp_path: Path, cli: Cli) -> None:
    path = write(tmp_path / "clean.yaml", CLEAN)
    status, report = findings(cli, "--strict", str(path))
    assert (status, report) == (0, {"findings": [], "errors": 0, "warnings": 0})


@pytest.mark.parametrize("rule", sorted(FIRES))
def test_each_rule_fires(tmp_path: Path, cli: Cli, rule: str) -> None:
    path = write(tmp_path / f"{rule.replace('-', '_')}.yaml", FIRES[rule])
    status, report = findings(cli, str(path))
    rules = {f["rule"] for f in report["findings"]}
    assert rules == {rule} | ALSO.get(rule, set()), report
    finding = next(f for f in report["findings"] if f["rule"] == rule)
    assert finding["severity"] == RULES[rule][0] and finding["file"] == str(path) and finding["message"]
    if rule != "definition":
        assert finding["hint"]
    errors = RULES[rule][0] == "error"
    assert status == (1 if errors else 0)
    assert findings(cli, "--strict", str(path))[0] == 1


@pytest.mark.parametrize(
    ("schema", "empty"),
    [
        ("{type: number, minimum: 1, maximum: 1}", ""),
        ("{type: number, minimum: 1, maximum: 1, exclusiveMaximum: true}", "at least 1 and at most 1"),
        ("{type: number, minimum: 2, exclusiveMinimum: true, maximum: 2}", "at least 2 and at most 2"),
        ("{type: integer, minimum: 5, maximum: 3, exclusiveMaximum: false}", "at least 5 and at most 3"),
        ("{type: string, minLength: 3, maxLength: 2}", "minLength 3 is more than maxLength 2"),
        ("{type: array, items: {type: integer, minimum: 9, maximum: 1}}", "at least 9 and at most 1"),
        ("{type: object, properties: {n: {type: integer, minimum: 2, maximum: 1}}}", "at least 2 and at most 1"),
    ],
)
def test_bounds_no_value_fits_are_an_error(tmp_path: Path, cli: Cli, schema: str, empty: str) -> None:
    """(issue 43: lint reported four of a newcomer's five mistakes; ``minimum: 10, maximum: 1``
    refused every call and lint said nothing)"""
    tool = f"description: Shows p.\nparameters:\n  p: {{description: The p., {schema[1:]}\nexamples: [Show p.]\n"
    path = write(tmp_path / "p.yaml", tool + "implementation: '{{ p }}'\n")
    _, report = findings(cli, str(path))
    said = [f["message"] for f in report["findings"] if f["rule"] == "bounds-empty"]
    assert said == ([] if not empty else [next(m for m in said if empty in m)]), report


@pytest.mark.parametrize(
    ("argument", "safe"),
    [
        ("{{ pattern }}", False),
        ("{{ pattern | upper }}", False),
        ("{% if flag %}{{ pattern }}{% endif %}", False),
        ("{% for x in [1] %}{{ x }}{% endfor %}", False),
        ("{{ '' }}{{ pattern }}", False),
        ("{{ {'lines': '-l', 'words': pattern}[what] }}", False),
        ("{{ count }}", False),  # an integer may be negative: -5 reads as an option
        ("{{ {'lines': '-l', 'words': '-w'}[what] }}", True),
        ("{{ what }}", True),  # an enum: the values are the definition's own
        ("{{ flag }}", True),
        ("{{ size }}", True),  # minimum: 0
        ("{{ '-v' if flag else '-q' }}", True),
        ("{% if flag %}-v{% else %}-q{% endif %}", True),
        ("{% if flag %}-v{% endif %}{{ what }}", True),
        ("--name={{ pattern }}", True),
        (" {{ pattern }}", True),
    ],
)
def test_option_injection_knows_fixed_values(tmp_path: Path, cli: Cli, argument: str, safe: bool) -> None:
    tool = {
        "description": "Greps.",
        "parameters": {
            "pattern": {"type": "string", "description": "What to find."},
            "what": {"type": "string", "enum": ["lines", "words"], "description": "What to count."},
            "flag": {"type": "boolean", "description": "Whether to."},
            "count": {"type": "integer", "description": "How many."},
            "size": {"type": "integer", "minimum": 0, "description": "How big."},
        },
        "examples": [{"pattern": "x", "what": "lines", "flag": True, "count": 1, "size": 0}],
        "side_effects": ["filesystem_read"],
        "implementation": {
            "kind": "command",
            "argv": ["grep", argument, "--", "{{ pattern }}{{ what }}{{ flag }}{{ count }}{{ size }}"],
        },
    }
    path = write(tmp_path / "t.json", json.dumps(tool))
    rules = [f["rule"] for f in findings(cli, "--strict", str(path))[1]["findings"]]
    assert rules == ([] if safe else ["option-injection"])


def test_a_tool_silences_a_rule_it_accepts(project: Path, cli: Cli) -> None:
    path = write(
        project / "tools" / "find.yaml",
        FIRES["option-injection"] + "lint:\n  ignore: [option-injection, unconfined]  # patterns may be options\n",
    )
    assert findings(cli, "--strict", str(path)) == (0, {"findings": [], "errors": 0, "warnings": 0})
    # Only the rules it names: another finding still shows.
    write(
        path,
        FIRES["option-injection"].replace("examples: [{pattern: x}]\n", "") + "lint: {ignore: [option-injection]}\n",
    )
    assert [f["rule"] for f in findings(cli, str(path))[1]["findings"]] == ["examples-missing", "unconfined"]
    # A duplicate that is meant.
    write(project / "tools" / "a.yaml", CLEAN)
    write(project / "tools" / "b.yaml", CLEAN + "lint: {ignore: [name-duplicate]}\n")
    assert "name-duplicate" not in [f["rule"] for f in findings(cli)[1]["findings"]]


@pytest.mark.parametrize(
    ("ignore", "message"),
    [
        ("[option-injecton]", "did you mean 'option-injection'"),
        ("[definition]", "'definition' is not one of"),
        ("option-injection", "is not of type 'array'"),
    ],
)
def test_a_rule_that_cannot_be_silenced(tmp_path: Path, cli: Cli, ignore: str, message: str) -> None:
    path = write(tmp_path / "t.yaml", CLEAN + f"lint: {{ignore: {ignore}}}\n")
    (finding,) = findings(cli, str(path))[1]["findings"]
    assert finding["rule"] == "definition" and message in finding["message"], finding


def test_the_tool_format_lists_the_rules_a_tool_may_silence() -> None:
    from cogtools.schema.shipped import load_schema
    from cogtools.services.lint import LOAD_RULES

    listed = load_schema("tool")["properties"]["lint"]["properties"]["ignore"]["items"]["enum"]
    assert sorted(listed) == sorted(set(RULES) - set(LOAD_RULES))


def test_lines_and_key_paths(tmp_path: Path, cli: Cli) -> None:
    path = write(tmp_path / "t.yaml", FIRES["example-invalid"])
    (finding,) = findings(cli, str(path))[1]["findings"]
    assert (finding["line"], finding["key"]) == (4, "examples[0]")
    text = cli(porcelain.main, "lint", str(path)).stdout
    assert text.splitlines() == [
        f"{path}:4: error[example-invalid] examples[0]: example 0: n: expected an integer, got string (hint: give an integer)",
        "1 error, 0 warnings",
    ]


def test_duplicate_names_across_sources(project: Path, cli: Cli) -> None:
    write(project / "tools" / "a.yaml", CLEAN)
    write(project / "tools" / "b.yaml", CLEAN)
    status, report = findings(cli)
    assert [f["rule"] for f in report["findings"]] == ["name-duplicate"] and status == 0


def test_a_directory_is_searched(tmp_path: Path, cli: Cli) -> None:
    write(tmp_path / "d" / "clean.yaml", CLEAN)
    write(tmp_path / "d" / "sub" / "bad.yaml", FIRES["template-undeclared"])
    assert {f["rule"] for f in findings(cli, str(tmp_path / "d"))[1]["findings"]} == {"template-undeclared"}


def test_the_shipped_examples_lint_clean_and_pass(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(EXAMPLES)
    lint = cli(porcelain.main, "lint", "--strict")
    assert lint.status == 0, lint.stdout
    test = cli(porcelain.main, "test")
    assert test.status == 0 and test.stdout.endswith(" 0 failed\n"), test.stdout


@pytest.mark.slow
def test_the_openapi_verdicts_are_kept_for_the_next_run(project: Path) -> None:
    """The OpenAPI validator costs more than the rest of lint: its verdict on a tool's schemas is
    kept, and a later run on the same schemas gives the same findings without importing it."""
    import subprocess
    import sys

    write(project / "tools" / "shows.yaml", FIRES["openapi"])
    write(project / "tools" / "clean.yaml", CLEAN)
    probe = (
        "import sys, json; from cogtools.cli import porcelain; porcelain.main(['lint', '--format', 'json']);"
        "print('validator imported:', 'openapi_spec_validator' in sys.modules)"
    )
    runs = [
        subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=project) for _ in range(2)
    ]
    for run in runs:
        assert run.returncode == 0, run.stderr
    first, second = (run.stdout.rsplit("\n", 2) for run in runs)
    assert first[0] == second[0] and '"rule": "openapi"' in first[0]
    assert (first[1], second[1]) == ("validator imported: True", "validator imported: False")
    # A changed schema is judged again.
    write(project / "tools" / "shows.yaml", FIRES["openapi"].replace("no url", "still no url"))
    third = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=project)
    assert third.stdout.rstrip().endswith("validator imported: True")


@pytest.mark.parametrize(
    ("implementation", "rules"),
    [
        ("{kind: http, url: 'https://api.example.com/x', query: {key: '{{ env.TOKEN }}'}}", {"secret-exposed"}),
        ("{kind: http, url: 'https://api.example.com/{{ env.TOKEN }}'}", {"secret-exposed"}),
        ("{kind: http, url: 'https://api.example.com/x', headers: {Authorization: 'Bearer {{ env.TOKEN }}'}}", set()),
        ("{kind: http, url: 'http://localhost:8080/x', headers: {Authorization: 'Bearer {{ env.TOKEN }}'}}", set()),
        ("{kind: command, argv: [sh, -c, 'curl -H \"Authorization: $TOKEN\" x']}", {"unconfined"}),
        ("{kind: command, argv: [cat], stdin: '{{ env.TOKEN }}'}", {"unconfined"}),
    ],
)
def test_where_a_secret_may_go(tmp_path: Path, cli: Cli, implementation: str, rules: set[str]) -> None:
    text = f"description: Logs in.\nexamples: [{{}}]\nenvironment: [{{name: TOKEN, secret: true}}]\nimplementation: {implementation}\n"
    _, report = findings(cli, str(write(tmp_path / "t.yaml", text)))
    assert {f["rule"] for f in report["findings"]} == rules, report


def test_a_callable_on_the_python_path_or_installed(project: Path, cli: Cli) -> None:
    write(project / "lib" / "mine.py", "def f(): return 1\n")
    write(project / ".cogtoolrc.yaml", "python_path: [lib]\n")
    for target in ("mine:f", "uuid:uuid4", "os.path:join", "sys:exit"):
        write(
            project / "tools" / "p.yaml",
            f"description: Calls f.\nexamples: [{{}}]\nside_effects: []\nimplementation: {{kind: python, callable: '{target}'}}\n",
        )
        assert findings(cli, "--strict")[1]["findings"] == [], target
