"""The man pages: one per console script and built-in subcommand, section 5 for the formats;
lint-clean, installed, in step with the commands, and with examples that run."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import typing as t
from pathlib import Path

import click
import pytest

from cogtools import __version__
from cogtools.cli import call, discover, manpage, porcelain, yaml_cmd
from cogtools.core.errors import ERROR_TABLE
from cogtools.schema.shipped import load_schema

from .conftest import BIN, REPO

MAN = REPO / "man"
#: The hand-written pages and their commands.
HAND_WRITTEN = {
    "cogtools": porcelain.group,
    "cogtools-discover": discover.command,
    "cogtools-call": call.command(),
    "cogtools-yaml": yaml_cmd.command(),
}
GENERATED = {
    f"cogtools-{sub}": command
    for sub, command in porcelain.group.commands.items()
    if sub not in porcelain.OWN_MAN_PAGES
}
SECTION_1 = {**HAND_WRITTEN, **GENERATED}
SECTION_5 = ("cogtools-tool", "cogtoolrc")
SECTIONS = ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "ENVIRONMENT", "FILES", "EXIT STATUS", "EXAMPLES", "SEE ALSO")


def page(name: str, section: int = 1) -> str:
    return (MAN / f"{name}.{section}").read_text(encoding="utf-8")


def roff(option: str) -> str:
    return option.replace("-", "\\-")


def options(command: click.Command) -> set[str]:
    params = command.get_params(click.Context(command, **command.context_settings))
    return {o for p in params if isinstance(p, click.Option) for o in [*p.opts, *p.secondary_opts]}


def test_every_page_is_there_and_no_other() -> None:
    expected = {f"{name}.1" for name in SECTION_1} | {f"{name}.5" for name in SECTION_5}
    assert {p.name for p in MAN.iterdir()} == expected


def test_generated_pages_are_current() -> None:
    """Regenerate with `python -m cogtools.cli.manpage man` when this fails."""
    for name, text in manpage.pages().items():
        assert page(name.removesuffix(".1")) == text, f"man/{name} is stale"


@pytest.mark.parametrize("name", sorted(SECTION_1))
def test_page_options_match_the_command(name: str) -> None:
    text = page(name)
    assert f'"cogtools {__version__}"' in text.splitlines()[0]
    wanted = options(SECTION_1[name])
    for option in wanted:
        assert roff(option) in text, f"{option} is missing from man/{name}.1"
    documented = set(re.findall(r"\\-\\-[a-z](?:[a-z]|\\-)*", text.split(".SH OPTIONS")[1].split(".SH ")[0]))
    assert documented == {roff(o) for o in wanted if o.startswith("--")}


@pytest.mark.parametrize("name", sorted(SECTION_1))
def test_page_has_every_section_and_the_error_table(name: str) -> None:
    text = page(name)
    assert re.findall(r"^\.SH (.+)$", text, re.MULTILINE)[:2] == ["NAME", "SYNOPSIS"]
    for section in SECTIONS:
        assert f"\n.SH {section}\n" in text, f"{section} is missing from man/{name}.1"
    table = re.findall(r"^\.B (\d+) ([A-Z_]+)\n(.+)$", text, re.MULTILINE)
    assert [(c, int(s), m) for s, c, m in table] == list(ERROR_TABLE)


def test_cogtools_page_lists_every_built_in_command() -> None:
    text = page("cogtools")
    for sub in porcelain.group.commands:
        assert re.search(rf"^\.B {sub}\n.+\nSee\n\.BR cogtools-", text, re.MULTILINE), sub
    see_also = text.split(".SH SEE ALSO\n")[1]
    for name in [*SECTION_1, *SECTION_5]:
        if name != "cogtools":
            assert f".BR {name} (" in see_also, name


def linters() -> list[list[str]]:
    found = []
    if shutil.which("mandoc"):
        found.append(["mandoc", "-T", "lint", "-W", "warning"])
    if shutil.which("groff"):
        found.append(["groff", "-ww", "-man", "-z"])
    if not found and os.environ.get("CI"):
        pytest.fail("neither mandoc nor groff is installed")
    return found


@pytest.mark.parametrize("path", sorted(p.name for p in MAN.iterdir()))
def test_pages_lint_clean(path: str) -> None:
    tools = linters()
    if not tools:
        pytest.skip("neither mandoc nor groff is installed")
    for linter in tools:
        proc = subprocess.run([*linter, str(MAN / path)], capture_output=True, text=True)
        assert (proc.returncode, proc.stdout + proc.stderr) == (0, ""), linter[0]


def test_every_lint_rule_is_documented() -> None:
    from cogtools.services.lint import RULES

    text = page("cogtools-lint")
    for rule, (severity, _) in RULES.items():
        assert f".B {rule}\n{severity}: " in text, rule


def schema_keys(name: str) -> dict[str, dict[str, t.Any]]:
    return t.cast("dict[str, dict[str, t.Any]]", load_schema(name)["properties"])


def test_tool_format_page_documents_every_key() -> None:
    from cogtools.run import command, script

    text = page("cogtools-tool", 5)
    for key in [*schema_keys("tool"), "inputSchema", "optional"]:
        assert re.search(rf"^\.B {re.escape(key)}$", text, re.MULTILINE) or f"{key}:" in text, key
    for key in ["argv", *command.SETTINGS, *script.SETTINGS]:
        if key != "interpreter":  # found by cogtools, not set
            assert f".B {key}" in text or f"{key}:" in text, key


def test_config_page_documents_every_key() -> None:
    text = page("cogtoolrc", 5)
    for key, spec in schema_keys("config").items():
        assert re.search(rf"^\.B {re.escape(key)}$", text, re.MULTILINE), key
        for sub in spec.get("properties", {}):
            assert re.search(rf"^\.B {sub}$", text, re.MULTILINE), f"{key}.{sub}"


EXAMPLES = [(sub, line) for sub, extra in manpage.PAGES.items() for _, line in extra.examples]


@pytest.mark.slow
@pytest.mark.parametrize(("sub", "line"), EXAMPLES)
def test_man_page_examples_run(sub: str, line: str, tmp_path: Path) -> None:
    """Each generated page's examples, in a copy of the repository's examples project."""
    work = tmp_path / "project"
    shutil.copytree(REPO / "examples", work / "examples")
    shutil.copy(REPO / ".cogtoolrc.yaml", work)
    env = {**os.environ, "PATH": f"{BIN}:/usr/bin:/bin", "MANPAGER": "cat", "PAGER": "cat", "HOME": str(tmp_path)}
    proc = subprocess.run(
        ["bash", "-c", f"set -e\n{line}"], cwd=work, env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.slow
@pytest.mark.parametrize("sub", sorted(porcelain.group.commands))
def test_help_shows_the_man_page(sub: str, tmp_path: Path) -> None:
    if shutil.which("man") is None:
        pytest.skip("man is not installed")
    env = {**os.environ, "PATH": f"{BIN}:/usr/bin:/bin", "MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "80"}
    proc = subprocess.run([str(BIN / "cogtools"), "help", sub], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    title = porcelain.OWN_MAN_PAGES.get(sub, f"cogtools-{sub}").upper()
    assert proc.stdout.lstrip().startswith(f"{title}(1)")


def test_installed_pages_are_found_by_man() -> None:
    """After `pip install .` into a virtual environment, `man cogtools-call` finds the page."""
    installed = Path(sys.prefix) / "share" / "man"
    if not (installed / "man1" / "cogtools-call.1").is_file():
        if os.environ.get("CI"):
            pytest.fail(f"the man pages are not installed under {installed}")
        pytest.skip("an editable install: pages are not installed")
    for name in SECTION_1:
        assert (installed / "man1" / f"{name}.1").is_file(), name
    for name in SECTION_5:
        assert (installed / "man5" / f"{name}.5").is_file(), name
    if shutil.which("man") is None:
        pytest.skip("man is not installed")
    env = {k: v for k, v in os.environ.items() if k != "MANPATH"}
    env["PATH"] = f"{BIN}:/usr/bin:/bin"
    for name, section in (("cogtools-call", 1), ("cogtools-lint", 1), ("cogtoolrc", 5)):
        proc = subprocess.run(["man", "-w", name], env=env, capture_output=True, text=True)
        assert proc.stdout.strip() == str(installed / f"man{section}" / f"{name}.{section}"), proc.stderr
