"""Following a catalog's files at no cost while nothing changes: the kernel's word (inotify) where
there is one, the fast index's cheap check before any reload, and a server that still notices a
change without either."""

from __future__ import annotations

import errno
import os
import sys
import time
import typing as t
from pathlib import Path

import anyio
import pytest

from cogtools.mcp import watching
from cogtools.mcp.watching import Watcher

from .conftest import ECHO_TOOL, write

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")


@linux
def test_a_watcher_hears_of_what_changes_in_the_directories_it_watches(tmp_path: Path) -> None:
    watched, other = tmp_path / "tools", tmp_path / "other"
    (watched / "deeper").mkdir(parents=True)
    other.mkdir()
    watcher = Watcher.start()
    assert watcher is not None
    try:
        assert watcher.watch([str(watched), str(tmp_path / "missing")]) is True
        assert watcher.watched() == {str(watched)}  # a directory that is not there is left out
        assert watcher.drain() is False
        write(other / "a.yaml", "x")
        write(watched / "deeper" / "b.yaml", "x")  # a directory is watched alone, not its tree
        assert watcher.drain() is False
        for change in (
            lambda: write(watched / "c.yaml", "x"),
            lambda: (watched / "c.yaml").chmod(0o600),
            lambda: (watched / "c.yaml").rename(watched / "d.yaml"),
            lambda: (watched / "d.yaml").unlink(),
        ):
            change()
            assert watcher.drain() is True
            assert watcher.drain() is False  # taken
        assert watcher.watch([str(other)]) is True
        assert watcher.watched() == {str(other)}
        write(watched / "e.yaml", "x")
        assert watcher.drain() is False
        write(other / "e.yaml", "x")
        assert watcher.drain() is True
    finally:
        watcher.close()


def test_no_watcher_where_there_is_no_inotify(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    assert Watcher.start() is None


def test_a_kernel_out_of_watches_is_said(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    class Refusing:
        def inotify_add_watch(self, fd: int, path: bytes, mask: int) -> int:
            return -1

        def inotify_rm_watch(self, fd: int, descriptor: int) -> int:
            return 0

    monkeypatch.setattr(watching, "ctypes_errno", lambda: errno.ENOSPC)
    assert Watcher(Refusing(), -1).watch([str(tmp_path)]) is False
    monkeypatch.setattr(watching, "ctypes_errno", lambda: errno.ENOENT)
    assert Watcher(Refusing(), -1).watch([str(tmp_path)]) is True  # one directory gone: no matter


@pytest.fixture
def live(echo_project: Path, monkeypatch: pytest.MonkeyPatch) -> t.Any:
    """The live catalog of a project, its files older than a change its stats could miss."""
    pytest.importorskip("mcp")
    import cogtools.load.cache
    from cogtools.mcp.live import LiveCatalog

    monkeypatch.setattr(cogtools.load.cache, "RACY_SECONDS", 0)

    return LiveCatalog(echo_project, os.environ)


def test_an_idle_refresh_reads_no_file(live: t.Any, echo_project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing changed: the fast index says so, and nothing is loaded again."""
    import cogtools.load.loading

    loads: list[Path | None] = []
    real = cogtools.load.loading.load_project

    def counting(cwd: Path | None = None, environ: t.Any = None, **kwargs: t.Any) -> t.Any:
        loads.append(cwd)
        return real(cwd, environ, **kwargs)

    monkeypatch.setattr(cogtools.load.loading, "load_project", counting)
    assert live.refresh() is None and live.refresh() is None
    assert loads == []
    write(echo_project / "tools" / "other.yaml", ECHO_TOOL.replace("name: echo", "name: other"))
    assert live.refresh() == []
    assert len(loads) == 1 and "other" in live.loaded.catalog.tools
    assert live.refresh() is None and len(loads) == 1


def test_the_directories_followed_are_those_the_catalog_reads(live: t.Any, echo_project: Path) -> None:
    (echo_project / "tools" / "more").mkdir()
    live.refresh()
    assert {str(echo_project), str(echo_project / "tools"), str(echo_project / "tools" / "more")} <= set(
        live.directories
    )
    assert str(echo_project / "tools" / "more" / "deeper") not in live.directories


class Told:
    """What ``follow`` announces to the clients, without a server."""

    def __init__(self) -> None:
        self.changes = 0

    async def announce(self, problems: list[str]) -> None:
        self.changes += 1


@pytest.mark.parametrize("kernel", [True, False], ids=["inotify", "looking"])
def test_a_change_is_noticed_with_and_without_the_kernels_word(
    live: t.Any, echo_project: Path, monkeypatch: pytest.MonkeyPatch, kernel: bool
) -> None:
    from cogtools.mcp.live import follow

    if not kernel:
        monkeypatch.setattr(Watcher, "start", classmethod(lambda cls: None))
    elif Watcher.start() is None:
        pytest.skip("no inotify here")
    told = Told()
    reports: list[str] = []
    # with the kernel's word, the interval is never waited: a change is heard at once
    interval = 3600.0 if kernel else 0.1

    async def main() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(follow, live, interval, reports.append, told.announce)
            await anyio.sleep(0.3)
            write(echo_project / "tools" / "new" / "other.yaml", ECHO_TOOL.replace("name: echo", "name: other"))
            with anyio.fail_after(20):
                while told.changes == 0:
                    await anyio.sleep(0.05)
            # and then a file in the directory that came with the change
            write(echo_project / "tools" / "new" / "third.yaml", ECHO_TOOL.replace("name: echo", "name: third"))
            with anyio.fail_after(20):
                while told.changes == 1:
                    await anyio.sleep(0.05)
            group.cancel_scope.cancel()

    anyio.run(main)
    assert {"other", "third"} <= set(live.loaded.catalog.tools)
    assert reports[0].startswith("the tools changed")


@pytest.mark.slow
def test_files_that_never_stop_changing_are_checked_a_bounded_share_of_the_time(
    live: t.Any, echo_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An agent that rewrites a file in a loop wakes the watcher each time: the catalog is then
    checked at most BUSY_SHARE of the time, each check waiting what the last one cost."""
    from cogtools.mcp.live import BUSY_SHARE, follow

    if Watcher.start() is None:
        pytest.skip("no inotify here")
    told = Told()
    checks: list[float] = []
    real = live.refresh

    def slow_refresh() -> t.Any:
        checks.append(time.monotonic())
        found = real()
        live.check_seconds = 0.05  # as a large catalog's check costs
        return found

    monkeypatch.setattr(live, "refresh", slow_refresh)

    async def main() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(follow, live, 3600.0, lambda line: None, told.announce)
            end = time.monotonic() + 2
            number = 0
            while time.monotonic() < end:
                number += 1
                write(
                    echo_project / "tools" / "churn.yaml", ECHO_TOOL.replace("name: echo", f"name: churn{number % 3}")
                )
                await anyio.sleep(0.01)
            group.cancel_scope.cancel()

    anyio.run(main)
    assert 1 <= len(checks) <= 2 / (0.05 / BUSY_SHARE) + 1, checks
