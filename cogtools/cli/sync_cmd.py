"""``cogtools sync``: the table of the project's tools in GEMINI.md."""

from __future__ import annotations

import typing as t
from pathlib import Path

import click

from cogtools.cli.boundary import write_stdout
from cogtools.cli.common import CONTEXT_SETTINGS, version_option

if t.TYPE_CHECKING:
    from cogtools.catalog import Catalog

PROG = "cogtools sync"


@click.command("sync", context_settings=CONTEXT_SETTINGS, short_help="Write the table of tools into GEMINI.md.")
@version_option()
def command() -> None:
    """Write the table of the project's tools into GEMINI.md at the project root, and, when the
    project has a .gemini/settings.json, the tools that may run without a confirmation into its
    tools.allowed (the diagnostic toolset; entries a person wrote are kept).

    The table and tools.allowed hold what cogtools-discover offers: the tools the caller's role
    may use, less those marked discoverable, plus the meta-tools when discovery_mode is on. Each
    row has the name the model sees (discovered_tool_NAME), the first line of the description
    and the risk level. The table lives between two marker comments: the file is
    created if needed, every line outside the markers stays as it was, and a run with no change in
    the tools leaves the file byte for byte as it was.
    """
    from cogtools.catalog import load_catalog
    from cogtools.cli.discover import report_catalog

    catalog = load_catalog()
    report_catalog(PROG, catalog)
    allowed = sync_allowed(catalog)
    if allowed is not None:
        write_stdout(allowed + "\n")
    write_stdout(f"{sync_gemini_md(catalog)} GEMINI.md\n")


#: What cogtools last wrote into tools.allowed, so that it can tell its entries from a person's.
MANAGED = Path(".gemini") / "cogtools-allowed.json"


def allowed_names(catalog: Catalog) -> list[str]:
    """``discovered_tool_NAME`` of every tool that may run without a confirmation: the
    diagnostic toolset, visible to the caller's role, of at most the policy's
    ``max_risk_without_confirmation``."""
    from cogtools.discovery import offer
    from cogtools.gemini import PREFIX
    from cogtools.policy import RISKS, Policy, risk

    limit = Policy.of(catalog.project).max_risk_without_confirmation
    return [
        PREFIX + tool.name
        for tool in offer(catalog, toolset="diagnostic").tools
        if RISKS.index(risk(tool)) <= RISKS.index(limit)
    ]


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

    from cogtools.gemini import merge_allowed

    try:
        before = json.loads((catalog.project.root / MANAGED).read_text(encoding="utf-8")).get("allowed", [])
    except (OSError, ValueError, AttributeError):
        before = []
    ours = allowed_names(catalog)
    record = json.dumps({"_": "written by cogtools sync: the tools.allowed entries it manages", "allowed": ours}, indent=2) + "\n"
    summary = f"tools.allowed: {len(ours)} diagnostic tool{'s' * (len(ours) != 1)}"
    return AllowedPlan(merge_allowed(settings, path, ours, before), record, summary)


def store_record(catalog: Catalog, record: str) -> None:
    """Remember which tools.allowed entries cogtools manages."""
    from cogtools.fsutil import read_config, write_config

    managed = catalog.project.root / MANAGED
    if read_config(managed) != record:
        write_config(managed, record)


def sync_allowed(catalog: Catalog) -> str | None:
    """Bring ``tools.allowed`` of an existing .gemini/settings.json up to date; what happened, or
    None when the project has no such file."""
    from cogtools.fsutil import read_config, write_config

    path = catalog.project.root / ".gemini" / "settings.json"
    old = read_config(path)
    if old is None:
        return None
    plan = plan_allowed(catalog, old, str(path))
    if plan.text != old:
        write_config(path, plan.text)
    store_record(catalog, plan.record)
    return f"{'updated' if plan.text != old else 'unchanged'} .gemini/settings.json ({plan.summary})"


def sync_gemini_md(catalog: Catalog) -> str:
    """Bring GEMINI.md up to date; returns what happened ("created", "updated", "unchanged")."""
    from cogtools.discovery import offer
    from cogtools.fsutil import read_config, write_config
    from cogtools.gemini import tools_table, update_gemini_md

    path = catalog.project.root / "GEMINI.md"
    old = read_config(path)
    new = update_gemini_md(old, tools_table(offer(catalog).tools), str(path))
    if new == old:
        return "unchanged"
    write_config(path, new)
    return "created" if old is None else "updated"
