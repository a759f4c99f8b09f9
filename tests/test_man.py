"""The man pages: one per console script, lint-clean, and in step with the commands."""

from __future__ import annotations

import re
import shutil
import subprocess

import click
import pytest

from cogtools import __version__
from cogtools.cli import call, discover, porcelain, yaml_cmd
from cogtools.errors import ERROR_TABLE

from .conftest import REPO

MAN = REPO / "man"
COMMANDS = {
    "cogtools": porcelain.group,
    "cogtools-discover": discover.command,
    "cogtools-call": call.command(),
    "cogtools-yaml": yaml_cmd.command(),
}


def page(name: str) -> str:
    return (MAN / f"{name}.1").read_text(encoding="utf-8")


def roff(option: str) -> str:
    return option.replace("-", "\\-")


def options(command: click.Command) -> set[str]:
    params = command.get_params(click.Context(command))
    return {o for p in params if isinstance(p, click.Option) for o in [*p.opts, *p.secondary_opts]}


#: Built-in subcommands documented in cogtools(1) itself; the plumbing aliases have pages of their own.
OWN_PAGE = {"discover", "call"}


def page_options(name: str) -> set[str]:
    """The options a page must document: the command's, and for cogtools(1) its built-ins'."""
    found = options(COMMANDS[name])
    if name == "cogtools":
        for sub, command in porcelain.group.commands.items():
            if sub not in OWN_PAGE:
                found |= options(command)
    return found


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_man_page_options_match_the_command(name: str) -> None:
    text = page(name)
    assert f'"cogtools {__version__}"' in text.splitlines()[0]
    for option in page_options(name):
        assert roff(option) in text, f"{option} is missing from man/{name}.1"
    documented = set(re.findall(r"\\-\\-[a-z](?:[a-z]|\\-)*", text))
    assert documented == {roff(o) for o in page_options(name) if o.startswith("--")}


def test_builtin_subcommands_are_documented() -> None:
    text = page("cogtools")
    for sub in porcelain.group.commands:
        assert re.search(rf"^\.B[IR]? {sub}\b", text, re.MULTILINE), sub


def test_error_table_matches_the_code() -> None:
    text = page("cogtools-call")
    table = re.findall(r"^\.B (\d+) ([A-Z_]+)\n(.+)$", text, re.MULTILINE)
    assert [(c, int(s), m) for s, c, m in table] == list(ERROR_TABLE)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_pages_lint_clean(name: str) -> None:
    if shutil.which("groff") is None:
        pytest.skip("groff is not installed")
    proc = subprocess.run(["groff", "-ww", "-man", "-z", str(MAN / f"{name}.1")], capture_output=True, text=True)
    assert (proc.returncode, proc.stderr) == (0, "")


def test_every_lint_rule_is_documented() -> None:
    from cogtools.lint import RULES

    text = page("cogtools")
    for rule, (severity, _) in RULES.items():
        assert f".B {rule}\n{severity}: " in text, rule
