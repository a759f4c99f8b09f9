"""``cogtools mcp``: serve the project's tools over MCP."""

from __future__ import annotations

import os
from pathlib import Path

import click

from cogtools.cli.common import CONTEXT_SETTINGS, version_option
from cogtools.errors import UsageError

INSTALL_HINT = "the MCP server needs the optional extra: pip install 'cogtools[mcp]'"


@click.command("mcp", context_settings=CONTEXT_SETTINGS, short_help="Serve the project's tools over MCP (stdio).")
@click.option(
    "--max-calls",
    type=click.IntRange(min=1),
    default=8,
    show_default=True,
    help="Run at most this many calls at once; more wait their turn.",
)
@click.option(
    "--interval",
    type=click.FloatRange(min=0.1),
    default=1.0,
    show_default=True,
    help="Check the tool files for changes this often, in seconds.",
)
@version_option()
def command(max_calls: int, interval: float) -> None:
    """Serve the tools of the current directory's project to an MCP client over standard input
    and output (the client starts this command).

    tools/list answers what cogtools-discover offers: the tools the configured role may use, with
    their input schemas (the mcp dialect of the export), titles and annotations from the
    metadata; in discovery mode, the meta-tools cogtools_search and cogtools_call. tools/call
    goes through exactly what cogtools-call does: the lookup, the pins of tools that run without
    confirmation, the policy, the argument checks, the implementation and its limits. A failure
    is a tool result with isError set, whose text (and structuredContent) is the JSON error
    object cogtools-call prints.

    The server watches the tool files and the configuration: a change is announced with
    notifications/tools/list_changed; a tool whose file an edit broke is still served as it was
    until the file is mended, and the breakage is reported on standard error and as a log
    message. Standard output carries only the protocol.

    Needs the optional extra: pip install 'cogtools[mcp]'.
    """
    try:
        import mcp  # noqa: F401
    except ImportError as e:
        raise UsageError(INSTALL_HINT) from e
    from cogtools.mcp_server import LiveCatalog, serve_stdio, stderr_report

    live = LiveCatalog(Path.cwd(), os.environ)
    serve_stdio(live, max_calls=max_calls, interval=interval, report=stderr_report)
