"""The catalog cache: what each definition file yielded, keyed by the file's identity.

An entry is reused only while the file's inode, size, modification and change times are what
they were when it was parsed, and the cache was written by this very version of cogtools. Files
modified within :data:`RACY_SECONDS` of the write are not cached (a change inside the same
timestamp tick would otherwise go unseen). The cache is written atomically (a temporary file in
the same directory, then a rename), so concurrent writers each leave a whole file and the last
one wins; a cache that cannot be read is ignored and rebuilt; one that cannot be written is
simply not written. It is only ever an optimisation.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
import typing as t
from pathlib import Path

from cogtools import __version__

#: Bump whenever the cached form changes (the model, Tool.to_dict, the entries below).
CACHE_FORMAT = 3
RACY_SECONDS = 2.0

Stat = t.List[int]


def cache_dir(environ: t.Mapping[str, str]) -> Path | None:
    """Where caches live, or None when caching is off (``COGTOOLS_NO_CACHE``)."""
    if environ.get("COGTOOLS_NO_CACHE"):
        return None
    if environ.get("COGTOOLS_CACHE_DIR"):
        return Path(environ["COGTOOLS_CACHE_DIR"])
    if environ.get("XDG_CACHE_HOME"):
        return Path(environ["XDG_CACHE_HOME"]) / "cogtools"
    if environ.get("HOME"):
        return Path(environ["HOME"]) / ".cache" / "cogtools"
    return None


def file_stat(st: os.stat_result) -> Stat:
    return [st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


class CatalogCache:
    """The cached entries of one project, by absolute file path."""

    def __init__(self, directory: Path | None, root: Path) -> None:
        self.path = (
            directory / f"catalog-{hashlib.sha256(str(root).encode()).hexdigest()[:20]}.json"
            if directory is not None
            else None
        )
        self._stamp = f"{CACHE_FORMAT}:{__version__}:{root}"
        self._old: dict[str, t.Any] = {}
        self._new: dict[str, t.Any] = {}
        self._dirty = False
        if self.path is not None:
            self._old = self._read(self.path)

    def _read(self, path: Path) -> dict[str, t.Any]:
        try:
            with open(path, "rb") as f:
                data = json.loads(f.read())
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("stamp") != self._stamp:
            return {}
        files = data.get("files")
        return files if isinstance(files, dict) else {}

    def get(self, path: str, stat: Stat) -> dict[str, t.Any] | None:
        """The entry for ``path`` if it was made from the file as it is now."""
        entry = self._old.get(path)
        if isinstance(entry, dict) and entry.get("stat") == stat:
            self._new[path] = entry
            return entry
        return None

    def put(self, path: str, stat: Stat, entry: dict[str, t.Any]) -> None:
        self._dirty = True
        if time.time_ns() - stat[2] > RACY_SECONDS * 1e9:
            self._new[path] = {"stat": stat, **entry}

    def save(self) -> None:
        """Write the entries used in this run, when anything changed; never raises."""
        if self.path is None or not (self._dirty or self._new.keys() != self._old.keys()):
            return
        payload = json.dumps({"stamp": self._stamp, "files": self._new}, separators=(",", ":"))
        tmp = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".catalog-", suffix=".tmp", dir=self.path.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(payload)
            os.replace(tmp, self.path)
            tmp = None
        except OSError:
            pass
        finally:
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
