"""Configuration files, their precedence, their errors, and the tool sources they name."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cogtools.core.errors import ConfigInvalidError
from cogtools.load.catalog import load_catalog
from cogtools.load.config import load_config
from cogtools.load.project import find_project

from .conftest import write

TOOL = "description: {name}\nimplementation: {name}\n"


def user_file(text: str) -> Path:
    return write(Path(os.environ["XDG_CONFIG_HOME"]) / "cogtools" / "config.yaml", text)


def env() -> dict[str, str]:
    return dict(os.environ)


def test_defaults(isolated: Path) -> None:
    config = load_config(isolated, env())
    assert config.value("tool_sources") == [{"local": "./tools"}]
    assert config.value("env_priority") == "project"
    assert {s.origin for s in config.settings.values()} == {"default"}
    assert config.files == ()


@pytest.mark.parametrize(
    ("user", "pyproject", "rc", "environ", "winner"),
    [
        ("system", None, None, None, "user"),
        ("system", "project", None, None, "pyproject"),
        (None, "system", "project", None, "rc"),
        ("system", None, "project", None, "rc"),
        ("system", "system", "system", "project", "env"),
        (None, "project", None, "system", "env"),
    ],
)
def test_precedence_of_every_pairing(
    isolated: Path,
    monkeypatch: pytest.MonkeyPatch,
    user: str | None,
    pyproject: str | None,
    rc: str | None,
    environ: str | None,
    winner: str,
) -> None:
    if user:
        user_file(f"env_priority: {user}\n")
    if pyproject:
        write(isolated / "pyproject.toml", f'[project]\nname = "x"\n\n[tool.cogtools]\nenv_priority = "{pyproject}"\n')
    if rc:
        write(isolated / ".cogtoolrc.yaml", f"# project\nenv_priority: {rc}\n")
    if environ:
        monkeypatch.setenv("COGTOOLS_ENV_PRIORITY", environ)
    setting = load_config(isolated, env()).settings["env_priority"]
    expected = {"user": user, "pyproject": pyproject, "rc": rc, "env": environ}[winner]
    assert setting.value == expected
    origin = {
        "user": str(Path(os.environ["XDG_CONFIG_HOME"]) / "cogtools" / "config.yaml") + ":1",
        "pyproject": str(isolated / "pyproject.toml"),
        "rc": str(isolated / ".cogtoolrc.yaml") + ":2",
        "env": "environment COGTOOLS_ENV_PRIORITY",
    }[winner]
    assert setting.origin == origin


def test_pyproject_without_the_table_is_not_configuration(isolated: Path) -> None:
    write(isolated / "pyproject.toml", '[project]\nname = "x"\n')
    assert load_config(isolated, env()).files == ()


def test_explicit_config_file_replaces_the_project_file(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(isolated / ".cogtoolrc.yaml", "env_priority: project\n")
    other = write(isolated / "elsewhere" / "cogtools.yaml", "env_priority: system\n")
    monkeypatch.setenv("COGTOOLS_CONFIG", str(other))
    config = load_config(isolated, env())
    assert config.value("env_priority") == "system" and config.files == (str(other),)
    monkeypatch.setenv("COGTOOLS_CONFIG", str(isolated / "missing.yaml"))
    with pytest.raises(ConfigInvalidError, match="no such configuration file"):
        load_config(isolated, env())


@pytest.mark.parametrize(
    ("text", "fragment", "line", "key_path"),
    [
        (
            "tool_source:\n  - local: x\n",
            "unknown key 'tool_source' (did you mean 'tool_sources'?)",
            1,
            ("tool_source",),
        ),
        ("env_priority: both\n", "'both' is not one of project, system", 1, ("env_priority",)),
        (
            "tool_sources:\n  - local: x\n  - {remote: y}\n",
            "is not valid under any of the given schemas",
            3,
            ("tool_sources", 1),
        ),
        ("tool_sources: ./tools\n", "is not of type 'array'", 1, ("tool_sources",)),
        ("- a\n", "a mapping of settings", None, None),
        ("env_priority: [unclosed\n", "invalid YAML", 2, None),
    ],
)
def test_broken_cogtoolrc(
    isolated: Path, text: str, fragment: str, line: int | None, key_path: tuple[str | int, ...] | None
) -> None:
    write(isolated / ".cogtoolrc.yaml", text)
    with pytest.raises(ConfigInvalidError) as info:
        load_config(isolated, env())
    error = info.value
    assert fragment in error.message
    assert error.path == str(isolated / ".cogtoolrc.yaml")
    assert (error.line, error.key_path) == (line, key_path)


def test_broken_pyproject(isolated: Path) -> None:
    write(isolated / "pyproject.toml", "[tool.cogtools]\nenv_priorty = 'system'\n")
    with pytest.raises(ConfigInvalidError) as info:
        load_config(isolated, env())
    assert info.value.key_path == ("tool", "cogtools", "env_priorty")
    assert "did you mean 'env_priority'" in info.value.message
    write(isolated / "pyproject.toml", "[tool.cogtools\n")
    with pytest.raises(ConfigInvalidError, match="invalid TOML"):
        load_config(isolated, env())


def test_invalid_environment_setting(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COGTOOLS_ENV_PRIORITY", "both")
    with pytest.raises(ConfigInvalidError) as info:
        load_config(isolated, env())
    assert info.value.path == "environment COGTOOLS_ENV_PRIORITY"


# -- sources ------------------------------------------------------------------------------------


def test_configured_local_sources_in_order(isolated: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    absolute = tmp_path / "shared-tools"
    home_tools = Path(os.environ["HOME"]) / "my-tools"
    write(
        isolated / ".cogtoolrc.yaml", f"tool_sources:\n  - local: ./a\n  - local: {absolute}\n  - local: ~/my-tools\n"
    )
    write(isolated / "a" / "one.yaml", TOOL.format(name="from a"))
    write(absolute / "one.yaml", TOOL.format(name="from absolute"))
    write(absolute / "two.yaml", TOOL.format(name="from absolute"))
    write(home_tools / "three.yaml", TOOL.format(name="from home"))
    extra = write(tmp_path / "env-tools" / "four.yaml", TOOL.format(name="from env")).parent
    monkeypatch.setenv("COGTOOLS_TOOL_PATH", os.pathsep.join([str(extra), ""]))
    catalog = load_catalog()
    assert {n: t.description for n, t in catalog.tools.items()} == {
        "one": "from a",
        "two": "from absolute",
        "three": "from home",
        "four": "from env",
    }
    assert [s.name for s in catalog.project.sources] == [
        "project",
        "local:./a",
        f"local:{absolute}",
        "local:~/my-tools",
        "env:COGTOOLS_TOOL_PATH",
    ]
    assert [(s.tool.origin.source, s.by.origin.source) for s in catalog.shadowed] == [
        (f"local:{absolute}", "local:./a")
    ]
    assert catalog.tools["two"].origin.path == str(absolute / "two.yaml")


def test_missing_configured_directory_is_a_warning(isolated: Path) -> None:
    write(isolated / ".cogtoolrc.yaml", "tool_sources:\n  - local: ./nowhere\n")
    catalog = load_catalog()
    assert catalog.tools == {}
    assert catalog.warnings == [f"tool source local:./nowhere: {isolated / 'nowhere'} is not a directory"]
    write(isolated / ".cogtoolrc.yaml", "# defaults\n")
    assert load_catalog().warnings == []  # the default ./tools may be absent


def test_parsed_configuration_is_cached(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    path = write(isolated / ".cogtoolrc.yaml", "env_priority: system\n")
    old = time.time() - 60
    os.utime(path, (old, old))
    load_catalog()
    import cogtools.load.config as config_module

    def refuse(*args: object) -> None:
        raise AssertionError("parsed again")

    monkeypatch.setattr(config_module, "_parse_yaml", refuse)
    assert load_catalog().project.config.value("env_priority") == "system"


def test_project_reports_its_root_and_reason(isolated: Path) -> None:
    write(isolated / ".cogtoolrc.yaml", "")
    (isolated / "sub").mkdir()
    project = find_project(isolated / "sub")
    assert (project.root, project.reason) == (isolated, ".cogtoolrc.yaml")
