"""Tool definition formats: a registry of loaders keyed by format name.

A loader turns one file into tools (a file may define several) or raises
:class:`~cogtools.core.errors.DefinitionInvalidError`. Loaders share :func:`build_tool`, which
validates a parsed definition against the shipped JSON Schema and builds the model, so every
format gets the same checks and the same error messages.

Loaders are imported only when a file of theirs has to be parsed: a warm catalog never imports
PyYAML or jsonschema.
"""

from __future__ import annotations

import importlib
import typing as t
from pathlib import Path

if t.TYPE_CHECKING:
    from cogtools.core.model import Tool


class LoadResult(t.NamedTuple):
    """What one file yielded: its tools and the warnings met while loading them."""

    tools: tuple[Tool, ...]
    warnings: tuple[str, ...] = ()


class Loader(t.Protocol):
    def __call__(self, path: Path, data: bytes, *, display_path: str, source: str) -> LoadResult: ...


class Format(t.NamedTuple):
    """A definition format: its name, the file suffixes it claims, and where its loader lives."""

    name: str
    suffixes: tuple[str, ...]
    module: str

    def loader(self) -> Loader:
        return t.cast(Loader, importlib.import_module(self.module).load)


#: Format name -> format. A later format registers itself here (and, in time, by entry point).
FORMATS: dict[str, Format] = {
    "yaml": Format("yaml", (".yaml", ".yml"), "cogtools.load.formats.yaml_format"),
    "toml": Format("toml", (".toml",), "cogtools.load.formats.toml_format"),
    "json": Format("json", (".json",), "cogtools.load.formats.json_format"),
    "script": Format(
        "script",
        (".ps1", ".sh", ".bash", ".py", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts"),
        "cogtools.load.formats.script_format",
    ),
}


def format_for(path: Path) -> Format | None:
    """The format that claims ``path`` by its suffix, if any."""
    suffix = path.suffix.lower()
    for fmt in FORMATS.values():
        if suffix in fmt.suffixes:
            return fmt
    return None


def suffixes() -> frozenset[str]:
    return frozenset(s for fmt in FORMATS.values() for s in fmt.suffixes)
