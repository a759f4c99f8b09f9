"""``cogtools sync``: the tools that run without confirmation, reviewed and pinned, and the table of the project's tools in GEMINI.md."""

from __future__ import annotations

import click

from cogtools.cli.boundary import write_text
from cogtools.cli.common import CONTEXT_SETTINGS, project_catalog, version_option
from cogtools.cli.discover import report_catalog
from cogtools.cli.review import Reviewer, interactive, review_lines, yes_option
from cogtools.services.sync import sync_allowed, sync_gemini_md

PROG = "cogtools sync"


@click.command(
    "sync",
    context_settings=CONTEXT_SETTINGS,
    short_help="Review and pin what runs unasked; write its rules and GEMINI.md.",
)
@yes_option()
@version_option()
def command(yes: bool) -> None:
    """Write the table of the project's tools into GEMINI.md at the project root, and tell
    Gemini CLI which tools may run without a confirmation (the diagnostic toolset): where the
    gemini on PATH has the Policy Engine (Gemini CLI 0.30 and later, or no gemini found), as
    allow rules in a file of yours, ~/.gemini/policies/cogtools-NAME-HASH.toml (under
    $GEMINI_CLI_HOME if set), one per project, never in the workspace; for an older Gemini CLI,
    in tools.allowed of the project's .gemini/settings.json. Entries cogtools wrote into
    tools.allowed before are moved out of it (so Gemini CLI no longer warns that it is
    deprecated); entries a person wrote are kept. A project whose .gemini/settings.json is
    missing counts when your own or the system's Gemini CLI settings set the discovery command.

    Every tool that runs without confirmation is then pinned to what it runs as it is now: its
    definition, the files of the project it executes or imports, and the settings that choose
    them (SHA-256s, kept in the user's state directory, out of the agent's reach). A call of an
    allowed tool of which any of that has changed, or that a new file shadows, is refused with
    POLICY_DENIED until a person runs sync again. A rule is user-wide: a tool of the same name in
    another project is let through by Gemini CLI too, and refused there by its missing pin
    until sync is run there (cogtools doctor says so).

    A tool that is new to your pins, or changed since you allowed it, is first shown: its file,
    what changed, what it runs (the command line, script, callable or URL), the risk and side
    effects it declares, and those it plainly has without declaring them. On a terminal sync
    asks about each (y, n, a for it and the rest, q for none of the rest); otherwise (or when
    you say no) it gets no rule (or entry) and is not pinned, so Gemini CLI asks before each
    call, unless --yes is given. After cloning a project, or with a new home directory, run
    sync once: pins and rules are yours, not the project's.

    The table and the rules hold what cogtools-discover offers: the tools the caller's role may
    use, less those marked discoverable, plus the meta-tools when discovery_mode is on. Each
    row has the name the model sees (discovered_tool_NAME), the first line of the description
    and the risk level. The table lives between two marker comments: the file is created if
    needed, every line outside the markers stays as it was, and a run with no change in the
    tools leaves the file byte for byte as it was.
    """

    catalog = project_catalog(PROG, required=True)
    report_catalog(PROG, catalog)
    reviewer = Reviewer(yes=yes, ask=interactive())
    # (GEMINI.md first: a file written beside a script after it is pinned would be a change to it)
    gemini_md = sync_gemini_md(catalog)
    synced = sync_allowed(catalog, reviewer)
    if synced is None:
        write_text("no .gemini/settings.json: no tools.allowed to keep in step (`cogtools init` makes it)\n")
    else:
        write_text(synced.line + "\n")
        for note in synced.notes:
            write_text(note + "\n")
        for line in review_lines(synced.decision, reviewer.shown):
            write_text(line + "\n")
    write_text(f"{gemini_md} GEMINI.md\n")
