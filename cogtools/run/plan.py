"""Simple templates rendered without Jinja: a warm call of a template tool need not import it.

Importing Jinja2 costs a warm ``cogtools-call`` about 30 ms, a third of its time. Most tool
templates are text, ``{{ parameter }}``, ``{% if parameter %}`` and ``{% for item in parameter
%}``; for those, loading the tool (which parses the template with Jinja anyway) also writes a
*plan*, a small JSON tree kept in the catalog cache, and a call renders the plan with the rules
Jinja's sandbox follows for them: a value is written as ``str(value)``, none as nothing; a test
is Python's truth; ``and``, ``or`` and ``not`` are Python's.

The plan only ever gives the text Jinja would: whatever is unusual (a value that cannot be
iterated, an output past the size limit, more steps than :data:`MAX_STEPS`) makes :func:`render`
answer None, and the call renders with Jinja, whose error and limits then apply as always.
``tests/test_plan.py`` holds the two equal over generated templates and arguments.

A plan is a list of steps: ``["t", TEXT]``, ``["v", NAME]``, ``["if", [[TEST, STEPS], ...],
ELSE_STEPS]``, ``["for", NAME, EXPRESSION, STEPS]``; an expression is ``["n", NAME]``,
``["not", E]``, ``["and", E, E]``, ``["or", E, E]`` or ``["list"]`` (the empty list).
"""

from __future__ import annotations

import typing as t

#: The most steps (pieces written, tests, loop turns) a plan takes before Jinja, with its time
#: limit, takes over.
MAX_STEPS = 200_000

Plan = t.List[t.Any]


class _Unsupported(Exception):
    pass


def build(tree: t.Any, parameters: t.Iterable[str]) -> Plan | None:
    """The plan of a parsed template (a ``jinja2.nodes.Template``), or None when it uses more
    than the plan knows."""
    try:
        return _steps(tree.body, frozenset(parameters))
    except _Unsupported:
        return None


def _steps(body: t.Sequence[t.Any], scope: frozenset[str]) -> Plan:
    from jinja2 import nodes

    out: Plan = []
    for node in body:
        if isinstance(node, nodes.Output):
            for child in node.nodes:
                if isinstance(child, nodes.TemplateData):
                    out.append(["t", child.data])
                elif isinstance(child, nodes.Name) and child.ctx == "load" and child.name in scope:
                    out.append(["v", child.name])
                else:
                    raise _Unsupported
        elif isinstance(node, nodes.If):
            branches = [[_expression(node.test, scope), _steps(node.body, scope)]]
            branches += [[_expression(branch.test, scope), _steps(branch.body, scope)] for branch in node.elif_]
            out.append(["if", branches, _steps(node.else_, scope)])
        elif isinstance(node, nodes.For):
            if node.else_ or node.test is not None or node.recursive or not isinstance(node.target, nodes.Name):
                raise _Unsupported
            out.append(
                ["for", node.target.name, _expression(node.iter, scope), _steps(node.body, scope | {node.target.name})]
            )
        else:
            raise _Unsupported
    return out


def _expression(node: t.Any, scope: frozenset[str]) -> list[t.Any]:
    from jinja2 import nodes

    if isinstance(node, nodes.Name) and node.ctx == "load" and node.name in scope:
        return ["n", node.name]
    if isinstance(node, nodes.Not):
        return ["not", _expression(node.node, scope)]
    if isinstance(node, (nodes.And, nodes.Or)):
        return [
            "and" if isinstance(node, nodes.And) else "or",
            _expression(node.left, scope),
            _expression(node.right, scope),
        ]
    if isinstance(node, nodes.List) and not node.items:
        return ["list"]
    raise _Unsupported


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
