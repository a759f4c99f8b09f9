"""What an unasked tool runs is what its pin covers, by construction (issue 41): programs load
the workspace's code by conventions (make's Makefile, ``python -m``, npm scripts, a venv's
``.pth``, sourced files, ``../`` imports, ``node_modules``, ``__pycache__``), and each case here is
one an attacker's pass ran the agent's code through: a person syncs, the agent writes only
workspace files, and the next call must be refused, or the tool must never have been allowed
unasked, with ``sync`` saying why. Editing a file a tool cannot run refuses nothing."""

from __future__ import annotations

import json
import os
import shutil
import typing as t
from pathlib import Path

import pytest

from cogtools.cli import porcelain
from cogtools.core.limits import MAX_CODE_FILES

from .conftest import Cli, Result, run_script, write

#: Each test runs real syncs and calls, a second or more on a busy machine.
pytestmark = pytest.mark.slow

PWNED = "PWNED"


def tool(project: Path, name: str, implementation: str, *, effects: str = "[filesystem_read]", extra: str = "") -> None:
    write(
        project / "tools" / f"{name}.yaml",
        f"description: {name}.\nrisk_level: low\nside_effects: {effects}\n{extra}implementation: {implementation}\n",
    )


def call(name: str) -> Result:
    return run_script("cogtools-call", name, stdin="{}")


def refused(result: Result, *words: str) -> None:
    """The call was refused by its pin (or was never allowed unasked), naming ``words``; the
    agent's code did not run."""
    assert result.status != 0 and PWNED not in result.stdout, result
    assert "POLICY_DENIED" in result.stderr, result
    for word in words:
        assert word in result.stderr, result


def synced(project: Path, cli: Cli, *names: str) -> Result:
    """A person allows ``names`` and syncs; what sync said."""
    settings = {"tools": {"allowed": [f"discovered_tool_{name}" for name in names]}}
    write(project / ".gemini" / "settings.json", json.dumps(settings))
    said = cli(porcelain.main, "sync", "--yes")
    assert said.status == 0, said
    return said


# --- code loaded by convention -------------------------------------------------------------


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_what_a_makefile_includes_or_its_recipe_runs_is_pinned(project: Path, cli: Cli) -> None:
    write(project / "Makefile", "include rules.mk\nhello:\n\t@sh scripts/hello.sh\n")
    write(project / "rules.mk", "WORD = hello\n")
    write(project / "scripts" / "hello.sh", "echo hello\n")
    tool(project, "hello", "{kind: command, argv: [make, -s, hello]}")
    synced(project, cli, "hello")
    assert call("hello").stdout == "hello\n"
    write(project / "scripts" / "hello.sh", f"echo {PWNED}\n")
    refused(call("hello"), "scripts/hello.sh")
    write(project / "scripts" / "hello.sh", "echo hello\n")
    write(project / "rules.mk", f"$(shell echo {PWNED} >&2)\n")
    refused(call("hello"), "rules.mk")


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
def test_an_edit_of_the_npm_script_a_pinned_npm_run_runs_is_refused(project: Path, cli: Cli) -> None:
    write(project / "package.json", '{"name": "p", "scripts": {"hello": "node scripts/hello.js"}}\n')
    write(project / "scripts" / "hello.js", "console.log('hello')\n")
    tool(project, "hello", "{kind: command, argv: [npm, run, -s, hello]}")
    synced(project, cli, "hello")
    assert call("hello").stdout.strip() == "hello"
    good = (project / "package.json").read_text()
    write(project / "package.json", f'{{"name": "p", "scripts": {{"hello": "echo {PWNED}"}}}}\n')
    refused(call("hello"), "package.json")
    write(project / "package.json", good)
    write(project / "scripts" / "hello.js", f"console.log('{PWNED}')\n")
    refused(call("hello"), "scripts/hello.js")
    write(project / "scripts" / "hello.js", "console.log('hello')\n")
    write(project / ".npmrc", "script-shell=/bin/false\n")
    refused(call("hello"), ".npmrc")
    (project / ".npmrc").unlink()
    # what npm run does not read for it (another script, a dependency `npm i` adds) is no change
    # (issue 43: a tool running `npm run typecheck` was refused after any edit of package.json)
    manifest: dict[str, t.Any] = {"name": "p", "scripts": {"hello": "node scripts/hello.js", "lint": "eslint ."}}
    write(project / "package.json", json.dumps({**manifest, "dependencies": {"zod": "^3"}}, indent=2))
    assert call("hello").stdout.strip() == "hello"
    write(project / "package.json", json.dumps({**manifest, "version": "1.0.1"}))  # (a release: a newcomer's m18)
    assert call("hello").stdout.strip() == "hello"
    changes: list[dict[str, t.Any]] = [
        {"scripts": {**manifest["scripts"], "prehello": f"echo {PWNED}"}},  # what npm runs first
        {"config": {"word": PWNED}},  # $npm_package_config_word
        {"type": "module"},  # how node reads scripts/hello.js
    ]
    for changed in changes:
        write(project / "package.json", json.dumps({**manifest, **changed}))
        refused(call("hello"), "package.json")
    # a script that reads other fields by name (yarn 1 sets $npm_package_ for each) pins them all
    manifest = {"name": "p", "engines": {"node": ">=18"}, "scripts": {"hello": "echo $npm_package_engines_node"}}
    write(project / "package.json", json.dumps(manifest))
    synced(project, cli, "hello")
    assert call("hello").stdout.strip() == ">=18"
    write(project / "package.json", json.dumps({**manifest, "engines": {"node": PWNED}}))
    refused(call("hello"), "package.json")


def test_what_a_package_manager_runs_without_a_script_is_its_code(tmp_path: Path) -> None:
    """(issue 43: `npm start` with no start script runs `node server.js`, and `yarn tsc` the
    package's program when no script is named tsc; neither was followed)"""
    from cogtools.run.program_files import command_code

    root = tmp_path / "app"
    write(root / "package.json", '{"name": "app", "scripts": {"lint": "true"}}\n')
    write(root / "server.js", "require('./lib.js');\n")
    write(root / "lib.js", "\n")
    write(root / "node_modules" / "typescript" / "package.json", '{"name": "typescript"}\n')
    write(root / "node_modules" / "typescript" / "bin" / "tsc", "#!/usr/bin/env node\n", mode=0o755)
    (root / "node_modules" / ".bin").mkdir()
    os.symlink("../typescript/bin/tsc", root / "node_modules" / ".bin" / "tsc")
    for manager in ("npm", "pnpm"):
        files = set(command_code([manager, "start"], root, root).files)
        assert {root / "server.js", root / "lib.js"} <= files, (manager, files)
    for argv in (["yarn", "tsc"], ["yarn", "run", "tsc"], ["pnpm", "tsc"], ["bun", "run", "tsc"]):
        ((why, needs),) = command_code(argv, root, root).open
        assert needs == "node_modules/typescript" and "it runs tsc" in why, argv
    for argv in (["npm", "run", "tsc"], ["pnpm", "run", "tsc"], ["yarn", "lint"]):
        assert command_code(argv, root, root).open == (), argv


@pytest.mark.parametrize("layout", ["pnpm", "yarn-workspace"])
def test_a_scripts_program_is_declared_by_its_package_as_a_tools_is(tmp_path: Path, layout: str) -> None:
    """(issue 43, found by a new user: `npm run typecheck` whose script runs tsc through pnpm's
    shim asked for `code: [node_modules/.bin/]`, which any `pnpm add` then broke; through yarn 1's
    link to the workspace root's typescript, for a declaration `code:` cannot take)"""
    from cogtools.run.program_files import command_code

    mono = tmp_path / "mono"
    root = mono / "packages" / "api"
    write(mono / "package.json", '{"workspaces": ["packages/*"]}\n')
    write(root / "package.json", '{"name": "api", "scripts": {"typecheck": "tsc --noEmit"}}\n')
    (root / "node_modules" / ".bin").mkdir(parents=True)
    if layout == "pnpm":
        write(root / "node_modules" / "typescript" / "package.json", '{"name": "typescript"}\n')
        write(root / "node_modules" / "typescript" / "bin" / "tsc", "#!/usr/bin/env node\n", mode=0o755)
        shim = '#!/bin/sh\nbasedir=$(dirname "$0")\nexec node "$basedir/../typescript/bin/tsc" "$@"\n'
        write(root / "node_modules" / ".bin" / "tsc", shim, mode=0o755)
    else:
        write(mono / "node_modules" / "typescript" / "package.json", '{"name": "typescript"}\n')
        write(mono / "node_modules" / "typescript" / "bin" / "tsc", "#!/usr/bin/env node\n", mode=0o755)
        os.symlink("../../../../node_modules/typescript/bin/tsc", root / "node_modules" / ".bin" / "tsc")
    for manager in ("npm", "pnpm", "yarn"):
        ((why, needs),) = command_code([manager, "run", "typecheck"], root, root).open
        assert needs == "node_modules/typescript" and why.startswith("its script typecheck runs tsc from"), why


def test_a_script_run_across_the_workspace_is_never_closed_by_a_declaration(tmp_path: Path) -> None:
    """(issue 43, found by a new user: a root tool `pnpm run typecheck` whose script is `pnpm -r
    typecheck` declared `code: [node_modules/typescript/]`, which closed what -r runs too: an
    agent's edit of a package's typecheck script then ran unasked)"""
    from cogtools.run.program_files import command_code
    from cogtools.trust.pins import closing, declares

    root = tmp_path / "mono"
    scripts = {
        "typecheck": "pnpm -r typecheck",
        "yarn1": "yarn workspace api typecheck",
        "berry": "yarn workspaces foreach -A run typecheck",
        "npm": "npm run typecheck --workspaces",
        "filter": "pnpm --filter=api typecheck",
        "args": "npm run lint -- --fix",
        "lint": "true",
    }
    write(root / "package.json", json.dumps({"name": "mono", "workspaces": ["packages/*"], "scripts": scripts}))
    for name in ("typecheck", "yarn1", "berry", "npm", "filter"):
        ((why, needs),) = command_code(["npm", "run", name], root, root).open
        assert not declares(["node_modules/typescript/", "packages/"], needs) and closing([why]) == "", why
    ((why, needs),) = command_code(["pnpm", "-r", "run", "typecheck"], root, root).open
    assert not declares(["node_modules/typescript/"], needs), why
    assert command_code(["npm", "run", "args"], root, root).open == ()  # (--fix is the script's)
    # (an attacker's pass: npm t ran scripts.test unpinned; restart, rebuild, install run scripts
    # cogtools does not follow)
    write(root / "package.json", json.dumps({"name": "mono", "scripts": {"test": "node t.js"}}))
    write(root / "t.js", "\n")
    assert root / "t.js" in command_code(["npm", "t"], root, root).files
    for command in ("restart", "rebuild", "install", "ci", "rum"):
        ((why, needs),) = command_code(["npm", command], root, root).open
        assert not declares(["node_modules/", "t.js"], needs) and closing([why]) == "", why


def test_the_code_yarns_settings_make_it_run_is_pinned(tmp_path: Path) -> None:
    """(issue 43, a new user's note: the release Berry's yarnPath names, which the installed yarn
    hands every command to, was not followed; nor its plugins, yarn 1's yarn-path, or a
    .yarnrc.yml between the package and the workspace root, which Berry merges)"""
    from cogtools.run.program_files import command_code

    root = tmp_path / "mono"
    write(root / "package.json", '{"name": "mono", "workspaces": ["packages/*"]}\n')
    package = root / "packages" / "a"
    write(package / "package.json", '{"name": "a", "scripts": {"t": "true"}}\n')
    write(root / ".yarnrc.yml", "yarnPath: .yarn/releases/yarn-4.0.0.cjs\nplugins:\n  - path: .yarn/plugins/p.cjs\n")
    write(root / ".yarnrc", 'yarn-path "./.yarn/releases/yarn-1.22.22.cjs"\n')
    write(package / ".yarnrc.yml", "{yarnPath: ../../.yarn/releases/mine.cjs}\n")
    files = command_code(["yarn", "t"], package, package).files
    for named in (
        root / ".yarn" / "releases" / "yarn-4.0.0.cjs",
        root / ".yarn" / "plugins" / "p.cjs",
        root / "./.yarn/releases/yarn-1.22.22.cjs",
        package / "../../.yarn/releases/mine.cjs",
        root / "packages" / ".yarnrc.yml",  # (named while missing: one written later is a change)
    ):
        assert named in files, named
    assert root / "packages" / "package.json" not in files  # (no package of the workspace's: not read)
    write(root / ".yarnrc.yml", "yarnPath: [\n")  # (a broken file is pinned, and names nothing)
    assert root / ".yarnrc.yml" in command_code(["yarn", "t"], package, package).files


@pytest.mark.parametrize(
    ("name", "text"),
    [(".npmrc", "verify-deps-before-run=install\n"), ("pnpm-workspace.yaml", "verifyDepsBeforeRun: install\n")],
)
def test_a_pnpm_that_installs_before_it_runs_a_script_is_open(tmp_path: Path, name: str, text: str) -> None:
    """(issue 43, a new user's note: pnpm 10 installs what package.json lists before a script
    when told to, which runs the lifecycle scripts of a package the agent lists)"""
    from cogtools.run.program_files import command_code
    from cogtools.trust.pins import closing, declares

    write(tmp_path / "package.json", '{"name": "a", "scripts": {"t": "true"}}\n')
    assert command_code(["pnpm", "run", "t"], tmp_path, tmp_path).open == ()
    write(tmp_path / name, text)
    ((why, needs),) = command_code(["pnpm", "run", "t"], tmp_path, tmp_path).open
    assert "verifyDepsBeforeRun" in why and not declares(["node_modules/"], needs) and closing([why]) == "", why
    write(tmp_path / name, text.replace("install", "warn"))
    assert command_code(["pnpm", "run", "t"], tmp_path, tmp_path).open == ()


def test_what_chooses_the_node_a_script_runs_on_is_pinned() -> None:
    """(issue 43, a new user's note: package.json's devEngines.runtime makes pnpm 10 fetch and run
    scripts on the node it names; it was not among the fields pinned)"""
    from cogtools.trust.pins import manifest_digest, manifest_reads

    for how in ("run:t", "root"):
        ((_, fields),) = manifest_reads([(Path("package.json"), how)]).values()
        before = manifest_digest(b'{"scripts": {"t": "true"}, "workspaces": []}', fields)
        after = manifest_digest(
            b'{"scripts": {"t": "true"}, "workspaces": [], "devEngines": {"runtime": {"name": "node"}}}', fields
        )
        assert before != after, how


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
def test_a_packages_npm_run_pins_what_it_reads_of_the_workspace_root(project: Path, cli: Cli) -> None:
    """(issue 43, found by a new user: Berry, confined, could not read the workspace root and took
    the package for a project of its own; once shown, the root's settings files, which the
    manager obeys, were not pinned)"""
    mono = project.parent
    write(mono / "package.json", '{"name": "mono", "private": true, "workspaces": ["work"]}\n')
    write(mono / "package-lock.json", '{"lockfileVersion": 3}\n')
    write(project / "package.json", '{"name": "work", "scripts": {"hello": "node -e \\"console.log(1+1)\\""}}\n')
    tool(project, "hello", "{kind: command, argv: [npm, run, -s, hello]}", effects="[]")
    synced(project, cli, "hello")
    assert call("hello").stdout == "2\n"
    write(mono / "package-lock.json", '{"lockfileVersion": 3, "packages": {}}\n')  # npm i: no code
    assert call("hello").stdout == "2\n"
    write(mono / ".npmrc", "node-options=--require=./evil.js\n")
    refused(call("hello"), ".npmrc")
    (mono / ".npmrc").unlink()
    write(mono / "package.json", '{"name": "mono", "workspaces": ["work"], "packageManager": "yarn@4.0.0"}\n')
    refused(call("hello"), "package.json")


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
def test_a_program_planted_between_a_package_and_its_workspace_root_is_a_change(
    isolated: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(issue 43, an attacker's pass: npm puts the node_modules/.bin of every directory from the
    package up on a script's PATH; a `.bin/node` planted in packages/node_modules, between the
    package and the workspace root, ran for a pinned `npm run` tool unasked)"""
    write(isolated / "package.json", '{"name": "mono", "private": true, "workspaces": ["packages/*"]}\n')
    package = isolated / "packages" / "a"
    write(package / ".cogtoolrc.yaml", "# the package's project\n")
    write(package / "package.json", '{"name": "a", "scripts": {"hello": "node h.js"}}\n')
    write(package / "h.js", "console.log('hello');\n")
    tool(package, "hello", "{kind: command, argv: [npm, run, -s, hello]}")
    monkeypatch.chdir(package)
    synced(package, cli, "hello")
    assert call("hello").stdout == "hello\n"
    for between in (isolated / "packages", package / "sub"):  # (below the package: not npm's)
        write(between / "node_modules" / ".bin" / "node", f"#!/bin/sh\necho {PWNED}\n", mode=0o755)
    refused(call("hello"), "it now runs ../node_modules/.bin/node since")


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_a_js_tools_configuration_is_its_code(project: Path, cli: Cli) -> None:
    """(issue 43, found by a new user: a pinned `[eslint, .]` tool ran an edited eslint.config.js
    unasked; the same for prettier, vitest, jest... configurations, and the plugins they import)"""
    bin_ = project / "node_modules" / "eslint" / "bin" / "eslint.js"
    write(project / "node_modules" / "eslint" / "package.json", '{"name": "eslint", "version": "9.0.0"}\n')
    write(
        bin_,
        "#!/usr/bin/env node\nimport(process.cwd() + '/eslint.config.mjs').then((m) => console.log(m.default));\n",
        mode=0o755,
    )
    (project / "node_modules" / ".bin").mkdir()
    os.symlink("../eslint/bin/eslint.js", project / "node_modules" / ".bin" / "eslint")
    write(
        project / "node_modules" / "eslint-plugin-x" / "package.json",
        '{"name": "eslint-plugin-x", "version": "1.0.0"}\n',
    )
    write(project / "node_modules" / "eslint-plugin-x" / "index.js", "module.exports = 'x';\n")
    write(project / "eslint.config.mjs", "import x from 'eslint-plugin-x';\nexport default 'clean';\n")
    write(project / "package.json", '{"name": "p", "scripts": {"lint": "eslint ."}}\n')
    tool(project, "lint", "{kind: command, argv: [eslint, .]}", extra="code: [node_modules/eslint/]\n")
    tool(project, "lint_npm", "{kind: command, argv: [npm, run, -s, lint]}", extra="code: [node_modules/eslint/]\n")
    names = ["lint"] + (["lint_npm"] if shutil.which("npm") else [])
    synced(project, cli, *names)
    for name in names:
        assert call(name).stdout == "clean\n"
    write(project / "node_modules" / "eslint-plugin-x" / "index.js", f"console.log('{PWNED}');\n")
    for name in names:
        refused(call(name), "node_modules/eslint-plugin-x/")
    write(project / "node_modules" / "eslint-plugin-x" / "index.js", "module.exports = 'x';\n")
    write(project / "eslint.config.mjs", f"console.log('{PWNED}');\nexport default 'clean';\n")
    for name in names:
        refused(call(name), "eslint.config.mjs")
    (project / "eslint.config.mjs").unlink()
    write(project / "eslint.config.js", f"console.log('{PWNED}');\n")  # another name, written later
    refused(call("lint"), "eslint.config.js")


@pytest.mark.parametrize(
    "argv",
    [
        ["npx", "eslint", "--fix", "tools"],
        ["npx", "--yes", "eslint", "tools"],
        ["npm", "exec", "--", "eslint", "tools"],
        ["npm", "x", "eslint"],
        ["pnpm", "exec", "eslint", "tools"],
        ["yarn", "exec", "eslint"],
        ["yarn", "eslint", "tools"],
        ["pnpm", "eslint"],
    ],
)
def test_a_package_program_a_manager_runs_is_followed_as_a_bare_one(tmp_path: Path, argv: list[str]) -> None:
    """(issue 43, found by a new user: `npx eslint`, `npm exec -- eslint`, `yarn eslint`, `pnpm exec
    eslint` were closed by `code: [node_modules/eslint/]` without eslint's configuration, so an
    edited eslint.config.js ran unasked)"""
    from cogtools.run.program_files import command_code
    from cogtools.trust.pins import declares

    write(tmp_path / "package.json", '{"name": "a"}\n')
    write(tmp_path / "node_modules" / "eslint" / "package.json", '{"name": "eslint", "version": "9.0.0"}\n')
    write(tmp_path / "node_modules" / "eslint" / "bin" / "eslint.js", "#!/usr/bin/env node\n", mode=0o755)
    (tmp_path / "node_modules" / ".bin").mkdir()
    os.symlink("../eslint/bin/eslint.js", tmp_path / "node_modules" / ".bin" / "eslint")
    write(tmp_path / "eslint.config.js", "export default [];\n")
    code = command_code(argv, tmp_path, tmp_path)
    assert tmp_path / "eslint.config.js" in code.files, code
    ((why, needs),) = code.open
    assert needs == "node_modules/eslint" and declares(["node_modules/eslint/"], needs), why
    # a program the project does not have is one npx and npm exec download: no declaration closes
    # it (pnpm and yarn run one of PATH, or none)
    if argv[0] == "npx" or argv[0] == "npm":
        ((why, needs),) = command_code([w.replace("eslint", "prettier") for w in argv], tmp_path, tmp_path).open
        assert "downloads" in why and not declares(["node_modules/", "tools/"], needs), why


def test_a_program_relinked_is_refused_as_changed_not_to_be_declared(project: Path, cli: Cli) -> None:
    """(issue 43, found by a new user: after node_modules/.bin/tsc was pointed at another package,
    the refusal advised declaring the agent's package, not that what the tool runs changed)"""
    for name in ("typescript", "evil"):
        write(project / "node_modules" / name / "package.json", f'{{"name": "{name}", "version": "1.0.0"}}\n')
        write(project / "node_modules" / name / "bin" / "tsc", f"#!/bin/sh\necho {name}\n", mode=0o755)
    (project / "node_modules" / ".bin").mkdir()
    os.symlink("../typescript/bin/tsc", project / "node_modules" / ".bin" / "tsc")
    tool(project, "tc", "{kind: command, argv: [tsc]}", extra="code: [node_modules/typescript/]\n")
    synced(project, cli, "tc")
    assert call("tc").stdout == "typescript\n"
    (project / "node_modules" / ".bin" / "tsc").unlink()
    os.symlink("../evil/bin/tsc", project / "node_modules" / ".bin" / "tsc")
    refusal = call("tc")
    refused(refusal, "it now runs node_modules/evil/bin/tsc since it was allowed")
    assert "declare" not in refusal.stderr and not refusal.stdout.startswith("evil"), refusal


def venv(project: Path) -> Path:
    """A virtual environment inside the project, as ``python -m venv .venv`` makes one (its
    interpreter a link to this one), with an empty site-packages; the site-packages."""
    system = shutil.which("python3", path="/usr/bin:/bin")
    if system is None:
        pytest.skip("no python3 of the system's (a confined program sees only the system's)")
    real = Path(os.path.realpath(system))
    (project / ".venv" / "bin").mkdir(parents=True)
    (project / ".venv" / "bin" / "python").symlink_to(real)
    write(project / ".venv" / "pyvenv.cfg", f"home = {real.parent}\ninclude-system-site-packages = false\n")
    version = real.name.removeprefix("python") if real.name.count(".") == 1 else "3"
    site = project / ".venv" / "lib" / f"python{version}" / "site-packages"
    site.mkdir(parents=True)
    return site


def test_a_pth_file_added_to_the_projects_venv_is_refused(project: Path, cli: Cli) -> None:
    site = venv(project)
    write(project / "scripts" / "x.py", "print('hello')\n")
    tool(project, "hello", "{kind: command, argv: [.venv/bin/python, scripts/x.py]}")
    synced(project, cli, "hello")
    assert call("hello").stdout == "hello\n"
    write(site / "evil.pth", f"import sys; print('{PWNED}'); sys.stdout.flush()\n")
    refused(call("hello"), "evil.pth")


def test_a_venv_too_large_to_pin_is_not_allowed_unasked_and_sync_says_why(project: Path, cli: Cli) -> None:
    site = venv(project)
    for index in range(MAX_CODE_FILES + 1):
        write(site / "big" / f"m{index}.py", "")
    write(project / "scripts" / "x.py", "print('hello')\n")
    tool(project, "hello", "{kind: command, argv: [.venv/bin/python, scripts/x.py]}")
    said = synced(project, cli, "hello")
    assert "hello" in said.stdout and "site-packages" in said.stdout and "code:" in said.stdout, said
    refused(call("hello"), "site-packages")


# --- code outside the script's own directory ----------------------------------------------


def test_what_a_shell_script_sources_from_elsewhere_is_pinned(project: Path, cli: Cli) -> None:
    write(project / "scripts" / "lib" / "common.sh", "greet() { echo hello; }\n")
    write(project / "settings.conf", "WORD=hello\n")
    write(
        project / "scripts" / "hello.sh",
        '. "$(dirname "$0")/lib/common.sh"\nsource ./settings.conf\ngreet\necho "$WORD"\n',
    )
    tool(project, "hello", "{kind: command, argv: [bash, scripts/hello.sh]}")
    synced(project, cli, "hello")
    assert call("hello").stdout == "hello\nhello\n"
    write(project / "scripts" / "lib" / "common.sh", f"greet() {{ echo {PWNED}; }}\n")
    refused(call("hello"), "scripts/lib/common.sh")
    write(project / "scripts" / "lib" / "common.sh", "greet() { echo hello; }\n")
    write(project / "settings.conf", f"WORD={PWNED}\n")
    refused(call("hello"), "settings.conf")


def test_a_script_that_sources_what_it_chooses_at_run_time_is_not_allowed_unasked(project: Path, cli: Cli) -> None:
    write(project / "lib.sh", "echo hello\n")
    write(project / "scripts" / "hello.sh", 'LIB=lib.sh\n. "./$LIB"\n')
    tool(project, "hello", "{kind: command, argv: [sh, scripts/hello.sh]}")
    said = synced(project, cli, "hello")
    assert "sources" in said.stdout and "code:" in said.stdout, said
    refused(call("hello"), "scripts/hello.sh")


def test_a_python_script_that_moves_sys_path_must_declare_its_code(project: Path, cli: Cli) -> None:
    write(project / "lib" / "h.py", "WORD = 'hello'\n")
    script = "import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'lib'))\nimport h\nprint(h.WORD)\n"
    write(project / "scripts" / "x.py", script)
    tool(project, "hello", "{kind: command, argv: [python3, scripts/x.py]}")
    said = synced(project, cli, "hello")
    assert "sys.path" in said.stdout and "code:" in said.stdout, said
    refused(call("hello"), "sys.path")
    # declared, it is pinned whole, and an edit of what it declares is refused
    tool(project, "hello", "{kind: command, argv: [python3, scripts/x.py]}", extra="code: [scripts/, lib/]\n")
    synced(project, cli, "hello")
    assert call("hello").stdout == "hello\n"
    write(project / "lib" / "h.py", f"WORD = '{PWNED}'\n")
    refused(call("hello"), "lib/h.py")


def test_no_module_past_a_cap_goes_unpinned(project: Path, cli: Cli) -> None:
    """MAX_NEIGHBOURS pinned the first 256 modules of a directory and left the rest out, silently."""
    for index in range(300):
        write(project / "scripts" / f"m{index:03}.py", "WORD = 'hello'\n")
    write(project / "scripts" / "x.py", "import m280\nprint(m280.WORD)\n")
    tool(project, "hello", "{kind: command, argv: [python3, scripts/x.py]}")
    synced(project, cli, "hello")
    assert call("hello").stdout == "hello\n"
    write(project / "scripts" / "m280.py", f"WORD = '{PWNED}'\n")
    refused(call("hello"), "scripts/m280.py")


def test_a_directory_past_the_limit_is_refused_and_says_so(project: Path, cli: Cli) -> None:
    for index in range(MAX_CODE_FILES + 1):
        write(project / "scripts" / f"m{index:04}.py", "")
    write(project / "scripts" / "x.py", "print('hello')\n")
    tool(project, "hello", "{kind: command, argv: [python3, scripts/x.py]}")
    said = synced(project, cli, "hello")
    assert f"more than {MAX_CODE_FILES}" in said.stdout, said
    refused(call("hello"), f"more than {MAX_CODE_FILES}")


@pytest.mark.slow
def test_places_named_where_no_file_is_do_not_count_as_code(project: Path, cli: Cli) -> None:
    """A per-file tool's configuration names in each of 100 directories (1,700 places where no file
    is) are no code past MAX_CODE_FILES: the tool runs unasked, and a configuration planted in
    any of them is refused (they made ``prettier --check src`` too large to pin past 30)."""
    package = project / "node_modules" / "prettier"
    write(package / "package.json", json.dumps({"name": "prettier", "version": "3.0.0"}))
    write(package / "bin" / "prettier.cjs", "#!/bin/sh\necho checked\n", mode=0o755)
    os.makedirs(project / "node_modules" / ".bin")
    os.symlink("../prettier/bin/prettier.cjs", project / "node_modules" / ".bin" / "prettier")
    for index in range(100):
        write(project / "src" / f"d{index:03}" / "a.js", "\n")
    tool(project, "fmt", "{kind: command, argv: [prettier, --check, src]}", extra="code: [node_modules/prettier/]\n")
    said = synced(project, cli, "fmt")
    assert "more than" not in said.stdout, said
    assert call("fmt").stdout == "checked\n"
    write(project / "src" / "d077" / ".prettierrc.mjs", "export default {};\n")
    refused(call("fmt"), "src/d077/.prettierrc.mjs")
    os.remove(project / "src" / "d077" / ".prettierrc.mjs")
    assert call("fmt").stdout == "checked\n"
    # (attack9's F1: a link put where no file was, leading out of the workspace or through
    # /proc/self/cwd, which cogtools resolves in its own process, dropped out of the pin unseen)
    outside = write(project.parent / "outside.mjs", "export default {};\n")
    os.symlink(outside, project / "src" / "d012" / ".prettierrc.mjs")
    refused(call("fmt"), "src/d012/.prettierrc.mjs")
    os.remove(project / "src" / "d012" / ".prettierrc.mjs")
    os.symlink("/proc/self/cwd/evil.mjs", project / "src" / "d013" / ".prettierrc.mjs")
    refused(call("fmt"), "src/d013/.prettierrc.mjs")
    os.remove(project / "src" / "d013" / ".prettierrc.mjs")
    for index in range(100, 400):  # (a day's work: new directories, none with a configuration)
        write(project / "src" / f"d{index:03}" / "a.js", "\n")
    assert call("fmt").stdout == "checked\n"


def test_a_tool_cogtools_knows_nothing_of_is_refused_a_configuration_planted_below_where_it_runs(
    project: Path, cli: Cli
) -> None:
    """(newcomer pass 14's MAJOR-5: oxlint reads a nested .oxlintrc.json, whose jsPlugins it runs,
    and cogtools knew only its names from where it runs up; so with markdownlint-cli2, cspell,
    remark: any package program's conventional names are looked for under where it runs too)"""
    package = project / "node_modules" / "oxlint"
    write(package / "package.json", json.dumps({"name": "oxlint", "version": "1.0.0"}))
    write(package / "bin" / "oxlint", "#!/bin/sh\necho linted\n", mode=0o755)
    os.makedirs(project / "node_modules" / ".bin")
    os.symlink("../oxlint/bin/oxlint", project / "node_modules" / ".bin" / "oxlint")
    write(project / "src" / "sub" / "a.js", "\n")
    tool(project, "ox", "{kind: command, argv: [oxlint, src]}", extra="code: [node_modules/oxlint/]\n")
    synced(project, cli, "ox")
    assert call("ox").stdout == "linted\n"
    write(project / "src" / "sub" / ".oxlintrc.json", '{"jsPlugins": ["./plug.mjs"]}')
    write(project / "src" / "sub" / "plug.mjs", "\n")
    refused(call("ox"), "src/sub/.oxlintrc.json")
    os.remove(project / "src" / "sub" / ".oxlintrc.json")
    write(project / "src" / "new" / "b.js", "\n")  # (a new directory without one asks nothing)
    assert call("ox").stdout == "linted\n"
    # (newcomer pass 15's NEW-MAJOR-5: oxlint given a directory reads its dot-directories too)
    write(project / "src" / ".hid" / ".oxlintrc.json", '{"jsPlugins": ["./plug.mjs"]}')
    refused(call("ox"), "src/.hid/.oxlintrc.json")


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_a_package_from_node_modules_is_pinned_whole(project: Path, cli: Cli) -> None:
    """(issue 43: an installed package is one pin entry, its tree's digest; tests/test_package_pins.py)"""
    write(project / "node_modules" / "greet" / "package.json", '{"name": "greet", "main": "index.js"}\n')
    write(project / "node_modules" / "greet" / "index.js", "module.exports = 'hello';\n")
    write(project / "scripts" / "x.js", "console.log(require('greet'));\n")
    tool(project, "hello", "{kind: command, argv: [node, scripts/x.js]}")
    synced(project, cli, "hello")
    assert call("hello").stdout == "hello\n"
    write(project / "node_modules" / "greet" / "index.js", f"module.exports = '{PWNED}';\n")
    refused(call("hello"), "node_modules/greet/")


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.slow  # (three syncs, seven calls)
def test_an_environment_file_a_package_loads_is_pinned_by_what_chooses_code(project: Path, cli: Cli) -> None:
    """(attack10's MAJOR-8: a package that loads .env of itself, as next, prisma or
    process.loadEnvFile() do, and starts node children: the NODE_OPTIONS the agent wrote there
    preloaded its code in them. An edit of another variable is a day's work, no change.)"""
    zenv = project / "node_modules" / "zenv"
    write(zenv / "package.json", '{"name": "zenv", "version": "1.0.0", "bin": "cli.js"}\n')
    loads = (
        "const fs = require('fs');\n"
        "for (const f of ['.env', '.env.local']) { let t = ''; try { t = fs.readFileSync(f, 'utf8'); } catch {}\n"
        "  for (const l of t.split('\\n')) { const m = l.match(/^(\\w+)=(.*)$/); if (m) process.env[m[1]] ="
        " m[2].replace(/\\$\\{?(\\w+)\\}?/g, (_, v) => process.env[v] || ''); } }\n"
        "require('child_process').execFileSync(process.execPath, ['-e', 'console.log(\"child\")'], {stdio: 'inherit'});\n"
    )
    write(zenv / "cli.js", "#!/usr/bin/env node\n" + loads, mode=0o755)
    (project / "node_modules" / ".bin").mkdir()
    os.symlink("../zenv/cli.js", project / "node_modules" / ".bin" / "zenv")
    tool(project, "z", "{kind: command, argv: [zenv]}", extra="code: [node_modules/zenv/]\n")
    synced(project, cli, "z")
    assert call("z").stdout == "child\n"
    write(project / ".env", "API_URL=http://localhost:1\n")
    write(project / ".env.local", "API_URL=http://localhost:2\n")
    refused(call("z"), ".env, which it may load, now sets API_URL")  # (a variable added)
    synced(project, cli, "z")
    write(project / ".env", "API_URL=http://localhost:3\n")  # (a value edited: a day's work, no change)
    assert call("z").stdout == "child\n"
    write(project / ".env", "API_URL=http://localhost:1\nexport PATH=./bin:/usr/bin\n")
    refused(call("z"), ".env, which it may load, now sets a variable that may choose the code it runs")
    write(project / "evil.cjs", f"console.log('{PWNED}');\n")
    write(project / ".env", "API_URL=http://localhost:1\nNODE_OPTIONS=--require ./evil.cjs\n")
    refused(call("z"), "evil.cjs")  # (what it preloads, new, is the most telling)
    # (one that expands a variable: what it preloads cannot be told; its code: declaration takes
    # that on the person's word, which sync says)
    write(project / ".env", "NODE_OPTIONS=${PRE}\n")
    write(project / ".env.local", "PRE=--require ./ok.cjs\n")
    said = cli(porcelain.main, "sync", "--yes")
    assert (
        ".env sets NODE_OPTIONS in a way cogtools does not read, which may preload any code); its `code:`"
        in said.stdout
    ), said


@pytest.mark.slow  # (a sync, three calls and a lint)
def test_a_declaration_of_node_modules_or_a_cwd_past_the_systems_bound_breaks_nothing(project: Path, cli: Cli) -> None:
    """(attack11's MAJOR-Q and V: a tool the agent wrote declaring `code: [node_modules/]`, or
    with a `cwd:` deeper than a path may be long, made every sync, lint and call of the project
    fail with a traceback: IndexError, OSError "File name too long")"""
    write(project / "scripts" / "x.sh", "echo hi\n")
    tool(project, "hello", "{kind: command, argv: [sh, scripts/x.sh]}")
    tool(project, "mods", "{kind: command, argv: [sh, scripts/x.sh]}", extra="code: [node_modules/]\n")
    deep = os.open(project, os.O_RDONLY)
    for _ in range(20):  # (5,020 characters: past PATH_MAX, made a name at a time)
        os.mkdir("d" * 250, dir_fd=deep)
        deep, parent = os.open("d" * 250, os.O_RDONLY, dir_fd=deep), deep
        os.close(parent)
    os.close(deep)
    tool(project, "deep", f"{{kind: command, argv: [ls], cwd: {'/'.join(['d' * 250] * 20)}}}")
    synced(project, cli, "hello", "mods", "deep")
    assert call("hello").stdout == "hi\n"
    refused(call("deep"), "cogtools cannot read what it runs (File name too long)")
    linted = run_script("cogtools", "lint")
    assert "Traceback" not in linted.stderr and "INTERNAL" not in linted.stdout + linted.stderr, linted


@pytest.mark.slow  # (a sync and a call)
def test_an_environment_file_a_packages_code_names_is_pinned(project: Path, cli: Cli) -> None:
    """(attack10's z2, attack11's MAJOR-I: a package's own code loading config/app.env by name,
    whose NODE_OPTIONS its children take: read where the package is hashed, as its imports are)"""
    zenv = project / "node_modules" / "zenv"
    write(zenv / "package.json", '{"name": "zenv", "version": "1.0.0", "bin": "cli.js"}\n')
    write(zenv / "cli.js", "#!/usr/bin/env node\nrequire('dotenv').config({ path: 'config/app.env' });\n", mode=0o755)
    (project / "node_modules" / ".bin").mkdir()
    os.symlink("../zenv/cli.js", project / "node_modules" / ".bin" / "zenv")
    write(project / "config" / "app.env", "API_URL=x\n")
    tool(project, "z", "{kind: command, argv: [zenv]}", extra="code: [node_modules/zenv/]\n")
    synced(project, cli, "z")
    write(project / "config" / "app.env", "API_URL=x\nNODE_OPTIONS=--require ./evil.cjs\n")
    refused(call("z"), "config/app.env, which it may load, now sets a variable that may choose the code it runs")


def test_an_environment_file_through_proc_leaves_the_tool_open(project: Path, cli: Cli) -> None:
    """(attack11's MAJOR-M: a .env linked through /proc/self/cwd got no pin entry, and nothing
    said why: each process resolves it as itself)"""
    write(project / "scripts" / "x.sh", "echo hi\n")
    write(project / "real.env", "A=1\n")
    os.symlink("/proc/self/cwd/real.env", project / ".env")
    tool(project, "hello", "{kind: command, argv: [sh, scripts/x.sh]}")
    said = synced(project, cli, "hello")
    assert ".env leads through /proc, which cogtools cannot follow as the tool would" in said.stdout, said


def test_a_file_of_code_of_gigabytes_is_not_read_at_each_call(project: Path, cli: Cli) -> None:
    """(attack11's MAJOR-F: a sparse file of 4 GB at a pinned place, .env, made each call hash
    it for 12 s: past 64 MiB a file of code is not read, and the tool cannot run unasked)"""
    write(project / "scripts" / "x.sh", "echo hi\n")
    tool(project, "hello", "{kind: command, argv: [sh, scripts/x.sh]}")
    synced(project, cli, "hello")
    assert call("hello").stdout == "hi\n"
    os.truncate(project / "scripts" / "x.sh", 4 * 1024**3)  # (no byte of it on disk)
    refused(call("hello"), "scripts/x.sh, which it loads, changed")
    said = cli(porcelain.main, "sync", "--yes")
    assert "scripts/x.sh is over 64 MiB, past what cogtools pins" in said.stdout, said


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_a_package_and_a_program_hoisted_to_the_workspace_root_run_unasked_pinned(project: Path, cli: Cli) -> None:
    """(issue 43, found by a new user in a yarn classic workspace: a package's tool that imports
    a dependency hoisted to the workspace root, or runs the root's program, could never run
    unasked, so headless Gemini CLI never offered it)"""
    mono = project.parent
    write(mono / "package.json", '{"name": "mono", "private": true, "workspaces": ["work"]}\n')
    greet = mono / "node_modules" / "greet"
    write(greet / "package.json", '{"name": "greet", "version": "1.0.0", "main": "index.js", "bin": "cli.js"}\n')
    write(greet / "index.js", "module.exports = 'hello';\n")
    write(greet / "cli.js", "#!/usr/bin/env node\nconsole.log(require('./index.js'));\n", mode=0o755)
    (mono / "node_modules" / ".bin").mkdir()
    os.symlink("../greet/cli.js", mono / "node_modules" / ".bin" / "greet")
    write(project / "scripts" / "x.js", "console.log(require('greet'));\n")
    tool(project, "hello", "{kind: command, argv: [node, scripts/x.js]}")
    tool(project, "cli", "{kind: command, argv: [greet]}", extra="code: [node_modules/greet/]\n")
    said = synced(project, cli, "hello", "cli")
    assert "cannot run without confirmation" not in said.stdout, said
    assert call("hello").stdout == "hello\n" and call("cli").stdout == "hello\n"
    write(greet / "index.js", f"module.exports = '{PWNED}';\n")
    refused(call("hello"), "../node_modules/greet/")
    refused(call("cli"), "../node_modules/greet/")
    # (an attacker's pass: the workspace root moved away, the refusal said the package "is gone")
    write(mono / "package.json", '{"name": "mono", "private": true}\n')
    refused(call("hello"), "it no longer runs ../node_modules/greet/ as it did")


@pytest.mark.parametrize(
    ("imports", "advice"),
    [
        ("outer", "let it run only when asked (no `code:` declaration reaches"),
        ("left-pad", "install the package it imports in the project (or its workspace)"),
    ],
)
def test_code_no_declaration_closes_is_not_told_to_declare(project: Path, cli: Cli, imports: str, advice: str) -> None:
    """(issue 43, found by a new user: an import node finds outside the workspace was told to
    declare `code:`, which cannot reach it; so was a package installed nowhere)"""
    write(project.parent / "node_modules" / "outer" / "package.json", '{"name": "outer"}\n')  # above the project
    write(project / "scripts" / "x.js", f"require('{imports}');\n")
    tool(project, "hello", "{kind: command, argv: [node, scripts/x.js]}")
    linted = run_script("cogtools", "lint", "--format", "json")
    [found] = [f for f in json.loads(linted.stdout)["findings"] if f["rule"] == "code-open"]
    assert found["hint"].startswith(advice) and "declare" not in found["hint"], found
    said = synced(project, cli, "hello")
    assert "declare that code" not in said.stdout and "cannot run without confirmation" in said.stdout, said
    write(project / ".gemini" / "settings.json", json.dumps({"tools": {"allowed": ["discovered_tool_hello"]}}))
    refusal = call("hello")
    assert advice in refusal.stderr and "`code:` (files" not in refusal.stderr, refusal


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.parametrize("files", [2, 300])  # (a package shown its checked bytes; one read from disk)
def test_a_package_a_pinned_package_imports_without_listing_it_is_pinned_too(
    project: Path, cli: Cli, files: int
) -> None:
    """(issue 43: a phantom dependency, which npm's hoisting lets a package import without listing
    it in its package.json, was not pinned: an edit of it ran unasked)"""
    greet = project / "node_modules" / "greet"
    write(greet / "package.json", '{"name": "greet", "version": "1.0.0", "main": "index.js"}\n')
    write(greet / "index.js", "module.exports = require('words').hello;\n")
    for index in range(files):
        write(greet / "lib" / f"f{index}.js", "// require('not-installed-anywhere')\n")
    write(project / "node_modules" / "words" / "package.json", '{"name": "words", "version": "1.0.0"}\n')
    write(project / "node_modules" / "words" / "index.js", "exports.hello = 'hello';\n")
    write(project / "scripts" / "x.js", "console.log(require('greet'));\n")
    tool(project, "hello", "{kind: command, argv: [node, scripts/x.js]}")
    synced(project, cli, "hello")
    assert call("hello").stdout == "hello\n"
    write(project / "node_modules" / "words" / "index.js", f"exports.hello = '{PWNED}';\n")
    refused(call("hello"), "node_modules/words/")


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_what_a_package_loads_by_createrequire_an_extensionless_file_or_its_imports_map_is_pinned(
    project: Path, cli: Cli
) -> None:
    """(issue 43, an attacker's pass: the scan for phantom dependencies read only .js/.mjs/.cjs
    files and plain require: a package loading others through createRequire under another name,
    an extensionless CommonJS file (a bin script's shape), or its package.json's imports map
    naming a package ran an edit of each unasked)"""
    pkg = project / "node_modules" / "pkg"
    write(pkg / "package.json", '{"name": "pkg", "version": "1.0.0", "imports": {"#p3": {"node": "phantom3"}}}\n')
    write(
        pkg / "index.js",
        "const { createRequire } = require('module');\nconst load = createRequire(__filename);\n"
        "exports.a = () => load('phantom1').word;\nexports.b = () => require('./lib/two').word;\n"
        "exports.c = () => require('#p3').word;\nconst r = require;\nexports.d = () => r('phantom4').word;\n",
    )
    write(pkg / "lib" / "two", "module.exports = require('phantom2');\n")
    for n in range(1, 5):
        write(
            project / "node_modules" / f"phantom{n}" / "package.json", f'{{"name": "phantom{n}", "version": "1.0.0"}}\n'
        )
        write(project / "node_modules" / f"phantom{n}" / "index.js", f"exports.word = 'ok{n}';\n")
    write(project / "scripts" / "t.js", "const p = require('pkg');\nconsole.log(p.a(), p.b(), p.c(), p.d());\n")
    tool(project, "t", "{kind: command, argv: [node, scripts/t.js]}")
    synced(project, cli, "t")
    assert call("t").stdout == "ok1 ok2 ok3 ok4\n"
    for n in range(1, 5):
        module = project / "node_modules" / f"phantom{n}" / "index.js"
        module.write_text(f"exports.word = '{PWNED}';\n")
        refused(call("t"), f"node_modules/phantom{n}/")
        module.write_text(f"exports.word = 'ok{n}';\n")
    assert call("t").stdout == "ok1 ok2 ok3 ok4\n"


def test_a_planted_pyc_in_a_package_of_a_pinned_script_does_not_run(project: Path, cli: Cli) -> None:
    """A .pyc stamped to match the pinned module, in the __pycache__ of a package the script
    imports (not the script's own directory)."""
    import importlib.util
    import py_compile

    from cogtools.run.bind import bwrap

    if bwrap() is None:
        pytest.skip("bubblewrap is not installed, or cannot make a namespace here")
    write(project / "scripts" / "lib" / "__init__.py", "")
    helper = write(project / "scripts" / "lib" / "helper.py", "WORD = 'hello'\n")
    write(project / "scripts" / "x.py", "from lib import helper\nprint(helper.WORD)\n")
    tool(project, "hello", "{kind: command, argv: [python3, scripts/x.py]}")
    synced(project, cli, "hello")
    stamp = helper.stat().st_mtime
    helper.write_text(f"WORD = '{PWNED}'\n"[: len("WORD = 'hello'\n")])
    os.utime(helper, (stamp, stamp))
    py_compile.compile(str(helper), cfile=importlib.util.cache_from_source(str(helper)))
    helper.write_text("WORD = 'hello'\n")
    os.utime(helper, (stamp, stamp))
    assert call("hello").stdout == "hello\n"


# --- the edit loop stays humane ------------------------------------------------------------


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_editing_a_script_a_tool_does_not_run_refuses_nothing(project: Path, cli: Cli) -> None:
    write(project / "tools" / "count_deps.mjs", "console.log(1);\n")
    write(project / "tools" / "shared.mjs", "export const ok = 'valid';\n")
    write(project / "tools" / "validate_user.mjs", "import { ok } from './shared.mjs';\nconsole.log(ok);\n")
    tool(project, "validate_user", "{kind: command, argv: [node, tools/validate_user.mjs]}")
    synced(project, cli, "validate_user")
    assert call("validate_user").stdout == "valid\n"
    write(project / "tools" / "count_deps.mjs", "console.log(2);\n")
    assert call("validate_user").stdout == "valid\n"
    write(project / "tools" / "shared.mjs", f"export const ok = '{PWNED}';\n")
    refused(call("validate_user"), "tools/shared.mjs")


def test_editing_a_shell_script_beside_a_tools_own_refuses_nothing(project: Path, cli: Cli) -> None:
    write(project / "scripts" / "other.sh", "echo other\n")
    write(project / "scripts" / "hello.sh", "echo hello\n")
    tool(project, "hello", "{kind: command, argv: [sh, scripts/hello.sh]}")
    synced(project, cli, "hello")
    write(project / "scripts" / "other.sh", "echo changed\n")
    assert call("hello").stdout == "hello\n"


def test_a_planted_pyc_in_a_package_of_a_pinned_python_tool_does_not_run(project: Path, cli: Cli) -> None:
    """The python kind: a .pyc stamped to match a module of a package on python_path."""
    import importlib.util
    import py_compile

    write(project / ".cogtoolrc.yaml", "python_path: [.]\n")
    write(project / "lib" / "__init__.py", "")
    write(project / "lib" / "words.py", "from lib.helper import WORD\n\ndef word():\n    return WORD\n")
    helper = write(project / "lib" / "helper.py", "WORD = 'hello'\n")
    tool(project, "hello", "{kind: python, callable: 'lib.words:word'}", effects="[]")
    synced(project, cli, "hello")
    assert call("hello").stdout.strip() == "hello"
    stamp = helper.stat().st_mtime
    helper.write_text(f"WORD = '{PWNED}'\n"[: len("WORD = 'hello'\n")])
    os.utime(helper, (stamp, stamp))
    py_compile.compile(str(helper), cfile=importlib.util.cache_from_source(str(helper)))
    helper.write_text("WORD = 'hello'\n")
    os.utime(helper, (stamp, stamp))
    assert call("hello").stdout.strip() == "hello"


def test_lint_says_what_code_cannot_be_told_and_the_declaration_that_closes_it(project: Path) -> None:
    write(project / "node_modules" / "greet" / "index.js", "module.exports = 'hello';\n")
    write(project / "scripts" / "x.js", "console.log(require('greet'));\n")
    tool(project, "hello", "{kind: command, argv: [node, scripts/x.js]}")
    said = run_script("cogtools", "lint", "--format", "json")
    found = [f for f in json.loads(said.stdout)["findings"] if f["rule"] == "code-open"]
    assert len(found) == 1 and "node_modules/greet" in found[0]["message"], said
    assert "code: [node_modules/greet/]" in found[0]["hint"]
    tool(project, "hello", "{kind: command, argv: [node, scripts/x.js]}", extra="code: [node_modules/greet/]\n")
    said = run_script("cogtools", "lint", "--format", "json")
    assert not [f for f in json.loads(said.stdout)["findings"] if f["rule"] == "code-open"], said


def test_lint_tells_a_per_file_tool_past_its_bound_to_be_given_its_configuration_first(project: Path, cli: Cli) -> None:
    """(newcomer pass 14's MINOR-1: past 128 (now 2,048) directories the hint led with `code: [src/]`, which
    makes every edit of a source file refuse the formatter until a sync; --config is the way)"""
    write(project / "node_modules" / "prettier" / "package.json", '{"name": "prettier", "version": "3.0.0"}\n')
    write(project / "node_modules" / "prettier" / "bin.cjs", "\n")
    os.makedirs(project / "node_modules" / ".bin")
    os.symlink("../prettier/bin.cjs", project / "node_modules" / ".bin" / "prettier")
    for n in range(2050):
        os.makedirs(project / "src" / f"d{n}")
    tool(project, "fmt", "{kind: command, argv: [prettier, --check, src]}", extra="code: [node_modules/prettier/]\n")
    said = cli(porcelain.main, "lint", "--format", "json")
    [found] = [f for f in json.loads(said.stdout)["findings"] if f["rule"] == "code-open"]
    assert found["hint"].startswith("give it --config or --no-config, which makes it look for no other"), found
    assert "code: [src/]" in found["hint"] and "any edit there asks again" in found["hint"], found


def test_declared_code_is_what_a_confined_tool_sees_of_the_project(project: Path, cli: Cli) -> None:
    """A tool that reads nothing of the project sees its code, declared code included, asked or
    pinned; and nothing else."""
    write(project / "lib" / "h.py", "WORD = 'hello'\n")
    write(project / "notes.txt", "SECRET\n")
    script = (
        "import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'lib'))\nimport h\n"
        "print(h.WORD, os.path.exists('notes.txt'))\n"
    )
    write(project / "scripts" / "x.py", script)
    tool(project, "hello", "{kind: command, argv: [python3, scripts/x.py]}", effects="[]", extra="code: [lib/]\n")
    from cogtools.run.confine import available

    hidden = "False" if available() else "True"
    assert call("hello").stdout == f"hello {hidden}\n"  # asked
    synced(project, cli, "hello")
    assert call("hello").stdout == f"hello {hidden}\n"  # pinned


# --- an edit of code reached by a convention: make, python -m, imports and sources, and (from
# --- the attacker's pass over the first version) the ways found around it -------------------

HELLO_SH = "greet() { echo hello; }\n"
#: name -> (files: path -> text (an executable one starts with #!), the implementation, the file the
#: agent edits, the text it writes there)
EDITS: dict[str, tuple[dict[str, str], str, str, str]] = {
    "the makefile make reads": (
        {"Makefile": "hello:\n\t@echo hello\n"},
        "{kind: command, argv: [make, -s, hello]}",
        "Makefile",
        f"hello:\n\t@echo {PWNED}\n",
    ),
    "the module python -m runs": (
        {"helper.py": "print('hello')\n"},
        "{kind: command, argv: [python3, -m, helper]}",
        "helper.py",
        f"print('{PWNED}')\n",
    ),
    "what an ES module imports from elsewhere": (
        {
            "lib/h.mjs": "export const word = 'hello';\n",
            "src/lib.mjs": "export { word } from '../lib/h.mjs';\n",
            "scripts/x.mjs": "import { word } from '../src/lib.mjs';\nconsole.log(word);\n",
        },
        "{kind: command, argv: [node, scripts/x.mjs]}",
        "lib/h.mjs",
        f"export const word = '{PWNED}';\n",
    ),
    "a program of the project that sources": (
        {"scripts/run.sh": "#!/bin/sh\n. ./scripts/lib.sh\ngreet\n", "scripts/lib.sh": HELLO_SH},
        "{kind: command, argv: [./scripts/run.sh]}",
        "scripts/lib.sh",
        f"greet() {{ echo {PWNED}; }}\n",
    ),
    "a python program of the project that imports": (
        {
            "scripts/run.py": "#!/usr/bin/env python3\nimport helper\nprint(helper.W)\n",
            "scripts/helper.py": "W = 'hello'\n",
        },
        "{kind: command, argv: [scripts/run.py]}",
        "scripts/helper.py",
        f"W = '{PWNED}'\n",
    ),
    "python -c importing from where it runs": (
        {"helper.py": "W = 'hello'\n"},
        "{kind: command, argv: [python3, -c, 'import helper; print(helper.W)']}",
        "helper.py",
        f"W = '{PWNED}'\n",
    ),
    "a script that moves to its own directory": (
        {"scripts/s.sh": 'cd "$(dirname "$0")"\n. ./lib.sh\ngreet\n', "scripts/lib.sh": HELLO_SH},
        "{kind: command, argv: [sh, scripts/s.sh]}",
        "scripts/lib.sh",
        f"greet() {{ echo {PWNED}; }}\n",
    ),
    "a shell given its code with -c": (
        {"lib.sh": HELLO_SH},
        "{kind: command, argv: [bash, -c, '. ./lib.sh; greet']}",
        "lib.sh",
        f"greet() {{ echo {PWNED}; }}\n",
    ),
    "a makefile's include of an include": (
        {"Makefile": "include a.mk\n", "a.mk": "include b.mk\n", "b.mk": "hello:\n\t@echo hello\n"},
        "{kind: command, argv: [make, -s, hello]}",
        "b.mk",
        f"hello:\n\t@echo {PWNED}\n",
    ),
    "a recipe on the rule's line": (
        {"Makefile": "hello: ; @sh scripts/hello.sh\n", "scripts/hello.sh": "echo hello\n"},
        "{kind: command, argv: [make, -s, hello]}",
        "scripts/hello.sh",
        f"echo {PWNED}\n",
    ),
    "a module node loads before the script": (
        {"scripts/setup.mjs": "globalThis.word = 'hello';\n", "scripts/x.mjs": "console.log(globalThis.word);\n"},
        "{kind: command, argv: [node, --import=./scripts/setup.mjs, scripts/x.mjs]}",
        "scripts/setup.mjs",
        f"globalThis.word = '{PWNED}';\n",
    ),
    "a directory module with a main": (
        {
            "scripts/lib/package.json": '{"main": "impl.js"}\n',
            "scripts/lib/impl.js": "module.exports = 'hello';\n",
            "scripts/x.js": "console.log(require('./lib'));\n",
        },
        "{kind: command, argv: [node, scripts/x.js]}",
        "scripts/lib/impl.js",
        f"module.exports = '{PWNED}';\n",
    ),
    "a helper beside a python script, run by path": (
        {
            "scripts/x.py": "import os, subprocess\nsubprocess.run(['sh', os.path.join(os.path.dirname(__file__), 'helper.sh')])\n",
            "scripts/helper.sh": "echo hello\n",
        },
        "{kind: command, argv: [python3, scripts/x.py]}",
        "scripts/helper.sh",
        f"echo {PWNED}\n",
    ),
    "a package directory reached through a link": (
        {
            "shared/lib/__init__.py": "",
            "shared/lib/helper.py": "W = 'hello'\n",
            "scripts/x.py": "from lib import helper\nprint(helper.W)\n",
        },
        "{kind: command, argv: [python3, scripts/x.py]}",
        "shared/lib/helper.py",
        f"W = '{PWNED}'\n",
    ),
}


def lay_out(project: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        write(project / name, text, 0o755 if text.startswith("#!") else None)
    if "shared/lib/helper.py" in files:
        (project / "scripts" / "lib").symlink_to("../shared/lib")


@pytest.mark.parametrize("case", sorted(EDITS))
def test_an_edit_of_code_reached_another_way_is_refused(project: Path, cli: Cli, case: str) -> None:
    files, implementation, edited, text = EDITS[case]
    needs = {"make": "make", "node": "node"}
    for word, program in needs.items():
        if word in implementation and shutil.which(program) is None:
            pytest.skip(f"{program} is not installed")
    lay_out(project, files)
    tool(project, "hello", implementation)
    said = synced(project, cli, "hello")
    assert call("hello").stdout.strip() == "hello", said
    write(project / edited, text)
    refused(call("hello"), edited)


#: name -> (files, implementation, what sync must say): code cogtools cannot tell.
OPEN: dict[str, tuple[dict[str, str], str, str]] = {
    "a recipe that runs a variable": (
        {"Makefile": "SCRIPT = scripts/hello.sh\nhello:\n\t@sh $(SCRIPT)\n", "scripts/hello.sh": "echo hello\n"},
        "{kind: command, argv: [make, -s, hello]}",
        "through a variable",
    ),
    "npm told another package": (
        {"sub/package.json": '{"scripts": {"hello": "echo hello"}}\n', "package.json": "{}\n"},
        "{kind: command, argv: [npm, --prefix, sub, run, -s, hello]}",
        "--prefix",
    ),
    "a directory change": (
        {"scripts/s.sh": "cd lib\n. ./x.sh\n", "lib/x.sh": "echo hello\n"},
        "{kind: command, argv: [sh, scripts/s.sh]}",
        "changes directory (lib)",
    ),
    "a worker": (
        {"scripts/x.mjs": "new Worker(new URL('./w.mjs', import.meta.url));\n", "scripts/w.mjs": ""},
        "{kind: command, argv: [node, scripts/x.mjs]}",
        "a worker or a child process",
    ),
}


@pytest.mark.parametrize("case", sorted(OPEN))
def test_code_that_cannot_be_told_is_not_allowed_unasked(project: Path, cli: Cli, case: str) -> None:
    files, implementation, words = OPEN[case]
    lay_out(project, files)
    tool(project, "hello", implementation)
    said = synced(project, cli, "hello")
    assert words in said.stdout and "cannot run without confirmation" in said.stdout, said


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_hooks_of_a_hooks_path_a_pinned_git_runs_are_pinned(project: Path, cli: Cli) -> None:
    """husky's layout: core.hooksPath = .husky/_, whose pre-commit sources .husky/pre-commit."""
    import subprocess

    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(["git", "config", "core.hooksPath", ".husky/_"], cwd=project, check=True)
    subprocess.run(["git", "config", "user.email", "t@example.com"], cwd=project, check=True)
    subprocess.run(["git", "config", "user.name", "t"], cwd=project, check=True)
    write(project / ".husky" / "_" / "pre-commit", "#!/bin/sh\n. .husky/pre-commit\n", 0o755)
    write(project / ".husky" / "pre-commit", "true\n")
    tool(
        project,
        "commit",
        "{kind: command, argv: [git, commit, -q, --allow-empty, -m, x]}",
        effects="[filesystem_write]",
    )
    synced(project, cli, "commit")
    assert call("commit").status == 0
    write(project / ".husky" / "pre-commit", f"echo {PWNED} > {PWNED}.txt\n")
    refused(call("commit"), ".husky/pre-commit")
    assert not (project / f"{PWNED}.txt").exists()


def test_what_the_agent_plants_to_stall_the_check_ends_in_an_answer(project: Path, cli: Cli) -> None:
    """A FIFO in place of a module, an import line repeated for a regular expression to choke on,
    a package.json nested past the parser's depth: the check reads each one boundedly."""
    write(project / "scripts" / "x.py", "print('hello')\n")
    tool(project, "hello", "{kind: command, argv: [python3, scripts/x.py]}")
    write(project / "lib.mjs", "import " * 20000)
    write(project / "scripts" / "y.mjs", "import '../lib.mjs';\n")
    tool(project, "js", "{kind: command, argv: [node, scripts/y.mjs]}")
    write(project / "package.json", "[" * 100000 + "]" * 100000)
    tool(project, "npm", "{kind: command, argv: [npm, run, -s, hello]}")
    synced(project, cli, "hello", "js", "npm")
    os.mkfifo(project / "scripts" / "evil.py")
    refused(run_script("cogtools-call", "hello", stdin="{}", timeout=30), "scripts/evil.py")
    for name in ("js", "npm"):
        result = run_script("cogtools-call", name, stdin="{}", timeout=30)
        assert "INTERNAL" not in result.stderr, result


def test_editing_data_a_tool_reads_refuses_nothing(project: Path, cli: Cli) -> None:
    """A file a program reads is not code: what lies beside it is not followed."""
    write(project / "src" / "app.py", "import util\n")
    write(project / "src" / "util.py", "X = 1\n")
    write(project / "notes.txt", "TODO\n")
    tool(project, "count", "{kind: command, argv: [wc, -l, src/app.py]}")
    synced(project, cli, "count")
    write(project / "src" / "util.py", "X = 2\n")
    assert call("count").status == 0
    if shutil.which("make"):
        write(project / "Makefile", "todo:\n\t@grep -c TODO notes.txt\n")
        tool(project, "todo", "{kind: command, argv: [make, -s, todo]}")
        synced(project, cli, "todo")
        write(project / "notes.txt", "TODO\nTODO\n")
        assert call("todo").stdout == "2\n"


@pytest.mark.parametrize("workspace", [True, False])
def test_a_package_a_workspace_hoisted_is_pinned_and_one_above_it_open(tmp_path: Path, workspace: bool) -> None:
    """(issue 43: yarn and npm workspaces hoist a package's dependencies, and its programs, to the
    workspace root; node finds them above the package, where a pin covers them by their tree's
    digest as it covers the package's own; one node finds above the workspace, or above a project
    that is no workspace's package, is open for good, as is one installed nowhere)"""
    from cogtools.run.program_files import command_code, declared_code, script_code
    from cogtools.trust.pins import declares

    mono = tmp_path / "mono"
    root = mono / "packages" / "app"
    write(mono / "package.json", '{"workspaces": ["packages/*"]}\n' if workspace else "{}\n")
    package = '{"name": "%s", "version": "1.0.0", "bin": {"%s": "cli.js"}, "dependencies": {"dep": "1"}}\n'
    for name in ("zod", "dep"):
        write(mono / "node_modules" / name / "package.json", package % (name, f"cogtools-test-{name}"))
        write(mono / "node_modules" / name / "cli.js", "#!/usr/bin/env node\n", mode=0o755)
        (mono / "node_modules" / ".bin").mkdir(exist_ok=True)
        os.symlink(f"../{name}/cli.js", mono / "node_modules" / ".bin" / f"cogtools-test-{name}")
    write(tmp_path / "node_modules" / "outer" / "package.json", '{"name": "outer"}\n')
    write(root / "package.json", '{"name": "app", "type": "module"}\n')
    script = write(root / "tools" / "validate.mjs", "import { z } from 'zod';\nimport 'outer';\nimport 'left-pad';\n")
    code = script_code(script, ["node"], root, root)
    opened = dict(code.open)
    outer = "tools/validate.mjs imports outer, which node finds outside the project ({0}), which no pin covers"
    nowhere = {"tools/validate.mjs imports left-pad, which is installed nowhere in the project": "../left-pad"}
    if not workspace:
        zod = "tools/validate.mjs imports zod, which node finds outside the project ({0}), which no pin covers"
        assert opened == {
            zod.format("../../node_modules/zod"): "../../node_modules/zod",
            outer.format("../../../node_modules/outer"): "../../../node_modules/outer",
            **nowhere,
        }
        return
    assert opened == {outer.format("../../../node_modules/outer"): "../../../node_modules/outer", **nowhere}
    assert {mono / "node_modules" / "zod", mono / "node_modules" / "dep"} <= set(code.files)  # pinned whole
    assert not any(declares(["node_modules/", "."], needs) for needs in opened.values())
    # the workspace root's program: declared by the name node finds its package by, and pinned so
    ((why, needs),) = command_code(["cogtools-test-zod"], root, root).open
    assert needs == "node_modules/zod" and "from ../../node_modules/zod" in why and "outside" not in why, why
    assert mono / "node_modules" / "zod" in declared_code(["node_modules/zod/"], root).files


def test_a_shim_of_node_modules_bin_is_followed_to_its_package(tmp_path: Path) -> None:
    """(pnpm writes node_modules/.bin/tsc as a shell script that runs the package's bin; declaring
    node_modules/.bin/ closed it, and an edit of the package ran unasked)"""
    from cogtools.run.program_files import command_code

    root = tmp_path / "web"
    write(root / "node_modules" / "typescript" / "package.json", '{"name": "typescript"}\n')
    write(root / "node_modules" / "typescript" / "bin" / "tsc", "#!/usr/bin/env node\n", mode=0o755)
    shim = '#!/bin/sh\nbasedir=$(dirname "$0")\nexec node  "$basedir/../typescript/bin/tsc" "$@"\n'
    write(root / "node_modules" / ".bin" / "cogtools-test-tsc", shim, mode=0o755)
    write(root / "node_modules" / ".bin" / "cogtools-test-odd", '#!/bin/sh\nexec "$@"\n', mode=0o755)
    from cogtools.trust.pins import declares

    ((why, needs),) = command_code(["cogtools-test-tsc", "--noEmit"], root, root).open
    assert needs == "node_modules/typescript" and "from node_modules/typescript" in why
    assert declares(["node_modules/typescript/"], needs) and not declares(["node_modules/.bin/"], needs)
    ((why, needs),) = command_code(["cogtools-test-odd"], root, root).open
    assert needs is not None and not declares(["node_modules/.bin/", "node_modules/"], needs)


def test_a_python_script_at_the_root_runs_after_the_first_sync(project: Path, cli: Cli) -> None:
    """(an attacker's F26: sync wrote GEMINI.md after pinning, beside the script, and the first call
    was refused: "it now runs GEMINI.md")"""
    (project / "GEMINI.md").unlink(missing_ok=True)
    write(project / "hello.py", "print('hello')\n")
    write(project / "data.json", '{"a": 1}\n')
    tool(project, "hello", "{kind: command, argv: [python3, hello.py]}")
    tool(project, "pretty", "{kind: command, argv: [python3, -m, json.tool, data.json]}")
    synced(project, cli, "hello", "pretty")
    assert (project / "GEMINI.md").is_file()
    assert call("hello").stdout == "hello\n"
    assert json.loads(call("pretty").stdout) == {"a": 1}


def installed(project: Path, name: str, program: str, text: str) -> None:
    """A package ``name`` in node_modules whose program ``program`` (a node script) npm links
    in node_modules/.bin."""
    write(project / "node_modules" / name / "package.json", json.dumps({"name": name, "version": "1.0.0"}))
    write(project / "node_modules" / name / "cli.js", f"#!/usr/bin/env node\n{text}", mode=0o755)
    os.makedirs(project / "node_modules" / ".bin", exist_ok=True)
    os.symlink(f"../{name}/cli.js", project / "node_modules" / ".bin" / program)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_what_a_wrapper_runs_and_a_tools_own_rc_file_loads_are_pinned(project: Path, cli: Cli) -> None:
    """(issue 43, found reproducing a newcomer's ways: `cross-env NODE_ENV=test vitest run`, a
    shell script that runs `vitest run`, and mocha's `.mocharc.yml` ran the agent's edited setup
    file unasked: cogtools followed the wrapper's package only, and knew only eslint's, vitest's...
    configuration files by name)"""
    installed(
        project,
        "cross-env",
        "cross-env",
        "const [c, ...a] = process.argv.slice(2).filter((w) => !w.includes('='));\n"
        "process.exitCode = require('child_process').spawnSync(c, a, {stdio: 'inherit'}).status;\n",
    )
    installed(
        project,
        "hi",
        "hi",
        "const rc = JSON.parse(require('fs').readFileSync('.hirc.json', 'utf8'));\n"
        "require(require('path').resolve(rc.require));\nconsole.log('hello');\n",
    )
    write(project / ".hirc.json", '{"require": "lib/setup.cjs"}\n')
    write(project / "lib" / "setup.cjs", "\n")
    write(project / "scripts" / "check.sh", "hi\n")
    write(project / "package.json", '{"name": "p"}\n')
    code = "code: [node_modules/cross-env/, node_modules/hi/]\n"
    tool(project, "wrapped", "{kind: command, argv: [cross-env, NODE_ENV=test, hi]}", extra=code)
    tool(project, "scripted", "{kind: command, argv: [sh, scripts/check.sh]}", extra=code)
    names = ("wrapped", "scripted")
    synced(project, cli, *names)
    for name in names:
        assert call(name).stdout == "hello\n"
    write(project / "lib" / "setup.cjs", f"console.log('{PWNED}');\n")
    for name in names:
        refused(call(name), "lib/setup.cjs")
    write(project / "lib" / "setup.cjs", "\n")
    write(project / ".hirc.json", '{"require": "lib/other.cjs"}\n')
    for name in names:
        refused(call(name), ".hirc.json")


def test_sync_shows_what_a_code_declaration_closes_on_the_persons_word(project: Path, cli: Cli) -> None:
    """(newcomer pass 12's m22: a reason with no place to declare, a program named by a variable,
    was closed by any `code:` of the tool, unseen: sync now says it is taken on the person's word)"""
    write(project / "scripts" / "run.sh", 'M="${M:-node}"\n"$M" scripts/x.js\n')
    write(project / "scripts" / "x.js", "\n")
    tool(project, "hello", "{kind: command, argv: [sh, scripts/run.sh]}", extra="code: [scripts/x.js]\n")
    said = synced(project, cli, "hello")
    assert "on your word: cogtools cannot tell all the code it runs (scripts/run.sh runs" in said.stdout, said
    tool(project, "plain", "{kind: command, argv: [sh, scripts/x.sh]}")
    write(project / "scripts" / "x.sh", "echo hi\n")
    assert "on your word" not in synced(project, cli, "plain").stdout


def test_a_pin_a_newer_cogtools_wrote_is_neither_checked_nor_replaced(project: Path, cli: Cli) -> None:
    """(newcomer pass 15's MINOR-C: two cogtools of different shapes of pins on one machine, both
    `cogtools 0.1.0`, re-pinned each other's tools, and every call of the other refused)"""
    from cogtools.trust.pins import PIN_FORMAT, pins_path

    write(project / "scripts" / "x.sh", "echo hi\n")
    tool(project, "hello", "{kind: command, argv: [sh, scripts/x.sh]}")
    tool(project, "other", "{kind: command, argv: [sh, scripts/x.sh]}")
    synced(project, cli, "hello", "other")
    assert call("hello").stdout == "hi\n"
    path = pins_path(project, os.environ)
    assert path is not None
    data = json.loads(path.read_text())
    assert data["pins"]["hello"]["format"] == PIN_FORMAT
    data["pins"]["hello"]["format"] = PIN_FORMAT + 1
    path.write_text(json.dumps(data))
    refusal = call("hello")
    refused(refusal, "pinned by a newer cogtools")
    said = synced(project, cli, "hello", "other")
    assert "pinned by a newer cogtools" in said.stdout, said
    assert json.loads(path.read_text())["pins"]["hello"]["format"] == PIN_FORMAT + 1  # (kept as it was)
    assert call("other").stdout == "hi\n"


@pytest.mark.slow  # (a sync and a call over a 3 MB pins file)
def test_pins_past_a_mebibyte_are_read(project: Path, cli: Cli) -> None:
    """(newcomer pass 17's M18: a pins file past 1 MiB, 72 tools of a project with jest, was read
    as none: sync said every tool was pinned, and every call was refused as never reviewed)"""
    from cogtools.trust.pins import pins_path

    write(project / "scripts" / "x.sh", "echo hi\n")
    tool(project, "hello", "{kind: command, argv: [sh, scripts/x.sh]}")
    synced(project, cli, "hello")
    path = pins_path(project, os.environ)
    assert path is not None
    data = json.loads(path.read_text())
    places = {f"src/d{n}/.zlintrc.js": None for n in range(60_000)}  # (as a per-file tool's pin names them)
    data["pins"]["big"] = {**data["pins"]["hello"], "closure": {"files": places, "settings": {}}}
    path.write_text(json.dumps(data, indent=2))
    assert path.stat().st_size > 2 * 1024 * 1024
    assert call("hello").stdout == "hi\n"


def zlint(project: Path) -> None:
    """A package program cogtools knows nothing of, which loads .zlintrc.js wherever it finds one
    and each installed zlint-* package (the conventions of attack10's PoCs), allowed and synced."""
    package = project / "node_modules" / "zlint"
    write(package / "package.json", json.dumps({"name": "zlint", "version": "1.0.0"}))
    write(package / "bin" / "zlint", "#!/bin/sh\necho linted\n", mode=0o755)
    os.makedirs(project / "node_modules" / ".bin", exist_ok=True)
    os.symlink("../zlint/bin/zlint", project / "node_modules" / ".bin" / "zlint")
    write(project / "src" / "a.js", "\n")
    tool(project, "zl", "{kind: command, argv: [zlint]}", extra="code: [node_modules/zlint/]\n")


def test_what_a_declaration_closes_on_the_persons_word_later_is_a_change(project: Path, cli: Cli) -> None:
    """(attack10's MAJOR-1 and 2: past 2,048 directories, or 64 packages named after the tool, the
    look went open on the person's word, closed by the tool's own code: declaration; nothing of it
    was in the pin, so a planted configuration or plugin ran unasked)"""
    zlint(project)
    synced(project, cli, "zl")
    assert call("zl").stdout == "linted\n"
    for n in range(2050):
        os.makedirs(project / "gen" / f"d{n}")
    refused(call("zl"), "no longer tell all the code it runs", "2048 directories", "on your word")
    shutil.rmtree(project / "gen")
    assert call("zl").stdout == "linted\n"
    for n in range(65):
        write(project / "node_modules" / f"zlint-p{n}" / "package.json", json.dumps({"name": f"zlint-p{n}"}))
    refused(call("zl"), "more than 64 installed packages are named after zlint")
    said = synced(project, cli, "zl")
    assert "on your word: cogtools cannot tell all the code it runs (more than 64 installed packages" in said.stdout
    assert call("zl").stdout == "linted\n"


def test_a_configuration_leading_through_proc_is_not_followed(project: Path, cli: Cli) -> None:
    """(attack10's MAJOR-5: src/sub/.zlintrc.js -> /proc/self/cwd/x.js is resolved by each process
    as itself: cogtools pinned its own cwd's x.js, the tool (cwd: src) ran src/x.js, edited)"""
    zlint(project)
    write(project / "x.js", "\n")
    os.makedirs(project / "src" / "sub")
    os.symlink("/proc/self/cwd/x.js", project / "src" / "sub" / ".zlintrc.js")
    said = synced(project, cli, "zl")
    assert "src/sub/.zlintrc.js leads through /proc" in said.stdout, said


def test_a_node_put_in_node_modules_bin_is_a_change(project: Path, cli: Cli) -> None:
    """(re-check 16's NEW-1, older than this stop: the project's node_modules/.bin is on a
    command's PATH, and npm's scripts' and pnpm's shims look there first: a planted
    node_modules/.bin/node ran under every #!/usr/bin/env node of a pinned tool)"""
    zlint(project)
    synced(project, cli, "zl")
    assert call("zl").stdout == "linted\n"
    write(project / "node_modules" / ".bin" / "node", f"#!/bin/sh\necho {PWNED}\n", mode=0o755)
    refused(call("zl"), "node_modules/.bin/node")
