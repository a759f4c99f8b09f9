"""The files of the workspace that a program runs or reads and that can change what it does,
which the pin of a tool covers: those its command line names, the files beside a script that it
may source or import, and git's configuration and hooks. A knowledge base of how shells,
interpreters and git find their files, read from the literal words of a command line."""

from __future__ import annotations

import functools
import os
import re
import typing as t
from pathlib import Path

from cogtools.core.limits import MAX_CODE_FILES
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
    "yarn": (".npmrc", ".yarnrc", ".yarnrc.yml", ".pnp.cjs", ".pnp.loader.mjs"),
    "bun": (".npmrc", "bunfig.toml"),
}
#: The deepest a chain of scripts that run or source each other is followed.
MAX_DEPTH = 16
#: The largest file read to find what it sources or imports.
MAX_SCANNED_BYTES = 1024 * 1024
#: The suffixes of JavaScript and TypeScript modules.
JAVASCRIPT = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts")


def declared_code(entries: t.Iterable[str], root: Path) -> Code:
    """The code a tool declares (``code: [Makefile, scripts/]``): each file, and each directory
    whole (every file under it, no link followed), relative to the project root."""
    code = Code()
    for entry in entries:
        path = root / entry
        if path.is_dir():
            code = code.plus(Code(tuple(_walk(path, lambda directory, name: True))))
        else:
            code = code.plus(Code((path,)))
    return code


def command_code(argv: t.Sequence[str], cwd: Path, root: Path, depth: int = 0) -> Code:
    """The code of the workspace a command line runs: the files its literal words name (a
    program of the project, a script it is given) with what each loads in turn, and what its
    program loads by convention: make's makefiles, the module and directory of ``python -m``, the
    script of package.json that ``npm run NAME`` runs, a venv's site-packages, git's
    configuration and hooks."""
    if not argv:
        return Code()
    if depth > MAX_DEPTH:
        return Code(open=((f"its commands run each other more than {MAX_DEPTH} deep", None),))
    program = os.path.basename(argv[0])
    code = _program_itself(argv[0], cwd, root)
    words = [word for word in argv[1:] if "{{" not in word and "{%" not in word]
    if program in ("make", "gmake"):
        code = code.plus(_make(words, cwd, root))
    elif program in PACKAGE_MANAGERS or program in ("npx", "pnpx"):
        code = code.plus(_package_script(program, words, cwd, root, depth))
    elif program.startswith("python") and "-m" in words[:-1]:
        code = code.plus(python_tree(cwd, root, scan=True))
    for path in named_files(argv[1:], cwd):
        code = code.plus(Code((path,)), script_code(path, argv[:1], cwd, root, depth))
    return code.plus(Code(tuple(program_configuration(argv, cwd))))


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
        return python_tree(script.parent, root, scan=True)
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


def _program_itself(word: str, cwd: Path, root: Path) -> Code:
    """A program of the project (``./bin/tool``, ``.venv/bin/python``): the file, and for an
    interpreter of a virtual environment in the project, everything it loads from there at start
    (``.pth`` files) and on import: the environment's site-packages, whole."""
    if "/" not in word or "{{" in word:
        return Code()
    path = Path(word) if os.path.isabs(word) else cwd / word
    if not _within(path, root):
        return Code()
    code = Code((path,)) if os.path.isfile(path) else Code()
    for directory in Path(os.path.abspath(path)).parents:
        if not _within(directory, root):
            break
        if (directory / "pyvenv.cfg").is_file():
            found = [directory / "pyvenv.cfg"]
            for lib in sorted(directory.glob("lib*/python*/site-packages")):
                found += _walk(lib, lambda d, name: True)
            return code.plus(Code(tuple(found)))
    return code


def _within(path: Path, root: Path) -> bool:
    top = os.path.abspath(root)
    return os.path.commonpath([os.path.abspath(path), top]) == top


def _walk(
    directory: Path, keep: t.Callable[[str, str], bool], enter: t.Callable[[str], bool] = lambda name: True
) -> list[Path]:
    """The files under ``directory`` that ``keep(directory, name)`` keeps, in the directories
    ``enter`` enters (no link followed), sorted; at most one more than :data:`MAX_CODE_FILES`
    (past it, the pin says the code is too large)."""
    found: list[Path] = []
    for top, dirs, files in os.walk(directory):
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
    identifier is one, ``__init__.py`` or not); no ``__pycache__``, which a pinned run never
    reads. ``scan``: a file that moves ``sys.path`` leaves the code open."""
    files = _walk(directory, _importable, lambda name: name.isidentifier() and name != "__pycache__")
    open_: list[tuple[str, str | None]] = []
    if scan:
        for path in files[:MAX_CODE_FILES]:
            if path.suffix == ".py" and MOVES_IMPORTS.search(_head(path)):
                open_.append((f"{_shown(path, root)} changes where Python imports from (sys.path)", None))
                break
    return Code(tuple(files), tuple(open_))


def _head(path: Path) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read(MAX_SCANNED_BYTES)
    except OSError:
        return b""


#: A command that sources a file, at the start of a shell command, and the rest of its line.
SOURCES = re.compile(r"(?:^|[;&|({]|\bthen|\bdo|\belse)\s*(?:source|\.)\s+([^\n;&|]+)", re.MULTILINE)
#: The ways a script names its own directory: ``$(dirname "$0")``, ``${0%/*}``, and BASH_SOURCE's
#: (quotes taken away).
OWN_DIRECTORY = re.compile(r"^(?:\$\(\s*dirname\s+\$\{?(?:0|BASH_SOURCE(?:\[0\])?)\}?\s*\)|\$\{0%/\*\})/")


def _words(text: str) -> list[str]:
    """The words of a line of shell, its quotes taken away (as they are, where it cannot be split)."""
    import shlex

    try:
        return shlex.split(text, comments=True)
    except ValueError:
        return text.split()


#: What separates the commands of a line of shell.
COMMANDS = re.compile(r"&&|\|\||[;|&(){}]|\$\(|`")


def _runs(line: str, script: Path, cwd: Path) -> list[Path]:
    """The files of the workspace a line of shell runs: a program of the workspace it starts by
    path (``./other.sh``, ``"$(dirname "$0")/x"``), and the script it gives an interpreter
    (``sh scripts/x.sh``, ``python3 tool.py``); a file it only reads (``cat notes.txt``) is data,
    not code."""
    found: list[Path] = []
    for command in COMMANDS.split(line):
        words = _words(command)
        while words and (
            "=" in words[0]
            and not words[0].startswith("=")
            or words[0] in ("exec", "command", "then", "do", "else", "if", "while", "!", "time", "env", "nohup")
        ):
            words = words[1:]
        if not words:
            continue
        program = os.path.basename(words[0])
        interpreted = program in SHELLS or program in NODES or program.startswith("python")
        named = words[:1] + ([next((w for w in words[1:] if not w.startswith("-")), "")] if interpreted else [])
        for word in named:
            own = OWN_DIRECTORY.match(word)
            if own:
                found.append(script.parent / word[own.end() :])
            elif word and ("/" in word or interpreted and word != words[0]):
                found += named_files([word], cwd)
    return found


def _shell(script: Path, cwd: Path, root: Path, depth: int, seen: set[Path]) -> Code:
    """The files a shell script sources (``. ./lib.sh``, ``source "$(dirname "$0")/x.sh"``) and
    the files of the workspace its words name (a script it runs), each followed; a source whose
    path the script only knows at run time leaves the code open."""
    seen.add(script)
    text = _head(script).decode("utf-8", "replace")
    code = Code()
    targets: list[Path] = []
    for match in SOURCES.finditer(text):
        word = next(iter(_words(match.group(1))), "")
        own = OWN_DIRECTORY.match(word)
        if own:
            targets.append(script.parent / word[own.end() :])
        elif not word or any(c in word for c in "$`*?["):
            why = f"{_shown(script, root)} sources {word or match.group(1).strip()}, a file it names only when it runs"
            code = code.plus(Code(open=((why, None),)))
        else:
            targets.append(Path(word) if os.path.isabs(word) else cwd / word)
    for line in text.splitlines():
        targets += _runs(line, script, cwd)
    for target in dict.fromkeys(targets):
        if target not in seen and os.path.isfile(target) and _within(target, root):
            seen.add(target)
            language = [] if target.suffix in (".py", *JAVASCRIPT) else ["sh"]
            code = code.plus(Code((target,)), script_code(target, language, cwd, root, depth + 1, seen))
    return code


#: A static import or re-export of JavaScript, and its specifier.
STATIC_IMPORT = re.compile(
    r"""(?:^|[;\s}])(?:import|export)\b[^'";()]*?\bfrom\s*(['"])([^'"\n]+)\1|(?:^|[;\s])import\s*(['"])([^'"\n]+)\3""",
    re.MULTILINE,
)
#: A call of import() or require(), and what it is given.
CALLED_IMPORT = re.compile(r"\b(?:import|require)\s*\(\s*([^)]*?)\s*\)")
#: Node's own modules (``fs``, ``node:fs``), which are not the workspace's.
NODE_BUILTINS = frozenset(
    "assert async_hooks buffer child_process cluster console constants crypto dgram diagnostics_channel dns domain"
    " events fs http http2 https inspector module net os path perf_hooks process punycode querystring readline repl"
    " stream string_decoder sys timers tls trace_events tty url util v8 vm wasi worker_threads zlib test".split()
)


def _javascript(script: Path, root: Path) -> Code:
    """The modules a JavaScript or TypeScript file imports of the workspace (relative
    specifiers, followed), the package.json nearest to each (its ``type`` says how node reads
    it); a package of ``node_modules`` or an import named only at run time leaves the code open
    unless declared."""
    code = Code()
    seen: set[Path] = set()
    todo = [script]
    while todo and len(seen) <= MAX_CODE_FILES:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        manifest = _nearest(module.parent, "package.json", root)
        files = [module] if module != script else []
        if manifest is not None:
            files.append(manifest)
        code = code.plus(Code(tuple(files)))
        if module.suffix == ".json":
            continue
        text = _head(module).decode("utf-8", "replace")
        specifiers = [m.group(2) or m.group(4) for m in STATIC_IMPORT.finditer(text)]
        for call in CALLED_IMPORT.finditer(text):
            argument = call.group(1)
            if len(argument) >= 2 and argument[0] == argument[-1] and argument[0] in "'\"`" and "${" not in argument:
                specifiers.append(argument[1:-1])
            elif argument:
                why = f"{_shown(module, root)} imports a module it names only when it runs ({argument[:40]})"
                code = code.plus(Code(open=((why, None),)))
        for specifier in specifiers:
            if specifier.startswith((".", "/")):
                found = _resolve(module.parent / specifier)
                if found is not None and _within(found, root):
                    todo.append(found)
            elif not specifier.startswith("node:") and specifier.split("/")[0] not in NODE_BUILTINS:
                code = code.plus(_package(module, specifier, root))
    return code


def _package(module: Path, specifier: str, root: Path) -> Code:
    """A package that ``module`` imports by name: where node finds it in the workspace's
    ``node_modules``, code the person declares (its files are as many as its author chose)."""
    parts = specifier.split("/")
    name = "/".join(parts[:2]) if specifier.startswith("@") else parts[0]
    if name.startswith("#"):
        why = f"{_shown(module, root)} imports {specifier}, which package.json's imports map"
        return Code(open=((why, None),))
    for directory in (module.parent, *module.parent.parents):
        if not _within(directory, root):
            break
        found = directory / "node_modules" / name
        if found.exists():
            where = _shown(found, root)
            return Code(open=((f"{_shown(module, root)} imports {name} from {where}", where),))
    return Code()


def _resolve(path: Path) -> Path | None:
    """The file node loads for a relative specifier: the path, with a suffix added, or a
    directory's index or package.json ``main``."""
    candidates = [path, *(path.with_name(path.name + suffix) for suffix in (*JAVASCRIPT, ".json"))]
    candidates += [path / f"index{suffix}" for suffix in JAVASCRIPT]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    return None


def _nearest(directory: Path, name: str, root: Path) -> Path | None:
    for place in (directory, *directory.parents):
        if not _within(place, root):
            return None
        if (place / name).is_file():
            return place / name
    return None


#: A makefile's include directive and what it names.
INCLUDES = re.compile(r"^\s*-?s?include\s+(.+)$", re.MULTILINE)


def _make(words: t.Sequence[str], cwd: Path, root: Path) -> Code:
    """What make reads: the makefile it finds (GNUmakefile, makefile, Makefile, in ``-C``'s
    directory) or the ones ``-f`` names, those they include, and the scripts of the workspace
    their recipes name, followed."""
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
    if not named:
        found = next(
            (directory / n for n in ("GNUmakefile", "makefile", "Makefile") if (directory / n).is_file()), None
        )
        named = [found] if found is not None else [directory / "Makefile"]  # one written later is a change
    code = Code(tuple(named))
    for makefile in named:
        text = _head(makefile).decode("utf-8", "replace")
        for match in INCLUDES.finditer(text):
            for word in match.group(1).split():
                if "$" in word:
                    why = f"{_shown(makefile, root)} includes {word}, a file it names only when it runs"
                    code = code.plus(Code(open=((why, None),)))
                else:
                    code = code.plus(Code((directory / word,)))
        for line in text.splitlines():
            if line.startswith("\t"):
                words_of = [w.strip("\"';()@") for w in line.split()]
                for path in named_files(words_of, directory):
                    code = code.plus(Code((path,)), script_code(path, words_of[:1], directory, root, 1))
    return code


def _package_script(manager: str, words: t.Sequence[str], cwd: Path, root: Path, depth: int) -> Code:
    """What ``npm run NAME`` (pnpm, yarn, bun) runs: package.json (where its scripts are), the
    manager's settings files, and the scripts of the workspace the script's command names,
    followed; a program of ``node_modules/.bin`` it runs, or ``npx``, leaves the code open."""
    manifest = _nearest(cwd, "package.json", root)
    base = manifest.parent if manifest is not None else cwd
    files = [base / "package.json", *(base / name for name in MANAGER_FILES.get(manager, (".npmrc",)))]
    if base != root:
        files += [root / name for name in MANAGER_FILES.get(manager, (".npmrc",))]
    code = Code(tuple(files))
    plain = [word for word in words if not word.startswith("-")]
    if manager in ("npx", "pnpx") or plain[:1] in (["exec"], ["dlx"], ["x"]):
        why = f"{manager} {' '.join(plain[:2])} runs a program of node_modules/.bin, or one it downloads"
        return code.plus(Code(open=((why, None),)))
    name = plain[1] if plain[:1] in (["run"], ["run-script"]) and len(plain) > 1 else plain[0] if plain else ""
    scripts = _scripts(manifest)
    for key in (f"pre{name}", name, f"post{name}"):
        command = scripts.get(key)
        if not isinstance(command, str):
            continue
        for segment in re.split(r"&&|\|\||[;|&]", command):
            parts = [w.strip("\"'") for w in segment.split()]
            if not parts:
                continue
            program = parts[0]
            bin_ = base / "node_modules" / ".bin" / program
            if "/" not in program and os.path.lexists(bin_):
                target = Path(os.path.realpath(bin_))
                where = _shown(_package_root(target, base) or target, root)
                code = code.plus(Code(open=((f"its script {key} runs {program} from {where}", where),)))
            code = code.plus(command_code(parts, base, root, depth + 1))
    return code


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
    import json

    if manifest is None:
        return {}
    try:
        data = json.loads(_head(manifest))
    except ValueError:
        return {}
    scripts = data.get("scripts") if isinstance(data, dict) else None
    return scripts if isinstance(scripts, dict) else {}


def program_configuration(argv: t.Sequence[str], cwd: Path) -> list[Path]:
    """The files a program reads from where it runs that can make it run other programs, which
    the workspace can write: for git, the repository's configuration (``core.fsmonitor``, an
    alias with ``!``, a filter, a hook path) and the files it includes, a ``commondir`` that
    moves it, and the hooks; found as git finds them, upwards from ``cwd``. A file that is not
    there yet is named too, so that one written later is a change."""
    if not argv or os.path.basename(argv[0]) != "git":
        return []
    git_dir = _git_dir(cwd)
    if git_dir is None:
        return []
    files = [git_dir / "config", git_dir / "commondir"]
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
