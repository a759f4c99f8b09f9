"""The code of the workspace a program runs or loads, which the pin of a tool covers (DESIGN §11:
what runs unasked is what the pin covers, by construction): a knowledge base of how shells,
Python, node, make, the package managers and git find the files they run, read from the literal
words of a command line and the texts of the scripts it reaches. What it cannot tell (a path
known only at run time, a package of ``node_modules``) it says, as :attr:`Code.open`: such a
tool runs unasked only once its ``code:`` declares it (:mod:`cogtools.trust.pins`)."""

from __future__ import annotations

import collections
import contextvars
import functools
import itertools
import json
import os
import re
import stat
import typing as t
from pathlib import Path

from cogtools.core.fsutil import under
from cogtools.core.limits import MAX_CODE_FILES, open_regular
from cogtools.run import Code


def named_files(words: t.Iterable[str], cwd: Path) -> list[Path]:
    """The files the literal words of a command line name, relative to ``cwd`` (where the program
    runs): a path (``./bin/tool``, ``scripts/count.sh``) or a name with a suffix (``count.sh``)
    that is a regular file there. A template or an option names none."""
    found = []
    for word in words:
        if not word or "{{" in word or "{%" in word or word.startswith("-"):
            continue
        path = Path(word) if Path(word).is_absolute() else cwd / word
        if ("/" in word or path.suffix) and os.path.isfile(path):  # a word past NAME_MAX names none
            found.append(path)
    return found


#: The shells whose scripts source others (``. "$(dirname "$0")/lib.sh"``).
SHELLS = frozenset("sh bash dash zsh ksh mksh ash".split())
#: The programs that run JavaScript or TypeScript.
NODES = frozenset("node nodejs bun deno tsx ts-node".split())
#: The package managers whose ``run NAME`` runs a script of package.json.
PACKAGE_MANAGERS = frozenset("npm pnpm yarn bun".split())
#: What each package manager reads from the project that can make it run other code (named even
#: when it is not there yet, so that one written later is a change): its settings
#: (``script-shell``, ``node-options``, ``yarnPath``), pnpm's hooks, Yarn's Plug'n'Play loader.
MANAGER_FILES = {
    "npm": (".npmrc",),
    "pnpm": (".npmrc", ".pnpmfile.cjs", "pnpm-workspace.yaml"),
    "yarn": (".npmrc", ".yarnrc", ".yarnrc.yml", ".env.yarn", ".pnp.cjs", ".pnp.loader.mjs"),
    "bun": (".npmrc", "bunfig.toml"),
}
#: The options of npm, pnpm and yarn that run the scripts of other packages of the workspace (or
#: of another package.json).
WORKSPACE_OPTIONS = frozenset(
    "-r --recursive --filter -F --filter-prod -w -ws --workspace --workspaces --include-workspace-root"
    " -C --dir --prefix --cwd".split()
)
#: What npm runs as a script of package.json (its own commands, and their short forms); any other
#: command of npm's (install, rebuild, restart...) runs scripts cogtools does not follow.
NPM_RUNS = frozenset("run run-script test t tst start stop".split())
#: The deepest a chain of scripts that run or source each other is followed.
MAX_DEPTH = 16
#: The largest file read to find what it sources or imports.
MAX_SCANNED_BYTES = 1024 * 1024
#: The suffixes of JavaScript and TypeScript modules.
JAVASCRIPT = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".tsx", ".jsx")


#: What a reason a tool's code is open says when no ``code:`` declaration can close it: what
#: lies outside the workspace, and a package installed nowhere.
NO_PIN = "which no pin covers"
NOWHERE = "which is installed nowhere"


def declared_code(entries: t.Iterable[str], root: Path) -> Code:
    """The code a tool declares (``code: [Makefile, scripts/]``): each file, and each directory
    whole (every file under it, a link to a directory followed once), relative to the project
    root; an installed package (``node_modules/typescript/``) is the one node finds for the
    project, which may be hoisted to its workspace root."""
    code = Code()
    for entry in entries:
        path = root / entry
        named = os.path.normpath(entry).split(os.sep)
        scoped = len(named) > 1 and named[1].startswith("@")
        if named[0] == "node_modules" and len(named) == 2 + scoped and not path.exists():
            path = _found_by_node(root, "/".join(named[1:])) or path  # a package hoisted above the project
        if path.is_dir() and _package_root(path / "package.json", path) == path and (path / "package.json").is_file():
            code = code.plus(_installed_package(path, root, set()))  # an installed package: pinned whole
        elif path.is_dir():
            code = code.plus(Code(tuple(_walk(path, lambda directory, name: True))))
        else:
            code = code.plus(Code((path,)))
    return code


def command_code(argv: t.Sequence[str], cwd: Path, root: Path, depth: int = 0) -> Code:
    """The code of the workspace a command line runs: the files its literal words name (a
    program of the project, a script it is given) with what each loads in turn, and what its
    program loads by convention: make's makefiles, the module and directory of ``python -m``, the
    script of package.json that ``npm run NAME`` runs, a venv's site-packages, git's
    configuration and hooks. Each command line it reaches is read once (scripts that run each
    other, as a package.json the agent writes may have them, at each depth)."""
    if READ.get() is None:
        reading = _Reading()
        reading.cwd = cwd
        token = READ.set(reading)
        try:
            return command_code(argv, cwd, root, depth)
        finally:
            READ.reset(token)
    return _once(_command_code, argv, cwd, root, depth)


#: The most readings of one command (each command line, package program and configuration it
#: reaches, :func:`_once`): past it, what it runs is open (a package.json or a configuration
#: the agent writes cannot make reading one take minutes).
MAX_READINGS = 512
#: The most readings one may be reached through (a configuration naming one that names another...):
#: past it, open, before Python's own limit on nested calls is reached.
MAX_NESTING = 32
#: The most strings of configurations one reading reads (each a few look-ups of the file system):
#: past it, open (configurations naming each other, each of 512 strings, cannot make it take minutes).
MAX_STRINGS_READ = 8192
#: The most rootDirs a jest configuration's strings are taken from (its own and those of the ones
#: that name it): past it, open.
MAX_ROOT_DIRS = 16


class _Reading:
    """One reading of a command (:func:`command_code`): what was read (the key without the depth
    it was reached at; one being read, reached again, a cycle, adds nothing), and how many."""

    def __init__(self) -> None:
        self.read: dict[tuple[t.Any, ...], Code] = {}
        self.count = 0
        self.nesting = 0  # (how many readings the one under way is reached through)
        self.strings = 0  # (how many strings of configurations it read: MAX_STRINGS_READ)
        self.packages: dict[tuple[str, Path], Code] = {}  # (what a package name found from a place)
        self.found: dict[tuple[str, Path, tuple[str, ...]], tuple[Path | None, bool]] = {}
        self.listings: dict[Path, frozenset[str] | None] = {}  # (what each directory holds: _listing)
        self.walks: dict[tuple[Path, int], Walk] = {}  # (_directories_under)
        self.cwd: Path | None = None  # (where the command it reads runs: a relative path node takes from there)


#: The reading under way (:class:`_Reading`), if any.
READ: contextvars.ContextVar[_Reading | None] = contextvars.ContextVar("read", default=None)


def _once(read: t.Callable[..., Code], argv: t.Sequence[str], *rest: t.Any) -> Code:
    """``read(argv, *rest)``, whose last argument is the depth it is reached at, once in a
    reading of a command (:data:`READ`), and no more than :data:`MAX_READINGS` readings."""
    reading = READ.get()
    if reading is None:  # (a reading of its own: what it reaches is read once, cycles end)
        token = READ.set(_Reading())
        try:
            return _once(read, argv, *rest)
        finally:
            READ.reset(token)
    key = (read.__name__, tuple(argv), *rest[:-1], SCRIPT_BINS.get())
    if key not in reading.read:
        reading.count += 1
        if reading.count > MAX_READINGS:
            why = f"it runs more commands and configurations than cogtools reads of one (over {MAX_READINGS})"
            return Code(open=((why, None),))
        if reading.nesting >= MAX_NESTING:
            why = f"its commands and configurations name each other more than {MAX_NESTING} deep"
            return Code(open=((why, None),))
        reading.read[key] = Code()  # (while it is read: reached again, a cycle, it adds nothing)
        reading.nesting += 1
        try:
            reading.read[key] = read(argv, *rest)
        finally:
            reading.nesting -= 1
    return reading.read[key]


def _command_code(argv: t.Sequence[str], cwd: Path, root: Path, depth: int) -> Code:
    if not argv:
        return Code()
    if depth > MAX_DEPTH:
        return Code(open=((f"its commands run each other more than {MAX_DEPTH} deep", None),))
    program = os.path.basename(argv[0])
    code = _program_itself(argv[0], cwd, root, depth)
    if program == "env":  # (env NODE_OPTIONS=... node x.js: what it runs, and what that preloads)
        rest = _command_words([program, *argv[1:]])
        import shlex

        preloads = _inline_node_options(shlex.join(argv), cwd, root)
        return code.plus(preloads, command_code(rest, cwd, root, depth + 1) if rest else Code())
    code = code.plus(_by_program(program, argv, cwd, root, depth))
    if "/" in argv[0] and "{{" not in argv[0]:  # (./wrapper.sh node x.js)
        path = Path(argv[0]) if os.path.isabs(argv[0]) else cwd / argv[0]
        shell = os.path.isfile(path) and (  # (a FIFO there would make an open wait for ever)
            path.suffix in (".sh", ".bash") or os.path.basename((_shebang(path) or [""])[-1]) in SHELLS
        )
        if shell:
            code = code.plus(_wrapped(path, argv[1:], cwd, root, depth))
    return code.plus(
        _bare_package(argv, cwd, root, depth),
        _named_code(argv, cwd, root, depth),
        _configuration(argv, cwd, root),
        environment_files(cwd, root, argv[1:]),
    )


def _by_program(program: str, argv: t.Sequence[str], cwd: Path, root: Path, depth: int) -> Code:
    """What a command's program loads by its own conventions: make's makefiles, a package
    manager's script, the working directory of ``python -m``, a shell's ``-c`` text, node's
    preloads and a package's program it is given."""
    words = [word for word in argv[1:] if "{{" not in word and "{%" not in word]
    code = Code()
    if program in ("make", "gmake"):
        code = _make(words, cwd, root, depth)
    elif program in PACKAGE_MANAGERS or program in ("npx", "pnpx"):
        code = _package_script(program, words, cwd, root, depth)
    elif program.startswith("python") and (any(PYTHON_CODE.match(word) for word in words) or "-" in words):
        code = python_tree(cwd, root, scan=True)  # the working directory is sys.path[0]
    elif program in SHELLS and _shell_code(words) is not None:
        code = _shell_text(_shell_code(words) or "", None, cwd, root, depth + 1, set())
    if program in NODES:
        code = code.plus(_node_flags(words, cwd, root), _node_package_program(words, cwd, root, depth))
        # (`node -r dotenv/config x.js dotenv_config_path=FILE`: the file dotenv loads)
        for word in words[:MAX_GIVEN_WORDS]:
            if word.startswith("dotenv_config_path="):
                path = cwd / word.partition("=")[2]
                code = code.plus(Code((path,)), _environment_preloads(path, cwd, root))
    return code


def environment_files(cwd: Path, root: Path, args: t.Sequence[str] = ()) -> Code:
    """The environment files a program may load of itself, from where it runs, from the
    project's root and from each directory it is given (``next build web``): dotenv's cascade
    and every other ``.env.*`` there (dotenv-flow's ``.env.defaults``, ``.env.staging`` for its
    NODE_ENV; ``process.loadEnvFile()``, next's, prisma's, a bundled dotenv, python-dotenv); the
    programs it starts take their variables, NODE_OPTIONS among them, which may preload anything.
    Each pinned by the names it sets (a value edited is no change, unless one may choose code:
    :meth:`cogtools.trust.pins._Cover.environment`), and what its NODE_OPTIONS preloads, followed."""
    given = [path for path in _given_places(args, cwd) or () if _within(path, root) and os.path.isdir(path)]
    paths: list[Path] = []
    for directory in dict.fromkeys([cwd, root, *given[:MAX_GIVEN]]):
        listed = [name for name in _listing(directory) or () if ENV_FILE_NAME.fullmatch(name)]
        paths += [directory / name for name in dict.fromkeys([*_CASCADE, ".env.defaults", *sorted(listed)])]
    preloads = (_environment_preloads(path, cwd, root) for path in paths if path.is_file())
    return Code(manifests=tuple((path, "env") for path in paths)).plus(*preloads)


#: An environment file's name (``.env``, ``.env.staging``), not an example of one.
ENV_FILE_NAME = re.compile(r"\.env(?:\.(?!(?:example|sample|template|dist)$)[\w.-]{1,64})?")


def _bare_package(argv: t.Sequence[str], cwd: Path, root: Path, depth: int) -> Code:
    """What a package's program (``mocha``, ``cross-env ...``, ``node_modules/.bin/c8``) loads by convention."""
    if "{{" in argv[0]:
        return Code()
    name = os.path.basename(argv[0])
    if "/" in argv[0]:
        path = Path(argv[0]) if os.path.isabs(argv[0]) else cwd / argv[0]
        package = path.parent.name == ".bin" and path.parent.parent.name == "node_modules" and os.path.lexists(path)
        return _package_extras(name, path, argv[1:], cwd, root, depth) if package else Code()
    found, package = _found_program(argv[0], root)
    if not found or not package:
        return Code()
    return _package_extras(name, found, argv[1:], cwd, root, depth).plus(_style_code(name, argv[1:], cwd, root))


#: The programs that read style sheets, whose directives load JavaScript (less's and tailwind
#: 4's ``@plugin``, tailwind's ``@config``, stylus's ``use()``): those given them, and the
#: bundlers that reach them from the code they bundle (every style sheet under where they run).
STYLE_READERS = frozenset("lessc stylus postcss tailwindcss".split())
STYLE_BUNDLERS = frozenset("vite webpack webpack-cli".split())
STYLE_SUFFIXES = (".css", ".pcss", ".postcss", ".less", ".styl", ".stylus", ".scss", ".sass")
#: A style sheet's directive that loads JavaScript (group 2 or 4: what it names), and one that
#: imports another sheet (group 6).
STYLE_DIRECTIVE = re.compile(
    r"""(?<![\w-])@(plugin|config)\s+(?:url\(\s*)?(['"]?)([^'"\s;)]{1,300})\2|(?<![\w$.-])use\s*\(\s*(['"])([^'"\n]{1,300})\4"""
    r"""|(?<![\w-])@(?:import|use|forward|require)\s+(?:url\(\s*)?(?:\([\w, ]+\)\s*)?['"]([^'"\n]{1,300})['"]"""
)
#: The most style sheets read for one tool.
MAX_STYLE_SHEETS = 512


def _style_code(program: str, args: t.Sequence[str], cwd: Path, root: Path) -> Code:
    """What the style sheets a program reads load as code (:data:`STYLE_DIRECTIVE`): a file of the
    workspace, followed, or a package, pinned; the sheets themselves are its input, never
    pinned, so that an edit of one asks nothing unless it names other code. A program of
    :data:`STYLE_READERS` reads those it is given and what they import; one of
    :data:`STYLE_BUNDLERS`, every one under where it runs; past :data:`MAX_STYLE_SHEETS`,
    open (on the person's word)."""
    if program in STYLE_READERS:
        sheets = [path for path in named_files(args, cwd) if path.suffix in STYLE_SUFFIXES]
    elif program in STYLE_BUNDLERS and _within(cwd, root):
        walk = _directories_under(cwd, MAX_CONFIG_DIRECTORIES + 1, root)
        if walk.why or len(walk.found) > MAX_CONFIG_DIRECTORIES:
            why = f"{program} may load what the style sheets it bundles name, but " + (
                walk.why or f"they are in more than {MAX_CONFIG_DIRECTORIES} directories here"
            )
            return Code(open=((why, None),))
        listed = ((d, _listing(d) or ()) for d in [cwd, *walk.found])
        sheets = [d / name for d, names in listed for name in sorted(names) if name.endswith(STYLE_SUFFIXES)]
    else:
        return Code()
    code, seen = Code(), set()
    if program in STYLE_BUNDLERS and program != "vite":  # (webpack's inline loaders in what it bundles)
        code = code.plus(_inline_loaders(program, cwd, root))
    while sheets:
        sheet = sheets.pop(0)
        if sheet in seen or not sheet.is_file():
            continue
        seen.add(sheet)
        if len(seen) > MAX_STYLE_SHEETS or os.path.getsize(sheet) > MAX_SCANNED_BYTES:
            why = (
                f"{program} reads style sheets ({_shown(sheet, root)}) past what cogtools reads for the code they name"
            )
            return code.plus(Code(open=((why, None),)))
        text = _head(sheet).decode("utf-8", "replace")
        for match in itertools.islice(STYLE_DIRECTIVE.finditer(text), MAX_HOOKS):
            code = code.plus(_style_named(match, sheet, sheets, root))
    return code


#: A specifier of JavaScript that names loaders inline (webpack's ``"!!./inl-loader.js!./readme.txt"``).
INLINE_LOADERS = re.compile(r"""(['"])([-!]?!?[^'"\n!\s]+![^'"\n\s]+)\1""")
#: A loader's package by its name (webpack names loaders whole: ``css-loader``).
LOADER_NAME = re.compile(r"(?:@[\w.-]+/)?[\w.-]*loader[\w.-]*(?:/[\w./-]+)?")
#: The sources of a bundle read for inline loaders (past them, open on the person's word).
MAX_INLINE_SOURCES = 2048
INLINE_SUFFIXES = (*JAVASCRIPT, ".ts", ".tsx", ".mts", ".cts", ".vue", ".svelte")


def _inline_loaders(program: str, cwd: Path, root: Path) -> Code:
    """What the sources under where a bundler runs name as loaders inline (webpack's
    ``require("!!./inl-loader.js!./readme.txt")``): a loader of the workspace, followed, or a
    package, pinned; the sources themselves are its input (read, not pinned)."""
    walk = _directories_under(cwd, MAX_CONFIG_DIRECTORIES + 1, root)
    listed = ((d, _listing(d) or ()) for d in [cwd, *walk.found])
    sources = [d / name for d, names in listed for name in sorted(names) if name.endswith(INLINE_SUFFIXES)]
    if len(sources) > MAX_INLINE_SOURCES:
        why = f"{program} may run the loaders its sources name inline, in more than {MAX_INLINE_SOURCES} files here"
        return Code(open=((why, None),))
    code = Code()
    for source in sources:
        text = _head(source)
        if b"!" not in text:
            continue
        for match in itertools.islice(INLINE_LOADERS.finditer(text.decode("utf-8", "replace")), MAX_HOOKS):
            for loader in match.group(2).lstrip("-!").split("!")[:-1]:
                loader = loader.split("?")[0]
                if loader.startswith((".", "/")):
                    path = Path(os.path.normpath(source.parent / loader))
                    code = code.plus(Code((path,)), _javascript(path, root) if path.is_file() else Code())
                elif LOADER_NAME.fullmatch(loader):  # (a package: css-loader, @x/y-loader)
                    code = code.plus(_package(source, loader, root))
    return code


def _style_named(match: re.Match[str], sheet: Path, sheets: list[Path], root: Path) -> Code:
    """What a style sheet's directive (:data:`STYLE_DIRECTIVE`) names: another sheet it imports
    (put on ``sheets``, read in turn), a file of JavaScript, followed, or a package (less's
    ``@plugin "x"`` is less-plugin-x where that is installed), pinned."""
    named = match.group(3) or match.group(5) or match.group(6)
    if match.group(6):
        if named.startswith((".", "/")) or named.endswith(STYLE_SUFFIXES) and (sheet.parent / named).is_file():
            sheets.append(Path(os.path.normpath(sheet.parent / named)))
        elif PACKAGE_NAME.match(named) and not named.startswith(("http:", "https:", "data:")):
            # (a package's sheet, found in node_modules as the tool finds it: the package, pinned whole)
            name = "/".join(named.split("/")[: 2 if named.startswith("@") else 1])
            if node_finds(sheet.parent, name, _reach(root)) is not None:
                return _package(sheet, name, root)
        return Code()
    if named.startswith((".", "/")) or "/" not in named and Path(named).suffix in JAVASCRIPT:
        path = Path(os.path.normpath(sheet.parent / named))
        return Code((path,)).plus(_javascript(path, root) if path.is_file() else Code())
    prefixed = f"less-plugin-{named}"
    if sheet.suffix == ".less" and node_finds(sheet.parent, prefixed, _reach(root)) is not None:
        return _package(sheet, prefixed, root)
    return _package(sheet, named, root)


def _shell_code(words: t.Sequence[str]) -> str | None:
    """The text a shell is given to run by its arguments (``-c TEXT``, ``-lc TEXT``), or None."""
    for index, word in enumerate(words[:-1]):
        if re.fullmatch(r"-[A-Za-z]*c[A-Za-z]*", word):
            return words[index + 1]
        if not word.startswith("-"):
            return None
    return None


def _node_package_program(words: t.Sequence[str], cwd: Path, root: Path, depth: int) -> Code:
    """What a package's program node is given by its path (``node node_modules/mocha/bin/mocha.js``,
    ``node node_modules/.bin/jest``) loads by convention, as the bare program would."""
    script, rest, _ = _node_script(words, cwd)
    if script is None or "node_modules" not in script.parts:
        return Code()
    package = _package_root(Path(os.path.realpath(script)), script.parent) or _package_root(script, script.parent)
    if package is None:
        return Code()
    name = script.name if script.parent.name == ".bin" else package.name
    return js_tool_configuration(name, cwd, root, rest).plus(_package_extras(name, script, rest, cwd, root, depth))


#: A shell script's use of the words it is given (``"$@"``, ``$1``).
POSITIONAL = re.compile(r"\$(?:@|\*|[1-9]|\{[@*1-9]\})")


def _wrapped(script: Path, after: t.Sequence[str], cwd: Path, root: Path, depth: int) -> Code:
    """What a shell script that runs the words it is given (``exec "$@"``, ``node "$1"``) runs
    of those it is given by the command line (``after``), read as a command."""
    if not after or not os.path.isfile(script) or not POSITIONAL.search(_head(script).decode("utf-8", "replace")):
        return Code()
    given = named_files(after[:1], cwd)
    if given:  # (a script it gives its interpreter: `node "$1"`, read by its suffix)
        return Code((given[0],)).plus(script_code(given[0], [], cwd, root, depth + 1))
    return command_code(list(after), cwd, root, depth + 1)


#: Programs that read the files they are given as their input, compiled, bundled, linted,
#: formatted, never run: an edit of one is a day's work, not a change of the tool's code (what
#: they load as code, their configuration and plugins, is followed on its own).
READS_INPUT = frozenset(
    "webpack webpack-cli rollup rolldown vite esbuild tsup tsdown parcel babel swc postcss tsc sass lessc"
    " terser uglifyjs ncc microbundle unbuild prettier eslint stylelint markdownlint-cli2 cspell remark"
    " rehype retext html-validate oxlint biome textlint stylus"
    # (test runners: the tests they are given run, but as the tests they find do, they are the
    # agent's input, which a tool that runs them runs by its nature; their setup is followed)
    " mocha jest vitest ava jasmine playwright cypress tap".split()
)


def _named_code(argv: t.Sequence[str], cwd: Path, root: Path, depth: int, runs_js: bool = False) -> Code:
    """The files the words of a command line name: the script an interpreter is given is code,
    and what it loads (with tsx's, or ts-node's, tsconfig.json); with ``runs_js`` (a package's
    program that runs the JavaScript it is given, as nodemon or babel-node do), a JavaScript one
    too; another file named is pinned as it is (a program reads it), but nothing is followed."""
    code = Code()
    program = os.path.basename(argv[0])
    words = list(argv[1:])
    if program in NODES and program != "deno":
        script, words, inline = _node_script(words, cwd)
        if inline is not None:
            code = code.plus(_inline_code(inline, cwd, root))
        if script is not None:  # (node ., node scripts/h: found as node finds it)
            words = [str(script), *words]
    scripted = True  # (whether the first file named is the script the program runs)
    if program.startswith("python"):
        given = _python_script(words, cwd)
        scripted = given is not None and not given.is_dir()
        if given is not None and given.is_dir():  # (python DIR runs DIR/__main__.py, DIR first on sys.path)
            code = code.plus(Code((given / "__main__.py",)), python_tree(given, root, scan=True))
    if program in READS_INPUT:  # (what it is given is its input; what an option names, its code)
        return code.plus(_option_files(words, cwd, root))
    for index, path in enumerate(named_files(words, cwd)):
        code = code.plus(Code((path,)))
        if index > 0 or not scripted or not (_interprets(program) or runs_js and path.suffix in JAVASCRIPT):
            continue
        if program in SHELLS:  # (a wrapper runs the words it is given after it: `exec "$@"`)
            paths = [Path(w) if os.path.isabs(w) else cwd / w for w in words]
            code = code.plus(_wrapped(path, words[paths.index(path) + 1 :], cwd, root, depth))
        if path.suffix in JAVASCRIPT and (through_tsx(program, argv) or path.suffix in TS_SUFFIXES):
            # (node runs TypeScript through tsx, named or preloaded by NODE_OPTIONS from anywhere)
            code = code.plus(tsx_code(path, cwd, root, _tsconfig_flag(argv, cwd)))
        else:
            code = code.plus(script_code(path, argv[:1], cwd, root, depth))
    return code


#: The options that name a tool's input or output (``-o out.css``, ``--out-dir``, ``--entry``),
#: besides those :data:`INPUT_KEY` names (``--outDir``, ``--input``).
INPUT_OPTIONS = frozenset("-o -d -i --out --dir --ignore-path --cache-location --cache-file --output-file".split())


def _option_files(words: t.Sequence[str], cwd: Path, root: Path) -> Code:
    """The modules of the workspace an option names to a program that reads what it is given as
    its input (jest's ``--setupFilesAfterEnv ./s.cjs``, stylus's ``--use ./p.cjs``, tap's
    ``--before``): code it runs, pinned and followed; not what an option of input or output names
    (``-o dist/a.js``, ``--outDir``), nor a test (``--ci test/x.test.js``: a flag, and its input),
    nor a word no option precedes (its input)."""
    code = Code()
    for index, word in enumerate(words[:MAX_GIVEN_WORDS]):
        option, equals, value = word.partition("=")
        if not option.startswith("-") or option in INPUT_OPTIONS or INPUT_KEY.fullmatch(option.lstrip("-")):
            continue
        if not MODULE_OPTION.search(option):  # (a flag: `eslint --fix src/a.js` gives its input)
            continue
        value = value if equals else (words[index + 1] if index + 1 < len(words) else "")
        if not value or value.startswith("-"):
            continue
        for path in named_files([value], cwd):  # (a module, not a test: `--ci test/x.test.js` gives a test)
            if path.suffix in JAVASCRIPT and not TEST_LIKE.search(os.path.relpath(path, cwd)):
                code = code.plus(Code((path,)), _javascript(path, root))
    return code


#: What an option that names a module a tool loads is called by (``--setupFilesAfterEnv``,
#: ``--testSequencer``, ``--use``, ``--before``, ``-r``), not a flag (``--fix``, ``--ci``).
MODULE_OPTION = re.compile(
    r"(?i)setup|sequencer|processor|resolver|reporter|environment|runner|plugin|use|before|after|require|import"
    r"|loader|transform|preset|rule|format|filter|extend|config|snapshot|watch|extractor|module|parser|hook|global"
    r"|prettierpath|^-[rR]$"
)
#: A file that is a test (its name, or a directory of tests), which a test runner runs as its input.
TEST_LIKE = re.compile(r"(?:^|/)(?:__tests__|tests?|specs?|e2e|cypress)/|[.-](?:test|spec|e2e|cy)\.[^/]*$")


def _node_script(words: t.Sequence[str], cwd: Path) -> tuple[Path | None, list[str], str | None]:
    """The script node runs of ``words`` (its arguments), found as node finds it (a directory's
    main or index, a name without its suffix), the words after it, and the code node is given
    inline instead (``-e``, ``-p``)."""
    index = 0
    while index < len(words):
        word = words[index]
        name, equals, value = word.partition("=")
        if name in ("-e", "--eval", "-p", "--print"):
            return None, [], value if equals else (words[index + 1] if index + 1 < len(words) else "")
        if word == "--":
            index += 1
            break
        if not word.startswith("-"):
            break
        index += 2 if name in NODE_VALUES and not equals else 1
    if index >= len(words) or "{{" in words[index]:
        return None, list(words[index:]), None
    found = _resolve(Path(words[index]) if os.path.isabs(words[index]) else cwd / words[index])
    return found, list(words[index + 1 :]), None


#: python's options that take the next word as their value, and those that end its options
#: with code or a module to run (``-c``, ``-m``, alone or after others: ``-Bc``).
PYTHON_VALUES = frozenset("-W -X --check-hash-based-pycs".split())
PYTHON_CODE = re.compile(r"-[bBdEhiIOPqsSuvVx]*[cm]")


def _python_script(words: t.Sequence[str], cwd: Path) -> Path | None:
    """What python is given to run, a file or a directory (its ``__main__.py``); None when it runs
    a module, code it is given (``-m``, ``-c``), or its input."""
    index = 0
    while index < len(words) and words[index].startswith("-") and words[index] not in ("-", "--"):
        if PYTHON_CODE.match(words[index]):  # (code or a module, not a file: command_code's)
            return None
        index += 2 if words[index] in PYTHON_VALUES else 1
    if index < len(words) and words[index] == "--":
        index += 1
    if index >= len(words) or words[index] in ("", "-") or "{{" in words[index]:
        return None
    return Path(words[index]) if os.path.isabs(words[index]) else cwd / words[index]


def _inline_code(text: str, cwd: Path, root: Path) -> Code:
    """What code given to node inline (``node -e``) loads: the modules it imports by a relative
    name (from ``cwd``), followed, the packages it imports, pinned; one it names only when it runs,
    or a template's, is open."""
    if "{{" in text or "{%" in text:
        return Code(open=(("node -e runs code its arguments make, what it loads is not followed", None),))
    specifiers, computed = _specifiers(text)
    code = Code(open=tuple((f"node -e imports a module it names only when it runs ({c[:40]})", None) for c in computed))
    for specifier in specifiers:
        if specifier.startswith((".", "/")):
            found = _resolve(Path(specifier) if os.path.isabs(specifier) else cwd / specifier)
            code = code.plus(Code((found,)).plus(_javascript(found, root)) if found is not None else Code())
        elif not specifier.startswith("node:") and specifier.split("/")[0] not in NODE_BUILTINS:
            code = code.plus(_package(cwd / "node", specifier, root))
    return code


def _interprets(program: str) -> bool:
    """Whether ``program`` runs the script it is given (a shell, python, node)."""
    return program in SHELLS or program in NODES or program.startswith("python")


#: node's options that load a module before the script, and those that read an environment file
#: (whose NODE_OPTIONS can preload anything).
PRELOADS = frozenset("--import --require -r --loader --experimental-loader --test-reporter".split())
#: The reporters node's test runner has built in (``--test-reporter=spec``), no module to load.
TEST_REPORTERS = frozenset("spec tap dot junit lcov".split())
ENV_FILES = frozenset("--env-file --env-file-if-exists".split())
#: node's options that take the next word as their value.
NODE_VALUES = (
    PRELOADS | ENV_FILES | frozenset("-e --eval -p --print --input-type -C --conditions --title --tsconfig".split())
)
#: The TypeScript files an import of a JavaScript file's name means (tsx, TypeScript's bundlers).
TS_FOR_JS = {".js": (".ts", ".tsx"), ".mjs": (".mts",), ".cjs": (".cts",), ".jsx": (".tsx",)}
#: TypeScript's suffixes, which node runs through tsx where it cannot strip types itself.
TS_SUFFIXES = (".ts", ".mts", ".cts", ".tsx")


def _node_flags(words: t.Sequence[str], cwd: Path, root: Path, depth: int = 0) -> Code:
    """What node's options make it load besides the script: a module it preloads (a file of the
    workspace and what it imports, or a package by its name, pinned whole), the environment file
    it reads (named even when missing); ``--test`` with no file runs the test files it finds,
    which no pin lists."""
    code = Code()
    for index, word in enumerate(words):
        name, equals, value = word.partition("=")
        if name not in PRELOADS and name not in ENV_FILES:
            continue
        value = value if equals else (words[index + 1] if index + 1 < len(words) else "")
        if not value or "{{" in value or name == "--test-reporter" and value in TEST_REPORTERS:
            continue
        if name in ENV_FILES:
            env_file = Path(value) if os.path.isabs(value) else cwd / value
            code = code.plus(Code((env_file,)))
            if depth < 2:  # (its NODE_OPTIONS preload too)
                code = code.plus(_environment_preloads(env_file, cwd, root, depth + 1))
        elif value.startswith((".", "/")):
            found = _resolve(Path(value) if os.path.isabs(value) else cwd / value)
            code = code.plus(_preloaded(found, root) if found is not None else Code())
        elif not value.startswith("node:") and value.split("/")[0] not in NODE_BUILTINS:
            code = code.plus(_package(cwd / "node", value, root))  # (found as node finds it from cwd)
    if "--test" in words and not named_files([w for w in words if not w.startswith("-")], cwd):
        why = "node --test runs the test files it finds, which no pin lists (declare them in `code:`)"
        code = code.plus(Code(open=((why, None),)))
    return code


def tsx_code(script: Path, cwd: Path, root: Path, chosen: Path | None = None) -> Code:
    """What tsx (or ts-node) runs of a script: the tsconfig.json it reads, found from the
    script's directory and from where it runs (or the one it is told, ``chosen``), and the
    modules the script imports, found as tsx finds them (through ``paths`` and ``baseUrl``, an
    automatic JSX runtime's package)."""
    views = [tsconfig_view(script.parent, root), tsconfig_view(cwd, root)]
    if chosen is not None:
        views = [tsconfig_view(cwd, root, chosen)]
    return Code().plus(*(view.code for view in views), _javascript(script, root, views))


def _tsconfig_flag(argv: t.Sequence[str], cwd: Path) -> Path | None:
    """The tsconfig.json tsx is told to read (``--tsconfig FILE``), or None."""
    for index, word in enumerate(argv):
        name, equals, value = word.partition("=")
        if name == "--tsconfig":
            value = value if equals else (argv[index + 1] if index + 1 < len(argv) else "")
            if value and "{{" not in value and "\0" not in value:
                return Path(value) if os.path.isabs(value) else cwd / value
    return None


def through_tsx(program: str, argv: t.Sequence[str]) -> bool:
    """Whether a command runs its script through tsx or ts-node (which read tsconfig.json)."""
    named = ("tsx", "ts-node")
    return program in named or any(
        part in named or part.startswith(("tsx/", "ts-node/")) or "/tsx/" in part or "/ts-node/" in part
        for word in argv
        for part in (word.partition("=")[2] or word,)
    )


#: The most tsconfig.json files read through ``extends``, all chains together.
MAX_EXTENDS = 16
#: The most ``paths`` patterns, and targets of each, read of a tsconfig.json (TypeScript's own
#: templates give one or two targets).
MAX_PATHS = 256
MAX_TARGETS = 16


class TsView(t.NamedTuple):
    """What tsx (or ts-node) reads of a tsconfig.json and its ``extends``: the files (the nearest
    up to the workspace root, each on the way named even when missing, those it extends, a
    file or a package's), where its ``paths`` or ``baseUrl`` send an import by name, and the
    package an automatic JSX runtime is imported from."""

    code: Code = Code()
    #: ``paths``: each pattern and its targets, absolute (a ``*`` kept where it is).
    paths: tuple[tuple[str, tuple[str, ...]], ...] = ()
    base_url: str | None = None
    #: ``jsx``, lowercased ("react-jsx", "react-jsxdev": an automatic runtime), and ``jsxImportSource``.
    jsx: str = ""
    jsx_source: str = "react"

    def mapped(self, specifier: str) -> list[Path]:
        """The files tsx tries for an import by name before node's own resolution (as
        TypeScript's ``paths`` match: the exact pattern, else the longest prefix of one with a
        ``*``, else ``baseUrl``)."""
        found = _pattern_match((pattern for pattern, _ in self.paths), specifier)
        if found is not None:
            targets = dict(self.paths)[found[0]]
            return [Path(t if found[0] == specifier else t.replace("*", found[1], 1)) for t in targets]
        return [Path(self.base_url) / specifier] if self.base_url else []


def tsconfig_view(directory: Path, root: Path, chosen: Path | None = None) -> TsView:
    """The tsconfig.json tsx reads for a script in ``directory`` (or the one it is told,
    ``chosen``: ``--tsconfig``), and what it says of how modules are found (:class:`TsView`)."""
    code = Code()
    found = chosen
    if chosen is not None:
        code = Code((chosen,))
        found = chosen if chosen.is_file() else None
    else:
        for place in _up_to_reach(directory, root):
            code = code.plus(Code((place / "tsconfig.json",)))
            if (place / "tsconfig.json").is_file():
                found = place / "tsconfig.json"
                break
    # each file read, its options winning over those of what it extends, and a later entry of an
    # ``extends`` list (with what that extends in turn) over an earlier one: depth first
    ranked: list[tuple[Path, dict[str, t.Any]]] = []
    stack = [found] if found is not None else []
    while stack and len(ranked) < MAX_EXTENDS:
        here = stack.pop()
        if any(here == seen for seen, _ in ranked):
            continue
        data = _jsonc(here)
        options = data.get("compilerOptions")
        ranked.append((here, options if isinstance(options, dict) else {}))
        if data.get("ts-node") is not None:  # (ts-node's own options: what it `require`s first, its compiler)
            code = code.plus(_data_code(data["ts-node"], here.parent, root))
        extends = data.get("extends")
        for entry in extends[:MAX_EXTENDS] if isinstance(extends, list) else [extends]:
            if not isinstance(entry, str) or not entry or "\0" in entry:
                continue
            if entry.startswith((".", "/")):
                targets = _extended_path(Path(entry) if os.path.isabs(entry) else here.parent / entry)
            else:
                code = code.plus(_package(here, entry, root))
                targets = _extended_file(here, entry, root)
            code = code.plus(Code(tuple(targets)))
            stack += [target for target in targets if target.is_file()][:1]
    return _options(code, ranked)


def _extended_path(path: Path) -> list[Path]:
    """What TypeScript takes for a relative ``extends``: the file, with .json, or a directory's
    tsconfig.json (``"extends": ".."``); each named, the first that is there followed."""
    return [path, path.with_name(path.name + ".json"), path / "tsconfig.json"]


def _options(code: Code, ranked: list[tuple[Path, dict[str, t.Any]]]) -> TsView:
    """The :class:`TsView` of tsconfig files' ``compilerOptions``, the first of ``ranked`` to
    set one winning; ``baseUrl`` is relative to the file that sets it, ``paths`` to ``baseUrl``
    or else to the file that sets them (``${configDir}``: the directory of the tsconfig.json read
    first)."""

    def first(name: str, kind: type) -> tuple[Path, t.Any] | None:
        return next(((path, o[name]) for path, o in ranked if isinstance(o.get(name), kind)), None)

    def place(directory: Path, value: str) -> str | None:
        if "\0" in value:
            return None
        value = value.replace("${configDir}", str(ranked[0][0].parent))
        return os.path.normpath(os.path.join(directory, value))

    base = first("baseUrl", str)
    base_url = place(base[0].parent, base[1]) if base else None
    paths: list[tuple[str, tuple[str, ...]]] = []
    if (mapping := first("paths", dict)) is not None:
        start = base_url or str(mapping[0].parent)
        for pattern, targets in list(mapping[1].items())[:MAX_PATHS]:
            if isinstance(pattern, str) and isinstance(targets, list):
                kept = [place(Path(start), x) for x in targets[:MAX_TARGETS] if isinstance(x, str)]
                paths.append((pattern, tuple(x for x in kept if x is not None)))
    jsx, source = first("jsx", str), first("jsxImportSource", str)
    return TsView(
        code, tuple(paths), base_url, jsx[1].lower() if jsx else "", source[1] if source and source[1] else "react"
    )


def _extended_file(here: Path, entry: str, root: Path) -> list[Path]:
    """The tsconfig files a package's ``extends`` entry may name, found as TypeScript finds them
    from ``here`` (``@tsconfig/node20``: what its package.json ``exports`` or ``tsconfig`` say,
    else its tsconfig.json; ``pkg/base``: that file, with .json, or that directory's
    tsconfig.json)."""
    name = _package_named(entry)
    package = node_finds(here.parent, name, _reach(root)) if name else None
    if name is None or package is None:
        return []
    sub = entry[len(name) :].lstrip("/")
    manifest = _manifest(package / "package.json")
    exported = _exported(manifest.get("exports"), f"./{sub}" if sub else ".")
    if sub:
        candidates = [package / sub, package / (sub + ".json"), package / sub / "tsconfig.json"]
    else:
        field = manifest.get("tsconfig")
        candidates = [*([package / field] if isinstance(field, str) and field else []), package / "tsconfig.json"]
    return [package / target for target in exported if "\0" not in target] + candidates


def _exported(exports: t.Any, subpath: str) -> list[str]:
    """The files a package.json's ``exports`` gives for ``subpath``, under any condition."""
    if isinstance(exports, str) or isinstance(exports, dict) and not any(k.startswith(".") for k in exports):
        exports = {".": exports}
    if not isinstance(exports, dict):
        return []
    return _strings_in(exports.get(subpath), MAX_EXTENDS)


def _strings_in(value: t.Any, limit: int) -> list[str]:
    """The strings of a JSON value (in its objects' values and its lists, at any depth), at most
    ``limit`` of them, and as many of each object's or list's members."""
    found: list[str] = []
    pending, seen = [value], 0
    while pending and len(found) < limit and seen < 8 * limit:
        item = pending.pop()
        seen += 1
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            pending += list(item.values())[:limit]
        elif isinstance(item, list):
            pending += item[:limit]
    return found


def _preloaded(path: Path, root: Path) -> Code:
    """A module node loads before the script (``--import``): one of an installed package (tsx's
    loader, where node cannot strip types) is that package, pinned whole as an import of it is;
    another is the workspace's file, and what it loads."""
    package = _package_root(path, root)
    if package is not None and (package / "package.json").is_file():
        return _installed_package(package, root, set())
    return Code((path,)).plus(_javascript(path, root))


#: The configuration files JavaScript tools load as code (and the plugins these import), looked
#: for from where they run up to the workspace root, nearest first, each name in that order.
CONFIG_SUFFIXES = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts")
#: The command lines of unified-engine (``.remarkrc``, package.json's ``remarkConfig``).
UNIFIED = ("remark", "rehype", "retext")
JS_CONFIGS: dict[str, tuple[str, ...]] = {
    "eslint": (
        *(f"eslint.config{s}" for s in CONFIG_SUFFIXES),
        *(f".eslintrc{s}" for s in (".js", ".cjs", ".yaml", ".yml", ".json")),
    ),
    "prettier": (
        *(f"prettier.config{s}" for s in CONFIG_SUFFIXES),
        *(f".prettierrc{s}" for s in ("", ".json", ".yaml", ".yml", ".json5", ".toml", *CONFIG_SUFFIXES)),
        "package.yaml",  # (its `prettier:` key, as package.json's; prettier's config-searcher.js)
    ),
    "vitest": (
        *(f"vitest.config{s}" for s in CONFIG_SUFFIXES),
        *(f"vite.config{s}" for s in CONFIG_SUFFIXES),
        # (the workspace file vitest 3 reads beside its configuration, which lists more)
        *(f"vitest.{kind}{s}" for kind in ("workspace", "projects") for s in (*CONFIG_SUFFIXES, ".json")),
    ),
    "vite": tuple(f"vite.config{s}" for s in CONFIG_SUFFIXES),
    "jest": (*(f"jest.config{s}" for s in CONFIG_SUFFIXES), "jest.config.json"),
    "webpack": tuple(f"webpack.config{s}" for s in CONFIG_SUFFIXES),
    "rollup": tuple(f"rollup.config{s}" for s in CONFIG_SUFFIXES),
    "stylelint": (
        *(f"stylelint.config{s}" for s in CONFIG_SUFFIXES),
        *(f".stylelintrc{s}" for s in ("", ".json", ".yaml", ".yml", *CONFIG_SUFFIXES)),
    ),
    "babel": (
        *(f"babel.config{s}" for s in (*CONFIG_SUFFIXES, ".json")),
        *(f".babelrc{s}" for s in ("", ".json", *CONFIG_SUFFIXES)),
    ),
    "playwright": tuple(f"playwright.config{s}" for s in CONFIG_SUFFIXES),
    "postcss": (
        *(f"postcss.config{s}" for s in CONFIG_SUFFIXES),
        *(f".postcssrc{s}" for s in ("", ".json", ".yaml", ".yml", *CONFIG_SUFFIXES)),
    ),
    "tailwind": tuple(f"tailwind.config{s}" for s in CONFIG_SUFFIXES),
    # (in the directory of each file it lints too: its README's "Configuration")
    "markdownlint-cli2": (
        *(f".markdownlint-cli2{s}" for s in (".jsonc", ".yaml", ".cjs", ".mjs")),
        *(f".markdownlint{s}" for s in (".jsonc", ".json", ".yaml", ".yml", ".cjs", ".mjs")),
    ),
    # (cspell-lib's configLocations.js, in the directory of each file it checks too)
    "cspell": (
        *(f"{dot}{name}.json{c}" for dot in ("", ".") for name in ("cspell", "cSpell") for c in ("", "c")),
        *(f".vscode/{dot}{name}.json" for dot in ("", ".") for name in ("cspell", "cSpell")),
        *(f"{d}{dot}cspell{s}" for d in ("", ".config/") for dot in ("", ".") for s in (".yaml", ".yml")),
        *(
            f"{d}{dot}cspell.config{s}"
            for d in ("", ".config/")
            for dot in ("", ".")
            for s in (".json", ".jsonc", ".yaml", ".yml", ".toml", *CONFIG_SUFFIXES)
        ),
        *(f".config/{dot}{name}.json{c}" for dot in ("", ".") for name in ("cspell", "cSpell") for c in ("", "c")),
    ),
    # (unified-engine's: each file's nearest .NAMErc, as remark-cli, rehype-cli and retext-cli run it)
    **{name: tuple(f".{name}rc{s}" for s in ("", ".json", ".cjs", ".mjs", ".js", ".yaml", ".yml")) for name in UNIFIED},
    # (swc's, as @swc/jest and swc-loader take it from where they run, and beside each file)
    "swc": (".swcrc",),
    # (knip's own, as its dist/constants.js KNIP_CONFIG_LOCATIONS has them)
    "knip": (
        *(f"{s}knip.json{c}" for s in ("", ".") for c in ("", "c")),
        "knip.ts",
        "knip.js",
        "knip.config.ts",
        "knip.config.js",
    ),
}
#: Known tools that load the installed packages named after them (:func:`_named_after`).
AUTOLOADS = frozenset(("prettier", *UNIFIED))
#: Tools that load the configurations of the project's other tools (knip's plugins import
#: jest.config.js, playwright.config.ts... of each tool the project depends on, to find their
#: entry files): each tool's configuration cogtools knows, and what the tool's own table of them
#: names (:func:`_others_configuration`).
READS_OTHERS = frozenset(("knip",))


#: Programs that load environment files into the command they run (whose NODE_OPTIONS can
#: preload any code), the files each reads from where it runs unless told, and its options that
#: name another.
_CASCADE = (
    ".env",
    ".env.local",
    *(f".env.{e}{s}" for e in ("development", "production", "test") for s in ("", ".local")),
)
ENV_LOADERS: dict[str, tuple[str, ...]] = {
    "dotenv": _CASCADE,
    "dotenvx": _CASCADE,  # (and what --convention nextjs reads)
    "env-cmd": (".env", ".env-cmdrc", ".env-cmdrc.json", ".env-cmdrc.js", ".env-cmdrc.cjs"),
}


class LoaderOptions(t.NamedTuple):
    """An environment loader's options: those naming a file it loads, setting a variable
    (``NAME=VALUE``), naming an environment whose files it loads too (dotenv's ``-c ENV``), or
    taking another value."""

    files: frozenset[str]
    variables: frozenset[str] = frozenset()
    cascade: frozenset[str] = frozenset()
    values: frozenset[str] = frozenset()


LOADER_OPTIONS = {
    "dotenv": LoaderOptions(frozenset({"-e"}), frozenset({"-v"}), frozenset({"-c"}), frozenset({"-p"})),
    "dotenvx": LoaderOptions(
        frozenset({"-f", "--env-file"}), frozenset({"-e", "--env"}), values=frozenset({"--convention", "-fk"})
    ),
    "env-cmd": LoaderOptions(
        frozenset({"-f", "--file", "-r", "--rc-file"}), values=frozenset({"-e", "--environments"})
    ),
}


class LoaderCall(t.NamedTuple):
    """What an environment loader's command line says: the files it loads, the NODE_OPTIONS it
    sets itself, and the command it runs (``shell``: as shell text)."""

    files: list[str]
    node_options: list[str]
    command: list[str]
    shell: bool


def _loader_call(program: str, args: t.Sequence[str]) -> LoaderCall:
    """How an environment loader reads its command line (:data:`LOADER_OPTIONS`)."""
    options = LOADER_OPTIONS[program]
    words = list(args[1:] if program == "dotenvx" and args[:1] == ["run"] else args)
    named, cascades, node_options, index = list(ENV_LOADERS[program]), [], [], 0
    while index < len(words) and words[index].startswith("-") and words[index] != "--":
        name, equals, value = words[index].partition("=")
        takes = name in options.files | options.variables | options.cascade | options.values
        following = words[index + 1] if index + 1 < len(words) else ""
        if takes and not equals and not (name in options.cascade and following.startswith("-")):
            value, index = following, index + 1  # (dotenv's -c takes its environment or none)
        index += 1
        if name in options.files:
            named.append(value)
        elif name in options.cascade:
            cascades.append(value)
        elif name in options.variables and value.startswith("NODE_OPTIONS="):
            node_options += _option_words(value.partition("=")[2])
    # (dotenv -c ENV: each file, and its .local, .ENV and .ENV.local)
    endings = [".local", *(f".{c}{s}" for c in cascades if c for s in ("", ".local"))] if cascades else []
    named += [f"{name}{ending}" for name in list(named) for ending in endings]
    rest = words[index + (index < len(words) and words[index] == "--") :]
    return LoaderCall(named, node_options, rest, "--use-shell" in words[:index])


def _environment_loaded(program: str, args: t.Sequence[str], cwd: Path, root: Path) -> Code:
    """What an environment loader (``dotenv -- node x.js``, env-cmd, ``dotenvx run``) loads: its
    files, named even when missing, and what their NODE_OPTIONS, or one it sets itself, preload;
    an rc file of JavaScript, followed; and the command it runs, read as a command."""
    call = _loader_call(program, args)
    code = _node_flags(call.node_options, cwd, root)
    for name in call.files[:MAX_HOOKS]:
        if not name or "{{" in name or "\0" in name:
            continue
        path = Path(name) if os.path.isabs(name) else cwd / name
        preloads = _environment_preloads(path, cwd, root)
        code = code.plus(Code((path,)), preloads, _javascript(path, root) if path.suffix in JAVASCRIPT else Code())
    if call.shell and call.command:  # (env-cmd --use-shell: the command is shell text)
        return code.plus(_shell_text(" ".join(call.command), None, cwd, root, 1, set()))
    return code.plus(command_code(call.command, cwd, root, 1) if call.command else Code())


def js_tool_configuration(program: str, cwd: Path, root: Path, args: t.Sequence[str] = ()) -> Code:
    """What a JavaScript tool (eslint, prettier, vitest, jest...) loads as code from where it runs:
    its configuration file, the nearest from ``cwd`` up to the workspace root, and what that
    imports (a plugin package, pinned as one), followed; every name in each directory on the
    way is named even when missing, so that one written later, nearer, is a change. For an
    environment loader, the files it loads (given its arguments, ``args``)."""
    if program in ENV_LOADERS:
        return _environment_loaded(program, args, cwd, root)
    code = _own_configuration(program, cwd, root, args)
    if program.removesuffix(".js") in JS_CONFIGS:
        code = code.plus(_told_configuration(args, cwd, root))
    if program in AUTOLOADS:  # (prettier 2 loads each prettier-plugin-* installed; remark remark-x as x)
        code = code.plus(_named_after([program], cwd, root))
    companions = COMPANIONS.get(program.removesuffix(".js"), ())
    code = code.plus(*(_own_configuration(c, cwd, root, (), through=program) for c in companions))
    return code.plus(_others_configuration(cwd, root, args)) if program in READS_OTHERS else code


def _others_configuration(cwd: Path, root: Path, args: t.Sequence[str] = ()) -> Code:
    """What a tool of :data:`READS_OTHERS` (knip) loads: each known tool's configuration, the
    nearest from ``cwd`` up (it imports the file, as the tool would), and each configuration its
    plugins load, as the installed knip's own table of them names them (or, without it, the
    conventional configuration of each package the nearest package.json depends on). Run at a
    workspace root, or told another directory or workspace, it is open."""
    code = Code().plus(*(_own_configuration(tool, cwd, root, (), each_file=False) for tool in JS_CONFIGS))
    manifest = next((d / "package.json" for d in _up_to_reach(cwd, root) if (d / "package.json").is_file()), None)
    data = _manifest(manifest) if manifest is not None else {}
    found, package = _found_program("knip", root)
    knip = _bin_package(found)[1] if found is not None and package else None
    table = _knip_plugins(str(knip), _stamp(knip / "dist" / "plugins")) if knip is not None else None
    if table is not None:
        paths = [cwd / name for name in table.names]
        code = code.plus(Code(tuple(paths)), *(_config_code(path, root) for path in paths if path.is_file()))
        # (one of JSON, tsconfig.json, is data to knip, which loads it as such: what it names is
        # followed, its other edits ask nothing)
        code = code.plus(Code(manifests=tuple((path, "data") for path in paths if path.suffix == ".json")))
        code = code.plus(*(_conventional_configuration([stem], cwd, root, 1) for stem in table.stems))
    else:
        code = code.plus(_dependencies_configuration(data, cwd, root))
    moved = any(word.partition("=")[0] in ("--directory", "--workspace", "-W") for word in args)
    if moved or (cwd / "pnpm-workspace.yaml").is_file() or "workspaces" in data:
        why = "it reads the configuration of each workspace package's tools, which cogtools does not follow"
        code = code.plus(Code(open=((why, None),)))
    return code


def _dependencies_configuration(data: dict[str, t.Any], cwd: Path, root: Path) -> Code:
    """The conventional configuration of each package a package.json (``data``) depends on, by
    its name and its scope's (``@commitlint/cli``: cli, commitlint); past 64 a field, open."""
    fields = [data.get(f) for f in ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies")]
    listed = [list(field) for field in fields if isinstance(field, dict)]
    if any(len(names) > MAX_GIVEN_WORDS for names in listed):
        return Code(open=((f"its package.json lists more than {MAX_GIVEN_WORDS} packages a field", None),))
    names = [part.lstrip("@") for names in listed for name in names for part in name.split("/")]
    stems = [name for name in dict.fromkeys(names) if name not in JS_CONFIGS and PACKAGE_NAME.fullmatch(name)]
    return Code().plus(*(_conventional_configuration([stem], cwd, root, 1) for stem in stems))


class KnipPlugins(t.NamedTuple):
    """The configurations knip's plugins load, from its table: names from where it runs, and the
    stems of those named by the conventions of cosmiconfig, lilconfig and c12."""

    names: tuple[str, ...]
    stems: tuple[str, ...]


#: A knip plugin's ``const config = [...]`` (dist/plugins/NAME/index.js).
KNIP_CONFIG = re.compile(r"^const config = \[(.*?)\];", re.MULTILINE | re.DOTALL)
#: A helper of its table that names a tool's configuration by a convention (``...toCosmiconfig('x')``).
KNIP_CONVENTION = re.compile(r"\.\.\.to(Cosmiconfig|Lilconfig|C12config|Unconfig)\(\s*['\"]([^'\"]{1,100})['\"]")
#: The endings unconfig gives a name (``...toUnconfig('uno.config')``).
UNCONFIG_SUFFIXES = (".json", ".ts", ".mts", ".cts", ".js", ".mjs", ".cjs")


def _stamp(path: Path) -> int:
    """When ``path`` last changed (0: it is not there): what a cache of what it holds is kept by."""
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0


@functools.lru_cache(maxsize=8)
def _knip_plugins(package: str, stamp: int) -> KnipPlugins | None:
    """The configurations the knip installed at ``package`` loads by its plugins
    (:func:`knip_plugin` of each); None when its table cannot be read so. (``stamp``: its
    plugins' directory's, so that one installed again is read again.)"""
    plugins = Path(package) / "dist" / "plugins"
    try:
        entries = sorted(os.scandir(plugins), key=lambda entry: entry.name)[:1024]
    except OSError:
        return None
    names: list[str] = []
    stems: list[str] = []
    for entry in entries:
        plugin = knip_plugin(_head(Path(entry.path) / "index.js").decode("utf-8", "replace"))
        names += plugin.names
        stems += plugin.stems
    if not names and not stems:
        return None
    return KnipPlugins(tuple(dict.fromkeys(names)), tuple(dict.fromkeys(stems)))


def knip_plugin(text: str) -> KnipPlugins:
    """What one knip plugin (the text of its ``dist/plugins/NAME/index.js``) says its tool loads:
    what its ``config`` names, its patterns' braces expanded (``?(.)x``: ``x`` and ``.x``), globs
    and package.json left out, and the stems it names by a convention (cosmiconfig's...)."""
    table = KNIP_CONFIG.search(text)
    if table is None:
        return KnipPlugins((), ())
    names: list[str] = []
    stems: list[str] = []
    for kind, name in KNIP_CONVENTION.findall(table.group(1)):
        if kind == "Unconfig":
            names += [f"{name}{suffix}" for suffix in UNCONFIG_SUFFIXES]
        else:
            stems.append(name)
    for pattern in _literals(KNIP_CONVENTION.sub("", table.group(1))):
        pattern = pattern.replace("?(.)", "{,.}")
        names += [form for form in _braces(pattern) if not any(c in form for c in "*?[(") and form != "package.json"]
    # (a file's name: not an ending a plugin lists besides, `additionalExtensions: ['mts', 'yml']`)
    names = [n for n in names if ("." in n or "/" in n) and ".." not in n.split("/") and not n.startswith("/")]
    return KnipPlugins(tuple(dict.fromkeys(names)), tuple(dict.fromkeys(stems)))


#: A knip plugin's ``const enablers = [...]``: the packages whose presence turns it on.
KNIP_ENABLERS = re.compile(r"^const enablers = \[(.*?)\];", re.MULTILINE | re.DOTALL)
#: An enabler given as a pattern of a scope's packages (``/^@nrwl\//``, ``/^@nestjs\/.*/``).
KNIP_SCOPE = re.compile(r"/\^(@[a-z0-9][\w.-]*)\\/(?:\.\*)?/")


def knip_enablers(text: str) -> list[str]:
    """The packages that enable a knip plugin (the text of its index.js), a scope's as
    ``@scope/``; none where it is enabled by something else (a file)."""
    found = KNIP_ENABLERS.search(text)
    if found is None:
        return []
    listed = found.group(1)
    scopes = [f"{scope}/" for scope in KNIP_SCOPE.findall(listed)]
    return [*(name for name in _literals(KNIP_SCOPE.sub("", listed)) if PACKAGE_NAME.fullmatch(name)), *scopes]


#: The options by which a JavaScript tool is told a configuration file to load, and those that
#: name what it loads besides (a plugin, a module to require first: a file, or a package).
CONFIG_OPTIONS = frozenset("-c --config --config-file --options --tsconfig -p --project --extends".split())
LOAD_OPTIONS = frozenset(
    "--plugin --require -r --import --loader --setup --setup-files --rulesdir --reporter -R --file --ui -u"
    # (eslint's and stylelint's formatters, eslint 8's parser, jest's environment and runners)
    " -f --format --formatter --custom-formatter --custom-syntax --parser --env --testEnvironment --testRunner"
    " --runner --globalSetup --globalTeardown --setupFiles --setupFilesAfterEach --resolver --reporters"
    # (vitest's environment; remark's, postcss-cli's and stylus's --use; textlint's rules and
    # presets; babel's plugins and presets, a list)
    " --environment --use --rule --rules --preset --presets --plugins".split()
)
#: The options by which a tool is told what to give node (mocha's ``-n require=./x.cjs``, ava's
#: ``--node-arguments="--require ./x.cjs"``).
NODE_ARG_OPTIONS = frozenset("-n --node-option --node-arguments --node-arg".split())
#: The options by which a tool is told another directory to load its plugins from (eslint 8).
PLUGIN_DIRECTORY_OPTIONS = frozenset(["--resolve-plugins-relative-to"])


def _plugins_from(option: str, value: str, cwd: Path, root: Path) -> Code:
    """A tool told to load its plugins from another directory's node_modules (eslint 8's
    ``--resolve-plugins-relative-to DIR``): open until that directory is declared."""
    where = os.path.relpath(cwd / value, root) if value else "?"
    why = f"it loads its plugins from where {option} says ({where}), which cogtools does not follow"
    return Code(open=((why, where if not where.startswith("..") else None),))


#: The name of a configuration file, by the conventions (``postcss.config.js``, ``.babelrc``).
CONFIG_NAME = re.compile(r"(?:\.config|rc)(?:\.[\w]+)?$|^\.\w+rc")


def _inline_configuration(value: str, cwd: Path, root: Path) -> Code:
    """A configuration a tool is given as JSON on its command line: what it names, as a file's."""
    try:
        data = json.loads(value)
    except (ValueError, RecursionError):
        return Code(open=((f"it is given a configuration cogtools cannot read ({value[:40]})", None),))
    return _data_code(_without_input_data(data), cwd, root)


def _told_configuration(args: t.Sequence[str], cwd: Path, root: Path) -> Code:
    """What a JavaScript tool's options tell it to load (``--config eslint.ci.mjs``, ``-c
    vitest.ci.ts``, ``--plugin ./local.mjs``, ``-r ./hook.cjs``): a configuration file, named and
    followed as its own configuration is; a file or package, followed or pinned."""
    code = Code()
    for index, word in enumerate(args[:MAX_GIVEN_WORDS]):
        name, equals, value = word.partition("=")
        if name in NODE_ARG_OPTIONS:  # (mocha's -n require=./x.cjs, ava's --node-arguments="--require ./x.cjs")
            given = value if equals else " ".join(args[index + 1 : index + 2])
            code = code.plus(*(_string_code(word, cwd, root, [cwd], None, 0) for word in given.split()))
            code = code.plus(_node_flags(given.split(), cwd, root))
            continue
        if name in PLUGIN_DIRECTORY_OPTIONS:  # (its plugins, from that directory's node_modules)
            code = code.plus(_plugins_from(name, value if equals else " ".join(args[index + 1 : index + 2]), cwd, root))
            continue
        if name not in CONFIG_OPTIONS | LOAD_OPTIONS and word[:2] in CONFIG_OPTIONS | LOAD_OPTIONS:
            name, equals, value = word[:2], "=", word[2:]  # (a short option and its value: -rtools/hook.js)
        if name not in CONFIG_OPTIONS | LOAD_OPTIONS:
            continue
        value = value if equals else (args[index + 1] if index + 1 < len(args) else "")
        if not value or value.startswith("-") or "{{" in value or "\0" in value:
            continue
        if name == "-p" and not value.endswith(".json"):  # (tsc's -p tsconfig.app.json; rollup's -p ./plugin.mjs)
            code = code.plus(_data_code([value], cwd, root) if Path(value).suffix in JAVASCRIPT else Code())
            continue
        listed = (
            name in LOAD_OPTIONS and "," in value and not value.lstrip().startswith(("{", "["))
        )  # (babel's --plugins a,b)
        code = code.plus(*(_told(name, part, cwd, root) for part in (value.split(",") if listed else [value])))
    return code


def _told(option: str, value: str, cwd: Path, root: Path) -> Code:
    """What one option of :func:`_told_configuration` tells a tool to load."""
    path = Path(value) if os.path.isabs(value) else cwd / value
    if option in CONFIG_OPTIONS and value.lstrip().startswith("{"):  # (jest's --config '{"setupFiles": [...]}')
        return _inline_configuration(value, cwd, root)
    if option in CONFIG_OPTIONS and (path.is_file() or path.suffix in CONVENTIONAL_SUFFIXES[1:]):
        # (what it names, from its own directory, as jest's rootDir and imports are, and from
        # where the tool runs, as mocha's require is)
        bases = dict.fromkeys((path.parent, cwd)) if path.is_file() else {}
        return Code((path,)).plus(*(_config_code(path, root, base) for base in bases))
    if option in CONFIG_OPTIONS and path.is_dir() and _within(path, root):
        # (postcss-cli's --config DIR: the configuration it finds there, by any tool's names)
        configs = [path / name for name in sorted(_listing(path) or ()) if CONFIG_NAME.search(name)][:MAX_HOOKS]
        configs = [config for config in configs if config.is_file()]
        return Code(tuple(configs)).plus(*(_config_code(config, root) for config in configs))
    if option in LOAD_OPTIONS and path.is_dir() and _within(path, root):  # (--rulesdir: each file in it)
        return Code(tuple(_walk(path, lambda directory, name: True)))
    return _data_code([value], cwd, root) if option in LOAD_OPTIONS else Code()


#: The tools whose configuration a JavaScript tool loads too, by default: jest's babel-jest
#: transform loads babel's, vite (and vitest) loads postcss's, whose tailwind plugin loads its own.
#: (A companion that looks for its configuration from each file it reads does so from every file
#: under where the tool runs: babel-jest and babel-loader compile each module the tests or the
#: bundle load, each with the nearest ``.babelrc``.)
COMPANIONS = {
    "jest": ("babel", "swc"),
    "vite": ("postcss", "tailwind"),
    "vitest": ("postcss", "tailwind"),
    "webpack": ("babel", "swc", "postcss", "tailwind"),
    "postcss": ("tailwind",),
}


def _own_configuration(
    program: str, cwd: Path, root: Path, args: t.Sequence[str], through: str = "", each_file: bool = True
) -> Code:
    """:func:`js_tool_configuration` of the tool itself (or of a companion, run ``through`` another
    tool, on every file under where that one runs; ``each_file`` False: only the nearest, as a
    tool that imports another's configuration finds it)."""
    names = JS_CONFIGS.get(program.removesuffix(".js"))
    if not names:
        return Code()
    code = Code()
    per_file = program in PER_FILE_CONFIGS and through not in ROOT_ONLY_COMPANIONS.get(program, ())
    if each_file and per_file and _per_file(program, args, root):  # (from each file it reads)
        if any(word.partition("=")[0] in PER_FILE_CONFIGS[program] for word in args):
            return code  # (told which configuration to take: it looks for none)
        code = _configs_below(program, names, _read_files(program, args) if not through else ["."], cwd, root, through)
    reach = _reach(root)
    for directory in (cwd, *cwd.parents):
        if not _within(directory, reach):
            break
        code = code.plus(Code(tuple(directory / name for name in names)), _package_key(program, directory, root))
        found = [directory / name for name in names if (directory / name).is_file()]
        if found:
            return code.plus(*(_config_code(path, root) for path in found))
    return code


#: The key of package.json a JavaScript tool takes its configuration from, where it has one.
PACKAGE_KEYS = {
    "prettier": "prettier",
    "eslint": "eslintConfig",
    "stylelint": "stylelint",
    "babel": "babel",
    "jest": "jest",
    "postcss": "postcss",
    "markdownlint-cli2": "markdownlint-cli2",
    "cspell": "cspell",
    **{name: f"{name}Config" for name in UNIFIED},
}


def _package_key(program: str, directory: Path, root: Path) -> Code:
    """The configuration a JavaScript tool reads from the package.json of ``directory`` (its own
    key: ``"prettier": {...}``), pinned by that key alone, and what it names loaded."""
    key = PACKAGE_KEYS.get(program)
    return Code() if key is None else _manifest_key(key, directory, root)


def _manifest_key(key: str, directory: Path, root: Path, commands: int = 0) -> Code:
    """The key ``key`` of the package.json of ``directory``, pinned by that key alone, and what
    it names loaded (:func:`_data_code`)."""
    manifest = directory / "package.json"
    code = Code((manifest,), manifests=((manifest, f"config:{key}"),))
    value = _manifest(manifest).get(key) if manifest.is_file() else None
    return code.plus(_data_code(value, directory, root, commands=commands)) if value is not None else code


#: The most strings of a configuration of data read for what they load.
MAX_CONFIG_STRINGS = 512
#: The shorthands eslint, babel and prettier expand a plugin's or preset's name by.
SHORTHANDS = (
    "eslint-plugin-",
    "eslint-config-",
    "babel-plugin-",
    "babel-preset-",
    "prettier-plugin-",
    "stylelint-",
    "commitlint-config-",  # (and `@acme` for @acme/commitlint-config)
    *(f"{name}-" for name in UNIFIED),
    "jest-environment-",
    "jest-runner-",  # (jest's runner: "eslint" is jest-runner-eslint)
    "jest-watch-",  # (its watchPlugins: "typeahead/filename")
    "vitest-environment-",
)
#: A package scope alone (``@acme``).
SCOPE_ONLY = re.compile(r"@[a-z0-9][\w.~-]{0,213}", re.IGNORECASE)
#: The shorthands of a scoped name (babel's ``@babel/env`` for ``@babel/preset-env``).
SCOPED_SHORTHANDS = ("preset-", "plugin-")


def _data_code(
    value: t.Any,
    base: Path,
    root: Path,
    rooted: t.Sequence[Path] | None = None,
    commands: int = 0,
    inherited: t.Sequence[Path] = (),
) -> Code:
    """What a configuration of data (a .prettierrc, an .eslintrc.json, a package.json key) makes
    its tool load: each string it holds that names a file of the workspace from ``base``
    (``./plugin.js``; jest's ``<rootDir>/setup.js`` from ``rooted``, by default its ``rootDir``
    or ``base``), followed, or an installed package (a plugin, a parser, a shared
    configuration, an environment; by its name or a tool's shorthand for it), pinned as one;
    with ``commands`` (a tool's cogtools knows nothing of), one that starts with a program
    (``"exec": "tsx src/x.ts"``, lint-staged's ``"eslint --fix"``) read as a script's command too."""
    rooted = _roots(value, base, rooted, inherited)
    strings = _strings_in(value, MAX_CONFIG_STRINGS + 1)
    code = Code()
    if len(strings) > MAX_CONFIG_STRINGS:  # (what it would name past them is not read)
        code = Code(
            open=((f"its configuration holds more than {MAX_CONFIG_STRINGS} strings, which cogtools reads", None),)
        )
    unread = _past_budget(strings, rooted)
    if unread is not None:
        return code.plus(Code(open=((unread, None),)))
    manifest = _nearest(base, "package.json", root)
    return code.plus(
        *(_string_code(text, base, root, rooted, manifest, commands) for text in strings[:MAX_CONFIG_STRINGS])
    )


def _string_code(
    text: str, base: Path, root: Path, rooted: t.Sequence[Path], manifest: Path | None, commands: int
) -> Code:
    """What one string of a configuration of data makes its tool load (:func:`_data_code`)."""
    code = Code()
    option = NODE_OPTION_STRING.fullmatch(text)
    if option is not None:  # (ava's nodeArguments, vitest's execArgv, mocha's node-option)
        flag = "-r" if option.group(1) == "r" else f"--{option.group(1)}"
        code = code.plus(_node_flags([flag, option.group(2)], base, root))
    elif text.startswith("#") and manifest is not None:  # (a name package.json's imports map)
        code = code.plus(_mapped_name(text, manifest, root))
    elif "\0" in text or any(c in text for c in "*?{}[]"):
        return code  # (a glob, as `include:` gives: the files it finds are the tool's input)
    elif text.startswith(ROOT_DIR):  # (jest's roots and directories are its input, not followed)
        paths = [place / text[len(ROOT_DIR) :].lstrip("/") for place in dict.fromkeys(rooted)]
        code = code.plus(*(_file_named(path, root, rooted) for path in paths if not path.is_dir()))
    elif text.startswith(("./", "../")) or "/" in text and Path(text).suffix in JAVASCRIPT:
        # (a file of the workspace: `setupFiles: ["test/setup.mjs"]`, from the configuration's
        # directory, and from each rootDir, as jest takes it; one named with a suffix is named
        # even when missing)
        code = code.plus(*(_file_named(place / text, root, rooted) for place in rooted))
    else:
        if Path(text).suffix in JAVASCRIPT or "/" in text and not text.startswith("@"):
            # (`setupFiles: ["setup.js"]`, mocha's `require: tools/hook`; or a package: chart.js)
            code = code.plus(*(_file_named(place / text, root, rooted) for place in rooted))
        code = code.plus(_package_strings(text, base, root))
    # (a command line it runs: playwright's `webServer.command`, nodemon's `exec`; a single word
    # only for a tool cogtools knows nothing of, as lint-staged's `"eslint"`)
    words = text.split(maxsplit=1)
    if words and (commands or len(words) > 1) and _runs_program(words[0], base, root):
        said = f"its configuration runs {text[:40]!r}, which"
        code = code.plus(_script_code(text[:40], text, base, root, max(commands, 1), said))
    return code


#: A string of a configuration that is an option of node's that loads a module or an environment
#: file, written as one word (``--require=./x.cjs``, ``-r ./x.cjs``, mocha's ``require=./x.cjs``):
#: the option's name and its value.
NODE_OPTION_STRING = re.compile(
    r"(?:--?)?(require|import|loader|experimental-loader|env-file|env-file-if-exists|test-reporter|r)(?:=|\s+)(\S.*)"
)


def _roots(value: t.Any, base: Path, rooted: t.Sequence[Path] | None, inherited: t.Sequence[Path]) -> list[Path]:
    """The rootDirs a configuration's ``<rootDir>`` strings are found from: ``rooted``, by default
    ``base`` and each rootDir ``value`` sets (a project's of ``projects`` too), and ``inherited``."""
    if rooted is None:
        rooted = [base, *(base / named for named in _strings_in(_values_of("rootDir", value), 64) if "\0" not in named)]
    return list(dict.fromkeys([*rooted, *inherited]))


def _past_budget(strings: t.Sequence[str], rooted: t.Sequence[Path]) -> str | None:
    """Why the ``strings`` of a configuration (with jest's ``rooted`` dirs) are not read: too
    many rootDirs, or past the reading's one budget of strings (:data:`MAX_STRINGS_READ`; each
    costs look-ups from each rootDir); None: they are, and counted."""
    if len(rooted) > MAX_ROOT_DIRS:
        return f"its configurations set jest's rootDir more than {MAX_ROOT_DIRS} ways, which cogtools does not follow"
    reading = READ.get()
    if reading is None:
        return None
    cost = len(strings) * len(rooted)  # (a path is looked for from each rootDir)
    if reading.strings + cost > MAX_STRINGS_READ:
        return f"its configurations hold more than {MAX_STRINGS_READ} strings in all, which cogtools reads"
    reading.strings += cost
    return None


#: jest's name for its rootDir in a path of its configuration (``<rootDir>/jest.setup.js``).
ROOT_DIR = "<rootDir>"
#: Where a configuration of JavaScript names jest's rootDir (not as ``<rootDir>``): set to a
#: literal (group 2), to the file's own directory (group 3), or another way.
ROOT_DIR_NAMED = re.compile(
    r"""(?<![<\w$])rootDir(?![\w$>])['"]?(?:\s*:\s*(?:(['"])([^'"`\n$\\]{1,214})\1(?=\s*[,}\n])"""
    r"""|(path\.(?:resolve|join)\(\s*(?:__dirname|import\.meta\.dirname)\s*\)|__dirname|import\.meta\.dirname)"""
    r"""(?=\s*[,}\n])))?"""
)


def _loose_strings(config: Path) -> list[str]:
    """The strings of a configuration file of another syntax (TOML, c12's ``key=value`` lines,
    JSON5): its quoted strings, and each value after a key's ``=`` or ``:``."""
    text = _head(config).decode("utf-8", "replace")
    strings = _literals(_without_input(text))
    for line in text.splitlines():  # (line by line, no pattern across lines: each costs its length)
        words = line.split(None, 1)
        if len(words) == 2 and words[0] == "extends" and not re.search(r"[\s'\"`]", words[1].strip()):
            strings.append(words[1].strip())  # (`extends NAME`: .browserslistrc's shared configuration)
            continue
        key = LOOSE_KEY.match(line)
        if key is None or INPUT_KEY.fullmatch(key.group().strip(" \t=:")):  # (a tool's input: spec = x)
            continue
        value = line[key.end() :].strip().removesuffix(",").strip()
        if value and value[0] not in "'\"`,[{" and "," not in value:
            strings.append(value)
    return strings[:MAX_CONFIG_STRINGS]


#: The key of a line ``key = value`` or ``key: value`` (c12's rc lines, TOML's, YAML's), with
#: its separator.
LOOSE_KEY = re.compile(r"[ \t]*[\w.\[\]-]+[ \t]*[=:][ \t]*")


def _values_of(key: str, value: t.Any, depth: int = 0) -> list[t.Any]:
    """The values of ``key`` in the objects of a configuration of data, nested ones too."""
    if depth > 8:
        return []
    if isinstance(value, dict):
        found = [value[key]] if key in value else []
        return found + [v for item in list(value.values())[:64] for v in _values_of(key, item, depth + 1)]
    if isinstance(value, list):
        return [v for item in value[:64] for v in _values_of(key, item, depth + 1)]
    return []


def _file_named(path: Path, root: Path, rooted: t.Sequence[Path] = ()) -> Code:
    """A file of the workspace a configuration names (what node would load for it), followed;
    one named with a JavaScript suffix is named even when missing. One read as a configuration
    takes jest's rootDirs of the one that names it (``rooted``: a preset's ``<rootDir>`` is the
    project's) besides its own."""
    path = Path(os.path.normpath(path))
    found = _resolve(path)
    if (
        found is not None
        and _within(found, root)
        and (found.suffix in (*JAVASCRIPT, ".json") or NAMED_CONFIGURATION.search(found.name))
    ):
        # (another configuration it names, whatever it is called, as jest's `projects` and `preset`
        # and vitest's workspace do; a module it loads, whose strings may name more: read as one)
        # (the rootDirs of the one that names it matter only to one that says <rootDir>)
        inherit = rooted if ROOT_DIR.encode() in _head(found) else ()
        named = [str(found), *dict.fromkeys(str(place) for place in inherit)]
        return Code((found,)).plus(_once(_read_named_configuration, named, root, 0))
    if found is not None and _within(found, root):
        return Code((found,)).plus(_javascript(found, root))
    if path.suffix in JAVASCRIPT and _within(path, root):
        return Code((path,))
    return Code()


#: The name of a file that is a configuration (``jest.unit.config.js``, ``vitest.workspace.ts``).
NAMED_CONFIGURATION = re.compile(r"config|workspace|projects", re.IGNORECASE)


def _jest_roots(text: str, base: Path, shown: str) -> tuple[list[Path], Code]:
    """The rootDirs a jest configuration of JavaScript (``text``, in ``base``) sets: each
    literal, a project's too, or its own directory; one set another way (computed, templated, a
    computed key, an escaped name) open."""
    rooted, code = [base], Code()
    if not text:
        return rooted, code
    decoded = re.sub(r"\\u\{?([0-9a-fA-F]{4})\}?", lambda m: chr(int(m.group(1), 16)), text)  # (r\u006fotDir)
    why = f"{shown} sets jest's rootDir in a way cogtools does not read, and names files from it"
    if COMPUTED_KEY.search(decoded):
        code = Code(open=((f"{shown} has keys it computes, which cogtools does not read", None),))
    for found in ROOT_DIR_NAMED.finditer(decoded):  # (a literal, or its own directory)
        if re.match(r"[ \t]*(?://|\*)", decoded[decoded.rfind("\n", 0, found.start()) + 1 : found.start()]):
            continue  # (in a comment)
        if found.group(2) is not None:
            rooted.append(base / found.group(2))
        elif not found.group(3):
            code = code.plus(Code(open=((why, None),)))
    return rooted, code


#: A configuration that sets jest's rootDir to a literal (``rootDir: ".."``).
SETS_ROOT_DIR = re.compile(r"""(?<![<\w$])['"]?rootDir['"]?\s*:\s*['"]""")
#: A key of an object literal that JavaScript computes (``{[name]: value}``).
COMPUTED_KEY = re.compile(r"[{,]\s*\[[^\]\n]{1,80}\]\s*:")


def _read_module_strings(names: t.Sequence[str], base: Path, root: Path, depth: int) -> Code:
    """What the string literals of a module a configuration (in ``base``) imports name
    (:func:`_data_code`), from the module's directory and from the configuration's."""
    module = Path(names[0])
    if not module.is_file():
        return Code()
    text = _head(module).decode("utf-8", "replace")
    literals = _literals(text)
    # (a base configuration it spreads may set jest's rootDir: its own, from the configuration's)
    roots, code = _jest_roots(text if "rootDir" in text or "\\u" in text else "", base, _shown(module, root))
    places = dict.fromkeys((module.parent, base))
    return code.plus(*(_data_code(literals, place, root, [*places, *roots]) for place in places))


def _read_named_configuration(names: t.Sequence[str], root: Path, depth: int) -> Code:
    """A configuration another names (:func:`_file_named`; the rootDirs of that one after it),
    read as one (:func:`_config_code`)."""
    return _config_code(Path(names[0]), root, rooted=[Path(name) for name in names[1:]])


def _mapped_name(text: str, manifest: Path, root: Path) -> Code:
    """A name of a configuration that package.json's ``imports`` maps (``#setup``): the files
    it maps to, followed; one it maps a way cogtools cannot follow, open."""
    mapped = _imports_map(text, manifest, root)
    if mapped is not None:
        code = Code((manifest,), manifests=((manifest, "load"),)).plus(mapped[1])
        return code.plus(*(Code((f,)).plus(_javascript(f, root)) for f in mapped[0]))
    if _imports_entry(_manifest(manifest).get("imports"), text) is not None:
        return Code(open=((f"its configuration names {text}, which package.json's imports map", None),))
    return Code()


def _package_strings(text: str, base: Path, root: Path) -> Code:
    """The installed package a configuration's string names, by its name or a tool's shorthand
    (``react`` for eslint-plugin-react, ``@babel/env`` for @babel/preset-env), pinned as one."""
    if text.startswith("plugin:@") and text.count("/") == 1:  # (eslint's plugin:@acme/recommended: plugin @acme)
        text = text.partition("/")[0]
    text = text.removeprefix("plugin:")
    # (a scope alone names its shared configuration: commitlint's and eslint's `@acme` for
    # @acme/commitlint-config, @acme/eslint-config, @acme/eslint-plugin)
    name = f"{text}/" if SCOPE_ONLY.fullmatch(text) else _package_named(text)
    if name is None:
        return Code()
    reading = READ.get()
    if reading is None:
        return _packages_named(name, base, root)
    key = (name, base)  # (a configuration's strings name the same package again and again)
    if key not in reading.packages:
        reading.packages[key] = _packages_named(name, base, root)
    return reading.packages[key]


def _packages_named(name: str, base: Path, root: Path) -> Code:
    """:func:`_package_strings` of the package ``name``."""
    scope, _, bare = name.rpartition("/")
    if scope and not bare:  # (a scope alone: its package of each shorthand, @acme/eslint-config)
        candidates = [f"{scope}/{p.rstrip('-')}" for p in SHORTHANDS]
    else:
        candidates = [name, *(f"{scope}/{prefix}{bare}".lstrip("/") for prefix in SHORTHANDS)]
    if scope and bare:
        candidates += [f"{scope}/{prefix}{bare}" for prefix in SCOPED_SHORTHANDS]
    reach = _reach(root)
    found = (node_finds(base, candidate, reach) for candidate in candidates)
    return Code().plus(*(_installed_package(package, root, set()) for package in found if package is not None))


#: The JavaScript tools that look for their configuration from each file they read upwards (so
#: that one in any directory under what they are given applies to the files there), and the
#: options that tell them which to take instead.
PER_FILE_CONFIGS = {
    "prettier": frozenset(("--config", "--no-config")),
    "stylelint": frozenset(("--config", "-c")),
    "babel": frozenset(("--config-file", "--no-babelrc")),
    # (ESLint 10, and 9 told so by a flag; before 9, its .eslintrc files cascade from each file)
    "eslint": frozenset(("--config", "-c", "--no-config-lookup")),
    # (its --config is taken besides what each directory holds: nothing tells it to look for none)
    "markdownlint-cli2": frozenset(),
    "cspell": frozenset(("--no-config-search",)),
    **{name: frozenset(("--no-config",)) for name in UNIFIED},
    # (postcss-cli, and postcss-loader under webpack; vite takes the one of its root)
    "postcss": frozenset(("--config", "-c")),
    "swc": frozenset(("--config-file", "--no-swcrc")),
}
#: The per-file tools that read where they run when given no file (by their own defaults or
#: by what their configuration names: markdownlint-cli2's globs, cspell's files).
READS_CWD_UNGIVEN = frozenset(("eslint", "markdownlint-cli2", "cspell"))
#: The tools a per-file companion (:data:`COMPANIONS`) runs under that take its configuration
#: from where they run only, not from each file's directory.
ROOT_ONLY_COMPANIONS = {"postcss": frozenset(("vite", "vitest"))}
#: ESLint's options that take a value (which is no file it lints): ESLint 10's table
#: (lib/options.js), and those of the versions before it.
ESLINT_VALUES = frozenset(
    "-c --config -f --format -o --output-file --ext --parser --parser-options --plugin --rule --rulesdir"
    " --resolve-plugins-relative-to --ignore-path --ignore-pattern --max-warnings --cache-location"
    " --cache-file --cache-strategy --env --global --stdin-filename --flag --concurrency --fix-type"
    " --report-unused-disable-directives-severity --report-unused-inline-configs --suppress-rule"
    " --suppressions-location --print-config".split()
)
#: The flags by which ESLint 9 looks for its configuration from each file, as ESLint 10 does.
ESLINT_LOOKUP_FLAGS = frozenset(("unstable_config_lookup_from_file", "v10_config_lookup_from_file"))


def _per_file(program: str, args: t.Sequence[str], root: Path) -> bool:
    """Whether ``program`` looks for its configuration from each file it reads: ESLint 9 does
    not (it takes the one nearest where it runs) unless a flag tells it to; any other version,
    or one cogtools cannot tell, does."""
    if program != "eslint" or any(flag in word for word in args for flag in ESLINT_LOOKUP_FLAGS):
        return True
    found, package = _found_program("eslint", root)
    if found is None or not package:
        return True
    version = _manifest(_bin_package(found)[1] / "package.json").get("version")
    return not (isinstance(version, str) and version.split(".")[0] == "9")


def _read_files(program: str, args: t.Sequence[str]) -> list[str]:
    """The files and directories a per-file tool is given (ESLint given none lints where it runs:
    told by its table of options, never by what is there, which the agent chooses; so does
    markdownlint-cli2, by the globs of its configuration)."""
    if program not in READS_CWD_UNGIVEN:
        return list(args)
    if program == "cspell":  # (its files, its --root and its options' values: where it runs, whole)
        return [".", *args]
    values = ESLINT_VALUES if program == "eslint" else frozenset(("--config", "--configPointer"))
    words = [word for index, word in enumerate(args) if index == 0 or args[index - 1] not in values]
    given = [word for word in words if word and not word.startswith("-")]
    return given or ["."]


#: The most directories under a tool's arguments where its configuration is looked for (a
#: listing of each, read once: what a pin records is what they hold, not each name in each).
MAX_CONFIG_DIRECTORIES = 2048
#: What a tool that expands a directory leaves out of it.
SKIPPED_DIRECTORIES = frozenset("node_modules .git .hg .svn .sl .jj".split())


def _configs_below(
    program: str, names: t.Sequence[str], args: t.Sequence[str], cwd: Path, root: Path, through: str = ""
) -> Code:
    """The configuration files a per-file tool (:data:`PER_FILE_CONFIGS`) finds between the
    files it is given and where it runs: each name in every directory under a directory or glob it
    is given, and between a file and ``cwd`` (a look: :attr:`~cogtools.run.Code.looks`), and
    what one there loads; a file it is given only at run time (a template), or too many
    directories, open (``through``: the tool that runs it on each file, which no option of its
    own can tell)."""
    given = _given_places(args, cwd)
    starts = [cwd] if given is None else given  # (a template: any directory under where it runs)
    directories: list[Path] = []
    for start in starts:
        if not _within(start, root):
            continue
        top = start if start.is_dir() else start.parent
        directories += [d for d in (top, *top.parents) if _within(d, cwd) and d != cwd]
        if start.is_dir():
            walk = _directories_under(start, MAX_CONFIG_DIRECTORIES + 1, root)
            if walk.why:  # (it may look where cogtools cannot: the person's word, or nothing, closes it)
                return Code(
                    open=((f"{program} looks for its configuration from each file it reads, but {walk.why}", None),)
                )
            directories += walk.found
    directories = list(dict.fromkeys(directories))
    if len(directories) > MAX_CONFIG_DIRECTORIES:
        return _too_many_places(program, through, starts, cwd, root)
    where = sorted({os.path.relpath(start, root) for start in starts if _within(start, root)})
    return _looked(
        f"{program}{f' under {through}' if through else ''} in {' '.join(where)}",
        names,
        PACKAGE_KEYS.get(program),
        directories,
        root,
    )


def _given_places(args: t.Sequence[str], cwd: Path) -> list[Path] | None:
    """The places a tool's arguments name (each word's literal start, before a glob's first
    pattern character, from ``cwd``; an option none), or None when the model names them (a
    template): what a tool that reads each file it is given reads under."""
    if any("{{" in word or "{%" in word for word in args):
        return None
    literal = [re.split(r"[*?[{]", word, maxsplit=1)[0] for word in args if word and not word.startswith("-")]
    return [Path(os.path.normpath(cwd / word)) if word else cwd for word in literal]


def _looked(look: str, names: t.Sequence[str], key: str | None, directories: t.Sequence[Path], root: Path) -> Code:
    """A look (``look``, its key) for the configuration files ``names`` (a name may be under a
    subdirectory: ``.config/x``), and a package.json that holds the key ``key``, in each of
    ``directories``, by their listings; each found, and what it loads."""
    present, unlisted = _present(
        directories, [*(name for name in names if name != "package.json"), *["package.json"] * bool(key)]
    )
    found = [path for path in present if path.name != "package.json" or key in _manifest(path)]
    # (what is found is the look's, whatever it is; what is read as a configuration, a file: a
    # directory or a FIFO at its name is a change, and no error)
    configs = [path for path in found if path.name != "package.json" and path.is_file()]
    keys = (_manifest_key(key, path.parent, root) for path in found if key and path.name == "package.json")
    cannot = tuple(
        (
            f"cogtools cannot list {os.path.relpath(directory, root)}, where {look.split(' in ')[0]} looks for its configuration",
            None,
        )
        for directory in unlisted[:1]
    )
    return Code(tuple(configs), cannot, looks=((look, tuple(found)),)).plus(
        *keys, *(_config_code(path, root) for path in configs)
    )


def _present(directories: t.Sequence[Path], names: t.Sequence[str]) -> tuple[list[Path], list[Path]]:
    """What of ``names`` is in each of ``directories`` (``.config/x``: x in its .config), by the
    listing of each, read once a reading, in the order of ``names``; and the directories that are
    there but cannot be listed (a tool may still open a name in one it can search)."""
    # (by names folded as a case-insensitive file system takes them, macOS's: a .ZLINTRC.js there
    # is what the tool opens as .zlintrc.js; found under the name it has)
    groups: dict[str, dict[str, int]] = {}
    for index, name in enumerate(names):
        sub, _, leaf = name.rpartition("/")
        groups.setdefault(sub, {}).setdefault(_folded(leaf), index)
    found: list[Path] = []
    unlisted: list[Path] = []
    for directory in directories:
        named = _named_in(directory)
        for sub, leaves in groups.items():
            inner = (
                named if not sub else _named_in(directory / sub) if _folded(sub.split("/")[0]) in (named or {}) else {}
            )
            if inner is None:
                unlisted.append(directory / sub if sub else directory)
                continue
            hits = sorted(leaves.keys() & inner.keys(), key=leaves.__getitem__)  # (few: what a directory holds of them)
            found += [directory / sub / inner[leaf] if sub else directory / inner[leaf] for leaf in hits]
    return found, unlisted


def _named_in(directory: Path) -> dict[str, str] | None:
    """The names in ``directory`` by their folded forms (:func:`_folded`), or None for one that
    cannot be listed (:func:`_listing`)."""
    listing = _listing(directory)
    return None if listing is None else {_folded(name): name for name in listing}


def _folded(name: str) -> str:
    """``name`` as a case-insensitive file system compares it (macOS's: case, and Unicode's forms)."""
    import unicodedata

    return unicodedata.normalize("NFC", name).casefold()


def _listing(directory: Path) -> frozenset[str] | None:
    """The names in ``directory`` (none where it is none), read once a reading of a command;
    None for one that is there but cannot be listed."""
    reading = READ.get()
    if reading is not None and directory in reading.listings:
        return reading.listings[directory]
    try:
        names: frozenset[str] | None = frozenset(os.listdir(directory))
    except (FileNotFoundError, NotADirectoryError):
        names = frozenset()
    except OSError:
        names = None
    if reading is not None:
        reading.listings[directory] = names
    return names


def _too_many_places(program: str, through: str, starts: t.Sequence[Path], cwd: Path, root: Path) -> Code:
    """A per-file tool's code, open when it would look in too many directories: closed only by a
    declaration of the directories themselves, not of the tool's package (a companion's, babel's
    under jest, by any: the tests jest runs are the agent's input anyway)."""
    if through:
        why = (
            f"{program} looks for its configuration from each file it reads under {through},"
            f" in more than {MAX_CONFIG_DIRECTORIES} directories here"
        )
        return Code(open=((why, None),))
    options = " or ".join(sorted(PER_FILE_CONFIGS[program]))
    why = (
        f"{program} looks for its configuration from each file it reads, in more than"
        f" {MAX_CONFIG_DIRECTORIES} directories here" + (f" (give it {options})" if options else "")
    )
    where = starts[0] if len(starts) == 1 and starts[0].is_dir() else cwd
    return Code(open=((why, os.path.relpath(where, root) if _within(where, root) else "."),))


#: The most entries a walk under a directory reads (:func:`_directories_under`): past it, what a
#: tool looks for there is open (a directory of a million links cannot make each call take seconds).
MAX_WALK_ENTRIES = 65_536


class Walk(t.NamedTuple):
    """The directories under one that a tool may read (:func:`_directories_under`)."""

    found: list[Path]
    #: why they are not all there is ("": they are): more entries than cogtools reads, a link
    #: leading out of the workspace, a directory it cannot list
    why: str = ""


def _directories_under(top: Path, limit: int, root: Path) -> Walk:
    """The directories under ``top`` (not itself), as a tool expanding it walks them, at most
    ``limit``: a link to one is walked as the tool following it would (where it leads, once),
    unless it leads out of the workspace; each one's listing kept for :func:`_listing`."""
    reading = READ.get()
    if reading is not None and (top, limit) in reading.walks:
        return reading.walks[top, limit]
    reach = os.path.realpath(_reach(root))
    walk = _walk_directories(top, limit, root, reach, reading)
    if reading is not None:
        reading.walks[top, limit] = walk
    return walk


def _walk_directories(top: Path, limit: int, root: Path, reach: str, reading: _Reading | None) -> Walk:
    """:func:`_directories_under`."""
    found: list[Path] = []
    todo, seen, entries = [top], {os.path.realpath(top)}, 0
    while todo and len(found) < limit:
        directory = todo.pop(0)
        try:
            with os.scandir(directory) as scanned:
                listed = list(itertools.islice(scanned, MAX_WALK_ENTRIES + 1 - entries))
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError:
            return Walk(found, f"cogtools cannot list {os.path.relpath(directory, root)}")
        entries += len(listed)
        if entries > MAX_WALK_ENTRIES:
            return Walk(found, f"more than {MAX_WALK_ENTRIES} entries are under {os.path.relpath(top, root)}")
        listed.sort(key=lambda entry: entry.name)
        if reading is not None:
            reading.listings[directory] = frozenset(entry.name for entry in listed)
        for entry in listed:
            if entry.name in SKIPPED_DIRECTORIES or not _is_directory(entry):
                continue
            path = directory / entry.name
            found.append(path)
            real = os.path.realpath(path) if entry.is_symlink() else None
            if real is not None and not under(real, reach):
                return Walk(found, f"{os.path.relpath(path, root)} leads out of the workspace")
            if real is None or real not in seen:
                seen.add(real or "")
                todo.append(path)
    return Walk(found[:limit])


def _is_directory(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _config_code(
    config: Path, root: Path, base: Path | None = None, commands: int = 0, rooted: t.Sequence[Path] = ()
) -> Code:
    """What a JavaScript tool's configuration file loads: followed as a module of the project's;
    one of the workspace root's (above the project), the packages it imports, pinned as ever, and
    its own modules open, where no pin of the project reaches; one of data (JSON, YAML), what the
    strings it holds name (:func:`_data_code`), from ``base`` (by default its directory; jest's
    ``<rootDir>`` from each of ``rooted`` too)."""
    base = base or config.parent
    if config.suffix not in CONFIG_SUFFIXES:  # (one of another syntax, TOML, rc lines, JSON5: its strings too)
        data: t.Any = _without_input_data(_jsonc(config) or _yaml_settings(config))
        if config.suffix not in (".json", ".yaml", ".yml") or not data:  # (a list, or what neither reads)
            data = [*_strings_in(data, MAX_CONFIG_STRINGS), *_loose_strings(config)]
        return _data_code(data, base, root, None, commands, rooted)
    # (and what it names by a string: prettier's `plugins: ["prettier-plugin-x", "./local.mjs"]`)
    text = _head(config).decode("utf-8", "replace")
    # (jest's: by its name, a <rootDir>, or a rootDir it sets to a literal, as a projects entry does)
    jest = "jest" in config.name or ROOT_DIR in text or SETS_ROOT_DIR.search(text) is not None
    own, code = _jest_roots(text if jest else "", base, _shown(config, root))
    if commands and COMPUTES_PATH.search(text):  # (a tool cogtools knows nothing of: how it reads a path is its own)
        why = f"{_shown(config, root)} computes a path it may load (a tool's configuration cogtools does not read)"
        code = code.plus(Code(open=((why, None),)))
    modules = _config_module(config, root)
    for module in _own_modules(modules, config, root) if jest else ():  # (a base it spreads: its rootDir)
        roots, unread = _jest_roots(_head(module).decode("utf-8", "replace"), base, _shown(module, root))
        own, code = [*own, *roots], code.plus(unread)
    loads = _without_input(text)  # (what it bundles or reads, an entry, an output, is its input)
    template = TEMPLATE_PATH.search(DIRNAME_PLUS.sub("", loads))  # (`<rootDir>/${S}/s5.cjs`: where, it computes)
    if template is not None:
        why = f"{_shown(config, root)} computes a path it may load ({template.group()[:60]})"
        code = code.plus(Code(open=((why, None),)))
    named = _data_code([*_literals(loads), *_joined(loads, config.parent)], base, root, own, commands, rooted)
    return code.plus(named, modules, _module_directories(text, config, root))


#: The keys of a configuration of JavaScript whose values name a tool's input or output, never
#: code it loads: a bundler's entry and output, a matcher's paths (webpack's, rollup's, vite's,
#: tsup's, esbuild's).
INPUT_NAMES = (
    r"entry|entryPoints|input|output|outDir|outdir|outfile|outFile|outputPath|outputDir"
    r"|filename|chunkFilename|path|publicPath|dir|dist|distDir|content|include|exclude|publicDir|context"
    r"|cacheDirectory|testDir|snapshotDir|coverageDirectory|reportsDirectory|srcDir|staticDirs|stories"
    r"|spec"  # (mocha's test files: what a test runner runs is the agent's input, as jest's tests are)
)
INPUT_KEYS = re.compile(rf"""(?<![\w$.])['"]?({INPUT_NAMES})['"]?\s*:\s*""")
#: Such a key in a configuration of data (.mocharc.yml's ``spec``).
INPUT_KEY = re.compile(INPUT_NAMES)


def _without_input_data(value: t.Any, depth: int = 0) -> t.Any:
    """A configuration of data with the values of its keys that name the tool's input
    (:data:`INPUT_KEY`) left out, nested ones too (deeper than 16, as it is)."""
    if depth > 16:
        return value
    if isinstance(value, dict):
        kept = {k: v for k, v in value.items() if not (isinstance(k, str) and INPUT_KEY.fullmatch(k))}
        return {k: _without_input_data(v, depth + 1) for k, v in kept.items()}
    if isinstance(value, list):
        return [_without_input_data(item, depth + 1) for item in value]
    return value


#: The longest value of such a key that is left out (past it, read as any other).
MAX_INPUT_VALUE = 4096


def _without_input(text: str) -> str:
    """``text`` with the values of :data:`INPUT_KEYS` blanked out (a string, a list, an object, a
    call such as ``path.resolve(__dirname, "dist")``), so that an entry the tool bundles is not
    read as a module it loads; offsets kept."""
    chars = list(text)
    for match in itertools.islice(INPUT_KEYS.finditer(text), MAX_CONFIG_STRINGS):
        end = _value_end(text, match.end())
        if end is not None:
            chars[match.end() : end] = " " * (end - match.end())
    return "".join(chars)


def _value_end(text: str, start: int) -> int | None:
    """Where the JavaScript value that starts at ``start`` ends (a string, a bracketed list or
    object, a call), or None past :data:`MAX_INPUT_VALUE` characters or one not seen whole."""
    if start < len(text) and text[start] in "'\"`":
        string = JS_STRING.match(text, start)
        return string.end() if string is not None else None
    name = re.compile(r"[\w$.]*").match(text, start)
    index = name.end() if name is not None else start
    if index >= len(text) or text[index] not in "[{(":
        return index if index > start else None
    depth = 0
    while index < len(text) and index - start <= MAX_INPUT_VALUE:
        char = text[index]
        if char in "'\"`":
            string = JS_STRING.match(text, index)
            if string is None:
                return None
            index = string.end()
            continue
        depth += char in "[{("
        depth -= char in "]})"
        index += 1
        if depth == 0:
            return index
    return None


#: What a configuration of JavaScript resolves modules by name from, besides node_modules
#: (webpack's ``resolve.modules`` and ``resolveLoader.modules``, jest's ``moduleDirectories``):
#: the list (group 1).
MODULE_DIRECTORIES = re.compile(r"""(?<![\w$])['"]?(?:modules|moduleDirectories)['"]?\s*:\s*\[([^\]]{0,4000})\]""")
#: Another way a configuration may give such a list: a value no list literal is (``modules:
#: DIRS``), a property it changes (``config.resolve.modules.push(...)``), a shorthand
#: (``{ modules }``); not a flag or an object of options (css-loader's ``modules: true``).
MODULE_DIRECTORIES_OTHERWISE = re.compile(
    r"""(?<![\w$])['"]?(?:modules|moduleDirectories)['"]?\s*:\s*(?![\s\[{'"`]|true\b|false\b|null\b|undefined\b|\d)"""
    r"""|\.(?:modules|moduleDirectories)\b|(?<![\w$.'"])(?:modules|moduleDirectories)\s*[,}]"""
)


def _module_directories(text: str, config: Path, root: Path) -> Code:
    """Each directory of the workspace a configuration resolves modules by name from (a loader
    ``bare-loader`` found as ``loaders/bare-loader.js``): open until that directory is declared,
    as what it loads from there is named only by the name a module asks for; one it names by a
    constant bound once and used nowhere else, that directory (any other use of the name, a
    shadow, or an escape that could spell one, and it is computed); one it computes, open on
    the person's word."""
    code = Code()
    shown = _shown(config, root)
    computed = f"{shown} resolves modules by name from a directory it computes"
    if MODULE_DIRECTORIES_OTHERWISE.search(text):
        code = code.plus(Code(open=((computed, None),)))
    matches = list(itertools.islice(MODULE_DIRECTORIES.finditer(text), MAX_HOOKS))
    bound = _bound_paths(text, [match.group(1) for match in matches]) if matches else {}
    names = re.compile(rf"(?<![\w$.])({'|'.join(map(re.escape, bound))})(?![\w$])") if bound else None
    for match in matches:
        listing = names.sub(lambda name: bound[name.group(1)], match.group(1)) if names else match.group(1)
        rest = JS_STRING.sub("", re.sub(r"\b(?:path\.)?(?=(?:join|resolve)\()", "", listing))
        rest = re.sub(r"\b(?:join|resolve)\(\s*(?:__dirname|import\.meta\.dirname)[\s,]*\)", "", rest)
        if re.search(r"[^\s,]", rest):  # (a name, a spread, a call it computes: where, cogtools cannot tell)
            code = code.plus(Code(open=((computed, None),)))
        listed = [m.group(2) for m in JS_STRING.finditer(listing)] + _joined(listing, config.parent)
        for name in listed[:MAX_HOOKS]:
            path = Path(name) if os.path.isabs(name) else config.parent / name
            if os.path.basename(name) == "node_modules" or not _within(path, root) or not path.is_dir():
                continue
            where = os.path.relpath(path, root)
            why = f"{shown} resolves modules by name from {where}/, which cogtools does not follow"
            code = code.plus(Code(open=((why, where),)))
    return code


#: A name a configuration binds to a path it names plainly (``const LOADERS =
#: path.resolve(__dirname, "loaders")``, ``const DIR = "loaders"``): the name and the path.
BOUND_PATH = re.compile(
    r"""\b(?:const|let|var)\s+([A-Za-z_$][\w$]{0,63})\s*=\s*((?:path\.)?(?:join|resolve)\(\s*(?:__dirname|"""
    r"""import\.meta\.dirname)\s*(?:,\s*(['"])[\w.@/-]{1,214}\3\s*)*\)|(['"])[\w.@/-]{1,214}\4)\s*[;\n]"""
)


def _bound_paths(text: str, lists: t.Sequence[str]) -> dict[str, str]:
    """The names a configuration's ``text`` binds once to a path it names plainly
    (:data:`BOUND_PATH`) and uses nowhere but in ``lists`` (its lists of module directories),
    each with that path; a name assigned again, shadowed (a parameter, a destructuring, a loop's
    or a catch's own), or any name where the text holds an escape that could spell one, is left
    out, computed."""
    if "\\u" in text:  # (an identifier may be spelt with escapes: \u004cOADERS)
        return {}
    bound = {m.group(1): m.group(2) for m in itertools.islice(BOUND_PATH.finditer(text), MAX_HOOKS)}
    if not bound:
        return {}
    words = collections.Counter(m.group(1) for m in IDENTIFIER.finditer(text) if m.group(1) in bound)
    listed = collections.Counter(m.group(1) for item in lists for m in IDENTIFIER.finditer(item) if m.group(1) in bound)
    assigned = collections.Counter(m.group(1) for m in ASSIGNED.finditer(text) if m.group(1) in bound)
    return {name: path for name, path in bound.items() if assigned[name] == 1 and words[name] == 1 + listed[name]}


#: A name of JavaScript where it is used or bound (not a property: ``x.NAME``).
IDENTIFIER = re.compile(r"(?<![\w$.])([A-Za-z_$][\w$]{0,63})(?![\w$])")


#: An assignment to a name (``X =``, ``X +=``, ``X ??=``; not ``==``): the name.
ASSIGNED = re.compile(r"(?<![\w$.])([A-Za-z_$][\w$]{0,63})\s*(?:[-+*/|&]|\?\?|\|\||&&)?=(?![=>])")


#: A path a configuration of JavaScript joins of its own directory and literals
#: (``path.join(__dirname, "jt", "setup.js")``): the literals (group 1).
JOINED = re.compile(
    r"""\b(?:join|resolve)\(\s*(?:__dirname|import\.meta\.dirname)\s*((?:,\s*(['"])[\w.@/-]{1,214}\2\s*)+)\)"""
)


def _joined(text: str, directory: Path) -> list[str]:
    """The paths ``text`` joins of ``directory`` (its ``__dirname``) and literals, each whole (as
    jest's ``setupFiles: [path.join(__dirname, "jt", "setup.js")]``, a template of ``${__dirname}``
    and a literal, ``import.meta.dirname + "/jt/s.js"``)."""
    found = []
    for match in itertools.islice(JOINED.finditer(text), MAX_CONFIG_STRINGS):
        parts = re.findall(r"""['"]([\w.@/-]+)['"]""", match.group(1))
        found.append(str(directory.joinpath(*parts)))
    for match in itertools.islice(DIRNAME_PLUS.finditer(text), MAX_CONFIG_STRINGS):
        found.append(str(directory / (match.group(1) or match.group(3)).lstrip("/")))
    return found


#: A template of JavaScript that computes a path with a substitution (``\`<rootDir>/${S}/s.cjs\```,
#: ``\`./setup/${name}.js\```): one that starts as a path does, or ends in a module's suffix.
TEMPLATE_PATH = re.compile(
    r"""`(?:<rootDir>|\.{1,2}/)[^`\n]{0,300}\$\{[^`\n]{0,300}`|`[^`\n]{0,300}\$\{[^`\n]{0,300}\.(?:[cm]?[jt]s|json)`"""
)
#: A path of JavaScript made of its own directory and a literal by a template or ``+``
#: (group 1 or 3).
DIRNAME_PLUS = re.compile(
    r"""`\$\{(?:__dirname|import\.meta\.dirname)\}(/[\w.@/-]{1,214})`"""
    r"""|(?<![\w$.])(?:__dirname|import\.meta\.dirname)\s*\+\s*(['"])(/[\w.@/-]{1,214})\2"""
)


#: What computes a path in JavaScript (``path.join(__dirname, ...)``, ``new URL(..., import.meta.url)``).
COMPUTES_PATH = re.compile(
    r"__dirname|__filename|import\.meta|\bpath\.(?:join|resolve)\b|require\.resolve|\bprocess\.cwd\("
    r"""|['"`]\s*\+|\+\s*['"`]|\.join\s*\(|\.concat\s*\(|fromCharCode|\.replace\s*\("""
)
#: A string literal of JavaScript, short and on one line.
JS_STRING = re.compile(r"""(['"`])((?:\\.|(?!\1)[^\\\n])*)\1""", re.DOTALL)
#: What of one is read as a name: short, no template's substitution (its escapes decoded first).
PLAIN_STRING = re.compile(r"""[^$]{1,214}""")
_ESCAPE = re.compile(r"\\(?:x([0-9a-fA-F]{2})|u\{([0-9a-fA-F]{1,6})\}|u([0-9a-fA-F]{4})|(.))", re.DOTALL)


def _literals(text: str) -> list[str]:
    """The string literals of JavaScript (or JSON5, TOML) text, their escapes decoded
    (``'.\x2ftools'`` is ``./tools``), and TOML's multi-line strings."""
    found = [_unescaped(m.group(2)) for m in JS_STRING.finditer(text)]
    found += [m.group(2) for m in re.finditer(r'("""|\'\'\')(.{0,4096}?)\1', text, re.DOTALL)]
    return [literal.strip() for literal in found if PLAIN_STRING.fullmatch(literal.strip())]


def _unescaped(literal: str) -> str:
    def decode(match: re.Match[str]) -> str:
        code = match.group(1) or match.group(2) or match.group(3)
        if code:
            return chr(min(int(code, 16), 0x10FFFF)) if int(code, 16) not in range(0xD800, 0xE000) else ""
        return {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\n": ""}.get(match.group(4), match.group(4))

    return _ESCAPE.sub(decode, literal) if "\\" in literal else literal


def _config_module(config: Path, root: Path) -> Code:
    """What a JavaScript configuration file imports (:func:`_config_code`); the project's modules
    it imports are read for what they name as it is (``...require('./jest.base.js')``: its
    ``setupFiles``)."""
    if _within(config, root):
        code = _javascript(config, root)
        modules = _own_modules(code, config, root)
        return code.plus(*(_once(_read_module_strings, [str(f)], config.parent, root, 0) for f in modules[:MAX_HOOKS]))
    specifiers, code = _imports(config, root)
    for specifier in specifiers:
        if specifier.startswith((".", "/")):
            why = f"{_shown(config, root)} imports {specifier}, outside the project, {NO_PIN}"
            code = code.plus(Code(open=((why, os.pardir),)))
        elif not specifier.startswith("node:") and specifier.split("/")[0] not in NODE_BUILTINS:
            code = code.plus(_package(config, specifier, root))
    return code


def _own_modules(code: Code, config: Path, root: Path) -> list[Path]:
    """The project's modules (JavaScript, a JSON module) a configuration's ``code`` imports."""
    return [
        f
        for f in code.files
        if f != config
        and (f.suffix in JAVASCRIPT or f.suffix == ".json" and f.name not in ("package.json", "tsconfig.json"))
        and "node_modules" not in f.parts
        and _within(f, root)
    ]


def _configuration(argv: t.Sequence[str], cwd: Path, root: Path) -> Code:
    """:func:`program_configuration`, for git the hooks of its ``core.hooksPath`` (husky's
    ``.husky/_``) with what they source, followed, and a JavaScript tool's configuration
    (:func:`js_tool_configuration`)."""
    files = program_configuration(argv, cwd)
    code = Code(tuple(files)).plus(js_tool_configuration(os.path.basename(argv[0]), cwd, root, argv[1:]))
    for config in files[:MAX_HOOKS]:  # (git's: the commands its filters, drivers, aliases run)
        text = _read_small(config, 256 * 1024) or ""
        commands = [match.group(2).strip('"') for match in GIT_COMMANDS.finditer(text)][:MAX_HOOKS]
        code = code.plus(*(_shell_text(command.lstrip("!"), None, cwd, root, 1, set()) for command in commands))
    for directory in _hooks_paths(files, cwd):
        if _within(directory, root):
            hooks = _walk(directory, lambda d, name: True)
            code = code.plus(
                Code(tuple(hooks)), *(_shell(hook, cwd, root, 1, set()) for hook in hooks[:MAX_CODE_FILES])
            )
    return code


#: A key of git's configuration whose value is a command git runs (a filter's ``clean``, a
#: diff's ``textconv``, a merge driver, ``core.fsmonitor``, ``core.sshCommand``, an editor, a
#: credential helper), or an alias that runs one (``!``): the key and the command.
GIT_COMMANDS = re.compile(
    r"""(?im)^[ \t]*(clean|smudge|process|textconv|command|driver|fsmonitor|sshcommand|editor|pager|helper|program"""
    r"""|askpass|[\w.-]+(?=[ \t]*=[ \t]*"?!))[ \t]*=[ \t]*(.+?)[ \t]*$"""
)


def _hooks_paths(configs: t.Sequence[Path], cwd: Path) -> list[Path]:
    found = []
    for config in configs:
        if config.name != "config":
            continue
        text = _head(config).decode("utf-8", "replace")
        for match in re.finditer(r"^\s*hookspath\s*=\s*(.+?)\s*$", text, re.MULTILINE | re.IGNORECASE):
            value = match.group(1).strip('"')
            if value and not value.startswith("~"):
                found.append(Path(value) if os.path.isabs(value) else cwd / value)
    return found


def script_code(
    script: Path, interpreter: t.Sequence[str], cwd: Path, root: Path, depth: int = 0, seen: set[Path] | None = None
) -> Code:
    """What a script loads of the workspace besides itself, by its language (its suffix, else its
    interpreter): for Python, every module its directory makes importable (the first place it
    imports from), whole; for a shell script, the files it sources and the scripts it names,
    followed; for JavaScript and TypeScript, the modules it imports, followed, and the
    package.json that says how node reads it. What it names only at run time is open."""
    words = [os.path.basename(word) for word in interpreter if not word.startswith("-") and "=" not in word]
    program = next((word for word in words if word != "env"), "")
    if depth > MAX_DEPTH:
        return Code(open=((f"{_shown(script, root)} runs scripts nested more than {MAX_DEPTH} deep", None),))
    if script.suffix == ".py" or program.startswith("python"):
        return python_tree(script.parent, root, scan=True).plus(_beside(script))
    if script.suffix in (".sh", ".bash") or program in SHELLS:
        return _shell(script, cwd, root, depth, set() if seen is None else seen)
    if script.suffix in JAVASCRIPT or program in NODES:
        return _javascript(script, root)
    return Code()


def _shown(path: Path, root: Path) -> str:
    try:
        return str(Path(os.path.abspath(path)).relative_to(os.path.abspath(root)))
    except ValueError:
        return str(path)


def _program_itself(word: str, cwd: Path, root: Path, depth: int = 0) -> Code:
    """A program of the project (``./bin/tool``, ``.venv/bin/python``, or a bare name that the
    call's PATH finds in the project, an activated venv's; one of ``node_modules/.bin``, which
    that PATH ends with, is a package's and open, :func:`_package_program`): the file and what it loads as a
    script (by its suffix, else its ``#!`` line), and for an interpreter of a virtual environment
    in the project, everything it loads from there at start (``.pth`` files) and on import: the
    environment's site-packages, whole."""
    if "{{" in word or not word:
        return Code()
    if "/" in word:
        path = Path(word) if os.path.isabs(word) else cwd / word
    else:
        found, package = _found_program(word, root)
        if found is None:
            return Code()
        if package:
            return _package_program(word, found, root)
        path = found
    if not _within(path, root):
        return Code()
    code = Code()
    if os.path.isfile(path):
        code = Code((path,)).plus(script_code(path, _shebang(path), cwd, root, depth + 1))
    for directory in Path(os.path.abspath(path)).parents:
        if not _within(directory, root):
            break
        if (directory / "pyvenv.cfg").is_file():
            found_files = [directory / "pyvenv.cfg"]
            for lib in sorted(directory.glob("lib*/python*/site-packages")):
                found_files += _walk(lib, lambda d, name: True)
            return code.plus(Code(tuple(found_files)))
    return code


def _found_program(word: str, root: Path) -> tuple[Path | None, bool]:
    """Where a bare program name is found as the call finds it (under a package manager's script,
    its node_modules/.bin first), and whether it is a package's program of node_modules/.bin
    (once a name in a reading of a command)."""
    reading = READ.get()
    if reading is None:
        return _look_up(word, root)
    key = (word, root, SCRIPT_BINS.get())
    if key not in reading.found:
        reading.found[key] = _look_up(word, root)
    return reading.found[key]


def _look_up(word: str, root: Path) -> tuple[Path | None, bool]:
    import shutil

    from cogtools.core.fsutil import call_path, project_bins

    planted = _planted(word)
    if planted is not None:
        return planted, True
    found = shutil.which(word, path=call_path(os.environ.get("PATH"), root))
    if found is None:
        return None, False
    return Path(found), os.path.dirname(found) in project_bins(root)


def _planted(word: str) -> Path | None:
    """The program ``word`` of a node_modules/.bin that a package manager's script being followed
    puts first on its PATH (:data:`SCRIPT_BINS`), or None."""
    return next((Path(d) / word for d in SCRIPT_BINS.get() if os.path.lexists(os.path.join(d, word))), None)


def _bin_package(path: Path) -> tuple[Path, Path]:
    """The script a program of ``node_modules/.bin`` runs (where its link or shim says, in
    node_modules as node names it, not where links lead) and the package it is of (that script,
    where it is of none)."""
    if path.is_symlink():
        target = Path(os.path.normpath(path.parent / os.readlink(path)))
    else:  # a shim (pnpm's, npm's on some systems): the script it runs
        target = _shim_target(path) or Path(os.path.realpath(path))
    package = _package_root(target, path.parent)
    if package is None or package.name.startswith("."):  # (.bin itself: no package)
        package = target
    return target, package


def _package_name(package: Path) -> str:
    """The name of the package installed at ``package`` (``@scope/name`` under a scope)."""
    return f"{package.parent.name}/{package.name}" if package.parent.name.startswith("@") else package.name


def _package_program(word: str, path: Path, root: Path) -> Code:
    """A program a call finds in the project's ``node_modules/.bin`` (or its workspace root's):
    a package's, which the agent can rewrite and cogtools does not follow, so open unless the
    tool declares the package (as a program an ``npm run`` script runs)."""
    target, package = _bin_package(path)
    where = os.path.relpath(package, os.path.realpath(root))
    needs = where
    if package == target and not path.is_symlink():  # a shim that cannot be followed
        where = needs = os.path.join(os.pardir, os.path.relpath(package, root))  # (no declaration reaches it)
    elif where.startswith(".."):  # the workspace root's: declared by the name node finds it by
        name = _package_name(package)
        found = _found_by_node(root, name)
        if found is not None and os.path.realpath(found) == os.path.realpath(package):
            needs = os.path.join("node_modules", name)
    why = f"it runs {word} from {where} (node_modules/.bin)"
    if needs.startswith(".."):  # no `code:` entry reaches outside the project
        why += f", outside the project, {NO_PIN}"
    return Code((path,), open=((why, needs),)).plus(shadowing_places([path.parent]))


#: Programs of node_modules/.bin that run the scripts of package.json they are given by name or
#: by a pattern (``run-s lint test:*``, ``start-server-and-test start URL test``).
SCRIPT_RUNNERS = frozenset("npm-run-all run-s run-p start-server-and-test server-test start-test".split())
#: Programs that run the scripts of the workspace's packages, by their own configuration.
WORKSPACE_RUNNERS = frozenset("turbo nx lerna".split())
#: How a runner (concurrently) is given a script of package.json: ``npm:lint``, ``pnpm:test:*``.
MANAGER_SCRIPT = re.compile(r"(npm|pnpm|yarn|bun):([^\s]+)")
#: The most commands a program is given to run that are followed, and of its words read for them.
MAX_GIVEN = 16
MAX_GIVEN_WORDS = 64


def _package_extras(name: str, found: Path, args: t.Sequence[str], cwd: Path, root: Path, depth: int) -> Code:
    """:func:`_package_loads`, once in a reading of a command."""
    return _once(_package_loads, args, name, found, cwd, root, depth)


def _package_loads(args: t.Sequence[str], name: str, found: Path, cwd: Path, root: Path, depth: int) -> Code:
    """What a package's program of node_modules/.bin (``name``, at ``found``) that cogtools knows
    nothing particular of loads besides its package, by the conventions of JavaScript tools: the
    configuration files named after it or its package (:func:`_conventional_configuration`), and
    the commands its arguments give it to run (:func:`_given_commands`)."""
    if depth > MAX_DEPTH:
        return Code(open=((f"its commands run each other more than {MAX_DEPTH} deep", None),))
    if name in JS_CONFIGS or name in NODES or name in ENV_LOADERS or name in ("tsc", "tsserver"):
        return Code()  # (followed by what knows them; TypeScript's tsconfig.json is data to tsc)
    package = _bin_package(found)[1]
    stems = [name.lstrip("_"), package.name, _package_name(package)]
    return _conventional_configuration(stems, cwd, root, depth).plus(
        _conventional_below(stems, cwd, root, args),
        _named_after(stems, cwd, root),
        _told_configuration(args, cwd, root),
        _given_commands(name, args, cwd, root, depth),
    )


#: The endings of a configuration file named by a tool's name (cosmiconfig's, lilconfig's and c12's
#: conventions: ``.mocharc.yml``, ``c8.config.json``, ``.config/nycrc``, ``nodemon.json``).
#: The other names a tool's configuration goes by (``.lintstagedrc``, nodemon's package.json key).
CONFIG_ALIASES = {
    "lint-staged": ("lintstaged",),
    "nodemon": ("nodemonConfig",),
    "semantic-release": ("release",),
    "svelte-check": ("svelte",),  # (svelte.config.js, which svelte-check imports)
    "nuxi": ("nuxt",),  # (nuxt's command line: nuxt.config.ts)
    "vue-cli-service": ("vue",),  # (vue.config.js)
    "lhci": ("lighthouserc", "lighthouse"),  # (lighthouserc.js, .lighthouserc.json)
    "relay-compiler": ("relay",),  # (relay.config.js)
}
#: The configuration a tool reads by a name of its own, besides the conventional ones.
CONFIG_EXTRA = {
    # (vue-tsc: the plugins of its tsconfig.json's vueCompilerOptions; typedoc's is knip's)
    "vue-tsc": ("tsconfig.json",),
    # (storybook's directory: main.js imports the addons and the builder's configuration)
    "storybook": tuple(f".storybook/{name}{s}" for name in ("main", "preview", "manager") for s in CONFIG_SUFFIXES),
}
CONVENTIONAL_SUFFIXES = ("", ".json", ".jsonc", ".json5", ".yaml", ".yml", ".toml", *CONFIG_SUFFIXES)
#: The ending of a program's name that says it is the command line of a tool named without it.
CLI_SUFFIX = re.compile(r"-cli\d*$")


def _conventional_configuration(stems: t.Sequence[str], cwd: Path, root: Path, depth: int) -> Code:
    """:func:`_named_configuration`, once in a reading of a command."""
    return _once(_named_configuration, stems, cwd, root, depth)


def _conventional_names(stems: t.Sequence[str]) -> tuple[list[str], list[str]]:
    """The names of a tool's configuration by the conventions most follow, for each of its names
    (``stems``), and those names with their aliases and without a ``-cli`` ending."""
    names, stems = _listed_configs(stems)
    stems = [*stems, *(alias for stem in stems for alias in CONFIG_ALIASES.get(stem, ()))]
    stems = [*stems, *(CLI_SUFFIX.sub("", stem) for stem in stems)]  # (markdownlint-cli2's .markdownlint.cjs)
    stems = [*stems, *(stem.replace("-", "") for stem in stems)]  # (html-validate's .htmlvalidate.json)
    for stem in dict.fromkeys(s for s in stems if s and not s.startswith(".")):
        names += [f".{stem}rc{s}" for s in CONVENTIONAL_SUFFIXES]
        names += [f"{stem}.config{s}" for s in CONVENTIONAL_SUFFIXES[1:]]
        names += [f".config/{stem}rc{s}" for s in CONVENTIONAL_SUFFIXES]
        names += [f".config/{stem}.config{s}" for s in CONVENTIONAL_SUFFIXES[1:]]
        # (.markdownlint-cli2.jsonc, .size-limit.js, knip.ts: the tool's name with an ending)
        names += [f".{stem}{s}" for s in CONVENTIONAL_SUFFIXES[1:]]
        names += [f"{stem}{s}" for s in CONVENTIONAL_SUFFIXES[1:]]
        # (a task runner's: gulpfile.js, Gruntfile.js, as make's Makefile; karma.conf.js, wdio.conf.ts)
        names += [f"{name}file{s}" for name in dict.fromkeys((stem, stem.capitalize())) for s in CONVENTIONAL_SUFFIXES]
        names += [f"{stem}.conf{s}" for s in CONVENTIONAL_SUFFIXES[1:]]
        names += CONFIG_EXTRA.get(stem, ())
    return list(dict.fromkeys(names)), stems


def _listed_configs(stems: t.Sequence[str]) -> tuple[list[str], list[str]]:
    """What knip's table (:mod:`cogtools.run.tool_configs`) says a tool loads, by its package's
    name among its names (``stems``) or its scope's (``@nestjs/``): the files no convention
    names (gatsby-config.js, forge.config.js), and the stems it names by one; with its names that
    are no package's (``@scope/name`` left out)."""
    table = _tool_configs()
    scopes = [f"{stem.partition('/')[0]}/" for stem in stems if stem.startswith("@")]
    listed = [row for key in dict.fromkeys([*stems, *scopes]) for row in table.get(key, ())]
    names = [name for known, _ in listed for name in known]
    return names, [*(stem for stem in stems if "/" not in stem), *(stem for _, more in listed for stem in more)]


@functools.cache
def _tool_configs() -> dict[str, list[tuple[tuple[str, ...], tuple[str, ...]]]]:
    """Knip's table (:data:`cogtools.run.tool_configs.PLUGINS`) by the packages that enable each
    plugin: what each of their plugins names."""
    from cogtools.run.tool_configs import PLUGINS

    table: dict[str, list[tuple[tuple[str, ...], tuple[str, ...]]]] = {}
    for enablers, names, stems in PLUGINS.values():
        for enabler in enablers:
            table.setdefault(enabler, []).append((names, stems))
    return table


#: The most installed packages named after a tool that are pinned with it (:func:`_named_after`).
MAX_NAMED_AFTER = 64


def _named_after(stems: t.Sequence[str], cwd: Path, root: Path) -> Code:
    """The installed packages named after a tool (``NAME-*``, ``@NAME/*``, for each of its names
    without a ``-cli`` ending), which a tool may load by its plugin convention without a word of
    its configuration naming them whole: prettier 2 each ``prettier-plugin-*`` there is,
    size-limit each ``@size-limit/*`` package.json lists, remark ``remark-preset-x`` for
    ``preset-x``, textlint ``textlint-rule-x`` for ``x``; each pinned whole, so that one added,
    or changed, is a change (found where node looks from ``cwd``); past
    :data:`MAX_NAMED_AFTER`, open."""
    names = dict.fromkeys(CLI_SUFFIX.sub("", s) for s in stems if PACKAGE_NAME.fullmatch(s) and "/" not in s)
    own = {stem for stem in stems}
    found: list[Path] = []
    for directory in _up_to_reach(cwd, root):
        modules = directory / "node_modules"
        listing = _listing(modules)
        scopes = [_listing(modules / f"@{name}") for name in names if f"@{name}" in (listing or ())]
        if listing is None or None in scopes:  # (node opens a name in one it can search)
            why = f"cogtools cannot list {os.path.relpath(modules, root)}, where it may load packages named after it"
            return Code(open=((why, None),))
        for name in names:
            found += [modules / entry for entry in sorted(listing) if entry.startswith(f"{name}-") and entry not in own]
            if f"@{name}" in listing:
                found += [modules / f"@{name}" / entry for entry in sorted(_listing(modules / f"@{name}") or ())]
    if len(found) > MAX_NAMED_AFTER:
        why = (
            f"more than {MAX_NAMED_AFTER} installed packages are named after {next(iter(names), '')}, which it may load"
        )
        return Code(open=((why, None),))
    return Code().plus(*(_installed_package(package, root, set()) for package in found if package.is_dir()))


def _conventional_below(stems: t.Sequence[str], cwd: Path, root: Path, args: t.Sequence[str] = ()) -> Code:
    """A tool cogtools knows nothing of may look for its configuration from each file it reads
    (as markdownlint-cli2, cspell, oxlint and remark do): its conventional names in every
    directory under where it runs too (a look; one whose name starts with a dot included: oxlint
    given a directory reads them), and what one found there loads; past
    :data:`MAX_CONFIG_DIRECTORIES`, open (a declaration closes it on the person's word: whether
    such a tool looks below where it runs at all is cogtools' guess)."""
    if not _within(cwd, root):
        return Code()
    names, stems = _conventional_names(stems)
    # (not NAME.yaml, NAME.json...: a tool's own definition is often named after the program it
    # runs, tools/mocha.yaml; that name is the configuration of one tool only where it runs)
    data = {f"{stem}{suffix}" for stem in stems for suffix in CONVENTIONAL_SUFFIXES if suffix not in CONFIG_SUFFIXES}
    names = [name for name in names if name not in data]
    # (where it runs, and each directory it is given outside that: ../b, a dot-directory; one the
    # model names, any of the workspace)
    given = _given_places(args, cwd)
    outside = [path for path in given or () if path.is_dir() and _within(path, root) and not _within(path, cwd)]
    starts = [root] if given is None else [cwd, *outside]
    directories: list[Path] = list(starts[1:])
    for start in starts:
        walk = _directories_under(start, MAX_CONFIG_DIRECTORIES + 1, root)
        directories += walk.found
        if walk.why or len(directories) > MAX_CONFIG_DIRECTORIES:  # (a guess: the person's word closes it)
            why = f"{stems[0]} may look for its configuration from each file it reads, but " + (
                walk.why or f"in more than {MAX_CONFIG_DIRECTORIES} directories here"
            )
            return Code(open=((why, None),))
    where = " ".join(os.path.relpath(start, root) for start in starts)
    return _looked(f"{stems[0]} in {where}", names, None, directories, root)


def _named_configuration(stems: t.Sequence[str], cwd: Path, root: Path, depth: int) -> Code:
    """The configuration a JavaScript tool may read by the conventions most follow, for each of its
    names (``stems``: its program's, its package's, each without a ``-cli`` ending):
    ``.NAMErc`` and ``NAME.config`` with any ending, the same under ``.config/``, ``.NAME`` and
    ``NAME`` with any ending (``.markdownlint-cli2.jsonc``, ``knip.ts``), and package.json's key NAME, in each
    directory from ``cwd`` up to the workspace root (named even when missing, so that one written
    later is a change), and what each found names (a file, a package), followed."""
    names, stems = _conventional_names(stems)
    code = Code()
    for directory in _up_to_reach(cwd, root):
        paths = [directory / name for name in names]
        keys = (_manifest_key(stem, directory, root, depth + 1) for stem in dict.fromkeys(stems) if stem)
        found = (
            _config_code(p, root, directory, depth + 1) for p in paths if p.is_file()
        )  # (.config/x: for directory)
        code = code.plus(Code(tuple(paths)), *keys, *found)
    return code


def _given_commands(name: str, args: t.Sequence[str], cwd: Path, root: Path, depth: int) -> Code:
    """What a program is given to run by its arguments: a word that is a program (``cross-env
    NODE_ENV=test vitest run``, ``c8 mocha``: the command from there on; each such word, as an
    option's value may look like one, ``c8 --exclude node vitest``), a command as one word
    (concurrently's ``"eslint ."``, read as a script's), a script of package.json (``npm:lint``;
    a script runner's names and patterns, ``run-s lint test:*``), each followed as the command
    it is; a runner of the workspace's scripts (turbo) is open."""
    if name in WORKSPACE_RUNNERS:
        return Code(open=((f"{name} runs the scripts of the workspace's packages, {NO_PIN}", os.pardir),))
    code, followed = Code(), 0
    for index, word in enumerate(args[:MAX_GIVEN_WORDS]):
        if followed >= MAX_GIVEN:
            return code.plus(Code(open=((f"{name} is given more than {MAX_GIVEN} commands to run", None),)))
        script = MANAGER_SCRIPT.fullmatch(word)
        given = Code()
        if script is not None:
            given = _scripts_named(script.group(1), script.group(2), cwd, root, depth)
        elif name in SCRIPT_RUNNERS and word and not word.startswith("-"):
            given = _scripts_named("npm", word.split()[0], cwd, root, depth)
        elif any(c.isspace() for c in word.strip()):  # (a command line as one word)
            given = _script_code(word[:40], word, cwd, root, depth + 1, f"{name} runs {word[:40]!r}, which")
        elif _runs_program(word, cwd, root):  # (the command from there on; a word that only looks
            # like one, an option's value, costs a reading, each read once: :func:`command_code`)
            given = command_code(list(args[index:]), cwd, root, depth + 1)
        else:
            continue
        code, followed = code.plus(given), followed + 1
    return code


def _runs_program(word: str, cwd: Path, root: Path) -> bool:
    """Whether ``word`` of a command line names a program that would run: an interpreter, a
    program the call finds (:func:`_found_program`), an executable file."""
    if not word or word.startswith("-") or "{{" in word or _ASSIGNMENT.match(word):
        return False
    if "/" in word:
        path = Path(word) if os.path.isabs(word) else cwd / word
        return os.path.isfile(path) and os.access(path, os.X_OK)
    return _interprets(word) or _found_program(word, root)[0] is not None


def _scripts_named(manager: str, pattern: str, cwd: Path, root: Path, depth: int) -> Code:
    """What a runner given a script of package.json by its name, or by a pattern
    (``lint:*``, ``chk:{a,b}``, ``chk:?``; ``/`` for ``:``, as npm-run-all takes it), runs: each
    script it names, as ``MANAGER run NAME`` runs it; more than :data:`MAX_GIVEN`, open."""
    import fnmatch

    scripts = _scripts(_nearest(cwd, "package.json", root))
    if re.search(r"[+@!*?]\(|^!|\\|\{[^{}]*\.\.", pattern):  # (minimatch's extglobs, ranges, escapes)
        return Code(open=((f"it names scripts by a pattern cogtools does not read ({pattern[:40]})", None),))
    patterns = {form for braced in _braces(pattern) for form in (braced, braced.replace("/", ":"))}
    names = [key for key in scripts if any(fnmatch.fnmatchcase(key, form) for form in patterns)]
    if len(names) > MAX_GIVEN:
        return Code(open=((f"it is given more than {MAX_GIVEN} scripts to run ({pattern[:40]})", None),))
    return Code().plus(*(command_code([manager, "run", key], cwd, root, depth + 1) for key in names))


def _braces(pattern: str, limit: int = 64) -> list[str]:
    """A pattern's brace expansion (``a:{b,c}`` is ``a:b`` and ``a:c``), at most ``limit`` forms."""
    found = re.search(r"\{([^{}]*)\}", pattern)
    if found is None or limit <= 1:
        return [pattern]
    forms: list[str] = []
    for choice in found.group(1).split(","):
        forms += _braces(pattern[: found.start()] + choice + pattern[found.end() :], limit - len(forms))
        if len(forms) >= limit:
            break
    return forms[:limit]


def _found_by_node(root: Path, name: str) -> Path | None:
    """Where node finds the package ``name`` for the project: in the nearest ``node_modules``
    from the project up to the root of its workspace (a package hoisted there); None if nowhere."""
    return node_finds(root, name, _reach(root))


#: What a package manager's shim in node_modules/.bin runs: ``"$basedir/../typescript/bin/tsc"``.
SHIM_TARGET = re.compile(r'"\$basedir/([^"$`]{1,512})"')


def _shim_target(path: Path) -> Path | None:
    """The script a shim of ``node_modules/.bin`` runs (pnpm writes shell scripts, not links),
    as the shim names it from its own directory (not where a link leads: a package is declared
    by where node finds it); None when it names none."""
    text = _head(path).decode("utf-8", "replace")
    for relative in SHIM_TARGET.findall(text):
        candidate = Path(os.path.normpath(path.parent / relative))
        if candidate.name not in ("node", "node.exe") and candidate.is_file():
            return candidate
    return None


def _shebang(path: Path) -> list[str]:
    """The interpreter a script's ``#!`` line names (``["/usr/bin/env", "python3"]``), or []."""
    try:
        with open(path, "rb", buffering=0) as f:
            first = f.read(256).split(b"\n", 1)[0] if stat.S_ISREG(os.fstat(f.fileno()).st_mode) else b""
    except OSError:
        return []
    if not first.startswith(b"#!"):
        return []
    return first[2:].decode("utf-8", "replace").split()


def _reach(root: Path) -> Path:
    """How far above the project an installed package is pinned as its code (by its tree's
    digest, wherever it lies): to the root of the workspace it is a package of, where npm and yarn
    hoist its dependencies and pnpm keeps its store; else the project itself."""
    from cogtools.core.fsutil import workspace_root

    workspace = workspace_root(root)
    return root if workspace is None else workspace


def _within(path: Path, root: Path) -> bool:
    return under(os.path.abspath(path), os.path.abspath(root))


def _walk(
    directory: Path, keep: t.Callable[[str, str], bool], enter: t.Callable[[str], bool] = lambda name: True
) -> list[Path]:
    """The files under ``directory`` that ``keep(directory, name)`` keeps, in the directories
    ``enter`` enters (a link to a directory followed once, as an import or a source would), sorted;
    at most one more than :data:`MAX_CODE_FILES` (past it, the pin says the code is too large)."""
    found: list[Path] = []
    visited: set[str] = set()
    for top, dirs, files in os.walk(directory, followlinks=True):
        real = os.path.realpath(top)
        if real in visited:  # a loop of links, or a second way to the same directory
            dirs[:] = []
            continue
        visited.add(real)
        dirs[:] = sorted(d for d in dirs if enter(d))
        found += [Path(top, name) for name in sorted(files) if keep(top, name)]
        if len(found) > MAX_CODE_FILES:
            break
    return found


@functools.cache
def _python_suffixes() -> tuple[str, ...]:
    import importlib.machinery

    return tuple(importlib.machinery.all_suffixes())


def _importable(directory: str, name: str) -> bool:
    """Whether ``import NAME`` could load this file: a source, bytecode or extension module whose
    stem is an identifier, or a package's ``__init__``."""
    for suffix in _python_suffixes():
        if name.endswith(suffix):
            return name[: -len(suffix)].isidentifier()
    return False


#: What in a Python file moves where it imports from, so that its code cannot be told.
MOVES_IMPORTS = re.compile(
    rb"\bsys\.path\s*(?:\.\s*(?:insert|append|extend)\b|\[[^\]\n]*\]\s*=(?!=)|\+=|=(?!=))|\baddsitedir\b|\bPYTHONPATH\b\W*\]?\s*="
)


def python_tree(directory: Path, root: Path, scan: bool = False) -> Code:
    """Every module ``import`` finds in ``directory`` (the first entry of a script's sys.path,
    or of ``python -m``'s): its modules, and its packages whole (a directory whose name is an
    identifier is one, ``__init__.py`` or not; ``node_modules`` is not Python's); no
    ``__pycache__``, which a pinned run never reads. ``scan``: a file that moves ``sys.path``
    leaves the code open."""
    files = _walk(
        directory, _importable, lambda name: name.isidentifier() and name not in ("__pycache__", "node_modules")
    )
    open_: list[tuple[str, str | None]] = []
    if scan:
        for path in files[:MAX_CODE_FILES]:
            if path.suffix == ".py" and MOVES_IMPORTS.search(_head(path)):
                open_.append((f"{_shown(path, root)} changes where Python imports from (sys.path)", None))
                break
    return Code(tuple(files), tuple(open_))


def _beside(script: Path) -> Code:
    """The other files of a script's own directory, which it reaches by ``__file__`` (a helper it
    runs, a file it reads as code): pinned as they are, not followed."""
    try:
        with os.scandir(script.parent) as listing:
            entries = sorted(entry.path for entry in itertools.islice(listing, MAX_CODE_FILES + 1) if entry.is_file())
    except OSError:
        return Code()
    return Code(tuple(Path(path) for path in entries if Path(path) != script))


def _head(path: Path) -> bytes:
    """The start of a regular file (:data:`MAX_SCANNED_BYTES`); nothing for what is not one (a FIFO
    the agent put in place of a script would make a plain open wait for ever)."""
    opened = open_regular(path)  # (a directory at a configuration's name: nothing, not an error)
    if opened is None:
        return b""
    with opened as f:
        try:
            return f.read(MAX_SCANNED_BYTES)
        except OSError:
            return b""


#: A command that sources a file, at the start of a shell command, and the rest of its line.
SOURCES = re.compile(r"(?:^|[;&|({]|\bthen|\bdo|\belse)\s*(?:source|\.)\s+([^\n;&|]+)", re.MULTILINE)
#: A command that changes the directory, and the rest of its line.
CHANGES_DIRECTORY = re.compile(r"(?:^|[;&|({]|\bthen|\bdo|\belse)\s*(?:cd|pushd)\s+([^\n;&|]+)", re.MULTILINE)
#: Shell that runs text it makes itself.
ALIASES = re.compile(r"(?:^|[;&|({]|\bthen|\bdo|\belse)\s*alias\s+[\w.:@-]+=", re.MULTILINE)
EVALUATES = re.compile(r"(?:^|[;&|({]|\bthen|\bdo|\belse)\s*eval\b", re.MULTILINE)
#: The ways a script names its own directory, in place: ``$(dirname "$0")`` (of BASH_SOURCE, of
#: its realpath), ``$(cd "$(dirname "$0")" && pwd)``, ``${0%/*}``; each is read as one word
#: (:data:`OWN`) before the text is split into commands.
_QUOTE = "[\"']?"
_SCRIPT = rf"{_QUOTE}\$\{{?(?:0|BASH_SOURCE(?:\[0\])?)\}}?{_QUOTE}"
_DIRNAME = (
    rf"\$\(\s*dirname\s+(?:--\s+)?(?:{_SCRIPT}|{_QUOTE}\$\((?:realpath|readlink\s+-f)\s+(?:--\s+)?{_SCRIPT}\){_QUOTE})\s*\)"
    rf"|`\s*dirname\s+(?:--\s+)?{_SCRIPT}\s*`"
)
#: A redirection of ``cd``'s output or errors (``>/dev/null 2>&1``).
_QUIET = r"(?:\s*[&0-9]*>>?\s*(?:&[0-9]|/dev/null))*"
OWN_EXPRESSION = re.compile(
    rf"\$\(\s*cd\s+(?:-[PL]\s+)?(?:--\s+)?{_QUOTE}(?:{_DIRNAME}){_QUOTE}{_QUIET}\s*(?:&&|;)\s*pwd(?:\s+-[PL])?\s*\)"
    rf"|{_DIRNAME}|\$\{{(?:0|BASH_SOURCE(?:\[0\])?)%/\*\}}"
)
#: What a script's own directory is written as once read (a character no script holds: one
#: that does is open).
OWN = "\x00"
OWN_DIRECTORY = re.compile(rf"^{OWN}(?:/|$)")
#: A variable a script assigns its own directory to (``DIR="$(cd "$(dirname "$0")" && pwd)"``).
OWN_ASSIGNMENT = re.compile(
    rf"^[ \t]*(?:(?:export|readonly|local|declare)\s+)?([A-Za-z_]\w{{0,63}})=([\"']?){OWN}\2[ \t]*(?:$|;)", re.M
)


def _own_directory_named(text: str) -> str:
    """A shell text with its script's own directory written as :data:`OWN`, in place and where a
    variable it is assigned to is used (``node "$DIR/h.js"``), so that the file it names is found."""
    text = OWN_EXPRESSION.sub(OWN, text)
    for match in list(OWN_ASSIGNMENT.finditer(text))[:64]:
        name = match.group(1)
        if len(re.findall(rf"(?<![\w$]){name}\+?=", text)) > 1:
            continue  # (assigned again: what it holds there cannot be told)
        text = re.sub(rf"\$(?:{name}\b|\{{{name}\}})", OWN, text)
    return text


def _words(text: str) -> list[str]:
    """The words of a line of shell, its quotes taken away (as they are, where it cannot be split)."""
    import shlex

    try:
        return shlex.split(text, comments=True)
    except ValueError:
        return text.split()


#: What separates the commands of a line of shell (group 1); a parameter's expansion
#: (``${M:-mocha}``, ``${HOME}``) is a word's, not a group's braces.
COMMANDS = re.compile(r"\$\{[^{}`$]*\}|(&&|\|\||[;|&(){}]|\$\(|`)")


def _commands(line: str) -> list[str]:
    """The simple commands of a line of shell, as :data:`COMMANDS` separates them (not within
    quotes: ``node -p "require(x) && 1"`` is one command)."""
    parts, start = [], 0
    for match in COMMANDS.finditer(_unquoted(line)):
        if match.group(1) is not None:
            parts.append(line[start : match.start()])
            start = match.end()
    parts.append(line[start:])
    return parts


def _unquoted(line: str) -> str:
    """``line`` with what its quotes hold that separates commands elsewhere blanked out (all of
    a single-quoted string; in a double-quoted one, all but a command substitution's start),
    offsets kept."""
    chars, quote, index = list(line), "", 0
    while index < len(line):
        char = line[index]
        if char == "\\" and quote != "'":
            index += 2
            continue
        if quote and char == quote:
            quote = ""
        elif not quote and char in "'\"":
            quote = char
        elif (
            quote == "'" or quote == '"' and char in "&|;(){}" and not (char == "(" and line[index - 1 : index] == "$")
        ):
            chars[index] = " "
        index += 1
    return "".join(chars)


#: A word that a variable names (``$ENTRY``, ``${DIR}/x.js``; not ``$1`` nor ``$@``, the
#: script's arguments, which its caller gives).
NAMED_BY_VARIABLE = re.compile(r"\$\{?[A-Za-z_]")


class Runs(t.NamedTuple):
    """What a line of shell runs (:func:`_runs`)."""

    #: the files of the workspace it runs by path, or gives a shell
    found: list[Path]
    #: the text it gives a shell with ``-c``, to be read as shell in turn
    texts: list[str]
    #: the programs or scripts it names by a variable
    unknown: list[str]
    #: the command lines of python or node it runs, to be read as commands
    commands: list[list[str]]


def _runs(line: str, bases: t.Sequence[Path], script: Path | None, root: Path | None = None) -> Runs:
    """The files of the workspace a line of shell runs, resolved against each of ``bases`` (where
    it may be running): a program it starts by path (``./other.sh``, ``"$(dirname "$0")/x"``)
    and the script it gives a shell (``sh scripts/x.sh``); a file it only reads (``cat
    notes.txt``) is data, not code; and what python or node it starts (``python3 -m tool``,
    ``node -r ./s.cjs x.js``), and a package's program, a package manager, make or git (which
    load code by their own conventions; with the project's ``root``), read as commands are."""
    runs = Runs([], [], [], [])
    for command in _commands(line):
        given = _words(command)
        words = _command_words(given)  # (after `timeout 60`, `env -i`, `nice -n 5`...)
        if words:
            _command_runs(words, bases, script, runs, root)
        if given:  # (and a package's program any other program may run: `flock L mocha`)
            _wrapped_programs(given, script, runs, root)
    return runs


#: Programs whose command lines a shell script runs are read as commands (:func:`command_code`).
READ_AS_COMMANDS = PACKAGE_MANAGERS | frozenset("npx pnpx make gmake git".split())


def _read_as_command(program: str, root: Path | None) -> bool:
    """Whether a shell's command of ``program`` (named bare) is read as a command line is."""
    if root is None or "$" in program:
        return False
    if "/" in program:  # (node_modules/.bin/vitest, named by its path)
        return program.startswith("node_modules/.bin/") or "/node_modules/.bin/" in program
    return program in READ_AS_COMMANDS or _found_program(program, root)[1]


def _command_runs(
    words: list[str], bases: t.Sequence[Path], script: Path | None, runs: Runs, root: Path | None
) -> None:
    """What one simple command of shell runs (:func:`_runs`), added to ``runs``."""
    program = os.path.basename(words[0])
    if program in SHELLS and _shell_code(words[1:]) is not None:
        runs.texts.append(_shell_code(words[1:]) or "")
        return
    interpreted = _interprets(program)
    named = words[:1] + ([next((w for w in words[1:] if not w.startswith("-")), "")] if interpreted else [])
    if interpreted and program not in SHELLS or _read_as_command(words[0], root):
        runs.unknown.extend(word for word in named if NAMED_BY_VARIABLE.search(word))
        runs.commands.append([w.replace(OWN, str(script.parent)) if script else w for w in words])
        return
    for word in named:
        own = OWN_DIRECTORY.match(word) if script is not None else None
        if own and script is not None:
            runs.found.append(script.parent / word[own.end() :])
        elif NAMED_BY_VARIABLE.search(word):
            runs.unknown.append(word)
        elif word and ("/" in word or interpreted and word != words[0]):
            for base in bases:
                runs.found.extend(named_files([word], base))


def _wrapped_programs(words: t.Sequence[str], script: Path | None, runs: Runs, root: Path | None) -> None:
    """What a simple command may run of the project's packages through whatever its program is
    (no list of wrappers ends): each later word that is a package's program of node_modules/.bin
    (``flock L mocha``, ``setsid -w mocha``, ``find . -exec mocha {} +``), the command from there
    on; a word that is a command line starting with one (``su -c 'mocha -r x'``), read as shell text."""
    if root is None:
        return
    for index, word in enumerate(words[1:MAX_GIVEN_WORDS], start=1):
        first = word.strip("()`'\"").split(maxsplit=1)
        if not first or "$" in first[0]:
            continue
        name = first[0]
        package = "/node_modules/.bin/" in f"/{name}" or "/" not in name and _found_program(name, root)[1]
        if not package:
            continue
        if len(first) > 1:  # (a command line given as one word)
            runs.texts.append(word.strip("()`'\""))
        else:
            runs.commands.append(
                [w.replace(OWN, str(script.parent)) if script else w for w in [name, *words[index + 1 :]]]
            )


def _programs(line: str) -> list[str]:
    """The bare names of the programs a line of shell starts (``node`` of ``FOO=1 node x.js``)."""
    found = []
    for command in _commands(line):
        words = _command_words([word.strip("()") for word in _words(command)])
        if words and "/" not in words[0] and "$" not in words[0]:
            found.append(words[0])
    return found


def _shell(script: Path, cwd: Path, root: Path, depth: int, seen: set[Path]) -> Code:
    """What a shell script runs of the workspace (:func:`_shell_text`)."""
    seen.add(script)
    text = _head(script).decode("utf-8", "replace")
    if OWN in text:
        return Code(open=((f"{_shown(script, root)} holds a NUL character, which cogtools does not read", None),))
    return _shell_text(text, script, cwd, root, depth, seen)


#: A file a shell reads its commands from (``sh < f``, ``bash <f``) or sources at its start
#: (``BASH_ENV=f bash``): the file (group 1 or 2).
SHELL_READS = re.compile(
    r"""(?<![\w./-])(?:sh|bash|dash|zsh|ksh|mksh)\b[^|;&<>\n]*<\s*(?!&)['"]?([^\s'";&|]+)"""
    r"""|(?<![\w$])BASH_ENV=['"]?([^\s'";&|]+)"""
)
#: Text a shell runs that no file names: piped into one (``cat f | sh``), or a command
#: substitution in a command's place (``$(cat f)``).
SHELL_PIPED = re.compile(
    r"""\|\s*(?:sh|bash|dash|zsh|ksh|mksh)\b(?!\s+\S*\.sh)|(?:^|[;&|]\s*|\bthen\s+|\bdo\s+)(?:\$\(|`)"""
    # (what a command substitution gives a shell's -c or node's -e, or a pipe gives node's stdin)
    r"""|(?:\s-c|\s-e|--eval|\s-p|--print)\s+["']?(?:\$\(|`)|\|\s*(?:node|nodejs|bun|deno)\b(?:\s+-)?\s*(?:$|[;&|)])"""
)


def _shell_line(line: str, bases: t.Sequence[Path], root: Path, shown: str) -> tuple[list[Path], Code]:
    """What a line of shell gives a shell or node to run besides the commands it names: a file a
    shell reads its commands from (``sh < f``, ``BASH_ENV=f``), to follow as a script; what
    NODE_OPTIONS set inline or exported preloads; text piped into a shell or run as a command
    substitution, open."""
    read = [base / name for match in SHELL_READS.finditer(line) for name in match.groups() if name for base in bases]
    segments = SCRIPT_SEPARATORS.split(line) if "NODE_OPTIONS" in line else []
    code = Code().plus(*(_inline_node_options(segment, base, root) for segment in segments for base in bases))
    if SHELL_PIPED.search(line):
        code = code.plus(Code(open=((f"{shown} runs text it reads ({line.strip()[:40]})", None),)))
    return read, code


def _shell_text(text: str, script: Path | None, cwd: Path, root: Path, depth: int, seen: set[Path]) -> Code:
    """The files a text of shell sources (``. ./lib.sh``, ``source "$(dirname "$0")/x.sh"``,
    ``. lib.sh`` found on PATH or where it runs) and the scripts of the workspace it runs, each
    followed. Its own directory (``cd "$(dirname "$0")"``) is a place it may run in too; a
    directory change to anywhere else, ``eval``, or a source whose path it only knows at run
    time leave the code open."""
    shown = _shown(script, root) if script is not None else "its shell command"
    text = _own_directory_named(text) if script is not None else text
    bases, code = _bases(text, script, cwd, shown)
    if EVALUATES.search(text):
        code = code.plus(Code(open=((f"{shown} runs text it makes itself (eval)", None),)))
    if ALIASES.search(text):
        code = code.plus(Code(open=((f"{shown} defines aliases, which cogtools does not follow", None),)))
    sourced, targets = _sources(text, script, bases, root, shown)
    code = code.plus(sourced)
    for target in list(targets) if script is not None else ():
        # (a file sourced shares its caller's $0: one that names it is read so as well, once)
        once = target.with_name(f"{target.name}\0$0")
        if once not in seen and target not in seen and os.path.isfile(target) and _within(target, root):
            seen.add(once)
            inner = _head(target).decode("utf-8", "replace")
            if OWN not in inner and re.search(r"\$\{?0\b", inner):
                code = code.plus(_shell_text(inner, script, cwd, root, depth + 1, seen))
    for line in text.splitlines():
        runs = _runs(line, bases, script, root)
        targets += runs.found
        read, feeds = _shell_line(line, bases, root, shown)
        targets += read
        code = code.plus(feeds)
        for word in runs.unknown:
            code = code.plus(Code(open=((f"{shown} runs {word[:60]}, which it names only when it runs", None),)))
        for inner in runs.texts:
            code = code.plus(_shell_text(inner, script, cwd, root, depth + 1, seen))
        for command in runs.commands:
            code = code.plus(*(command_code(command, base, root, depth + 1) for base in bases))
        if SCRIPT_BINS.get():  # (run by a package manager's script: its node_modules/.bin first on PATH)
            code = code.plus(*(_program_itself(word, cwd, root, depth + 1) for word in _programs(line)))
    for target in dict.fromkeys(targets):
        if target not in seen and os.path.isfile(target) and _within(target, root):
            seen.add(target)
            language = [] if target.suffix in (".py", *JAVASCRIPT) else ["sh"]
            code = code.plus(Code((target,)), script_code(target, language, cwd, root, depth + 1, seen))
    return code


def _bases(text: str, script: Path | None, cwd: Path, shown: str) -> tuple[list[Path], Code]:
    """Where a text of shell may run what it names: ``cwd``, and its script's own directory once
    it moves there (``cd "$(dirname "$0")"``); a move anywhere else leaves the code open."""
    bases, code = [cwd], Code()
    for match in CHANGES_DIRECTORY.finditer(text):
        word = next((w for w in _words(match.group(1)) if w not in ("-P", "-L", "--")), "")
        own = OWN_DIRECTORY.match(word) if script is not None else None
        if own and script is not None and "$" not in word[own.end() :]:
            bases.append(script.parent / word[own.end() :])
        else:
            word = word.replace(OWN, '$(dirname "$0")')
            code = code.plus(Code(open=((f"{shown} changes directory ({word or 'cd'}) before what it runs", None),)))
    return bases, code


def _sources(
    text: str, script: Path | None, bases: t.Sequence[Path], root: Path, shown: str
) -> tuple[Code, list[Path]]:
    """What a text of shell sources: each place a sourced name can be found (where it runs, in
    its script's directory, on PATH for a name without a slash), pinned even where nothing is
    yet, and the files to follow; a name it only knows at run time leaves the code open."""
    code, targets = Code(), []
    for match in SOURCES.finditer(text):
        word = next(iter(_words(match.group(1))), "")
        own = OWN_DIRECTORY.match(word) if script is not None else None
        if own and script is not None:
            targets.append(script.parent / word[own.end() :])
        elif not word or any(c in word for c in "$`*?["):
            why = f"{shown} sources {word or match.group(1).strip()}, a file it names only when it runs"
            code = code.plus(Code(open=((why, None),)))
        elif os.path.isabs(word):
            targets.append(Path(word))
        else:
            places = [*bases, *([] if "/" in word else _path_in(root))]
            code = code.plus(Code(tuple(place / word for place in places if _within(place / word, root))))
            targets += [place / word for place in places]
    return code, targets


def _path_in(root: Path) -> list[Path]:
    """The directories of the person's PATH that lie in the project (an activated ``.venv/bin``):
    a program or sourced file found there is the workspace's."""
    return [
        Path(entry) for entry in os.environ.get("PATH", "").split(os.pathsep) if entry and _within(Path(entry), root)
    ]


#: A static import or re-export of JavaScript, and its specifier.
STATIC_IMPORT = re.compile(
    r"""(?:^|[;\s}])(?:import|export)\b[^'";()]{0,512}?\bfrom\s*(['"])([^'"\n]+)\1|(?:^|[;\s])import\s*(['"])([^'"\n]+)\3""",
    re.MULTILINE,
)
#: A call of import() or require(), and what it is given.
CALLED_IMPORT = re.compile(r"\b(?:import|require)\s*\(\s*([^)]{0,512}?)\s*\)")


@functools.lru_cache(maxsize=16)
def _require_bound(makers: tuple[str, ...]) -> re.Pattern[str]:
    """A binding of require itself (``const r = require``) or of a require that one of
    ``makers`` (createRequire, under the names a module gives it) makes (``const load =
    createRequire(__filename)``, ``module.createRequire(...)``), from its ``=`` (the name is read
    back from there: a pattern that starts at every name costs a large bundle more than its
    whole scan): its calls import as require's do."""
    named = "|".join(map(re.escape, makers))
    return re.compile(rf"=\s*(?:[\w$]+\s*\.\s*)?(?:(?:{named})\s*\(|require\b(?!\s*[(.\w$]))")


BOUND_NAME = re.compile(r"(?<![\w$.])([A-Za-z_$][\w$]{0,63})\s*$")
#: createRequire imported under another name.
MAKER_ALIAS = re.compile(r"createRequire\s+as\s+([A-Za-z_$][\w$]{0,63})")
#: The name require.resolve is given.
RESOLVED = re.compile(r"require\.resolve\s*\(\s*([^)]{0,512}?)\s*\)")
#: Node's own modules (``fs``, ``node:fs``), which are not the workspace's.
NODE_BUILTINS = frozenset(
    "assert async_hooks buffer child_process cluster console constants crypto dgram diagnostics_channel dns domain"
    " events fs http http2 https inspector module net os path perf_hooks process punycode querystring readline repl"
    " stream string_decoder sys timers tls trace_events tty url util v8 vm wasi worker_threads zlib test".split()
)


def _javascript(script: Path, root: Path, tsx: t.Sequence[TsView] = ()) -> Code:
    """The modules a JavaScript or TypeScript file imports of the workspace (relative
    specifiers, followed), the package.json nearest to each (its ``type`` says how node reads
    it); a package of ``node_modules`` or an import named only at run time leaves the code open
    unless declared. Run through tsx, an import by name is first what ``tsx``'s tsconfig
    views map it to (each file tried on the way named even when missing), and a .tsx or .jsx
    file imports its JSX runtime."""
    code = Code()
    seen: set[Path] = set()
    todo = [script]
    # a package's script run from outside the project (pnpm's store, a workspace's package): the
    # modules of its own package are its code too, wherever a link leads
    bounds = [root] if _within(script, root) else [root, *_own_package(script)]
    if not _within(script, root):  # (a toolset hoisted to the workspace root's node_modules, say)
        if len(bounds) > 1 and _within(script, _reach(root)):  # its package, pinned whole
            code = code.plus(_installed_package(bounds[1], root, set()))
        else:
            where = os.path.relpath(script, root)
            code = code.plus(Code(open=((f"it runs {where}, outside the project, {NO_PIN}", where),)))
    while todo and len(seen) <= MAX_CODE_FILES:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        manifest = _nearest(module.parent, "package.json", bounds[-1])
        files = [module] if module != script else []
        if manifest is not None:
            files.append(manifest)
        code = code.plus(Code(tuple(files), manifests=((manifest, "load"),) if manifest is not None else ()))
        if module.suffix == ".json":
            continue
        specifiers, unknown = _imports(module, root)
        code = code.plus(unknown)
        if tsx and module.suffix in (".tsx", ".jsx"):
            specifiers += _jsx_runtime(module, tsx)
        for specifier in specifiers:
            found, more = _imported(module, specifier, manifest, bounds, root, tsx)
            code = code.plus(more)
            todo += found
    return code


def _imported(
    module: Path, specifier: str, manifest: Path | None, bounds: list[Path], root: Path, tsx: t.Sequence[TsView]
) -> tuple[list[Path], Code]:
    """What ``module``'s import of ``specifier`` loads: the modules of the workspace to follow
    (within ``bounds``), and the code it makes the tool's (an installed package, the files tsx
    would load first, named while missing)."""
    code, follow, unmapped = _mapped(specifier, tsx, root) if tsx and _within(module, root) else (Code(), [], True)
    if not unmapped:
        return follow, code
    if specifier.startswith((".", "/")):
        wanted = module.parent / specifier
        found = _resolve(wanted)
        if found is not None and any(_within(found, bound) for bound in bounds):
            # (tsx prefers the TypeScript of a name: one written later beside it is a change)
            return [found], Code(tuple(p for p in _ts_first(wanted) if p != found and _within(p, root)))
    elif specifier.startswith("#") and manifest is not None and (mapped := _imports_map(specifier, manifest, root)):
        return [*follow, *mapped[0]], code.plus(mapped[1])
    elif not specifier.startswith("node:") and specifier.split("/")[0] not in NODE_BUILTINS:
        return follow, code.plus(_package(module, specifier, root, manifest))
    return follow, code


def _imports_entry(imports: t.Any, specifier: str) -> t.Any:
    """What a package.json ``imports`` map gives ``#name``: its entry, or a pattern's
    (``"#lib/*": "./lib/*.js"``, the longest prefix first) with ``*`` put in; None for none."""
    if not isinstance(imports, dict):
        return None
    found = _pattern_match((key for key in imports if isinstance(key, str)), specifier)
    if found is None or found[0] == specifier:
        return imports.get(specifier)
    return [t.replace("*", found[1]) for t in _strings_in(imports[found[0]], MAX_EXTENDS)]


def _pattern_match(patterns: t.Iterable[str], specifier: str) -> tuple[str, str] | None:
    """The pattern of a map of names (tsconfig's ``paths``, package.json's ``imports``) that
    ``specifier`` matches, and what its ``*`` stands for: the pattern itself, else the one with a
    single ``*`` and the longest prefix; None for none."""
    best: tuple[str, str] | None = None
    for pattern in patterns:
        if pattern == specifier:
            return pattern, ""
        prefix, _, suffix = pattern.partition("*")
        fits = pattern.count("*") == 1 and len(specifier) >= len(prefix) + len(suffix)
        if fits and specifier.startswith(prefix) and specifier.endswith(suffix):
            if best is None or len(prefix) > len(best[0].partition("*")[0]):
                best = pattern, specifier[len(prefix) : len(specifier) - len(suffix)]
    return best


def _imports_map(specifier: str, manifest: Path, root: Path, own: str = "") -> tuple[list[Path], Code] | None:
    """What node loads for ``#name`` by the ``imports`` map of ``manifest`` (the package.json
    nearest the importer, whose ``imports`` its pin covers), or for its own package's name
    ``own`` (``p5/extra``) by its ``exports``: the files of the workspace a target names, to
    follow, and a package one names, pinned; None when the map gives nothing to load (the
    import stays open)."""
    data = _manifest(manifest)
    if own:
        exports = data.get("exports")
        if isinstance(exports, str) or isinstance(exports, dict) and not any(str(k).startswith(".") for k in exports):
            exports = {".": exports}  # (conditions alone, or a string: the package's own entry)
        entry = _imports_entry(exports, "." + specifier[len(own) :])
    else:
        entry = _imports_entry(data.get("imports"), specifier)
    follow, code = [], Code()
    for target in _strings_in(entry, MAX_EXTENDS):
        if target.startswith("./") and "\0" not in target:
            found = _resolve(manifest.parent / target)
            if found is None or not _within(found, root):
                return None
            follow.append(found)
        elif _package_named(target):
            code = code.plus(_package(manifest, target, root))
        else:
            return None
    return (follow, code) if follow or code != Code() else None


def _mapped(specifier: str, views: t.Sequence[TsView], root: Path) -> tuple[Code, list[Path], bool]:
    """Where tsconfig's ``paths`` or ``baseUrl`` send an import by name under tsx, by each view
    (tsx reads one, ts-node another): the files of the workspace tried first (named, found or
    not), those loaded, and whether a view leaves the import to node's own resolution."""
    tried: dict[Path, None] = {}
    found: list[Path] = []
    unmapped = False
    for view in views:
        loaded = None
        for target in view.mapped(specifier) if not specifier.startswith((".", "/", "node:")) else ():
            for candidate in (*_ts_first(target), target, *_resolve_candidates(target)):
                if not _within(candidate, root):
                    continue
                tried[candidate] = None
                if candidate.is_file():
                    loaded = candidate
                    break
            if loaded is not None:
                break
        found += [loaded] if loaded is not None and loaded not in found else []
        unmapped = unmapped or loaded is None
    return Code(tuple(tried)), found, unmapped


#: A .tsx file's own choice of JSX runtime (``/** @jsxRuntime automatic */``, ``@jsxImportSource preact``).
JSX_PRAGMA = re.compile(r"@jsx(Runtime|ImportSource)\s+([\w@./-]+)")


def _jsx_runtime(module: Path, views: t.Sequence[TsView]) -> list[str]:
    """The module an automatic JSX runtime makes a .tsx (or .jsx) file import, which its text
    does not name (``react/jsx-runtime``, or of its ``jsxImportSource``), by tsconfig or the
    file's own pragma."""
    text = _head(module).decode("utf-8", "replace")
    pragmas = {m.group(1): m.group(2) for m in JSX_PRAGMA.finditer(text)}
    found = []
    for view in views:
        automatic = view.jsx in ("react-jsx", "react-jsxdev")
        if pragmas.get("Runtime", "automatic" if automatic else "classic") == "automatic":
            runtime = "jsx-dev-runtime" if view.jsx == "react-jsxdev" else "jsx-runtime"
            found.append(f"{pragmas.get('ImportSource', view.jsx_source)}/{runtime}")
    return list(dict.fromkeys(found))


def _imports(module: Path, root: Path) -> tuple[list[str], Code]:
    """What the JavaScript file ``module`` imports by name (``import``, ``export from``,
    ``import()``, ``require`` of a string), and what of its code cannot be told: a module it names
    only when it runs, or other code it starts (a worker, a child process)."""
    text = _head(module).decode("utf-8", "replace")
    unknown = Code()
    if SPAWNS.search(text):
        why = f"{_shown(module, root)} starts other code (a worker or a child process), which cogtools cannot follow"
        unknown = unknown.plus(Code(open=((why, None),)))
    if EVALS.search(text):
        why = f"{_shown(module, root)} runs text as code (eval, new Function, vm), which cogtools cannot follow"
        unknown = unknown.plus(Code(open=((why, None),)))
    specifiers, computed = _specifiers(text)
    dotenv = any(specifier.split("/")[0] in DOTENV_MODULES for specifier in specifiers)
    if dotenv or "loadEnvFile" in text:
        unknown = unknown.plus(_dotenv_loaded(root), _environment_loads(text, dotenv, module, root))
    for argument in computed:
        why = f"{_shown(module, root)} imports a module it names only when it runs ({argument[:40]})"
        unknown = unknown.plus(Code(open=((why, _computed_under(argument, module, root)),)))
    return specifiers, unknown


#: Modules that load environment files into the process, whose children then take their
#: NODE_OPTIONS (jest's workers, playwright's): dotenv's ``config()``, dotenv-flow, dotenvx.
DOTENV_MODULES = frozenset(("dotenv", "dotenv-flow", "@dotenvx"))


def _dotenv_loaded(root: Path) -> Code:
    """The environment files a module that imports dotenv loads (from where the tool runs, the
    project's root: each of the cascade, named even when missing), pinned whole, and what their
    NODE_OPTIONS preload in the programs it starts."""
    paths = [root / name for name in _CASCADE]
    preloads = (_environment_preloads(path, root, root) for path in paths if path.is_file())
    return Code(tuple(paths)).plus(*preloads)


#: Where JavaScript loads an environment file it names: node's ``process.loadEnvFile(...)`` (group
#: 1), dotenv's ``config({ path: ... })`` (group 2: the value, a string, a list or what computes one).
ENV_FILE_LOAD = re.compile(
    r"""\bloadEnvFile\s*\(([^()]{0,300}(?:\((?:[^()]|\([^()]{0,100}\)){0,300}\))?[^()]{0,300})\)"""
    r"""|\bconfig\s*\(\s*\{[^{}]{0,300}?\bpath\s*:\s*(\[[^\]]{0,600}\]|[^,{}()]{0,300}(?:\((?:[^()]|\([^()]{0,100}\)){0,300}\))?)"""
)


def _environment_loads(text: str, dotenv: bool, module: Path, root: Path) -> Code:
    """The environment files a module loads by name (``process.loadEnvFile("config/app.env")``,
    dotenv's ``config({ path: ".env.test" })``, a list of them, ``path.resolve(__dirname,
    "app.env")``; a relative one from where the tool runs, as node takes it, and from the root):
    pinned whole, with what their NODE_OPTIONS preload in the programs it starts; one it
    computes otherwise (``"config/app" + ".env"``), open on the person's word."""
    code = Code()
    reading = READ.get()
    bases = dict.fromkeys([reading.cwd if reading is not None and reading.cwd else root, root])
    for given, dotenv_call in _environment_arguments(text):
        if dotenv_call and not dotenv:
            continue  # (a config() of another module)
        if JOINED.fullmatch(given.removeprefix("path.")):
            named = [Path(path) for path in _joined(given, module.parent)]
        else:
            named = [base / s for s in _named_environment(given) for base in bases]
        if not named and given:
            why = f"{_shown(module, root)} loads an environment file it names only when it runs ({given[:40]})"
            code = code.plus(Code(open=((why, None),)))
        for path in named:
            code = code.plus(Code((path,)), _environment_preloads(path, root, root))
    # (a literal that names one, where the module loads one: `const opts = { path: "x.env" }`)
    paths = [base / name for name in _environment_literals(text) for base in bases]
    return code.plus(Code(manifests=tuple((path, "env") for path in paths)))


#: A computed specifier that starts with a literal directory of the workspace (``"./rules/" + f``,
#: `` `../rules/${f}` ``, ``path.join(__dirname, "rules", f)``): the directory (group 2 or 3).
COMPUTED_UNDER = re.compile(
    r"""\s*(?:(['"`])(\.{1,2}/(?:[^'"`$\n]*/)?)|(?:path\.)?(?:join|resolve)\(\s*(?:__dirname|import\.meta\.dirname)\s*,"""
    r"""\s*((?:(['"])[\w.@-]{1,214}\4\s*,\s*)*))"""
)


def _computed_under(argument: str, module: Path, root: Path) -> str | None:
    """The project directory a module computed by ``argument`` is under, when its start is a
    literal directory of the workspace (so that declaring that directory closes it), or None."""
    match = COMPUTED_UNDER.match(argument)
    if match is None:
        return None
    if match.group(2) is not None:
        directory = module.parent / match.group(2)
    else:
        directory = module.parent.joinpath(*re.findall(r"""['"]([\w.@-]+)['"]""", match.group(3)))
    directory = Path(os.path.normpath(directory))
    return os.path.relpath(directory, root) if _within(directory, root) else None


def _specifiers(text: str) -> tuple[list[str], list[str]]:
    """What JavaScript ``text`` imports (``import``, ``export from``, ``import()``, ``require``):
    the specifiers it names as strings, and the arguments that compute one when it runs."""
    specifiers = [m.group(2) or m.group(4) for m in STATIC_IMPORT.finditer(text)]
    computed = []
    calls = list(CALLED_IMPORT.finditer(text))
    # createRequire under another name (``import { createRequire as cr }``), and what it makes
    makers = {"createRequire", *(m.group(1) for m in MAKER_ALIAS.finditer(text))} if "createRequire" in text else set()
    bound = _require_bound(tuple(sorted(makers)) or ("createRequire",))
    aliases = {
        name.group(1)
        for found in bound.finditer(text)
        if (name := BOUND_NAME.search(text, max(0, found.start() - 80), found.start()))
    } - {"require", "import"}
    if "__require" in text:  # (what esbuild's bundles call require by)
        aliases.add("__require")
    if aliases:
        called = re.compile(rf"(?<![\w$.])(?:{'|'.join(map(re.escape, sorted(aliases)))})\s*\(\s*([^)]{{0,512}}?)\s*\)")
        calls += called.finditer(text)
    for maker in makers:  # (its require called where it is made: ``createRequire(import.meta.url)('zod')``)
        calls += re.finditer(rf"{re.escape(maker)}\s*\([^)]{{0,512}}\)\s*\(\s*([^)]{{0,512}}?)\s*\)", text)
    if "require.resolve" in text:  # (require(require.resolve('p')): the name is the inner call's)
        calls += RESOLVED.finditer(text)
    if "register" in text and "module" in text:  # (node's module.register("./hooks.mjs", import.meta.url))
        bare = re.search(r"""\bregister\b[^;]{0,200}?\bfrom\s*['"](?:node:)?module['"]""", text) is not None
        calls += (m for m in REGISTERED.finditer(text) if m.group(0).startswith("module.") or bare)
    for call in calls:
        argument = call.group(1)
        if len(argument) >= 2 and argument[0] == argument[-1] and argument[0] in "'\"`" and "${" not in argument:
            specifiers.append(argument[1:-1])
        elif argument:
            computed.append(argument)
    return specifiers, computed


#: node's ``module.register(SPECIFIER, parentURL)`` (``register`` imported from node:module):
#: what it is given first.
REGISTERED = re.compile(r"(?<![\w$.])(?:module\.)?register\s*\(\s*([^,)]{0,512}?)\s*[,)]")


#: What npm takes for a package's name (``zod``, ``@scope/name``), to tell one from what a
#: pattern finds in a minified file's strings.
PACKAGE_NAME = re.compile(r"(?:@[a-z0-9][\w.~-]{0,213}/)?[a-z0-9][\w.~-]{0,213}", re.IGNORECASE)


def package_imports(text: str) -> set[str]:
    """The packages JavaScript ``text`` imports by name (``zod`` for ``zod/v4``), node's own
    modules and what it names by path left out: what an installed package loads of others,
    listed in its package.json or not (a phantom dependency, which npm's hoisting lets work)."""
    text = COMMENT_LINES.sub("", text)  # (a JSDoc example's `require('braces')` loads nothing)
    names = {name for specifier in _specifiers(text)[0] if (name := _package_named(specifier))}
    if "loadEnvFile" in text or "config" in text:  # (and the environment files it loads by name)
        names |= {f"{ENV_MARK}{name}" for name in _environment_names(text)}
    return names


#: What marks, among the names :func:`package_imports` finds, an environment file a package's
#: code loads by name (``process.loadEnvFile("config/app.env")``), from where the tool runs.
ENV_MARK = "env:"


def _environment_names(text: str) -> list[str]:
    """The environment files JavaScript ``text`` loads by a literal name (:data:`ENV_FILE_LOAD`),
    and, where it loads one at all, each literal that names one (``const opts = { path:
    "config/app.env" }; config(opts)``)."""
    found = [name for given, _ in _environment_arguments(text) for name in _named_environment(given)]
    found += _environment_literals(text) if "loadEnvFile" in text or "dotenv" in text else []
    return list(dict.fromkeys(name for name in found if not os.path.isabs(name) and ".." not in name.split("/")))


def _environment_arguments(text: str) -> t.Iterator[tuple[str, bool]]:
    """What JavaScript ``text`` gives each loading of an environment file (:data:`ENV_FILE_LOAD`),
    and whether it is dotenv's ``config()``, rather than node's ``process.loadEnvFile()``."""
    for match in itertools.islice(ENV_FILE_LOAD.finditer(text), MAX_HOOKS):
        given = match.group(1) if match.group(1) is not None else match.group(2)
        yield given.strip(), match.group(1) is None


def _environment_literals(text: str) -> list[str]:
    """The strings of JavaScript ``text`` that name an environment file (:data:`ENV_LITERAL`) of
    the workspace, from where the tool runs."""
    found = (m.group(2) for m in itertools.islice(ENV_LITERAL.finditer(text), MAX_HOOKS))
    return [name for name in found if ".." not in name.split("/")]


#: A string of JavaScript that names an environment file (``"config/app.env"``, ``".env.ci"``).
ENV_LITERAL = re.compile(r"""(['"`])((?:[\w.@-]{1,64}/){0,8}(?:\.env(?:\.[\w.-]{1,64})?|[\w.-]{1,64}\.env))\1""")


def _named_environment(given: str) -> list[str]:
    """The files an argument of an environment file's loading names plainly, relative to where
    the tool runs: a string (a template without substitutions too), a list of them, a path
    joined or resolved of literals alone (``path.resolve("config", "app.env")``); none for
    what it computes otherwise."""
    if re.fullmatch(r"""\[?\s*(?:(['"`])[^'"`$\\\n]*\1\s*,?\s*)*\]?""", given):
        return [m.group(2) for m in JS_STRING.finditer(given) if m.group(2)]
    joined = re.fullmatch(
        r"""(?:path\.)?(?:join|resolve)\(\s*(?:process\.cwd\(\)\s*,\s*)?((?:(['"])[\w.@/-]{1,214}\2\s*,?\s*)+)\)""",
        given,
    )
    if joined:
        return [os.path.join(*re.findall(r"""['"]([\w.@/-]+)['"]""", joined.group(1)))]
    return []


#: A line that is a comment (of a block, ``* ...``, or a line's, ``// ...``) as bundles write them.
COMMENT_LINES = re.compile(r"^[ \t]*(?:\*|//|/\*\*).*$", re.MULTILINE)


def _package_named(specifier: str) -> str | None:
    """The package a bare specifier names (``zod`` for ``zod/v4``, ``@scope/name``); None for a
    path, an imports-map ``#name``, or node's own module."""
    if specifier.startswith((".", "/", "#", "node:")) or specifier.split("/")[0] in NODE_BUILTINS:
        return None
    parts = specifier.split("/")
    name = "/".join(parts[:2]) if specifier.startswith("@") else parts[0]
    return name if PACKAGE_NAME.fullmatch(name) else None


def mapped_packages(imports: t.Any) -> set[str]:
    """The packages a package.json's ``imports`` map names as targets (``{"#p": "zod"}``, under
    any condition, in a fallback list), which node loads for ``#p`` as it would ``zod``."""
    return {name for value in _strings_in(imports, 4096) if (name := _package_named(value))}


def node_finds(start: Path, name: str, reach: Path) -> Path | None:
    """Where node, loading from the directory ``start``, finds the package ``name``: in the
    nearest ``node_modules`` of ``start`` or a directory above it, no higher than ``reach``; None
    if nowhere."""
    for directory in (start, *start.parents):
        if not _within(directory, reach):
            return None
        if os.path.isdir(directory / "node_modules" / name):
            return directory / "node_modules" / name
    return None


def _own_package(script: Path) -> list[Path]:
    """The directory of the package ``script`` is a file of (the nearest with a package.json), or []."""
    return [directory for directory in script.parents if (directory / "package.json").is_file()][:1]


#: What in JavaScript starts code that an import does not name: a worker, a child process.
SPAWNS = re.compile(r"\bnew\s+Worker\s*\(|\bchild_process\b|\bworker_threads\b")
#: What in JavaScript runs text as code (``eval(fs.readFileSync(f))``, ``new Function(...)``,
#: node's vm): what it runs is named by no import.
EVALS = re.compile(r"""(?<![\w$.])eval\s*\(|\bnew\s+Function\s*\(|(['"])(?:node:)?vm\1""")


def _package(module: Path, specifier: str, root: Path, manifest: Path | None = None) -> Code:
    """A package that ``module`` imports by name: where node finds it in the workspace's
    ``node_modules``, code the person declares (its files are as many as its author chose); its
    own package by its name, or a name package.json's ``imports`` maps, open too."""
    parts = specifier.split("/")
    name = "/".join(parts[:2]) if specifier.startswith("@") else parts[0]
    if name.startswith("#"):
        why = f"{_shown(module, root)} imports {specifier}, which package.json's imports map"
        return Code(open=((why, None),))
    if manifest is not None and _manifest(manifest).get("name") == name:
        mapped = _imports_map(specifier, manifest, root, name)  # (node takes it through its exports)
        if mapped is not None:
            code = Code((manifest,), manifests=((manifest, "load"),)).plus(mapped[1])
            return code.plus(*(Code((f,)).plus(_javascript(f, root)) for f in mapped[0]))
        why = f"{_shown(module, root)} imports its own package by name ({specifier}), which package.json's exports map"
        return Code(open=((why, None),))
    reach = _reach(root)
    for directory in (module.parent, *module.parent.parents):
        found = directory / "node_modules" / name
        if not _within(directory, reach):
            # node looks on above the workspace (or the project that is none's), where no pin
            # reaches: open for good, as is one that nothing installed yet
            where = os.path.relpath(found, root) if found.exists() else os.path.join(os.pardir, name)
            why = f"{_shown(module, root)} imports {name}, which node finds outside the project ({where}), {NO_PIN}"
            if not found.exists():
                why = f"{_shown(module, root)} imports {name}, {NOWHERE} in the project"
            if found.exists() or directory == directory.parent:
                return Code(open=((why, where),))
            continue
        if found.exists():
            return _installed_package(found, root, set())
    return Code()


def _installed_package(found: Path, root: Path, seen: set[str]) -> Code:
    """An installed package of the project's ``node_modules`` (pnpm's store included, where its
    link leads): its directory, which a pin covers whole, as one entry (name, version, a digest
    of its installed tree: :func:`cogtools.trust.pins.package_pin`), and the packages its
    package.json says it imports (``dependencies``, ``optionalDependencies``,
    ``peerDependencies``), found as node finds them from where it is, in turn; one node finds
    outside the project is open, as a package a tool's own module imports."""
    real = Path(os.path.realpath(found))
    if str(real) in seen:
        return Code()
    seen.add(str(real))
    if not (real / "package.json").is_file():  # not a package: nothing cogtools can pin whole
        where = _shown(found, root)
        return Code(open=((f"{where} is no installed package (it has no package.json)", where),))
    # (its package.json too: what a confined node is shown is found from the files it runs; the
    # pin covers it with the package's tree)
    code = Code((found, found / "package.json"))
    manifest = _manifest(real / "package.json")
    names: list[str] = []
    for field in ("dependencies", "optionalDependencies", "peerDependencies"):
        listed = manifest.get(field)
        if isinstance(listed, dict):
            names += [name for name in listed if isinstance(name, str) and name not in names]
    reach = [root, _reach(root), Path(os.path.realpath(_reach(root)))]
    if any(name.split("/")[0] in DOTENV_MODULES for name in names):  # (it loads .env: its children take NODE_OPTIONS)
        code = code.plus(_dotenv_loaded(root))
    for name in names:
        if len(seen) > MAX_CODE_FILES:
            return code.plus(Code(open=((f"{_shown(found, root)} imports more than {MAX_CODE_FILES} packages", None),)))
        for directory in (real, *real.parents):
            candidate = directory / "node_modules" / name
            if not candidate.exists():
                if directory == directory.parent:
                    break  # not installed: node cannot load it (an optional one); one installed later is a change
                continue
            if not any(_within(directory, bound) for bound in reach):
                where = os.path.relpath(candidate, root)
                why = f"{_shown(found, root)} imports {name}, which node finds outside the project ({where}), {NO_PIN}"
                code = code.plus(Code(open=((why, where),)))
            else:
                code = code.plus(_installed_package(candidate, root, seen))
            break
    return code


def _ts_first(wanted: Path) -> list[Path]:
    """The TypeScript files tsx would load for the relative import ``wanted`` before the
    JavaScript that node finds (``a.ts`` for ``./a.js``, ``b.ts`` for ``./b``, ``c/index.ts``)."""
    if wanted.suffix in TS_FOR_JS:
        return [wanted.with_suffix(x) for x in TS_FOR_JS[wanted.suffix]]
    return [
        *(wanted.with_name(wanted.name + x) for x in TS_SUFFIXES),
        *(wanted / f"index{x}" for x in TS_SUFFIXES),
    ]


def _resolve(path: Path) -> Path | None:
    """The file node loads for a relative specifier: the path, with a suffix added, or a
    directory's package.json ``main`` or its index."""
    return next((candidate for candidate in (path, *_resolve_candidates(path)) if candidate.is_file()), None)


def _resolve_candidates(path: Path) -> list[Path]:
    """What node (or TypeScript) tries for a relative specifier after ``path`` itself, in order."""
    if not path.name:  # (`/`: no name to add a suffix to)
        return []
    candidates = [path.with_name(path.name + suffix) for suffix in (*JAVASCRIPT, ".json")]
    # TypeScript's own way to import a .ts file: by the name it is compiled to (``./words.js``)
    candidates += [path.with_suffix(suffix) for suffix in TS_FOR_JS.get(path.suffix, ())]
    main = _manifest(path / "package.json").get("main") if path.is_dir() else None
    if isinstance(main, str) and main:
        candidates += [path / main, *(path / (main + suffix) for suffix in JAVASCRIPT)]
    return candidates + [path / f"index{suffix}" for suffix in JAVASCRIPT]


def _nearest(directory: Path, name: str, root: Path) -> Path | None:
    for place in (directory, *directory.parents):
        if not _within(place, root):
            return None
        if (place / name).is_file():
            return place / name
    return None


#: A makefile's include directive and what it names.
INCLUDES = re.compile(r"^\s*-?s?include\s+(.+)$", re.MULTILINE)
#: A rule with its recipe on the same line (``hello: ; @echo hi``).
RULE_RECIPE = re.compile(r"^[^\t#=]*?:[^=;\n]*;(.*)$", re.MULTILINE)
#: Make's automatic variables, which name targets and prerequisites, not code.
AUTOMATIC = re.compile(r"\$[@<^*?|+%]|\$\([@<^*?][DF]\)")


def _make(words: t.Sequence[str], cwd: Path, root: Path, depth: int) -> Code:
    """What make reads: the makefile it finds (GNUmakefile, makefile, Makefile, in ``-C``'s
    directory) or the ones ``-f`` names, those they include (followed), and what their recipes
    run, read as shell; a recipe or include that names what it runs through a variable, or a
    recipe that changes directory or runs make again, leaves the code open."""
    directory = cwd
    named: list[Path] = []
    for index, word in enumerate(words):
        value = words[index + 1] if index + 1 < len(words) else ""
        if word in ("-C", "--directory"):
            directory = cwd / value
        elif word.startswith("--directory="):
            directory = cwd / word.partition("=")[2]
        elif word in ("-f", "--file", "--makefile"):
            named.append(cwd / value)
        elif word.startswith(("--file=", "--makefile=")):
            named.append(cwd / word.partition("=")[2])
        elif word in ("-I", "--include-dir") or word.startswith("--include-dir="):
            return Code(open=(("make is given other directories to include from (-I)", None),))
    if not named:
        found = next(
            (directory / n for n in ("GNUmakefile", "makefile", "Makefile") if (directory / n).is_file()), None
        )
        named = [found] if found is not None else [directory / "Makefile"]  # one written later is a change
    code = Code(tuple(named))
    todo, seen = list(named), set(named)
    while todo:
        makefile = todo.pop()
        shown = _shown(makefile, root)
        text = _head(makefile).decode("utf-8", "replace")
        for match in INCLUDES.finditer(text):
            for word in match.group(1).split():
                if "$" in word:
                    code = code.plus(
                        Code(open=((f"{shown} includes {word}, a file it names only when it runs", None),))
                    )
                elif (directory / word) not in seen and len(seen) < MAX_CODE_FILES:
                    seen.add(directory / word)
                    todo.append(directory / word)
                    code = code.plus(Code((directory / word,)))
        recipes = [line[1:] for line in text.splitlines() if line.startswith("\t")]
        recipes += [match.group(1) for match in RULE_RECIPE.finditer(text)]
        for recipe in recipes:
            recipe = recipe.strip().lstrip("@-+").strip()
            if "$" in AUTOMATIC.sub("", recipe):
                why = f"{shown} has a recipe that names what it runs through a variable ({recipe[:60]})"
                code = code.plus(Code(open=((why, None),)))
            elif recipe:
                code = code.plus(_shell_text(recipe, None, directory, root, depth + 1, set()))
    return code


def _package_script(manager: str, words: t.Sequence[str], cwd: Path, root: Path, depth: int) -> Code:
    """What ``npm run NAME`` (pnpm, yarn, bun) runs: package.json (where its scripts are), the
    manager's settings files, and the scripts of the workspace the script's command names,
    followed; a program of ``node_modules/.bin`` it runs, or ``npx``, leaves the code open."""
    manifest = _nearest(cwd, "package.json", root)
    base = manifest.parent if manifest is not None else cwd
    code = _manager_files(manager, base, root)
    executed = _executed(manager, words)
    if executed:  # npx NAME, npm exec NAME, pnpm exec NAME...: a package's program, as a bare one is
        return code.plus(_exec_code(manager, executed, base, cwd, root, depth))
    ours = list(itertools.takewhile(lambda word: word != "--", words))  # (after --: the script's own)
    plain = [word for word in ours if not word.startswith("-")]
    unknown = _manager_open(manager, ours, plain)
    if unknown is not None:
        return code.plus(unknown)
    if manager == "npm" and plain[:1] and plain[0] not in NPM_RUNS:  # npm's own commands (install, rebuild...)
        why = f"npm {plain[0]} runs scripts cogtools does not follow (lifecycle scripts, of any package), {NO_PIN}"
        return code.plus(Code(open=((why, os.pardir),)))
    if manager == "pnpm" and _installs_first(base, root):
        why = (
            "pnpm installs before it runs a script here (verifyDepsBeforeRun: install), which runs lifecycle"
            f" scripts cogtools does not follow, {NO_PIN}"
        )
        return code.plus(Code(open=((why, os.pardir),)))
    if manager == "npm" and plain[:1] in (["t"], ["tst"]):
        plain = ["test", *plain[1:]]
    name = plain[1] if plain[:1] in (["run"], ["run-script"]) and len(plain) > 1 else plain[0] if plain else ""
    scripts = _scripts(manifest)
    # what the manager reads of package.json to run it: the script and those it runs first and
    # after, and what chooses the manager and node or sets the script's environment; all of it
    # when a script reads other fields by name (yarn 1 sets an $npm_package_ variable for each)
    run = {key: text for key in (f"pre{name}", name, f"post{name}") if isinstance(text := scripts.get(key), str)}
    whole = not name or any("npm_package_" in text for text in run.values())
    code = code.plus(Code(manifests=((base / "package.json", "bytes" if whole else f"run:{name}"),)))
    if name and name not in run:
        code = code.plus(_no_script(manager, name, plain[:1] in (["run"], ["run-script"]), base, root, depth))
    return code.plus(*(_script_code(key, text, base, root, depth) for key, text in run.items()))


def _manager_files(manager: str, base: Path, root: Path) -> Code:
    """What a package manager reads to run a script of the package.json in ``base``: that file,
    its settings files (in the package, the project, and the workspace root: named even when
    missing), and in a workspace's package the root's package.json and lockfile, which it reads
    to know the workspace (shown to the program; the lockfile is no code, and not pinned)."""
    from cogtools.core.fsutil import workspace_root

    names = MANAGER_FILES.get(manager, (".npmrc",))
    files = [base / "package.json", *(base / name for name in names)]
    workspace = workspace_root(root)
    places = [root, workspace]
    if manager == "yarn":  # (Berry reads a .yarnrc.yml in every directory above, and merges them)
        places = [*_up_to_reach(base, root), *places]
    for place in dict.fromkeys(p for p in places if p is not None and p != base):
        files += [place / name for name in names]
    # what the settings make the manager, or node under it, load: yarn's own release and
    # plugins; the modules .npmrc's node-options preloads
    loaded = Code()
    for rc in list(files):
        if manager == "yarn" and rc.name in (".yarnrc", ".yarnrc.yml"):
            for path in _yarn_code(rc):
                loaded = loaded.plus(Code((path,)), _javascript(path, root) if path.is_file() else Code())
            for env_file in _yarn_environment_files(rc):
                if "$" in str(env_file):  # (yarn expands ${VAR:-default} in it)
                    why = f"{_shown(rc, root)} injects {env_file.name}, a file it names by a variable"
                    loaded = loaded.plus(Code(open=((why, None),)))
                    continue
                preloads = _environment_preloads(env_file, base, root)
                loaded = loaded.plus(Code((env_file,)), preloads)
        elif rc.name == ".npmrc":
            loaded = loaded.plus(_node_flags(_node_options(rc), base, root))
        if rc.name in (".npmrc", ".yarnrc"):  # (the shell it runs every script with: a wrapper of the project's)
            shells = SCRIPT_SHELL.findall(_read_small(rc, 64 * 1024) or "")[:MAX_HOOKS]
            loaded = loaded.plus(*(command_code([shell], base, root, 1) for shell in shells if "{{" not in shell))
        if rc.name == ".env.yarn":
            loaded = loaded.plus(_environment_preloads(rc, base, root))
    manifests: list[tuple[Path, str]] = []
    if workspace is not None and workspace != base:
        files.append(workspace / "package.json")
        manifests.append((workspace / "package.json", "root"))
        for lock in LOCKFILES:
            if (workspace / lock).is_file():
                files.append(workspace / lock)
                manifests.append((workspace / lock, "data"))
    return Code(tuple(files), manifests=tuple(manifests)).plus(loaded)


#: The shell npm's and pnpm's ``.npmrc`` (``script-shell=./sh.sh``) or yarn 1's ``.yarnrc``
#: (``script-shell "./sh.sh"``) runs each script of package.json with.
SCRIPT_SHELL = re.compile(r"""(?m)^[ \t]*script-shell[ \t]*(?:=[ \t]*|[ \t])["']?([^"'\s]{1,4096})["']?[ \t]*$""")


def _inline_node_options(segment: str, cwd: Path, root: Path) -> Code:
    """What ``NODE_OPTIONS=...`` set in a command line preloads (``NODE_OPTIONS='-r ./x' node
    y.js``, ``env NODE_OPTIONS=...``)."""
    if "NODE_OPTIONS=" not in segment:
        return Code()
    import shlex

    try:
        words = shlex.split(segment)
    except ValueError:
        words = segment.split()
    values = [word.partition("=")[2] for word in words if word.startswith("NODE_OPTIONS=")]
    try:
        return _node_flags([w for value in values for w in shlex.split(value)], cwd, root)
    except ValueError:
        return Code()


def _node_options(npmrc: Path) -> list[str]:
    """The words of an .npmrc's ``node-options`` (NODE_OPTIONS for what its scripts run)."""
    values = _setting_values(_read_small(npmrc, MAX_ENVIRONMENT_BYTES) or "", "node-options")
    return [word for value in values for word in _option_words(value)]


def _setting_values(text: str, key: str) -> list[str]:
    """The values ``key`` is set to by the lines of a settings file (``key=value``, ``export
    key=value``, dotenv's ``key: value``), each as written."""
    return re.findall(rf"(?m)^[ \t]*(?:export[ \t]+)?{re.escape(key)}[ \t]*[=:][ \t]*(.*?)[ \t\r]*$", text)


def _environment_preloads(path: Path, cwd: Path, root: Path, depth: int = 0) -> Code:
    """What an environment file's NODE_OPTIONS preload (in node, and the programs it starts),
    followed; open where cogtools cannot read its every NODE_OPTIONS as node or dotenv would
    (one that spans lines, in backquotes, set through npm's ``NPM_CONFIG_NODE_OPTIONS``), or a
    file past what it reads, as what it preloads would then be no pin's."""
    if path.is_file() and path.stat().st_size > MAX_ENVIRONMENT_BYTES:
        return Code(open=((f"{_shown(path, root)} is too large for cogtools to read what it preloads", None),))
    text = _read_small(path, MAX_ENVIRONMENT_BYTES)
    if text is None or "NODE_OPTIONS" not in text.upper():
        return Code()
    lines = _setting_values(text, "NODE_OPTIONS")
    plain = all(re.fullmatch(r"""(["'])[^"'`\\$]*\1[ \t]*(?:#.*)?|[^"'`\\$]*""", value) for value in lines)
    if len(lines) != len(re.findall("NODE_OPTIONS", text, re.IGNORECASE)) or not plain:
        why = f"{_shown(path, root)} sets NODE_OPTIONS in a way cogtools does not read, which may preload any code"
        return Code(open=((why, None),))
    return _node_flags([word for value in lines for word in _option_words(value)], cwd, root, depth)


#: The largest environment file read for what its NODE_OPTIONS preload (dotenv reads it whole).
MAX_ENVIRONMENT_BYTES = 1024 * 1024


def _option_words(value: str) -> list[str]:
    """The words of a value of NODE_OPTIONS as an env file or .npmrc gives it: quoted or not,
    a comment after it left out; split on spaces where it is no shell's words (never nothing)."""
    import shlex

    quoted = re.match(r"""\s*(["'])(.*?)\1""", value)
    value = quoted.group(2) if quoted else value.split(" #", 1)[0]
    try:
        return shlex.split(value)
    except ValueError:
        return value.split()


def _installs_first(base: Path, root: Path) -> bool:
    """Whether pnpm's settings (``verify-deps-before-run=install`` in an .npmrc,
    ``verifyDepsBeforeRun: install`` in pnpm-workspace.yaml; pnpm 10) make it install what
    package.json lists before it runs a script: the lifecycle scripts of any package it lists,
    which the workspace writes."""
    from cogtools.core.fsutil import workspace_root

    for place in dict.fromkeys(p for p in (base, root, workspace_root(root)) if p is not None):
        npmrc = _read_small(place / ".npmrc", 64 * 1024) or ""
        if re.search(r"(?m)^\s*verify-deps-before-run\s*=\s*[\"']?install[\"']?\s*$", npmrc):
            return True
        if _yaml_settings(place / "pnpm-workspace.yaml").get("verifyDepsBeforeRun") == "install":
            return True
    return False


def _yaml_settings(path: Path) -> dict[str, t.Any]:
    """A small YAML settings file as a mapping ({} for none, or what is not one)."""
    text = _read_small(path, 64 * 1024)
    if not text:
        return {}
    import yaml

    from cogtools.core import yamlio

    try:
        data = yamlio.load(text)
    except (yaml.YAMLError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def _yarn_code(rc: Path) -> list[Path]:
    """The code a yarn settings file makes yarn run, relative to its directory: Berry's
    ``yarnPath`` (the release the installed yarn hands every command to, ``.yarn/releases/``) and
    ``plugins`` (``path:``), and yarn 1's ``yarn-path``."""
    named: list[t.Any] = []
    if rc.name == ".yarnrc":
        text = _read_small(rc, 64 * 1024) or ""
        named = [m.group(1) for m in re.finditer(r"""(?m)^\s*["']?yarn-path["']?\s+["']?([^"'\n]+?)["']?\s*$""", text)]
    else:
        data = _yaml_settings(rc)
        plugins = data.get("plugins")
        named = [data.get("yarnPath")] + [
            p.get("path") if isinstance(p, dict) else p for p in (plugins if isinstance(plugins, list) else [])
        ]
    return [rc.parent / path for path in named if isinstance(path, str) and path and "\0" not in path]


def _yarn_environment_files(rc: Path) -> list[Path]:
    """The files Berry's ``injectEnvironmentFiles`` (of a .yarnrc.yml) loads into the environment
    of every script it runs (their NODE_OPTIONS preload code): each relative to that file's
    directory, an optional one (``.env.shared?``) named as if it were there."""
    if rc.name != ".yarnrc.yml":
        return []
    named = _yaml_settings(rc).get("injectEnvironmentFiles")
    return [
        rc.parent / entry.removesuffix("?")
        for entry in (named if isinstance(named, list) else [])[:MAX_HOOKS]
        if isinstance(entry, str) and entry.removesuffix("?") and "\0" not in entry
    ]


#: The lockfiles a package manager reads to run a script of a workspace's package (Berry refuses
#: to run one that its lockfile does not list).
LOCKFILES = ("yarn.lock", "pnpm-lock.yaml", "package-lock.json", "bun.lock")


def _manager_open(manager: str, ours: t.Sequence[str], plain: t.Sequence[str]) -> Code | None:
    """What of a package manager's command line (``ours``: before any ``--``; ``plain``: its
    words that are no option) cogtools cannot follow, or None: options that run the scripts of
    other packages of the workspace (no declaration of this project's code closes those), an
    exec that :func:`_executed` cannot read, which may download what it runs, other options."""
    options = [word for word in ours if word.startswith("-") and word not in ("-s", "--silent", "--if-present")]
    spanning = [word for word in options if word.partition("=")[0] in WORKSPACE_OPTIONS]
    if spanning or plain[:1] in (["workspace"], ["workspaces"]):
        why = f"{manager} {(spanning or plain)[0]} runs the scripts of other packages of the workspace, {NO_PIN}"
        return Code(open=((why, os.pardir),))
    if manager in ("npx", "pnpx") or plain[:1] in (["exec"], ["dlx"], ["x"]):  # (one :func:`_executed` could not read)
        why = f"{manager} {' '.join(plain[:2] or options[:1])} runs a program it may download, {NO_PIN}"
        return Code(open=((why, os.pardir),))
    if options:
        why = f"{manager} is given {options[0]}, which may choose another package.json or workspace"
        return Code(open=((why, None),))
    return None


#: The options of npx and ``npm exec`` that choose nothing it runs (``--yes``: install without asking).
EXEC_OPTIONS = frozenset("-y --yes -s --silent -q --quiet".split())


def _executed(manager: str, words: t.Sequence[str]) -> list[str]:
    """The command line a manager's exec runs (``npx NAME ARGS``, ``npm exec [--] NAME ARGS``,
    ``npm x``, ``pnpm exec``, ``yarn exec``), or [] when it is none, or is given options that
    may choose another package (``--package``, ``-c``), which are left open."""
    rest = list(words)
    if manager == "yarn" and rest[:1] == ["node"]:  # (Berry's `yarn node ARGS`: node, in the project's environment)
        return rest
    if (
        manager in ("npm", "pnpm", "yarn")
        and rest[:1] in (["exec"], ["x"])
        and not (manager != "npm" and rest[0] == "x")
    ):
        rest = rest[1:]
    elif manager not in ("npx", "pnpx"):
        return []
    while rest and rest[0] in EXEC_OPTIONS:
        rest = rest[1:]
    if rest[:1] == ["--"]:
        rest = rest[1:]
    return rest if rest and not rest[0].startswith("-") and "/" not in rest[0] else []


def _exec_code(manager: str, argv: t.Sequence[str], base: Path, cwd: Path, root: Path, depth: int) -> Code:
    """What a manager's exec runs: a program of ``node_modules/.bin`` from the package up to the
    workspace root, followed as a bare one is (the package, and its configuration for eslint and
    the like); else, for npx and npm exec, a package it downloads, which no pin covers; for pnpm
    and yarn, the program of the caller's PATH."""
    name = argv[0]
    found = next((Path(d) / name for d in _script_bins(base, root) if os.path.lexists(os.path.join(d, name))), None)
    if found is not None:
        return _package_program(name, found, root).plus(
            js_tool_configuration(name, cwd, root, argv[1:]),
            _package_extras(name, found, argv[1:], cwd, root, depth),
            _named_code(argv, cwd, root, depth + 1, runs_js=name not in JS_CONFIGS),
        )
    if manager in ("npx", "pnpx", "npm"):
        why = f"{manager} runs {name}, {NOWHERE} in the project: it downloads it, {NO_PIN}"
        return Code(open=((why, os.pardir),))
    return command_code(argv, cwd, root, depth + 1)


def _no_script(manager: str, name: str, run: bool, base: Path, root: Path, depth: int) -> Code:
    """What a package manager runs for ``name`` when package.json has no such script: npm and
    pnpm start ``node server.js`` (which one written later is a change); yarn and bun (``yarn
    tsc``, ``yarn run tsc``), and pnpm without ``run``, a package's program of that name, open as
    one is."""
    if name == "start" and manager in ("npm", "pnpm"):
        server = base / "server.js"
        return Code((server,)).plus(_javascript(server, root) if server.is_file() else Code())
    if manager == "npm" or run and manager == "pnpm":  # (an error: no such script)
        return Code()
    for directory in _script_bins(base, root):
        if os.path.lexists(os.path.join(directory, name)):
            found = Path(directory) / name
            return _package_program(name, found, root).plus(
                js_tool_configuration(name, base, root), _package_extras(name, found, (), base, root, depth)
            )
    return Code()


def _script_bins(base: Path, root: Path) -> list[str]:
    """The ``node_modules/.bin`` directories a package manager puts first on the PATH of a script
    of the package in ``base``, nearest first: the package's and each directory's above it to the
    root of its workspace (npm adds them all, up to ``/``; pnpm and yarn the package's and the
    root's, so this is what any of them can run from the workspace, which the agent can write)."""
    return [str(place / "node_modules" / ".bin") for place in _up_to_reach(base, root)]


def _up_to_reach(base: Path, root: Path) -> list[Path]:
    """``base`` and each directory above it, up to the root of the workspace of the project at
    ``root`` (:func:`_reach`), nearest first."""
    reach = Path(os.path.abspath(_reach(root)))
    top = Path(os.path.abspath(base))
    return [top, *itertools.takewhile(lambda d: _within(d, reach), top.parents)]


def _script_code(key: str, command: str, base: Path, root: Path, depth: int, said: str = "") -> Code:
    """What the script ``key`` of the package.json in ``base`` runs (its ``command``, read as
    shell); a program of ``node_modules/.bin`` it runs leaves the code open."""
    # a bare program found in a node_modules/.bin the manager puts first on the script's PATH
    # is a package's, followed as one is, here and in what the script runs in turn (that PATH
    # is theirs too: a shell script it runs, and what that runs)
    bins = _script_bins(base, root)
    outer = SCRIPT_BINS.set(tuple(dict.fromkeys([*bins, *SCRIPT_BINS.get()])))
    try:
        code = _script_segments(said or f"its script {key}", command, base, root, depth, bins)
        return code.plus(shadowing_places(bins))
    finally:
        SCRIPT_BINS.reset(outer)


#: The programs found by PATH that a package's program or a manager's script runs by name
#: (``#!/usr/bin/env node``, npm's ``sh``, a script's ``npm run``, pnpm's shims' ``$basedir/node``):
#: each named in every node_modules/.bin on that PATH, so that one put there is a change.
PATH_SHADOWED = ("node", "sh", "bash", "npm", "npx", "pnpm", "yarn")


def shadowing_places(bins: t.Iterable[str | Path]) -> Code:
    """:data:`PATH_SHADOWED` in each of ``bins`` (named even when missing)."""
    return Code(tuple(Path(directory) / name for directory in bins for name in PATH_SHADOWED))


#: The node_modules/.bin directories a package manager puts first on the PATH of the script
#: being followed (:func:`_script_code`), which what it runs inherits.
SCRIPT_BINS: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar("script_bins", default=())


def _script_segments(said: str, command: str, base: Path, root: Path, depth: int, bins: t.Sequence[str]) -> Code:
    code = Code()
    for segment in SCRIPT_SEPARATORS.split(command):
        parts = _command_words(_segment_words(segment))
        if not parts:
            continue
        if parts[0] == "cd" and len(parts) == 2 and "$" not in parts[1]:  # (what follows runs there)
            base = Path(os.path.normpath(base / parts[1]))
            continue
        code = code.plus(_inline_node_options(segment, base, root))
        if _interprets(os.path.basename(parts[0])) and any("$" in word for word in parts[1:2]):
            why = f"{said} runs a file it names by a variable ({parts[1][:40]})"
            code = code.plus(Code(open=((why, None),)))
        program = parts[0]
        found = next((Path(d) / program for d in bins if os.path.lexists(os.path.join(d, program))), None)
        if "/" in program or found is None:
            code = code.plus(command_code(parts, base, root, depth + 1))
            continue
        package = _package_program(program, found, root)
        reasons = tuple((f"{said} {why.removeprefix('it ')}", needs) for why, needs in package.open)
        runs_js = program not in JS_CONFIGS  # (eslint, prettier read the files they are given: pinned as read)
        code = code.plus(
            Code(package.files, reasons),
            js_tool_configuration(program, base, root, parts[1:]),
            _package_extras(program, found, parts[1:], base, root, depth),
            _named_code(parts, base, root, depth + 1, runs_js=runs_js),
        )
    return code


def _segment_words(segment: str) -> list[str]:
    """The words of a simple command of a script, as the shell splits them (a quoted command
    given to concurrently is one word), without the parentheses of a subshell."""
    import shlex

    try:
        words = shlex.split(segment)
    except ValueError:  # (a quote the separators split: word by word)
        words = [word.strip("\"'") for word in segment.split()]
    return [word.strip("()") for word in words]


#: Where a package script's command line holds another simple command: its operators, a newline,
#: a command substitution (``$( )``, backticks).
SCRIPT_SEPARATORS = re.compile(r"&&|\|\||[;|&\n`]|\$\(|\)")
#: What a shell runs a program through, or after: its keywords, and programs that run the one
#: they are given (with their options, a count, a variable).
SHELL_KEYWORDS = frozenset("if then else elif do while until ! { time".split())
RUNS_NEXT = frozenset(
    "env exec command builtin nohup nice stdbuf timeout time xargs sudo doas chrt ionice caffeinate".split()
)
#: Their options that take the next word as a value (``exec -a NAME``, ``timeout -s KILL``,
#: ``env -u NAME``, ``xargs -I {}``, ``sudo -u USER``).
_WRAPPER_VALUES = frozenset("-a -n -u -s -k -I -L -P -d -g -C -D -c -t".split())
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_COUNT = re.compile(r"[0-9.]+[smhd]?")


def _command_words(words: t.Sequence[str]) -> list[str]:
    """The words of a simple command from the program it runs: after the shell's keywords (``if``,
    ``then``, ``!``), its variable assignments (``NODE_ENV=x``) and the programs that run the next
    one (``env FOO=1``, ``exec``, ``time``, ``nice -n 5``)."""
    index = 0
    wrapped = False
    while index < len(words):
        word = words[index]
        if not word or word in SHELL_KEYWORDS or _ASSIGNMENT.match(word):
            index += 1
        elif word in RUNS_NEXT:
            index, wrapped = index + 1, True
        elif wrapped and (word.startswith("-") or _COUNT.fullmatch(word)):
            index += 2 if word in _WRAPPER_VALUES else 1
        else:
            break
    return [word for word in words[index:] if word]


def _package_root(path: Path, base: Path) -> Path | None:
    for directory in path.parents:
        if (
            directory.parent.name == "node_modules"
            or directory.parent.parent.name == "node_modules"
            and directory.parent.name.startswith("@")
        ):
            return directory
    return None


def _scripts(manifest: Path | None) -> dict[str, t.Any]:
    scripts = _manifest(manifest).get("scripts") if manifest is not None else None
    return scripts if isinstance(scripts, dict) else {}


def _jsonc(path: Path) -> dict[str, t.Any]:
    """A JSON file that may hold comments and trailing commas (tsconfig.json), as an object."""
    import json

    from cogtools.core import jsonc

    text = jsonc.strip_comments(
        _head(path).decode("utf-8", "replace").removeprefix("\ufeff")
    )  # (a BOM: as tsx reads it)
    try:
        data = json.loads(re.sub(r",(\s*[}\]])", r"\1", text))  # (and trailing commas, as TypeScript reads it)
    except (ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def _manifest(path: Path) -> dict[str, t.Any]:
    """A package.json, as an object ({} for what is not one, or nests past the parser's depth)."""
    import json

    try:
        data = json.loads(_head(path))
    except (ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def program_configuration(argv: t.Sequence[str], cwd: Path) -> list[Path]:
    """The files a program reads from where it runs that can make it run other programs, which
    the workspace can write: for git, the repository's configuration (``core.fsmonitor``, an
    alias with ``!``, a filter, a hook path) and the files it includes, a ``commondir`` that
    moves it, and the hooks; found as git finds them, upwards from ``cwd``. A file that is not
    there yet is named too, so that one written later is a change."""
    if not argv or os.path.basename(argv[0]) != "git":
        return []
    for index, word in enumerate(argv[1:-1], start=1):  # (git -C DIR: where it looks from)
        if word == "-C":
            cwd = cwd / argv[index + 1]
    git_dir = _git_dir(cwd)
    if git_dir is None:
        return []
    files = [git_dir / "config", git_dir / "config.worktree", git_dir / "commondir"]
    common = git_dir
    pointer = _read_small(git_dir / "commondir")
    if pointer:
        common = git_dir / pointer.strip()
        files.append(common / "config")
    for config in list(files):
        files += _git_includes(config)
    hooks = common / "hooks"
    try:
        files += sorted(p for p in hooks.iterdir() if not p.name.endswith(".sample") and p.is_file())[:MAX_HOOKS]
    except OSError:
        pass
    return files


#: At most this many of a repository's hooks are covered.
MAX_HOOKS = 64


def _git_dir(cwd: Path) -> Path | None:
    """The repository git finds from ``cwd``: a ``.git`` directory, or what a ``.git`` file
    (a worktree, a submodule) points at."""
    for directory in (cwd, *cwd.parents):
        dotgit = directory / ".git"
        if dotgit.is_dir():
            return dotgit
        if dotgit.is_file():
            text = _read_small(dotgit) or ""
            return directory / text[len("gitdir:") :].strip() if text.startswith("gitdir:") else None
    return None


def _git_includes(config: Path) -> list[Path]:
    """The files a git configuration file includes (``[include] path = ...``, ``[includeIf]``),
    relative to its own directory; one under ``~`` is the user's own, not the workspace's."""
    text = _read_small(config, 256 * 1024) or ""
    found = []
    for match in re.finditer(r"^\s*path\s*=\s*(.+?)\s*$", text, re.MULTILINE):
        value = match.group(1).strip('"')
        if value and not value.startswith("~"):
            found.append(config.parent / value)
    return found


def _read_small(path: Path, limit: int = 4096) -> str | None:
    """The start of a regular file, as text; None when it is not one or cannot be read."""
    try:
        if not path.is_file():
            return None
        with path.open("rb") as f:
            return f.read(limit).decode("utf-8", "replace")
    except OSError:
        return None
