"""``cogtools sync``: the table of the project's tools in GEMINI.md."""

from __future__ import annotations

import typing as t

import click

from cogtools.cli.boundary import write_stdout
from cogtools.cli.common import CONTEXT_SETTINGS

if t.TYPE_CHECKING:
    from cogtools.catalog import Catalog

PROG = "cogtools sync"


@click.command("sync", context_settings=CONTEXT_SETTINGS, short_help="Write the table of tools into GEMINI.md.")
def command() -> None:
    """Write the table of the project's tools into GEMINI.md at the project root.

    Each row has the name the model sees (discovered_tool_NAME), the first line of the
    description and the risk level. The table lives between two marker comments: the file is
    created if needed, every line outside the markers stays as it was, and a run with no change in
    the tools leaves the file byte for byte as it was.
    """
    from cogtools.catalog import load_catalog
    from cogtools.cli.discover import report_catalog

    catalog = load_catalog()
    report_catalog(PROG, catalog)
    outcome = sync_gemini_md(catalog)
    write_stdout(f"{outcome} GEMINI.md\n")


def sync_gemini_md(catalog: Catalog) -> str:
    """Bring GEMINI.md up to date; returns what happened ("created", "updated", "unchanged")."""
    from cogtools.errors import ConfigInvalidError
    from cogtools.fsutil import write_atomic
    from cogtools.gemini import tools_table, update_gemini_md

    path = catalog.project.root / "GEMINI.md"
    try:
        old: str | None = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        old = None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigInvalidError(f"cannot read: {e}", path=str(path)) from e
    new = update_gemini_md(old, tools_table(catalog.tools.values()), str(path))
    if new == old:
        return "unchanged"
    try:
        write_atomic(path, new)
    except OSError as e:
        raise ConfigInvalidError(f"cannot write: {e.strerror}", path=str(path)) from e
    return "created" if old is None else "updated"
