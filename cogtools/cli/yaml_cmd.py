"""``cogtools-yaml FILE``: run the tool defined in FILE; what a tool file's shebang calls."""

from __future__ import annotations

import functools
import typing as t
from pathlib import Path

from cogtools.cli.boundary import PreRead, run_plumbing, warn, write_result

if t.TYPE_CHECKING:
    import click

PROG = "cogtools-yaml"


def execute(
    stdin: PreRead,
    file: str,
    as_yaml: bool = False,
    verbose: bool = False,
    system_env: bool = False,
    dry_run: bool = False,
) -> None:
    from cogtools.catalog import load_tool_file
    from cogtools.cli.call import report_context
    from cogtools.invoke import parse_arguments, run_tool
    from cogtools.project import discover_project

    data, truncated = stdin.get()
    tool = load_tool_file(Path(file))
    if verbose:
        warn(PROG, f"{tool.name}: {file} (format {tool.origin.format})")
    arguments = parse_arguments(data, as_yaml=as_yaml, truncated=truncated, tool=tool.name)
    # The tool runs in its own project (its .env, its root), under the policy of that project and
    # of the caller's: a copy of a denied tool, or a link to one, is no way around policy.
    home = discover_project(Path(file).resolve().parent)
    caller = discover_project()
    result = run_tool(
        tool,
        home,
        arguments,
        also=() if caller.root == home.root else (caller,),
        system_env=system_env,
        observe=(lambda tool, context: report_context(PROG, tool, context)) if verbose else None,
        dry_run=dry_run,
    )
    write_result(result)


@functools.lru_cache(maxsize=None)
def command() -> click.Command:
    import click

    from cogtools.cli.common import CONTEXT_SETTINGS, plumbing_options

    @click.command(
        PROG, context_settings=CONTEXT_SETTINGS, short_help="Run the tool defined in a file (cogtools-yaml)."
    )
    @click.argument("file", type=click.Path(dir_okay=False))
    @plumbing_options("Say on stderr which file and tool run.")
    @click.pass_obj
    def yaml_command(
        stdin: PreRead | None, file: str, as_yaml: bool, verbose: bool, system_env: bool, dry_run: bool
    ) -> None:
        """Run the tool defined in FILE with the arguments on stdin, and print its result.

        A tool file that starts with '#! /usr/bin/env cogtools-yaml' and has its execute bit set
        runs itself: './facepalm.yaml < args.json'. Arguments, checks and errors are those of
        cogtools-call(1).
        """
        execute(stdin or PreRead(None), file, as_yaml=as_yaml, verbose=verbose, system_env=system_env)

    return yaml_command


def main(argv: t.Sequence[str] | None = None) -> int:
    return run_plumbing(argv, PROG, execute, command)
