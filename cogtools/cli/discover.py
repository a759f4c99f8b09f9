"""``cogtools-discover``: print the declarations of this directory's tools."""

from __future__ import annotations

import typing as t

import click

from cogtools.cli.boundary import warn, write_stdout
from cogtools.cli.common import CONTEXT_SETTINGS, policy_options, run, version_option
from cogtools.clients.export import EXPORTS

if t.TYPE_CHECKING:
    from cogtools.load.catalog import Catalog

PROG = "cogtools-discover"


@click.command(
    PROG,
    context_settings=CONTEXT_SETTINGS,
    short_help="Print the declarations of the project's tools (cogtools-discover).",
)
@click.option("--yaml", "as_yaml", is_flag=True, help="Print YAML, for people, instead of JSON.")
@click.option(
    "-f",
    "--format",
    "fmt",
    type=click.Choice(list(EXPORTS)),
    default="gemini-cli",
    show_default=True,
    help="The declaration dialect: Gemini CLI discovery, Gemini API tools.json, MCP, OpenAI Chat Completions, the OpenAI Responses API or Anthropic.",
)
@click.option(
    "--strict",
    is_flag=True,
    help="Fail (exit status of DEFINITION_INVALID, nothing on stdout) when any definition is broken.",
)
@click.option(
    "--discovery-mode/--no-discovery-mode",
    default=None,
    help="Offer the meta-tools cogtools_search and cogtools_call, which reach the tools marked "
    "discoverable (default: the configuration's discovery_mode, else off).",
)
@policy_options
@version_option()
def command(as_yaml: bool, fmt: str, strict: bool, discovery_mode: bool | None, **filters: t.Any) -> int:
    """Print the declarations of the tools of the current directory's project.

    Stdout carries only the document: a JSON array (YAML with --yaml), sorted by tool name. Broken
    definitions, shadowed tools and whatever a format cannot express are reported on stderr; the
    valid tools are still printed and the exit status is 0, so that one broken file never stops
    Gemini CLI from starting. A broken configuration too leaves the exit status 0. Where anything
    is broken, the built-in tool cogtools_problems is listed last: its description names the
    problems, so that they reach the person through the model, and a call returns them all.
    Use --strict to make them fail instead. Only the tools the caller's role
    may use are listed; --toolset, --category and --max-risk narrow the list further.

    In discovery mode, tools marked discoverable are left out and two meta-tools are listed
    instead: cogtools_search finds tools for a request in words, and cogtools_call calls one by
    name, through the same checks and policy as a direct call. Out of discovery mode,
    discoverable tools are listed like any other (nothing else would reach them).
    """
    from cogtools.services.discovery import Asked, discover

    declared = discover(Asked(fmt, as_yaml, strict, discovery_mode, filters))
    for line in declared.notes:  # what was found is said, even when --strict then fails
        warn(PROG, line)
    if declared.error is not None:
        raise declared.error
    write_stdout(declared.text)
    return 0


def report_catalog(prog: str, catalog: Catalog) -> None:
    """The catalog's problems and warnings (:func:`cogtools.load.loading.catalog_report`) on stderr."""
    from cogtools.load.loading import catalog_report

    for line in catalog_report(catalog):
        warn(prog, line)


def main(argv: t.Sequence[str] | None = None) -> int:
    return run(command, argv, PROG)
