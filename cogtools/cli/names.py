"""Tool names on the command line: the argument of a command that takes one, completed from the
current project's tools (click's completion protocol; :mod:`cogtools.cli.completion` prints the
shells' scripts)."""

from __future__ import annotations

import typing as t

import click
from click.shell_completion import CompletionItem


def complete_tool_names(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """The tools of the current project whose name starts with ``incomplete``."""
    from cogtools.core.errors import CogtoolsError
    from cogtools.load.catalog import load_catalog

    try:
        tools = load_catalog().tools
    except CogtoolsError:
        return []
    return [CompletionItem(name, help=tool.summary()) for name, tool in tools.items() if name.startswith(incomplete)]


def tool_name_argument(name: str) -> t.Callable[[t.Callable[..., t.Any]], t.Callable[..., t.Any]]:
    """A positional argument ``name`` that completes tool names."""
    return click.argument(name, shell_complete=complete_tool_names)
