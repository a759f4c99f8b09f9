"""``package.json`` as a JavaScript project's home (issue 43): the nearest one with a
``"cogtools"`` key marks the project, before a ``.git`` further up, and ``cogtools init`` (with
``--mcp`` too) keeps the settings there, in place, never creating a ``.cogtoolrc.yaml`` that would
silently replace them.

The commands run in process (the ``cogtools`` fixture); ``test_init_with_a_broken_cogtools_key_writes_nothing``
keeps the real ``cogtools`` process (its exit status and stderr as a shell sees them)."""

from __future__ import annotations

import json
import os
import subprocess
import typing as t
from pathlib import Path

import pytest

from cogtools.cli import porcelain
from cogtools.load.project import find_root

from .conftest import Cli, Result, run_script, write

WEB = """\
{
  "name": "web",
  "private": true,
  "scripts": {
    "test": "vitest"
  },
  "cogtools": {
    "tool_sources": [{"local": "./agent-tools"}, "node_modules"]
  },
  "devDependencies": {
    "vitest": "^2.0.0"
  }
}
"""

HI = """\
$schema: schema:agladysh-research.org,2025/cogtools:tool
name: hi
description: Say hi.
parameters: {}
category: Example
risk_level: low
side_effects: []
implementation: "hi"
"""


@pytest.fixture
def mono(isolated: Path) -> Path:
    """A repository (``.git`` at ``mono/``) whose package ``packages/web`` keeps its settings in
    its package.json; returns the package."""
    (isolated / "mono" / ".git").mkdir(parents=True)
    web = isolated / "mono" / "packages" / "web"
    write(web / "package.json", WEB)
    write(web / "agent-tools" / "hi.yaml", HI)
    return web


Cogtools = t.Callable[..., Result]


@pytest.fixture
def cogtools(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> Cogtools:
    """``cogtools ARGS`` run in process from ``cwd``."""

    def run(cwd: Path, *args: str) -> Result:
        monkeypatch.chdir(cwd)
        return cli(porcelain.main, *args)

    return run


def test_a_package_json_with_a_cogtools_key_marks_the_project(mono: Path, cogtools: Cogtools) -> None:
    listed = cogtools(mono, "list")
    assert listed.status == 0 and listed.stdout.startswith("hi "), listed
    shown = cogtools(mono, "config", "list", "--show-origin").stdout
    assert f'found by package.json\tproject_root: "{mono}"' in shown
    assert cogtools(mono / "agent-tools", "list").stdout.startswith("hi ")  # from below it too


def test_a_package_json_without_the_key_marks_nothing(mono: Path, cogtools: Cogtools) -> None:
    write(mono / "package.json", '{"name": "web"}\n')
    shown = cogtools(mono, "config", "list", "--show-origin").stdout
    assert f'found by .git\tproject_root: "{mono.parent.parent}"' in shown


def test_the_nearest_configuration_file_marks_the_project(tmp_path: Path) -> None:
    deep = tmp_path / "a" / "b" / "c"
    deep.mkdir(parents=True)
    env = {"HOME": str(tmp_path / "home")}
    (tmp_path / ".git").mkdir()
    (tmp_path / "a" / ".gemini").mkdir()
    write(tmp_path / "a" / "b" / "package.json", '{"cogtools": {}}')
    assert find_root(deep, env) == (tmp_path / "a" / "b", "package.json")
    (tmp_path / "a" / ".cogtoolrc.yaml").write_text("")  # nearer wins, whichever file it is
    assert find_root(deep, env) == (tmp_path / "a" / "b", "package.json")
    (deep / ".cogtoolrc.yaml").write_text("")
    assert find_root(deep, env) == (deep, ".cogtoolrc.yaml")


def test_a_pyproject_toml_with_tool_cogtools_marks_the_project(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    member = tmp_path / "packages" / "api"
    member.mkdir(parents=True)
    write(member / "pyproject.toml", '[project]\nname = "api"\ndependencies = ["cogtools"]\n')
    assert find_root(member, {}) == (tmp_path, ".git")  # cogtools as a dependency marks nothing
    write(member / "pyproject.toml", '[project]\nname = "api"\n\n[tool.cogtools.policy]\nrole = "human_agent"\n')
    assert find_root(member, {}) == (member, "pyproject.toml")
    write(member / "pyproject.toml", "[tool.cogtools\n")  # not TOML: the build's problem
    assert find_root(member, {}) == (tmp_path, ".git")


@pytest.mark.parametrize(
    "how", ["huge", "not utf-8", "not JSON", "a directory", "a FIFO", "key in a string", "nested key"]
)
def test_a_hostile_package_json_marks_nothing_and_stalls_nothing(tmp_path: Path, how: str) -> None:
    (tmp_path / ".git").mkdir()
    package = tmp_path / "pkg"
    package.mkdir()
    path = package / "package.json"
    if how == "huge":
        path.write_text('{"cogtools": {}, "d": "' + "x" * (2 * 1024 * 1024) + '"}')
    elif how == "not utf-8":
        path.write_bytes(b'{"cogtools": {}, "n": "\xff"}')
    elif how == "not JSON":
        path.write_text('{"cogtools": {}, oops')
    elif how == "a directory":
        path.mkdir()
    elif how == "a FIFO":
        os.mkfifo(path)
    elif how == "key in a string":
        path.write_text('{"description": "set \\"cogtools\\": {} in package.json"}')
    else:
        path.write_text('{"dependencies": {"cogtools": "^0.1.0"}}')
    assert find_root(package, {}) == (tmp_path, ".git")


def test_init_mcp_keeps_the_settings_in_package_json(mono: Path, cogtools: Cogtools) -> None:
    subprocess.run(["git", "init", "-q", str(mono)], check=True)  # what `git status` shows
    subprocess.run(["git", "-C", str(mono), "add", "."], check=True)
    done = cogtools(mono, "init", "--non-interactive", "--mcp", "claude-code")
    assert done.status == 0, done
    assert not (mono / ".cogtoolrc.yaml").exists()
    new = subprocess.run(
        ["git", "-C", str(mono), "status", "--porcelain", "--untracked-files=all"], capture_output=True, text=True
    ).stdout
    assert ".cogtoolrc.yaml" not in new and "?? .mcp.json" in new
    text = (mono / "package.json").read_text()
    assert text == WEB.replace('"node_modules"]', '"node_modules", {"local": "./tools"}]')  # one line stays one
    assert text.splitlines()[1:6] == WEB.splitlines()[1:6] and text.endswith("}\n")  # its own indent, other keys
    assert "updated package.json" in done.stdout
    origin = cogtools(mono, "config", "get", "--show-origin", "tool_sources").stdout
    assert origin.startswith(f"{mono / 'package.json'}:")
    listed = cogtools(mono, "list").stdout
    assert "hi " in listed and "hello " in listed
    again = cogtools(mono, "init", "--non-interactive", "--mcp", "claude-code")
    assert "unchanged package.json" in again.stdout and (mono / "package.json").read_text() == text


def test_init_keeps_the_settings_in_package_json(mono: Path, cogtools: Cogtools) -> None:
    done = cogtools(mono, "init", "--non-interactive")
    assert done.status == 0, done
    assert not (mono / ".cogtoolrc.yaml").exists()
    assert json.loads((mono / "package.json").read_text())["cogtools"]["tool_sources"][-1] == {"local": "./tools"}
    set_ = cogtools(mono, "config", "set", "discovery_mode", "true")
    assert set_.status == 0 and not (mono / ".cogtoolrc.yaml").exists()
    assert json.loads((mono / "package.json").read_text())["cogtools"]["discovery_mode"] is True


def test_init_gives_a_package_json_without_settings_the_key(isolated: Path, cogtools: Cogtools) -> None:
    write(isolated / "package.json", '{\n\t"name": "app"\n}\n')
    done = cogtools(isolated, "init", "--non-interactive", "--mcp", "cursor")
    assert done.status == 0, done
    assert not (isolated / ".cogtoolrc.yaml").exists()
    assert (isolated / "package.json").read_text() == (
        '{\n\t"name": "app",\n\t"cogtools": {\n\t\t"tool_sources": [\n\t\t\t{\n\t\t\t\t"local": "./tools"\n'
        "\t\t\t}\n\t\t]\n\t}\n}\n"
    )
    assert cogtools(isolated, "list").stdout.startswith("hello ")


def test_init_writes_a_cogtoolrc_where_the_person_chooses_it(mono: Path, cogtools: Cogtools) -> None:
    done = cogtools(mono, "init", "--non-interactive", "--config-file")
    assert done.status == 0, done
    assert (mono / ".cogtoolrc.yaml").exists() and (mono / "package.json").read_text() == WEB
    assert "created .cogtoolrc.yaml" in done.stdout


def test_init_keeps_an_existing_cogtoolrc(mono: Path, cogtools: Cogtools) -> None:
    write(mono / ".cogtoolrc.yaml", "tool_sources: [local: ./agent-tools]\n")
    done = cogtools(mono, "init", "--non-interactive")
    assert done.status == 0 and (mono / "package.json").read_text() == WEB


def test_init_keeps_the_settings_in_pyproject_toml(isolated: Path, cogtools: Cogtools) -> None:
    pyproject = '[project]\nname = "app"\n\n[tool.cogtools]\nenv_priority = "system"\n\n[tool.ruff]\nline-length = 99\n'
    write(isolated / "pyproject.toml", pyproject)
    done = cogtools(isolated, "init", "--non-interactive")
    assert done.status == 0, done
    assert not (isolated / ".cogtoolrc.yaml").exists()
    text = (isolated / "pyproject.toml").read_text()
    assert text == pyproject.replace(
        'env_priority = "system"\n', 'env_priority = "system"\ntool_sources = [{ local = "./tools" }]\n'
    )
    origin = cogtools(isolated, "config", "get", "--show-origin", "env_priority").stdout
    assert origin.startswith(str(isolated / "pyproject.toml"))
    assert cogtools(isolated, "list").stdout.startswith("hello ")
    assert "unchanged pyproject.toml" in cogtools(isolated, "init", "--non-interactive").stdout


def test_list_says_when_no_tool_source_exists(isolated: Path, cogtools: Cogtools) -> None:
    (isolated / ".git").mkdir()
    listed = cogtools(isolated, "list")
    assert listed.status == 0 and listed.stdout == ""
    assert "no tools" in listed.stderr and "./tools" in listed.stderr


def test_init_says_what_a_pyproject_toml_list_lacks(isolated: Path, cogtools: Cogtools) -> None:
    pyproject = '[tool.cogtools]\ntool_sources = ["packages"]\n'
    write(isolated / "pyproject.toml", pyproject)
    done = cogtools(isolated, "init", "--non-interactive", "--mcp", "cursor")
    assert done.status == 0, done
    assert (isolated / "pyproject.toml").read_text() == pyproject and not (isolated / ".cogtoolrc.yaml").exists()
    assert "note: tool_sources in pyproject.toml [tool.cogtools] does not list ./tools" in done.stdout


def test_init_with_a_broken_cogtools_key_writes_nothing(mono: Path) -> None:
    broken = WEB.replace('"node_modules"]', '"node_modules"], "env_priority": "sometimes"')
    write(mono / "package.json", broken)
    done = run_script("cogtools", "init", "--non-interactive", "--mcp", "claude-code", cwd=mono, env=dict(os.environ))
    assert done.status != 0 and "CONFIG_INVALID" in done.stderr and "Traceback" not in done.stderr
    assert sorted(p.name for p in mono.iterdir()) == ["agent-tools", "package.json"]
    assert (mono / "package.json").read_text() == broken


def test_the_tools_a_package_ships_are_its_own_by_default(isolated: Path, cogtools: Cogtools) -> None:
    """(issue 43: a package that ships its tools from ``"tools": "lib/tools/"`` listed none of
    them itself, and a ``"tools"`` member that names no directory was silently ignored)"""
    write(isolated / "package.json", '{"name": "kit", "cogtools": {"tools": ["lib/tools/", "more"]}}\n')
    write(isolated / "lib" / "tools" / "hi.yaml", HI)
    write(isolated / "more" / "ho.yaml", HI.replace("name: hi", "name: ho"))
    listed = cogtools(isolated, "list")
    assert listed.status == 0 and [line.split()[0] for line in listed.stdout.splitlines()] == ["hi", "ho"], listed
    assert "(local:./lib/tools)" in listed.stdout and "(local:./more)" in listed.stdout
    shown = cogtools(isolated, "config", "get", "tool_sources", "--show-origin").stdout
    assert shown.startswith(f"{isolated / 'package.json'}:1\t"), shown
    # settings of the project's own choose, as everywhere: a .cogtoolrc.yaml's tool_sources win
    write(isolated / ".cogtoolrc.yaml", "tool_sources: [{local: ./more}]\n")
    assert [line.split()[0] for line in cogtools(isolated, "list").stdout.splitlines()] == ["ho"]
    for broken in ("5", '["/etc"]', "[]"):
        write(isolated / "package.json", '{"name": "kit", "cogtools": {"tools": %s}}\n' % broken)
        listed = cogtools(isolated, "list")
        assert listed.status != 0 and "CONFIG_INVALID" in listed.stderr and "cogtools.tools" in listed.stderr, listed
        assert "Traceback" not in listed.stderr
