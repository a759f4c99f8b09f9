"""``cogtools-call NAME``: run a tool of this directory's project with arguments from stdin."""

from __future__ import annotations

import functools
import typing as t

from cogtools.cli.boundary import PreRead, run_plumbing, warn, write_result

if t.TYPE_CHECKING:
    import click

    from cogtools.catalog import Catalog
    from cogtools.model import Tool
    from cogtools.run import RunContext

PROG = "cogtools-call"


def execute(
    stdin: PreRead,
    name: str,
    as_yaml: bool = False,
    verbose: bool = False,
    system_env: bool = False,
    dry_run: bool = False,
) -> None:
    from cogtools.catalog import load_catalog
    from cogtools.errors import CogtoolsError
    from cogtools.invoke import parse_arguments, run_named
    from cogtools.model import PROBLEMS_TOOL, RESERVED_NAMES

    data, truncated = stdin.get()

    def arguments() -> dict[str, t.Any]:
        return parse_arguments(data, as_yaml=as_yaml, truncated=truncated, tool=name)

    try:
        if name == PROBLEMS_TOOL:  # it answers even when the configuration does not load
            from cogtools.doctor import call_problems

            write_result(call_problems(arguments()))
            return
        # A call needs its one tool (a meta-tool, or -v, the whole catalog).
        catalog = load_catalog(only=None if verbose or name in RESERVED_NAMES else name)
        if verbose:
            explain(catalog, name)
        result = run_named(
            catalog,
            name,
            arguments,
            system_env=system_env,
            observe=(lambda tool, context: report_context(PROG, tool, context)) if verbose else None,
            dry_run=dry_run,
        )
    except CogtoolsError as e:
        e.tool = e.tool or name  # a broken configuration still says which call it broke
        raise
    write_result(result)


def report_context(prog: str, tool: Tool, context: RunContext) -> None:
    """For ``-v``: which environment variables the tool sees and which source wins (names only:
    values are never printed)."""
    if tool.environment:
        first = "process environment" if context.env_priority == "system" else "project .env"
        warn(prog, f"environment: {', '.join(tool.environment)} ({first} first)")


def explain(catalog: Catalog, name: str) -> None:
    """How ``name`` resolves: the project, its sources, the winner and the shadowed."""
    project = catalog.project
    warn(PROG, f"project root: {project.root} (by {project.reason})")
    for source in project.sources:
        kind = "recursive" if source.recursive else "top level only"
        warn(PROG, f"source {source.name}: {source.directory} ({kind})")
    from cogtools.model import RESERVED_NAMES

    if name in RESERVED_NAMES:
        warn(PROG, f"{name}: a tool built into cogtools")
        return
    definitions = catalog.definitions(name)
    for found in definitions:
        if found.status == "used":
            tool = catalog.tools[name]
            warn(PROG, f"{name}: {found.path} (source {found.source}, format {tool.origin.format})")
        elif found.status == "shadowed":
            warn(PROG, f"{name}: also in {found.path} (source {found.source}), shadowed: {found.why}")
        else:
            warn(PROG, f"{name}: {found.path} is broken: {found.why}")
    if not any(found.status == "used" for found in definitions):
        warn(PROG, f"{name}: not among the {len(catalog.tools)} tools found")


@functools.lru_cache(maxsize=None)
def command() -> click.Command:
    import click

    from cogtools.cli.common import CONTEXT_SETTINGS, plumbing_options
    from cogtools.cli.completion import tool_name_argument

    @click.command(
        PROG,
        context_settings=CONTEXT_SETTINGS,
        short_help="Call a tool with the arguments on stdin (cogtools-call).",
        epilog="Exit status: 0 on success; on failure the error code's own status (see "
        "cogtools-call(1)), with the JSON error object on stdout and one line on stderr.",
    )
    @tool_name_argument("name")
    @plumbing_options("Explain on stderr how NAME was resolved.")
    @click.pass_obj
    def call_command(
        stdin: PreRead | None, name: str, as_yaml: bool, verbose: bool, system_env: bool, dry_run: bool
    ) -> None:
        """Call the tool NAME with the arguments on stdin, and print its result.

        The arguments are a JSON object (empty input means no arguments). They are checked
        against the tool's parameter schema, declared defaults are filled in, and the tool's
        implementation runs. NAME is looked up in the project of the current directory.

        With --dry-run, everything up to running happens (lookup, policy, the checks of the
        arguments, the secrets) and what would run is printed as one JSON object instead: the
        rendered argv or request, the names of the environment variables, the working
        directory and the limits; for a template tool, the text it renders.

        \b
        Example:
          echo '{"text": "one two three"}' | cogtools-call word_count
          echo '{"text": "one two three"}' | cogtools-call --dry-run word_count
        """
        execute(stdin or PreRead(None), name, as_yaml=as_yaml, verbose=verbose, system_env=system_env, dry_run=dry_run)

    return call_command


def main(argv: t.Sequence[str] | None = None) -> int:
    return run_plumbing(argv, PROG, execute, command)
