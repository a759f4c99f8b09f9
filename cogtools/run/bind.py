"""Showing a program the checked bytes of the files it runs (DESIGN §11: the bytes that run are
the bytes that were checked).

A pin check reads a script (a script tool's own file, the script a command's ``sh`` runs) and
compares its digest; the interpreter then opens the file by path, and a writer flipping the file
in between could slip another version in. So the program runs in a mount namespace of its own,
made by bubblewrap (``bwrap``, from the distribution), in which every checked file is a
read-only copy of the bytes that were checked, at its own path, in a private copy of its
directory (:func:`wrap`): ``$0``, ``BASH_SOURCE``, ``__file__``, a re-exec of the script and a
``multiprocessing`` child all see the file where it is, with the checked content. Nothing else
changes: the rest of the file system is bound as it is (``--dev-bind / /``), the user and the
network are the caller's, and the program dies with cogtools (``--die-with-parent``).

Where bubblewrap is missing or cannot make a namespace (no unprivileged user namespaces, a
container that forbids them), the program reads the files by path as before, just after their
check, and ``cogtools doctor`` says so.
"""

from __future__ import annotations

import errno
import functools
import itertools
import os
import typing as t

from cogtools.core.limits import MAX_CODE_FILES

#: Where bubblewrap is looked for: the system's own places, never a directory the workspace
#: could put first on PATH.
BWRAP_PATHS = ("/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap")
#: At most this many files are bound for one program (each is a descriptor until it starts): as
#: many as the code a pin covers (:data:`cogtools.core.limits.MAX_CODE_FILES`); more is refused, never cut.
MAX_BOUND = MAX_CODE_FILES


@functools.cache
def bwrap() -> str | None:
    """The path of a bubblewrap that can make a mount namespace here, or None; found and tried
    once (:func:`works`)."""
    for path in BWRAP_PATHS:
        if os.access(path, os.X_OK):
            return path if works(path, ("--dev-bind", "/", "/")) else None
    return None


def works(path: str, words: t.Sequence[str]) -> bool:
    """Whether the bubblewrap at ``path`` runs ``/bin/sh -c :`` with ``words`` here. Tried once
    per machine and kept in the user's cache (a few milliseconds a call otherwise), for as long
    as bubblewrap, the kernel, the user and the sysctls that allow user namespaces are the same;
    tried every time without a cache."""
    import json

    key = json.dumps([_fingerprint(path), list(words)])
    kept = _kept()
    if key in kept:
        return bool(kept[key])
    import subprocess

    try:
        probe = subprocess.run(
            [path, *words, "--", "/bin/sh", "-c", ":"], stdin=subprocess.DEVNULL, capture_output=True, timeout=10
        )
        result = probe.returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False
    _keep({**kept, key: result})
    return result


#: What allows a user namespace here: a change to any of them is tried again.
USERNS_SYSCTLS = (
    "/proc/sys/kernel/unprivileged_userns_clone",
    "/proc/sys/user/max_user_namespaces",
    "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
)


def _fingerprint(path: str) -> list[t.Any]:
    info = os.stat(path)
    sysctls: list[str | None] = []
    for name in USERNS_SYSCTLS:
        try:
            with open(name, "rb") as f:
                sysctls.append(f.read(64).decode("ascii", "replace").strip())
        except OSError:
            sysctls.append(None)
    return [path, info.st_ino, info.st_size, info.st_mtime_ns, os.uname().release, os.geteuid(), sysctls]


def _probes_path() -> str | None:
    from cogtools.core.places import cache_dir

    directory = cache_dir(os.environ)
    return None if directory is None else str(directory / "bubblewrap.json")


def _kept() -> dict[str, t.Any]:
    """What was tried before, from the user's own cache (a file anyone else could write is not
    believed)."""
    import json

    from cogtools.core.places import is_private

    path = _probes_path()
    if path is None:
        return {}
    try:
        with open(path, "rb") as f:
            if not is_private(os.fstat(f.fileno())):
                return {}
            data = json.loads(f.read(65536))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _keep(tried: dict[str, t.Any]) -> None:
    import json
    from pathlib import Path

    from cogtools.core.fsutil import write_private

    path = _probes_path()
    if path is not None:
        try:
            write_private(Path(path), json.dumps(dict(list(tried.items())[-16:])))
        except OSError:
            pass  # a cache that cannot be written is tried again next time


def wrap(
    argv: t.Sequence[str],
    bound: t.Sequence[tuple[str, bytes]],
    view: t.Sequence[str] | None = None,
    shows: t.Callable[[str], str | None] | None = None,
    seccomp: bytes | None = None,
) -> tuple[list[str], list[int]]:
    """``argv`` run so that each file of ``bound`` (real path, bytes) shows those bytes, in the
    file system ``view`` makes (bubblewrap's arguments, :func:`cogtools.run.confine.arguments`;
    None: the whole of it as it is), where ``shows`` says how a path is seen (``"rw"``, ``"ro"``,
    or None: not at all; :func:`cogtools.run.confine.shows_as`; None: as it is); and the
    descriptors the program must be given (the caller passes and then closes them). ``argv`` as
    it is when bubblewrap cannot be used here. ``seccomp``: a seccomp program the program runs
    under (:func:`cogtools.run.confine.unix_socket_filter`). OSError when the bytes cannot be
    held.

    A file bound alone is not enough: a writer that renames another file over the path (what
    careful editors do) makes a lookup find the new one, not the mount. So the directory of a
    checked file is a private one (a tmpfs) holding the checked file and, bound back one by one
    as they are (as ``shows`` allows), the other entries of the directory but ``__pycache__``
    (a ``.pyc`` stamped to match a checked module would run instead of it). A file the program
    creates there is lost with the namespace: a tool that runs without confirmation declares
    that it writes nothing."""
    path = bwrap()
    if path is None:
        return list(argv), []
    if view is None:
        view = ["--dev-bind", "/", "/"]
    if len(bound) > MAX_BOUND:
        raise OSError(errno.EMFILE, f"more than {MAX_BOUND} checked files to show the program")
    by_directory: dict[str, dict[str, bytes]] = {}
    for real, data in bound:
        by_directory.setdefault(os.path.dirname(real), {})[real] = data
    held: list[int] = []
    binds: list[str] = []
    try:
        if seccomp is not None:
            held.append(_holding(seccomp))
            binds += ["--seccomp", str(held[-1])]
        for directory in sorted(by_directory, key=lambda d: d.count(os.sep)):
            made = _directory(directory, by_directory[directory], shows)
            binds += made
            if made[:2] == ["--tmpfs", directory]:
                binds += _view_below(view, directory, by_directory)
            for real, data in by_directory[directory].items():
                fd = _holding(data)
                held.append(fd)
                binds += ["--perms", _mode(real), "--ro-bind-data", str(fd), real]
    except OSError:
        for fd in held:
            os.close(fd)
        raise
    return [path, *view, "--die-with-parent", *binds, "--", *argv], held


#: A directory of more entries than this keeps its own entries: only its checked files are bound
#: (which a rename over one of them defeats).
MAX_ENTRIES = 4096


def _directory(
    directory: str, checked: t.Mapping[str, bytes], shows: t.Callable[[str], str | None] | None = None
) -> list[str]:
    """bubblewrap's arguments that make ``directory`` a private one with its entries (but the
    ``checked`` files, bound after) bound back as ``shows`` says (None: as they are); none when it
    cannot be listed or is too large."""
    try:
        with os.scandir(directory) as listing:
            entries = list(itertools.islice(listing, MAX_ENTRIES + 1))
    except OSError:
        return []
    if len(entries) > MAX_ENTRIES or directory == os.sep:  # too many to bind back: its own entries stay
        cache = os.path.join(directory, "__pycache__")  # but no bytecode beside a checked module
        return ["--tmpfs", cache] if os.path.isdir(cache) and not os.path.islink(cache) else []
    out = ["--tmpfs", directory]
    for entry in entries:
        full = os.path.join(directory, entry.name)
        if full in checked or entry.name == "__pycache__":  # no bytecode beside a checked module
            continue
        try:
            if entry.is_symlink():
                out += ["--symlink", os.readlink(full), full]
            elif shows is not None and shows(full) != "rw":
                if shows(full) == "ro":
                    out += ["--ro-bind", full, full]
            elif entry.is_dir(follow_symlinks=False) or entry.is_file(follow_symlinks=False):
                out += ["--bind", full, full]
            else:  # a FIFO, a socket, a device
                out += ["--dev-bind", full, full]
        except OSError:
            continue
    return out


def _view_below(view: t.Sequence[str], directory: str, checked: t.Mapping[str, t.Mapping[str, bytes]]) -> list[str]:
    """The read-only binds and the links of ``view`` below ``directory``, made again after it was
    made private (a tmpfs hides what was made inside it): the code a confined program is shown by
    directory (an installed package read from disk, :func:`cogtools.trust.pins.package_pin`), and
    the link of the project's ``node_modules`` to a package it declares (pnpm's store); none that
    holds a directory of checked files, bound after."""
    out: list[str] = []
    for index, word in enumerate(view[:-2]):
        if word not in ("--ro-bind", "--symlink"):
            continue
        source, target = view[index + 1], view[index + 2]
        below = target != directory and os.path.commonpath([target, directory]) == directory
        if word == "--symlink":
            out += ["--symlink", source, target] if below else []
            continue
        if (
            below
            and os.path.isdir(target)  # a file bound so is a checked one's to show
            and not any(os.path.commonpath([held, target]) == target for held in checked)
            and not any(target in files for files in checked.values())
        ):
            out += ["--ro-bind", source, target]
    return out


def _mode(path: str) -> str:
    """The permissions of the file at ``path`` (for its checked copy), in octal."""
    try:
        return format(os.stat(path).st_mode & 0o777, "04o")
    except OSError:
        return "0755"


def _holding(data: bytes) -> int:
    """A descriptor of a file with no name in any directory that holds ``data``, at its start
    (a memfd on Linux, the only system bubblewrap runs on)."""
    fd = os.memfd_create("cogtools-checked", os.MFD_CLOEXEC)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        os.close(fd)
        raise
    return fd
