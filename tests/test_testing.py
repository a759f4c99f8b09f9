"""``cogtools test``: example calls as a test suite."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from cogtools.cli import porcelain
from cogtools.core.errors import ERROR_TABLE, DefinitionInvalidError
from cogtools.load.catalog import load_catalog

from .conftest import Cli, write

STATUS = {code: status for code, status, _ in ERROR_TABLE}

TOOL = """\
description: Greet.
parameters:
  who: {type: string}
implementation: "Hello, {{ who }}!\\n"
examples:
%s
"""


def tool(project: Path, name: str, examples: str) -> None:
    write(project / "tools" / f"{name}.yaml", TOOL % examples)


def test_all_pass(project: Path, cli: Cli) -> None:
    tool(
        project,
        "greet",
        '  - who: Ada\n  - arguments: {who: Bob}\n    expect: {output: "Hello, Bob!\\n"}\n  - a request in words',
    )
    result = cli(porcelain.main, "test")
    assert result == (0, "PASS greet[0]\nPASS greet[1]\n2 passed, 0 failed\n", "")


def test_failures_are_explained(project: Path, cli: Cli) -> None:
    tool(
        project,
        "greet",
        "\n".join(
            [
                "  - arguments: {who: Ada}",
                '    expect: {output: "Hello, Eve!\\n"}',
                "  - arguments: {who: Ada}",
                "    expect: {contains: Eve}",
                "  - arguments: {who: Ada}",
                "    expect: {matches: '^Bye'}",
                "  - arguments: {who: Ada}",
                "    expect: {error: SCHEMA_VIOLATION}",
                "  - arguments: {who: 5}",
                "  - arguments: {who: 5}",
                "    expect: {error: SCHEMA_VIOLATION}",
            ]
        ),
    )
    result = cli(porcelain.main, "test")
    assert result.status == 1
    lines = result.stdout.splitlines()
    assert lines[0] == "FAIL greet[0]: the output differs from the expected output"
    assert "    -Hello, Eve!" in lines and "    +Hello, Ada!" in lines
    assert "FAIL greet[1]: the output does not contain 'Eve'" in lines
    assert "FAIL greet[2]: the output does not match '^Bye'" in lines
    assert "FAIL greet[3]: expected SCHEMA_VIOLATION, but the call succeeded" in lines
    assert any(
        line.startswith("FAIL greet[4]: SCHEMA_VIOLATION: 1 problem with the arguments: who: expected a string")
        for line in lines
    )
    assert "PASS greet[5]" in lines
    assert lines[-1] == "1 passed, 5 failed"


def test_names_select_tools(project: Path, cli: Cli) -> None:
    tool(project, "a", "  - who: A")
    tool(project, "b", "  - who: B")
    assert cli(porcelain.main, "test", "b").stdout == "PASS b[0]\n1 passed, 0 failed\n"
    missing = cli(porcelain.main, "test", "nope")
    assert missing.status == STATUS["TOOL_NOT_FOUND"] and "no tool named 'nope'" in missing.stderr


def test_broken_definitions_fail_the_suite(project: Path, cli: Cli) -> None:
    tool(project, "good", "  - who: A")
    write(project / "tools" / "broken.yaml", "descripton: typo\nimplementation: x\n")
    result = cli(porcelain.main, "test")
    assert result.status == 1
    assert "FAIL tools/broken.yaml: DEFINITION_INVALID:" in result.stdout
    assert result.stdout.endswith("1 passed, 1 failed\n")


def test_junit_xml(project: Path, cli: Cli, tmp_path: Path) -> None:
    tool(project, "greet", "  - who: Ada\n  - arguments: {who: Ada}\n    expect: {contains: Eve}")
    report = tmp_path / "out" / "junit.xml"
    assert cli(porcelain.main, "test", "--junit-xml", str(report)).status == 1
    suite = ET.parse(report).getroot().find("testsuite")
    assert suite is not None and (suite.get("tests"), suite.get("failures")) == ("2", "1")
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == ["greet[0]", "greet[1]"]
    failure = cases[1].find("failure")
    assert failure is not None and failure.get("message") == "the output does not contain 'Eve'"


@pytest.mark.parametrize(
    ("examples", "fragment"),
    [
        ("  - arguments: {who: A}\n    expect: {equals: x}", "`expect` is one of"),
        ("  - arguments: {who: A}\n    expect: {error: NOPE}", "'NOPE' is not an error code"),
        ("  - arguments: {who: A}\n    expect: {matches: '('}", "not a regular expression"),
        ("  - arguments: {who: A}\n    expect: {output: 3}", "`expect.output` is a string"),
        ("  - arguments: [A]", "`arguments` is a mapping"),
    ],
)
def test_broken_expectations(project: Path, examples: str, fragment: str) -> None:
    tool(project, "greet", examples)
    with pytest.raises(DefinitionInvalidError, match=fragment):
        load_catalog().get("greet")


def test_a_parameter_named_arguments_keeps_plain_examples(project: Path) -> None:
    write(
        project / "tools" / "t.yaml",
        "description: d\nparameters:\n  arguments: {type: string}\nimplementation: x\nexamples:\n  - arguments: a\n",
    )
    (example,) = load_catalog().get("t").examples
    assert example.arguments == {"arguments": "a"} and example.expect is None


def test_a_progress_bar_on_a_terminal_when_there_are_many(project: Path) -> None:
    import os
    import pty
    import subprocess

    from .conftest import BIN

    tool(project, "greet", "\n".join(f"  - who: person{i}" for i in range(25)))
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [str(BIN / "cogtools"), "test"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave, cwd=project
    )
    os.close(slave)
    out, _ = proc.communicate(timeout=60)
    seen = b""
    try:
        while chunk := os.read(master, 65536):
            seen += chunk
    except OSError:
        pass
    os.close(master)
    assert proc.returncode == 0 and out.decode().endswith("25 passed, 0 failed\n")
    assert b"testing" in seen and b"100%" in seen


TOUCH = """\
description: Touch a file.
parameters:
  name: {type: string, description: the file, pattern: '^[a-z]+$'}
implementation: {kind: command, argv: [touch, '{{ name }}']}
side_effects: [filesystem_write]
examples:
  - name: made
  - arguments: {name: BAD}
    expect: {error: SCHEMA_VIOLATION}
  - arguments: {name: other}
    expect: {output: "never checked in a dry run"}
  - arguments: {name: fails}
    expect: {error: EXECUTION_FAILED}
"""


def test_a_dry_run_checks_every_example_and_runs_nothing(project: Path, cli: Cli) -> None:
    write(project / "tools" / "touch.yaml", TOUCH)
    result = cli(porcelain.main, "test", "--dry-run")
    assert result.stdout.splitlines() == [
        "PASS touch[0]",
        "PASS touch[1]",
        "PASS touch[2]",
        "PASS touch[3]",
        "4 passed, 0 failed",
    ]
    assert result.status == 0 and not (project / "made").exists() and not (project / "other").exists()
    write(project / "tools" / "touch.yaml", TOUCH.replace("{name: BAD}", "{name: fine}"))
    result = cli(porcelain.main, "test", "--dry-run", "touch")
    assert "FAIL touch[1]: expected SCHEMA_VIOLATION, but the checks passed" in result.stdout
    assert result.status == 1


def test_examples_run_as_the_configured_role_or_the_one_asked_for(project: Path, cli: Cli) -> None:
    write(
        project / "tools" / "restart.yaml",
        "description: Restart.\nimplementation: restarted\nmin_role: admin\nexamples:\n  - {}\n",
    )
    denied = cli(porcelain.main, "test")
    assert denied.status == 1 and "POLICY_DENIED: the role ai_agent may not run restart" in denied.stdout
    assert cli(porcelain.main, "test", "--role", "admin").stdout.splitlines() == [
        "PASS restart[0]",
        "1 passed, 0 failed",
    ]
    assert cli(porcelain.main, "test", "--role", "root").status == 2
