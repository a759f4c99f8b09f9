"""Implementation kinds: how a tool runs once its arguments are valid.

Each kind is a module with two functions, imported only when a tool of that kind is loaded or run:

- ``check(tool)``: at load time, raise :class:`~cogtools.errors.DefinitionInvalidError` for an
  implementation that can never run (a template syntax error, a missing key);
- ``run(tool, arguments, environment)``: produce the result text, or raise a domain error
  (``RENDER_FAILED``, ``EXECUTION_FAILED``, ``TIMEOUT``). ``environment`` holds the variables the
  tool declares, and nothing else; its values must not appear in an error message.
"""

from __future__ import annotations

import importlib
import typing as t

if t.TYPE_CHECKING:
    from cogtools.model import Tool


class Runner(t.Protocol):
    def check(self, tool: Tool) -> None: ...

    def run(self, tool: Tool, arguments: t.Mapping[str, t.Any], environment: t.Mapping[str, str | None]) -> str: ...


#: kind name -> module implementing :class:`Runner`.
KINDS: dict[str, str] = {
    "template": "cogtools.run.template",
}


def kind(name: str) -> Runner:
    """The runner of implementation kind ``name``; LookupError names the kinds there are."""
    module = KINDS.get(name)
    if module is None:
        known = ", ".join(sorted(KINDS))
        raise LookupError(f"unknown implementation kind {name!r} (known: {known})")
    return t.cast(Runner, importlib.import_module(module))
