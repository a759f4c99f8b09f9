"""The files of the workspace that a program runs or reads and that can change what it does,
which the pin of a tool covers: those its command line names, the files beside a script that it
may source or import, and git's configuration and hooks. A knowledge base of how shells,
interpreters and git find their files, read from the literal words of a command line."""

from __future__ import annotations

import os
import re
import typing as t
from pathlib import Path


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
#: At most this many files beside a script are covered.
MAX_NEIGHBOURS = 256


#: The suffixes of JavaScript and TypeScript modules.
JAVASCRIPT = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts")


def script_neighbours(script: Path, interpreter: t.Sequence[str]) -> list[Path]:
    """The files beside ``script`` that it may source or import, which its pin covers as it
    covers the script: for a Python script, the modules and packages (whole) of its directory,
    which is the first place it imports from; for a shell script, the shell scripts of its
    directory; for JavaScript or TypeScript, the modules of its directory and below (relative
    imports: ``./lib/x.mjs``; JSON modules too) but for ``node_modules``, and the directory's
    ``package.json`` (its ``type`` decides how node reads the script). What it reaches any other
    way (a package of ``node_modules``) is not known."""
    words = [os.path.basename(word) for word in interpreter if not word.startswith("-") and "=" not in word]
    program = next((word for word in words if word != "env"), "")
    directory = script.parent
    try:
        if script.suffix == ".py" or program.startswith("python"):
            found = sorted(directory.glob("*.py"))
            for package in sorted(directory.glob("*/__init__.py")):
                found += sorted(package.parent.rglob("*.py"))
        elif script.suffix in (".sh", ".bash") or program in SHELLS:
            found = sorted([*directory.glob("*.sh"), *directory.glob("*.bash")])
        elif script.suffix in JAVASCRIPT or program in ("node", "nodejs", "bun", "deno"):
            found = _modules(directory)
        else:
            return []
    except OSError:
        return []
    return [path for path in found if path != script][:MAX_NEIGHBOURS]


def _modules(directory: Path) -> list[Path]:
    """The JavaScript, TypeScript and JSON files of ``directory`` and below (no link followed, no
    ``node_modules`` or hidden directory entered), sorted; at most one more than
    :data:`MAX_NEIGHBOURS` are looked for."""
    found: list[Path] = []
    for top, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if d != "node_modules" and not d.startswith("."))
        found += [Path(top, name) for name in sorted(files) if os.path.splitext(name)[1] in (*JAVASCRIPT, ".json")]
        if len(found) > MAX_NEIGHBOURS:
            break
    return sorted(found)


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
