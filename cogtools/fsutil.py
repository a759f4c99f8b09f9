"""Writing files so that an interruption never leaves half of one: a temporary file in the same
directory, flushed to disk, then renamed over the target."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8) in one step; keeps the mode of a file it replaces.

    Raises OSError; the target is then as it was.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode: int | None = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = None
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def read_config(path: Path) -> str | None:
    """The text of a configuration file (settings, GEMINI.md, .env, .cogtoolrc.yaml), a byte order
    mark included (a file rewritten keeps it): None when it does not exist; CONFIG_INVALID when it cannot be read, is not UTF-8, is not a regular file or
    is past :data:`~cogtools.limits.MAX_CONFIG_BYTES`."""
    from cogtools.errors import ConfigInvalidError
    from cogtools.limits import MAX_CONFIG_BYTES, FileRefused, read_file

    try:
        return read_file(path, MAX_CONFIG_BYTES).decode("utf-8")
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
        raise ConfigInvalidError(f"cannot write: {e.strerror}", path=str(path)) from e
