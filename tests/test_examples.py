"""The shipped examples: every definition loads, every example call passes and renders."""

from __future__ import annotations

import json
import typing as t
from pathlib import Path

import pytest

from cogtools.core.model import Tool
from cogtools.load.catalog import load_catalog
from cogtools.services.invoke import Target, invoke

from .conftest import EXAMPLES, write


def example_tools() -> dict[str, Tool]:
    catalog = load_catalog(EXAMPLES)
    assert catalog.problems == [] and catalog.warnings == []
    return catalog.tools


CASES = [(name, i) for name, tool in example_tools().items() for i in range(len(tool.examples))]


def test_examples_cover_the_schema_features() -> None:
    tools = example_tools()
    assert {"facepalm", "commit_message", "http_status", "unit_convert", "checklist"} <= set(tools)
    schemas = [json.dumps(dict(p.schema)) for tool in tools.values() for p in tool.parameters]
    for feature in (
        '"minimum"',
        '"maximum"',
        '"enum"',
        '"type": "array"',
        '"default"',
        '"nullable"',
        '"type": "object"',
    ):
        assert any(feature in s for s in schemas), feature
    assert any(not p.required for tool in tools.values() for p in tool.parameters)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "index"), CASES, ids=[f"{n}[{i}]" for n, i in CASES])
def test_every_example_call_passes(name: str, index: int) -> None:
    from cogtools.services.testing import run_example

    tool = example_tools()[name]
    outcome = run_example(tool, index, tool.examples[index], load_catalog(EXAMPLES).project)
    assert outcome.passed, outcome


@pytest.mark.parametrize(
    ("name", "arguments", "expected"),
    [
        ("unit_convert", {"value": 10, "from": "km", "to": "mi"}, "10 km = 6.21 mi\n"),
        ("unit_convert", {"value": 98.6, "from": "F", "to": "C", "precision": 1}, "98.6 F = 37.0 C\n"),
        (
            "unit_convert",
            {"value": 1, "from": "kg", "to": "mi"},
            "Cannot convert kg to mi: they measure different things.\n",
        ),
        (
            "http_status",
            {"code": 404},
            "404 Not Found: client error (class 4xx).\nNext: fix the request before sending it again.\n\n",
        ),
        ("commit_message", {"type": "docs", "subject": "explain the cache"}, "docs: explain the cache\n"),
        (
            "checklist",
            {"title": "T", "items": [{"task": "a", "done": True}, {"task": "b"}]},
            "## T\n\n- [x] a\n- [ ] b\n\n1 of 2 done.\n",
        ),
    ],
)
def test_example_outputs(name: str, arguments: dict[str, t.Any], expected: str) -> None:
    assert invoke(Target(example_tools()[name], None), arguments) == expected


def test_missing_attributes_of_values_are_empty_but_unknown_names_fail(project: Path) -> None:
    from cogtools.core.errors import DefinitionInvalidError, RenderFailedError
    from cogtools.core.model import Implementation

    write(
        project / "tools" / "t.yaml",
        "description: d\nparameters:\n  o: {type: object}\nimplementation: '[{{ o.missing }}]'\n",
    )
    tool = load_catalog().get("t")
    assert invoke(Target(tool, None), {"o": {}}) == "[]"
    # an unknown name is refused when the tool is loaded; the render-time check stays as the
    # backstop for a name that only exists at run time (a template built from a value)
    write(project / "tools" / "u.yaml", "description: d\nimplementation: '{{ typo }}'\n")
    with pytest.raises(DefinitionInvalidError, match="'typo', which is not a parameter"):
        load_catalog().get("u")
    tool = load_catalog().get("t")._replace(implementation=Implementation("template", {"template": "{{ typo }}"}))
    with pytest.raises(RenderFailedError, match="'typo' is undefined"):
        invoke(Target(tool, None), {"o": {}})
