"""The ``builtin`` kind: the tools cogtools itself provides, offered and called like any other.

- ``cogtools_problems`` is offered when something keeps the project's tools from loading: its
  description names the problems, so that they reach the person through the model, and a call
  returns them all with their fixes (it needs no configuration that loads, and only reads);
- ``cogtools_search`` (discovery mode, seed 003) ranks the tools the caller may use for a request
  in words and returns the best, each with its parameter schema;
- ``cogtools_call`` (discovery mode) calls a tool by name through the one call path, so that a
  tool called this way meets the same lookup, pins, policy and checks as a direct call.

The names are reserved: no definition may take them. The catalog's lookup
(:func:`cogtools.services.invoke.resolve`) finds them by name; a call runs here with what the load found
(``context.loaded``) and the call path for a tool by name (``context.call``).
"""

from __future__ import annotations

import json
import typing as t
from pathlib import Path

from cogtools.core.model import (
    BUILT_IN_ORIGIN,
    CALL_TOOL,
    PROBLEMS_TOOL,
    SEARCH_TOOL,
    Implementation,
    Metadata,
    Parameter,
    Tool,
)
from cogtools.run import Outline, no_advice, no_closure, no_exposure

if t.TYPE_CHECKING:
    from cogtools.load.loading import Finding, Loaded
    from cogtools.run import RunContext

#: A string argument may hold NUL: nothing here hands it to a program.
TAKES_NUL = True
#: Whether it runs programs, which the tool's side effects confine (:mod:`cogtools.run.confine`).
RUNS_PROGRAMS = False

#: How many tools ``cogtools_search`` returns unless asked for another number.
DEFAULT_LIMIT = 5
#: At most this many problems are named in ``cogtools_problems``' description; a call returns
#: them all.
DESCRIBED_PROBLEMS = 5

SEARCH = Tool(
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
)

CALL = Tool(
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
)

#: The meta-tools of discovery mode, by name.
META_TOOLS: dict[str, Tool] = {SEARCH_TOOL: SEARCH, CALL_TOOL: CALL}


def problems_tool(findings: t.Sequence[Finding], root: Path | str) -> Tool:
    """``cogtools_problems``: a tool whose description tells the model (and, through it, the
    person) that some tools could not be loaded, and why."""
    from cogtools.core.printable import printable
    from cogtools.load.loading import PROBLEM

    problems = [finding for finding in findings if finding.status == PROBLEM and finding.check != "tools"]
    # Text for a model, which also shows it to the person: no file name can carry a control
    # sequence or a byte that is not UTF-8 into it.
    lines = [f"- {printable(finding.message[:300])}" for finding in problems[:DESCRIBED_PROBLEMS]]
    if len(problems) > DESCRIBED_PROBLEMS:
        lines.append(f"- ... and {len(problems) - DESCRIBED_PROBLEMS} more")
    description = (
        "cogtools could not load every tool of this project, so some tools are missing. Tell the user, who can"
        f" fix it: running `cogtools doctor` in {printable(str(root))} shows each problem with its fix. Call this tool for the"
        f" full report. The problems:\n" + "\n".join(lines)
    )
    return Tool(
        name=PROBLEMS_TOOL,
        title="What keeps cogtools' tools from loading",
        description=description,
        implementation=Implementation("builtin", {}),
        origin=BUILT_IN_ORIGIN,
        parameters=(),
        metadata=Metadata(category="diagnostic", risk_level="low", side_effects=("filesystem_read",)),
    )


def tool(name: str, loaded: Loaded) -> Tool:
    """The built-in tool ``name`` (one of :data:`cogtools.core.model.RESERVED_NAMES`) of ``loaded``."""
    if name == PROBLEMS_TOOL:
        return problems_tool(loaded.findings, loaded.root)
    return META_TOOLS[name]


def problems_report(findings: t.Sequence[Finding]) -> str:
    """What a call of ``cogtools_problems`` returns: every problem and warning with its fix, as
    JSON."""
    from cogtools.load.loading import OK

    listed = [finding.to_json() for finding in findings if finding.status != OK]
    return json.dumps({"problems": listed, "see": "cogtools doctor"}, indent=2, ensure_ascii=False) + "\n"


def search(loaded: Loaded, query: str, limit: int = DEFAULT_LIMIT) -> list[dict[str, t.Any]]:
    """The declarations (Gemini CLI's shape) of the best tools for ``query`` among those the
    caller may use, discoverable or not; an empty list when nothing matches."""
    from cogtools.clients.export import export
    from cogtools.services.search import rank

    if loaded.catalog is None:
        return []
    hits = rank(loaded.catalog.visible(), query)[:limit]
    declarations, _ = export([hit.tool for hit in hits], "gemini-cli")
    return declarations


def templates(spec: t.Mapping[str, t.Any]) -> list[tuple[str, tuple[str | int, ...]]]:
    """None of this kind's settings is a template."""
    return []


def check(tool: Tool) -> None:
    return None


def run(tool: Tool, arguments: t.Mapping[str, t.Any], context: RunContext) -> str:
    loaded = context.loaded
    assert loaded is not None, "a built-in tool runs with what the load found"
    if tool.name == PROBLEMS_TOOL:
        return problems_report(loaded.findings)
    if tool.name == SEARCH_TOOL:
        found = search(loaded, arguments["query"], arguments["limit"])
        return json.dumps({"query": arguments["query"], "tools": found}, indent=2, ensure_ascii=False) + "\n"
    assert context.call is not None, "cogtools_call runs with the call path"
    return context.call(arguments["name"], arguments["arguments"])


def preview(tool: Tool, arguments: t.Mapping[str, t.Any], context: RunContext) -> dict[str, t.Any]:
    """What a built-in would do: the two that only read say what they read; ``cogtools_call``
    describes the dry run of the tool it calls."""
    if tool.name == CALL_TOOL:
        assert context.call is not None, "cogtools_call runs with the call path"
        return {"calls": json.loads(context.call(arguments["name"], arguments["arguments"]))}
    reads = "the findings of the project's load" if tool.name == PROBLEMS_TOOL else "the catalog's tools"
    return {"reads": reads}


def outline(tool: Tool) -> Outline:
    if tool.name == CALL_TOOL:  # (it declares no side effects: what it calls may do anything)
        return Outline("built in: calls the tool it is given, through the one call path")
    return Outline("built in: cogtools' own, reads what the project's load found")


# A built-in tool is cogtools' own: no templates, no lint rule, nothing of the workspace.
exposure, advise, closure = no_exposure, no_advice, no_closure

if t.TYPE_CHECKING:  # mypy holds this kind to the Runner protocol (cogtools.run.runner)
    from cogtools.run import Runner
    from cogtools.services import builtin

    _RUNNER: Runner = builtin
