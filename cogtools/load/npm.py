"""npm packages that ship cogtools tools (seed 004: "installed project and global node modules —
as tool and toolset sources"), and the other places of a JavaScript project cogtools reads.

A package declares its tools in its ``package.json``::

    "cogtools": {"tools": "tools/"}

``tools`` is a directory of tool files inside the package, or a list of them. A package without
the ``cogtools`` key is no toolset and is skipped without a word; one whose key is malformed, or
names a directory outside the package, is that package's problem alone.

The packages looked at are the project's own (``ROOT/node_modules/NAME`` and
``ROOT/node_modules/@SCOPE/NAME``, as ``require`` finds them from the root) and the global ones
(``npm root -g``, found the way npm finds its prefix, without starting npm). A scan is kept in the
catalog's cache while the ``node_modules`` directory, its scope directories and the manifests of
the toolsets found are as they were, so that a call does not read every ``package.json``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import typing as t
from pathlib import Path

from cogtools.core.errors import CogtoolsError, ConfigInvalidError

if t.TYPE_CHECKING:
    from cogtools.load.cache import CatalogCache

#: The key of a package's ``package.json`` that declares its tools (and, in a project's own
#: ``package.json``, carries its settings: :mod:`cogtools.load.config`).
KEY = "cogtools"
#: How many tool directories one package may declare.
MAX_TOOL_DIRECTORIES = 16
#: The cache's key of a scan (the directory follows).
_SCAN = "npm-toolsets\t"
_DECLARES = re.compile(rb'"cogtools"\s*:')


class Toolset(t.NamedTuple):
    """An installed package that declares tools: its name (``@scope/name``), its directory, and
    the tool directories it declares (as written, relative to the package; once placed, the
    absolute paths they lead to)."""

    package: str
    directory: str
    tools: tuple[str, ...]


class Scan(t.NamedTuple):
    toolsets: list[Toolset]
    problems: list[CogtoolsError]


def global_root(environ: t.Mapping[str, str]) -> Path | None:
    """What ``npm root -g`` prints, found as npm finds its prefix: ``npm_config_prefix`` in the
    environment, else ``prefix=`` in the user's ``.npmrc`` (``npm_config_userconfig``, default
    ``~/.npmrc``), else in the global ``PREFIX/etc/npmrc``, else the directory above the one that
    holds the ``node`` on ``PATH``; None when there is no such node and nothing says."""
    prefix = _environment(environ, "prefix")
    if prefix is None:
        home = environ.get("HOME")
        user = _environment(environ, "userconfig") or (os.path.join(home, ".npmrc") if home else None)
        prefix = _npmrc_prefix(user, environ) if user else None
    if prefix is None:
        node = shutil.which("node", path=environ.get("PATH", os.defpath))
        if node is None:
            return None
        default = os.path.dirname(os.path.dirname(os.path.realpath(node)))
        prefix = _npmrc_prefix(os.path.join(default, "etc", "npmrc"), environ) or default
    return Path(os.path.expanduser(prefix)) / "lib" / "node_modules"


def _environment(environ: t.Mapping[str, str], key: str) -> str | None:
    """npm's setting ``key`` from the environment (``npm_config_KEY``, in any case)."""
    wanted = f"npm_config_{key}"
    for name, value in environ.items():
        if name.lower() == wanted and value:
            return value
    return None


def _npmrc_prefix(path: str, environ: t.Mapping[str, str]) -> str | None:
    """The ``prefix`` an npmrc file (ini) sets, its ``${VAR}`` expanded as npm does; None when the
    file does not exist, cannot be read or does not set it."""
    from cogtools.core.limits import MAX_CONFIG_BYTES, read_file

    try:
        text = read_file(path, MAX_CONFIG_BYTES).decode("utf-8", "replace")
    except (OSError, ValueError):
        return None
    found = None
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() == "prefix":
            found = value.strip().strip("\"'")
    if not found:
        return None
    return re.sub(r"\$\{([^${}]+)\}", lambda m: environ.get(m.group(1), m.group(0)), found)


def scan(node_modules: Path, cache: CatalogCache | None = None) -> Scan:
    """The toolsets installed in ``node_modules``, sorted by package name, and the problems of the
    packages that declare tools wrongly; from the cache while nothing it was made from changed."""
    from cogtools.load.cache import CONFIG_KEY, file_stat

    try:
        top = os.stat(node_modules)
    except (OSError, ValueError):  # ValueError: a NUL in a prefix an npmrc gave
        return Scan([], [])
    key = _SCAN + str(node_modules)
    if cache is not None:
        kept = cache.get(CONFIG_KEY + key, file_stat(top))
        if kept is not None and all(_stat(path) == stat for path, stat in kept["watched"].items()):
            return _placed(
                [Toolset(p, d, tuple(tools)) for p, d, tools in kept["toolsets"]],
                [
                    ConfigInvalidError(message, path=path, details=details)
                    for message, path, details in kept["problems"]
                ],
            )
    toolsets: list[Toolset] = []
    problems: list[ConfigInvalidError] = []
    watched: dict[str, str] = {}
    for package, directory in _packages(str(node_modules), watched):
        manifest = os.path.join(directory, "package.json")
        try:
            found = _declared(package, directory, manifest)
        except ConfigInvalidError as e:
            problems.append(e)
            watched[manifest] = _stat(manifest)
            continue
        if found is not None:  # (one of settings alone is watched too: "tools" may come)
            toolsets += [found] if found.tools else []
            watched[manifest] = _stat(manifest)
        elif _linked_source(directory):  # a workspace's own package: its package.json is edited in place
            watched[manifest] = _stat(manifest)
    toolsets.sort(key=lambda found: found.package)
    if cache is not None:
        cache.put(
            CONFIG_KEY + key,
            file_stat(top),
            {
                "watched": watched,
                "toolsets": [list(found) for found in toolsets],
                "problems": [[e.message, e.path, e.details] for e in problems],
            },
        )
    return _placed(toolsets, list(problems))


def _placed(declared: list[Toolset], problems: list[CogtoolsError]) -> Scan:
    """The toolsets with their tool directories as absolute paths (as node finds them: through
    ``node_modules``, not the real path a link leads to, pnpm's store), each checked now, on every
    use (a directory of the package can have become a link that leads out of it since the scan
    was kept: nothing the cache knows of changes then)."""
    placed = []
    for toolset in declared:
        real = os.path.realpath(toolset.directory)
        paths = []
        for entry in toolset.tools:
            path = os.path.realpath(os.path.join(toolset.directory, entry))
            if path == real or os.path.commonpath([path, real]) != real:
                why = "names the package itself" if path == real else "leads outside the package"
                problems.append(
                    _wrong(toolset.package, os.path.join(toolset.directory, "package.json"), f"{entry!r} {why}")
                )
                break
            # where node finds it, not where a link leads (pnpm's store): what is shown and run
            paths.append(os.path.normpath(os.path.join(toolset.directory, entry)))
        else:
            placed.append(toolset._replace(tools=tuple(paths)))
    return Scan(placed, problems)


def _wrong(package: str, manifest: str, message: str) -> ConfigInvalidError:
    return ConfigInvalidError(
        f"the npm package {package} declares its cogtools tools wrongly: {message}",
        path=manifest,
        details={"package": package, "expected": '"cogtools": {"tools": "tools/"}'},
    )


def _stat(path: str) -> str:
    from cogtools.load.cache import stat_text

    try:
        return stat_text(os.stat(path))
    except OSError:
        return "-"


def _packages(node_modules: str, watched: dict[str, str]) -> t.Iterator[tuple[str, str]]:
    """Every package directly in ``node_modules`` (``name`` and ``@scope/name``) and its
    directory; each scope directory read is put in ``watched``."""
    for name in _listing(node_modules):
        if name.startswith("."):
            continue
        path = os.path.join(node_modules, name)
        if name.startswith("@"):
            watched[path] = _stat(path)
            for inner in _listing(path):
                if not inner.startswith("."):
                    yield f"{name}/{inner}", os.path.join(path, inner)
        else:
            yield name, path


def _linked_source(directory: str) -> bool:
    """Whether a package of ``node_modules`` is a link to a directory that no package manager
    installed (a workspace's package: npm, yarn and pnpm link them), whose package.json its
    author edits without touching ``node_modules``."""
    if not os.path.islink(directory):
        return False
    return "node_modules" not in os.path.realpath(directory).split(os.sep)


def _listing(directory: str) -> list[str]:
    try:
        return sorted(os.listdir(directory))
    except OSError:
        return []


def _declared(package: str, directory: str, manifest: str) -> Toolset | None:
    """The toolset ``package`` declares in its ``package.json``; None when it declares none (no
    manifest, or no ``cogtools`` key: most packages), and one of no tools when its key holds
    settings alone (:func:`_settings_only`); CONFIG_INVALID when it declares one wrongly."""
    from cogtools.core.limits import MAX_CONFIG_BYTES, FileRefused, read_file

    try:
        data = read_file(manifest, MAX_CONFIG_BYTES)
    except (OSError, FileRefused):
        return None
    if not _DECLARES.search(data):  # most packages: no need to parse them
        return None

    def wrong(message: str) -> ConfigInvalidError:
        return _wrong(package, manifest, message)

    from cogtools.core.jsondata import refuse_constant

    try:
        document = json.loads(data, parse_constant=refuse_constant)
    except (ValueError, RecursionError) as e:
        raise wrong(f"its package.json is not JSON ({e})") from None
    declared = document.get(KEY) if isinstance(document, dict) else None
    if declared is None:
        return None
    if _settings_only(declared):
        return Toolset(package, directory, ())
    if not isinstance(declared, dict) or "tools" not in declared:
        raise wrong('"cogtools" is an object whose "tools" names its directory of tool files')
    try:
        return Toolset(package, directory, tool_directories(declared["tools"]))
    except ValueError as e:
        raise wrong(str(e)) from None


def tool_directories(tools: t.Any) -> tuple[str, ...]:
    """The directories of tool files a ``"tools"`` member names (a path, or a list of 1 to
    :data:`MAX_TOOL_DIRECTORIES`, each relative to the package and inside it); ValueError saying
    what is wrong."""
    written = [tools] if isinstance(tools, str) else tools
    if not (isinstance(written, list) and 0 < len(written) <= MAX_TOOL_DIRECTORIES):
        raise ValueError(f'"tools" is a directory, or a list of 1 to {MAX_TOOL_DIRECTORIES} of them')
    for entry in written:
        if not isinstance(entry, str) or not entry or os.path.isabs(entry) or "\0" in entry:
            raise ValueError(f"{entry!r} is not a path relative to the package")
        if os.path.normpath(entry).split(os.sep)[0] == os.pardir:
            raise ValueError(f"{entry!r} leads outside the package")
    return tuple(written)


def _settings_only(declared: t.Any) -> bool:
    """Whether a package's ``"cogtools"`` key carries a project's settings and no tools (a
    workspace's own package configured in its package.json, linked from the root's
    ``node_modules``; a package published from such a project): no toolset, and nothing wrong.
    A key that names neither tools nor only settings (``"tool": "tools/"``) stays a problem."""
    from cogtools.schema.shipped import load_schema

    if not isinstance(declared, dict) or not declared or "tools" in declared:
        return False
    return set(declared) <= set(load_schema("config").get("properties", {}))


def is_itself(toolset: Toolset, root: Path) -> bool:
    """Whether ``toolset`` is the project at ``root`` itself, as a workspace's root links each of
    its packages in its ``node_modules``: the package's tools are then the project's own (its
    ``tool_sources``), never a dependency of its own."""
    try:
        return os.path.samefile(toolset.directory, root)
    except OSError:
        return False


def project_places(root: Path) -> list[Path]:
    """The ``node_modules`` directories whose packages the project at ``root`` can import, nearest
    first, as node looks for them: its own, and in a workspace (the project is one of its packages,
    :func:`cogtools.core.fsutil.workspace_root`) every one above it up to the workspace root's
    (npm, yarn and pnpm's hoisted linker keep a workspace's packages there)."""
    from cogtools.core.fsutil import workspace_root

    places = [root / "node_modules"]
    workspace = workspace_root(root)
    if workspace is not None:
        places += [
            directory / "node_modules" for directory in root.parents if workspace in (directory, *directory.parents)
        ]
    return places


def in_workspace(path: str, root: Path) -> str | None:
    """``path`` relative to the project at ``root`` (``../../node_modules/...``) when it lies in the
    workspace the project is a package of (a package hoisted to the workspace root's
    ``node_modules``); None when it does not."""
    from cogtools.core.fsutil import workspace_root

    workspace = workspace_root(root)
    if workspace is None or not Path(path).is_relative_to(workspace):
        return None
    return os.path.relpath(path, root)


def first_found(scans: t.Sequence[Scan]) -> Scan:
    """The toolsets of several ``node_modules`` directories, nearest first, as node finds a
    package: the nearest one of each name; and all their problems."""
    seen: set[str] = set()
    toolsets: list[Toolset] = []
    problems: list[CogtoolsError] = []
    for scanned in scans:
        toolsets += [found for found in scanned.toolsets if found.package not in seen]
        seen.update(found.package for found in scanned.toolsets)
        problems += scanned.problems
    return Scan(toolsets, problems)


def bin_directory(root: Path) -> Path:
    """Where a project's installed packages put their commands."""
    return root / "node_modules" / ".bin"
