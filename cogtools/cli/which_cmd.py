"""``cogtools which NAME``: every definition of NAME, in precedence order, and which one wins."""

from __future__ import annotations

import click

from cogtools.cli.boundary import write_text
from cogtools.cli.common import CONTEXT_SETTINGS, version_option
from cogtools.cli.names import tool_name_argument
from cogtools.core.errors import ToolNotFoundError, close_names, did_you_mean
from cogtools.load.catalog import load_catalog
from cogtools.trust.policy import confined


@click.command(
    "which", context_settings=CONTEXT_SETTINGS, short_help="Show every definition of a tool and which one wins."
)
@tool_name_argument("name")
@version_option()
def command(name: str) -> None:
    """Show every definition of the tool NAME in the current project, in precedence order: the
    one that is used and what it can do here (whether its programs run confined to the side
    effects it declares; for a kind that runs none, whether it can change anything and reach the
    network), the ones it shadows and why, and broken files that meant to define NAME.

    Sources are searched in order: the project root's own tool files, then the configured
    tool_sources, then the directories of COGTOOLS_TOOL_PATH; within a source, paths in sorted
    order. The first definition wins.
    """

    catalog = load_catalog()

    lines = []
    for found in catalog.definitions(name):
        if found.status == "used":
            held = confined(catalog.tools[name], catalog.project)
            lines.append(f"{name}\t{found.path}\t(source {found.source})\tused; {held.how}")
        elif found.status == "shadowed":
            lines.append(f"{name}\t{found.path}\t(source {found.source})\tshadowed: {found.why}")
        else:
            lines.append(f"{name}\t{found.path}\t(broken)\t{found.why}")
    if not lines:
        near = close_names(name, [tool.name for tool in catalog.visible()], n=3)
        hint = f" ({did_you_mean(near)})" if near else ""
        raise ToolNotFoundError(
            f"no definition of {name!r} in {catalog.project.root}{hint}",
            tool=name,
            details={"did_you_mean": near} if near else {},
        )
    write_text("".join(line + "\n" for line in lines))
