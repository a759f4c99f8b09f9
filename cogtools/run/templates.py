"""The templates of every implementation kind: the one limited Jinja2 environment, and how a
template text of a tool is checked when it loads and rendered when it is called.

Every declared parameter is a template variable; an optional one that was not given is its
``default``, or none, so ``{% if remarks %}`` works. The declared environment variables are
``env.NAME``. None renders as an empty string. A name that is not a declared parameter is an
error when rendered, not an empty string, so that typos show. An attribute or key that a value
does not have (an optional property of an object argument) is empty and false, as in Jinja's
default. The sandbox (:mod:`cogtools.run.sandbox`) refuses access to Python internals
(``''.__class__`` and the like) and bounds what a template may make.
"""

from __future__ import annotations

import contextlib
import functools
import typing as t

from cogtools.core.errors import (
    CogtoolsError,
    DefinitionInvalidError,
    RenderFailedError,
    ToolTimeoutError,
    close_names,
    did_you_mean,
)

if t.TYPE_CHECKING:
    from jinja2 import Template, nodes

    from cogtools.core.model import Tool
    from cogtools.run import RunContext
    from cogtools.run.sandbox import LimitedEnvironment


def _finalize(value: t.Any) -> t.Any:
    return "" if value is None else value


@functools.lru_cache(maxsize=None)
def environment() -> LimitedEnvironment:
    """The one template environment: the limited sandbox of :mod:`cogtools.run.sandbox`."""
    from jinja2 import Undefined
    from jinja2.utils import missing

    from cogtools.run.sandbox import LimitedEnvironment

    class ParameterUndefined(Undefined):
        """Strict for a name that is not a parameter and for whatever the sandbox refused;
        lenient, as Jinja's default, for a missing attribute or key of a value."""

        __slots__ = ()

        def _strict(self) -> bool:
            return self._undefined_obj is missing or self._undefined_hint is not None

        def __str__(self) -> str:
            if self._strict():
                self._fail_with_undefined_error()
            return ""

        def __iter__(self) -> t.Iterator[t.Any]:
            if self._strict():
                self._fail_with_undefined_error()
            return iter(())

        def __bool__(self) -> bool:
            if self._strict():
                self._fail_with_undefined_error()
            return False

        def __len__(self) -> int:
            if self._strict():
                self._fail_with_undefined_error()
            return 0

    return LimitedEnvironment(
        undefined=ParameterUndefined,
        keep_trailing_newline=True,
        autoescape=False,
        finalize=_finalize,
    )


def compile_text(tool: Tool, text: str, key_path: tuple[str | int, ...], line: int | None) -> Template:
    """``text`` compiled as a template of ``tool``; a syntax error is DEFINITION_INVALID at its
    line (``line`` is where ``text`` starts in the file, when known)."""
    with syntax_errors(tool, key_path, line):
        return _compiled(text)


@functools.lru_cache(maxsize=512)
def _compiled(text: str) -> Template:
    """``text`` compiled once, for a process that renders it again and again (a server): a
    template is made only of its text, and renders in any thread."""
    return environment().from_string(text)


@contextlib.contextmanager
def syntax_errors(tool: Tool, key_path: tuple[str | int, ...], line: int | None) -> t.Iterator[None]:
    """A template syntax error (an unknown filter or test too) as DEFINITION_INVALID at its line."""
    from jinja2 import TemplateSyntaxError

    try:
        yield
    except RecursionError as e:
        raise DefinitionInvalidError(
            "the template nests too deeply to be compiled",
            tool=tool.name,
            path=tool.origin.path,
            line=line,
            key_path=key_path,
        ) from e
    except TemplateSyntaxError as e:
        raise DefinitionInvalidError(
            f"template syntax error: {e.message} (template line {e.lineno})",
            tool=tool.name,
            path=tool.origin.path,
            line=line + e.lineno - 1 if line is not None and e.lineno else None,
            key_path=key_path,
            details={"template_line": e.lineno},
        ) from e


#: Names every template may use besides the tool's parameters (Jinja's own globals and literals).
TEMPLATE_GLOBALS = frozenset(
    {
        "range",
        "dict",
        "lipsum",
        "cycler",
        "joiner",
        "namespace",
        "loop",
        "caller",
        "varargs",
        "kwargs",
        "true",
        "false",
        "none",
        "True",
        "False",
        "None",
    }
)


def check_text(tool: Tool, text: str, key_path: tuple[str | int, ...], line: int | None) -> t.Any:
    """DEFINITION_INVALID, at the template's own line, for ``text`` that could only fail at every
    call: a syntax error, an unknown filter or test, a name that is not a parameter of ``tool``
    (with the nearest parameter as a suggestion), or ``env.NAME`` that its ``environment`` does
    not list. The template is parsed, not compiled (loading a catalog checks every template, a
    call compiles one): the names and filters are read off the tree. A name counts as declared
    when the template assigns it anywhere, which misses only a loop variable used after its
    loop. Returns the parsed template."""
    from jinja2 import nodes

    with syntax_errors(tool, key_path, line):
        ast = environment().parse(text)
    refuse = _Refusal(tool, key_path, line)
    # One walk of the tree for every kind of node looked at below.
    found = list(ast.find_all((nodes.Name, nodes.Getattr, nodes.Filter, nodes.Test, nodes.Macro)))
    _check_filters_and_tests(found, refuse)
    declared = {parameter.name for parameter in tool.parameters}
    names, unknown, reads = _names(found, declared)
    _check_environment(tool, reads, "env" in unknown, ast, refuse)
    for name in sorted(unknown - {"env"} if tool.environment else unknown):
        _refuse_undeclared(name, next((n for n in names if n.name == name and n.ctx == "load"), ast), declared, refuse)
    return ast


def _names(found: list[nodes.Node], declared: set[str]) -> tuple[list[nodes.Name], set[str], list[nodes.Getattr]]:
    """The names among ``found``; those read that the template neither assigns (a variable, a
    macro) nor declares as parameters nor has as globals; and the reads of ``env.NAME``."""
    from jinja2 import nodes

    names = [n for n in found if isinstance(n, nodes.Name)]
    assigned = {n.name for n in names if n.ctx in ("store", "param")} | {
        m.name for m in found if isinstance(m, nodes.Macro)
    }
    unknown = {n.name for n in names if n.ctx == "load"} - assigned - declared - TEMPLATE_GLOBALS
    reads = [
        n for n in found if isinstance(n, nodes.Getattr) and isinstance(n.node, nodes.Name) and n.node.name == "env"
    ]
    return names, unknown, reads


class _Refusal:
    """DEFINITION_INVALID for a template of ``tool`` at ``key_path``, whose text begins at ``line``
    of the definition's file (when known). (A plain class: templates is imported by every call,
    and a NamedTuple class costs some 60 us to make.)"""

    __slots__ = ("tool", "key_path", "line")

    def __init__(self, tool: Tool, key_path: tuple[str | int, ...], line: int | None) -> None:
        self.tool = tool
        self.key_path = key_path
        self.line = line

    def at(self, message: str, node: nodes.Node, **details: t.Any) -> t.NoReturn:
        """Refuse the template for what ``node`` does, at the node's line."""
        lineno = getattr(node, "lineno", None)
        raise DefinitionInvalidError(
            message,
            tool=self.tool.name,
            path=self.tool.origin.path,
            line=self.line + lineno - 1 if self.line is not None and lineno else None,
            key_path=self.key_path,
            details={**details, **({"template_line": lineno} if lineno else {})},
        )


def _check_filters_and_tests(found: t.Iterable[nodes.Node], refuse: _Refusal) -> None:
    """Refuse a filter or test that the environment does not have. Compiling would refuse one,
    except one inside a condition, which Jinja looks up when it runs: both are refused here."""
    from jinja2 import nodes

    for kind, what, known in (
        (nodes.Filter, "filter", environment().filters),
        (nodes.Test, "test", environment().tests),
    ):
        for used in found:
            if isinstance(used, kind) and used.name not in known:
                near = close_names(used.name, sorted(known))
                refuse.at(
                    f"template syntax error: No {what} named {used.name!r}"
                    + (f" ({did_you_mean(near)})" if near else "")
                    + f" (template line {used.lineno})",
                    used,
                )


def _check_environment(
    tool: Tool, reads: list[nodes.Getattr], env_unknown: bool, ast: nodes.Template, refuse: _Refusal
) -> None:
    """Refuse ``env.NAME`` (each of ``reads``) that the tool's ``environment`` does not list, or,
    when the tool lists none, a template that reads ``env`` (``env_unknown``: not a parameter)."""
    if tool.environment:
        for read in reads:
            if read.attr not in tool.environment:
                refuse.at(
                    f"the template reads env.{read.attr}, which `environment` does not list; add {read.attr} to it",
                    read,
                    reason="undeclared_environment",
                    variable=read.attr,
                )
    elif env_unknown:
        wanted = sorted({read.attr for read in reads}) or ["NAME"]
        refuse.at(
            f"the template reads env.{wanted[0]}, but the tool declares no `environment`; add"
            f" `environment: [{', '.join(wanted)}]` (only the variables listed reach a tool)",
            next(iter(reads), ast),
            reason="undeclared_environment",
            variable=wanted[0],
        )


def _refuse_undeclared(name: str, node: nodes.Node, declared: set[str], refuse: _Refusal) -> t.NoReturn:
    """Refuse ``name``, used at ``node``, which is not a parameter: with the parameter it may
    have meant, or the one whose '-' makes it a subtraction to Jinja (``{{ max-len }}``)."""
    hyphenated = [p for p in sorted(declared) if "-" in p and name in p.split("-")]
    if hyphenated:
        refuse.at(
            f"the parameter {hyphenated[0]!r} cannot be named in a template, where '-' subtracts; rename it"
            f" {hyphenated[0].replace('-', '_')!r}",
            node,
            reason="undeclared",
            name=name,
            parameters=sorted(declared),
        )
    near = close_names(name, sorted(declared), n=2)
    hint = f" ({did_you_mean(near)})" if near else f"; declare {name!r} under parameters"
    refuse.at(
        f"the template uses {name!r}, which is not a parameter{hint}",
        node,
        reason="undeclared",
        name=name,
        parameters=sorted(declared),
        **({"did_you_mean": near} if near else {}),
    )


def variables(tool: Tool, arguments: t.Mapping[str, t.Any], context: RunContext) -> dict[str, t.Any]:
    """What a template of ``tool`` sees: every declared parameter (an absent optional one is its
    default, or none), and ``env`` with the declared environment."""
    names = {p.name: p.schema.get("default") for p in tool.parameters}
    if tool.environment:
        names["env"] = {name: context.environment.get(name) for name in tool.environment}
    names.update(arguments)
    return names


def renderer(tool: Tool, arguments: t.Mapping[str, t.Any], context: RunContext) -> t.Callable[..., str]:
    """``rendered(text, *key)``: ``text``, a template of ``tool``'s implementation at ``key`` (or
    a template already compiled), rendered with the call's arguments. What it renders is a
    program's arguments and input, or a request: input, not output, so any argument a call may
    carry passes through whatever the output limit."""
    from cogtools.core.limits import MAX_INPUT_BYTES

    names = variables(tool, arguments, context)
    size = max(int(context.limits["max_output_bytes"]), MAX_INPUT_BYTES)
    plans = tool.implementation.plan if isinstance(tool.implementation.plan, dict) else {}

    def rendered(text: str | Template, *key: str | int) -> str:
        plan = plans.get(text) if isinstance(text, str) else None
        if plan is not None:  # rendered without importing Jinja, when it can be
            from cogtools.core.plans import render as render_plan

            out = render_plan(plan, names, size)
            if out is not None:
                return out
        template = compile_text(tool, text, ("implementation", *key), None) if isinstance(text, str) else text
        return render(tool, template, names, context, max_size=size)

    return rendered


def render(
    tool: Tool, template: Template, names: t.Mapping[str, t.Any], context: RunContext, *, max_size: int | None = None
) -> str:
    """``template`` rendered under the call's limits: ``timeout`` (else TIMEOUT), and ``max_size``
    (default: ``max_output_bytes``) for its output and every value it makes (else RENDER_FAILED);
    every other failure is RENDER_FAILED too, without environment values."""
    from cogtools.run.deadline import Expired, deadline
    from cogtools.run.sandbox import TooLarge, sized

    seconds = float(context.limits["timeout"])
    try:
        with sized(max_size or int(context.limits["max_output_bytes"])), deadline(seconds):
            return _render(tool, template, names)
    except Expired:
        raise ToolTimeoutError(
            f"the template ran past its time limit of {seconds:g} s and was stopped",
            tool=tool.name,
            details={"timeout_seconds": seconds},
        ) from None
    except TooLarge as e:
        raise RenderFailedError(
            f"the template went past a limit: {e}", tool=tool.name, details={"reason": "limit"}
        ) from e
    except RenderFailedError as e:
        from cogtools.core.environment import scrub

        values = list(context.environment.values())
        raise e.scrubbed(lambda value: scrub(value, values) if isinstance(value, str) else value) from None


def _render(tool: Tool, template: Template, names: t.Mapping[str, t.Any]) -> str:
    from jinja2 import TemplateError, UndefinedError
    from jinja2.exceptions import SecurityError

    from cogtools.run.sandbox import TooLarge

    try:
        return template.render(names)
    except (TooLarge, CogtoolsError):  # a limit; or a kind's own check of a value, which says what is wrong
        raise
    except MemoryError as e:
        raise RenderFailedError("the template ran out of memory", tool=tool.name, details={"reason": "limit"}) from e
    except RecursionError as e:
        raise RenderFailedError("the template recursed too deeply", tool=tool.name, details={"reason": "limit"}) from e
    except SecurityError as e:
        raise RenderFailedError(
            f"the sandbox refused the template: {e}", tool=tool.name, details={"reason": "sandbox"}
        ) from e
    except UndefinedError as e:
        if e.message and e.message.endswith("is undefined"):
            raise RenderFailedError(
                f"the template uses a name that is not a parameter: {e.message}",
                tool=tool.name,
                details={"reason": "undefined"},
            ) from e
        raise RenderFailedError(f"template error: {e.message}", tool=tool.name) from e
    except TemplateError as e:
        raise RenderFailedError(f"template error: {e}", tool=tool.name) from e
    except Exception as e:  # an error raised by a filter or an operation on the arguments
        raise RenderFailedError(f"the template failed: {type(e).__name__}: {e}", tool=tool.name) from e


def may_lead_with_a_value(tool: Tool, body: list[t.Any]) -> bool | None:
    """Whether the text rendered from the template ``body`` may begin with text a call chose
    (which could then begin with ``-``): True; False when it begins with the template's own text
    or one of a fixed set of values (a literal, an enum parameter, a boolean, a number at least
    0, a literal mapping looked up as in ``{{ {'lines': '-l'}[what] }}``, a choice between such
    values); None when it may render nothing, so that what follows decides."""
    from jinja2 import nodes

    for node in body:
        if isinstance(node, nodes.Output):
            for part in node.nodes:
                if isinstance(part, nodes.TemplateData):
                    if part.data:
                        return False
                    continue
                values = fixed_values(tool, part)
                if values is None:
                    return True
                if all(values):
                    return False
            continue
        if isinstance(node, nodes.If):
            branches = [node.body, *(elif_.body for elif_ in node.elif_), node.else_]
            outcomes = {may_lead_with_a_value(tool, branch) for branch in branches}
            if True in outcomes:
                return True
            if None not in outcomes:
                return False
            continue
        return True  # a loop, a macro, a block: too much to follow
    return None


def fixed_values(tool: Tool, node: t.Any) -> set[str] | None:
    """The texts ``node`` may render as, when they are fixed by the definition (a number at least
    0 stands for itself as ``"0"``); None when a call may choose any text."""
    from jinja2 import nodes

    if isinstance(node, nodes.Const):
        return {"" if node.value is None else str(node.value)}
    if isinstance(node, nodes.CondExpr):
        then = fixed_values(tool, node.expr1)
        otherwise = fixed_values(tool, node.expr2) if node.expr2 is not None else {""}
        return None if then is None or otherwise is None else then | otherwise
    if isinstance(node, nodes.Getitem) and isinstance(node.node, nodes.Dict):
        values = {""}  # a key the mapping lacks
        for pair in node.node.items:
            found = fixed_values(tool, pair.value)
            if found is None:
                return None
            values |= found
        return values
    if isinstance(node, nodes.Name) and (parameter := tool.parameter(node.name)) is not None:
        schema = parameter.schema
        if schema.get("enum"):
            return {"" if member is None else str(member) for member in schema["enum"]}
        if schema.get("type") == "boolean":
            return {"True", "False"}
        minimum = schema.get("minimum")
        if schema.get("type") in ("integer", "number") and isinstance(minimum, (int, float)) and minimum >= 0:
            return {"0"}
    return None
