"""``cogtools SUB [ARGS]``: the porcelain, git style.

Built-in subcommands run in process. Any other SUB runs the executable ``cogtools-SUB`` found on
PATH, with cogtools' own directory searched first, its arguments passed untouched; on POSIX the
process is replaced (``execv``), so the exit status and signals are the subcommand's own.
"""

from __future__ import annotations

import os
import sys
import typing as t
from pathlib import Path

import click

from cogtools.cli.commands import (
    BUILTINS,
    GROUP_HELP,
    HELP_SHORT_HELP,
    PROG,
    external_commands,
    external_short_help,
    find_external,
)
from cogtools.cli.common import CONTEXT_SETTINGS, run, version_option


class _Commands(t.MutableMapping[str, click.Command]):
    """The group's commands, each built-in imported when first looked up."""

    def __init__(self) -> None:
        self._loaded: dict[str, click.Command] = {}

    def __getitem__(self, name: str) -> click.Command:
        if name not in self._loaded:
            if name not in BUILTINS:
                raise KeyError(name)
            import importlib

            module, attribute, _ = BUILTINS[name]
            found = getattr(importlib.import_module(module), attribute)
            self._loaded[name] = found if isinstance(found, click.Command) else found()
        return self._loaded[name]

    def __setitem__(self, name: str, command: click.Command) -> None:
        self._loaded[name] = command

    def __delitem__(self, name: str) -> None:
        raise TypeError("built-in commands cannot be removed")

    def __iter__(self) -> t.Iterator[str]:
        return iter(sorted({*BUILTINS, *self._loaded}))

    def __len__(self) -> int:
        return len({*BUILTINS, *self._loaded})


def _exec(path: str, args: t.Sequence[str]) -> int:
    sys.stdout.flush()
    sys.stderr.flush()
    argv = [Path(path).name, *args]
    if os.name == "posix":
        os.execv(path, argv)
    import subprocess

    return subprocess.call([path, *args])


def external_command(sub: str, path: str) -> click.Command:
    def callback(args: tuple[str, ...]) -> int:
        return _exec(path, args)

    return click.Command(
        sub,
        callback=callback,
        params=[click.Argument(["args"], nargs=-1, type=click.UNPROCESSED)],
        context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False, "help_option_names": []},
        add_help_option=False,
        short_help=external_short_help(path),
        help=f"Runs {path}.",
    )


class Porcelain(click.Group):
    """A group whose commands are the built-ins plus every ``cogtools-SUB`` on the search path."""

    def __init__(self, *args: t.Any, **kwargs: t.Any) -> None:
        super().__init__(*args, **kwargs)
        self.commands = _Commands()

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands and their short help, without importing a built-in that is not loaded."""
        rows = []
        names = self.list_commands(ctx)
        for name in names:
            if name in BUILTINS and name not in t.cast(_Commands, self.commands)._loaded:
                rows.append((name, BUILTINS[name][2]))
                continue
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(formatter.width - 6 - max(map(len, names)))))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(external_commands()))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            return command
        path = find_external(cmd_name)
        return external_command(cmd_name, path) if path else None

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0]
        command = self.get_command(ctx, name)
        if command is None:
            raise click.UsageError(unknown_message(name, self.list_commands(ctx)), ctx)
        return name, command, args[1:]


def unknown_message(name: str, known: list[str]) -> str:
    from cogtools.core.errors import close_names, did_you_mean

    message = f"{name!r} is not a cogtools command"
    near = close_names(name, known, n=2)
    message += f"; {did_you_mean(near)}" if near else "."
    return message + f" Commands: {', '.join(known)}."


@click.group(PROG, cls=Porcelain, context_settings=CONTEXT_SETTINGS, help=GROUP_HELP)
@version_option()
def group() -> None:
    """The porcelain; its help is GROUP_HELP (cogtools.cli.commands), which --help prints without
    importing click."""


#: Built-in commands that are the plumbing under another name, and share its man page; every other
#: built-in has a page made from its click command (cogtools.cli.manpage).
OWN_MAN_PAGES = {"discover": "cogtools-discover", "call": "cogtools-call", "yaml": "cogtools-yaml"}


#: Help topics that are not commands: the file formats, in section 5 of the manual.
TOPICS = {
    "tool": "cogtools-tool",
    "cogtools-tool": "cogtools-tool",
    "cogtoolrc": "cogtoolrc",
    "config-file": "cogtoolrc",
}


def man_page(page: str, section: int = 1) -> Path | None:
    """The installed man page ``page``(``section``): in the installation's share/man, or in the
    source checkout an editable install runs from."""
    import cogtools

    for directory in (
        Path(sys.prefix) / "share" / "man" / f"man{section}",
        Path(cogtools.__file__).parent.parent / "man",
    ):
        candidate = directory / f"{page}.{section}"
        if candidate.is_file():
            return candidate
    return None


def _complete_help(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[t.Any]:
    """The commands (built-in and external) and the topics ``cogtools help`` knows."""
    from click.shell_completion import CompletionItem

    parent = ctx.parent
    assert parent is not None
    porcelain = t.cast(Porcelain, parent.command)
    items = []
    for name in porcelain.list_commands(parent):
        command = porcelain.get_command(parent, name)
        items.append(CompletionItem(name, help=command.get_short_help_str() if command else None))
    items += [
        CompletionItem(topic, help=f"the {page}(5) page") for topic, page in TOPICS.items() if topic != "cogtools-tool"
    ]
    return [item for item in items if item.value.startswith(incomplete)]


@group.command("help", context_settings=CONTEXT_SETTINGS, short_help=HELP_SHORT_HELP)
@click.argument("sub", required=False, shell_complete=_complete_help)
@click.pass_context
@version_option()
def help_command(ctx: click.Context, sub: str | None) -> int:
    """Without SUB, list every command, as --help does: the built-ins and the external
    'cogtools-SUB' commands found on PATH and in the project's node_modules/.bin. With SUB, show
    the manual page of the command SUB when man(1) is installed, and its --help text otherwise; an
    external command shows its own --help. 'cogtools help cogtools' shows cogtools(1). SUB may
    also be a file format: 'tool' shows cogtools-tool(5), the tool definition format, and
    'cogtoolrc' (or 'config-file') shows cogtoolrc(5), the configuration file."""
    import shutil

    parent = ctx.parent
    assert parent is not None
    porcelain = t.cast(Porcelain, parent.command)
    if sub in TOPICS:
        return _show_topic(TOPICS[sub])
    if sub is None:  # as git help does: the commands, the installed ones with them
        click.echo(parent.get_help())
        click.echo(f"\nSee '{PROG} help SUB' for a command's manual, and '{PROG} help {PROG}' for {PROG}(1).")
        return 0
    command = parent.command if sub == PROG else porcelain.get_command(parent, sub)
    if command is None:
        known = porcelain.list_commands(parent)
        raise click.UsageError(
            unknown_message(sub, known).replace(
                " Commands:", f" Topics: {', '.join(sorted(set(TOPICS) - {'cogtools-tool'}))}. Commands:"
            )
        )
    if not command.add_help_option:  # an external command knows its own help
        return _exec(t.cast(str, find_external(sub)), ["--help"])
    page = man_page(OWN_MAN_PAGES.get(sub, f"{PROG}-{sub}") if sub != PROG else PROG)
    man = shutil.which("man")
    if page is not None and man is not None:
        return _exec(man, ["-l", str(page)])
    if sub == PROG:
        click.echo(parent.get_help())
    else:
        with click.Context(command, info_name=sub, parent=parent) as sub_ctx:
            click.echo(command.get_help(sub_ctx))
    return 0


def _show_topic(page: str) -> int:
    """A section-5 page: through man(1), else its text as a plain file."""
    import shutil

    path = man_page(page, 5)
    if path is None:
        raise click.UsageError(f"the page {page}(5) is not installed with this cogtools")
    man = shutil.which("man")
    if man is not None:
        return _exec(man, ["-l", str(path)])
    click.echo(f"{page}(5) is at {path} (man(1) is not installed to show it)")
    return 0


def main(argv: t.Sequence[str] | None = None) -> int:
    return run(group, argv, PROG)
