"""Reading and writing the files cogtools maintains.

Writing never leaves half a file: the text goes to a temporary file beside the target, is
flushed to disk, and is renamed over the target. A symbolic link is written through (its target
is replaced, the link stays: ``GEMINI.md -> AGENTS.md`` is common); a file keeps its mode, and a
new one gets the umask's; a read-only file is refused, not replaced.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


class ReadOnly(PermissionError):
    """The target is read-only: cogtools does not override a person's decision."""


def write_atomic(path: Path, text: str, *, mode: int | None = None) -> None:
    """Replace the file at ``path`` (through symbolic links) with ``text`` (UTF-8) in one step.

    The file keeps its mode; a new file gets ``mode``, else the umask's (0666 less the umask).
    Raises OSError (ReadOnly for a file without write permission); the target is then as it was.
    """
    target = Path(os.path.realpath(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        info = target.stat()
    except FileNotFoundError:
        final = _umask_mode() if mode is None else mode
    else:
        final = stat.S_IMODE(info.st_mode)
        if not final & 0o222:
            raise ReadOnly(13, "the file is read-only; left untouched", str(path))
    replace_file(target, text.encode("utf-8"), final, durable=True)


def replace_file(path: Path, data: bytes, mode: int = 0o600, *, durable: bool = False) -> None:
    """The one atomic write: ``data`` goes to a new temporary file beside ``path`` (of ``mode``),
    which is renamed over ``path``, so a reader sees the old file or the new one, whole, and two
    writers each leave a whole file (the last one wins). ``path`` itself is replaced, never a
    file a link there points to. ``durable``: flushed to disk before the rename (what a person's
    file deserves; a cache does without). Raises OSError, ``path`` then as it was."""
    import tempfile  # imported by a write only: every call reads a pin through this module

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            if durable:
                f.flush()
                os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_private(path: Path, text: str) -> None:
    """:func:`write_atomic` for the user's own state: the directory 0700, the file 0600."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    write_atomic(path, text, mode=0o600)


def _umask_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def read_config(path: Path, limit: int | None = None) -> str | None:
    """The text of a configuration file (settings, GEMINI.md, .env, .cogtoolrc.yaml, a secret's
    file), a byte order mark included (a file rewritten keeps it): None when it does not exist;
    CONFIG_INVALID when it cannot be read, is not UTF-8, is not a regular file or is past ``limit``
    bytes (default :data:`~cogtools.limits.MAX_CONFIG_BYTES`). The content is never quoted."""
    from cogtools.errors import ConfigInvalidError
    from cogtools.limits import MAX_CONFIG_BYTES, FileRefused, read_file

    try:
        return read_file(path, MAX_CONFIG_BYTES if limit is None else limit).decode("utf-8")
    except FileNotFoundError:
        return None
    except FileRefused as e:
        raise ConfigInvalidError(e.message, path=str(path)) from e
    except UnicodeDecodeError as e:
        raise ConfigInvalidError(f"not UTF-8 (byte {e.start})", path=str(path)) from e
    except OSError as e:
        raise ConfigInvalidError(f"cannot read: {e.strerror}", path=str(path)) from e


def write_config(path: Path, text: str) -> None:
    """:func:`write_atomic`, with a failure as CONFIG_INVALID (the file is then as it was)."""
    from cogtools.errors import ConfigInvalidError

    try:
        write_atomic(path, text)
    except OSError as e:
        raise ConfigInvalidError(f"cannot write: {e.strerror}", path=str(path), details={"reason": "unwritable"}) from e
