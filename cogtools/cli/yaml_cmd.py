"""``cogtools-yaml FILE``: run the tool defined in FILE; what a tool file's shebang calls."""

from __future__ import annotations

import functools
import typing as t
from pathlib import Path

from cogtools.cli.boundary import PreRead, run_plumbing, warn, write_stdout

if t.TYPE_CHECKING:
    import click

PROG = "cogtools-yaml"


def execute(stdin: PreRead, file: str, as_yaml: bool = False, verbose: bool = False, system_env: bool = False) -> None:
    from cogtools.catalog import load_tool_file
    from cogtools.cli.call import run_context
    from cogtools.invoke import call, parse_arguments
    from cogtools.policy import enforce
    from cogtools.project import discover_project

    data, truncated = stdin.get()
    tool = load_tool_file(Path(file))
    if verbose:
        warn(PROG, f"{tool.name}: {file} (format {tool.origin.format})")
    arguments = parse_arguments(data, as_yaml=as_yaml, truncated=truncated, tool=tool.name)
    project = discover_project(Path(file).resolve().parent)
    enforce(tool, project)
    write_stdout(call(tool, arguments, run_context(PROG, tool, project, system_env, verbose)))


@functools.lru_cache(maxsize=None)
def command() -> click.Command:
    import click

    from cogtools.cli.common import CONTEXT_SETTINGS, plumbing_options

    @click.command(PROG, context_settings=CONTEXT_SETTINGS)
    @click.argument("file", type=click.Path(dir_okay=False))
    @plumbing_options("Say on stderr which file and tool run.")
    @click.pass_obj
    def yaml_command(stdin: PreRead | None, file: str, as_yaml: bool, verbose: bool, system_env: bool) -> None:
        """Run the tool defined in FILE with the arguments on stdin, and print its result.

        A tool file that starts with '#! /usr/bin/env cogtools-yaml' and has its execute bit set
        runs itself: './facepalm.yaml < args.json'. Arguments, checks and errors are those of
        cogtools-call(1).
        """
        execute(stdin or PreRead(None), file, as_yaml=as_yaml, verbose=verbose, system_env=system_env)

    return yaml_command


def main(argv: t.Sequence[str] | None = None) -> int:
    return run_plumbing(argv, PROG, execute, command)
