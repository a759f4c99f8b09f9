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
    from cogtools.discovery import mode, offered
    from cogtools.gemini import PREFIX
    from cogtools.policy import RISKS, Policy, risk

    limit = Policy.from_settings(catalog.project.config.value("policy")).max_risk_without_confirmation
    return [
        PREFIX + tool.name
        for tool in offered(catalog, mode(catalog), toolset="diagnostic")
        if RISKS.index(risk(tool)) <= RISKS.index(limit)
    ]


def sync_allowed(catalog: Catalog) -> str | None:
    """Bring ``tools.allowed`` of an existing .gemini/settings.json up to date; what happened, or
    None when the project has no such file."""
    import json

    from cogtools.fsutil import read_config, write_config
    from cogtools.gemini import merge_allowed

    root = catalog.project.root
    path = root / ".gemini" / "settings.json"
    managed = root / MANAGED
    old = read_config(path)
    if old is None:
        return None
    try:
        before = json.loads(managed.read_text(encoding="utf-8")).get("allowed", [])
    except (OSError, ValueError, AttributeError):
        before = []
    ours = allowed_names(catalog)
    new = merge_allowed(old, str(path), ours, before)
    record = json.dumps({"_": "written by cogtools sync: the tools.allowed entries it manages", "allowed": ours}, indent=2) + "\n"
    if new != old:
        write_config(path, new)
    if read_config(managed) != record:
        write_config(managed, record)
    shown = f"tools.allowed: {len(ours)} diagnostic tool{'s' * (len(ours) != 1)}"
    return f"{'updated' if new != old else 'unchanged'} .gemini/settings.json ({shown})"


def sync_gemini_md(catalog: Catalog) -> str:
    """Bring GEMINI.md up to date; returns what happened ("created", "updated", "unchanged")."""
    from cogtools.discovery import mode, offered
    from cogtools.fsutil import read_config, write_config
    from cogtools.gemini import tools_table, update_gemini_md

    path = catalog.project.root / "GEMINI.md"
    old = read_config(path)
    new = update_gemini_md(old, tools_table(offered(catalog, mode(catalog))), str(path))
    if new == old:
        return "unchanged"
    write_config(path, new)
    return "created" if old is None else "updated"
