"""Discovery mode (seed 003): tools marked ``discoverable`` stay out of the full list, and two
meta-tools reach them instead. Out of discovery mode there are no meta-tools, so discoverable
tools are listed like the others.

- ``cogtools_search`` ranks the tools the caller may use for a request in words (the same BM25 as
  ``cogtools search``) and returns the best, each with its parameter schema, so that a model can
  call one next;
- ``cogtools_call`` calls a tool by name with its arguments, through exactly what a direct call
  goes through: the name lookup, the policy check, the schema check and the defaults.

The two names are reserved: no definition may take them. ``cogtools-call`` answers them whether
or not discovery mode is on; the mode decides only whether ``cogtools-discover`` offers them.
"""

from __future__ import annotations

import json
import typing as t

from cogtools.model import BUILT_IN_ORIGIN, CALL_TOOL, SEARCH_TOOL, Implementation, Metadata, Parameter, Tool

if t.TYPE_CHECKING:
    from cogtools.catalog import Catalog

#: How many tools ``cogtools_search`` returns unless asked for another number.
DEFAULT_LIMIT = 5

META_TOOLS: dict[str, Tool] = {
    SEARCH_TOOL: Tool(
        name=SEARCH_TOOL,
        title="Search the tools",
        description=(
            "Find tools for a task described in words. Returns the best matching tools, best first, "
            "each with its name, description and parameter schema. Call a tool found this way with "
            f"{CALL_TOOL}."
        ),
        implementation=Implementation("builtin", {}),
        origin=BUILT_IN_ORIGIN,
        parameters=(
            Parameter(
                "query", {"type": "string", "minLength": 1, "description": "What the tool should do, in words."}, True
            ),
            Parameter(
                "limit",
                {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 50,
                    "default": DEFAULT_LIMIT,
                    "description": "The most tools to return.",
                },
                False,
            ),
        ),
        examples=(),
        requests=("find a tool that can do this", "which tool converts units"),
        metadata=Metadata(
            category="discovery",
            risk_level="low",
            side_effects=("filesystem_read",),
            keywords=("search", "find", "tools"),
        ),
    ),
    CALL_TOOL: Tool(
        name=CALL_TOOL,
        title="Call a tool by name",
        description=(
            f"Call a tool found with {SEARCH_TOOL}: give its name and its arguments (an object that "
            "matches the tool's parameter schema). Returns the tool's result."
        ),
        implementation=Implementation("builtin", {}),
        origin=BUILT_IN_ORIGIN,
        parameters=(
            Parameter(
                "name",
                {"type": "string", "minLength": 1, "description": f"The tool's name, as {SEARCH_TOOL} gave it."},
                True,
            ),
            Parameter(
                "arguments",
                {"type": "object", "additionalProperties": True, "default": {}, "description": "The tool's arguments."},
                False,
            ),
        ),
        metadata=Metadata(category="discovery", keywords=("call", "run", "tool")),
    ),
}


class Offer(t.NamedTuple):
    #: What an agent is offered, sorted by name.
    tools: list[Tool]
    #: The tools the caller may see that are left out, being discoverable.
    hidden: list[Tool]
    #: Whether discovery mode is on (the meta-tools are among ``tools``).
    discovery_mode: bool


def offer(catalog: Catalog, discovery_mode: bool | None = None, **filters: t.Any) -> Offer:
    """What an agent is offered: the tools the caller may see; in discovery mode
    (``discovery_mode``, else the configured one), less those marked discoverable, which the
    meta-tools reach instead (the caller's policy applies to those too). Out of discovery mode
    a discoverable tool is offered like any other: no tool is left unreachable."""
    from cogtools.policy import Policy

    if discovery_mode is None:
        discovery_mode = bool(catalog.project.config.value("discovery_mode"))
    visible = catalog.visible(**filters)
    if not discovery_mode:  # no meta-tool would reach a hidden tool: hide none
        return Offer(visible, [], False)
    policy = Policy.of(catalog.project, **filters)
    tools = [tool for tool in visible if not tool.metadata.discoverable]
    tools += [tool for tool in META_TOOLS.values() if policy.visible(tool)]
    hidden = [tool for tool in visible if tool.metadata.discoverable]
    return Offer(sorted(tools, key=lambda tool: tool.name), hidden, discovery_mode)


def search(catalog: Catalog, query: str, limit: int = DEFAULT_LIMIT) -> list[dict[str, t.Any]]:
    """The declarations (Gemini CLI's shape) of the best tools for ``query`` among those the
    caller may use, hidden or not; an empty list when nothing matches."""
    from cogtools.export import export
    from cogtools.search import rank

    hits = rank(catalog.visible(), query)[:limit]
    declarations, _ = export([hit.tool for hit in hits], "gemini-cli")
    return declarations


Caller = t.Callable[[str, t.Mapping[str, t.Any]], str]


def run(catalog: Catalog, name: str, arguments: t.Mapping[str, t.Any], call_by_name: Caller) -> str:
    """The result of the meta-tool ``name``. Its own arguments are checked like any tool's;
    ``call_by_name(name, arguments)`` is the direct call's own path, so a tool called through
    ``cogtools_call`` meets the same lookup, policy and checks as when called directly."""
    from cogtools.invoke import prepare
    from cogtools.policy import enforce

    tool = META_TOOLS[name]
    enforce(tool, catalog.project)
    prepared = prepare(tool, arguments)
    if name == SEARCH_TOOL:
        found = search(catalog, prepared["query"], prepared["limit"])
        return json.dumps({"query": prepared["query"], "tools": found}, indent=2, ensure_ascii=False) + "\n"
    return call_by_name(prepared["name"], prepared["arguments"])


#: The most a discovery command may print to Gemini CLI, on stdout and on stderr each: past it the
#: CLI kills the command and does not start (``MAX_STDOUT_SIZE`` in @google/gemini-cli-core 0.61.0).
GEMINI_OUTPUT_LIMIT = 10 * 1024 * 1024


class Fitted(t.NamedTuple):
    #: The JSON document to print.
    text: str
    #: The names of the declarations left out to stay within the limit, in order.
    dropped: list[str]


def fit(declarations: list[dict[str, t.Any]], limit: int = GEMINI_OUTPUT_LIMIT) -> Fitted:
    """``declarations`` as a JSON array of at most ``limit`` bytes: indented when that fits,
    compact when only that fits, and otherwise compact with as many declarations, in order, as
    fit (a start-up with some tools beats no start-up at all)."""
    text = json.dumps(declarations, indent=2, ensure_ascii=False) + "\n"
    if len(text.encode("utf-8")) <= limit:
        return Fitted(text, [])
    kept: list[str] = []
    size = 3  # "[", "]" and the newline
    dropped: list[str] = []
    for declaration in declarations:
        item = json.dumps(declaration, separators=(",", ":"), ensure_ascii=False)
        cost = len(item.encode("utf-8")) + (1 if kept else 0)  # and the comma before it
        if dropped or size + cost > limit:
            dropped.append(str(declaration.get("name", "?")))
            continue
        kept.append(item)
        size += cost
    return Fitted("[" + ",".join(kept) + "]\n", dropped)
