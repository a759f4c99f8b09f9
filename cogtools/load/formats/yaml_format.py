"""The YAML tool format of seed 004: one tool per file, ``*.yaml`` / ``*.yml``.

The file is composed into nodes once: they carry the marks that lines are found from.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from cogtools.core.yamlio import load_located
from cogtools.load.formats import LoadResult
from cogtools.load.formats.build import build_tool, decode, yaml_error


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
