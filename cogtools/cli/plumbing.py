"""What ``cogtools-call`` and ``cogtools-yaml`` share: their options, declared once, and their
entry point.

Each option is declared here once (:data:`OPTIONS`). Two parsers read the declaration: the plain
one below, which runs the common command line (``[--yaml] [-v] [--system-env] [--dry-run]
[--role ROLE] ARG``)
without importing click (a fifth of a call's time), and click
(:func:`cogtools.cli.common.plumbing_options`), which answers everything else (help, the
version, a usage error). Both give the command one :class:`Options` record, whole, whichever
way it was reached (``cogtools-call``, ``cogtools call``, ``python -m cogtools call``), so that no
option can be dropped on one of the ways.
"""

from __future__ import annotations

import sys
import typing as t

from cogtools.cli.boundary import PreRead, guard, pre_read_stdin, warn
from cogtools.trust.policy import ROLES

if t.TYPE_CHECKING:
    from cogtools.core.model import Tool
    from cogtools.load.project import Project
    from cogtools.run import RunContext


class Options(t.NamedTuple):
    """The options of a plumbing command."""

    #: Read the arguments from stdin as YAML, not JSON.
    as_yaml: bool = False
    #: Say on stderr how the tool was found and what it sees.
    verbose: bool = False
    #: Let the process environment win over the project's .env.
    system_env: bool = False
    #: Check everything, then print what would run instead of running it.
    dry_run: bool = False
    #: The role to call as (None: as configured), as COGTOOLS_ROLE says it: a person's own word.
    role: str | None = None
    #: Write the call to this audit log too (besides the user's ``audit.log`` setting).
    audit_log: str | None = None


class Option(t.NamedTuple):
    """One option: its flags, the field of :class:`Options` it sets, and its help (None: each
    command says its own); on/off, unless it takes one of ``choices``."""

    flags: tuple[str, ...]
    field: str
    help: str | None
    choices: tuple[str, ...] = ()
    #: A value it takes, free rather than one of ``choices`` (its metavar), and one for a test.
    metavar: str | None = None
    example: str | None = None


OPTIONS: tuple[Option, ...] = (
    Option(("--yaml",), "as_yaml", "Read the arguments from stdin as YAML, not JSON."),
    Option(("-v", "--verbose"), "verbose", None),
    Option(
        ("--system-env",),
        "system_env",
        "Let the process environment win over the project's .env (as env_priority: system does).",
    ),
    Option(
        ("--dry-run",),
        "dry_run",
        "Check everything, then print what would run (argv or request, environment names, directory, limits)"
        " as JSON instead of running it.",
    ),
    Option(
        ("--role",),
        "role",
        "Call as this role, as COGTOOLS_ROLE=ROLE would (your own call: an agent is given the configured"
        " role, policy.role).",
        ROLES,
    ),
    Option(
        ("--audit-log",),
        "audit_log",
        "Append a line for the call to the audit log FILE (a hash-chained JSON line: cogtools audit), besides"
        " the one your configuration's audit.log names.",
        metavar="FILE",
        example="audit.jsonl",
    ),
)

#: Each on/off flag of the plain command line, and the field it sets.
FLAGS: dict[str, str] = {
    flag: option.field for option in OPTIONS if not option.choices and not option.metavar for flag in option.flags
}
#: Each flag that takes a value, and its option.
VALUED: dict[str, Option] = {
    flag: option for option in OPTIONS if option.choices or option.metavar for flag in option.flags
}

if t.TYPE_CHECKING:
    #: A plumbing command's body: stdin as read, its one argument (NAME or FILE), its options.
    Execute = t.Callable[[PreRead, str, Options], None]


def run_plumbing(
    argv: t.Sequence[str] | None,
    prog: str,
    execute: Execute,
    click_command: t.Callable[[], t.Any],
    stdin: PreRead | None = None,
) -> int:
    """The entry point of ``cogtools-call`` and ``cogtools-yaml``.

    Stdin is drained first (unless ``stdin`` is what was read of it already). A plain command line
    runs ``execute(stdin, ARG, options)`` without importing click; anything else goes to the click
    command, which gives help, the version or a usage error, or calls ``execute`` the same way.
    Errors are JSON on stdout in both cases.
    """
    stdin = pre_read_stdin() if stdin is None else stdin
    args = list(sys.argv[1:] if argv is None else argv)
    plain = parse_plain(args)
    if plain is not None:
        positional, options = plain
        return guard(lambda: execute(stdin, positional, options), prog, json_errors=True)
    from cogtools.cli.common import run

    return run(click_command(), args, prog, json_errors=True, obj=stdin)


def environ_for(options: Options) -> t.Mapping[str, str]:
    """The environment a call is judged and run in: this process's, with the role ``options``
    names where the policy reads a person's role from (``COGTOOLS_ROLE``)."""
    import os

    return os.environ if options.role is None else {**os.environ, "COGTOOLS_ROLE": options.role}


def start_audit(prog: str, options: Options, project: Project | None) -> None:
    """Turn auditing on for this call when the user's configuration (``audit.log``, never a
    project's) or ``--audit-log`` names a log (:func:`cogtools.services.audit.begin`)."""
    import os

    if project is not None:
        trusted: t.Mapping[str, t.Any] = project.config.trusted
    else:  # (the project's configuration does not load: the user's own file still says)
        from cogtools.services.audit import users_own

        trusted = users_own(os.environ)
    if "audit" not in trusted and options.audit_log is None:
        return  # (nothing of the audit log is imported)

    from cogtools import __version__
    from cogtools.services import audit

    taken = f"{prog} prints the call's result on standard output"
    audit.begin(trusted, options.audit_log, {"name": prog, "version": __version__}, os.environ, taken)


def parse_plain(argv: t.Sequence[str]) -> tuple[str, Options] | None:
    """``argv`` as one positional argument and on/off options, or None when it is anything else:
    then click parses it, and gives help or a usage error.

    Only command lines that click reads the same way are accepted (tests/test_cli.py checks it).
    """
    given: dict[str, t.Any] = {}
    positional: str | None = None
    options_done = False
    values = iter(argv)
    for arg in values:
        if not options_done and arg == "--":
            options_done = True
        elif not options_done and arg.startswith("-") and arg != "-":
            flag, equals, value = arg.partition("=")
            if flag in VALUED:
                value = value if equals else next(values, "")
                if value not in VALUED[flag].choices and not (VALUED[flag].metavar and value):
                    return None  # click says what is accepted
                given[VALUED[flag].field] = value
                continue
            if arg not in FLAGS:
                return None
            given[FLAGS[arg]] = True
        elif positional is None:
            positional = arg
        else:
            return None
    return None if positional is None else (positional, Options(**given))


def plumbing_options(verbose_help: str) -> t.Callable[[t.Callable[..., t.Any]], t.Callable[..., t.Any]]:
    """The options of cogtools-call and cogtools-yaml, made from their one declaration
    (:data:`OPTIONS`; ``verbose_help`` is the command's own word for
    -v), and --version."""
    import click

    from cogtools.cli.common import version_option

    def decorate(f: t.Callable[..., t.Any]) -> t.Callable[..., t.Any]:
        f = version_option()(f)
        for option in reversed(OPTIONS):
            if option.choices:
                f = click.option(*option.flags, option.field, type=click.Choice(option.choices), help=option.help)(f)
            elif option.metavar:
                f = click.option(*option.flags, option.field, metavar=option.metavar, help=option.help)(f)
            else:
                f = click.option(*option.flags, option.field, is_flag=True, help=option.help or verbose_help)(f)
        return f

    return decorate


def report_context(prog: str, tool: Tool, context: RunContext) -> None:
    """For ``-v``: which environment variables the tool sees and which source wins (names only:
    values are never printed)."""
    if tool.environment:
        first = "process environment" if context.env_priority == "system" else "project .env"
        warn(prog, f"environment: {', '.join(tool.environment)} ({first} first)")
