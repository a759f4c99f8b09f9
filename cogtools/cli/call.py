"""``cogtools-call NAME``: run a tool of this directory's project with arguments from stdin.

A warm call of a template tool is answered from its record (:mod:`cogtools.cli.warm`), and this
module imports nothing else before it knows whether it is: its imports are in its functions.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import typing as t

    import click

    from cogtools.cli.boundary import PreRead
    from cogtools.cli.plumbing import Options
    from cogtools.core.model import Tool
    from cogtools.load.catalog import Catalog

PROG = "cogtools-call"


def execute(stdin: PreRead, name: str, options: Options) -> None:
    from cogtools.cli import recording
    from cogtools.cli.boundary import warn
    from cogtools.cli.plumbing import environ_for, report_context, start_audit
    from cogtools.cli.streams import write_result
    from cogtools.load.loading import load_project
    from cogtools.services.invoke import invoke, parse_arguments, resolve

    data, truncated = stdin.get()

    def arguments() -> dict[str, t.Any]:
        return parse_arguments(data, as_yaml=options.as_yaml, truncated=truncated, tool=name)

    # A call needs its one tool (with -v, the whole catalog, to explain the choice).
    loaded = load_project(environ=environ_for(options), only=None if options.verbose else name)
    start_audit(PROG, options, loaded.catalog.project if loaded.catalog is not None else None)
    if options.verbose and loaded.catalog is not None:
        explain(loaded.catalog, name)
    target = resolve(loaded, name)
    for warning in target.warnings:
        warn(PROG, f"warning: {warning}")
    result = invoke(
        target,
        arguments,
        system_env=options.system_env,
        observe=(lambda tool, context: report_context(PROG, tool, context)) if options.verbose else None,
        dry_run=options.dry_run,
    )
    write_result(result, None if options.dry_run else target.tool.output_media_type)
    recording.noted(target.tool, target.project, target.also, data, result)


def explain(catalog: Catalog, name: str) -> None:
    """How ``name`` resolves: the project, its sources, the winner and the shadowed."""
    from cogtools.cli.boundary import warn

    project = catalog.project
    warn(PROG, f"project root: {project.root} (by {project.reason})")
    for source in project.sources:
        kind = "recursive" if source.recursive else "top level only"
        warn(PROG, f"source {source.name}: {source.directory} ({kind})")
    from cogtools.core.model import RESERVED_NAMES
    from cogtools.trust.policy import Policy

    if name in RESERVED_NAMES:
        warn(PROG, f"{name}: a tool built into cogtools")
        return
    definitions = catalog.definitions(name)
    for found in definitions:
        if found.status == "used":
            tool = catalog.tools[name]
            warn(PROG, f"{name}: {found.path} (source {found.source}, format {tool.origin.format})")
            hidden = Policy.of(catalog.project).hides(tool)
            if hidden is not None:
                warn(PROG, f"{name}: hidden from this caller by the policy ({hidden}): not found by a call")
            warn(PROG, f"{name}: {_standing(tool, catalog)}")
            from cogtools.trust.policy import confined

            warn(PROG, f"{name}: {confined(tool, catalog.project).how}")
        elif found.status == "shadowed":
            warn(PROG, f"{name}: also in {found.path} (source {found.source}), shadowed: {found.why}")
        else:
            warn(PROG, f"{name}: {found.path} is broken: {found.why}")
    if not any(found.status == "used" for found in definitions):
        warn(PROG, f"{name}: not among the {len(catalog.tools)} tools found")


def command() -> click.Command:
    """The click command (made once)."""
    if not _COMMAND:
        _COMMAND.append(_command())
    return _COMMAND[0]


_COMMAND: list[click.Command] = []


def _command() -> click.Command:
    import click

    from cogtools.cli.boundary import PreRead
    from cogtools.cli.common import CONTEXT_SETTINGS
    from cogtools.cli.names import tool_name_argument
    from cogtools.cli.plumbing import Options, plumbing_options

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
    def call_command(stdin: PreRead | None, /, name: str, **options: t.Any) -> None:
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
        execute(stdin or PreRead(None), name, Options(**options))

    return call_command


def main(argv: t.Sequence[str] | None = None) -> int:
    """The entry point: the answer of the call's record when it has one, else the whole way
    (which leaves a record for the next, when it can)."""
    import sys

    from cogtools.cli import warm

    args = list(sys.argv[1:] if argv is None else argv)
    status, data, truncated = warm.answer(PROG, args)
    if status is not None:
        return status
    from cogtools.cli import recording
    from cogtools.cli.boundary import PreRead
    from cogtools.cli.plumbing import run_plumbing

    recorder = recording.recording(args)
    status = 1
    try:
        status = run_plumbing(args, PROG, execute, command, None if data is None else PreRead(data, truncated))
    finally:
        if recorder is not None:
            recording.finish(recorder, status)
    return status


def _standing(tool: Tool, catalog: Catalog) -> str:
    """How a call of ``tool`` stands with the pins, in words."""
    from cogtools.trust import pins

    refusal = pins.refusals([tool], catalog.project).get(tool.name)
    if refusal is not None:
        return f"refused: it runs without confirmation, but {refusal.details.get('change')}; `cogtools sync` reviews it"
    if tool.name in pins.load(catalog.project):
        return "runs without confirmation, pinned as a person allowed it"
    return "not allowed to run without confirmation here (Gemini CLI asks first)"
