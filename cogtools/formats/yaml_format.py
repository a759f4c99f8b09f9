"""The YAML tool format of seed 004: one tool per file, ``*.yaml`` / ``*.yml``.

Lines are only worked out when an error needs one: the file is composed again into nodes, which
carry their marks.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from cogtools.errors import DefinitionInvalidError
from cogtools.formats import LoadResult
from cogtools.formats.build import build_tool
from cogtools.jsondata import KeyPath
from cogtools.yamlio import compose
from cogtools.yamlio import load as load_yaml


def load(path: Path, data: bytes, *, display_path: str, source: str) -> LoadResult:
    text = decode(data, display_path)
    try:
        parsed = load_yaml(text)
    except yaml.YAMLError as e:
        raise yaml_error(e, display_path) from e
    tool, warnings = build_tool(
        parsed,
        display_path=display_path,
        fmt="yaml",
        source=source,
        stem=path.stem,
        locate=Locator(text),
    )
    return LoadResult((tool,), tuple(warnings))


def decode(data: bytes, display_path: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise DefinitionInvalidError(
            f"not UTF-8 (byte {e.start}: {data[e.start:e.start + 1]!r})", path=display_path
        ) from e


def yaml_error(e: yaml.YAMLError, display_path: str) -> DefinitionInvalidError:
    """A PyYAML error as a one-line domain error with the line it points at."""
    mark = getattr(e, "problem_mark", None)
    problem = getattr(e, "problem", None) or str(e)
    context = getattr(e, "context", None)
    message = f"invalid YAML: {problem}" + (f" ({context})" if context else "")
    return DefinitionInvalidError(
        " ".join(message.split()),
        path=display_path,
        line=mark.line + 1 if mark is not None else None,
    )


class Locator:
    """Finds the line of a key path in a YAML text; composes the text on first use."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._root: yaml.Node | None = None

    def __call__(self, key_path: KeyPath, value: bool = False) -> int | None:
        if self._root is None:
            try:
                self._root = compose(self._text)
            except yaml.YAMLError:
                return None
        node: yaml.Node | None = self._root
        key_node: yaml.Node | None = None
        for key in key_path:
            key_node = None
            if isinstance(node, yaml.MappingNode):
                for k, v in node.value:
                    if isinstance(k, yaml.ScalarNode) and k.value == str(key):
                        key_node, node = k, v
                        break
                else:
                    return None
            elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
                node = node.value[key]
            else:
                return None
        if node is None:
            return None
        if value:
            line = node.start_mark.line
            if isinstance(node, yaml.ScalarNode) and node.style in ("|", ">"):
                line += 1
            return line + 1
        target = key_node if key_node is not None else node
        return target.start_mark.line + 1
