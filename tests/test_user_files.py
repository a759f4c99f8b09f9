"""The files cogtools writes in the user's own directories are never written through a symbolic
link (DESIGN §11, last bullet; issue 41): Gemini CLI's Policy Engine rules
(``~/.gemini/policies/cogtools-*.toml``, which Gemini CLI does not load when it is a link), the
pins, and an MCP client's user file. A link there is replaced by the file cogtools owns (rules,
pins: what it led to is left as it was), or, for a file of a person's that holds more than
cogtools' entry, refused before anything is written.

sync and init run in process (``cli``); ``test_an_mcp_clients_user_file_is_not_written_through_a_link``
keeps the real ``cogtools`` process (its exit status), ``test_the_pins_are_never_written_through_a_link``
the real ``cogtools-call``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cogtools.cli import porcelain
from cogtools.clients.gemini.rules import policy_files, read_rules

from .conftest import Cli, run_script, write
from .test_cli import STATUS
from .test_gemini_policy import rules_file

LOOK = "description: Look around.\nrisk_level: low\nside_effects: [filesystem_read]\nimplementation: looked\n"
INIT = ("init", "--non-interactive", "--defaults")


def home() -> Path:
    return Path(os.environ["HOME"])


@pytest.mark.parametrize("where", ["home", "project"])
def test_the_rules_file_is_never_written_through_a_link(project: Path, where: str, cli: Cli) -> None:
    """Found by an attacker's pass: sync overwrote what the link led to, and Gemini CLI, which
    loads no linked .toml, applied none of the rules."""
    write(project / "tools" / "look.yaml", LOOK)
    write(project / ".gemini" / "settings.json", "{}\n")
    elsewhere = write((home() / "notes" if where == "home" else project) / "mine.toml", "# a file of mine\n")
    path = rules_file(project)
    path.parent.mkdir(parents=True)
    path.symlink_to(elsewhere)
    synced = cli(porcelain.main, "sync", "--yes")
    assert synced.status == 0, synced
    assert elsewhere.read_text() == "# a file of mine\n"  # what the link led to is as it was
    assert not path.is_symlink() and path.is_file()
    assert policy_files(path.parent) == [path]  # as Gemini CLI picks the files it loads
    assert [rule.tool for rule in read_rules(path)] == ["discovered_tool_look", "discovered_tool_cogtools_problems"]
    assert f"replaced the symbolic link {path} (Policy Engine rules" in synced.stdout, synced.stdout
    assert "Gemini CLI loads no policy file that is one" in synced.stdout
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    again = cli(porcelain.main, "sync", "--yes")
    assert f"unchanged {path}" in again.stdout, again


def test_a_linked_rules_file_holding_the_same_rules_is_replaced_all_the_same(project: Path, cli: Cli) -> None:
    """Its text is what sync would write, but Gemini CLI does not load it: it is not unchanged."""
    write(project / "tools" / "look.yaml", LOOK)
    write(project / ".gemini" / "settings.json", "{}\n")
    assert cli(porcelain.main, "sync", "--yes").status == 0
    path = rules_file(project)
    kept = home() / "kept.toml"
    path.rename(kept)
    path.symlink_to(kept)
    synced = cli(porcelain.main, "sync", "--yes")
    assert synced.status == 0 and not path.is_symlink() and policy_files(path.parent) == [path], synced
    assert f"replaced the symbolic link {path}" in synced.stdout


def test_init_replaces_a_linked_rules_file_too(isolated: Path, cli: Cli) -> None:
    elsewhere = write(home() / "notes" / "mine.toml", "# a file of mine\n")
    path = rules_file(isolated)
    path.parent.mkdir(parents=True)
    path.symlink_to(elsewhere)
    done = cli(porcelain.main, *INIT)
    assert done.status == 0, done
    assert elsewhere.read_text() == "# a file of mine\n" and not path.is_symlink()
    assert f"replaced the symbolic link {path} (Policy Engine rules" in done.stdout, done.stdout


def test_the_pins_are_never_written_through_a_link(project: Path, cli: Cli) -> None:
    write(project / "tools" / "look.yaml", LOOK)
    write(project / ".gemini" / "settings.json", "{}\n")
    assert cli(porcelain.main, "sync", "--yes").status == 0
    (pins,) = (home() / ".local" / "state" / "cogtools" / "pins").glob("*.json")
    elsewhere = write(home() / "notes" / "pins.json", "a file of mine\n")
    elsewhere.chmod(0o600)
    pins.unlink()
    pins.symlink_to(elsewhere)
    assert cli(porcelain.main, "sync", "--yes").status == 0
    assert elsewhere.read_text() == "a file of mine\n"
    assert not pins.is_symlink() and "look" in json.loads(pins.read_text())["pins"]
    assert run_script("cogtools-call", "look", stdin="{}", cwd=project).stdout == "looked"


def test_an_mcp_clients_user_file_is_not_written_through_a_link(isolated: Path) -> None:
    """A user's file of a client (here Windsurf's) holds the person's other servers: a link
    there is neither written through nor replaced; init refuses before it writes anything."""
    elsewhere = write(home() / "dotfiles" / "windsurf.json", '{"mcpServers": {}}\n')
    path = home() / ".codeium" / "windsurf" / "mcp_config.json"
    path.parent.mkdir(parents=True)
    path.symlink_to(elsewhere)
    done = run_script("cogtools", *INIT, "--mcp", "windsurf", cwd=isolated)
    assert done.status == STATUS["CONFIG_INVALID"], done
    assert f"{path} is a symbolic link" in done.stderr and "cogtools mcp --print-config windsurf" in done.stderr
    assert elsewhere.read_text() == '{"mcpServers": {}}\n' and path.is_symlink()
    assert not (isolated / ".cogtoolrc.yaml").exists()  # checked before the first write
