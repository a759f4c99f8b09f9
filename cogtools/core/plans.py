"""A template's plan, and its rendering without Jinja: a warm call of a template tool need not
import Jinja (:mod:`cogtools.run.plan` builds the plan when the tool loads).

Importing Jinja2 costs a warm ``cogtools-call`` about 30 ms, a third of its time. A plan is
rendered with the rules Jinja's sandbox follows for what it holds: a value is written as
``str(value)``, none as nothing; a test is Python's truth; ``and``, ``or`` and ``not`` are
Python's.

The plan only ever gives the text Jinja would: whatever is unusual (a value that cannot be
iterated, an output past the size limit, more steps than :data:`MAX_STEPS`) makes :func:`render`
answer None, and the call renders with Jinja, whose error and limits then apply as always.
``tests/test_plan.py`` holds the two equal over generated templates and arguments.

A plan is a list of steps: ``["t", TEXT]``, ``["v", NAME]``, ``["if", [[TEST, STEPS], ...],
ELSE_STEPS]``, ``["for", NAME, EXPRESSION, STEPS]``; an expression is ``["n", NAME]``,
``["not", E]``, ``["and", E, E]``, ``["or", E, E]`` or ``["list"]`` (the empty list).

This module imports nothing: a call answered from its record (:mod:`cogtools.cli.warm`) renders
with it.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import typing as t

    Plan = t.List[t.Any]

#: The most steps (pieces written, tests, loop turns) a plan takes before Jinja, with its time
#: limit, takes over.
MAX_STEPS = 200_000


class _Stop(Exception):
    """Jinja must render this one."""


def render(plan: Plan, names: t.Mapping[str, t.Any], limit: int) -> str | None:
    """The text ``plan`` renders with ``names``, or None when Jinja must decide (see the module)."""
    out: list[str] = []
    state = [0, 0]  # characters written, steps taken

    def write(text: str) -> None:
        state[0] += len(text)
        if state[0] > limit:
            raise _Stop
        out.append(text)

    def step() -> None:
        state[1] += 1
        if state[1] > MAX_STEPS:
            raise _Stop

    def value(expression: list[t.Any], scope: t.Mapping[str, t.Any]) -> t.Any:
        kind = expression[0]
        if kind == "n":
            return scope[expression[1]]
        if kind == "not":
            return not value(expression[1], scope)
        if kind == "and":
            return value(expression[1], scope) and value(expression[2], scope)
        if kind == "or":
            return value(expression[1], scope) or value(expression[2], scope)
        return []

    def run(steps: Plan, scope: t.Mapping[str, t.Any]) -> None:
        for item in steps:
            step()
            kind = item[0]
            if kind == "t":
                write(item[1])
            elif kind == "v":
                found = scope[item[1]]
                write("" if found is None else str(found))
            elif kind == "if":
                for test, body in item[1]:
                    if value(test, scope):
                        run(body, scope)
                        break
                else:
                    run(item[2], scope)
            else:
                _, target, iterable, body = item
                inner = dict(scope)
                for element in value(iterable, scope):
                    step()
                    inner[target] = element
                    run(body, inner)

    try:
        run(plan, names)
    except (_Stop, TypeError, KeyError, RecursionError):
        return None
    return "".join(out)
