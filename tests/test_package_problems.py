"""A broken tool of an installed package is its authors' to mend, not the project's (issue 43): the
project's own ``lint`` (strict too), ``test`` and ``doctor`` do not fail for it, ``list`` says it
once in a note, discovery and MCP stay quiet about it, and a call of it is refused as any broken
definition's; a broken tool of the project's own still fails them all."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from .conftest import BIN, write

pytestmark = pytest.mark.slow

BROKEN = 'description: A broken tool.\nparameters:\n  x: {type: strin, description: x}\nimplementation: "{{ x }}"\n'
GOOD = 'description: A tool of the package.\nimplementation: "ok"\n'
MINE = 'description: My own tool.\nexamples:\n  - arguments: {}\n    expect: {output: "mine"}\nimplementation: "mine"\n'


@pytest.fixture
def app(tmp_path: Path) -> Path:
    root = tmp_path / "app"
    manifest = {
        "name": "app",
        "version": "1.0.0",
        "dependencies": {"@acme/broken": "1.0.0", "@acme/worse": "1.0.0"},
        "cogtools": {"tool_sources": [{"local": "./tools"}, "node_modules"]},
    }
    write(root / "package.json", json.dumps(manifest))
    write(root / "tools" / "mine.yaml", MINE)
    package = root / "node_modules" / "@acme" / "broken"
    write(package / "package.json", json.dumps({"name": "@acme/broken", "cogtools": {"tools": "tools/"}}))
    write(package / "tools" / "bad.yaml", BROKEN)
    write(package / "tools" / "good.yaml", GOOD)
    worse = root / "node_modules" / "@acme" / "worse"  # two broken definitions: one problem
    write(worse / "package.json", json.dumps({"name": "@acme/worse", "cogtools": {"tools": "tools/"}}))
    write(worse / "tools" / "bad1.yaml", BROKEN)
    write(worse / "tools" / "bad2.yaml", BROKEN)
    (root / ".git").mkdir()
    old = time.time() - 10  # (files written just now are read again by every run)
    for path in root.rglob("*"):
        os.utime(path, (old, old))
    return root


def run(root: Path, *argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(root.parent / "home")}
    return subprocess.run(
        [str(BIN / argv[0]), *argv[1:]], cwd=root, env=env, input=stdin, capture_output=True, text=True
    )


def test_a_packages_broken_tool_fails_nothing_of_the_projects(app: Path) -> None:
    listed = run(app, "cogtools", "list")
    assert listed.returncode == 0
    assert "good" in listed.stdout and "mine" in listed.stdout
    assert "skipped" not in listed.stderr
    assert "1 tool definition of npm:@acme/broken does not load" in listed.stderr
    assert "2 tool definitions of npm:@acme/worse do not load" in listed.stderr

    for strict in ((), ("--strict",)):
        linted = run(app, "cogtools", "lint", *strict)
        assert linted.returncode == 0, linted.stdout + linted.stderr
        assert "0 errors, 0 warnings" in linted.stdout
        assert "note: 1 tool definition of npm:@acme/broken" in linted.stdout
        assert "good.yaml" not in linted.stdout  # its authors lint it (no examples-missing here)

    tested = run(app, "cogtools", "test")
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "1 passed, 0 failed" in tested.stdout and "FAIL" not in tested.stdout

    doctor = run(app, "cogtools", "doctor")
    lines = [line for line in doctor.stdout.splitlines() if "bad" in line]
    assert lines and all(line.startswith("warning") for line in lines), doctor.stdout
    assert "tools: 2 tools from" in doctor.stdout and "broken definition" not in doctor.stdout

    discovered = run(app, "cogtools-discover")
    assert discovered.returncode == 0 and discovered.stderr == ""
    assert {"good", "mine"} <= {entry["name"] for entry in json.loads(discovered.stdout)}

    called = run(app, "cogtools-call", "bad", stdin="{}")
    assert called.returncode != 0 and "DEFINITION_INVALID" in called.stdout


def test_a_projects_own_broken_tool_still_fails_them(app: Path) -> None:
    write(app / "tools" / "oops.yaml", BROKEN)
    old = time.time() - 10
    os.utime(app / "tools" / "oops.yaml", (old, old))
    assert "skipped: DEFINITION_INVALID: tools/oops.yaml" in run(app, "cogtools", "list").stderr
    assert run(app, "cogtools", "lint").returncode == 1
    assert run(app, "cogtools", "test").returncode == 1
    doctor = run(app, "cogtools", "doctor").stdout
    assert any(line.startswith("problem") and "oops.yaml" in line for line in doctor.splitlines()), doctor
    # and a package's file named on the command line is linted as asked
    named = run(app, "cogtools", "lint", "node_modules/@acme/broken/tools/bad.yaml")
    assert named.returncode == 1 and "error[definition]" in named.stdout
