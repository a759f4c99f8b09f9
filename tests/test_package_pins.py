"""An installed npm package is pinned whole, as one entry (name, version, a digest of its
installed tree), and a package.json by what node reads of it to load code (issue 43): a tool
importing zod (600+ files, past MAX_CODE_FILES) syncs and runs unasked; an edit of a file of the
package, or a file added to it, refuses the next call; an edit of package.json's scripts refuses
nothing, an edit of its ``type`` refuses; a package past its bound is refused by name."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cogtools.cli import porcelain
from cogtools.core import limits

from .conftest import Cli, write
from .npm_packages import npm_package, package_dir
from .test_code_pins import PWNED, call, refused, synced, tool

pytestmark = [pytest.mark.slow, pytest.mark.e2e]

ZOD = "3.23.8"
SCRIPT = "import { z } from 'zod';\nconsole.log(z.string().parse('hello'));\n"


@pytest.fixture
def zod_project(project: Path) -> Path:
    """The project with zod installed by a real npm install (cached once per version)."""
    installed = npm_package("zod", ZOD, package_dir("zod", ZOD, "COGTOOLS_ZOD_DIR"))
    shutil.copytree(installed / "node_modules" / "zod", project / "node_modules" / "zod", symlinks=True)
    write(project / "package.json", json.dumps({"name": "p", "type": "module", "scripts": {"a": "echo a"}}))
    write(project / "scripts" / "hello.js", SCRIPT)
    tool(project, "hello", "{kind: command, argv: [node, scripts/hello.js]}")
    return project


def test_a_tool_importing_zod_syncs_and_runs_unasked(zod_project: Path, cli: Cli) -> None:
    synced(zod_project, cli, "hello")
    assert call("hello").stdout == "hello\n"
    lint = cli(porcelain.main, "lint", "tools")
    assert "code-open" not in lint.stdout + lint.stderr, lint


def test_a_file_of_zod_edited_afterwards_refuses_the_call(zod_project: Path, cli: Cli) -> None:
    synced(zod_project, cli, "hello")
    entry = zod_project / "node_modules" / "zod" / "lib" / "index.mjs"
    entry.write_text(f"console.log('{PWNED}');\n" + entry.read_text())
    refused(call("hello"), "node_modules/zod/")


def test_a_file_added_to_zod_refuses_the_call(zod_project: Path, cli: Cli) -> None:
    synced(zod_project, cli, "hello")
    write(zod_project / "node_modules" / "zod" / "lib" / "extra.js", "\n")
    refused(call("hello"), "node_modules/zod/")


def test_an_edit_of_package_json_scripts_leaves_the_tool_allowed(zod_project: Path, cli: Cli) -> None:
    synced(zod_project, cli, "hello")
    write(zod_project / "package.json", json.dumps({"name": "p", "type": "module", "scripts": {"b": "echo b"}}))
    assert call("hello").stdout == "hello\n"


def test_an_edit_of_package_json_type_refuses_the_call(zod_project: Path, cli: Cli) -> None:
    synced(zod_project, cli, "hello")
    write(zod_project / "package.json", json.dumps({"name": "p", "type": "commonjs", "scripts": {"a": "echo a"}}))
    refused(call("hello"), "package.json")


def test_a_package_past_the_bound_is_refused_by_name(project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    monkeypatch.setattr(limits, "MAX_PACKAGE_FILES", 3)
    write(project / "node_modules" / "big" / "package.json", '{"name": "big", "version": "1.0.0", "main": "a.js"}')
    for name in "abcd":
        write(project / "node_modules" / "big" / f"{name}.js", "module.exports = 'hello';\n")
    write(project / "scripts" / "x.js", "console.log(require('big'));\n")
    tool(project, "hello", "{kind: command, argv: [node, scripts/x.js]}")
    said = synced(project, cli, "hello")
    assert "big@1.0.0" in said.stdout and "20000" not in said.stdout, said
    assert "more than 3 files" in said.stdout and "declare that code" not in said.stdout, said
    assert "only when asked" in said.stdout, said
    # declared, it is the same package, past the same bound: no advice that loops
    tool(project, "hello", "{kind: command, argv: [node, scripts/x.js]}", extra="code: [node_modules/big/]\n")
    said = synced(project, cli, "hello")
    assert "more than 3 files" in said.stdout and "declare that code" not in said.stdout, said


def test_a_confined_tool_declaring_zod_runs_unasked(zod_project: Path, cli: Cli) -> None:
    """``side_effects: []``: node runs confined, shown the package its ``code:`` declares."""
    tool(
        zod_project,
        "hello",
        "{kind: command, argv: [node, scripts/hello.js]}",
        effects="[]",
        extra="code: [node_modules/zod/]\n",
    )
    synced(zod_project, cli, "hello")
    assert call("hello").stdout == "hello\n"


def wide_package(project: Path, files: int) -> None:
    """A package of ``files`` modules under node_modules/wide, more than MAX_CODE_FILES."""
    base = project / "node_modules" / "wide"
    write(
        base / "package.json", '{"name": "wide", "version": "2.0.0", "main": "index.js", "dependencies": {"dep": "1"}}'
    )
    write(base / "index.js", "module.exports = require('dep');\n")
    for index in range(files):
        write(base / "lib" / f"m{index}.js", f"module.exports = {index};\n")
    write(project / "node_modules" / "dep" / "package.json", '{"name": "dep", "version": "1.0.0", "main": "i.js"}')
    write(project / "node_modules" / "dep" / "i.js", "module.exports = 'hello';\n")
    write(project / "scripts" / "x.js", "console.log(require('wide'));\n")


@pytest.mark.parametrize("declared", [False, True])
def test_a_package_past_max_code_files_syncs_and_lint_advises_nothing(project: Path, cli: Cli, declared: bool) -> None:
    """The loop of issue 43: lint advised declaring the package, and sync refused it as too many
    files; now neither, imported or declared, and its dependency is pinned as a package too."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    wide_package(project, limits.MAX_CODE_FILES + 100)
    extra = "code: [node_modules/wide/]\n" if declared else ""
    tool(project, "hello", "{kind: command, argv: [node, scripts/x.js]}", extra=extra)
    lint = cli(porcelain.main, "lint", "tools")
    assert "code-open" not in lint.stdout + lint.stderr, lint
    said = synced(project, cli, "hello")
    assert "more than" not in said.stdout, said
    assert call("hello").stdout == "hello\n"
    write(project / "node_modules" / "dep" / "i.js", f"module.exports = '{PWNED}';\n")
    refused(call("hello"), "node_modules/dep/")


def test_a_confined_tool_declaring_a_large_package_runs_unasked(project: Path, cli: Cli) -> None:
    """A package past what is shown file by file (MAX_KEPT_PACKAGE_FILES) is read from disk."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    wide_package(project, 300)
    write(project / "package.json", '{"name": "p"}')  # (the project's directory made private: kept bytes)
    extra = "code: [node_modules/wide/, node_modules/dep/]\n"
    tool(project, "hello", "{kind: command, argv: [node, scripts/x.js]}", effects="[]", extra=extra)
    synced(project, cli, "hello")
    assert call("hello").stdout == "hello\n"
