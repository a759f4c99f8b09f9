"""``cogtools-yaml FILE``: run the tool defined in FILE; what a tool file's shebang calls."""

from __future__ import annotations

import typing as t
from pathlib import Path

import click

from cogtools.cli.common import CONTEXT_SETTINGS, PreRead, pre_read_stdin, run, version_option, warn, write_stdout

PROG = "cogtools-yaml"


@click.command(PROG, context_settings=CONTEXT_SETTINGS)
@click.option("--yaml", "as_yaml", is_flag=True, help="Read the arguments from stdin as YAML, not JSON.")
@click.option("-v", "--verbose", is_flag=True, help="Say on stderr which file and tool run.")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@version_option()
@click.pass_obj
def command(stdin: PreRead | None, file: Path, as_yaml: bool, verbose: bool) -> None:
    """Run the tool defined in FILE with the arguments on stdin, and print its result.

    A tool file that starts with '#! /usr/bin/env cogtools-yaml' and has its execute bit set runs
    itself: './facepalm.yaml < args.json'. Arguments, checks and errors are those of
    cogtools-call(1).
    """
    from cogtools.invoke import call, parse_arguments
    from cogtools.catalog import load_tool_file

    data, truncated = (stdin or PreRead(None)).get()
    tool = load_tool_file(file)
    if verbose:
        warn(PROG, f"{tool.name}: {file} (format {tool.origin.format})")
    arguments = parse_arguments(data, as_yaml=as_yaml, truncated=truncated)
    write_stdout(call(tool, arguments))


def main(argv: t.Sequence[str] | None = None) -> int:
    return run(command, argv, PROG, json_errors=True, obj=pre_read_stdin())
