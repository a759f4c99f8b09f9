"""Hostile files and input (issue 11): whatever is read gets its error code within its limits, the
rest of the project keeps working, and no command crashes, hangs or prints a traceback.

The files here are the attacks that were found to crash or hang cogtools: each runs through the
real commands, as processes (a crash of the interpreter is only seen from outside).

What cannot crash the interpreter or hang (a definition past the size limit, a surrogate pair, a
home directory that does not exist) runs in process (``cli``); the deep, recursive and special
inputs, the hostile configuration and discovery's output past Gemini CLI's limit keep the real
``cogtools-discover``, ``cogtools-call`` and ``cogtools-yaml``."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from cogtools.cli import call as call_cli
from cogtools.cli import discover as discover_cli
from cogtools.core import limits
from cogtools.load.catalog import load_catalog, source_files
from cogtools.load.project import Source

from .conftest import ECHO_TOOL, Cli, Result, run_script, write
from .test_cli import assert_error

#: A whole command, however hostile its input, ends well within this.
QUICK = 20


def discover(cwd: Path) -> Result:
    """cogtools-discover as Gemini CLI runs it: it must exit 0 with a JSON array on stdout."""
    result = run_script("cogtools-discover", cwd=cwd, timeout=QUICK)
    assert result.status == 0, result
    assert isinstance(json.loads(result.stdout), list)
    assert "Traceback" not in result.stderr
    return result


def call(cwd: Path, name: str, arguments: str | bytes = '{"text": "hi"}', *flags: str) -> Result:
    result = run_script("cogtools-call", *flags, name, stdin=arguments, cwd=cwd, timeout=QUICK)
    assert "Traceback" not in result.stderr, result
    return result


def discover_here(cli: Cli) -> Result:
    """:func:`discover`, in process."""
    result = cli(discover_cli.main)
    assert result.status == 0, result
    assert isinstance(json.loads(result.stdout), list)
    return result


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


LAUGHS = "a0: &a0 [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]\n" for i in range(1, 10)
)

HOSTILE_YAML = {
    # 100,000 deep crashed the interpreter (libyaml's composer recurses in C); 5,000 was INTERNAL.
    "deep_100000": ("keywords: " + nested(100_000) + "\n", "levels deep"),
    "deep_5000": ("keywords: " + nested(5_000) + "\n", "levels deep"),
    "deep_block": ("keywords:\n" + "".join("  " * i + "-\n" for i in range(200)) + "\n", "levels deep"),
    "laughs": ("keywords:\n" + "".join("  " + line + "\n" for line in LAUGHS.splitlines()), "aliases are expanded"),
    "recursive_alias": ("keywords: &a [*a]\n", "inside its own anchor"),
    "duplicate_key": ("description: twice\n", "given twice"),
    "huge_integer": ("category: " + "9" * 5000 + "\n", "integer that cannot be read"),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(HOSTILE_YAML))
def test_a_hostile_yaml_file_is_one_broken_tool_and_the_rest_works(echo_project: Path, case: str) -> None:
    text, fragment = HOSTILE_YAML[case]
    write(echo_project / "tools" / "bad.yaml", "name: bad\ndescription: bad\nimplementation: x\n" + text)
    started = time.monotonic()
    result = discover(echo_project)
    assert [d["name"] for d in json.loads(result.stdout)] == ["echo", "cogtools_problems"]
    assert "tools/bad.yaml" in result.stderr and fragment in result.stderr
    assert call(echo_project, "echo").stdout == "hi\n"
    assert_error(call(echo_project, "bad", "{}"), "DEFINITION_INVALID", fragment)
    assert time.monotonic() - started < QUICK


@pytest.mark.slow
def test_a_deep_json_or_toml_definition_is_definition_invalid(echo_project: Path) -> None:
    write(
        echo_project / "tools" / "deep.json",
        '{"description": "d", "implementation": "x", "keywords": ' + nested(5000) + "}",
    )
    write(
        echo_project / "tools" / "deeper.toml",
        'description = "d"\nimplementation = "x"\nkeywords = ' + nested(5000) + "\n",
    )
    write(echo_project / "tools" / "twice.json", '{"description": "d", "description": "e", "implementation": "x"}')
    write(
        echo_project / "tools" / "big.json",
        '{"description": "d", "implementation": "x", "keywords": [' + "9" * 5000 + "]}",
    )
    result = discover(echo_project)
    assert [d["name"] for d in json.loads(result.stdout)] == ["echo", "cogtools_problems"]
    assert_error(call(echo_project, "deep", "{}"), "DEFINITION_INVALID", "levels deep")
    assert_error(call(echo_project, "deeper", "{}"), "DEFINITION_INVALID", "levels deep")
    assert_error(call(echo_project, "twice", "{}"), "DEFINITION_INVALID", "given twice")
    assert_error(call(echo_project, "big", "{}"), "DEFINITION_INVALID", "cannot be read")


def test_a_definition_past_the_size_limit_is_refused(echo_project: Path, cli: Cli) -> None:
    text = "description: " + "x" * (limits.MAX_DEFINITION_BYTES + 1) + "\nimplementation: x\n"
    write(echo_project / "tools" / "huge.yaml", text)
    result = discover_here(cli)
    assert [d["name"] for d in json.loads(result.stdout)] == ["echo", "cogtools_problems"]
    assert_error(
        cli(call_cli.main, "huge", stdin="{}"), "DEFINITION_INVALID", f"limit of {limits.MAX_DEFINITION_BYTES} bytes"
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("stdin", "flags", "fragment"),
    [
        ("text: " + nested(100_000), ("--yaml",), "levels deep"),
        ("text: &a [*a]", ("--yaml",), "inside its own anchor"),
        (LAUGHS, ("--yaml",), "aliases are expanded"),
        ("text: a\ntext: b", ("--yaml",), "given twice"),
        ('{"text": ' + "9" * 5000 + "}", (), "cannot be read"),
        ('{"text": 1e999}', (), "too large"),
        ('{"text": ["\\udc80"]}', (), "lone surrogate"),
        ('{"\\udc80": "x"}', (), "lone surrogate"),
        ('{"text": "\\ud83d"}', (), "lone surrogate"),
        ('text: "\\udc80"', ("--yaml",), "Unicode"),
    ],
)
def test_hostile_arguments_are_invalid_input_as_json(
    echo_project: Path, stdin: str, flags: tuple[str, ...], fragment: str
) -> None:
    error = assert_error(call(echo_project, "echo", stdin, *flags), "INVALID_INPUT", fragment)
    assert error["tool"] == "echo"


def test_a_surrogate_pair_is_ordinary_text(echo_project: Path, cli: Cli) -> None:
    assert cli(call_cli.main, "echo", stdin='{"text": "\\ud83d\\ude00"}').stdout == "\U0001f600\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_special_files_are_refused_not_waited_for(echo_project: Path) -> None:
    os.mkfifo(echo_project / "tools" / "fifo.yaml")
    result = discover(echo_project)
    assert "tools/fifo.yaml: not a regular file (a FIFO)" in result.stderr
    assert_error(call(echo_project, "fifo", "{}"), "DEFINITION_INVALID", "a FIFO")
    devnull = run_script("cogtools-yaml", "/dev/zero", stdin="{}", cwd=echo_project, timeout=QUICK)
    assert_error(devnull, "DEFINITION_INVALID", "a character device")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_for_dotenv_is_config_invalid(project: Path) -> None:
    write(project / "tools" / "env.yaml", "description: d\nenvironment: [TOKEN]\nimplementation: '{{ env.TOKEN }}'\n")
    os.mkfifo(project / ".env")
    assert_error(call(project, "env", "{}"), "CONFIG_INVALID", "a FIFO")


def test_a_source_is_walked_within_its_limits_and_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "src"
    for i in range(30):
        write(root / f"d{i:02}" / "t.yaml", "description: d\nimplementation: x\n")
    monkeypatch.setattr(limits, "MAX_SOURCE_ENTRIES", 40)
    walk = source_files(Source("local:src", root, recursive=True))
    assert 0 < len(walk.files) < 30
    assert any("more than 40 entries" in w for w in walk.warnings)


def test_link_loops_and_deep_trees_are_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "src"
    write(root / "a" / "t.yaml", "description: d\nimplementation: x\n")
    (root / "a" / "loop").symlink_to(root)
    deep = root.joinpath(*["d"] * 5)
    write(deep / "u.yaml", "description: d\nimplementation: x\n")
    monkeypatch.setattr(limits, "MAX_SOURCE_DEPTH", 3)
    walk = source_files(Source("local:src", root, recursive=True))
    assert walk.files == [root / "a" / "t.yaml"]
    assert any("already read" in w and "loop" in w for w in walk.warnings)
    assert any("more than 3 directories deep" in w for w in walk.warnings)


def test_repeated_walk_warnings_are_counted_not_listed(tmp_path: Path) -> None:
    root = tmp_path / "src"
    (root / "real").mkdir(parents=True)
    for i in range(10):
        (root / f"link{i}").symlink_to(root / "real")
    walk = source_files(Source("local:src", root, recursive=True))
    assert len(walk.warnings) == 4 and walk.warnings[-1].endswith("7 more like the above")


def test_a_whole_file_system_as_a_source_ends(project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """``local: /`` as a source: a tree larger and deeper than the limits (here lowered, in a tree
    made for the test, where the real ``/`` took 30 s), with link loops, unreadable and deep
    directories and files of every kind. Discovery ends, says which limit stopped the walk, and
    serves every tool of the sources before it and those found before the limit."""
    fs = project.parent / "fs"
    for top in ("etc", "usr", "var", "home"):
        for i in range(12):
            write(fs / top / f"d{i:02}" / "notes.txt", "not a tool\n")
            write(fs / top / f"d{i:02}" / "conf.yaml", "key: value\n")
    write(fs / "aaa" / "first.yaml", "description: Found before the limit.\nimplementation: first\n")
    (fs / "usr" / "loop").symlink_to(fs)
    write(fs.joinpath("var", *["deep"] * 8, "t.yaml"), "description: d\nimplementation: x\n")
    monkeypatch.setattr(limits, "MAX_SOURCE_ENTRIES", 60)
    monkeypatch.setattr(limits, "MAX_SOURCE_DEPTH", 4)
    write(project / ".cogtoolrc.yaml", f"tool_sources:\n  - local: ./tools\n  - local: {fs}\n")
    write(project / "tools" / "echo.yaml", ECHO_TOOL)
    started = time.thread_time()
    result = cli(discover_cli.main)
    assert time.thread_time() - started < QUICK  # its own work: the walk stops at the limits
    assert result.status == 0
    names = [d["name"] for d in json.loads(result.stdout)]
    assert "echo" in names and "first" in names
    assert f"tool source local:{fs}: more than 60 entries; stopped reading at" in result.stderr
    assert cli(call_cli.main, "first").stdout == "first"


def test_a_home_directory_that_does_not_exist_is_config_invalid(
    echo_project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(echo_project / ".cogtoolrc.yaml", "tool_sources:\n  - local: '~nosuchuser-cogtools/x'\n")
    assert_error(cli(call_cli.main, "echo", stdin='{"text": "hi"}'), "CONFIG_INVALID", "home directory")
    monkeypatch.setenv("COGTOOLS_TOOL_PATH", "~nosuchuser-cogtools/y")
    write(echo_project / ".cogtoolrc.yaml", "")
    result = cli(call_cli.main, "echo", stdin='{"text": "x"}')
    assert_error(result, "CONFIG_INVALID", "COGTOOLS_TOOL_PATH")


def test_hostile_configuration_is_config_invalid(echo_project: Path) -> None:
    write(echo_project / ".cogtoolrc.yaml", "policy: " + nested(100_000) + "\n")
    assert_error(call(echo_project, "echo"), "CONFIG_INVALID", "levels deep")
    write(echo_project / ".cogtoolrc.yaml", "env_priority: project\nenv_priority: system\n")
    assert_error(call(echo_project, "echo"), "CONFIG_INVALID", "given twice")
    (echo_project / ".cogtoolrc.yaml").unlink()
    write(echo_project / "pyproject.toml", "[tool.cogtools]\npolicy = " + nested(5000) + "\n")
    (echo_project / ".git").mkdir()
    assert_error(call(echo_project, "echo"), "CONFIG_INVALID", "levels deep")


def test_an_in_process_catalog_survives_every_hostile_file(echo_project: Path) -> None:
    for case, (text, _) in HOSTILE_YAML.items():
        write(echo_project / "tools" / f"{case}.yaml", f"name: {case}\ndescription: d\nimplementation: x\n" + text)
    catalog = load_catalog()
    assert list(catalog.tools) == ["echo"]
    assert sorted(str(p.tool) for p in catalog.problems) == sorted(HOSTILE_YAML)
    assert {p.code for p in catalog.problems} == {"DEFINITION_INVALID"}


def test_discovery_output_stays_within_gemini_clis_limit(echo_project: Path) -> None:
    from cogtools.services.discovery import GEMINI_OUTPUT_LIMIT

    # Twelve definitions just under the size limit each: more than Gemini CLI reads in total.
    big = "x" * (limits.MAX_DEFINITION_BYTES - 200)
    for i in range(12):
        write(echo_project / "tools" / f"big{i:02}.yaml", f"description: {big}\nimplementation: x\n")
    result = discover(echo_project)
    assert len(result.stdout.encode()) <= GEMINI_OUTPUT_LIMIT
    names = [d["name"] for d in json.loads(result.stdout)]
    assert names[:2] == ["big00", "big01"] and 5 < len(names) < 13
    assert "pass Gemini CLI's limit" in result.stderr and "discovery mode" in result.stderr


def test_fitting_is_indented_when_it_can_be_and_compact_when_it_must() -> None:
    from cogtools.services.discovery import fit

    declarations = [{"name": f"t{i}", "description": "d" * 50} for i in range(10)]
    indented = fit(declarations)
    assert indented.dropped == [] and indented.text.startswith("[\n  {")
    compact_size = len(json.dumps(declarations, separators=(",", ":"))) + 1
    compact = fit(declarations, limit=compact_size)
    assert compact.dropped == [] and json.loads(compact.text) == declarations
    cut = fit(declarations, limit=compact_size // 2)
    assert json.loads(cut.text) == declarations[: 10 - len(cut.dropped)]
    assert len(cut.text.encode()) <= compact_size // 2 and cut.dropped[0] == f"t{10 - len(cut.dropped)}"


@pytest.mark.slow
def test_the_problems_discovery_reports_are_bounded(echo_project: Path) -> None:
    from cogtools.load.loading import MAX_REPORT_LINES

    for i in range(MAX_REPORT_LINES + 5):
        write(echo_project / "tools" / f"b{i}.yaml", "nope: 1\n")
    result = discover(echo_project)
    lines = result.stderr.splitlines()
    assert len(lines) == MAX_REPORT_LINES + 1 and lines[-1].endswith("and 5 more problems and warnings")
