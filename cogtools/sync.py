"""Keeping Gemini CLI's view of a project in step with its tools: the table in ``GEMINI.md``,
``tools.allowed`` in ``.gemini/settings.json`` (the tools that run without a confirmation), and
the pins of those tools (:mod:`cogtools.pins`). ``cogtools sync`` and ``cogtools init`` are these
functions and a report."""

from __future__ import annotations

import typing as t
from pathlib import Path

if t.TYPE_CHECKING:
    from cogtools.catalog import Catalog


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


def plan_allowed(catalog: Catalog, settings: str | None, path: str) -> AllowedPlan:
    """``settings`` (the text of settings.json) with ``tools.allowed`` holding the tools that may
    run without a confirmation, and every entry a person wrote; nothing is written."""
    import json

    from cogtools.errors import ConfigInvalidError
    from cogtools.fsutil import read_config
    from cogtools.gemini import merge_allowed

    try:
        before = json.loads(read_config(catalog.project.root / MANAGED) or "{}").get("allowed", [])
    except (ConfigInvalidError, ValueError, AttributeError):
        before = []
    ours = allowed_names(catalog)
    record = (
        json.dumps({"_": "written by cogtools sync: the tools.allowed entries it manages", "allowed": ours}, indent=2)
        + "\n"
    )
    count = len(ours) - 1  # cogtools_problems is not one of the project's
    summary = f"tools.allowed: {count} diagnostic tool{'s' * (count != 1)} and cogtools_problems"
    return AllowedPlan(merge_allowed(settings, path, ours, before), record, summary)


def store_record(catalog: Catalog, record: str) -> None:
    """Remember which tools.allowed entries cogtools manages."""
    from cogtools.fsutil import read_config, write_config

    managed = catalog.project.root / MANAGED
    if read_config(managed) != record:
        write_config(managed, record, within=catalog.project.root)


def pin_allowed(catalog: Catalog, settings: str | None) -> int:
    """Pin the definitions of the project's tools named in ``tools.allowed`` of ``settings`` (the
    text of settings.json), which a person is now allowing to run without confirmation, and
    unpin every other; how many were pinned."""
    from cogtools import pins

    names = (pins.allowed_names(settings) if settings is not None else None) or set()
    return pins.record(catalog.project, [tool for name, tool in catalog.tools.items() if name in names])


def sync_allowed(catalog: Catalog) -> str | None:
    """Bring ``tools.allowed`` of an existing .gemini/settings.json up to date and pin what it
    allows; what happened, or None when the project has no such file (then nothing is pinned)."""
    from cogtools.fsutil import read_config, write_config

    path = catalog.project.root / ".gemini" / "settings.json"
    old = read_config(path)
    if old is None:
        pin_allowed(catalog, None)
        return None
    plan = plan_allowed(catalog, old, str(path))
    if plan.text != old:
        write_config(path, plan.text, within=catalog.project.root)
    store_record(catalog, plan.record)
    pinned = pin_allowed(catalog, plan.text)
    return f"{'updated' if plan.text != old else 'unchanged'} .gemini/settings.json ({plan.summary}; {pinned} pinned)"


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
