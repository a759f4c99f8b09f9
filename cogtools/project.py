"""The project a directory belongs to, and the places its tools come from.

This is the one place that decides where tools are looked for; configured sources, installed
toolsets and environment paths grow here.
"""

from __future__ import annotations

import os
import typing as t
from pathlib import Path

CONFIG_NAME = ".cogtoolrc.yaml"

#: What marks a project root, strongest first: the nearest directory holding the first marker
#: wins; only when no directory up to the file system root holds it is the next marker tried.
ROOT_MARKERS = (CONFIG_NAME, ".gemini", ".git")


class Source(t.NamedTuple):
    """A place tools are read from.

    ``recursive`` sources read every definition file below ``directory``; the others read only
    the files directly in it, and of those (``marked_only``) only files that say they are cogtools
    tools, so that a project root's other YAML files (CI, compose, linters) are not taken for
    broken tools.
    """

    name: str
    directory: Path
    recursive: bool
    marked_only: bool = False


class Project(t.NamedTuple):
    root: Path
    #: Why this directory is the root: the marker found, or "cwd".
    reason: str
    sources: tuple[Source, ...]


def find_root(cwd: Path, environ: t.Mapping[str, str]) -> tuple[Path, str]:
    """The project root for ``cwd`` and the marker that made it so.

    ``~/.gemini`` is Gemini CLI's user directory, not a project's, and so does not mark one.
    """
    home = environ.get("HOME")
    home_path = Path(home).resolve() if home else None
    chain = [cwd, *cwd.parents]
    for marker in ROOT_MARKERS:
        for directory in chain:
            if marker == ".gemini" and directory == home_path:
                continue
            if (directory / marker).exists():
                return directory, marker
    return cwd, "cwd"


def discover_project(cwd: Path | None = None, environ: t.Mapping[str, str] | None = None) -> Project:
    """The project of ``cwd`` (default: the process's working directory) and its tool sources,
    in precedence order (earlier wins)."""
    environ = os.environ if environ is None else environ
    cwd = Path.cwd() if cwd is None else cwd
    root, reason = find_root(cwd.resolve(), environ)
    sources = (
        Source("project", root, recursive=False, marked_only=True),
        Source("project:tools", root / "tools", recursive=True),
    )
    return Project(root, reason, sources)
