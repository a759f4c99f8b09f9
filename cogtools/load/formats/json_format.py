"""JSON tool files: one tool (seed 003's or seed 004's keys, or seed 002's ``inputSchema``), or
an array of tools (seed 002's list, seed 000's ``tools.json`` read back in). The name of a lone
tool defaults to the file's stem; every tool of an array names itself."""

from __future__ import annotations

import re
import typing as t
from pathlib import Path

from cogtools.core import jsonc
from cogtools.core.errors import DefinitionInvalidError
from cogtools.core.jsondata import JsonProblem, parse_json
from cogtools.load.formats import LoadResult
from cogtools.load.formats.build import build_tool, collected, decode


def load(path: Path, data: bytes, *, display_path: str, source: str) -> LoadResult:
    text = decode(data, display_path)
    try:
        parsed = parse_json(text)
    except JsonProblem as e:
        column = f" (column {e.column})" if e.column is not None else ""
        raise DefinitionInvalidError(
            f"invalid JSON: {e.message}{column}",
            path=display_path,
            line=e.line,
            key_path=e.key_path or None,
            tool=path.stem,
        ) from e

    def locate(key_path: t.Sequence[str | int], value: bool = False) -> int | None:
        if tuple(key_path) == ("implementation",):  # asked of every tool: the quick way first
            line = _implementation_line(text, value)
            if line is not None:
                return line
        return jsonc.line_of(text, key_path, value)

    return build_all(parsed, path, display_path=display_path, source=source, fmt="json", locate=locate)


#: An ``implementation`` key: in JSON text (no comments), the quoted word followed by a colon is
#: a key and nothing else (a string holding it has its quotes escaped).
_IMPLEMENTATION_KEY = re.compile(r'"implementation"\s*:\s*')


def _implementation_line(text: str, value: bool) -> int | None:
    """The line of the ``implementation`` key (or of its value), when the text has exactly one
    such key; else None (then the document is parsed for it)."""
    found = _IMPLEMENTATION_KEY.finditer(text)
    match, second = next(found, None), next(found, None)
    if match is None or second is not None:
        return None
    return text.count("\n", 0, match.end() if value else match.start()) + 1


def build_all(
    parsed: t.Any,
    path: Path,
    *,
    display_path: str,
    source: str,
    fmt: str,
    locate: t.Callable[..., int | None] | None = None,
) -> LoadResult:
    """One tool from a mapping, or every tool of a list (each must say its name); ``locate`` finds
    the line of a key path."""
    if locate is None:
        locate = _nowhere
    if not isinstance(parsed, list):
        tool, warnings = build_tool(
            parsed, display_path=display_path, fmt=fmt, source=source, stem=path.stem, locate=locate
        )
        return LoadResult((tool,), tuple(warnings))
    tools, warnings = [], []
    errors: list[DefinitionInvalidError] = []  # every tool's, so that lint shows them all at once
    for index, item in enumerate(parsed):
        if not isinstance(item, dict) or not isinstance(item.get("name", item.get("id")), str):
            errors.append(
                DefinitionInvalidError(
                    "every tool of a list names itself (`name`)",
                    path=display_path,
                    key_path=(index,),
                    tool=path.stem,
                    line=locate((index,)),
                )
            )
            continue
        try:
            tool, found = build_tool(
                item,
                display_path=display_path,
                fmt=fmt,
                source=source,
                stem=path.stem,
                key_prefix=(index,),
                locate=locate,
            )
        except DefinitionInvalidError as e:
            errors.append(e)
            continue
        tools.append(tool)
        warnings.extend(found)
    if errors:
        raise collected(errors)
    return LoadResult(tuple(tools), tuple(warnings))


def _nowhere(key_path: t.Sequence[str | int], value: bool = False) -> int | None:
    return None
