"""The default implementation kind (seed 004): a Jinja2 template, rendered in a sandbox.

Every declared parameter is a template variable; an optional one that was not given is its
``default``, or none, so ``{% if remarks %}`` works. The declared environment variables are
``env.NAME``. None renders as an empty string. A name that
is not a declared parameter is an error when rendered, not an empty string, so that typos show.
An attribute or key that a value does not have (an optional property of an object argument) is
empty and false, as in Jinja's default. The sandbox refuses access to Python internals
(``''.__class__`` and the like).
"""

from __future__ import annotations

import functools
import typing as t

from cogtools.errors import DefinitionInvalidError, RenderFailedError

if t.TYPE_CHECKING:
    from jinja2 import Template
    from jinja2.sandbox import SandboxedEnvironment

    from cogtools.model import Tool
    from cogtools.run import RunContext


def _finalize(value: t.Any) -> t.Any:
    return "" if value is None else value


@functools.lru_cache(maxsize=None)
def environment() -> SandboxedEnvironment:
    from jinja2 import Undefined
    from jinja2.sandbox import SandboxedEnvironment
    from jinja2.utils import missing

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

    return SandboxedEnvironment(
        undefined=ParameterUndefined,
        keep_trailing_newline=True,
        autoescape=False,
        finalize=_finalize,
    )


def compile_text(tool: Tool, text: str, key_path: tuple[str | int, ...], line: int | None) -> Template:
    """``text`` compiled as a template of ``tool``; a syntax error is DEFINITION_INVALID at its
    line (``line`` is where ``text`` starts in the file, when known)."""
    from jinja2 import TemplateSyntaxError

    try:
        return environment().from_string(text)
    except TemplateSyntaxError as e:
        raise DefinitionInvalidError(
            f"template syntax error: {e.message} (template line {e.lineno})",
            tool=tool.name,
            path=tool.origin.path,
            line=line + e.lineno - 1 if line is not None and e.lineno else None,
            key_path=key_path,
            details={"template_line": e.lineno},
        ) from e


def variables(tool: Tool, arguments: t.Mapping[str, t.Any], context: RunContext) -> dict[str, t.Any]:
    """What a template of ``tool`` sees: every declared parameter (an absent optional one is its
    default, or none), and ``env`` with the declared environment."""
    names = {p.name: p.schema.get("default") for p in tool.parameters}
    if tool.environment:
        names["env"] = {name: context.environment.get(name) for name in tool.environment}
    names.update(arguments)
    return names


def render(tool: Tool, template: Template, names: t.Mapping[str, t.Any], context: RunContext) -> str:
    """``template`` rendered; every failure is RENDER_FAILED, without environment values."""
    try:
        return _render(tool, template, names)
    except RenderFailedError as e:
        from cogtools.environment import scrub

        e.message = scrub(e.message, context.environment.values())
        raise


def _render(tool: Tool, template: Template, names: t.Mapping[str, t.Any]) -> str:
    from jinja2 import TemplateError, UndefinedError
    from jinja2.exceptions import SecurityError

    try:
        return template.render(names)
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


TypeSpec = t.Union[type, t.Tuple[type, ...]]


def _type_name(kind: TypeSpec) -> str:
    names = {str: "a string", list: "a list", int: "a number", float: "a number", bool: "true or false"}
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return names.get(kinds[0], kinds[0].__name__)


def check_keys(tool: Tool, required: t.Mapping[str, TypeSpec], optional: t.Mapping[str, TypeSpec] = {}) -> None:
    """DEFINITION_INVALID unless the implementation's settings are exactly ``required`` plus some
    of ``optional``, each of its type."""
    impl = tool.implementation
    known = {**required, **optional}
    problems = [f"unknown key {key!r}" for key in sorted(set(impl.spec) - set(known))]
    problems += [f"`{key}` is required" for key in required if key not in impl.spec]
    problems += [
        f"`{key}` must be {_type_name(kind)}"
        for key, kind in known.items()
        if key in impl.spec and not isinstance(impl.spec[key], kind)
    ]
    if problems:
        raise DefinitionInvalidError(
            f"a {impl.kind} implementation has {', '.join(['kind', *map(repr, known)])}: {problems[0]}",
            tool=tool.name,
            path=tool.origin.path,
            key_path=("implementation",),
            line=impl.line,
        )


def check(tool: Tool) -> None:
    check_keys(tool, {"template": str})
    compile_text(tool, tool.implementation.spec["template"], ("implementation",), tool.implementation.line)


def run(tool: Tool, arguments: t.Mapping[str, t.Any], context: RunContext) -> str:
    template = compile_text(tool, tool.implementation.spec["template"], ("implementation",), tool.implementation.line)
    return render(tool, template, variables(tool, arguments, context), context)
