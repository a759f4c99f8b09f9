"""A TypeScript tool on the node the machine has (issue 43): sync allowed a ``.ts`` tool on Node
20, where every call failed with node's own error. Node 22.6 or newer strips the types; an older
node runs the tool through the project's tsx (``node --import`` its loader, so that no server
socket is needed, which confinement refuses); with neither, lint, sync's review and the call say
what is needed (EXECUTION_FAILED, no traceback). Through the real commands."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from .conftest import run_script, write

pytestmark = [
    pytest.mark.slow,  # real calls, lint and sync, each a process
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed"),
]

#: tsx, pinned (installed once by tests/npm_packages.py, then copied into each project).
TSX_VERSION = "4.20.6"

SHOUT = (
    "// cogtools-tool\n// description: Shout the text back.\n// parameters:\n"
    "//   text: {type: string, description: What to shout.}\n// examples:\n//   - {text: hi}\n"
    "// side_effects: [{effects}]\n//\n"
    'import { readFileSync } from "node:fs";\n'
    'const args: { text: string } = JSON.parse(readFileSync(0, "utf8"));\n'
    "console.log(args.text.toUpperCase());\n"
)


def old_node(project: Path) -> str:
    """A PATH whose node says it is 20.1.0 (and runs as the machine's node does otherwise)."""
    real = shutil.which("node")
    bin_dir = project.parent / "old-node"
    write(
        bin_dir / "node",
        f'#!/bin/sh\nif [ "$1" = --version ]; then echo v20.1.0; exit 0; fi\nexec {real} "$@"\n',
        mode=0o755,
    )
    return f"{bin_dir}{os.pathsep}{os.environ['PATH']}"


def shout(project: Path, effects: str = "") -> None:
    write(project / "tools" / "shout.ts", SHOUT.replace("{effects}", effects))


def test_without_tsx_an_old_node_is_said_plainly(project: Path) -> None:
    shout(project)
    env = {**os.environ, "PATH": old_node(project)}
    called = run_script("cogtools-call", "shout", stdin='{"text": "hi"}', cwd=project, env=env)
    error = json.loads(called.stdout)["error"]
    assert error["code"] == "EXECUTION_FAILED" and "Traceback" not in called.stderr, called
    assert "is 20.1.0, which cannot run TypeScript, and the project has no node_modules/.bin/tsx" in error["message"]
    assert error["details"]["needs"] == "Node.js 22.6 or newer, or tsx in the project (npm install --save-dev tsx)"
    lint = run_script("cogtools", "lint", "--strict", cwd=project, env=env)
    assert "warning[typescript-unsupported]" in lint.stdout and "install Node.js 22.6 or newer, or tsx" in lint.stdout
    write(project / ".gemini" / "settings.json", "{}\n")
    shout_low = SHOUT.replace("// side_effects: [{effects}]\n", "// side_effects: []\n// risk_level: low\n")
    write(project / "tools" / "shout.ts", shout_low)
    synced = run_script("cogtools", "sync", "--yes", cwd=project, env=env)
    assert "cannot run here: the node on PATH" in synced.stdout, synced


@pytest.fixture
def tsx(project: Path) -> Path:
    """The project with tsx installed in its node_modules, as npm installs it."""
    from .npm_packages import npm_package, package_dir

    installed = npm_package("tsx", TSX_VERSION, package_dir("tsx", TSX_VERSION, "COGTOOLS_TSX_DIR"))
    shutil.copytree(installed / "node_modules", project / "node_modules", symlinks=True)
    return project


@pytest.mark.parametrize("effects", ["filesystem_read", ""])
def test_an_old_node_runs_typescript_through_the_projects_tsx(tsx: Path, effects: str) -> None:
    """Confined to nothing (``side_effects: []``) too: tsx and the packages it needs are what runs
    the script, shown to it read-only, and pinned as the installed packages they are (a new user's
    finding: lint called them code no one could tell, with a hint that named nothing)."""
    write(tsx / "tools" / "shout.ts", SHOUT.replace("{effects}", effects))
    env = {**os.environ, "PATH": old_node(tsx)}
    called = run_script("cogtools-call", "shout", stdin='{"text": "hi"}', cwd=tsx, env=env)
    assert called.status == 0 and called.stdout == "HI\n", called
    lint = run_script("cogtools", "lint", "--strict", "tools/shout.ts", cwd=tsx, env=env)
    assert lint.status == 0 and lint.stdout == "0 errors, 0 warnings\n", lint  # (no code-open, no package-hidden)
    assert run_script("cogtools", "test", cwd=tsx, env=env).stdout == "PASS shout[0]\n1 passed, 0 failed\n"
    # the review shows what runs it here (the newcomer's finding: node's flag, which this node
    # lacks), by its path in the project; it runs unasked, and an edit of tsx refuses it
    write(tsx / ".gemini" / "settings.json", '{"tools": {"allowed": ["discovered_tool_shout"]}}\n')
    low = SHOUT.replace("// side_effects: [{effects}]\n", f"// side_effects: [{effects}]\n// risk_level: low\n")
    write(tsx / "tools" / "shout.ts", low)
    synced = run_script("cogtools", "sync", "--yes", cwd=tsx, env=env)
    assert "--experimental-strip-types" not in synced.stdout and "cannot run without" not in synced.stdout, synced
    assert "script: node --import=node_modules/tsx/dist/loader.mjs tools/shout.ts" in synced.stdout, synced
    assert run_script("cogtools-call", "shout", stdin='{"text": "hi"}', cwd=tsx, env=env).stdout == "HI\n"
    # tsx reads tsconfig.json, whose paths can send an import to any file (an attacker's pass)
    write(tsx / "tsconfig.json", '{"compilerOptions": {"paths": {"x": ["./evil.ts"]}}}\n')
    refused = run_script("cogtools-call", "shout", stdin='{"text": "hi"}', cwd=tsx, env=env)
    assert refused.status != 0 and "tsconfig.json" in refused.stderr, refused
    (tsx / "tsconfig.json").unlink()
    assert run_script("cogtools-call", "shout", stdin='{"text": "hi"}', cwd=tsx, env=env).stdout == "HI\n"
    loader = tsx / "node_modules" / "tsx" / "dist" / "loader.mjs"
    loader.write_text(loader.read_text() + "\nconsole.log('PWNED');\n")
    refused = run_script("cogtools-call", "shout", stdin='{"text": "hi"}', cwd=tsx, env=env)
    assert refused.status != 0 and "POLICY_DENIED" in refused.stderr and "node_modules/tsx/" in refused.stderr, refused


def test_new_writes_a_typescript_tool_that_tsx_runs(tsx: Path) -> None:
    """`cogtools new shout.ts`, with tsx where node cannot strip types: its example passes."""
    env = {**os.environ, "PATH": old_node(tsx)}
    created = run_script("cogtools", "new", "shout.ts", "--param", "text", "--description", "Shout.", cwd=tsx, env=env)
    assert created.status == 0 and "runs it through the project's tsx" in created.stdout, created
    assert run_script("cogtools", "test", cwd=tsx, env=env).stdout == "PASS shout[0]\n1 passed, 0 failed\n"


@pytest.mark.slow
def test_new_writes_a_typescript_tool_that_node_runs_and_lint_passes(project: Path) -> None:
    """Where node strips types itself (a pinned Node.js 22), lint --strict and test pass clean."""
    from .npm_packages import node_binary
    from .test_mcp_conformance import NODE_VERSION

    node = node_binary(NODE_VERSION, "COGTOOLS_NODE_DIR")
    env = {**os.environ, "PATH": f"{node.parent}{os.pathsep}{os.environ['PATH']}"}
    created = run_script(
        "cogtools", "new", "shout.ts", "--param", "text", "--description", "Shout it.", cwd=project, env=env
    )
    assert created.status == 0 and "tsx" not in created.stdout, created
    lint = run_script("cogtools", "lint", "--strict", cwd=project, env=env)
    assert lint.status == 0, lint
    assert run_script("cogtools", "test", cwd=project, env=env).stdout == "PASS shout[0]\n1 passed, 0 failed\n"


def test_new_says_when_nothing_here_runs_typescript(project: Path) -> None:
    env = {**os.environ, "PATH": old_node(project)}
    created = run_script("cogtools", "new", "shout.ts", cwd=project, env=env)
    assert created.status == 0 and "cannot run TypeScript" in created.stdout and "or tsx" in created.stdout, created


LOUD = (
    "// cogtools-tool\n// description: Shout the text back.\n// parameters:\n"
    "//   text: {type: string, description: What to shout.}\n// side_effects: []\n{code}//\n"
    'import { shout } from "shout";\nconsole.log(shout(process.env.COGTOOLS_ARG_TEXT));\n'
)


def test_a_confined_tool_that_imports_a_package_of_the_project_runs(project: Path) -> None:
    """Issue 43: `side_effects: []` hid node_modules, and the call failed with node's
    ERR_MODULE_NOT_FOUND. A package of the project that the tool imports is pinned whole, as one
    entry (docs/trust.md), and shown to it read-only: the call runs, and lint has nothing to say."""
    write(project / "node_modules" / "shout" / "package.json", '{"name": "shout", "type": "module", "main": "i.js"}')
    write(project / "node_modules" / "shout" / "i.js", "export const shout = (s) => s.toUpperCase();\n")
    write(project / "tools" / "loud.mjs", LOUD.replace("{code}", ""))
    called = run_script("cogtools-call", "loud", stdin='{"text": "hi"}', cwd=project)
    assert called.stdout == "HI\n", called
    lint = run_script("cogtools", "lint", "tools/loud.mjs", cwd=project)
    assert "package-hidden" not in lint.stdout and "code-open" not in lint.stdout, lint


@pytest.mark.parametrize("layout", ["hoisted", "pnpm"])
def test_tsx_is_found_where_node_finds_it_in_a_workspace(tmp_path: Path, layout: str) -> None:
    """(issue 43, found by a new user: tsx hoisted to the workspace root, or linked from pnpm's
    store with a shell shim for node_modules/.bin/tsx, was not found: every call failed on Node 20)"""
    from cogtools.run.interpreters import typescript

    mono = tmp_path / "mono"
    write(mono / "package.json", '{"workspaces": ["packages/*"]}\n')
    app = mono / "packages" / "app"
    script = write(app / "tools" / "x.ts", "")
    store = mono / "node_modules" / (".pnpm/tsx@4/node_modules/tsx" if layout == "pnpm" else "tsx")
    write(store / "package.json", '{"name": "tsx", "exports": {".": "./dist/loader.mjs"}}\n')
    write(store / "dist" / "loader.mjs", "\n")
    if layout == "pnpm":
        (app / "node_modules").mkdir()
        os.symlink("../../../node_modules/.pnpm/tsx@4/node_modules/tsx", app / "node_modules" / "tsx")
        write(
            app / "node_modules" / ".bin" / "tsx", '#!/bin/sh\nexec node "$basedir/../tsx/dist/cli.mjs"\n', mode=0o755
        )
    found = typescript(script, app, old_node(tmp_path))
    assert found == ["node", f"--import={store.resolve() / 'dist' / 'loader.mjs'}"], found
