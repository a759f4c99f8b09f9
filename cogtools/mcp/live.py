"""The catalog kept live: :class:`LiveCatalog` is the project's catalog as its files are now, and
:func:`follow` watches the directories it reads (inotify, :mod:`cogtools.mcp.watching`; elsewhere
the files are checked every ``interval`` seconds) and, on a change, has it announced. A tool whose
file an edit broke keeps being served as it was until the file is mended."""

from __future__ import annotations

import json
import threading
import time
import typing as t
from pathlib import Path

from cogtools.load import loading  # (its load_project looked up at each load: the tests count the loads)
from cogtools.load.catalog import Catalog, Entry, warm_state
from cogtools.load.config import user_config_path
from cogtools.load.loading import Loaded
from cogtools.mcp.watching import Watcher

#: With the kernel telling of changes, the files are still checked this often (seconds), for
#: what it cannot tell: a directory that did not exist, a file system that does not report.
CHECK_ANYWAY = 30.0
#: How long to wait after a change before reading: a save is often several writes.
SETTLE = 0.05
#: Without the kernel's help, checking takes at most this share of the time, however large the
#: catalog (the interval grows with what a check costs).
CHECK_SHARE = 0.01
#: With it, checking takes at most this share of the time while the files keep changing.
BUSY_SHARE = 0.1


class LiveCatalog:
    """The catalog of a project as its files are now; a tool an edit broke is served as it was
    last good (and the breakage reported), until its file is mended or removed.

    Whether anything changed is asked of the fast index first (:func:`cogtools.load.catalog.warm_state`:
    a stat of each file and directory, no file read); only when it says so is the catalog
    loaded again (through the cache: only the files that changed are read) and compared with
    what is served."""

    def __init__(self, cwd: Path, environ: t.Mapping[str, str]) -> None:
        self._cwd = cwd
        self._environ = environ
        self._lock = threading.Lock()
        #: How long the last check for a change took, in seconds.
        self.check_seconds = 0.0
        self.loaded, self._state, self.directories = self._load()
        self._signature = self._sign(self.loaded)

    def count(self) -> int:
        """How many of the project's tools are served."""
        return len(self.loaded.catalog.tools) if self.loaded.catalog is not None else 0

    def _load(self, previous: Loaded | None = None) -> tuple[Loaded, str | None, frozenset[str]]:
        """The catalog as the files are now (with what ``previous`` served of the tools an
        edit broke), the state the fast index gives it, and the directories whose changes
        change it."""
        loaded = loading.load_project(self._cwd, self._environ)
        fresh, old = loaded.catalog, previous.catalog if previous is not None else None
        if fresh is None:
            return loaded, None, self._config_directories(loaded.root)
        state = fresh.state[1] if fresh.state is not None else None
        directories = self._config_directories(fresh.project.root) | {
            *fresh.directories,
            *(str(source.directory) for source in fresh.project.sources),
        }
        if old is None:
            return loaded, state, directories
        broken = {problem.tool for problem in fresh.problems}
        kept = [tool.to_dict() for name, tool in old.tools.items() if name in broken and name not in fresh.names()]
        if not kept:
            return loaded, state, directories
        entries = [Entry.of(data) for data in [*[fresh.tools[name].to_dict() for name in fresh.names()], *kept]]
        merged = Loaded(Catalog(fresh.project, entries, fresh.problems, fresh.warnings, directories=fresh.directories))
        return merged, state, directories

    def _config_directories(self, root: Path | None) -> frozenset[str]:
        """The directories of the configuration files: the user's, the one
        ``COGTOOLS_CONFIG`` names, the project's (in its root)."""
        named = self._environ.get("COGTOOLS_CONFIG")
        places = [user_config_path(self._environ), Path(named).expanduser() if named else None]
        found = {str(place.parent) for place in places if place is not None}
        return frozenset(found | ({str(root)} if root is not None else set()))

    @staticmethod
    def _sign(loaded: Loaded) -> str:
        catalog = loaded.catalog
        if catalog is None:
            return json.dumps({"error": str(loaded.error)})
        return json.dumps(
            {
                "tools": {name: tool.to_dict() for name, tool in catalog.tools.items()},
                "problems": [str(p) for p in catalog.problems],
                "config": {k: s.value for k, s in catalog.project.config.settings.items()},
            },
            sort_keys=True,
            default=str,
        )

    def refresh(self) -> list[str] | None:
        """Reload if anything changed; None when nothing did, else the problems of the new
        catalog (a line each)."""
        with self._lock:
            started = time.monotonic()
            warm = warm_state(self._cwd, self._environ)
            self.check_seconds = time.monotonic() - started
            if warm is not None and self._state is not None and warm[1] == self._state:
                return None
            loaded, self._state, self.directories = self._load(self.loaded)
            if loaded.catalog is None and self.loaded.catalog is not None:
                # a broken configuration: keep serving what was served
                assert loaded.error is not None
                return [f"{loaded.error.code}: {loaded.error}"]
            signature = self._sign(loaded)
            if signature == self._signature:
                return None
            self.loaded, self._signature = loaded, signature
            if loaded.catalog is None:
                assert loaded.error is not None
                return [f"{loaded.error.code}: {loaded.error}"]
            return [f"{p.code}: {p}" for p in loaded.catalog.problems]


#: What is told of a change: the problems of the new catalog, a line each.
Announce = t.Callable[[list[str]], t.Awaitable[None]]


async def follow(
    live: LiveCatalog, interval: float, report: t.Callable[[str], None], announce: Announce, *, at_once: bool = False
) -> None:
    """Follow the files; on a change, say so on ``report`` and ``announce`` it (to every client).
    Where the kernel tells of changes (:class:`cogtools.mcp.watching.Watcher`), the catalog is
    checked when a directory it reads changes (and every :data:`CHECK_ANYWAY` seconds); else
    every ``interval`` seconds, or less often when a check costs more than :data:`CHECK_SHARE`
    of that. ``at_once``: checked first as soon as the directories are watched (the catalog was
    loaded a while ago: a stdio server answers from it while it imports the SDK)."""
    import anyio  # (here: a stdio server loads its catalog, and answers from it, before it imports anyio)

    watcher = Watcher.start()
    told = watcher is not None and watcher.watch(live.directories)
    try:
        while True:
            if at_once:
                at_once = False
            elif told:
                assert watcher is not None
                with anyio.move_on_after(CHECK_ANYWAY):
                    await anyio.wait_readable(watcher.fileno())
                    # a save is often several writes; and files that change without end (an agent
                    # writing in a loop) are checked at most BUSY_SHARE of the time
                    await anyio.sleep(max(SETTLE, live.check_seconds / BUSY_SHARE))
                watcher.drain()
            else:
                await anyio.sleep(max(interval, live.check_seconds / CHECK_SHARE))
            problems = await anyio.to_thread.run_sync(live.refresh)
            if told:
                assert watcher is not None
                told = watcher.watch(live.directories)
            if problems is None:
                continue
            report(f"the tools changed ({live.count()} tools)")
            for line in problems:
                report(f"skipped: {line}")
            await announce(problems)
    finally:
        if watcher is not None:
            watcher.close()
