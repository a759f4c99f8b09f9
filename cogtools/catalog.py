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

from cogtools.cache import CatalogCache, cache_dir, file_stat
from cogtools.errors import (
    BY_CODE,
    CogtoolsError,
    DefinitionInvalidError,
    InternalError,
    ToolNotFoundError,
)
from cogtools.formats import LoadResult, format_for, suffixes
from cogtools.model import NAME_RULE, Tool, name_problem
from cogtools.project import Project, Source, discover_project, find_root

#: How a file in the project root says it is a cogtools tool: a shebang naming cogtools, the
#: tool format's ``$schema`` (as a YAML or TOML key, or a JSON member), or a script's
#: ``# cogtools-tool`` header.
_MARK_RE = re.compile(
    rb"\A(?:\xef\xbb\xbf)?#![^\n]*cogtools"
    rb"|[\"']?\$schema[\"']?\s*[:=]\s*[\"']?schema:agladysh-research\.org,2025/cogtools:tool"
    rb"|^# cogtools-tool\s*$",
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


class Catalog:
    """The tools of a project. Tools are built from their cached form only when asked for, so
    that a call builds one tool, not the whole catalog."""

    def __init__(
        self,
        project: Project,
        entries: list[dict[str, t.Any]],
        problems: list[CogtoolsError],
        warnings: list[str],
    ) -> None:
        self.project = project
        #: Definitions that could not be loaded, in file order.
        self.problems = problems
        self.warnings = warnings
        self._winners: dict[str, dict[str, t.Any]] = {}
        self._losers: list[tuple[dict[str, t.Any], dict[str, t.Any]]] = []
        for data in entries:
            winner = self._winners.setdefault(data["name"], data)
            if winner is not data:
                self._losers.append((data, winner))

    @functools.cached_property
    def tools(self) -> dict[str, Tool]:
        """The winning tool of every name, sorted by name."""
        return {name: Tool.from_dict(self._winners[name]) for name in sorted(self._winners)}

    @functools.cached_property
    def shadowed(self) -> list[Shadowed]:
        """Every tool that lost to an earlier one of the same name."""
        return [Shadowed(Tool.from_dict(loser), Tool.from_dict(winner)) for loser, winner in self._losers]

    def visible(self, **overrides: t.Any) -> list[Tool]:
        """The tools the caller may see: the configured policy, with ``overrides`` (toolset,
        role, category, max_risk; None means "as configured") over it."""
        from cogtools.policy import Policy

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

    def get(self, name: str) -> Tool:
        """The tool called ``name``; TOOL_NOT_FOUND (with near misses), or DEFINITION_INVALID when
        the file that would define it is broken."""
        problem = name_problem(name)
        if problem:
            raise ToolNotFoundError(
                f"{name!r} is not a valid tool name: {problem}",
                tool=name,
                details={"reason": "invalid_name", "accepted": NAME_RULE},
            )
        data = self._winners.get(name)
        if data is not None:
            return Tool.from_dict(data)
        for error in self.problems:
            if error.tool == name:
                raise error
        import difflib

        # only what the caller may see: a miss must not show the model tools its role may not use
        visible = [tool.name for tool in self.visible()]
        near = difflib.get_close_matches(name, visible, n=3)
        message = f"no tool named {name!r} in {self.project.root}"
        if near:
            message += f" (did you mean {' or '.join(repr(n) for n in near)}?)"
        raise ToolNotFoundError(
            message,
            tool=name,
            details={"available": visible, **({"did_you_mean": near} if near else {})},
        )


def load_catalog(cwd: Path | None = None, environ: t.Mapping[str, str] | None = None) -> Catalog:
    """The tools of the project of ``cwd`` (default: the working directory)."""
    environ = os.environ if environ is None else environ
    root = find_root((Path.cwd() if cwd is None else cwd).resolve(), environ)
    cache = CatalogCache(cache_dir(environ), root[0])
    project = discover_project(environ=environ, cache=cache, root=root)
    entries: list[dict[str, t.Any]] = []
    problems: list[CogtoolsError] = list(project.problems)
    warnings: list[str] = list(project.warnings)
    for source in project.sources:
        walk = source_files(source)
        warnings.extend(walk.warnings)
        for path in walk.files:
            entry = _entry(path, source, project, cache)
            if entry is None:
                continue
            warnings.extend(entry.get("warnings", ()))
            if entry.get("error"):
                problems.append(_error_from_json(entry["error"]))
            entries.extend(entry.get("tools", ()))
    cache.save()
    return Catalog(project, entries, problems, warnings)


class Walk(t.NamedTuple):
    """The definition files of a source, in sorted order, and what the walk met on the way."""

    files: list[Path]
    warnings: list[str]


def source_files(source: Source) -> Walk:
    """The definition files of a source, in sorted order; hidden entries are skipped, symbolic
    links followed once. A directory met twice (a link loop, or a second link to it), one that
    cannot be read, and a source past :data:`~cogtools.limits.MAX_SOURCE_ENTRIES` entries or
    :data:`~cogtools.limits.MAX_SOURCE_DEPTH` levels are reported, not silently skipped."""
    from cogtools.limits import MAX_SOURCE_DEPTH, MAX_SOURCE_ENTRIES

    known = suffixes()
    out: list[Path] = []
    met: dict[str, list[str]] = {}
    seen: set[tuple[int, int]] = set()
    budget = [MAX_SOURCE_ENTRIES]

    def warn(kind: str, message: str) -> None:
        met.setdefault(kind, []).append(message)

    def walk(directory: Path, depth: int) -> bool:
        """False once the source's entry budget is spent."""
        try:
            st = directory.stat()
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
                if not walk(Path(entry.path), depth + 1):
                    return False
            elif os.path.splitext(entry.name)[1].lower() in known:
                out.append(Path(entry.path))
        return True

    if source.directory.is_dir():
        walk(source.directory, 0)
    warnings = []
    for messages in met.values():
        warnings += [f"tool source {source.name}: {message}" for message in messages[:WARNINGS_OF_A_KIND]]
        if len(messages) > WARNINGS_OF_A_KIND:
            warnings.append(f"tool source {source.name}: {len(messages) - WARNINGS_OF_A_KIND} more like the above")
    return Walk(out, warnings)


#: How many warnings of one kind (a directory met twice, one that cannot be read) a walk gives
#: before it only counts them.
WARNINGS_OF_A_KIND = 3


def _display(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def _entry(path: Path, source: Source, project: Project, cache: CatalogCache) -> dict[str, t.Any] | None:
    # One file can be met through two sources (the root's marked files and ``local: .``); what
    # it yields (and whether it is read at all) depends on the source.
    key = f"{source.name}\t{path}"
    display = _display(path, project.root)
    error: CogtoolsError
    try:
        stat = file_stat(path.stat())
    except OSError as e:  # a dangling link, or a file removed while we looked
        error = DefinitionInvalidError(f"cannot read: {e.strerror}", path=display, tool=path.stem)
        return {"error": _error_to_json(error)}
    cached = cache.get(key, stat)
    if cached is not None:
        return None if cached.get("skip") else cached
    entry: dict[str, t.Any]
    try:
        data = read_definition(path, display)
        if source.marked_only and not _MARK_RE.search(data):
            cache.put(key, stat, {"skip": True})
            return None
        result = parse_definition(path, data, display_path=display, source=source.name)
    except CogtoolsError as e:
        entry = {"error": _error_to_json(e)}
    except Exception as e:  # a bug must not take discovery down with it
        error = InternalError(f"loading failed (a bug in cogtools): {type(e).__name__}: {e}", path=display)
        return {"error": _error_to_json(error)}
    else:
        entry = {"tools": [tool.to_dict() for tool in result.tools], "warnings": list(result.warnings)}
    cache.put(key, stat, entry)
    return entry


def read_definition(path: Path, display_path: str) -> bytes:
    """The bytes of a definition file: DEFINITION_INVALID for what is not a regular file or is
    past :data:`~cogtools.limits.MAX_DEFINITION_BYTES`, or cannot be read."""
    from cogtools.limits import MAX_DEFINITION_BYTES, FileRefused, read_file

    try:
        return read_file(path, MAX_DEFINITION_BYTES)
    except FileRefused as e:
        raise DefinitionInvalidError(e.message, path=display_path, tool=path.stem) from e
    except OSError as e:
        raise DefinitionInvalidError(f"cannot read: {e.strerror}", path=display_path, tool=path.stem) from e


def parse_definition(path: Path, data: bytes, *, display_path: str, source: str, fmt: str | None = None) -> LoadResult:
    """The tools defined by ``data``, the content of ``path``, read in ``fmt`` (default: the
    format its suffix names); every failure is a domain error naming the file's tool."""
    from cogtools.formats import FORMATS

    found = FORMATS[fmt] if fmt is not None else format_for(path)
    try:
        if found is None:
            raise DefinitionInvalidError("not a tool file (unknown suffix)", path=display_path)
        return found.loader()(path, data, display_path=display_path, source=source)
    except CogtoolsError as e:
        if e.tool is None:
            e.tool = path.stem
        raise
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
