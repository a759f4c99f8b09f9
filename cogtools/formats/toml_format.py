"""TOML tool files, in seed 003's shape (or with any of seed 004's keys); one tool per file, its
name defaulting to the file's stem."""

from __future__ import annotations

import sys
from pathlib import Path

from cogtools.errors import DefinitionInvalidError
from cogtools.formats import LoadResult
from cogtools.formats.build import build_tool
from cogtools.formats.yaml_format import decode

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


def load(path: Path, data: bytes, *, display_path: str, source: str) -> LoadResult:
    text = decode(data, display_path)
    try:
        parsed = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise DefinitionInvalidError(f"invalid TOML: {e}", path=display_path, tool=path.stem) from e
    tool, warnings = build_tool(parsed, display_path=display_path, fmt="toml", source=source, stem=path.stem)
    return LoadResult((tool,), tuple(warnings))
