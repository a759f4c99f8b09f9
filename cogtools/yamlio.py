"""The one place YAML is read and written: PyYAML's libyaml loader and dumper when PyYAML was
built with them, its pure-Python ones otherwise."""

from __future__ import annotations

import typing as t

import yaml

SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
SafeDumper: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def load(text: str) -> t.Any:
    """Parse ``text`` with the safe loader; raises :class:`yaml.YAMLError`."""
    return yaml.load(text, Loader=SafeLoader)  # noqa: S506 - a safe loader


def compose(text: str) -> yaml.Node | None:
    return yaml.compose(text, Loader=SafeLoader)


def dump_for_people(data: t.Any) -> str:
    """YAML for people: keys in their order, multi-line strings as literal blocks."""

    class Dumper(SafeDumper):  # type: ignore[misc,valid-type]
        pass

    def text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
        style = "|" if "\n" in value else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    Dumper.add_representer(str, text)
    return yaml.dump(data, Dumper=Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False)
