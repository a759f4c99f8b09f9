"""The catalog cache is untrusted input (issue 11): whatever is in the cache file that cogtools did
not write itself is a miss, never an INTERNAL error and never a definition that was not loaded."""

from __future__ import annotations

import json
import os
import stat
import time
import zlib
from pathlib import Path

import pytest

from cogtools.load import cache as cache_module
from cogtools.load.catalog import load_catalog

from .conftest import run_script, write
from .test_catalog import cache_document, cache_files, count_parses

ARGV_TOOL = "description: Echo.\nimplementation: {kind: command, argv: [echo, genuine]}\n"


def aged(path: Path) -> Path:
    old = time.time() - 60
    os.utime(path, (old, old))
    return path


@pytest.fixture
def cached(project: Path) -> Path:
    """A project with one command tool, loaded once so that its cache file exists."""
    aged(write(project / "tools" / "show.yaml", ARGV_TOOL))
    assert list(load_catalog().tools) == ["show"]
    return project


def the_cache() -> Path:
    (path,) = cache_files(Path(os.environ["HOME"]))
    return path


def shapes(good: dict) -> list[object]:  # type: ignore[type-arg]
    """Documents a broken or hostile writer could leave: valid JSON, wrong structure."""
    ((key, entry),) = good["files"].items()
    return [
        [],
        {"stamp": good["stamp"], "files": []},
        {"stamp": good["stamp"], "files": {key: None}},
        {"stamp": good["stamp"], "files": {key: {**entry, "tools": "x"}}},
        {"stamp": good["stamp"], "files": {key: {**entry, "tools": [{}]}}},
        {"stamp": good["stamp"], "files": {key: {**entry, "tools": None, "error": {"code": 5}}}},
        {"stamp": good["stamp"], "files": {key: {**entry, "warnings": 7}}},
        {"stamp": good["stamp"], "files": {key: {"stat": entry["stat"], "skip": "yes"}}},
    ]


@pytest.mark.slow
def test_every_malformed_shape_is_a_miss(cached: Path) -> None:
    path = the_cache()
    mac, _, payload = path.read_bytes().partition(b"\n")
    for shape in shapes(json.loads(payload)):
        for prefix in (b"", mac + b"\n"):  # with no MAC, and with the MAC of another content
            path.write_bytes(prefix + json.dumps(shape).encode())
            result = run_script("cogtools-call", "show", stdin="{}", cwd=cached)
            assert (result.status, result.stdout) == (0, "genuine\n"), (shape, result)


def the_segment() -> Path:
    """The segment the index uses (one it no longer uses stays a while: another run's index may)."""
    (name,) = cache_document(the_cache())["segments"]
    return the_cache().parent / str(name)


def test_a_forged_entry_does_not_run(cached: Path) -> None:
    path = the_cache()
    mac, _, payload = path.read_bytes().partition(b"\n")
    forged = payload.replace(b'"show"', b'"shown"')
    assert forged != payload
    path.write_bytes(mac + b"\n" + forged)
    assert run_script("cogtools-call", "show", stdin="{}", cwd=cached).stdout == "genuine\n"
    # the cache was rebuilt and is good again
    assert b'"genuine"' in zlib.decompressobj(zdict=cache_module.ZDICT).decompress(the_segment().read_bytes())


@pytest.mark.parametrize("harm", ["forged", "cut", "removed", "padded", "replaced by a link"])
def test_a_segment_not_as_written_is_a_miss(cached: Path, harm: str) -> None:
    """The index is authenticated; a tool's whole form lives in a segment beside it, which must
    match the digest the index holds: else the definition is read again."""
    segment = the_segment()
    data = segment.read_bytes()
    packer = zlib.compressobj(6, zdict=cache_module.ZDICT)
    forged = (
        packer.compress(
            zlib.decompressobj(zdict=cache_module.ZDICT).decompress(data).replace(b'"genuine"', b'"forged!"')
        )
        + packer.flush()
    )
    if harm == "forged":
        segment.write_bytes(forged)
    elif harm == "cut":
        segment.write_bytes(data[: len(data) // 2])
    elif harm == "removed":
        segment.unlink()
    elif harm == "padded":
        segment.write_bytes(b"x" * len(data))
    else:
        elsewhere = write(cached / "elsewhere.dat", "")
        elsewhere.write_bytes(forged)
        segment.unlink()
        segment.symlink_to(elsewhere)
    result = run_script("cogtools-call", "show", stdin="{}", cwd=cached)
    assert (result.status, result.stdout) == (0, "genuine\n"), result


def test_a_cache_others_can_write_is_ignored(cached: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    the_cache().chmod(0o666)
    parsed = count_parses(monkeypatch)
    load_catalog()
    assert parsed == ["show.yaml"]


def test_the_cache_directory_and_key_are_private(cached: Path) -> None:
    directory = the_cache().parent
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert stat.S_IMODE((directory / "key").stat().st_mode) == 0o600
    assert stat.S_IMODE(the_cache().stat().st_mode) == 0o600


def test_a_key_others_can_write_turns_the_cache_off(cached: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (the_cache().parent / "key").chmod(0o666)
    parsed = count_parses(monkeypatch)
    load_catalog()
    load_catalog()
    assert parsed == ["show.yaml", "show.yaml"]


def test_a_library_upgrade_is_a_miss(cached: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parsed = count_parses(monkeypatch)
    load_catalog()
    assert parsed == []
    monkeypatch.setattr(cache_module, "library_stamp", lambda: "PyYAML upgraded")
    load_catalog()
    assert parsed == ["show.yaml"]


def test_one_file_through_two_sources_reads_the_same_cold_and_warm(project: Path) -> None:
    write(project / ".cogtoolrc.yaml", "tool_sources:\n  - local: .\n")
    aged(write(project / "plain.yaml", "description: Plain.\nimplementation: p\n"))
    aged(
        write(
            project / "marked.yaml",
            "$schema: schema:agladysh-research.org,2025/cogtools:tool\ndescription: Marked.\nimplementation: m\n",
        )
    )

    def seen() -> tuple[dict[str, str], list[tuple[str, str]]]:
        catalog = load_catalog()
        return (
            {name: tool.origin.source for name, tool in catalog.tools.items()},
            [(s.tool.name, s.tool.origin.source) for s in catalog.shadowed],
        )

    cold = seen()
    assert cold == ({"marked": "project", "plain": "local:."}, [("marked", "local:.")])
    assert seen() == cold
    assert len(cache_document(the_cache())["files"]) == 4  # each file once per source
