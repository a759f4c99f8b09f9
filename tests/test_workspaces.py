"""npm, pnpm (isolated and hoisted) and yarn (classic, and Berry with ``nodeLinker: node-modules``)
workspaces (issue 43): a package of the workspace that ships tools (``@acme/dev-tools``, its
package.json's ``"cogtools"`` key) and a local tool that imports a package are found and run from
a package and from the workspace root, each package manager laying out ``node_modules`` its own
way (pnpm's ``.pnpm`` store above the package, a hoisted root ``node_modules``, links to the
workspace's packages); confinement shows a JavaScript tool what node resolves for it and nothing
else (:func:`cogtools.run.confine.node_view`), and a pinned tool whose code moves is refused.

The package managers are the npm registry's, pinned, installed once outside the clone
(:mod:`tests.npm_packages`); every install here is offline: the workspace's packages are local
(``file:`` directories and the workspace's own)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from cogtools.cli import porcelain
from cogtools.run.confine import Confinement, node_view

from .conftest import Cli, run_script, write
from .npm_packages import npm_package, package_dir, unavailable

#: The package managers, pinned: (npm package, version, cache slug, its command's file in the package).
MANAGERS = {
    "pnpm": ("pnpm", "10.34.9", "pnpm", "bin/pnpm.cjs"),
    "yarn": ("yarn", "1.22.22", "yarn", "bin/yarn.js"),
    "yarn-berry": ("@yarnpkg/cli-dist", "4.18.1", "yarn-berry", "bin/yarn.js"),
}
#: Each layout a test builds: the package manager, and what its settings files say.
LAYOUTS = ["npm", "pnpm", "pnpm-hoisted", "yarn", "yarn-berry"]

TINY = 'export const shout = (s) => s.toUpperCase() + "!";\n'
TOOLSET_TOOL = """// cogtools-tool
// description: Say the version of node, loudly.
// side_effects: []
// risk_level: low
//
import { shout } from "tiny";
console.log(shout(process.version.slice(0, 2)));
"""
TINY_BIN = '#!/usr/bin/env node\nimport { shout } from "./index.js";\nconsole.log(shout("bin"));\n'
PLAIN_TOOL = """// cogtools-tool
// description: Say a word of the toolset's own module.
// side_effects: []
// risk_level: low
//
import { word } from "./lib.mjs";
console.log(word);
"""
LOCAL_TOOL = """// cogtools-tool
// description: Say hello loudly.
// side_effects: [filesystem_read]
// risk_level: low
//
import { shout } from "tiny";
console.log(shout("hello"));
"""
GIT_TOOL = """description: Where the repository is.
side_effects: [filesystem_read]
risk_level: low
implementation: {kind: command, argv: [git, rev-parse, --is-inside-work-tree]}
"""
SHOUT_TOOL = """description: Shout with the workspace's program.
side_effects: [filesystem_read]
risk_level: low
code: [node_modules/tiny/]
implementation: {kind: command, argv: [tiny-shout]}
"""
SOURCES = "tool_sources:\n  - local: ./tools\n  - node_modules\n"


def manager(name: str) -> list[str]:
    """The command of a pinned package manager (npm: the machine's)."""
    if name == "npm":
        if shutil.which("npm") is None:
            unavailable("npm is not installed")
        return ["npm"]
    package, version, slug, command = MANAGERS[name]
    directory = npm_package(package, version, package_dir(slug, version, f"COGTOOLS_{slug.upper().replace('-', '_')}"))
    return ["node", str(directory / "node_modules" / package / command)]


def build(mono: Path, layout: str) -> Path:
    """A workspace at ``mono`` (a git repository): ``vendor/tiny`` (a plain package), ``vendor/
    dev-tools`` (a package that ships tools and depends on tiny), both ``file:`` dependencies, and
    ``packages/app`` (a project of its own: tools of its own, the toolsets of node_modules), which
    depends on both, as the root does; installed offline by ``layout``'s package manager."""
    subprocess.run(["git", "init", "-q", str(mono)], check=True)
    deps = {"@acme/dev-tools": "file:{}vendor/dev-tools", "tiny": "file:{}vendor/tiny"}
    root = {"name": "mono", "private": True, "dependencies": {k: v.format("./") for k, v in deps.items()}}
    if layout.startswith("pnpm"):
        write(mono / "pnpm-workspace.yaml", "packages: [packages/*]\n")
        if layout == "pnpm-hoisted":
            write(mono / ".npmrc", "node-linker=hoisted\n")
    else:
        root["workspaces"] = ["packages/*"]
    if layout == "yarn-berry":
        write(mono / ".yarnrc.yml", "nodeLinker: node-modules\nenableTelemetry: false\nenableGlobalCache: false\n")
    write(mono / "package.json", json.dumps(root))
    write(
        mono / "vendor" / "tiny" / "package.json",
        '{"name": "tiny", "version": "1.0.0", "type": "module", "main": "index.js", "bin": {"tiny-shout": "bin.js"}}',
    )
    write(mono / "vendor" / "tiny" / "index.js", TINY)
    write(mono / "vendor" / "tiny" / "bin.js", TINY_BIN, mode=0o755)
    tools = mono / "vendor" / "dev-tools"
    manifest = {"name": "@acme/dev-tools", "version": "1.0.0", "type": "module", "cogtools": {"tools": "tools/"}}
    write(tools / "package.json", json.dumps({**manifest, "dependencies": {"tiny": "file:../tiny"}}))
    write(tools / "tools" / "node_versions.mjs", TOOLSET_TOOL)
    write(tools / "tools" / "plain_word.mjs", PLAIN_TOOL)
    write(tools / "tools" / "lib.mjs", 'export const word = "plain";\n')
    app = mono / "packages" / "app"
    app_deps = {k: v.format("../../") for k, v in deps.items()}
    write(
        app / "package.json", json.dumps({"name": "app", "private": True, "type": "module", "dependencies": app_deps})
    )
    write(app / ".cogtoolrc.yaml", SOURCES)
    write(mono / ".cogtoolrc.yaml", SOURCES)
    write(app / "tools" / "hello.mjs", LOCAL_TOOL)
    write(app / "tools" / "in_repo.yaml", GIT_TOOL)
    name = "yarn-berry" if layout == "yarn-berry" else layout.partition("-")[0]
    command = [*manager(name), "install"]
    command += {"npm": ["--offline", "--no-audit", "--no-fund"], "pnpm": ["--offline"], "yarn": ["--offline"]}.get(
        name, []
    )
    # (under CI, Berry refuses an install that would write a lockfile: this one is new)
    env = {
        **os.environ,
        "YARN_ENABLE_TELEMETRY": "0",
        "COREPACK_ENABLE_STRICT": "0",
        "YARN_ENABLE_IMMUTABLE_INSTALLS": "0",
    }
    done = subprocess.run(command, cwd=mono, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return app


@pytest.fixture
def no_global(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    prefix = isolated.parent / "npm-prefix"
    prefix.mkdir(exist_ok=True)
    monkeypatch.setenv("npm_config_prefix", str(prefix))


def called(name: str, cwd: Path) -> str:
    done = run_script("cogtools-call", name, stdin="{}", cwd=cwd)
    assert done.status == 0, done
    return done.stdout


@pytest.mark.slow
@pytest.mark.e2e
@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_workspaces_tools_are_found_and_run_from_a_package_and_from_the_root(
    isolated: Path, no_global: None, layout: str
) -> None:
    app = build(isolated / "mono", layout)
    for where in (app, isolated / "mono"):
        listing = run_script("cogtools", "list", cwd=where)
        assert listing.status == 0, listing
        assert "node_modules/@acme/dev-tools/tools/node_versions.mjs (npm:@acme/dev-tools, confined)" in listing.stdout
        assert ".pnpm" not in listing.stdout and str(isolated) not in listing.stdout  # relative, no store path
        assert called("node_versions", where) == "V2!\n"  # the toolset imports its dependency
        assert called("plain_word", where) == "plain\n"
    assert called("hello", app) == "HELLO!\n"  # a local tool imports a package of the workspace
    assert called("in_repo", app) == "true\n"  # git finds the .git above the package


@pytest.mark.slow
def test_a_pinned_git_tool_of_a_package_finds_the_repository_above_it(isolated: Path, cli: Cli) -> None:
    """(issue 43, found by a new user: once pinned, a confined `git` tool of a workspace's package
    failed on every call, "not a git repository": its checked .git/config was shown in a private
    .git holding nothing else, while the unpinned call and `cogtools test` passed)"""
    from cogtools.run.bind import bwrap

    if bwrap() is None:
        pytest.skip("bubblewrap is not installed, or cannot make a namespace here")
    mono = isolated / "mono"
    subprocess.run(["git", "init", "-q", str(mono)], check=True)
    app = mono / "packages" / "web"
    write(app / ".cogtoolrc.yaml", "# the package's project\n")
    write(app / "tools" / "in_repo.yaml", GIT_TOOL)
    assert called("in_repo", app) == "true\n"
    os.chdir(app)
    write(app / ".gemini" / "settings.json", json.dumps({"tools": {"allowed": ["discovered_tool_in_repo"]}}))
    assert cli(porcelain.main, "sync", "--yes").status == 0
    assert called("in_repo", app) == "true\n"
    with (mono / ".git" / "config").open("a") as config:
        config.write("[core]\n\tfsmonitor = echo PWNED\n")
    denied = run_script("cogtools-call", "in_repo", stdin="{}", cwd=app)
    assert denied.status != 0 and "POLICY_DENIED" in denied.stderr, denied


# --- what node resolves, and nothing else ------------------------------------------------------


def store(mono: Path) -> Path:
    """pnpm's layout, by hand: ``mono/node_modules/.pnpm`` holding tiny, and ``packages/app`` and
    ``packages/lib`` (a workspace package) linked from the app's node_modules."""
    tiny = mono / "node_modules" / ".pnpm" / "tiny@1.0.0" / "node_modules" / "tiny"
    write(tiny / "package.json", '{"name": "tiny"}')
    write(mono / "pnpm-workspace.yaml", "packages: [packages/*]\n")
    write(mono / "packages" / "lib" / "package.json", '{"name": "lib"}')
    app = mono / "packages" / "app"
    write(app / "tools" / "t.mjs", "")
    (app / "node_modules").mkdir()
    os.symlink("../../../node_modules/.pnpm/tiny@1.0.0/node_modules/tiny", app / "node_modules" / "tiny")
    os.symlink("../../lib", app / "node_modules" / "lib")
    return app


def rules(app: Path, mono: Path, *, reads: bool) -> Confinement:
    root = str(app.resolve())
    return Confinement((root,) if reads else (), (), False, False, root, workspace=str(mono.resolve()))


def test_node_is_shown_the_store_and_the_workspace_packages_it_links_to(tmp_path: Path) -> None:
    mono = tmp_path / "mono"
    app = store(mono)
    view = node_view(rules(app, mono, reads=True), [str(app / "tools" / "t.mjs")])
    real = mono.resolve()
    assert set(view.shown) == {str(real / d) for d in ("node_modules", "packages/lib", "packages/app/node_modules")}
    hidden = node_view(rules(app, mono, reads=False), [str(app / "tools" / "t.mjs")])
    assert str(app.resolve() / "node_modules") not in hidden.shown  # the project's own, hidden with the project
    # a package the tool declares (pinned whole: its directory): its link made again, and what it
    # leads to shown (issue 43: the link's relative target was read from the working directory)
    tiny = app / "node_modules" / "tiny"
    declared = node_view(rules(app, mono, reads=False), [str(app / "tools" / "t.mjs"), str(tiny)])
    assert declared.links == ((str(tiny), "../../../node_modules/.pnpm/tiny@1.0.0/node_modules/tiny"),)
    assert (
        str(real / "node_modules" / ".pnpm" / "tiny@1.0.0" / "node_modules" / "tiny") in declared.shown
        or str(real / "node_modules") in declared.shown
    )


def test_a_declared_packages_dependencies_in_pnpms_store_are_shown_not_linked_again(tmp_path: Path) -> None:
    """(issue 43, found by a new user: a confined tool declaring express, in pnpm's default layout,
    failed on every call, "bwrap: Can't make symlink at .../.pnpm/express@5.3.0/node_modules/
    accepts: File exists": the store's own link to a dependency was made again inside the store
    directory shown whole)"""
    mono = tmp_path / "mono"
    app = store(mono)
    pnpm = mono / "node_modules" / ".pnpm"
    write(pnpm / "accepts@1.0.0" / "node_modules" / "accepts" / "package.json", '{"name": "accepts"}')
    os.symlink("../../accepts@1.0.0/node_modules/accepts", pnpm / "tiny@1.0.0" / "node_modules" / "accepts")
    tiny = app / "node_modules" / "tiny"
    accepts = pnpm / "tiny@1.0.0" / "node_modules" / "accepts"  # (as the pin finds it, from tiny's real path)
    view = node_view(rules(app, mono, reads=False), [str(app / "tools" / "t.mjs"), str(tiny), str(accepts)])
    assert view.links == ((str(tiny), "../../../node_modules/.pnpm/tiny@1.0.0/node_modules/tiny"),)
    for link, _ in view.links:  # (bubblewrap cannot make a link where a directory bound already has one)
        assert not any(link.startswith(shown + os.sep) for shown in view.shown), (link, view.shown)
    assert any(str(accepts.resolve()).startswith(shown) for shown in view.shown), view.shown


@pytest.mark.parametrize("target", ["secret", "/", "mono", "app", "app/tools", "outside-ws"])
def test_a_link_in_node_modules_shows_nothing_outside_the_workspace_nor_the_project(
    tmp_path: Path, target: str
) -> None:
    """An attacker's links: a package of node_modules that leads to a secret outside the workspace
    (a home's ~/.ssh), to the whole system, the workspace itself, the project (to a tool that may
    not read it) or a directory beside the workspace: none is shown."""
    mono = tmp_path / "mono"
    app = store(mono)
    write(tmp_path / "secret" / "package.json", '{"name": "id_rsa"}')
    write(tmp_path / "outside-ws" / "package.json", '{"name": "x"}')
    places = {"/": "/", "mono": str(mono), "app": str(app), "app/tools": str(app / "tools")}
    for modules in (mono / "node_modules", mono / "node_modules" / ".pnpm" / "tiny@1.0.0" / "node_modules"):
        os.symlink(places.get(target, str(tmp_path / target)), modules / "evil")
    write(app / "tools" / "package.json", '{"name": "tools"}')
    view = node_view(rules(app, mono, reads=False), [str(app / "tools" / "t.mjs")])
    for shown in view.shown:
        assert shown.startswith(str(mono.resolve()) + os.sep), view
        assert not str(app.resolve()).startswith(shown) and not shown.startswith(str(app.resolve())), view
        assert "secret" not in shown and "outside-ws" not in shown, view


# --- pins ----------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.e2e
def test_a_pinned_toolset_tool_whose_code_moves_is_refused(isolated: Path, no_global: None, cli: Cli) -> None:
    """pnpm: a person allows the toolset's tool (its code: the script and the module it imports,
    read through the link into pnpm's store); the agent points the link at another copy of the
    package whose module says otherwise, or edits the store: the next call is refused."""
    app = build(isolated / "mono", "pnpm")
    os.chdir(app)
    write(app / ".gemini" / "settings.json", json.dumps({"tools": {"allowed": ["discovered_tool_plain_word"]}}))
    assert cli(porcelain.main, "sync", "--yes").status == 0
    assert called("plain_word", app) == "plain\n"
    link = app / "node_modules" / "@acme" / "dev-tools"
    module = link.resolve() / "tools" / "lib.mjs"
    assert ".pnpm" in str(module)
    module.write_text('export const word = "PWNED";\n')  # edited in the store
    denied = run_script("cogtools-call", "plain_word", stdin="{}", cwd=app)
    assert denied.status != 0 and "PWNED" not in denied.stdout and "POLICY_DENIED" in denied.stderr, denied
    module.write_text('export const word = "plain";\n')
    assert called("plain_word", app) == "plain\n"
    moved = isolated / "mono" / "vendor" / "moved"
    shutil.copytree(link.resolve(), moved, symlinks=True)
    write(moved / "tools" / "lib.mjs", 'export const word = "PWNED";\n')
    link.unlink()
    os.symlink(os.path.relpath(moved, link.parent), link)
    denied = run_script("cogtools-call", "plain_word", stdin="{}", cwd=app)
    assert denied.status != 0 and "PWNED" not in denied.stdout and "POLICY_DENIED" in denied.stderr, denied


@pytest.mark.slow
@pytest.mark.e2e
@pytest.mark.parametrize("layout", ["npm", "yarn", "pnpm-hoisted"])
def test_a_hoisted_workspaces_tools_run_unasked_from_a_package_pinned(
    isolated: Path, no_global: None, cli: Cli, layout: str
) -> None:
    """Found by a new user (yarn classic): a package's tool that imports a dependency hoisted to
    the workspace root, a toolset hoisted there, or the root's program (declared, as a package's
    program is) could never run unasked, so headless Gemini CLI never offered them. Each is
    pinned by its package's tree wherever it lies: an edit of the hoisted package refuses them."""
    app = build(isolated / "mono", layout)
    os.chdir(app)
    write(app / "tools" / "shout.yaml", SHOUT_TOOL)
    names = ["hello", "node_versions", "plain_word", "shout"]
    write(
        app / ".gemini" / "settings.json", json.dumps({"tools": {"allowed": [f"discovered_tool_{n}" for n in names]}})
    )
    said = cli(porcelain.main, "sync", "--yes")
    assert said.status == 0 and "cannot run without confirmation" not in said.stdout, said
    expected = {"hello": "HELLO!\n", "node_versions": "V2!\n", "plain_word": "plain\n", "shout": "BIN!\n"}
    assert {name: called(name, app) for name in names} == expected
    tiny = (isolated / "mono" / "node_modules" / "tiny").resolve()
    assert not (app / "node_modules" / "tiny").exists()  # hoisted: node finds it above the package
    (tiny / "index.js").write_text('export const shout = () => "PWNED";\n')
    for name in ("hello", "node_versions", "shout"):
        denied = run_script("cogtools-call", name, stdin="{}", cwd=app)
        assert denied.status != 0 and "PWNED" not in denied.stdout and "POLICY_DENIED" in denied.stderr, denied
    (tiny / "index.js").write_text(TINY)
    assert {name: called(name, app) for name in names} == expected


@pytest.mark.slow
@pytest.mark.e2e
def test_a_confined_tool_declaring_a_package_of_pnpms_store_runs_unasked(
    isolated: Path, no_global: None, cli: Cli
) -> None:
    """Found by a new user (pnpm's default layout): a tool that may not read the project and
    declares the package it imports (`code: [node_modules/tiny/]`) was pinned and offered, and
    every call failed: the checked package.json's private directory hid the link to the store."""
    app = build(isolated / "mono", "pnpm")
    os.chdir(app)
    confined = LOCAL_TOOL.replace("[filesystem_read]", "[]").replace(
        "// risk_level: low", "// risk_level: low\n// code: [node_modules/tiny/]"
    )
    write(app / "tools" / "boxed_hello.mjs", confined)
    write(app / ".gemini" / "settings.json", json.dumps({"tools": {"allowed": ["discovered_tool_boxed_hello"]}}))
    said = cli(porcelain.main, "sync", "--yes")
    assert said.status == 0 and "cannot run without confirmation" not in said.stdout, said
    assert called("boxed_hello", app) == "HELLO!\n"
    (app / "node_modules" / "tiny").resolve().joinpath("index.js").write_text('export const shout = () => "PWNED";\n')
    denied = run_script("cogtools-call", "boxed_hello", stdin="{}", cwd=app)
    assert denied.status != 0 and "PWNED" not in denied.stdout and "POLICY_DENIED" in denied.stderr, denied


# --- a workspace's own packages ------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.e2e
@pytest.mark.parametrize("layout", ["npm", "yarn-berry"])  # (yarn 1 links no package nothing depends on)
def test_a_workspace_package_is_the_projects_own_not_a_dependency(isolated: Path, no_global: None, layout: str) -> None:
    """Found by a new user: the root's node_modules links each workspace package (node_modules/app
    -> ../packages/app, the package itself), and a package configured in its package.json's
    "cogtools" key (settings, no "tools") was taken for a dependency that declares its tools
    wrongly: doctor warned, lint and list noted it, from the root and from the package. And a
    workspace package that ships tools was, from itself, its own dependency (npm:app)."""
    mono = isolated / "mono"
    app = build(mono, layout)
    (app / ".cogtoolrc.yaml").unlink()
    manifest = json.loads((app / "package.json").read_text())
    manifest["cogtools"] = {"tool_sources": [{"local": "./tools"}, "node_modules"]}
    write(app / "package.json", json.dumps(manifest))
    assert (mono / "node_modules" / "app").resolve() == app.resolve()
    for where in (app, mono):
        for command in (["list"], ["lint"], ["doctor"]):
            done = run_script("cogtools", *command, cwd=where)
            said = done.stdout + done.stderr
            assert "declares its cogtools tools wrongly" not in said and "of app does not load" not in said, done
    # a workspace package that ships tools: from the root, a workspace package's toolset; from
    # itself, its own tools, once, and not a dependency of itself
    manifest["cogtools"]["tools"] = "tools/"
    write(app / "package.json", json.dumps(manifest))
    listing = run_script("cogtools", "list", cwd=app)
    assert listing.status == 0 and "npm:app" not in listing.stdout + listing.stderr, listing
    assert "tools/hello.mjs (local:./tools, confined)" in listing.stdout, listing
    listing = run_script("cogtools", "list", cwd=mono)
    assert "node_modules/app/tools/hello.mjs (npm:app, confined)" in listing.stdout, listing
    assert called("hello", mono) == "HELLO!\n"


@pytest.mark.slow
@pytest.mark.e2e
def test_a_review_shows_a_toolsets_tool_through_the_link_the_user_knows(isolated: Path, no_global: None) -> None:
    """Found by a new user: sync's review of a changed toolset tool said what it runs by the path
    its link leads to in pnpm's store (node .../node_modules/.pnpm/@acme+dev-tools@file+.../tools/
    plain_word.mjs); a person knows node_modules/@acme/dev-tools/tools/plain_word.mjs. What is
    checked keeps the real path: the edit in the store still needs a review."""
    app = build(isolated / "mono", "pnpm")
    write(app / ".gemini" / "settings.json", json.dumps({"tools": {"allowed": ["discovered_tool_plain_word"]}}))
    assert run_script("cogtools", "sync", "--yes", cwd=app).status == 0
    script = (app / "node_modules" / "@acme" / "dev-tools").resolve() / "tools" / "plain_word.mjs"
    script.write_text(script.read_text() + "\n")
    denied = run_script("cogtools-call", "plain_word", stdin="{}", cwd=app)
    assert denied.status != 0 and "POLICY_DENIED" in denied.stdout + denied.stderr, denied
    review = run_script("cogtools", "sync", "--yes", cwd=app)
    said = review.stdout + review.stderr
    assert "runs: script: node node_modules/@acme/dev-tools/tools/plain_word.mjs" in said, review
    assert [line for line in said.splitlines() if ".pnpm" in line] == [], review
    assert called("plain_word", app) == "plain\n"
    shown = run_script("cogtools", "show", "plain_word", cwd=app)
    assert shown.status == 0 and "script: node node_modules/@acme/dev-tools/tools/plain_word.mjs" in shown.stdout, shown
    assert ".pnpm" not in shown.stdout, shown


def mcp_calls(where: Path, *names: str) -> tuple[set[str], list[str]]:
    """The tools a real MCP client (the SDK's) is offered by `cogtools mcp` started in ``where``,
    and the text each of ``names`` answers."""
    pytest.importorskip("mcp")
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    from .conftest import BIN

    async def main() -> tuple[set[str], list[str]]:
        server = StdioServerParameters(command=str(BIN / "cogtools"), args=["mcp"], cwd=str(where), env={**os.environ})
        with open(where / ".." / f"server-{where.name}.err", "w") as errlog:
            async with stdio_client(server, errlog) as (read, written), ClientSession(read, written) as session:
                await session.initialize()
                offered = {tool.name for tool in (await session.list_tools()).tools}
                answers = []
                for name in names:
                    result = await session.call_tool(name, {})
                    assert not result.is_error, result
                    answers.append("".join(getattr(part, "text", "") for part in result.content))
                return offered, answers

    return anyio.run(main)


@pytest.mark.slow
@pytest.mark.e2e
def test_yarn_berry_end_to_end_from_the_root_and_from_a_package(isolated: Path, no_global: None) -> None:
    """Yarn Berry (nodeLinker: node-modules), the way its developers work: list, lint, test, sync,
    a call through cogtools-call and one through `cogtools mcp` with the MCP SDK's client, from
    the workspace root and from a package."""
    mono = isolated / "mono"
    app = build(mono, "yarn-berry")
    for where in (app, mono):
        listing = run_script("cogtools", "list", cwd=where)
        assert listing.status == 0 and "(npm:@acme/dev-tools, confined)" in listing.stdout, listing
        for command in (["lint"], ["test"]):
            done = run_script("cogtools", *command, cwd=where)
            assert done.status == 0 and "Traceback" not in done.stderr, done
            assert "declares its cogtools tools wrongly" not in done.stdout + done.stderr, done
        write(where / ".gemini" / "settings.json", json.dumps({"tools": {"allowed": ["discovered_tool_plain_word"]}}))
        synced = run_script("cogtools", "sync", "--yes", cwd=where)
        assert synced.status == 0, synced
        assert called("plain_word", where) == "plain\n"  # pinned: runs unasked
        assert called("node_versions", where) == "V2!\n"
        offered, answers = mcp_calls(where, "node_versions", "plain_word")
        assert {"node_versions", "plain_word"} <= offered, offered
        assert [answer.strip() for answer in answers] == ["V2!", "plain"], answers
    offered, answers = mcp_calls(app, "hello")
    assert "hello" in offered and answers[0].strip() == "HELLO!", answers
