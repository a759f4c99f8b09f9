"""The default implementation kind (seed 004): a Jinja2 template, rendered in a sandbox.

Every declared parameter is a template variable; an optional one that was not given is its
``default``, or none, so ``{% if remarks %}`` works. None renders as an empty string. A name that
is not a declared parameter is an error when rendered, not an empty string, so that typos show.
The sandbox refuses access to Python internals (``''.__class__`` and the like).
"""

from __future__ import annotations

import functools
import typing as t

from cogtools.errors import DefinitionInvalidError, RenderFailedError

if t.TYPE_CHECKING:
    from jinja2.sandbox import SandboxedEnvironment

    from cogtools.model import Tool


def _finalize(value: t.Any) -> t.Any:
    return "" if value is None else value


@functools.lru_cache(maxsize=None)
def environment() -> SandboxedEnvironment:
    from jinja2 import StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    return SandboxedEnvironment(
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
        finalize=_finalize,
    )


def source(tool: Tool) -> str:
    return t.cast(str, tool.implementation.spec["template"])


def check(tool: Tool) -> None:
    from jinja2 import TemplateSyntaxError

    impl = tool.implementation
    extra = sorted(set(impl.spec) - {"template"})
    if not isinstance(impl.spec.get("template"), str) or extra:
        what = f"unknown key {extra[0]!r}" if extra else "`template` (a string) is required"
        raise DefinitionInvalidError(
            f"a template implementation has only `kind` and `template`: {what}",
            path=tool.origin.path,
            key_path=("implementation",),
            line=impl.line,
        )
    try:
        environment().parse(source(tool))
    except TemplateSyntaxError as e:
        line = impl.line + e.lineno - 1 if impl.line is not None and e.lineno else None
        raise DefinitionInvalidError(
            f"template syntax error: {e.message} (template line {e.lineno})",
            path=tool.origin.path,
            line=line,
            key_path=("implementation",),
            details={"template_line": e.lineno},
        ) from e


def run(tool: Tool, arguments: t.Mapping[str, t.Any]) -> str:
    from jinja2 import TemplateError, TemplateSyntaxError, UndefinedError
    from jinja2.exceptions import SecurityError

    env = environment()
    try:
        template = env.from_string(source(tool))
    except TemplateSyntaxError as e:
        raise DefinitionInvalidError(
            f"template syntax error: {e.message} (template line {e.lineno})",
            tool=tool.name,
            path=tool.origin.path,
        ) from e
    context = {p.name: p.schema.get("default") for p in tool.parameters}
    context.update(arguments)
    try:
        return template.render(context)
    except SecurityError as e:
        raise RenderFailedError(
            f"the sandbox refused the template: {e}", tool=tool.name, details={"reason": "sandbox"}
        ) from e
    except UndefinedError as e:
        raise RenderFailedError(
            f"the template uses a name that is not a parameter: {e.message}",
            tool=tool.name,
            details={"reason": "undefined"},
        ) from e
    except TemplateError as e:
        raise RenderFailedError(f"template error: {e}", tool=tool.name) from e
    except Exception as e:  # an error raised by a filter or an operation on the arguments
        raise RenderFailedError(
            f"the template failed: {type(e).__name__}: {e}", tool=tool.name
        ) from e
