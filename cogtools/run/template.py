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


def source(tool: Tool) -> str:
    return t.cast(str, tool.implementation.spec["template"])


def compile_template(tool: Tool) -> Template:
    """The tool's template, compiled; a syntax error is DEFINITION_INVALID at its line."""
    from jinja2 import TemplateSyntaxError

    impl = tool.implementation
    try:
        return environment().from_string(source(tool))
    except TemplateSyntaxError as e:
        line = impl.line + e.lineno - 1 if impl.line is not None and e.lineno else None
        raise DefinitionInvalidError(
            f"template syntax error: {e.message} (template line {e.lineno})",
            tool=tool.name,
            path=tool.origin.path,
            line=line,
            key_path=("implementation",),
            details={"template_line": e.lineno},
        ) from e


def check(tool: Tool) -> None:
    impl = tool.implementation
    extra = sorted(set(impl.spec) - {"template"})
    if not isinstance(impl.spec.get("template"), str) or extra:
        what = f"unknown key {extra[0]!r}" if extra else "`template` (a string) is required"
        raise DefinitionInvalidError(
            f"a template implementation has only `kind` and `template`: {what}",
            tool=tool.name,
            path=tool.origin.path,
            key_path=("implementation",),
            line=impl.line,
        )
    compile_template(tool)


def run(tool: Tool, arguments: t.Mapping[str, t.Any], environment: t.Mapping[str, str | None]) -> str:
    try:
        return _render(tool, arguments, environment)
    except RenderFailedError as e:
        from cogtools.environment import scrub

        e.message = scrub(e.message, environment.values())
        raise


def _render(tool: Tool, arguments: t.Mapping[str, t.Any], environment: t.Mapping[str, str | None]) -> str:
    from jinja2 import TemplateError, UndefinedError
    from jinja2.exceptions import SecurityError

    template = compile_template(tool)
    context = {p.name: p.schema.get("default") for p in tool.parameters}
    if tool.environment:
        context["env"] = {name: environment.get(name) for name in tool.environment}
    context.update(arguments)
    try:
        return template.render(context)
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
        raise RenderFailedError(
            f"the template failed: {type(e).__name__}: {e}", tool=tool.name
        ) from e
