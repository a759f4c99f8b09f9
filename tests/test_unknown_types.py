"""Seed 003's rule for unknown types (issue 43): in the list form of parameters, in every file
format, a type that is near nothing known loads as a string parameter and lint warns
(``type-unknown``); a near miss of a known type (``strin``) or a known alias of one (``dict``)
stays an error that says which type was meant. The map form is OpenAPI's, whose types are a
closed set: an unknown type there stays an error. And lint tells every independent mistake of
one file in one run, an enum member of the wrong type among them."""

from __future__ import annotations

import json
import typing as t
from pathlib import Path

import pytest

from cogtools.cli import porcelain

from .conftest import Cli, Result, run_script, write

#: Seed 003's own JSON example, as the seed gives it (the seeds lie outside the clone, which CI
#: runs from).
SEED_003_EXAMPLE = {
    "description": "Execute a shell command and return the output",
    "keywords": ["shell", "command", "execute", "run"],
    "discoverable": True,
    "parameters": [
        {"name": "command", "type": "string", "description": "The shell command to execute", "required": True},
        {"name": "timeout", "type": "int", "description": "Timeout in seconds (default: 30)", "required": False},
    ],
}


def _seed_003_json(weird: str) -> str:
    """Seed 003's own JSON example, with ``weird`` as the type of a third parameter."""
    data = json.loads(json.dumps(SEED_003_EXAMPLE))
    data["parameters"].append({"name": "mode", "type": weird, "description": "How to run it", "required": False})
    data["implementation"] = "{{ command }} {{ timeout }} {{ mode }}"
    data["examples"] = [{"command": "ls"}]
    return json.dumps(data, indent=2) + "\n"


def _definition(fmt: str, weird: str) -> str:
    if fmt == "json":
        return _seed_003_json(weird)
    if fmt == "toml":
        return (
            'description = "Execute a shell command"\n'
            'implementation = "{{ command }} {{ mode }}"\n'
            '[[parameters]]\nname = "command"\ntype = "string"\ndescription = "The command"\nrequired = true\n'
            f'[[parameters]]\nname = "mode"\ntype = "{weird}"\ndescription = "How to run it"\nrequired = false\n'
        )
    if fmt == "yaml":
        return (
            "description: Execute a shell command\n"
            "parameters:\n"
            "  - {name: command, type: string, description: The command, required: true}\n"
            f"  - {{name: mode, type: {weird}, description: How to run it, required: false}}\n"
            "implementation: '{{ command }} {{ mode }}'\n"
        )
    assert fmt == "sh"
    return (
        "#!/bin/sh\n"
        "# cogtools-tool\n"
        "# description: Execute a shell command\n"
        "# parameters:\n"
        "#   - {name: command, type: string, description: The command, required: true}\n"
        f"#   - {{name: mode, type: {weird}, description: How to run it, required: false}}\n"
        "#\n"
        'echo "$1 $2"\n'
    )


def _lint(cli: Cli, project: Path, *args: str) -> tuple[int, dict[str, t.Any]]:
    """``cogtools lint --format json`` in this process (in the project, the working directory): a
    process of its own would import the OpenAPI validator again for each test (0.3 s; lint keeps
    its verdicts in a cache each test starts without). tests/test_lint_all.py runs the real one."""
    assert Path.cwd() == project
    result = cli(porcelain.main, "lint", "--format", "json", *args)
    return result.status, json.loads(result.stdout)


def _discovered(project: Path) -> dict[str, t.Any]:
    result = run_script("cogtools-discover", cwd=project)
    assert result.status == 0, result
    return {d["name"]: d for d in json.loads(result.stdout)}


def _call(project: Path, name: str, arguments: dict[str, t.Any]) -> Result:
    return run_script("cogtools-call", name, stdin=json.dumps(arguments), cwd=project)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["json", "toml", "yaml", "sh"])
def test_a_type_near_nothing_loads_as_a_string_and_lint_warns(cli: Cli, project: Path, fmt: str) -> None:
    path = write(project / "tools" / f"execute_command.{fmt}", _definition(fmt, "weird_type"), 0o755)
    offered = _discovered(project)
    assert "cogtools_problems" not in offered, offered
    mode = offered["execute_command"]["parametersJsonSchema"]["properties"]["mode"]
    assert mode == {"type": "string", "description": "How to run it"}
    if fmt != "sh":  # (a script needs its side effects declared to run unasked: the call is not the point)
        result = _call(project, "execute_command", {"command": "ls", "mode": "fast"})
        assert (result.status, result.stdout.split()[0], result.stdout.split()[-1]) == (0, "ls", "fast"), result
        refused = _call(project, "execute_command", {"command": "ls", "mode": 3})
        assert json.loads(refused.stdout)["error"]["code"] == "SCHEMA_VIOLATION", refused
    status, report = _lint(cli, project, str(path.relative_to(project)))
    unknown = [f for f in report["findings"] if f["rule"] == "type-unknown"]
    assert len(unknown) == 1, report
    (finding,) = unknown
    assert finding["severity"] == "warning" and finding["key"] in ("parameters[1].type", "parameters[2].type")
    assert "'weird_type'" in finding["message"] and "string" in finding["message"] and finding["hint"]
    if fmt in ("json", "yaml"):  # (formats that know their lines)
        lines = path.read_text().splitlines()
        assert finding["line"] == 1 + next(i for i, line in enumerate(lines) if "weird_type" in line)
    assert status == 0 and report["errors"] == 0
    assert _lint(cli, project, "--strict", str(path.relative_to(project)))[0] == 1


@pytest.mark.slow
@pytest.mark.parametrize(
    ("written", "meant"),
    [
        ("strin", "string"),
        ("intger", "integer"),
        ("boolen", "boolean"),
        ("flaot", "float"),
        ("dict", "object"),
        ("list", "array"),
        ("double", "number"),
        ("long", "integer"),
        ("array:strin", "string"),
        ("array:dict", "object"),
    ],
)
def test_a_near_miss_stays_an_error_with_the_type_meant(cli: Cli, project: Path, written: str, meant: str) -> None:
    path = write(project / "tools" / "execute_command.json", _seed_003_json(written))
    status, report = _lint(cli, project, str(path.relative_to(project)))
    (finding,) = report["findings"]
    assert (status, finding["rule"], finding["key"]) == (1, "definition", "parameters[2].type"), report
    assert f"did you mean {meant!r}?" in finding["message"], finding
    assert "cogtools_problems" in _discovered(project)
    error = json.loads(_call(project, "execute_command", {"command": "ls"}).stdout)["error"]
    assert error["code"] == "DEFINITION_INVALID" and f"did you mean {meant!r}?" in error["message"]


@pytest.mark.parametrize("written", ["int", "float", "bool", "str", "integer", "array:int", "array:float"])
def test_seed_003s_own_types_load_without_a_finding(cli: Cli, project: Path, written: str) -> None:
    path = write(project / "tools" / "execute_command.json", _seed_003_json(written))
    status, report = _lint(cli, project, "--strict", str(path.relative_to(project)))
    assert (status, report["findings"]) == (0, []), report


def test_an_item_type_near_nothing_loads_as_strings(cli: Cli, project: Path) -> None:
    path = write(project / "tools" / "execute_command.json", _seed_003_json("array:weird_type"))
    mode = _discovered(project)["execute_command"]["parametersJsonSchema"]["properties"]["mode"]
    assert mode["type"] == "array" and mode["items"] == {"type": "string"}
    status, report = _lint(cli, project, str(path.relative_to(project)))
    assert [f["rule"] for f in report["findings"]] == ["type-unknown"] and status == 0, report
    assert "item type 'weird_type'" in report["findings"][0]["message"]


def test_the_map_form_is_openapi_and_its_types_a_closed_set(cli: Cli, project: Path) -> None:
    path = write(
        project / "tools" / "t.yaml",
        "description: d\nparameters:\n  mode: {type: weird_type, description: How.}\nimplementation: '{{ mode }}'\n",
    )
    status, report = _lint(cli, project, str(path.relative_to(project)))
    assert status == 1 and {f["rule"] for f in report["findings"]} == {"definition"}, report


def test_a_tool_may_silence_type_unknown(cli: Cli, project: Path) -> None:
    data = json.loads(_seed_003_json("weird_type"))
    data["lint"] = {"ignore": ["type-unknown"]}
    path = write(project / "tools" / "execute_command.json", json.dumps(data))
    status, report = _lint(cli, project, str(path.relative_to(project)))
    assert "type-unknown" not in {f["rule"] for f in report["findings"]} and status == 0, report
