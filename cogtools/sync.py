"""Keeping Gemini CLI's view of a project in step with its tools: the table in ``GEMINI.md``,
``tools.allowed`` in ``.gemini/settings.json`` (the tools that run without a confirmation), and
the pins of those tools (:mod:`cogtools.pins`). ``cogtools sync`` and ``cogtools init`` are these
functions and a report."""

from __future__ import annotations

import typing as t
from pathlib import Path

if t.TYPE_CHECKING:
    from cogtools.catalog import Catalog
    from cogtools.model import Tool


#: What cogtools last wrote into tools.allowed, so that it can tell its entries from a person's.
MANAGED = Path(".gemini") / "cogtools-allowed.json"


def allowed_names(catalog: Catalog) -> list[str]:
    """``discovered_tool_NAME`` of every tool that may run without a confirmation: the
    diagnostic toolset, visible to the caller's role, of at most the policy's
    ``max_risk_without_confirmation``; and ``cogtools_problems``, built in, which only reads and
    is offered only when something is broken (a headless session then still hears of it)."""
    from cogtools.discovery import offer
    from cogtools.gemini import PREFIX
    from cogtools.loading import Loaded
    from cogtools.model import PROBLEMS_TOOL
    from cogtools.policy import RISKS, Policy, risk

    limit = Policy.of(catalog.project).max_risk_without_confirmation
    names = [
        PREFIX + tool.name
        for tool in offer(Loaded(catalog), toolset="diagnostic").lasting
        if RISKS.index(risk(tool)) <= RISKS.index(limit)
    ]
    return [*names, PREFIX + PROBLEMS_TOOL]


class AllowedPlan(t.NamedTuple):
    #: settings.json with tools.allowed brought up to date
    text: str
    #: what .gemini/cogtools-allowed.json must hold afterwards
    record: str
    #: for the report: "tools.allowed: N diagnostic tools"
    summary: str


def plan_allowed(catalog: Catalog, settings: str | None, path: str, leave_out: t.Collection[str] = ()) -> AllowedPlan:
    """``settings`` (the text of settings.json) with ``tools.allowed`` holding the tools that may
    run without a confirmation, but those of ``leave_out`` (names), and every entry a person
    wrote; nothing is written."""
    import json

    from cogtools.errors import ConfigInvalidError
    from cogtools.fsutil import read_config
    from cogtools.gemini import PREFIX, merge_allowed

    try:
        before = json.loads(read_config(catalog.project.root / MANAGED) or "{}").get("allowed", [])
    except (ConfigInvalidError, ValueError, AttributeError):
        before = []
    if not isinstance(before, list):  # the workspace's to write: a string would match by substring
        before = []
    before = [entry for entry in before if isinstance(entry, str)]
    ours = [name for name in allowed_names(catalog) if name[len(PREFIX) :] not in leave_out]
    record = (
        json.dumps({"_": "written by cogtools sync: the tools.allowed entries it manages", "allowed": ours}, indent=2)
        + "\n"
    )
    count = len(ours) - 1  # cogtools_problems is not one of the project's
    summary = f"tools.allowed: {count} diagnostic tool{'s' * (count != 1)} and cogtools_problems"
    if leave_out:
        summary += f"; {len(leave_out)} left out, not reviewed"
    return AllowedPlan(merge_allowed(settings, path, ours, before), record, summary)


def store_record(catalog: Catalog, record: str) -> None:
    """Remember which tools.allowed entries cogtools manages."""
    from cogtools.fsutil import read_config, write_config

    managed = catalog.project.root / MANAGED
    if read_config(managed) != record:
        write_config(managed, record, within=catalog.project.root)


class Review(t.NamedTuple):
    """A tool that is to run without confirmation and that a person has not allowed as it is:
    what they are shown before they decide."""

    name: str
    #: the file that defines it, as the catalog shows it
    file: str
    #: the SHA-256 of that definition, as it will be pinned
    sha256: str
    #: "new" (never allowed by this user), or what changed since it was
    change: str
    #: what it runs, in a line (:class:`~cogtools.run.Outline`)
    runs: str
    #: its declared risk level and side effects, in words
    declares: str
    #: the side effects it plainly has but does not declare (effect -> why)
    undeclared: t.Mapping[str, str]
    #: the environment variables it declares, whose values the project's .env may set
    environment: tuple[str, ...] = ()
    #: those of them whose value chooses the code that runs (PATH, LD_PRELOAD...)
    choosing: tuple[str, ...] = ()


#: What decides which of the tools under review a person allows: the CLI asks, or allows all
#: (``--yes``), or none.
Decide = t.Callable[[t.Sequence[Review]], t.Collection[str]]


def allow_none(reviews: t.Sequence[Review]) -> set[str]:
    """:data:`Decide` when nobody is there to ask: what is not reviewed is left out."""
    return set()


def allow_all(reviews: t.Sequence[Review]) -> set[str]:
    """:data:`Decide` for a person who said yes beforehand (``--yes``)."""
    return {review.name for review in reviews}


class Decision(t.NamedTuple):
    """Which of the tools in tools.allowed are pinned, and what a person was asked about them."""

    #: name -> pin, for :func:`cogtools.pins.record`: what is pinned is exactly what was shown
    pins: dict[str, dict[str, t.Any]]
    #: the tools that were new or changed (what a person reviews)
    reviews: list[Review]
    #: the names of those a person allowed
    allowed: set[str]
    #: those left out that stay in tools.allowed all the same (an entry cogtools did not write),
    #: so that a call by name is refused until a person allows them
    listed: frozenset[str] = frozenset()

    @property
    def left_out(self) -> set[str]:
        return {review.name for review in self.reviews} - self.allowed


def decide_pins(catalog: Catalog, settings: str | None, decide: Decide = allow_none) -> Decision:
    """Which of the project's tools named in ``tools.allowed`` of ``settings`` (the text of
    settings.json) to pin: those pinned as they are, and those new or changed since that
    ``decide`` allows. Nothing is written."""
    from cogtools import pins

    names = (pins.allowed_names(settings) if settings is not None else None) or set()
    found = pins.candidates([tool for name, tool in catalog.tools.items() if name in names], catalog.project)
    reviews = [review_of(c.tool, c.pin["sha256"], c.change) for c in found if c.change is not None]
    allowed = set(decide(reviews)) if reviews else set()
    chosen = {c.tool.name: c.pin for c in found if c.change is None or c.tool.name in allowed}
    return Decision(chosen, reviews, allowed)


def review_allowed(
    catalog: Catalog, settings: str | None, path: str, decide: Decide = allow_none
) -> tuple[AllowedPlan, Decision]:
    """``settings`` (the text of settings.json) with ``tools.allowed`` brought up to date, where a
    tool that is new or changed since a person allowed it stays out unless ``decide`` allows
    it; and which tools to pin. Nothing is written."""
    plan = plan_allowed(catalog, settings, path)
    decision = decide_pins(catalog, plan.text, decide)
    if decision.left_out:
        from cogtools import pins

        plan = plan_allowed(catalog, settings, path, decision.left_out)
        listed = decision.left_out & (pins.allowed_names(plan.text) or set())
        decision = decision._replace(listed=frozenset(listed))
    return plan, decision


class Synced(t.NamedTuple):
    """What :func:`sync_allowed` did."""

    #: "updated .gemini/settings.json (...)"
    line: str
    #: what was pinned, and what a person was asked
    decision: Decision


def review_of(tool: Tool, sha256: str, change: str) -> Review:
    """What a person is shown of ``tool`` before allowing it."""
    from cogtools.environment import chooses_code
    from cogtools.lint import undeclared_effects
    from cogtools.run import Outline, runner

    try:
        outline = runner(tool.implementation.kind).outline(tool)
    except LookupError:
        outline = Outline(f"{tool.implementation.kind}: an unknown kind")
    effects = tool.metadata.side_effects
    declares = f"risk {tool.metadata.risk_level or 'high (not declared)'}; side effects: " + (
        ", ".join(effects) if effects else "none" if effects is not None else "not declared"
    )
    for verb, paths in (("reads", tool.metadata.sandbox_read), ("writes", tool.metadata.sandbox_write)):
        if paths:
            declares += f"; also {verb} {', '.join(paths)}"
    return Review(
        tool.name,
        tool.origin.path,
        sha256,
        change,
        outline.runs,
        declares,
        undeclared_effects(tool, outline.implies),
        tool.environment,
        tuple(name for name in tool.environment if chooses_code(name)),
    )


def sync_allowed(catalog: Catalog, decide: Decide = allow_none) -> Synced | None:
    """Bring ``tools.allowed`` of an existing .gemini/settings.json up to date and pin what it
    allows; a tool that is new or changed since a person allowed it stays out of tools.allowed
    (and unpinned) unless ``decide`` allows it. None when the project has no such file (then
    nothing is pinned)."""
    from cogtools import pins
    from cogtools.fsutil import read_config, write_config

    path = catalog.project.root / ".gemini" / "settings.json"
    old = read_config(path)
    if old is None:
        pins.record(catalog.project, {})
        return None
    plan, decision = review_allowed(catalog, old, str(path), decide)
    if plan.text != old:
        write_config(path, plan.text, within=catalog.project.root)
    store_record(catalog, plan.record)
    pinned = pins.record(catalog.project, decision.pins)
    line = f"{'updated' if plan.text != old else 'unchanged'} .gemini/settings.json ({plan.summary}; {pinned} pinned)"
    return Synced(line, decision)


def sync_gemini_md(catalog: Catalog) -> str:
    """Bring GEMINI.md up to date; returns what happened ("created", "updated", "unchanged")."""
    from cogtools.discovery import offer
    from cogtools.fsutil import read_config, write_config
    from cogtools.gemini import tools_table, update_gemini_md
    from cogtools.loading import Loaded

    path = catalog.project.root / "GEMINI.md"
    old = read_config(path)
    new = update_gemini_md(old, tools_table(offer(Loaded(catalog)).lasting), str(path))
    if new == old:
        return "unchanged"
    write_config(path, new, within=catalog.project.root)
    return "created" if old is None else "updated"
