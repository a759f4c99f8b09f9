"""The project a directory belongs to, and the places its tools come from, in order.

This is the one place that decides where tools are looked for: the project root's own tool files,
then the configured ``tool_sources`` (local directories and installed toolsets), then the
directories of ``$COGTOOLS_TOOL_PATH``.
"""

from __future__ import annotations

import os
import typing as t
from pathlib import Path

from cogtools.config import CONFIG_NAME, Config, load_config
from cogtools.errors import CogtoolsError, ConfigInvalidError

if t.TYPE_CHECKING:
    from cogtools.cache import CatalogCache

#: What marks a project root, strongest first: the nearest directory holding the first marker
#: wins; only when no directory up to the file system root holds it is the next marker tried.
ROOT_MARKERS = (CONFIG_NAME, ".gemini", ".git")

#: The entry point group of installed toolsets: each entry point names a package (a directory)
#: of tool files, e.g. ``[project.entry-points."cogtools.toolsets"] ops = "acme_ops.tools"``.
TOOLSET_GROUP = "cogtools.toolsets"
PACKAGES = ("packages", "node_modules")


class Source(t.NamedTuple):
    """A place tools are read from.

    ``recursive`` sources read every definition file below ``directory``; the others read only
    the files directly in it, and of those (``marked_only``) only files that say they are cogtools
    tools, so that a project root's other YAML files (CI, compose, linters) are not taken for
    broken tools. A missing directory is reported unless the source is ``optional``.
    """

    name: str
    directory: Path
    recursive: bool
    marked_only: bool = False
    optional: bool = False


class Project(t.NamedTuple):
    root: Path
    #: Why this directory is the root: the marker found, or "cwd".
    reason: str
    config: Config
    #: In precedence order: an earlier source wins a name.
    sources: tuple[Source, ...]
    #: Sources that could not be opened (a toolset that fails to load).
    problems: tuple[CogtoolsError, ...] = ()
    warnings: tuple[str, ...] = ()
    #: The environment the project was discovered in: every later decision (policy, pins, what a
    #: tool sees) takes it from here, not from the process.
    environ: t.Mapping[str, str] = {}


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


def find_project(
    cwd: Path | None = None,
    environ: t.Mapping[str, str] | None = None,
    cache: CatalogCache | None = None,
    root: tuple[Path, str] | None = None,
) -> Project:
    """The project of ``cwd`` (default: the process's working directory): its root, its
    configuration and its tool sources. ``environ`` (default: the process's environment, read
    here and in :func:`cogtools.catalog.load_catalog` only) goes with it."""
    environ = os.environ if environ is None else environ
    directory, reason = root or find_root((Path.cwd() if cwd is None else cwd).resolve(), environ)
    config = load_config(directory, environ, cache)
    sources = [Source("project", directory, recursive=False, marked_only=True)]
    problems: list[CogtoolsError] = []
    for entry in config.value("tool_sources"):
        if entry in PACKAGES:
            sources.extend(_toolsets(problems))
        else:
            written = entry["local"]
            sources.append(
                Source(
                    f"local:{written}",
                    (directory / _expand(written, config.settings["tool_sources"].origin)).resolve(),
                    recursive=True,
                    optional=config.settings["tool_sources"].origin == "default",
                )
            )
    for written in environ.get("COGTOOLS_TOOL_PATH", "").split(os.pathsep):
        if written:
            sources.append(
                Source("env:COGTOOLS_TOOL_PATH", _expand(written, "COGTOOLS_TOOL_PATH").resolve(), recursive=True)
            )
    warnings = [
        f"tool source {s.name}: {s.directory} is not a directory"
        for s in sources
        if not s.optional and not s.directory.is_dir()
    ]
    return Project(directory, reason, config, tuple(sources), tuple(problems), tuple(warnings), environ)


def _expand(written: str, origin: str) -> Path:
    """``written`` with a leading ``~`` or ``~user`` expanded; CONFIG_INVALID for a user that does
    not exist."""
    try:
        return Path(written).expanduser()
    except RuntimeError as e:
        raise ConfigInvalidError(
            f"the tool source {written!r} names a home directory that cannot be found ({e})", path=origin
        ) from e


def _toolsets(problems: list[CogtoolsError]) -> list[Source]:
    """A source for every installed toolset, by distribution and entry point name."""
    import importlib.util
    from importlib.metadata import entry_points

    found = []
    for ep in sorted(entry_points(group=TOOLSET_GROUP), key=lambda e: (e.dist.name if e.dist else "", e.name)):
        dist = ep.dist.name if ep.dist else "?"
        name = f"package:{dist}:{ep.name}"
        try:
            spec = importlib.util.find_spec(ep.value)
            locations = list(spec.submodule_search_locations or []) if spec else []
            if not locations:
                raise ModuleNotFoundError(f"{ep.value!r} is not a package (a directory of tool files)")
        except Exception as e:  # any failure of a third-party package is that toolset's alone
            problems.append(
                ConfigInvalidError(
                    f"toolset {ep.name!r} of {dist} cannot be loaded: {type(e).__name__}: {e}",
                    details={"entry_point": f"{ep.name} = {ep.value}", "group": TOOLSET_GROUP},
                )
            )
            continue
        found.append(Source(name, Path(locations[0]), recursive=True))
    return found
