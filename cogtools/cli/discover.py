"""``cogtools-discover``: print the declarations of this directory's tools."""

from __future__ import annotations

import typing as t
from pathlib import Path

import click

from cogtools.cli.boundary import warn, write_stdout
from cogtools.cli.common import CONTEXT_SETTINGS, policy_options, run, version_option
from cogtools.errors import DefinitionInvalidError
from cogtools.export import EXPORTS
from cogtools.model import PROBLEMS_TOOL

if t.TYPE_CHECKING:
    from cogtools.catalog import Catalog

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
    import json
    import os

    from cogtools.catalog import warm_state

    # What the output depends on besides the catalog's state: the options, and the variables
    # that choose the configuration and the policy.
    asked = json.dumps(
        [
            as_yaml,
            fmt,
            strict,
            discovery_mode,
            filters,
            {k: v for k, v in os.environ.items() if k.startswith("COGTOOLS_")},
        ],
        sort_keys=True,
    )
    warm = warm_state()
    if warm is not None:
        stored = warm[0].output(warm[1] + asked)
        if stored is not None:
            printed, said = json.loads(stored)
            for line in said:
                warn(PROG, line)
            write_stdout(printed)
            return 0
    notes: list[str] = []
    try:
        out, state = _declarations(notes, as_yaml, fmt, strict, discovery_mode, filters)
    finally:  # what was found is said, even when --strict then fails
        for line in notes:
            warn(PROG, line)
    write_stdout(out)
    # Kept for the next run when nothing changed while it ran (the fast index the load left
    # vouches for the whole catalog).
    if state is not None:
        state[0].put_output(state[1] + asked, json.dumps([out, notes]).encode("utf-8"))
    return 0


def _declarations(
    notes: list[str], as_yaml: bool, fmt: str, strict: bool, discovery_mode: bool | None, filters: dict[str, t.Any]
) -> tuple[str, t.Any]:
    """The document to print on stdout, and the catalog's state (``Catalog.state``: what the
    document may be kept under); the lines for stderr are added to ``notes``."""
    from cogtools import discovery, doctor
    from cogtools.export import export
    from cogtools.yamlio import dump_for_people

    loaded = doctor.load_project()
    catalog = loaded.catalog
    if catalog is None:  # the configuration does not load: no tool but the one that says why
        assert loaded.error is not None
        if strict:
            raise loaded.error
        notes.append(f"error: {loaded.error.code}: {loaded.error}")
        notes.append(
            f"serving only {PROBLEMS_TOOL}, which tells the model what is broken; `cogtools doctor` shows the fix"
        )
        tools = [doctor.problems_tool(loaded.findings, Path.cwd())]
    else:
        notes += catalog_report(catalog)
        if strict and catalog.problems:
            raise DefinitionInvalidError(
                f"{len(catalog.problems)} broken definition{'s' if len(catalog.problems) > 1 else ''} (--strict)",
                details={"files": sorted({p.path for p in catalog.problems if p.path})},
            )
        tools = discovery.offer(catalog, discovery_mode, **filters).tools
        if doctor.has_problems(loaded.findings):
            tools.append(doctor.problems_tool(loaded.findings, catalog.project.root))
    declarations, exported = export(tools, fmt)
    notes += [f"note: {note}" for note in exported]
    state = catalog.state if catalog is not None else None
    if as_yaml:
        return dump_for_people(declarations), state
    fitted = discovery.fit(declarations)
    if fitted.dropped:
        notes.append(
            f"warning: the declarations pass Gemini CLI's limit of {discovery.GEMINI_OUTPUT_LIMIT} bytes;"
            f" {len(fitted.dropped)} tools left out (from {fitted.dropped[0]} on): mark tools discoverable and"
            " use discovery mode, or narrow the list (--toolset, --category, --max-risk)"
        )
    return fitted.text, state


#: At most this many lines of problems and warnings: Gemini CLI fails to start when a discovery
#: command writes more than 10 MiB to stderr, and a person reads the first ones anyway.
MAX_REPORT_LINES = 1000


def catalog_report(catalog: Catalog) -> list[str]:
    """Broken definitions, load warnings and shadowed tools, a line each (at most
    :data:`MAX_REPORT_LINES`, then a count of the rest)."""
    lines = [f"skipped: {problem.code}: {problem}" for problem in catalog.problems]
    lines += [f"warning: {message}" for message in catalog.warnings]
    lines += [
        f"warning: {entry.tool.name}: {entry.tool.origin.path} is shadowed by {entry.by.origin.path}"
        for entry in catalog.shadowed
    ]
    out = [line[:2000] for line in lines[:MAX_REPORT_LINES]]
    if len(lines) > MAX_REPORT_LINES:
        out.append(f"... and {len(lines) - MAX_REPORT_LINES} more problems and warnings")
    return out


def report_catalog(prog: str, catalog: Catalog) -> None:
    """:func:`catalog_report` on stderr."""
    for line in catalog_report(catalog):
        warn(prog, line)


def main(argv: t.Sequence[str] | None = None) -> int:
    return run(command, argv, PROG)
