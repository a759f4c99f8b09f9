"""From a project's sources to its tools: file discovery, loading, the cache, shadowing.

A broken definition never breaks the catalog: it is recorded as a problem, and every other tool
still loads. Two tools with one name: the one from the earlier source (and, within a source, the
earlier path in sorted order) wins; the other is kept in :attr:`Catalog.shadowed`.
"""

from __future__ import annotations

import functools
import os
import re
import typing as t
from pathlib import Path

from cogtools.core.errors import (
    BY_CODE,
    CogtoolsError,
    DefinitionInvalidError,
    InternalError,
    ToolNotFoundError,
)
from cogtools.core.model import NAME_RULE, Tool, name_problem
from cogtools.core.places import cache_dir
from cogtools.load.cache import CatalogCache, SourceWalk, Walked, file_stat, is_racy, stat_text
from cogtools.load.formats import LoadResult, format_for, suffixes
from cogtools.load.project import Project, Source, find_project, find_root

if t.TYPE_CHECKING:
    from cogtools.trust.policy import Policy

#: How a file in the project root says it is a cogtools tool: a shebang naming cogtools, the
#: tool format's ``$schema`` (as a YAML or TOML key, or a JSON member), or a script's
#: ``# cogtools-tool`` header.
_MARK_RE = re.compile(
    rb"\A(?:\xef\xbb\xbf)?#![^\n]*cogtools"
    rb"|[\"']?\$schema[\"']?\s*[:=]\s*[\"']?schema:agladysh-research\.org,2025/cogtools:tool"
    rb"|^(?:#|//) cogtools-tool\s*$",
    re.MULTILINE,
)


class Shadowed(t.NamedTuple):
    tool: Tool
    by: Tool


class Definition(t.NamedTuple):
    """One file's claim on a tool name, as ``cogtools which`` and ``cogtools-call -v`` tell it."""

    path: str
    source: str
    #: "used", "shadowed" or "broken"
    status: str
    #: Why it is shadowed, or what is broken ("" when used).
    why: str = ""


class Entry(t.NamedTuple):
    """One tool of the catalog: its name, known from the index, and its form (``Tool.to_dict``),
    read only when asked for."""

    name: str
    load: t.Callable[[], dict[str, t.Any]]

    @classmethod
    def of(cls, data: dict[str, t.Any]) -> Entry:
        return cls(data["name"], lambda: data)


class Catalog:
    """The tools of a project. A tool is read from the cache and built only when asked for, so
    that a call reads and builds one tool, not the whole catalog."""

    def __init__(
        self,
        project: Project,
        entries: list[Entry],
        problems: list[CogtoolsError],
        warnings: list[str],
        cache: CatalogCache | None = None,
        directories: tuple[str, ...] = (),
        *,
        whole: bool = True,
    ) -> None:
        self.project = project
        #: Whether it holds every tool of the project (not only the one a call needs).
        self.whole = whole
        #: The cache the catalog was read through (None: none, or built by hand).
        self.cache = cache
        #: Every directory read to find the tools, in the order read (none when it was not
        #: read whole).
        self.directories = directories
        #: Definitions that could not be loaded, in file order: the project's own, and those of
        #: the installed toolsets (``details.package``; :attr:`own_problems`,
        #: :attr:`package_problems`).
        self.problems = problems
        self.warnings = warnings
        self._winners: dict[str, Entry] = {}
        self._losers: list[tuple[Entry, Entry]] = []
        #: The winners built so far, by name (a call builds one).
        self._built: dict[str, Tool] = {}
        for entry in entries:
            winner = self._winners.setdefault(entry.name, entry)
            if winner is not entry:
                self._losers.append((entry, winner))

    @property
    def own_problems(self) -> list[CogtoolsError]:
        """The broken definitions the project can mend: its own files' (and its configuration's)."""
        return [problem for problem in self.problems if not problem.details.get("package")]

    @property
    def package_problems(self) -> list[CogtoolsError]:
        """The broken definitions of installed toolsets (npm packages, Python packages): their
        authors' to mend. They are said, once a package, where a person looks (``list``, ``lint``,
        ``test``, ``doctor``), and fail none of those; a call of such a tool is refused as any
        broken definition's."""
        return [problem for problem in self.problems if problem.details.get("package")]

    @property
    def state(self) -> tuple[CatalogCache, str] | None:
        """The cache and a text naming the catalog's state, when the fast index the load left
        vouches for the whole catalog (see :func:`cached_output`); else None."""
        if self.cache is None or not self.cache.vouched:
            return None
        return self.cache, _state_text(self.cache, self.project)

    @functools.cached_property
    def tools(self) -> dict[str, Tool]:
        """The winning tool of every name, sorted by name."""
        return {name: self._winner(name) for name in sorted(self._winners)}

    def _winner(self, name: str) -> Tool:
        """The winning tool of ``name``, built once."""
        built = self._built.get(name)
        if built is None:
            built = self._built[name] = Tool.from_dict(self._winners[name].load())
        return built

    @functools.cached_property
    def shadowed(self) -> list[Shadowed]:
        """Every tool that lost to an earlier one of the same name."""
        return [Shadowed(Tool.from_dict(loser.load()), Tool.from_dict(winner.load())) for loser, winner in self._losers]

    def visible(self, **overrides: t.Any) -> list[Tool]:
        """The tools the caller may see: the configured policy, with ``overrides`` (toolset,
        role, category, max_risk; None means "as configured") over it."""
        from cogtools.trust.policy import Policy

        policy = Policy.of(self.project, **overrides)
        return [tool for tool in self.tools.values() if policy.visible(tool)]

    def names(self) -> list[str]:
        return sorted(self._winners)

    def definitions(self, name: str) -> list[Definition]:
        """Every definition of ``name``, in precedence order: the one used, those it shadows (and
        why), then broken files that meant to define it."""
        order = [source.name for source in self.project.sources]
        found = []
        winner = self.tools.get(name)
        if winner is not None:
            found.append(Definition(winner.origin.path, winner.origin.source, "used"))
        for entry in self.shadowed:
            if entry.tool.name != name:
                continue
            loser, by = entry.tool.origin, entry.by.origin
            if loser.source == by.source:
                why = f"{by.path} comes first in sorted order within source {by.source}"
            else:
                why = f"source {by.source} comes before source {loser.source} (order: {', '.join(order)})"
            found.append(Definition(loser.path, loser.source, "shadowed", why))
        for problem in self.problems:
            if problem.tool == name:
                found.append(Definition(problem.path or "?", "", "broken", f"{problem.code}: {problem.message}"))
        return found

    def get(self, name: str, policy: Policy | None = None) -> Tool:
        """The tool called ``name``; TOOL_NOT_FOUND (with near misses), or DEFINITION_INVALID when
        the file that would define it is broken. With the caller's ``policy``, a tool it hides
        (:meth:`~cogtools.trust.policy.Policy.hides`) is not found either, with the very error a
        name no tool has gets: what a caller is not shown, it can neither call nor tell apart
        from nothing."""
        problem = name_problem(name)
        if problem:
            raise ToolNotFoundError(
                f"{name!r} is not a valid tool name: {problem}",
                tool=name,
                details={"reason": "invalid_name", "accepted": NAME_RULE},
            )
        entry = self._winners.get(name)
        if entry is not None:
            tool = self._winner(name)
            if policy is None or policy.visible(tool):
                return tool
            raise self.not_found(name)
        for error in self.problems:
            if error.tool == name:
                raise error
        raise self.not_found(name)

    def not_found(self, name: str) -> ToolNotFoundError:
        """The error of a call of ``name`` that the caller finds no tool of: its near misses and
        what it may call, among the tools it is shown (from the whole catalog, whatever this one
        holds)."""
        if not self.whole:
            return load_catalog(self.project.root, self.project.environ).not_found(name)
        from cogtools.core.errors import close_names, did_you_mean

        # only what the caller may see: a miss must not show the model tools its role may not use
        visible = [tool.name for tool in self.visible()]
        near = close_names(name, visible, n=3)
        message = f"no tool named {name!r} in {self.project.root}"
        if near:
            message += f" ({did_you_mean(near)})"
        return ToolNotFoundError(
            message,
            tool=name,
            details={"available": visible, **({"did_you_mean": near} if near else {})},
        )


def load_catalog(
    cwd: Path | None = None, environ: t.Mapping[str, str] | None = None, *, only: str | None = None
) -> Catalog:
    """The tools of the project of ``cwd`` (default: the working directory).

    With ``only`` (what a call needs), the catalog may hold nothing but the tool of that name:
    when the cache's fast index vouches for it, that is every file that could define or shadow
    it (its own, and each file before it in precedence order) and every directory read to find
    them unchanged, only that tool is read, whatever the size of the catalog."""
    environ = os.environ if environ is None else environ
    root = find_root((Path.cwd() if cwd is None else cwd).resolve(), environ)
    cache = CatalogCache(cache_dir(environ), root[0])
    project = find_project(environ=environ, cache=cache, root=root)
    signature = _signature(project)
    if only is not None:
        found = _fast_lookup(project, cache, signature, only)
        if found is not None:
            return found
    entries: list[Entry] = []
    problems: list[CogtoolsError] = list(project.problems)
    warnings: list[str] = list(project.warnings)
    walks: list[SourceWalk] = []
    winners: dict[str, tuple[int, int, int]] = {}
    directories: list[str] = []
    racy = False
    for number, source in enumerate(project.sources):
        walk = _walk(source)
        directories += [path for path, _ in walk.dirs]
        warnings.extend(walk.warnings)
        racy = racy or walk.racy
        files = []
        broken: list[CogtoolsError] = []
        for position, path in enumerate(walk.files):
            found_entries, more, problem, st = _file_tools(path, source, project, cache)
            entries += found_entries
            warnings += more
            if problem is not None:
                broken.append(problem)
            for index, entry in enumerate(found_entries):
                winners.setdefault(entry.name, (number, position, index))
            racy = racy or (st is not None and is_racy(st))
            files.append((_relative(path, source), _key(source, path), stat_text(st) if st else "-"))
        if source.package:  # an installed toolset's: the package's to mend, not the project's
            broken = _package_problem(source, broken) if len(broken) > 1 else [_of_package(source, p) for p in broken]
        problems += broken
        walks.append(SourceWalk([(_relative(path, source), stat) for path, stat in walk.dirs], files))
    cache.save(Walked(signature, walks, winners, racy))
    return Catalog(project, entries, problems, warnings, cache, tuple(directories))


def _of_package(source: Source, problem: CogtoolsError) -> CogtoolsError:
    """``problem``, marked as the installed toolset's (``details.package``)."""
    return problem.replace(details={**problem.details, "package": source.package})


def _package_problem(source: Source, broken: list[CogtoolsError]) -> list[CogtoolsError]:
    """The broken definitions of an installed toolset, as one problem: the package's, which the
    project cannot mend, so it is said once rather than once a file."""
    first = broken[0]
    return [
        DefinitionInvalidError(
            f"{len(broken)} tool definitions of {source.package} do not load; the first: {first.message}"
            " (its author's `cogtools lint` shows them all)",
            path=first.path,
            tool=first.tool,
            details={"package": source.package, "broken": [problem.path for problem in broken]},
        )
    ]


def cached_output(
    key: str,
    compute: t.Callable[[], tuple[str, Catalog | None]],
    cwd: Path | None = None,
    environ: t.Mapping[str, str] | None = None,
) -> str:
    """What ``compute`` gives for the catalog of the project of ``cwd``, kept under ``key`` (which
    must name everything else the output depends on) while the catalog's state is unchanged.
    ``compute`` returns the output and the catalog it was made from (None: keep nothing); the
    output is kept only when the fast index that load left vouches for the whole catalog (nothing
    changed while it ran). One output per project is kept, the last one made."""
    warm = warm_state(cwd, environ)
    if warm is not None:
        stored = warm[0].output(warm[1] + key)
        if stored is not None:
            return stored.decode("utf-8")
    output, catalog = compute()
    state = catalog.state if catalog is not None else None
    if state is not None:
        state[0].put_output(state[1] + key, output.encode("utf-8"))
    return output


def warm_state(cwd: Path | None = None, environ: t.Mapping[str, str] | None = None) -> tuple[CatalogCache, str] | None:
    """The cache and a text naming the whole catalog's state (its fast index, the configuration,
    the project root), when the fast index vouches for every source, directory and file (none
    changed since it was written); else None."""
    environ = os.environ if environ is None else environ
    try:
        root = find_root((Path.cwd() if cwd is None else cwd).resolve(), environ)
        cache = CatalogCache(cache_dir(environ), root[0])
        project = find_project(environ=environ, cache=cache, root=root)
    except CogtoolsError:
        return None
    fast = cache.fast
    if fast is None or cache.dirty or fast.signature != _signature(project):
        return None
    if not fast.unchanged([str(source.directory) for source in project.sources]):
        return None
    return cache, _state_text(cache, project)


def _state_text(cache: CatalogCache, project: Project) -> str:
    """The catalog's state: its fast index (by MAC), the project root, the configuration."""
    import json

    config = {key: setting.value for key, setting in project.config.settings.items()}
    return json.dumps([cache.fast_mac, str(project.root), project.reason, config], sort_keys=True, default=str)


def _key(source: Source, path: str) -> str:
    """A file's key in the cache: one file met through two sources yields by each its own."""
    return f"{source.name}\t{path}"


def _relative(path: str, source: Source) -> str:
    """``path``, found by walking ``source``, relative to its directory."""
    base = str(source.directory)
    return path[len(base) + 1 :] if path.startswith(base + os.sep) else os.path.relpath(path, base)


def _signature(project: Project) -> str:
    """What the fast index is valid for: the project's sources, each as it is read."""
    return repr([(s.name, str(s.directory), s.recursive, s.marked_only, s.optional) for s in project.sources])


def _fast_lookup(project: Project, cache: CatalogCache, signature: str, name: str) -> Catalog | None:
    """The catalog of the one tool ``name`` from the cache's fast index, or None unless every
    directory and file its winning were decided by is as it was (then the whole catalog is
    read, as without ``only``)."""
    fast = cache.fast
    if fast is None or cache.dirty or fast.signature != signature:
        return None
    located = fast.locate(name)
    if located is None or not fast.unchanged([str(source.directory) for source in project.sources], located):
        return None
    found = cache.tool(located, name)
    return Catalog(project, [Entry.of(found)], [], [], cache, whole=False) if found is not None else None


class Walk(t.NamedTuple):
    """The definition files of a source, in sorted order, and what the walk met on the way."""

    files: list[Path]
    warnings: list[str]


def source_files(source: Source) -> Walk:
    """The definition files of a source, in sorted order; hidden entries are skipped, symbolic
    links followed once. A directory met twice (a link loop, or a second link to it), one that
    cannot be read, and a source past :data:`~cogtools.core.limits.MAX_SOURCE_ENTRIES` entries or
    :data:`~cogtools.core.limits.MAX_SOURCE_DEPTH` levels are reported, not silently skipped."""
    walk = _walk(source)
    return Walk([Path(path) for path in walk.files], walk.warnings)


class _Paths(t.NamedTuple):
    files: list[str]
    warnings: list[str]
    #: Each directory read, with its stat (:func:`~cogtools.load.cache.stat_text`; ``-`` if missing).
    dirs: list[tuple[str, str]]
    #: Whether a directory changed too recently for its stat to vouch for its listing.
    racy: bool


def _walk(source: Source) -> _Paths:
    """:func:`source_files`, with paths as strings (a Path per file costs more than its stat)."""
    from cogtools.core.limits import MAX_SOURCE_DEPTH, MAX_SOURCE_ENTRIES

    known = suffixes()
    out: list[str] = []
    dirs: list[tuple[str, str]] = []
    racy = [False]
    met: dict[str, list[str]] = {}
    seen: set[tuple[int, int]] = set()
    budget = [MAX_SOURCE_ENTRIES]

    def warn(kind: str, message: str) -> None:
        met.setdefault(kind, []).append(message)

    def walk(directory: str, depth: int) -> bool:
        """False once the source's entry budget is spent."""
        try:
            st = os.stat(directory)
            dirs.append((directory, stat_text(st)))
            racy[0] = racy[0] or is_racy(st)
            key = (st.st_dev, st.st_ino)
            if key in seen:
                warn("seen", f"{directory} is a directory already read (a symbolic link loop?); skipped")
                return True
            seen.add(key)
            with os.scandir(directory) as listing:
                entries = []
                for entry in listing:
                    budget[0] -= 1
                    if budget[0] < 0:
                        warn("size", f"more than {MAX_SOURCE_ENTRIES} entries; stopped reading at {directory}")
                        return False
                    entries.append(entry)
        except OSError as e:
            warn("unreadable", f"cannot read directory {directory}: {e.strerror}; skipped")
            return True
        for entry in sorted(entries, key=lambda e: e.name):
            if entry.name.startswith("."):
                continue
            try:
                is_dir = entry.is_dir()
            except OSError:
                continue
            if is_dir:
                if not source.recursive:
                    continue
                if depth >= MAX_SOURCE_DEPTH:
                    warn("deep", f"{entry.path} is more than {MAX_SOURCE_DEPTH} directories deep; skipped")
                    continue
                if not walk(entry.path, depth + 1):
                    return False
            elif os.path.splitext(entry.name)[1].lower() in known:
                out.append(entry.path)
        return True

    if source.directory.is_dir():
        walk(str(source.directory), 0)
    else:
        dirs.append((str(source.directory), "-"))
    warnings = []
    for messages in met.values():
        warnings += [f"tool source {source.name}: {message}" for message in messages[:WARNINGS_OF_A_KIND]]
        if len(messages) > WARNINGS_OF_A_KIND:
            warnings.append(f"tool source {source.name}: {len(messages) - WARNINGS_OF_A_KIND} more like the above")
    return _Paths(out, warnings, dirs, racy[0])


#: How many warnings of one kind (a directory met twice, one that cannot be read) a walk gives
#: before it only counts them.
WARNINGS_OF_A_KIND = 3


def _display(path: str, root: Path) -> str:
    try:
        return str(Path(path).relative_to(root))
    except ValueError:
        from cogtools.load.npm import in_workspace

        return in_workspace(path, root) or path


def _file_tools(
    path: str, source: Source, project: Project, cache: CatalogCache
) -> tuple[list[Entry], list[str], CogtoolsError | None, os.stat_result | None]:
    """The tools of one definition file, the warnings met reading it, what broke it, and its
    stat: from the cache's index while the file is as it was parsed (its tools read only when
    asked for), else parsed now."""
    # One file can be met through two sources (the root's marked files and ``local: .``); what
    # it yields (and whether it is read at all) depends on the source.
    key = _key(source, path)
    error: CogtoolsError
    try:
        st = os.stat(path)
    except OSError as e:  # a dangling link, or a file removed while we looked
        return (
            [],
            [],
            DefinitionInvalidError(
                f"cannot read: {e.strerror}", path=_display(path, project.root), tool=Path(path).stem
            ),
            None,
        )
    stat = file_stat(st)
    cached = cache.get(key, stat)
    if cached is not None:
        if cached.get("skip"):
            return [], [], None, st
        if cached.get("error"):
            return [], list(cached.get("warnings", ())), _error_from_json(cached["error"]), st
        load = _Loader(path, source, project, cache, cached)
        return (
            [Entry(name, functools.partial(load, index, name)) for index, name in enumerate(cached["names"])],
            list(cached["warnings"]),
            None,
            st,
        )
    display = _display(path, project.root)
    try:
        data = read_definition(Path(path), display)
        if source.marked_only and not _MARK_RE.search(data):
            cache.put(key, stat, {"skip": True})
            return [], [], None, st
        result = parse_definition(Path(path), data, display_path=display, source=source.name)
    except CogtoolsError as e:
        error = e
        if _linked_away(path, source, project):
            error = DefinitionInvalidError(LINKED_AWAY, path=display, tool=Path(path).stem)
        cache.put(key, stat, {"error": _error_to_json(error)})
        return [], [], error, st
    except Exception as e:  # a bug must not take discovery down with it
        error = InternalError(f"loading failed (a bug in cogtools): {type(e).__name__}: {e}", path=display)
        return [], [], error, None
    tools = [tool.to_dict() for tool in result.tools]
    warnings = list(result.warnings)
    if warnings and _linked_away(path, source, project):
        warnings = [
            f"{display}: reached through a symbolic link that leads outside the project; its warnings are not shown"
        ]
    cache.put(key, stat, {"names": [tool["name"] for tool in tools], "warnings": warnings}, {"tools": tools})
    return [Entry.of(tool) for tool in tools], warnings, None, st


#: What is said of a broken definition reached through a link that leaves the project (and its
#: source): its name only, for what it points at may be any file of the person's, and what a
#: parser quotes of it (a line, a key) would reach the model through cogtools_problems.
LINKED_AWAY = (
    "reached through a symbolic link that leads outside the project, and not a tool definition that"
    " loads; what it points at is not shown (replace the link with the file itself to see why)"
)


def _linked_away(path: str, source: Source, project: Project) -> bool:
    """Whether the file at ``path``, its links followed, is neither in the project nor in its
    source's own directory."""
    from cogtools.core.fsutil import inside

    return not (inside(path, project.root) or inside(path, source.directory))


class _Loader:
    """The tools of one cached file, read from the cache's segment once, when first asked for;
    parsed again from the file should the segment be gone or changed."""

    def __init__(
        self, path: str, source: Source, project: Project, cache: CatalogCache, entry: dict[str, t.Any]
    ) -> None:
        self._path, self._source, self._project, self._cache, self._entry = path, source, project, cache, entry
        self._tools: list[dict[str, t.Any]] | None = None

    def __call__(self, index: int, name: str) -> dict[str, t.Any]:
        if self._tools is None:
            payload = self._cache.payload(self._entry)
            if isinstance(payload, dict) and isinstance(payload.get("tools"), list):
                self._tools = payload["tools"]
            else:
                display = _display(self._path, self._project.root)
                result = parse_definition(
                    Path(self._path),
                    read_definition(Path(self._path), display),
                    display_path=display,
                    source=self._source.name,
                )
                self._tools = [tool.to_dict() for tool in result.tools]
        if index >= len(self._tools) or self._tools[index].get("name") != name:
            raise DefinitionInvalidError(
                "changed while it was read; call again", path=_display(self._path, self._project.root), tool=name
            )
        return self._tools[index]


def read_definition(path: Path, display_path: str) -> bytes:
    """The bytes of a definition file: DEFINITION_INVALID for what is not a regular file or is
    past :data:`~cogtools.core.limits.MAX_DEFINITION_BYTES`, or cannot be read."""
    from cogtools.core.limits import MAX_DEFINITION_BYTES, FileRefused, read_file

    try:
        return read_file(path, MAX_DEFINITION_BYTES)
    except FileRefused as e:
        raise DefinitionInvalidError(e.message, path=display_path, tool=path.stem) from e
    except OSError as e:
        raise DefinitionInvalidError(f"cannot read: {e.strerror}", path=display_path, tool=path.stem) from e


def parse_definition(path: Path, data: bytes, *, display_path: str, source: str, fmt: str | None = None) -> LoadResult:
    """The tools defined by ``data``, the content of ``path``, read in ``fmt`` (default: the
    format its suffix names); every failure is a domain error naming the file's tool."""
    import hashlib

    from cogtools.load.formats import FORMATS

    found = FORMATS[fmt] if fmt is not None else format_for(path)
    try:
        if found is None:
            known = ", ".join(suffix for fmt in FORMATS.values() for suffix in fmt.suffixes)
            raise DefinitionInvalidError(
                f"not a tool file: its suffix {path.suffix or '(none)'!r} is none of {known}",
                path=display_path,
                details={"suffix": path.suffix, "accepted": sorted(suffixes())},
            )
        result = found.loader()(path, data, display_path=display_path, source=source)
        digest = hashlib.sha256(data).hexdigest()
        return result._replace(
            tools=tuple(tool._replace(origin=tool.origin._replace(digest=digest)) for tool in result.tools)
        )
    except CogtoolsError as e:
        raise e.with_tool(path.stem) from e.__cause__
    except RecursionError as e:
        raise DefinitionInvalidError("nested too deeply to be read", path=display_path, tool=path.stem) from e


def _error_to_json(error: CogtoolsError) -> dict[str, t.Any]:
    return {
        "code": error.code,
        "message": error.message,
        "tool": error.tool,
        "details": error.details,
        "path": error.path,
        "line": error.line,
        "key_path": list(error.key_path) if error.key_path is not None else None,
    }


def _error_from_json(data: t.Mapping[str, t.Any]) -> CogtoolsError:
    cls = BY_CODE.get(data["code"], InternalError)
    return cls(
        data["message"],
        tool=data.get("tool"),
        details=data.get("details"),
        path=data.get("path"),
        line=data.get("line"),
        key_path=data.get("key_path"),
    )


def load_tool_file(path: Path, fmt: str = "yaml") -> Tool:
    """The tool defined in the file at ``path`` (for ``cogtools-yaml``: YAML whatever its name)."""
    try:
        data = read_definition(path, str(path))
    except DefinitionInvalidError as e:
        cause = e.__cause__
        if isinstance(cause, FileNotFoundError):
            raise ToolNotFoundError(f"no such tool file: {path}", tool=path.stem) from e
        if isinstance(cause, IsADirectoryError):
            raise ToolNotFoundError(f"{path} is a directory, not a tool file", tool=path.stem) from e
        raise
    result = parse_definition(path, data, display_path=str(path), source="file", fmt=fmt)
    if len(result.tools) != 1:
        raise DefinitionInvalidError(
            f"{path} defines {len(result.tools)} tools; name one with cogtools-call", path=str(path)
        )
    return result.tools[0]
