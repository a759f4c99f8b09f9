"""``cogtools sync``: the table of the project's tools in GEMINI.md."""

from __future__ import annotations

import click

from cogtools.cli.boundary import write_text
from cogtools.cli.common import CONTEXT_SETTINGS, version_option

PROG = "cogtools sync"


@click.command("sync", context_settings=CONTEXT_SETTINGS, short_help="Write the table of tools into GEMINI.md.")
@version_option()
def command() -> None:
    """Write the table of the project's tools into GEMINI.md at the project root, and, when the
    project has a .gemini/settings.json, the tools that may run without a confirmation into its
    tools.allowed (the diagnostic toolset; entries a person wrote are kept).

    Every tool in tools.allowed is then pinned to its definition as it is now (the file's path
    and SHA-256, kept in the user's state directory, out of the agent's reach): a call of an
    allowed tool whose definition has changed, or that a new file shadows, is refused with
    POLICY_DENIED until a person runs sync again.

    The table and tools.allowed hold what cogtools-discover offers: the tools the caller's role
    may use, less those marked discoverable, plus the meta-tools when discovery_mode is on. Each
    row has the name the model sees (discovered_tool_NAME), the first line of the description
    and the risk level. The table lives between two marker comments: the file is
    created if needed, every line outside the markers stays as it was, and a run with no change in
    the tools leaves the file byte for byte as it was.
    """
    from cogtools.cli.common import project_catalog
    from cogtools.cli.discover import report_catalog
    from cogtools.sync import sync_allowed, sync_gemini_md

    catalog = project_catalog(PROG, required=True)
    report_catalog(PROG, catalog)
    allowed = sync_allowed(catalog)
    write_text(
        (allowed or "no .gemini/settings.json: no tools.allowed to keep in step (`cogtools init` makes it)") + "\n"
    )
    write_text(f"{sync_gemini_md(catalog)} GEMINI.md\n")
