"""``cogtools which NAME``: every definition of NAME, in precedence order, and which one wins."""

from __future__ import annotations

import click

from cogtools.cli.boundary import write_stdout
from cogtools.cli.common import CONTEXT_SETTINGS, version_option
from cogtools.cli.completion import tool_name_argument
from cogtools.errors import ToolNotFoundError


@click.command("which", context_settings=CONTEXT_SETTINGS, short_help="Show every definition of a tool and which one wins.")
@tool_name_argument("name")
@version_option()
def command(name: str) -> None:
    """Show every definition of the tool NAME in the current project, in precedence order: the
    one that is used, the ones it shadows and why, and broken files that meant to define NAME.

    Sources are searched in order: the project root's own tool files, then the configured
    tool_sources, then the directories of COGTOOLS_TOOL_PATH; within a source, paths in sorted
    order. The first definition wins.
    """
    from cogtools.catalog import load_catalog

    catalog = load_catalog()
    order = [source.name for source in catalog.project.sources]
    winner = catalog.tools.get(name)
    lines = []
    if winner is not None:
        lines.append(f"{name}\t{winner.origin.path}\t(source {winner.origin.source})\tused")
    for entry in catalog.shadowed:
        if entry.tool.name != name:
            continue
        loser, by = entry.tool.origin, entry.by.origin
        if loser.source == by.source:
            why = f"{by.path} comes first in sorted order within source {by.source}"
        else:
            why = f"source {by.source} comes before source {loser.source} (order: {', '.join(order)})"
        lines.append(f"{name}\t{loser.path}\t(source {loser.source})\tshadowed: {why}")
    for problem in catalog.problems:
        if problem.tool == name:
            lines.append(f"{name}\t{problem.path}\t(broken)\t{problem.code}: {problem.message}")
    if not lines:
        raise ToolNotFoundError(f"no definition of {name!r} in {catalog.project.root}", tool=name)
    write_stdout("".join(line + "\n" for line in lines))
