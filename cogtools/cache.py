"""The catalog cache: what each definition file yielded, keyed by its source and path, and
reused while the file's identity is unchanged.

An entry is reused only while the file's inode, size, modification and change times are what
they were when it was parsed. Files modified within :data:`RACY_SECONDS` of the write are not
cached (a change inside the same timestamp tick would otherwise go unseen). It is only ever an
optimisation, and it is read as untrusted input (DESIGN §11):

- a cache file is used only when cogtools wrote it: it carries a keyed MAC (BLAKE2b) of its
  content under a random key private to the user (``key`` in the cache directory, mode 0600), so
  a file that was edited, truncated, corrupted or written in any other shape is a miss, and the
  definitions are read again;
- it is stamped with the cache format, cogtools' version, the project root, the Python version
  and the identity of the installed libraries that shape an entry (PyYAML, jsonschema, Jinja2),
  so an upgrade of any of them is a miss;
- a cache file or key not owned by the user, or writable by others, is ignored, and the
  directory is created private (0700).

The cache is written atomically (a temporary file in the same directory, then a rename), so
concurrent writers each leave a whole file and the last one wins; one that cannot be written is
simply not written.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import stat
import sys
import tempfile
import time
import typing as t
from pathlib import Path

from cogtools import __version__

#: Bump whenever the cached form changes (the model, Tool.to_dict, the entries below), or what
#: a load accepts (an entry cached by the older rules would skip the new checks).
CACHE_FORMAT = 6
RACY_SECONDS = 2.0
#: The libraries whose behaviour shapes a cached entry.
LIBRARIES = ("yaml", "jsonschema", "jinja2")
#: The largest cache file read (a catalog of tens of thousands of tools is far below).
MAX_CACHE_BYTES = 512 * 1024 * 1024

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


def library_stamp() -> str:
    """The Python version and the identity (inode, mtime) of each library of :data:`LIBRARIES`,
    found without importing it: the first through the import system, the others, as a rule
    installed beside it, by a look in the same directory."""
    import importlib.util

    parts = [".".join(map(str, sys.version_info[:3]))]
    base: str | None = None
    for name in LIBRARIES:
        info = None
        if base is not None:
            try:
                info = os.stat(os.path.join(base, name, "__init__.py"))
            except OSError:
                info = None
        if info is None:
            try:
                spec = importlib.util.find_spec(name)
                if spec is not None and spec.origin:
                    info = os.stat(spec.origin)
                    base = os.path.dirname(os.path.dirname(spec.origin))
            except (ImportError, ValueError, OSError):
                info = None
        parts.append(f"{name}={info.st_ino}.{info.st_mtime_ns}" if info is not None else f"{name}=-")
    return ",".join(parts)


def _private(info: os.stat_result) -> bool:
    """Owned by this user and writable by nobody else."""
    return info.st_uid == os.geteuid() and not info.st_mode & 0o022


def _read_private(path: Path, limit: int) -> bytes | None:
    """The bytes of ``path`` if it is a regular file of this user's that only they can write."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or not _private(info) or info.st_size > limit:
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read(limit + 1)[:limit]
    except OSError:
        return None
    finally:
        os.close(fd)


def cache_key(directory: Path) -> bytes | None:
    """The user's cache key, made on first use; None when it cannot be had safely."""
    path = directory / "key"
    key = _read_private(path, 64)
    if key is not None and len(key) == 32:
        return key
    try:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        info = directory.stat()
        if not _private(info):
            return None
        if stat.S_IMODE(info.st_mode) != 0o700:
            os.chmod(directory, 0o700)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except FileExistsError:  # another process made it meanwhile, or a bad one is in the way
        key = _read_private(path, 64)
        return key if key is not None and len(key) == 32 else None
    except OSError:
        return None
    key = os.urandom(32)
    try:
        os.write(fd, key)
    finally:
        os.close(fd)
    return key


def _mac(key: bytes, payload: bytes) -> bytes:
    return hashlib.blake2b(payload, key=key, digest_size=32).hexdigest().encode()


class CatalogCache:
    """The cached entries of one project, by key (the catalog's: source and absolute path)."""

    def __init__(self, directory: Path | None, root: Path) -> None:
        self.path = (
            directory / f"catalog-{hashlib.sha256(str(root).encode()).hexdigest()[:20]}.json"
            if directory is not None
            else None
        )
        self._key = cache_key(directory) if directory is not None else None
        if self._key is None:
            self.path = None  # no safe key, no cache
        self._stamp = f"{CACHE_FORMAT}:{__version__}:{root}:{library_stamp()}"
        self._old: dict[str, t.Any] = {}
        self._new: dict[str, t.Any] = {}
        self._dirty = False
        if self.path is not None:
            self._old = self._read(self.path)

    def _read(self, path: Path) -> dict[str, t.Any]:
        """The entries of the cache file, or {} unless cogtools wrote it for this very stamp."""
        assert self._key is not None
        data = _read_private(path, MAX_CACHE_BYTES)
        if data is None:
            return {}
        mac, _, payload = data.partition(b"\n")
        if not hmac.compare_digest(mac, _mac(self._key, payload)):
            return {}
        try:
            document = json.loads(payload)
        except ValueError:
            return {}
        if not isinstance(document, dict) or document.get("stamp") != self._stamp:
            return {}
        files = document.get("files")
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
        if self.path is None or self._key is None or not (self._dirty or self._new.keys() != self._old.keys()):
            return
        payload = json.dumps({"stamp": self._stamp, "files": self._new}, separators=(",", ":")).encode("utf-8")
        tmp = None
        try:
            fd, tmp = tempfile.mkstemp(prefix=".catalog-", suffix=".tmp", dir=self.path.parent)
            with os.fdopen(fd, "wb") as f:
                f.write(_mac(self._key, payload) + b"\n" + payload)
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
