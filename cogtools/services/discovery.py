"""What an agent is offered, decided here once for every client: ``cogtools-discover`` (Gemini
CLI), ``cogtools mcp``'s ``tools/list``, the table ``cogtools sync`` writes into GEMINI.md and
what doctor checks against it.

The offer is the tools the caller's policy lets it see, and the built-in tools
(:mod:`cogtools.services.builtin`): ``cogtools_problems`` whenever something keeps a tool from
loading, and in discovery mode (seed 003) the meta-tools ``cogtools_search`` and
``cogtools_call``, which reach the tools marked ``discoverable`` that the offer then leaves out.
Out of discovery mode there are no meta-tools to offer, so discoverable tools are offered like
the others. ``cogtools-call`` answers every built-in whether or not it is offered, but one the
caller's policy hides. What the policy hides is not callable either
(:func:`cogtools.services.invoke.resolve`); what discovery mode leaves out is.
"""

from __future__ import annotations

import json
import typing as t
from pathlib import Path

if t.TYPE_CHECKING:
    from cogtools.core.errors import CogtoolsError
    from cogtools.core.model import Tool
    from cogtools.load.catalog import Catalog
    from cogtools.load.loading import Loaded


class Offer(t.NamedTuple):
    #: What an agent is offered: the visible tools sorted by name (the meta-tools among them in
    #: discovery mode), then ``cogtools_problems`` when something is broken.
    tools: list[Tool]
    #: The tools the caller may see that are left out, being discoverable.
    hidden: list[Tool]
    #: Whether discovery mode is on (the meta-tools are among ``tools``).
    discovery_mode: bool
    #: ``cogtools_problems``, when it is offered (it is the last of ``tools``), else None.
    problems: Tool | None = None

    @property
    def lasting(self) -> list[Tool]:
        """The tools offered while nothing is broken: all but ``cogtools_problems`` (what a file
        kept in the project, such as GEMINI.md's table, lists)."""
        return [tool for tool in self.tools if tool is not self.problems]


def offer(loaded: Loaded, discovery_mode: bool | None = None, **filters: t.Any) -> Offer:
    """What an agent is offered by ``loaded``: the tools the caller may see; in discovery mode
    (``discovery_mode``, else the configured one), less those marked discoverable, which the
    meta-tools reach instead (the caller's policy applies to those too); and
    ``cogtools_problems`` when anything is broken (the only tool, when no configuration loads).
    ``filters`` (toolset, role, category, max_risk; None: as configured) narrow what is seen."""
    from cogtools.services.builtin import META_TOOLS, problems_tool
    from cogtools.trust.policy import Policy

    catalog = loaded.catalog
    problems = problems_tool(loaded.findings, loaded.root) if loaded.broken else None
    if catalog is None:
        assert problems is not None
        return Offer([problems], [], False, problems)
    if discovery_mode is None:
        discovery_mode = bool(catalog.project.config.value("discovery_mode"))
    visible = catalog.visible(**filters)
    tools, hidden = visible, []
    if discovery_mode:
        policy = Policy.of(catalog.project, **filters)
        tools = [tool for tool in visible if not tool.metadata.discoverable]
        tools += [tool for tool in META_TOOLS.values() if policy.visible(tool)]
        hidden = [tool for tool in visible if tool.metadata.discoverable]
    tools = sorted(tools, key=lambda tool: tool.name)
    return Offer([*tools, problems] if problems is not None else tools, hidden, discovery_mode, problems)


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
    if _size(text) <= limit:
        return Fitted(text, [])
    kept: list[str] = []
    size = 3  # "[", "]" and the newline
    dropped: list[str] = []
    for declaration in declarations:
        item = json.dumps(declaration, separators=(",", ":"), ensure_ascii=False)
        cost = _size(item) + (1 if kept else 0)  # and the comma before it
        if dropped or size + cost > limit:
            dropped.append(str(declaration.get("name", "?")))
            continue
        kept.append(item)
        size += cost
    return Fitted("[" + ",".join(kept) + "]\n", dropped)


def _size(text: str) -> int:
    """The bytes ``text`` takes as it is written (a lone surrogate as its escape)."""
    return len(text.encode("utf-8", "backslashreplace"))


class Declared(t.NamedTuple):
    #: What to print on stdout: the declarations, as JSON (or YAML, for people).
    text: str
    #: What to say on stderr, a line each: broken definitions, shadowed tools, what a dialect
    #: cannot express, tools left out to stay within Gemini CLI's limit.
    notes: list[str]
    #: With ``strict``: what is broken (then ``text`` is empty; the notes still say what was found).
    error: CogtoolsError | None = None


class Asked(t.NamedTuple):
    """What ``cogtools-discover`` is asked for."""

    #: The dialect (:data:`cogtools.clients.export.EXPORTS`).
    fmt: str = "gemini-cli"
    #: YAML, for people, instead of JSON.
    as_yaml: bool = False
    #: A broken definition or configuration fails the run instead of being reported.
    strict: bool = False
    #: Discovery mode on or off (None: as configured).
    discovery_mode: bool | None = None
    #: toolset, role, category, max_risk (None: as configured).
    filters: t.Mapping[str, t.Any] = {}


def discover(asked: Asked, cwd: Path | None = None, environ: t.Mapping[str, str] | None = None) -> Declared:
    """The declarations of the offer of the project of ``cwd``: kept by the cache while nothing
    they depend on changed (the catalog's files, the configuration, ``asked`` and the
    ``COGTOOLS_*`` variables of ``environ``), so that a warm start of Gemini CLI reads one file.
    With ``asked.strict``, what is broken is the ``error`` (and nothing is kept)."""
    import os

    from cogtools.load.catalog import cached_output
    from cogtools.trust.policy import claims_basis

    environ = os.environ if environ is None else environ
    # What the output depends on besides the catalog's state: what was asked, the variables
    # that choose the configuration and the policy, and for MCP's annotations, whether programs
    # can be confined here (what they claim rests on it).
    basis = claims_basis() if asked.fmt == "mcp" else None
    key = json.dumps([asked, {k: v for k, v in environ.items() if k.startswith("COGTOOLS_")}, basis], sort_keys=True)

    fresh: list[Declared] = []

    def compute() -> tuple[str, Catalog | None]:
        from cogtools.load.loading import load_project

        loaded = load_project(cwd, environ)
        fresh.append(declare(loaded, asked))
        kept = loaded.catalog if fresh[0].error is None else None
        return json.dumps([fresh[0].text, fresh[0].notes]), kept

    output = cached_output(key, compute, cwd, environ)
    return fresh[0] if fresh else Declared(*json.loads(output))


def declare(loaded: Loaded, asked: Asked) -> Declared:
    """The document of the offer of ``loaded`` in the dialect asked for, and the notes for a
    person; with ``asked.strict``, what is broken is its ``error``."""
    from cogtools.clients.export import export
    from cogtools.core.errors import DefinitionInvalidError
    from cogtools.core.model import PROBLEMS_TOOL
    from cogtools.load.loading import catalog_report

    notes: list[str] = []
    catalog = loaded.catalog
    if catalog is None:  # the configuration does not load: no tool but the one that says why
        assert loaded.error is not None
        if asked.strict:
            return Declared("", [], loaded.error)
        notes.append(f"error: {loaded.error.code}: {loaded.error}")
        notes.append(
            f"serving only {PROBLEMS_TOOL}, which tells the model what is broken; `cogtools doctor` shows the fix"
        )
    else:
        from cogtools.load.project import migration_note

        notes += catalog_report(catalog)
        migration = migration_note(catalog.project)
        notes += [f"warning: {migration}"] if migration else []
        if asked.strict and catalog.own_problems:
            count = len(catalog.own_problems)
            error = DefinitionInvalidError(
                f"{count} broken definition{'s' if count > 1 else ''} (--strict)",
                details={"files": sorted({p.path for p in catalog.own_problems if p.path})},
            )
            return Declared("", notes, error)
    offered = offer(loaded, asked.discovery_mode, **asked.filters)
    declarations, exported = export(offered.tools, asked.fmt)
    notes += [f"note: {note}" for note in exported]
    if asked.as_yaml:
        from cogtools.core.yamlio import dump_for_people

        return Declared(dump_for_people(declarations), notes)
    fitted = fit(declarations)
    if fitted.dropped:
        notes.append(
            f"warning: the declarations pass Gemini CLI's limit of {GEMINI_OUTPUT_LIMIT} bytes;"
            f" {len(fitted.dropped)} tools left out (from {fitted.dropped[0]} on): mark tools discoverable and"
            " use discovery mode, or narrow the list (--toolset, --category, --max-risk)"
        )
    return Declared(fitted.text, notes)
