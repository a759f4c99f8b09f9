"""``cogtools list``: the tools of this directory's project, a line each."""

from __future__ import annotations

import json
import shutil
import sys
import typing as t

import click

from cogtools.cli.boundary import warn, write_text
from cogtools.cli.common import CONTEXT_SETTINGS, format_option, policy_options, project_catalog, version_option
from cogtools.cli.discover import report_catalog
from cogtools.trust.policy import confined

if t.TYPE_CHECKING:
    from cogtools.core.model import Tool


@click.command(
    "list", context_settings=CONTEXT_SETTINGS, short_help="List the project's tools and where they come from."
)
@click.option(
    "-a",
    "--all",
    "show_all",
    is_flag=True,
    help="Also list the definitions that are shadowed by an earlier one of the same name.",
)
@format_option("text: a line a tool, for a person; json: an array of objects, one a definition, for a program.")
@policy_options
@version_option()
def command(show_all: bool, fmt: str, **filters: t.Any) -> None:
    """List the tools of the current directory's project: name, what it does (the first line of
    its description) and the file and source it comes from (with --format json, the same as
    objects, confined true, false, or null for a tool that runs no program). Tools marked discoverable, which
    cogtools-discover leaves out, are listed and say so; a tool whose programs run confined to
    the side effects it declares says "confined", one whose code could do anything says
    "unconfined" (see cogtools which NAME for how)."""

    catalog = project_catalog("cogtools list")
    report_catalog("cogtools list", catalog)
    from cogtools.load.loading import package_notes
    from cogtools.load.project import no_tools_note

    for note in package_notes(catalog):
        warn("cogtools list", f"note: {note}")
    if not catalog.tools and (empty := no_tools_note(catalog.project)):
        warn("cogtools list", f"note: {empty}")

    def notes(tool: Tool) -> str:
        held = confined(tool, catalog.project)
        return ", discoverable" * tool.metadata.discoverable + (
            ", confined" if held.confined else ", unconfined" if held.runs_code else ""
        )

    if fmt == "json":

        def entry(tool: Tool, shadowed_by: Tool | None = None) -> dict[str, t.Any]:
            held = confined(tool, catalog.project)
            return {
                "name": tool.name,
                "summary": tool.summary(),
                "file": tool.origin.path,
                "source": tool.origin.source,
                "discoverable": tool.metadata.discoverable,
                "confined": held.confined if held.runs_code else None,
                "shadowed_by": shadowed_by.origin.path if shadowed_by is not None else None,
            }

        entries = [entry(tool) for tool in catalog.visible(**filters)]
        if show_all:
            entries += [entry(s.tool, s.by) for s in catalog.shadowed]
            entries.sort(key=lambda found: t.cast(str, found["name"]))
        write_text(json.dumps(entries, indent=2, ensure_ascii=False) + "\n")
        return
    rows = [
        (tool.name, tool.summary(), f"{tool.origin.path} ({tool.origin.source}{notes(tool)})")
        for tool in catalog.visible(**filters)
    ]
    if show_all:
        rows += [
            (
                s.tool.name,
                s.tool.summary(),
                f"{s.tool.origin.path} ({s.tool.origin.source}, shadowed by {s.by.origin.path})",
            )
            for s in catalog.shadowed
        ]
        rows.sort(key=lambda row: row[0])
    if not rows:
        return
    widths = [max(len(row[i]) for row in rows) for i in range(2)]
    room = _terminal_room(widths[0], max(len(row[2]) for row in rows))
    if room is not None and room < widths[1]:  # on a terminal, a row a line: the summaries give way
        rows = [(name, _shortened(summary, room), origin) for name, summary, origin in rows]
        widths[1] = max(len(row[1]) for row in rows)
    write_text("".join(f"{name:<{widths[0]}}  {summary:<{widths[1]}}  {origin}\n" for name, summary, origin in rows))


#: The narrowest a summary is cut to on a narrow terminal.
MIN_SUMMARY = 24


def _terminal_room(name_width: int, origin_width: int) -> int | None:
    """How wide the summaries may be for each row to fit the terminal stdout is (None: not a
    terminal, whose reader, a program, gets every summary whole)."""

    if not sys.stdout.isatty():
        return None
    columns = shutil.get_terminal_size().columns
    return max(columns - name_width - origin_width - 4, MIN_SUMMARY)


def _shortened(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"
