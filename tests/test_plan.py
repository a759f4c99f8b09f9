"""A template's plan renders what Jinja renders: generated templates of the planned subset, over
generated arguments, both ways."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import typing as t
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cogtools.core import plans as plan_module
from cogtools.core.model import Tool
from cogtools.load.cache import RACY_SECONDS
from cogtools.load.formats.build import build_tool
from cogtools.run import RunContext
from cogtools.run.templates import compile_text, render, variables

from .conftest import examples, write

PARAMETERS = {
    "a": {"type": "string", "optional": True, "description": "A."},
    "b": {"optional": True, "nullable": True, "description": "Anything."},
    "xs": {"type": "array", "items": {}, "optional": True, "nullable": True, "description": "Items."},
    "flag": {"type": "boolean", "optional": True, "description": "A flag."},
}


def tool_of(template: str) -> Tool:
    tool, _ = build_tool(
        {"description": "d", "parameters": PARAMETERS, "implementation": template},
        display_path="t.json",
        fmt="json",
        source="test",
        stem="t",
    )
    return tool


def by_jinja(tool: Tool, arguments: dict[str, t.Any]) -> str:
    context = RunContext()
    template = compile_text(tool, tool.implementation.spec["template"], ("implementation",), None)
    return render(tool, template, variables(tool, arguments, context), context)


TEXT = st.text(alphabet=st.characters(blacklist_characters="{}%#", blacklist_categories=["Cs"]), max_size=8)
NAMES = st.sampled_from(["a", "b", "xs", "flag"])
DASH = st.sampled_from(["", "-"])


def conditions() -> st.SearchStrategy[str]:
    leaf = NAMES
    return st.recursive(
        leaf,
        lambda inner: st.one_of(
            inner.map(lambda e: f"not {e}"),
            st.tuples(inner, st.sampled_from(["and", "or"]), inner).map(lambda p: f"({p[0]} {p[1]} {p[2]})"),
        ),
        max_leaves=4,
    )


def bodies(depth: int = 2) -> st.SearchStrategy[str]:
    piece: st.SearchStrategy[str] = st.one_of(TEXT, NAMES.map(lambda n: f"{{{{ {n} }}}}"))
    if depth > 0:
        inner = bodies(depth - 1)
        conditional = st.tuples(
            DASH,
            conditions(),
            inner,
            st.lists(st.tuples(conditions(), inner), max_size=2),
            st.one_of(st.none(), inner),
            DASH,
        ).map(
            lambda p: (
                f"{{%{p[0]} if {p[1]} %}}{p[2]}"
                + "".join(f"{{% elif {test} %}}{body}" for test, body in p[3])
                + (f"{{% else %}}{p[4]}" if p[4] is not None else "")
                + f"{{% endif {p[5]}%}}"
            )
        )
        loop = st.tuples(st.sampled_from(["xs", "xs or []", "a", "b"]), inner, DASH).map(
            lambda p: f"{{% for item in {p[0]} %}}[{{{{ item }}}}]{p[1]}{{%{p[2]} endfor %}}"
        )
        piece = st.one_of(piece, conditional, loop)
    return st.lists(piece, max_size=4).map("".join)


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=6,
)
ARGUMENTS = st.fixed_dictionaries(
    {},
    optional={"a": st.text(max_size=6), "b": JSON, "xs": st.none() | st.lists(JSON, max_size=4), "flag": st.booleans()},
)


@pytest.mark.slow
@settings(max_examples=examples(400), deadline=None)
@given(bodies(), ARGUMENTS)
def test_the_plan_renders_what_jinja_renders(body: str, arguments: dict[str, t.Any]) -> None:
    tool = tool_of(body)
    assert tool.implementation.plan is not None, body  # the generated subset is planned, all of it
    planned = plan_module.render(tool.implementation.plan, variables(tool, arguments, RunContext()), 1_000_000)
    try:
        expected = by_jinja(tool, arguments)
    except Exception:  # noqa: BLE001 (Jinja refuses it: the plan must leave it to Jinja)
        assert planned is None, (body, arguments)
        return
    if planned is not None:
        assert planned == expected, (body, arguments)


def test_what_the_plan_does_not_know_is_left_to_jinja() -> None:
    for template in (
        "{{ a | upper }}",
        "{{ a ~ b }}",
        "{% set c = a %}{{ c }}",
        "{% for x in xs %}{{ loop.index }}{% endfor %}",
        "{{ a.x }}",
        "{{ 1 }}",
        "{% for x in xs %}{% else %}none{% endfor %}",
    ):
        assert tool_of(template).implementation.plan is None, template
    write_env = {"description": "d", "environment": ["HOME"], "implementation": "{{ env.HOME }}"}
    assert build_tool(write_env, display_path="t.json", fmt="json", source="t", stem="t")[0].implementation.plan is None


def test_limits_are_left_to_jinja() -> None:
    tool = tool_of("{% for x in xs %}{% for y in xs %}{% for z in xs %}{% endfor %}{% endfor %}{% endfor %}")
    assert plan_module.render(tool.implementation.plan, {"xs": list(range(100))}, 1000) is None  # past MAX_STEPS
    tool = tool_of("{% for x in xs %}{{ a }}{% endfor %}")
    assert (
        plan_module.render(tool.implementation.plan, {"xs": list(range(100)), "a": "abc"}, 250) is None
    )  # past the size
    assert (
        plan_module.render(tool.implementation.plan, {"xs": 5, "a": "abc"}, 250) is None
    )  # not iterable: Jinja's error


@pytest.mark.slow
def test_a_warm_template_call_imports_no_jinja(project: Path) -> None:
    write(
        project / "tools" / "greet.json",
        json.dumps(
            {
                "description": "Greet.",
                "parameters": {"who": {"type": "string", "description": "Who."}},
                "implementation": "Hello, {{ who }}!{% if who == 'x' %}{% endif %}",
            }
        ),
    )
    write(
        project / "tools" / "hi.json",
        json.dumps(
            {
                "description": "Hi.",
                "parameters": {"who": {"type": "string", "description": "Who."}},
                "implementation": "Hi, {{ who }}!",
            }
        ),
    )
    time.sleep(RACY_SECONDS + 0.5)  # a file changed just now is read again by every call: let the cache vouch for it
    probe = "import sys; from cogtools.cli.call import main; code = main(sys.argv[1:]); print('jinja2' in sys.modules, file=sys.stderr); sys.exit(code)"
    for name, imported in (("hi", "False"), ("greet", "True")):
        subprocess.run(
            [sys.executable, "-c", probe, name], input=b'{"who": "a"}', cwd=project, capture_output=True
        )  # fills the cache
        done = subprocess.run(
            [sys.executable, "-c", probe, name], input='{"who": "a"}', cwd=project, capture_output=True, text=True
        )
        assert done.returncode == 0 and done.stderr.strip().splitlines()[-1] == imported, done
