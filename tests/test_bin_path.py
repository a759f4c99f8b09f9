"""A project's ``node_modules/.bin`` on a command tool's PATH (issue 43, build 4): npx put it on
PATH, so ``echo '{}' | npx cogtools-call tc_bare`` ran ``tsc`` while the same tool called by Gemini
CLI failed with ``cannot run 'tsc'``. Every call now ends its PATH with the project's
``node_modules/.bin`` (and, in a workspace, its root's), and leaves out the ones a package runner
put first: the same PATH under npx, Gemini CLI and MCP, and a program of the workspace, which the
agent can write, never shadows one the person installed. Such a program is a package's, which a
pin cannot tell: open, unless the tool declares the package (``code:``). Lint looks for a program
as the call will (``program-missing``, ``program-agent-path``)."""

from __future__ import annotations

import json
import os
import typing as t
from pathlib import Path

import pytest

from cogtools.cli import porcelain

from .conftest import BIN, Cli, Result, run_script, write
from .test_gemini_binary import gemini  # noqa: F401 (a fixture)

#: Each test runs real calls, syncs or lints, a second or more on a busy machine.
pytestmark = pytest.mark.slow

#: The PATH a person's Gemini CLI (or MCP client) starts with: no node_modules/.bin.
PLAIN = os.pathsep.join([str(BIN), "/usr/local/bin", "/usr/bin", "/bin"])
#: A stand-in for typescript's tsc: says it ran, and the PATH it was given.
TSC = '#!/bin/sh\necho "tsc ran"\necho "PATH=$PATH"\n'


def package(root: Path, name: str, program: str, text: str) -> None:
    """``node_modules/NAME/bin/PROGRAM``, linked from ``node_modules/.bin`` as npm links it."""
    write(root / "node_modules" / name / "bin" / program, text, mode=0o755)
    (root / "node_modules" / ".bin").mkdir(parents=True, exist_ok=True)
    (root / "node_modules" / ".bin" / program).symlink_to(f"../{name}/bin/{program}")


def tool(root: Path, name: str, argv: str, extra: str = "") -> None:
    write(
        root / "tools" / f"{name}.yaml",
        f"description: {name}.\nrisk_level: low\nside_effects: [filesystem_read]\n{extra}"
        f"implementation: {{kind: command, argv: {argv}}}\n",
    )


def call(root: Path, name: str, path: str) -> Result:
    return run_script("cogtools-call", name, stdin="{}", cwd=root, env={**os.environ, "PATH": path})


def as_npx(root: Path) -> str:
    """The PATH npx gives what it runs: node_modules/.bin of the directory and of each above it first."""
    return os.pathsep.join([*(str(d / "node_modules" / ".bin") for d in (root, *root.parents)), PLAIN])


def test_a_command_tool_finds_the_projects_programs_as_gemini_cli_and_npx_call_it(project: Path) -> None:
    """The finding: only npx's call ran tsc. Both do now, with one PATH, the project's .bin last."""
    package(project, "typescript", "tsc", TSC)
    tool(project, "tc_bare", "[tsc, --noEmit]")
    plain = call(project, "tc_bare", PLAIN)
    npx = call(project, "tc_bare", as_npx(project))
    assert plain.status == 0 and plain.stdout.startswith("tsc ran\n"), plain
    assert npx.stdout == plain.stdout, (npx, plain)
    assert plain.stdout.rstrip("\n").endswith(f"{os.pathsep}{project / 'node_modules' / '.bin'}"), plain


def test_a_program_the_workspace_plants_never_shadows_an_installed_one(project: Path) -> None:
    """node_modules/.bin is last on PATH, under npx too: the agent can write it."""
    package(project, "evil", "uname", "#!/bin/sh\necho PLANTED\n")
    tool(project, "kernel", "[uname, -s]")
    for path in (PLAIN, as_npx(project)):
        said = call(project, "kernel", path)
        assert said.status == 0 and "PLANTED" not in said.stdout and said.stdout.strip(), said


def test_in_a_workspace_the_packages_and_the_roots_programs_are_found(tmp_path: Path) -> None:
    """A pnpm workspace: a package's own node_modules/.bin, then the workspace root's."""
    mono = tmp_path / "mono"
    (mono / ".git").mkdir(parents=True)
    write(mono / "pnpm-workspace.yaml", "packages: [packages/*]\n")
    web = mono / "packages" / "web"
    write(web / ".cogtoolrc.yaml", "# the package's tools\n")
    package(mono, "rooted", "rootonly", "#!/bin/sh\necho root\n")
    package(web, "own", "pkgonly", "#!/bin/sh\necho package\n")
    package(mono, "shadowed", "both", "#!/bin/sh\necho root\n")
    package(web, "nearer", "both", "#!/bin/sh\necho package\n")
    for name, program in (("r", "rootonly"), ("p", "pkgonly"), ("b", "both")):
        tool(web, name, f"[{program}]")
    said = {name: call(web, name, PLAIN).stdout for name in "rpb"}
    assert said == {"r": "root\n", "p": "package\n", "b": "package\n"}, said
    # an npm workspace (package.json's workspaces) is found the same way
    (mono / "pnpm-workspace.yaml").unlink()
    write(mono / "package.json", '{"name": "mono", "workspaces": ["packages/*"]}\n')
    assert call(web, "r", PLAIN).stdout == "root\n"


def test_an_mcp_call_gets_the_same_path(project: Path) -> None:
    """The server, started by a client with the person's PATH, runs the tool as cogtools-call does."""
    mcp = pytest.importorskip("mcp")
    del mcp
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    package(project, "typescript", "tsc", TSC)
    tool(project, "tc_bare", "[tsc, --noEmit]")

    async def main() -> str:  # the server's stderr to a file: pytest may have closed sys.stderr's
        server = StdioServerParameters(
            command=str(BIN / "cogtools"), args=["mcp"], cwd=str(project), env={**os.environ, "PATH": PLAIN}
        )
        with open(project.parent / "server.err", "w") as errlog:
            return await session_of(server, errlog)

    async def session_of(server: StdioServerParameters, errlog: t.TextIO) -> str:
        async with stdio_client(server, errlog) as (read, written), ClientSession(read, written) as session:
            await session.initialize()
            result = await session.call_tool("tc_bare", {})
            assert not result.is_error, result
            return "".join(getattr(part, "text", "") for part in result.content)

    assert anyio.run(main) == call(project, "tc_bare", PLAIN).stdout


# -- pins: a program of node_modules/.bin is a package's, open unless declared -------------------


def synced(root: Path, cli: Cli, *names: str) -> Result:
    """A person allows ``names`` unasked and syncs; what sync said."""
    write(
        root / ".gemini" / "settings.json", json.dumps({"tools": {"allowed": [f"discovered_tool_{n}" for n in names]}})
    )
    said = cli(porcelain.main, "sync", "--yes")
    assert said.status == 0, said
    return said


def test_a_pinned_tool_running_a_program_of_node_modules_bin_is_open_until_its_package_is_declared(
    project: Path, cli: Cli
) -> None:
    """As DESIGN's trust model has it: the agent can rewrite node_modules, and cogtools does not
    follow a package's code, so such a tool runs unasked only once the person declares the
    package in its `code:`, which the pin then covers: an edit of it is refused."""
    package(project, "typescript", "tsc", TSC)
    tool(project, "tc_bare", "[tsc, --noEmit]")
    said = synced(project, cli, "tc_bare")
    assert "it runs tsc from node_modules/typescript (node_modules/.bin)" in said.stdout, said
    assert "cannot run without confirmation" in said.stdout, said
    refused = call(project, "tc_bare", PLAIN)
    assert refused.status != 0 and "POLICY_DENIED" in refused.stderr and "tsc ran" not in refused.stdout, refused
    assert "node_modules/typescript" in refused.stderr
    tool(project, "tc_bare", "[tsc, --noEmit]", extra="code: [node_modules/typescript/]\n")
    synced(project, cli, "tc_bare")
    assert call(project, "tc_bare", PLAIN).stdout.startswith("tsc ran\n")
    write(project / "node_modules" / "typescript" / "bin" / "tsc", "#!/bin/sh\necho PWNED\n", mode=0o755)
    refused = call(project, "tc_bare", PLAIN)
    assert "POLICY_DENIED" in refused.stderr and "PWNED" not in refused.stdout, refused


def test_a_workspace_roots_program_is_declared_by_the_name_node_finds_it_by(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The root's node_modules lies outside the package's project: before, a pinned tool running
    one was pinned with no code at all; then it could never run unasked (issue 43: no `code:`
    reached it). It is declared as the package's own is, by where node finds it for the project,
    and pinned where it lies."""
    mono = tmp_path / "mono"
    (mono / ".git").mkdir(parents=True)
    write(mono / "pnpm-workspace.yaml", "packages: [packages/*]\n")
    web = mono / "packages" / "web"
    write(web / ".cogtoolrc.yaml", "# the package's tools\n")
    package(mono, "typescript", "tsc", TSC)
    tool(web, "tc_bare", "[tsc, --noEmit]")
    monkeypatch.chdir(web)
    said = synced(web, cli, "tc_bare")
    assert "it runs tsc from ../../node_modules/typescript (node_modules/.bin)" in said.stdout, said
    assert "cannot run without confirmation" in said.stdout and "outside the project" not in said.stdout, said
    refused = call(web, "tc_bare", PLAIN)
    assert "POLICY_DENIED" in refused.stderr and "tsc ran" not in refused.stdout, refused
    linted = run_script("cogtools", "lint", "--format", "json", cwd=web)
    [open_code] = [f for f in json.loads(linted.stdout)["findings"] if f["rule"] == "code-open"]
    assert "code: [node_modules/typescript/]" in open_code["hint"], open_code
    tool(web, "tc_bare", "[tsc, --noEmit]", extra="code: [node_modules/typescript/]\n")
    synced(web, cli, "tc_bare")
    assert call(web, "tc_bare", PLAIN).stdout.startswith("tsc ran\n")
    write(mono / "node_modules" / "typescript" / "bin" / "tsc", "#!/bin/sh\necho PWNED\n", mode=0o755)
    refused = call(web, "tc_bare", PLAIN)
    assert "POLICY_DENIED" in refused.stderr and "PWNED" not in refused.stdout, refused
    assert "../../node_modules/typescript/" in refused.stderr, refused


# -- lint: a program as the call will find it ----------------------------------------------------


def lint(root: Path, path: str) -> list[dict[str, str]]:
    said = run_script("cogtools", "lint", "--format", "json", cwd=root, env={**os.environ, "PATH": path})
    return [f for f in json.loads(said.stdout)["findings"] if f["rule"].startswith("program-")]


def test_lint_finds_a_program_as_the_call_will(tmp_path: Path) -> None:
    """A program of the project's node_modules/.bin is found whoever runs lint; one that only a
    runner's entry finds (npx put an outer directory's node_modules/.bin first) is
    program-agent-path; one found nowhere is program-missing."""
    outer = tmp_path / "outer"
    root = outer / "app"
    (root / ".git").mkdir(parents=True)
    write(root / ".cogtoolrc.yaml", "# tools\n")
    package(root, "typescript", "tsc", TSC)
    package(outer, "elsewhere", "outeronly", "#!/bin/sh\necho outer\n")
    tool(root, "tc_bare", "[tsc, --noEmit]")
    tool(root, "outer", "[outeronly]")
    tool(root, "nowhere", "[no-such-program-here]")
    for path in (PLAIN, as_npx(root)):
        found = {(f["tool"], f["rule"]) for f in lint(root, path)}
        expected = {
            ("nowhere", "program-missing"),
            ("outer", "program-agent-path" if path != PLAIN else "program-missing"),
        }
        assert found == expected, (path, found)
    [said] = [f for f in lint(root, as_npx(root)) if f["tool"] == "outer"]
    assert str(outer / "node_modules" / ".bin" / "outeronly") in said["message"], said
    assert "npm install --save-dev" in said["hint"], said


def test_a_script_tool_gets_the_same_path(project: Path) -> None:
    """A shell script that runs tsc: the same PATH as a command tool's, whoever calls."""
    package(project, "typescript", "tsc", TSC)
    write(
        project / "tools" / "check.sh",
        "#!/bin/sh\n# cogtools-tool\n# description: Type-check.\n# side_effects: [filesystem_read]\nexec tsc --noEmit\n",
        mode=0o755,
    )
    plain = call(project, "check", PLAIN)
    assert plain.status == 0 and plain.stdout.startswith("tsc ran\n"), plain
    assert call(project, "check", as_npx(project)).stdout == plain.stdout


# -- the real Gemini CLI --------------------------------------------------------------------------


@pytest.mark.e2e
def test_gemini_cli_runs_a_pinned_tool_of_node_modules_bin(
    gemini: Path,  # noqa: F811 (the fixture)
    tmp_path: Path,
) -> None:
    """The finding, through the real gemini binary, headless: Gemini CLI's call command ran the
    tool with Gemini's PATH, which has no node_modules/.bin: `cannot run 'tsc'`. Declared and
    synced, the tool runs unasked, with the project's node_modules/.bin last on its PATH."""
    from .test_gemini_binary import PATH_WITH_COGTOOLS, init, run_gemini, text, trust
    from .test_gemini_binary import call as gemini_call

    root = tmp_path / "app"
    init(root)
    package(root, "typescript", "tsc", TSC)
    tool(root, "tc_bare", "[tsc, --noEmit]", extra="code: [node_modules/typescript/]\n")
    synced = run_script("cogtools", "sync", "--yes", cwd=root, env={**os.environ, "PATH": PATH_WITH_COGTOOLS})
    assert synced.status == 0, synced
    trust(root)
    session = run_gemini(gemini, root, [[gemini_call("tc_bare")], [text("Done.")]])
    assert session.status == 0, session.stderr[-3000:]
    [(name, response)] = session.responses
    assert name == "discovered_tool_tc_bare" and response["output"].startswith("tsc ran\n"), response
    assert response["output"].rstrip("\n").endswith(str(root / "node_modules" / ".bin")), response


def test_a_call_looks_for_its_workspace_once_and_the_next_call_sees_a_change(tmp_path: Path) -> None:
    """(one call's PATH, confinement and pin agree on the workspace; a later call looks again)"""
    from cogtools.core.fsutil import one_look, project_bins, workspace_root

    mono = tmp_path / "mono"
    (mono / ".git").mkdir(parents=True)
    web = mono / "packages" / "web"
    (web / "node_modules" / ".bin").mkdir(parents=True)
    (mono / "node_modules" / ".bin").mkdir(parents=True)
    with one_look():
        assert workspace_root(web) is None
        write(mono / "pnpm-workspace.yaml", "packages: [packages/*]\n")  # (during the call)
        assert workspace_root(web) is None
        assert project_bins(web) == [str(web / "node_modules" / ".bin")]
    assert workspace_root(web) == mono
    with one_look():
        assert project_bins(web) == [str(web / "node_modules" / ".bin"), str(mono / "node_modules" / ".bin")]


def as_pnpm_exec(root: Path) -> str:
    """The PATH ``pnpm exec`` gives what it runs: its own ``./node_modules/.bin``, relative."""
    return os.pathsep.join(["./node_modules/.bin", str(root / "node_modules" / ".bin"), PLAIN])


def as_yarn_run(root: Path) -> str:
    """The PATH ``yarn run`` (classic) gives what it runs: its directory of shims, then the .bins."""
    return os.pathsep.join(["/tmp/yarn--1795896309086-0.2278026545", str(root / "node_modules" / ".bin"), PLAIN])


def test_what_pnpm_exec_and_yarn_run_put_first_on_path_is_left_out_as_npxs_is(project: Path) -> None:
    """The newcomer's finding: under ``pnpm exec``, whose ``./node_modules/.bin`` is relative, a
    program the workspace plants shadowed the person's, and a tool's verdict differed from
    Gemini CLI's."""
    package(project, "evil", "uname", "#!/bin/sh\necho PLANTED\n")
    tool(project, "kernel", "[uname, -s]")
    package(project, "typescript", "tsc", TSC)
    tool(project, "tc_bare", "[tsc, --noEmit]")
    plain = call(project, "tc_bare", PLAIN)
    for path in (as_pnpm_exec(project), as_yarn_run(project)):
        said = call(project, "kernel", path)
        assert said.status == 0 and "PLANTED" not in said.stdout and said.stdout.strip(), said
        assert call(project, "tc_bare", path).stdout == plain.stdout


def test_doctor_under_npx_judges_gemini_clis_commands_by_the_path_gemini_cli_has(project: Path) -> None:
    """The newcomer's finding: with cogtools a devDependency only, ``npx cogtools doctor`` found
    the bare ``cogtools-discover`` in npx's ``node_modules/.bin`` and said ok, while Gemini CLI,
    started by a person, could not spawn it and did not start."""
    write(project / "node_modules" / ".bin" / "cogtools-discover", "#!/bin/sh\necho '[]'\n", mode=0o755)
    write(project / "node_modules" / ".bin" / "cogtools-call", "#!/bin/sh\nexit 1\n", mode=0o755)
    settings = {"tools": {"discoveryCommand": "cogtools-discover", "callCommand": "cogtools-call"}}
    write(project / ".gemini" / "settings.json", json.dumps(settings))
    npx = os.pathsep.join([str(project / "node_modules" / ".bin"), "/usr/bin", "/bin"])
    said = run_script("cogtools", "doctor", cwd=project, env={**os.environ, "PATH": npx})
    assert "'cogtools-discover' is not found on PATH as Gemini CLI will spawn it" in said.stdout, said
    assert "Gemini CLI will not start" in said.stdout, said


def test_lint_warns_of_a_program_on_path_that_shadows_the_projects_own(project: Path, tmp_path: Path) -> None:
    """The newcomer's finding: a global typescript earlier on PATH ran for ``argv: [tsc]`` (the
    project's node_modules/.bin ends the call's PATH), and the model read its false errors (it
    did not see the project's packages); ``npm run`` would have run the project's."""
    package(project, "typescript", "tsc", TSC)
    tool(project, "tc_bare", "[tsc, --noEmit]")
    assert lint(project, PLAIN) == []
    elsewhere = tmp_path / "global" / "bin"
    write(elsewhere / "tsc", "#!/bin/sh\necho other tsc\n", mode=0o755)
    [said] = lint(project, os.pathsep.join([str(elsewhere), PLAIN]))
    assert said["rule"] == "program-shadowed" and str(elsewhere / "tsc") in said["message"], said
    assert "argv: [node_modules/.bin/tsc, ...]" in said["hint"], said
