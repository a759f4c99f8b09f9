"""What the workspace can do to a person's cogtools (issue 27): the agent writes files in the
workspace, links included, and sets the variables of a project's ``.env``; none of it may make
cogtools write outside the project, run code a person did not allow, echo a file from outside,
or send control sequences to the person's terminal."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from cogtools.cli import porcelain

from .conftest import Cli, write

LOOK = "description: Look around.\nrisk_level: low\nside_effects: [filesystem_read]\nimplementation: looked\n"


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """A directory outside the project, with files a link in the workspace may point at."""
    directory = tmp_path / "victim"
    directory.mkdir()
    for name, text in {
        "allowed.json": '{"mine": "precious"}\n',
        "notes.md": "# my notes\n",
        "settings.json": '{"theme": "dark"}\n',
        "config.yaml": "limits:\n  timeout: 10\n",
    }.items():
        (directory / name).write_text(text)
    return directory


def snapshot(directory: Path) -> dict[str, str]:
    """Every file under ``directory``, by relative path, with the digest of its bytes."""
    return {
        str(path.relative_to(directory)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(directory.rglob("*"))
        if path.is_file()
    }


@pytest.mark.parametrize(
    ("link", "target"),
    [
        (".gemini/cogtools-allowed.json", "allowed.json"),
        ("GEMINI.md", "notes.md"),
        (".gemini/settings.json", "settings.json"),
    ],
)
def test_sync_writes_through_no_link_that_leaves_the_project(
    project: Path, victim: Path, cli: Cli, link: str, target: str
) -> None:
    write(project / "tools" / "look.yaml", LOOK)
    write(project / ".gemini" / "settings.json", "{}\n")
    (project / link).unlink(missing_ok=True)
    (project / link).parent.mkdir(parents=True, exist_ok=True)
    (project / link).symlink_to(victim / target)
    before = snapshot(victim)
    result = cli(porcelain.main, "sync")
    assert result.status != 0
    assert "CONFIG_INVALID" in result.stderr and link in result.stderr and "outside the project" in result.stderr
    assert snapshot(victim) == before
    assert "Traceback" not in result.stderr


def test_sync_writes_through_no_linked_directory_that_leaves_the_project(project: Path, victim: Path, cli: Cli) -> None:
    write(project / "tools" / "look.yaml", LOOK)
    (project / ".gemini").symlink_to(victim)
    before = snapshot(victim)
    result = cli(porcelain.main, "sync")
    assert result.status != 0 and "outside the project" in result.stderr
    assert snapshot(victim) == before


def test_a_link_inside_the_project_is_still_written_through(project: Path, cli: Cli) -> None:
    write(project / "tools" / "look.yaml", LOOK)
    write(project / "AGENTS.md", "# Agents\n\nHand-written.\n")
    (project / "GEMINI.md").symlink_to("AGENTS.md")
    assert cli(porcelain.main, "sync").status == 0
    assert (project / "GEMINI.md").is_symlink()
    text = (project / "AGENTS.md").read_text()
    assert text.startswith("# Agents\n\nHand-written.\n") and "look" in text


def test_config_set_writes_through_no_link_that_leaves_the_project(project: Path, victim: Path, cli: Cli) -> None:
    (project / ".cogtoolrc.yaml").unlink()
    (project / ".cogtoolrc.yaml").symlink_to(victim / "config.yaml")
    before = snapshot(victim)
    result = cli(porcelain.main, "config", "set", "limits.timeout", "5")
    assert result.status != 0 and "outside the project" in result.stderr
    assert snapshot(victim) == before


def test_init_refuses_before_its_first_write(isolated: Path, victim: Path, cli: Cli) -> None:
    (isolated / "GEMINI.md").symlink_to(victim / "notes.md")
    before = snapshot(victim)
    result = cli(porcelain.main, "init", "--defaults")
    assert result.status != 0 and "GEMINI.md" in result.stderr and "outside the project" in result.stderr
    assert snapshot(victim) == before
    assert not (isolated / ".cogtoolrc.yaml").exists()  # nothing half done


def test_new_writes_no_tool_through_a_linked_directory(project: Path, victim: Path, cli: Cli) -> None:
    (project / "tools").rmdir()
    (project / "tools").symlink_to(victim)
    before = snapshot(victim)
    result = cli(porcelain.main, "new", "hello", "--non-interactive")
    assert result.status != 0 and "outside the project" in result.stderr
    assert snapshot(victim) == before


def test_a_link_swapped_in_after_the_check_refuses_the_write(project: Path, victim: Path) -> None:
    """The directory that receives the file is opened link by link without following any: a
    link that replaces a directory between the check and the write is refused, not followed."""
    from cogtools import fsutil

    (project / "sub").mkdir()
    real_open = fsutil._open_directory

    def swap_then_open(path: Path) -> int:
        (project / "sub").rename(project / "was-sub")
        (project / "sub").symlink_to(victim)
        return real_open(path)

    before = snapshot(victim)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fsutil, "_open_directory", swap_then_open)
        with pytest.raises(fsutil.LeavesRoot):
            fsutil.write_atomic(project / "sub" / "notes.md", "overwritten\n", within=project)
    assert snapshot(victim) == before
    assert not os.path.exists(project / "was-sub" / "notes.md")


def test_a_write_within_the_project_keeps_mode_and_replaces_whole(project: Path) -> None:
    from cogtools import fsutil

    path = write(project / "GEMINI.md", "old\n", mode=0o640)
    fsutil.write_atomic(path, "new\n", within=project)
    assert path.read_text() == "new\n" and (path.stat().st_mode & 0o777) == 0o640
    assert sorted(p.name for p in project.iterdir() if p.name.endswith(".tmp")) == []
    assert json.loads(json.dumps({"ok": True}))  # the module is usable after a write
