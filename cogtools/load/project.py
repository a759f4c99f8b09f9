"""The project a directory belongs to, and the places its tools come from, in order.

This is the one place that decides where tools are looked for: the project root's own tool files,
then the configured ``tool_sources`` (local directories, installed Python toolsets, installed npm
toolsets), then the directories of ``$COGTOOLS_TOOL_PATH``.
"""

from __future__ import annotations

import os
import re
import typing as t
from pathlib import Path

from cogtools.core.errors import CogtoolsError, ConfigInvalidError
from cogtools.load.config import CONFIG_NAME, MANIFEST, Config, load_config

#: A Python project's manifest, whose ``[tool.cogtools]`` table can carry the settings.
PYPROJECT = "pyproject.toml"

if t.TYPE_CHECKING:
    from cogtools.load.cache import CatalogCache

#: What marks a project root, strongest first: the nearest directory holding a marker of the
#: first group wins; only when no directory up to the file system root holds one is the next
#: group tried. The first group is the files that hold a project's settings: its
#: ``.cogtoolrc.yaml``, a ``package.json`` with a ``"cogtools"`` key (Node's own model: the
#: nearest such package, a workspace's package, is the project, not the repository around it),
#: or a ``pyproject.toml`` with ``[tool.cogtools]`` (a uv or Poetry workspace's member alike).
ROOT_MARKERS = ((CONFIG_NAME, MANIFEST, PYPROJECT), (".gemini",), (".git",))

#: The entry point group of installed toolsets: each entry point names a package (a directory)
#: of tool files, e.g. ``[project.entry-points."cogtools.toolsets"] ops = "acme_ops.tools"``.
TOOLSET_GROUP = "cogtools.toolsets"
#: The ``tool_sources`` entry of the installed Python toolsets.
PACKAGES = "packages"
#: The ``tool_sources`` entry of the npm packages, the project's and the global ones, that declare
#: tools in their ``package.json`` (:mod:`cogtools.load.npm`).
NODE_MODULES = "node_modules"


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
    #: The installed package (a toolset) the source belongs to, if any: its broken definitions
    #: are its problem, reported once (:func:`cogtools.load.catalog.load_catalog`).
    package: str = ""


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
    for markers in ROOT_MARKERS:
        for directory in chain:
            for marker in markers:
                if marker == ".gemini" and directory == home_path:
                    continue
                if marker in (MANIFEST, PYPROJECT):
                    if _declares_cogtools(directory / marker):
                        return directory, marker
                elif (directory / marker).exists():
                    return directory, marker
    return cwd, "cwd"


#: What a ``pyproject.toml`` that sets ``[tool.cogtools]`` has on one of its lines: the table's
#: header (or a sub-table's), or a dotted key (``tool.cogtools.x =``, ``cogtools.x =`` under
#: ``[tool]``). Only a file with such a line is parsed, to be sure.
_TOOL_COGTOOLS = re.compile(
    rb"^[ \t]*(\[[ \t]*tool[ \t]*\.[ \t]*cogtools[ \t]*[\].]|(tool[ \t]*\.[ \t]*)?cogtools[ \t]*[.=])", re.M
)


def _declares_cogtools(path: Path) -> bool:
    """Whether the ``package.json`` at ``path`` has a ``"cogtools"`` key at its top, or the
    ``pyproject.toml`` a ``[tool.cogtools]`` table. It is read only where it exists, and as the
    configuration is (:func:`cogtools.core.limits.read_file`: a regular file, at most the
    configuration's limit, never waiting on a FIFO); one cogtools cannot read marks nothing (npm's
    or the build's problem). Most have no such key, and are not parsed."""
    from cogtools.core.limits import MAX_CONFIG_BYTES, FileRefused, read_file

    try:
        data = read_file(path, MAX_CONFIG_BYTES)
    except (OSError, FileRefused):
        return False
    if path.name == PYPROJECT:
        if not _TOOL_COGTOOLS.search(data):
            return False
        from cogtools.core.tomlio import TomlProblem, loads

        try:
            tool = loads(data.decode("utf-8").removeprefix("\ufeff")).get("tool")
        except (TomlProblem, UnicodeDecodeError):
            return False
        return isinstance(tool, dict) and "cogtools" in tool
    if b'"cogtools"' not in data:
        return False
    import json

    try:
        document = json.loads(data.decode("utf-8").removeprefix("\ufeff"))
    except (ValueError, RecursionError):
        return False
    return isinstance(document, dict) and "cogtools" in document


def find_project(
    cwd: Path | None = None,
    environ: t.Mapping[str, str] | None = None,
    cache: CatalogCache | None = None,
    root: tuple[Path, str] | None = None,
) -> Project:
    """The project of ``cwd`` (default: the process's working directory): its root, its
    configuration and its tool sources. ``environ`` (default: the process's environment, read
    here and in :func:`cogtools.load.catalog.load_catalog` only) goes with it."""
    environ = os.environ if environ is None else environ
    directory, reason = root or find_root((Path.cwd() if cwd is None else cwd).resolve(), environ)
    config = load_config(directory, environ, cache)
    sources = [Source("project", directory, recursive=False, marked_only=True)]
    problems: list[CogtoolsError] = []
    for entry in config.value("tool_sources"):
        if entry == PACKAGES:
            sources.extend(_toolsets(problems))
        elif entry == NODE_MODULES:
            sources.extend(_npm_toolsets(directory, environ, cache, problems))
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
        found.append(Source(name, Path(locations[0]), recursive=True, package=name))
    return found


def _npm_toolsets(
    root: Path, environ: t.Mapping[str, str], cache: CatalogCache | None, problems: list[CogtoolsError]
) -> list[Source]:
    """A source for every tool directory of every npm package that declares tools: the project's
    packages (``npm:NAME``) before the global ones (``npm-global:NAME``)."""
    from cogtools.load import npm

    found = []
    local = npm.first_found([npm.scan(place, cache) for place in npm.project_places(root)])  # a workspace's too
    places = [("npm", local), ("npm-global", npm.global_root(environ))]
    for kind, node_modules in places:
        if node_modules is None:
            continue
        scanned = node_modules if isinstance(node_modules, npm.Scan) else npm.scan(node_modules, cache)
        problems.extend(scanned.problems)
        for toolset in scanned.toolsets:
            if kind == "npm" and npm.is_itself(toolset, root):  # a workspace root's link to the package itself
                continue
            name = f"{kind}:{toolset.package}"
            found += [Source(name, Path(path), recursive=True, package=name) for path in toolset.tools]
    return found


def toolset_notes(project: Project) -> list[tuple[bool, str]]:
    """What a person should know of the installed toolsets the configuration asks for, each with
    whether it is a warning: which were found, that none were, and :func:`migration_note`."""
    configured = project.config.value("tool_sources")
    found = {source.package for source in project.sources if source.package}
    notes: list[tuple[bool, str]] = []
    if NODE_MODULES in configured:
        npm_found = sorted(name for name in found if name.startswith("npm"))
        if npm_found:
            notes.append((False, f"tool source node_modules: the npm toolsets {', '.join(npm_found)}"))
        else:
            from cogtools.load import npm

            places = [str(project.root / "node_modules"), str(npm.global_root(project.environ) or "")]
            notes.append(
                (
                    True,
                    "tool source node_modules: no npm package installed in the project or globally"
                    f" ({' or '.join(filter(None, places))}) declares cogtools tools (a package declares"
                    ' them in its package.json: "cogtools": {"tools": "tools/"})',
                )
            )
    if PACKAGES in configured:
        python_found = sorted(name for name in found if name.startswith("package:"))
        if python_found:
            notes.append((False, f"tool source packages: the Python toolsets {', '.join(python_found)}"))
        elif not project.problems:
            notes.append(
                (
                    True,
                    "tool source packages: no installed Python distribution registers the entry point"
                    f" group {TOOLSET_GROUP}",
                )
            )
    migration = migration_note(project)
    return notes + ([(True, migration)] if migration else [])


def migration_note(project: Project) -> str | None:
    """What a configuration that lists ``node_modules`` and not ``packages`` is told when Python
    toolsets are installed: ``node_modules`` once meant them, and now means npm packages."""
    configured = project.config.value("tool_sources")
    if NODE_MODULES not in configured or PACKAGES in configured:
        return None
    from importlib.metadata import entry_points

    python = sorted(f"{ep.dist.name if ep.dist else '?'}:{ep.name}" for ep in entry_points(group=TOOLSET_GROUP))
    if not python:
        return None
    return (
        f"tool source node_modules means npm packages: the installed Python toolsets ({', '.join(python)})"
        " are read only with `packages` in tool_sources (node_modules once meant them too):"
        " `cogtools config add tool_sources packages`"
    )


def no_tools_note(project: Project) -> str | None:
    """What a project in which no tool was found is told when none of its tool sources exists
    (a source it declares and lacks is warned of already; the default ``./tools`` is optional,
    and a project found by a ``.git`` far above the directory a person is in would otherwise say
    nothing at all); None when one exists."""
    missing = [source for source in project.sources if source.name != "project" and not source.directory.is_dir()]
    if len(missing) < len(project.sources) - 1:
        return None
    where = ", ".join(source.name.removeprefix("local:") for source in missing) or "none is configured"
    return (
        f"no tools: the project at {project.root} (found by {project.reason}) has no tool source that exists"
        f' ({where}); `cogtools init` makes one, or a package.json with a "cogtools" key marks a project of its own'
    )
