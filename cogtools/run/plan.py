"""A template's plan, built from its parsed form: simple templates rendered without Jinja, so
that a warm call of a template tool need not import it (:mod:`cogtools.core.plans` says what a
plan is and renders one).

Most tool templates are text, ``{{ parameter }}``, ``{% if parameter %}`` and ``{% for item in
parameter %}``; for those, loading the tool (which parses the template with Jinja anyway) also
writes a *plan*, a small JSON tree kept in the catalog cache. Anything else has no plan, and a
call renders it with Jinja.
"""

from __future__ import annotations

import typing as t

if t.TYPE_CHECKING:
    from cogtools.core.plans import Plan


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
