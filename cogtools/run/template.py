"""The default implementation kind (seed 004): a Jinja2 template, rendered in a sandbox; its
result is the text it renders (:mod:`cogtools.run.templates` says what a template may use).
"""

from __future__ import annotations

import typing as t

from cogtools.run import Outline, no_advice, no_closure, no_exposure
from cogtools.run.templates import check_text, compile_text, render, variables

if t.TYPE_CHECKING:
    from cogtools.core.model import Tool
    from cogtools.run import RunContext


#: Whether a string argument may hold NUL: yes, a template takes any text.
TAKES_NUL = True
#: Whether it runs programs, which the tool's side effects confine (:mod:`cogtools.run.confine`).
RUNS_PROGRAMS = False


def check(tool: Tool) -> t.Any:
    """The template's errors; and its plan, when it has one (:mod:`cogtools.run.plan`)."""
    from cogtools.run.keys import check_keys
    from cogtools.run.plan import build

    check_keys(tool, {"template": str})
    tree = check_text(tool, tool.implementation.spec["template"], ("implementation",), tool.implementation.line)
    return build(tree, [p.name for p in tool.parameters]) if not tool.environment else None


def run(tool: Tool, arguments: t.Mapping[str, t.Any], context: RunContext) -> str:
    names = variables(tool, arguments, context)
    if tool.implementation.plan is not None:  # rendered without importing Jinja, when it can be
        from cogtools.core.plans import render as render_plan

        text = render_plan(tool.implementation.plan, names, int(context.limits["max_output_bytes"]))
        if text is not None:
            return text
    template = compile_text(tool, tool.implementation.spec["template"], ("implementation",), tool.implementation.line)
    return render(tool, template, names, context)


def templates(spec: t.Mapping[str, t.Any]) -> list[tuple[str, tuple[str | int, ...]]]:
    """The template texts of the implementation, each with its key under ``implementation``."""
    return [(spec["template"], ())]


def preview(tool: Tool, arguments: t.Mapping[str, t.Any], context: RunContext) -> dict[str, t.Any]:
    """A template has no effect but its text: a dry run shows the text it renders."""
    return {"text": run(tool, arguments, context)}


def outline(tool: Tool) -> Outline:
    return Outline("template: renders text, runs no program")


# A template has no lint rule of its own, shows no secret to others (a result is masked) and
# runs nothing of the workspace but its definition.
exposure, advise, closure = no_exposure, no_advice, no_closure

if t.TYPE_CHECKING:  # mypy holds this kind to the Runner protocol (cogtools.run.runner)
    from cogtools.run import Runner, template

    _RUNNER: Runner = template
