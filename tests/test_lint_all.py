"""Lint finds every definition error of a file in one run (issue 31, part 3): the newcomer's
five-mistake file, each mistake with its line; cogtools-call still prints one error object."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cogtools.cli import call, porcelain

from .conftest import Cli, run_script, write

#: Five mistakes a newcomer makes at once (and a sixth the template shows).
FIVE = """\
name: weather
descripton: Show the weather.
parameters:
  - name: city
    type: strin
    description: The city.
  - name: days
    type: integr
    description: How many days.
  - name: city
    type: string
    description: The city again.
examples:
  - arguments: {city: Paris}
    expect: {eror: x}
implementation: "{{ city }} {{ dayz }}"
"""

#: (line, rule, key, what the message says)
EXPECTED = [
    (2, "definition", "descripton", "unknown key 'descripton' (did you mean 'description'?)"),
    (5, "definition", "parameters[0].type", "unknown type 'strin' (did you mean 'string'?)"),
    (8, "definition", "parameters[1].type", "unknown type 'integr' (did you mean 'integer'?)"),
    (10, "definition", "parameters[2].name", "the parameter 'city' is declared twice"),
    (15, "definition", "examples[0].expect", "`expect` is one of"),
    (16, "template-undeclared", "implementation", "'dayz'"),
]


def test_every_mistake_in_one_run(tmp_path: Path, cli: Cli) -> None:
    path = write(tmp_path / "weather.yaml", FIVE)
    result = cli(porcelain.main, "lint", "--format", "json", str(path))
    report = json.loads(result.stdout)
    found = [(f["line"], f["rule"], f["key"], f["message"]) for f in report["findings"]]
    assert len(found) == len(EXPECTED), found
    for (line, rule, key, message), (want_line, want_rule, want_key, fragment) in zip(found, EXPECTED, strict=True):
        assert (line, rule, key) == (want_line, want_rule, want_key) and fragment in message
    assert result.status == 1 and report["errors"] == len(EXPECTED)


def test_each_fix_leaves_the_others(tmp_path: Path, cli: Cli) -> None:
    """Mending one mistake leaves exactly the others: they were independent."""
    path = write(tmp_path / "weather.yaml", FIVE.replace("descripton", "description"))
    report = json.loads(cli(porcelain.main, "lint", "--format", "json", str(path)).stdout)
    assert [f["key"] for f in report["findings"]] == [key for _, _, key, _ in EXPECTED[1:]]


@pytest.mark.parametrize("fmt", ["json", "toml"])
def test_other_formats_too(tmp_path: Path, cli: Cli, fmt: str) -> None:
    data = {
        "description": "d",
        "parameters": [{"name": "a", "type": "strin"}, {"name": "b", "type": "array:nuber"}],
        "risk_levle": "low",
        "implementation": "{{ a }}{{ b }}",
    }
    if fmt == "json":
        text = json.dumps(data, indent=1)
    else:
        import tomli_w

        text = tomli_w.dumps(data)
    path = write(tmp_path / f"t.{fmt}", text)
    report = json.loads(cli(porcelain.main, "lint", "--format", "json", str(path)).stdout)
    keys = sorted(f["key"] for f in report["findings"])
    assert keys == ["parameters[0].type", "parameters[1].type", "risk_levle"], report
    if fmt == "json":  # JSON knows its lines
        assert all(f["line"] for f in report["findings"])


def test_a_call_prints_one_error_with_the_others_in_details(project: Path, cli: Cli) -> None:
    write(project / "tools" / "weather.yaml", FIVE)
    result = cli(call.main, "weather", stdin='{"city": "Paris"}')
    error = json.loads(result.stdout)["error"]
    assert error["code"] == "DEFINITION_INVALID" and "unknown key 'descripton'" in error["message"]
    others = error["details"]["problems"]
    assert [(p["line"], p["message"].split(" (")[0]) for p in others[:2]] == [
        (5, "unknown type 'strin'"),
        (8, "unknown type 'integr'"),
    ]
    assert len(others) == len(EXPECTED) - 1
    listed = cli(porcelain.main, "list")
    assert "weather" in listed.stderr + listed.stdout and "descripton" in listed.stderr + listed.stdout


def test_a_schema_problem_does_not_say_its_consequences(tmp_path: Path, cli: Cli) -> None:
    """A misspelt required key is one finding, not two; a list the schema refuses is not said
    again by the builder."""
    path = write(
        tmp_path / "t.yaml",
        "descripton: d\nenvironment: [HOME, HOME]\nimplementation: x\n",
    )
    report = json.loads(cli(porcelain.main, "lint", "--format", "json", str(path)).stdout)
    assert [f["key"] for f in report["findings"]] == ["descripton", "environment"]


def test_every_tool_of_a_json_array(tmp_path: Path, cli: Cli) -> None:
    """A JSON file of several tools: each tool's problems, not only the first tool's."""
    tools = [
        {"name": "one", "description": "d", "risk_levle": "low", "implementation": "x"},
        {"name": "two", "description": "d", "parameters": [{"name": "a", "type": "strin"}], "implementation": "x"},
        {"description": "no name", "implementation": "x"},
        {"name": "fine", "description": "d", "implementation": "x"},
    ]
    path = write(tmp_path / "tools.json", json.dumps(tools, indent=1))
    report = json.loads(cli(porcelain.main, "lint", "--format", "json", str(path)).stdout)
    assert sorted(f["key"] for f in report["findings"]) == ["[0].risk_levle", "[1].parameters[0].type", "[2]"]
    assert all(f["line"] for f in report["findings"])


def test_a_missing_key_hides_nothing_below(tmp_path: Path, cli: Cli) -> None:
    """A problem of the whole definition (no implementation) does not stand for those of its
    parts, which are said too."""
    path = write(
        tmp_path / "t.yaml",
        "description: d\nparameters:\n  - {name: a, type: strin}\n  - {name: a, type: string}\n",
    )
    report = json.loads(cli(porcelain.main, "lint", "--format", "json", str(path)).stdout)
    assert [(f["line"], f["key"]) for f in report["findings"]] == [
        (None, None),
        (3, "parameters[0].type"),
        (4, "parameters[1].name"),
    ]
    assert "'implementation' is a required property" in report["findings"][0]["message"]


#: Five independent mistakes of one file, one of them an enum member of the wrong type (YAML
#: reads an unquoted ``on`` as a boolean), which lint once told only after the others were mended
#: (issue 43).
FIVE_WITH_AN_ENUM = """\
name: weather
descripton: Show the weather.
parameters:
  - name: city
    type: strin
    description: The city.
  - name: city
    type: string
    description: The city again.
  - name: units
    type: string
    enum: [metric, on]
    description: The units.
examples:
  - arguments: {city: Paris}
    expect: {eror: x}
implementation: "{{ city }} {{ units }}"
"""


@pytest.mark.slow
def test_an_enum_of_the_wrong_type_among_the_mistakes(project: Path) -> None:
    path = write(project / "tools" / "weather.yaml", FIVE_WITH_AN_ENUM)
    expected = [
        (2, "definition", "descripton"),
        (5, "definition", "parameters[0].type"),
        (7, "definition", "parameters[1].name"),
        (12, "enum-type", "parameters[2].enum[1]"),
        (16, "definition", "examples[0].expect"),
    ]
    # The file named; the project's catalog, parsed and then from its cache.
    for args in (("tools/weather.yaml",), (), ()):
        result = run_script("cogtools", "lint", "--format", "json", *args, cwd=project)
        report = json.loads(result.stdout)
        assert [(f["line"], f["rule"], f["key"]) for f in report["findings"]] == expected, report
        enum = report["findings"][3]
        assert "the enum member true is a boolean, not a string" in enum["message"] and "quote it" in enum["hint"]
        assert (result.status, report["errors"]) == (1, 5)
    # Silenced where the tool says so; mended, the rest stay.
    write(path, FIVE_WITH_AN_ENUM + "lint: {ignore: [enum-type]}\n")
    report = json.loads(run_script("cogtools", "lint", "--format", "json", cwd=project).stdout)
    assert [f["rule"] for f in report["findings"]] == ["definition"] * 4
    write(path, FIVE_WITH_AN_ENUM.replace("descripton", "description").replace("strin\n", "string\n"))
    report = json.loads(run_script("cogtools", "lint", "--format", "json", cwd=project).stdout)
    assert [(f["rule"], f["key"]) for f in report["findings"]] == [
        ("definition", "parameters[1].name"),
        ("enum-type", "parameters[2].enum[1]"),
        ("definition", "examples[0].expect"),
    ]
    # A call prints one error object, the definition's.
    error = json.loads(run_script("cogtools-call", "weather", stdin='{"city": "Paris"}', cwd=project).stdout)["error"]
    assert error["code"] == "DEFINITION_INVALID" and "declared twice" in error["message"]


def test_an_enum_of_the_wrong_type_in_a_json_file_that_does_not_load(tmp_path: Path, cli: Cli) -> None:
    tool = {
        "description": "d",
        "risk_levle": "low",
        "parameters": {"type": "object", "properties": {"n": {"type": "integer", "enum": [1, "2"]}}},
        "implementation": "{{ n }}",
    }
    path = write(tmp_path / "t.json", json.dumps(tool, indent=1))
    report = json.loads(cli(porcelain.main, "lint", "--format", "json", str(path)).stdout)
    assert [(f["rule"], f["key"]) for f in report["findings"]] == [
        ("definition", "risk_levle"),
        ("enum-type", "parameters.properties.n.enum[1]"),
    ], report
    assert all(f["line"] for f in report["findings"])
