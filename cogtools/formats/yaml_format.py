"""The YAML tool format of seed 004: one tool per file, ``*.yaml`` / ``*.yml``.

The file is composed into nodes once: they carry the marks that lines are found from.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from cogtools.errors import DefinitionInvalidError
from cogtools.formats import LoadResult
from cogtools.formats.build import build_tool
from cogtools.yamlio import describe_error, load_located


def load(path: Path, data: bytes, *, display_path: str, source: str) -> LoadResult:
    text = decode(data, display_path)
    try:
        parsed, locate = load_located(text)
    except yaml.YAMLError as e:
        raise yaml_error(e, display_path, text) from e
    tool, warnings = build_tool(
        parsed,
        display_path=display_path,
        fmt="yaml",
        source=source,
        stem=path.stem,
        locate=locate,
    )
    return LoadResult((tool,), tuple(warnings))


def decode(data: bytes, display_path: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise DefinitionInvalidError(
            f"not UTF-8 (byte {e.start}: {data[e.start : e.start + 1]!r})", path=display_path
        ) from e


def yaml_error(e: yaml.YAMLError, display_path: str, text: str | None = None) -> DefinitionInvalidError:
    message, line = describe_error(e, text)
    return DefinitionInvalidError(message, path=display_path, line=line)
