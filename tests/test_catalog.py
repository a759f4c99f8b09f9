"""Where tools are found, how a broken one is kept apart, who wins a name, and the cache."""

from __future__ import annotations

import json
import os
import time
import typing as t
from pathlib import Path

import pytest

from cogtools.core.errors import DefinitionInvalidError, ToolNotFoundError
from cogtools.load import catalog as catalog_module
from cogtools.load.catalog import load_catalog
from cogtools.load.project import find_root

from .conftest import ECHO_TOOL, write

MINIMAL = "description: {name} tool\nimplementation: '{name}'\n"


def tool(path: Path, name: str | None = None, *, age: float = 0) -> Path:
    path = write(path, (f"name: {name}\n" if name else "") + MINIMAL.format(name=name or path.stem))
    if age:
        old = time.time() - age
        os.utime(path, (old, old))
    return path


def test_root_is_the_nearest_config_then_gemini_then_git(tmp_path: Path) -> None:
    deep = tmp_path / "a" / "b" / "c"
    deep.mkdir(parents=True)
    env = {"HOME": str(tmp_path / "home")}
    assert find_root(deep, env) == (deep, "cwd")
    (tmp_path / "a" / ".git").mkdir()
    assert find_root(deep, env) == (tmp_path / "a", ".git")
    (tmp_path / "a" / "b" / ".gemini").mkdir()
    assert find_root(deep, env) == (tmp_path / "a" / "b", ".gemini")
    (tmp_path / ".cogtoolrc.yaml").write_text("")
    assert find_root(deep, env) == (tmp_path, ".cogtoolrc.yaml")


def test_the_users_own_gemini_directory_marks_no_project(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    (home / "code").mkdir()
    assert find_root(home / "code", {"HOME": str(home)}) == (home / "code", "cwd")


def test_tools_directory_recursive_and_root_only_when_marked(project: Path) -> None:
    tool(project / "tools" / "a.yaml")
    tool(project / "tools" / "deep" / "er" / "b.yml")
    tool(project / "tools" / ".hidden" / "c.yaml")
    tool(project / "tools" / ".d.yaml")
    write(project / "tools" / "notes.txt", "not a tool")
    write(project / "docker-compose.yml", "services: {}\n")  # a root file that is not a tool
    write(
        project / "marked.yaml",
        "$schema: schema:agladysh-research.org,2025/cogtools:tool\n" + MINIMAL.format(name="marked"),
    )
    write(project / "shebang.yaml", "#! /usr/bin/env cogtools-yaml\n" + MINIMAL.format(name="shebang"))
    catalog = load_catalog()
    assert list(catalog.tools) == ["a", "b", "marked", "shebang"]
    assert catalog.problems == []
    assert catalog.tools["b"].origin.path == "tools/deep/er/b.yml"
    assert catalog.tools["marked"].origin.source == "project"
    assert catalog.tools["a"].origin.source == "local:./tools"


def test_a_broken_definition_does_not_hide_the_others(project: Path) -> None:
    tool(project / "tools" / "good.yaml")
    write(project / "tools" / "broken.yaml", "description: [unclosed\n")
    write(project / "tools" / "typo.yaml", "name: typo\ndescripton: x\ndescription: d\nimplementation: x\n")
    write(project / "tools" / "file.yaml", "name: declared\ndescription: d\nimplementation: '{{'\n")
    catalog = load_catalog()
    assert list(catalog.tools) == ["good"]
    assert sorted((p.path, p.code, p.tool) for p in catalog.problems) == [
        ("tools/broken.yaml", "DEFINITION_INVALID", "broken"),
        ("tools/file.yaml", "DEFINITION_INVALID", "declared"),
        ("tools/typo.yaml", "DEFINITION_INVALID", "typo"),
    ]
    with pytest.raises(DefinitionInvalidError, match="template syntax error"):
        catalog.get("declared")
    with pytest.raises(DefinitionInvalidError, match="unknown key 'descripton'"):
        catalog.get("typo")
    with pytest.raises(DefinitionInvalidError, match="invalid YAML"):
        catalog.get("broken")


def test_the_earlier_source_wins_and_the_loser_is_kept(project: Path) -> None:
    write(project / "same.yaml", "#! /usr/bin/env cogtools-yaml\nname: same\ndescription: root\nimplementation: root\n")
    tool(project / "tools" / "same.yaml")
    tool(project / "tools" / "x" / "other.yaml", name="same")
    catalog = load_catalog()
    assert catalog.tools["same"].description == "root"
    assert [(s.tool.origin.path, s.by.origin.path) for s in catalog.shadowed] == [
        ("tools/same.yaml", "same.yaml"),
        ("tools/x/other.yaml", "same.yaml"),
    ]


def test_unknown_names_and_invalid_names(echo_project: Path) -> None:
    catalog = load_catalog()
    with pytest.raises(ToolNotFoundError) as info:
        catalog.get("ecko")
    assert info.value.details == {"available": ["echo"], "did_you_mean": ["echo"]}
    for bad in ("../echo", "tools/echo", "a..b", "-x", "x" * 49, ""):
        with pytest.raises(ToolNotFoundError, match="not a valid tool name"):
            catalog.get(bad)


def test_a_miss_lists_only_what_the_caller_may_see(echo_project: Path) -> None:
    """A tool the caller's role may not use is not shown to the model in a not-found error."""
    write(echo_project / "tools" / "reboot.yaml", "description: Reboot.\nmin_role: human_agent\nimplementation: ok\n")
    catalog = load_catalog()
    with pytest.raises(ToolNotFoundError) as info:
        catalog.get("rebot")
    assert info.value.details == {"available": ["echo"]} and "reboot" not in info.value.message


def test_symlink_loops_end(project: Path) -> None:
    tool(project / "tools" / "a" / "t.yaml")
    os.symlink(project / "tools", project / "tools" / "a" / "loop")
    assert list(load_catalog().tools) == ["t"]


def test_dangling_link_is_a_problem_not_a_crash(project: Path) -> None:
    tool(project / "tools" / "good.yaml")
    os.symlink(project / "nowhere.yaml", project / "tools" / "gone.yaml")
    catalog = load_catalog()
    assert list(catalog.tools) == ["good"]
    assert [(p.path, p.message) for p in catalog.problems] == [
        ("tools/gone.yaml", "cannot read: No such file or directory")
    ]


def test_unreadable_file_is_a_problem_not_a_crash(project: Path) -> None:
    path = tool(project / "tools" / "secret.yaml")
    path.chmod(0)
    if os.access(path, os.R_OK):
        pytest.skip("running as a user who reads everything")
    catalog = load_catalog()
    assert [p.message for p in catalog.problems][0].startswith("cannot read")


# -- the cache -----------------------------------------------------------------------------------


def count_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    parsed: list[str] = []
    real = catalog_module.format_for  # type: ignore[attr-defined]

    def spy(path: Path):  # type: ignore[no-untyped-def]
        parsed.append(path.name)
        return real(path)

    monkeypatch.setattr(catalog_module, "format_for", spy)
    return parsed


def cache_files(home: Path) -> list[Path]:
    return list((home / ".cache" / "cogtools").glob("catalog-*.json"))


def cache_document(path: Path) -> dict[str, t.Any]:
    """The JSON document of a cache file (after its MAC line)."""
    return t.cast("dict[str, t.Any]", json.loads(path.read_bytes().partition(b"\n")[2]))


def test_unchanged_files_are_not_parsed_again(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("a", "b", "c"):
        tool(project / "tools" / f"{name}.yaml", age=60)
    parsed = count_parses(monkeypatch)
    first = load_catalog()
    assert sorted(parsed) == ["a.yaml", "b.yaml", "c.yaml"]
    parsed.clear()
    second = load_catalog()
    assert parsed == []
    assert second.tools == first.tools
    tool(project / "tools" / "b.yaml", name="b2", age=30)
    assert list(load_catalog().tools) == ["a", "b2", "c"]
    assert parsed == ["b.yaml"]


def test_broken_files_are_cached_with_their_error(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(project / "tools" / "bad.yaml", "nope: 1\n")
    old = time.time() - 60
    os.utime(path, (old, old))
    load_catalog()
    parsed = count_parses(monkeypatch)
    problems = load_catalog().problems
    assert parsed == [] and problems[0].path == "tools/bad.yaml" and problems[0].line == 1


def test_recent_files_are_not_trusted_to_the_cache(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tool(project / "tools" / "fresh.yaml")
    load_catalog()
    parsed = count_parses(monkeypatch)
    load_catalog()
    assert parsed == ["fresh.yaml"]


def test_a_corrupt_cache_is_rebuilt(project: Path, isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tool(project / "tools" / "a.yaml", age=60)
    load_catalog()
    (cache,) = cache_files(Path(os.environ["HOME"]))
    cache.write_text('{"stamp": ')
    assert list(load_catalog().tools) == ["a"]
    assert cache_document(cache)["files"]
    cache.write_text(json.dumps({"stamp": "other version", "files": {"x": 1}}))
    assert list(load_catalog().tools) == ["a"]


def test_cache_can_be_turned_off_and_survives_an_unwritable_directory(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tool(project / "tools" / "a.yaml", age=60)
    monkeypatch.setenv("COGTOOLS_NO_CACHE", "1")
    assert list(load_catalog().tools) == ["a"]
    assert cache_files(Path(os.environ["HOME"])) == []
    monkeypatch.delenv("COGTOOLS_NO_CACHE")
    blocked = project / "blocked"
    blocked.write_text("a file where a directory should be")
    monkeypatch.setenv("COGTOOLS_CACHE_DIR", str(blocked / "sub"))
    assert list(load_catalog().tools) == ["a"]


def test_concurrent_writers_leave_a_whole_cache(project: Path) -> None:
    import concurrent.futures

    for i in range(30):
        write(project / "tools" / f"t{i}.yaml", ECHO_TOOL.replace("name: echo", f"name: t{i}"))
        old = time.time() - 60
        os.utime(project / "tools" / f"t{i}.yaml", (old, old))
    with concurrent.futures.ProcessPoolExecutor(4) as pool:
        results = list(pool.map(_count_tools, [str(project)] * 8))
    assert results == [30] * 8
    (cache,) = cache_files(Path(os.environ["HOME"]))
    assert len(cache_document(cache)["files"]) == 30
    assert not list(cache.parent.glob(".catalog-*"))  # no temporary file left behind


def _count_tools(cwd: str) -> int:
    return len(load_catalog(Path(cwd)).tools)
