"""The one place YAML is read and written: PyYAML's libyaml loader and dumper when PyYAML was
built with them, its pure-Python ones otherwise."""

from __future__ import annotations

import typing as t

import yaml

from cogtools.jsondata import KeyPath

SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
SafeDumper: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def load(text: str) -> t.Any:
    """Parse ``text`` with the safe loader; raises :class:`yaml.YAMLError`."""
    return yaml.load(text, Loader=SafeLoader)  # noqa: S506 - a safe loader


def compose(text: str) -> yaml.Node | None:
    return yaml.compose(text, Loader=SafeLoader)


def describe_error(e: yaml.YAMLError) -> tuple[str, int | None]:
    """A PyYAML error as one line of text and the line it points at."""
    mark = getattr(e, "problem_mark", None)
    problem = getattr(e, "problem", None) or str(e)
    context = getattr(e, "context", None)
    message = f"invalid YAML: {problem}" + (f" ({context})" if context else "")
    return " ".join(message.split()), (mark.line + 1 if mark is not None else None)


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


def dump_for_people(data: t.Any) -> str:
    """YAML for people: keys in their order, multi-line strings as literal blocks."""

    class Dumper(SafeDumper):  # type: ignore[misc,valid-type]
        pass

    def text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
        style = "|" if "\n" in value else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    Dumper.add_representer(str, text)
    return yaml.dump(data, Dumper=Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False)
