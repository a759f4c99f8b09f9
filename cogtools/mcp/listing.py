"""What ``tools/list`` answers for one state of the catalog (:class:`Listing`), and which of its
tools' calls are tried on the server's event loop first (:func:`inline_safe`, :data:`INLINE_SECONDS`),
where a template's call costs less than the hop to a worker thread."""

from __future__ import annotations

import typing as t

import mcp_types as types

from cogtools.load.loading import Loaded
from cogtools.mcp.calls import Outcome, run_call
from cogtools.mcp.first import declarations
from cogtools.schema import patterns
from cogtools.schema.string_formats import SUPERLINEAR

#: How long a template call may take on the event loop before it is stopped and run again in a
#: worker thread, with its whole time limit (and from then on only there).
INLINE_SECONDS = 0.02
#: How much a call's arguments may weigh (:func:`weight`) to be tried on the event loop.
INLINE_WEIGHT = 16 * 1024
#: The most RE2's searches may cost the arguments of a call tried on the event loop (the
#: characters searched times the size of the pattern's program: some 5 ms here).
INLINE_PATTERN_WORK = 1_000_000


def _linear(schemas: list[t.Any], pattern_allowed: t.Callable[[str], bool]) -> bool:
    """Whether checking against ``schemas`` takes time linear in the value: no ``uniqueItems``,
    no format of :data:`SUPERLINEAR`, and only patterns that ``pattern_allowed``."""
    while schemas:
        node = schemas.pop()
        if isinstance(node, list):
            schemas.extend(node)
        elif isinstance(node, t.Mapping):
            pattern, fmt = node.get("pattern"), node.get("format")
            if isinstance(pattern, str) and not pattern_allowed(pattern):
                return False
            if node.get("uniqueItems") is True or (isinstance(fmt, str) and fmt in SUPERLINEAR):
                return False
            schemas.extend(node.values())
    return True


def _cheap(pattern: str) -> bool:
    """Whether RE2 searches arguments of :data:`INLINE_WEIGHT` for ``pattern`` within
    :data:`INLINE_PATTERN_WORK`."""
    work = patterns.linear_work(pattern)
    return work is not None and work * INLINE_WEIGHT <= INLINE_PATTERN_WORK


def inline_safe(tool: t.Any) -> bool:
    """Whether a call of ``tool`` may be tried on the server's event loop, where it costs less
    than the hop to a worker thread: a template (it runs no program and changes nothing, so a
    call stopped at :data:`INLINE_SECONDS` may be run again) whose checks take a time that
    arguments of :data:`INLINE_WEIGHT` bound well below that: no ``uniqueItems`` (each item
    compared with every other), no format whose check backtracks
    (:data:`cogtools.schema.string_formats.SUPERLINEAR`), no pattern that RE2 cannot search for or whose
    program is large (RE2's time grows with the text times its program:
    :data:`INLINE_PATTERN_WORK`), and no pattern at all where its result is checked (a result
    may be as large as the tool's output limit). The time limit stops a template's rendering,
    not a check: the checks are what this bounds."""
    if tool.implementation.kind != "template":
        return False
    definitions = dict(tool.definitions)
    arguments = [tool.input_schema(), definitions, tool.additional_parameters]
    return _linear(arguments, _cheap) and (
        tool.output_schema is None or _linear([tool.output_schema, definitions], lambda pattern: False)
    )


def weight(value: t.Any, limit: int = INLINE_WEIGHT) -> int:
    """How much ``value`` weighs (the characters of its strings and names, one for any other
    value), counted only until it passes ``limit``: its cost is at most what it is allowed."""
    total, left = 0, [value]
    while left and total <= limit:
        item = left.pop()
        if isinstance(item, str):
            total += len(item)
        elif isinstance(item, t.Mapping):
            total += 1 + sum(len(key) for key in item if isinstance(key, str))
            left.extend(item.values())
        elif isinstance(item, (list, tuple)):
            total += 1
            left.extend(item)
        else:
            total += 1
    return total


class Listing:
    """What ``tools/list`` answers for one state of the catalog (:func:`declarations`, made once
    per state, not per request), each tool's input schema, for the SDK's check of
    ``Mcp-Param-*`` headers (which would otherwise list the tools for every call), and the tools
    whose calls are tried on the event loop first (:func:`inline_safe`)."""

    def __init__(self, loaded: Loaded) -> None:
        self.loaded = loaded
        found = declarations(loaded)
        self.tools = [types.Tool.model_validate(d) for d in found]
        self.schemas: dict[str, t.Mapping[str, t.Any]] = {d["name"]: d["inputSchema"] for d in found}
        catalog = loaded.catalog
        tools = catalog.tools if catalog is not None else {}
        #: Taken off when a call takes longer than INLINE_SECONDS there.
        self.inline = {name for name in self.schemas if name in tools and inline_safe(tools[name])}

    def try_inline(self, name: str, arguments: t.Mapping[str, t.Any] | None) -> Outcome | None:
        """The call's outcome, when it may be tried on the event loop and ends in time there;
        else None (and a tool that took too long is not tried there again)."""
        if name not in self.inline or weight(arguments) > INLINE_WEIGHT:
            return None
        outcome = run_call(self.loaded, name, arguments, time_limit=INLINE_SECONDS)
        failed = outcome.error
        if failed is not None and (failed["error"].get("details") or {}).get("timeout_seconds") == INLINE_SECONDS:
            self.inline.discard(name)  # (its own limit is longer: a worker gives it that)
            return None
        return outcome
