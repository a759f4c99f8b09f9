"""The limits that keep a hostile file or input from taking cogtools down (DESIGN §11).

Everything cogtools reads may be hostile: tool files, configuration, ``.env``, stdin, the cache.
Each reading path checks what it reads against these numbers, and a value past one is an error
with the code of what was being read (``DEFINITION_INVALID``, ``CONFIG_INVALID``,
``INVALID_INPUT``), never a crash, a hang or a traceback. They are far above what a real tool
needs and far below what hurts: a 1 MiB definition is a thousand times the largest shipped
example; Gemini CLI itself reads at most 10 MB of discovery output.

This module also holds the one reader of files cogtools did not write, :func:`read_file`: it opens
regular files only (a FIFO, a device or a socket named like a tool file would block or never end)
and never reads past a limit.
"""

from __future__ import annotations

import io
import os
import stat

#: The largest definition file (a tool file, a script with a header) that is read.
MAX_DEFINITION_BYTES = 1024 * 1024
#: The most files the code of one tool may have: past it, cogtools cannot pin it and says so
#: (no silent cap: a file past a cap would be code that runs unchecked).
MAX_CODE_FILES = 512
#: The most places one tool's pin names where no file is yet (so that one written later is a
#: change: a per-file tool's configuration names in each directory it may look in), besides its
#: code: they cost little (a listing of each directory, read once), and nothing to show the program;
#: a per-file tool over 128 directories names up to about 10,000 (cspell: 72 names in each).
MAX_ABSENT_FILES = 16_384
#: The most files, and bytes, one installed npm package may have: a package of ``node_modules`` is
#: pinned whole, as one entry (its name, version and a digest of its installed tree), not file by
#: file; past either, cogtools cannot pin it and says which package it is.
MAX_PACKAGE_FILES = 20_000
MAX_PACKAGE_BYTES = 256 * 1024 * 1024
#: The largest file of a tool's code a pin hashes (a script, a configuration: a sparse file of
#: gigabytes would make each call read it): past it, the tool cannot run unasked.
MAX_CODE_FILE_BYTES = 64 * 1024 * 1024
#: The largest pins file of a project (the user's own, private, written by cogtools: a pin of a
#: per-file tool names every place it looks, tens of KB each, and a project may have hundreds).
MAX_PINS_BYTES = 64 * 1024 * 1024
#: The largest configuration file (``.cogtoolrc.yaml``, ``pyproject.toml``, ``.env``, the user's
#: config, ``settings.json``, ``GEMINI.md``) that is read.
MAX_CONFIG_BYTES = 1024 * 1024
#: The most stdin a call reads: 4 MiB. Larger input is INVALID_INPUT (after it is drained).
MAX_INPUT_BYTES = 4 * 1024 * 1024
#: How deeply collections may nest, in any file or input (a tool schema needs a dozen levels).
MAX_DEPTH = 100
#: How many values a YAML document may hold once its aliases are expanded (billion laughs).
MAX_NODES = 100_000
#: How many directory entries one tool source may hold, and how deep its directories may go:
#: ``local: /`` must end, and say why.
MAX_SOURCE_ENTRIES = 100_000
MAX_SOURCE_DEPTH = 32


class FileRefused(ValueError):
    """A file that is not read: not a regular file, or larger than the limit."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def read_file(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of the regular file at ``path``; FileRefused when it is something else (a FIFO,
    a device, a directory) or larger than ``limit`` bytes; OSError when it cannot be opened.

    The file is opened without blocking (a FIFO would wait for a writer forever) and only then
    checked, so the check is about the file actually read, not a name that changed meanwhile.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(21, "Is a directory", str(path))
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused(f"not a regular file ({_kind(info.st_mode)}); only regular files are read")
        if info.st_size > limit:
            raise FileRefused(f"larger than the limit of {limit} bytes ({info.st_size} bytes)")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(limit + 1 - size, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:  # it grew while we read
            raise FileRefused(f"larger than the limit of {limit} bytes")
        return b"".join(chunks)
    finally:
        os.close(fd)


def open_regular(path: str | os.PathLike[str]) -> io.BufferedReader | None:
    """The regular file at ``path``, open to read; None for anything else (a directory, a FIFO,
    a device: checked on what was opened, without blocking) or what cannot be opened."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            return os.fdopen(fd, "rb")
    except OSError:
        pass
    os.close(fd)
    return None


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "a special file"


def depth_problem(value: object, limit: int = MAX_DEPTH) -> str | None:
    """Why ``value`` (JSON data) nests too deeply, or None. Iterative: any depth is measured
    safely."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: object = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return f"collections nest more than {limit} levels deep"
        stack.extend((child, depth + 1) for child in children)  # type: ignore[attr-defined]
    return None
