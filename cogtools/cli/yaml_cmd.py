"""``cogtools-yaml FILE``: run the tool defined in FILE; what a tool file's shebang calls."""

from __future__ import annotations

import functools
import typing as t
from pathlib import Path

from cogtools.cli.boundary import PreRead, warn
from cogtools.cli.plumbing import Options, environ_for, report_context, run_plumbing, start_audit
from cogtools.cli.streams import write_result

if t.TYPE_CHECKING:
    import click

PROG = "cogtools-yaml"


def execute(stdin: PreRead, file: str, options: Options) -> None:
    from cogtools.services.invoke import invoke, parse_arguments, resolve_file

    data, truncated = stdin.get()
    target = resolve_file(Path(file), environ_for(options))
    start_audit(PROG, options, target.project)
    if options.verbose:
        warn(PROG, f"{target.tool.name}: {file} (format {target.tool.origin.format})")
    arguments = parse_arguments(data, as_yaml=options.as_yaml, truncated=truncated, tool=target.tool.name)
    result = invoke(
        target,
        arguments,
        system_env=options.system_env,
        observe=(lambda tool, context: report_context(PROG, tool, context)) if options.verbose else None,
        dry_run=options.dry_run,
    )
    write_result(result, None if options.dry_run else target.tool.output_media_type)


@functools.lru_cache(maxsize=None)
def command() -> click.Command:
    import click

    from cogtools.cli.common import CONTEXT_SETTINGS
    from cogtools.cli.plumbing import plumbing_options

    @click.command(
        PROG, context_settings=CONTEXT_SETTINGS, short_help="Run the tool defined in a file (cogtools-yaml)."
    )
    @click.argument("file", type=click.Path(dir_okay=False))
    @plumbing_options("Say on stderr which file and tool run.")
    @click.pass_obj
    def yaml_command(stdin: PreRead | None, /, file: str, **options: t.Any) -> None:
        """Run the tool defined in FILE with the arguments on stdin, and print its result.

        A tool file that starts with '#! /usr/bin/env cogtools-yaml' and has its execute bit set
        runs itself: './facepalm.yaml < args.json'. Arguments, checks and errors are those of
        cogtools-call(1).
        """
        execute(stdin or PreRead(None), file, Options(**options))

    return yaml_command


def main(argv: t.Sequence[str] | None = None) -> int:
    return run_plumbing(argv, PROG, execute, command)
