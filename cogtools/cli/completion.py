"""Shell completion: ``cogtools completion SHELL`` prints the scripts, and the commands complete
tool names (``cogtools-call``, ``cogtools call``, ``cogtools which``) and subcommands, built-in
and external (``cogtools``), through click's completion protocol."""

from __future__ import annotations

import click
from click.shell_completion import get_completion_class

from cogtools.cli import call, discover, porcelain, yaml_cmd
from cogtools.cli.boundary import write_stdout
from cogtools.cli.common import CONTEXT_SETTINGS, version_option

SHELLS = ("bash", "zsh", "fish")
PROGRAMS = ("cogtools", "cogtools-discover", "cogtools-call", "cogtools-yaml")


def complete_var(program: str) -> str:
    """The environment variable through which a shell asks ``program`` for completions."""
    return f"_{program.replace('-', '_').upper()}_COMPLETE"


def script(shell: str, program: str) -> str:

    commands: dict[str, click.Command] = {
        "cogtools": porcelain.group,
        "cogtools-discover": discover.command,
        "cogtools-call": call.command(),
        "cogtools-yaml": yaml_cmd.command(),
    }
    cls = get_completion_class(shell)
    assert cls is not None
    source = cls(commands[program], {}, program, complete_var(program)).source()
    if shell == "fish":
        # click's fish script splits "plain,NAME\tHELP" at every comma, so a description with a
        # comma in it is cut short there; split at the first comma only.
        fixed = source.replace('(string split "," $completion)', '(string split -m 1 "," $completion)')
        assert fixed != source, "click's fish completion script changed: check the comma split"
        source = fixed
    return source


@click.command("completion", context_settings=CONTEXT_SETTINGS, short_help="Print the shell completion script.")
@click.argument("shell", type=click.Choice(SHELLS))
@version_option()
def command(shell: str) -> None:
    """Print the completion script of SHELL for cogtools and its plumbing commands.

    \b
    bash:  eval "$(cogtools completion bash)"    (in ~/.bashrc)
    zsh:   eval "$(cogtools completion zsh)"     (in ~/.zshrc, after compinit)
    fish:  cogtools completion fish > ~/.config/fish/completions/cogtools.fish
    """
    write_stdout("\n".join(script(shell, program) for program in PROGRAMS))
