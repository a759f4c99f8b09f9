"""Running a click command inside the boundary: click's own errors become ``USAGE``."""

from __future__ import annotations

import sys
import typing as t

import click

from cogtools import __version__
from cogtools.cli.boundary import guard
from cogtools.core.errors import UsageError

if t.TYPE_CHECKING:
    from cogtools.load.catalog import Catalog

CONTEXT_SETTINGS: dict[str, t.Any] = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def version_option() -> t.Callable[[t.Callable[..., t.Any]], t.Callable[..., t.Any]]:
    """-V/--version: print the command's own name (``cogtools list``, ``cogtools-call``) and the
    version, and exit."""

    def show(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
        if value and not ctx.resilient_parsing:
            click.echo(f"{ctx.command_path} {__version__}")
            ctx.exit()

    return click.option(
        "-V",
        "--version",
        is_flag=True,
        expose_value=False,
        is_eager=True,
        callback=show,
        help="Show the version and exit.",
    )


def format_option(help: str) -> t.Callable[[t.Callable[..., t.Any]], t.Callable[..., t.Any]]:
    """--format text|json (default text), the ``fmt`` parameter of a command whose output a
    person or a program reads; ``help`` says what each gets."""
    return click.option(
        "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True, help=help
    )


def policy_options(f: t.Callable[..., t.Any]) -> t.Callable[..., t.Any]:
    """--toolset, --role, --category and --max-risk: which tools discovery and listings show
    (defaults from the configuration's ``policy``)."""
    from cogtools.trust.policy import RISKS, ROLES, TOOLSETS

    options = [
        click.option(
            "--toolset",
            type=click.Choice(TOOLSETS),
            help="Show only diagnostic tools (low risk, read-only, no notice, no idle check) or only action tools.",
        ),
        click.option(
            "--role",
            type=click.Choice(ROLES),
            help="Show what this role may use (default: policy.role, COGTOOLS_ROLE, else ai_agent).",
        ),
        click.option("--category", help="Show only tools of this category."),
        click.option("--max-risk", type=click.Choice(RISKS), help="Show only tools of at most this risk level."),
    ]
    for option in reversed(options):
        f = option(f)
    return f


def run(
    command: click.Command,
    argv: t.Sequence[str] | None,
    prog: str,
    *,
    json_errors: bool = False,
    obj: t.Any = None,
) -> int:
    """Run ``command`` with ``argv`` (default: ``sys.argv[1:]``) and return the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)

    def body() -> int:
        try:
            result = command.main(args=args, prog_name=prog, standalone_mode=False, obj=obj)
        except click.exceptions.NoArgsIsHelpError as e:
            click.echo(e.ctx.get_help(), err=True)
            return UsageError.exit_status
        except click.UsageError as e:
            where = e.ctx.command_path if e.ctx is not None else prog  # the subcommand, if it was one
            raise UsageError(f"{e.format_message().rstrip('.')} (try '{where} --help')") from e
        except click.ClickException as e:
            raise UsageError(e.format_message()) from e
        except click.Abort:
            raise KeyboardInterrupt from None
        return result if isinstance(result, int) else 0

    return guard(body, prog, json_errors=json_errors)


def project_catalog(prog: str, *, required: bool = False, environ: t.Mapping[str, str] | None = None) -> Catalog:
    """The catalog of the current directory's project. Where no marker made a project (no
    ``.cogtoolrc.yaml``, ``.gemini/`` or ``.git`` here or above) and no tool was found, say so on
    stderr and how to make one; with ``required`` (a command that would write files), refuse."""
    from cogtools.cli.boundary import warn
    from cogtools.load.catalog import load_catalog

    catalog = load_catalog(environ=environ)
    if catalog.project.reason == "cwd" and not catalog.names() and not catalog.problems:
        message = (
            f"no cogtools project here: no .cogtoolrc.yaml, .gemini/ or .git in {catalog.project.root} or above;"
            " `cogtools init` makes one"
        )
        if required:
            raise UsageError(message)
        warn(prog, message)
    return catalog


class ClientChoice(click.Choice):  # type: ignore[type-arg]
    """An MCP client's name (``CLIENTS``), or one of its aliases, taken as the client's own."""

    def __init__(self) -> None:
        from cogtools.clients.mcp_clients import CLIENTS

        super().__init__(sorted(CLIENTS))

    def convert(self, value: t.Any, param: click.Parameter | None, ctx: click.Context | None) -> t.Any:
        from cogtools.clients.mcp_clients import client_named

        named = client_named(value) if isinstance(value, str) else None
        return super().convert(named or value, param, ctx)

    def shell_complete(self, ctx: click.Context, param: click.Parameter, incomplete: str) -> list[t.Any]:
        """The clients' names, then their aliases (each said as the client it names)."""
        from click.shell_completion import CompletionItem

        from cogtools.clients.mcp_clients import ALIASES

        items = list(super().shell_complete(ctx, param, incomplete))
        typed = incomplete.lower()
        return items + [CompletionItem(a, help=client) for a, client in ALIASES.items() if a.startswith(typed)]


def client_aliases() -> str:
    """What --help says of the aliases: ``claude (claude-code), ...``."""
    from cogtools.clients.mcp_clients import ALIASES

    return ", ".join(f"{alias} ({client})" for alias, client in ALIASES.items())
