"""Where cogtools keeps the user's own files, and what makes one of them trustworthy.

- the user's configuration, ``$XDG_CONFIG_HOME/cogtools/`` (else ``~/.config/cogtools/``);
- the cache, ``$COGTOOLS_CACHE_DIR``, else ``$XDG_CACHE_HOME/cogtools/`` (else
  ``~/.cache/cogtools/``), none at all with ``COGTOOLS_NO_CACHE``;
- the state (the pins), ``$XDG_STATE_HOME/cogtools/`` (else ``~/.local/state/cogtools/``).

Files about one project are named by :func:`project_key`. The agent's file tools work in the
workspace, not here; a file here is believed only when it is the user's own and only they can
write it (:func:`is_private`).
"""

from __future__ import annotations

import os
from _operator import _compare_digest  # hmac's own comparison, without loading OpenSSL as hmac does

#: (Nothing costly at the top: a warm ``cogtools-call`` answered from its record imports this
#: module, and neither ``typing``, ``pathlib`` nor ``hashlib``; see :mod:`cogtools.cli.warm`.)
TYPE_CHECKING = False
if TYPE_CHECKING:
    import typing as t
    from pathlib import Path

try:  # the BLAKE2 of hashlib, without loading OpenSSL as importing hashlib does
    from _blake2 import blake2b
except ImportError:  # pragma: no cover (an interpreter without the module)
    from hashlib import blake2b


def _user_dir(environ: t.Mapping[str, str], variable: str, fallback: str) -> str | None:
    if environ.get(variable):
        return os.path.join(environ[variable], "cogtools")
    if environ.get("HOME"):
        return os.path.join(environ["HOME"], fallback, "cogtools")
    return None


def _path(found: str | None) -> Path | None:
    from pathlib import Path

    return None if found is None else Path(found)


def config_dir(environ: t.Mapping[str, str]) -> Path | None:
    """The user's configuration directory, or None when neither XDG_CONFIG_HOME nor HOME is set."""
    return _path(_user_dir(environ, "XDG_CONFIG_HOME", ".config"))


def cache_dir(environ: t.Mapping[str, str]) -> Path | None:
    """Where caches live, or None when caching is off (``COGTOOLS_NO_CACHE``) or there is no home."""
    return _path(cache_path(environ))


def cache_path(environ: t.Mapping[str, str]) -> str | None:
    """:func:`cache_dir`, as a string."""
    if environ.get("COGTOOLS_NO_CACHE"):
        return None
    if environ.get("COGTOOLS_CACHE_DIR"):
        return environ["COGTOOLS_CACHE_DIR"]
    return _user_dir(environ, "XDG_CACHE_HOME", ".cache")


def state_dir(environ: t.Mapping[str, str]) -> Path | None:
    """The user's state directory (the pins), or None when neither XDG_STATE_HOME nor HOME is set."""
    return _path(_user_dir(environ, "XDG_STATE_HOME", os.path.join(".local", "state")))


def project_key(path: Path | str) -> str:
    """The name of what is kept about the project (or file) at ``path``: 20 hex digits of its
    SHA-256."""
    import hashlib

    return hashlib.sha256(str(path).encode()).hexdigest()[:20]


def is_private(info: os.stat_result) -> bool:
    """Owned by this user and writable by nobody else."""
    return info.st_uid == os.geteuid() and not info.st_mode & 0o022


def read_private(path: str | os.PathLike[str], limit: int, span: tuple[int, int] | None = None) -> bytes | None:
    """The bytes of ``path`` (or the ``span``, offset and length, of them) if it is a regular file
    of this user's that only they can write, of at most ``limit`` bytes (holding all the span)."""
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or not is_private(info) or info.st_size > limit:
            return None
        if span is not None:
            offset, length = span
            data = os.pread(fd, length, offset) if offset + length <= info.st_size else b""
            return data if len(data) == length else None
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)[:limit]
    except OSError:
        return None
    finally:
        os.close(fd)


def cache_key(directory: str | os.PathLike[str]) -> bytes | None:
    """The user's key for what cogtools keeps in the cache ``directory`` (its MACs), made on first
    use; None when it cannot be had safely."""
    import stat

    path = os.path.join(directory, "key")
    key = read_private(path, 64)
    if key is not None and len(key) == 32:
        return key
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        info = os.stat(directory)
        if not is_private(info):
            return None
        if stat.S_IMODE(info.st_mode) != 0o700:
            os.chmod(directory, 0o700)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except FileExistsError:  # another process made it meanwhile, or a bad one is in the way
        key = read_private(path, 64)
        return key if key is not None and len(key) == 32 else None
    except OSError:
        return None
    key = os.urandom(32)
    try:
        os.write(fd, key)
    finally:
        os.close(fd)
    return key


def mac(key: bytes, payload: bytes) -> bytes:
    """The MAC of ``payload`` under the user's ``key`` (:func:`cache_key`), as hex."""
    return blake2b(payload, key=key, digest_size=32).hexdigest().encode()


def compare_digest(a: t.AnyStr, b: t.AnyStr) -> bool:
    """:func:`hmac.compare_digest` (in time that does not depend on where they differ)."""
    return _compare_digest(a, b)


def authentic(key: bytes, signature: bytes, payload: bytes) -> bool:
    """Whether ``signature`` is the MAC of ``payload`` under ``key`` (compared in constant time)."""
    return compare_digest(signature, mac(key, payload))


def digest(payload: bytes, size: int = 16) -> str:
    """A digest of ``payload`` (BLAKE2b), as hex: what names or checks a thing, unkeyed."""
    return blake2b(payload, digest_size=size).hexdigest()
