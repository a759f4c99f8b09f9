"""TOML tool files, in seed 003's shape (or with any of seed 004's keys); one tool per file, its
name defaulting to the file's stem."""

from __future__ import annotations

import typing as t
from pathlib import Path

from cogtools.core.errors import DefinitionInvalidError
from cogtools.core.tomlio import TomlProblem, line_of, loads
from cogtools.load.formats import LoadResult
from cogtools.load.formats.build import build_tool, decode


def load(path: Path, data: bytes, *, display_path: str, source: str) -> LoadResult:
    text = decode(data, display_path)
    try:
        parsed = loads(text)
    except TomlProblem as e:
        raise DefinitionInvalidError(e.message, path=display_path, tool=path.stem) from e

    def locate(key_path: t.Sequence[str | int], value: bool = False) -> int | None:
        return line_of(text, key_path, value)

    _check_misplaced(parsed, display_path, path.stem, locate)
    tool, warnings = build_tool(
        parsed, display_path=display_path, fmt="toml", source=source, stem=path.stem, locate=locate
    )
    return LoadResult((tool,), tuple(warnings))


#: Top-level keys a definition cannot do without, and that no [[table]] entry has of its own
#: (a parameter has a description; an implementation it has not).
REQUIRED = ("implementation",)


def _check_misplaced(
    parsed: dict[str, object], display_path: str, stem: str, locate: t.Callable[..., int | None]
) -> None:
    """TOML's classic trap: a key written after a ``[[table]]`` belongs to that table. Say so
    when a required key is missing at the top level but sits in the last entry of a table array."""
    for key in REQUIRED:
        if key in parsed:
            continue
        for table, value in parsed.items():
            if isinstance(value, list) and value and isinstance(value[-1], dict) and key in value[-1]:
                raise DefinitionInvalidError(
                    f"`{key}` is inside the last [[{table}]] table, not at the top level: in TOML, keys"
                    f" after a [[{table}]] line belong to it; move `{key}` above the first [[...]] line",
                    path=display_path,
                    tool=stem,
                    key_path=(table, len(value) - 1, key),
                    line=locate((table, len(value) - 1, key)),
                )
