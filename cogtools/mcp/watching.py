"""Knowing when a directory changes without looking: Linux's inotify, through the C library.

A long-running server (``cogtools mcp``) that follows a catalog's files asks the kernel to tell
it when anything in the directories that make the catalog changes (a file written, created,
removed, renamed, its mode changed), rather than checking every file each second: idle, it costs
nothing, whatever the size of the catalog. A directory is watched alone, not with all it holds,
so that the directories a catalog reads are watched and nothing else (a recursive watch of a
project's root would take a watch per directory of its ``node_modules``).

Where there is no inotify (not Linux, or a C library without it) or the kernel refuses more
watches, :meth:`Watcher.start` and :meth:`Watcher.watch` say so, and the caller looks instead.

Not a package such as ``watchfiles``: it watches a tree recursively or not at all, and brings a
compiled extension; what is needed here is a set of single directories and one file descriptor to
wait on, which is four calls of the C library.
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct
import sys
import typing as t

#: What is watched of each directory: its entries written, created, removed, renamed or their
#: metadata changed, and the directory itself removed or moved.
_IN_MODIFY, _IN_ATTRIB, _IN_CLOSE_WRITE = 0x002, 0x004, 0x008
_IN_MOVED_FROM, _IN_MOVED_TO, _IN_CREATE, _IN_DELETE = 0x040, 0x080, 0x100, 0x200
_IN_DELETE_SELF, _IN_MOVE_SELF, _IN_ONLYDIR = 0x400, 0x800, 0x01000000
MASK = (
    _IN_MODIFY
    | _IN_ATTRIB
    | _IN_CLOSE_WRITE
    | _IN_MOVED_FROM
    | _IN_MOVED_TO
    | _IN_CREATE
    | _IN_DELETE
    | _IN_DELETE_SELF
    | _IN_MOVE_SELF
    | _IN_ONLYDIR
)
#: What a watch removed says (by :meth:`Watcher.watch`, or by the kernel when its directory
#: went): no change of the catalog's by itself.
_IN_IGNORED = 0x8000
#: How much is read of the events at once (each is 16 bytes and a name).
_READ = 64 * 1024


class Watcher:
    """An inotify instance watching a set of directories; :meth:`fileno` becomes readable when
    any of them changes, and :meth:`drain` takes what it says."""

    def __init__(self, libc: t.Any, fd: int) -> None:
        self._libc = libc
        self._fd = fd
        #: The watch descriptor of each directory watched, by path.
        self._watches: dict[str, int] = {}

    @classmethod
    def start(cls) -> Watcher | None:
        """A new watcher, or None where the system has no inotify to give."""
        if not sys.platform.startswith("linux"):
            return None
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            init, add, remove = libc.inotify_init1, libc.inotify_add_watch, libc.inotify_rm_watch
        except (OSError, AttributeError):
            return None
        add.argtypes, add.restype = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32], ctypes.c_int
        remove.argtypes, remove.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
        fd = init(os.O_NONBLOCK | os.O_CLOEXEC)
        return cls(libc, fd) if fd >= 0 else None

    def fileno(self) -> int:
        return self._fd

    def watch(self, directories: t.Iterable[str]) -> bool:
        """Watch ``directories`` and no others: those newly named are added, those no longer
        named removed. False when the kernel refused one for want of watches (its
        ``max_user_watches``): then what changes can no longer be known this way. A directory that
        does not exist (or is not one) is left out; the catalog notices when it comes."""
        wanted = set(directories)
        for path in set(self._watches) - wanted:
            self._libc.inotify_rm_watch(self._fd, self._watches.pop(path))  # (gone already: EINVAL)
        for path in wanted - set(self._watches):
            descriptor = self._libc.inotify_add_watch(self._fd, os.fsencode(path), MASK)
            if descriptor >= 0:
                self._watches[path] = descriptor
            elif ctypes_errno() == errno.ENOSPC:
                return False
        return True

    def watched(self) -> set[str]:
        return set(self._watches)

    def drain(self) -> bool:
        """Take every event waiting; whether any told of a change (a queue that overflowed
        does)."""
        seen = False
        while True:
            try:
                data = os.read(self._fd, _READ)
            except BlockingIOError:
                return seen
            if not data:
                return seen
            offset = 0
            while offset + 16 <= len(data):  # struct inotify_event: wd, mask, cookie, len, name
                _, mask, _, length = struct.unpack_from("iIII", data, offset)
                seen = seen or not mask & _IN_IGNORED
                offset += 16 + length

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def ctypes_errno() -> int:
    return ctypes.get_errno()
