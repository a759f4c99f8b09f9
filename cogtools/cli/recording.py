"""What a call that goes the whole way reads, kept as the record a warm call is answered from
(:mod:`cogtools.cli.warm` says what a record is, and answers from one).

While the call runs, :func:`os.stat`, :func:`os.lstat`, :func:`os.open`, :func:`open`,
:func:`os.listdir`, :func:`os.access` and :func:`os.readlink` are wrapped to keep what each read
was when it was read; an audit hook and a few more wrappers notice what keeps a call from leaving
a record (a program run, a file written, the network, the load average, :func:`os.scandir`, whose
entries are read past :mod:`os`, anything said on stderr). When the call is done, a record is
written if the tool is one a record can answer for and every file read has aged past the stat's
racy window.

This module is imported by a call that goes the whole way, never by one answered from its record.
"""

from __future__ import annotations

import os
import sys
import typing as t

from cogtools.cli.warm import KEYWORDS, identity, record_file, rendered, situation

if t.TYPE_CHECKING:
    from cogtools.core.model import Tool
    from cogtools.load.project import Project

#: The most files and directories one record depends on (past it, none is left).
MAX_DEPENDENCIES = 50_000
#: How long a record is kept once written: older ones are removed when another is written.
KEEP_SECONDS = 7 * 24 * 3600


class Recorder:
    """What a call that goes the whole way reads, as it reads it (:func:`os.stat` and the others
    are wrapped while it runs), and whether anything it did keeps it from leaving a record."""

    #: The recorder of this process's call, while it runs (:func:`noted` tells it the outcome).
    active: Recorder | None = None

    def __init__(self, name: str) -> None:
        self.name = name
        #: The situation, from the environment as it was before the call changed it.
        self.situation = situation(name, os.environ)
        #: (kind, path) -> identity, as first read.
        self.read: dict[tuple[str, str], str] = {}
        self.directories: dict[int, str] = {}
        #: Why no record is left ("" while one may be).
        self.spoilt = ""
        self.outcome: tuple[t.Any, ...] | None = None
        self._saved: dict[str, t.Any] = {}

    def note(self, kind: str, path: t.Any, dir_fd: int | None = None, seen: str | None = None) -> None:
        """Keep what ``path`` (relative to the directory ``dir_fd`` is open on) was to ``kind``,
        or ``seen``, when the call read it."""
        if self.spoilt:
            return
        if isinstance(path, int):
            return  # a descriptor: its file was noted when opened
        try:
            text = os.fsdecode(path)
        except TypeError:
            self.spoil(f"a path of type {type(path).__name__}")
            return
        if dir_fd is not None and not os.path.isabs(text):
            base = self.directories.get(dir_fd)
            if base is None:
                self.spoil("a path relative to an unknown directory")
                return
            text = os.path.join(base, text)
        text = os.path.abspath(text)
        found = identity(kind, text) if seen is None else seen
        earlier = self.read.setdefault((kind, text), found)
        if earlier != found:
            self.spoil(f"{text} changed while the call read it")
        elif len(self.read) > MAX_DEPENDENCIES:
            self.spoil("too much was read")

    def spoil(self, why: str) -> None:
        if not self.spoilt:
            self.spoilt = why

    # The wrappers: each notes what it is asked, then does it.

    def start(self) -> None:
        import builtins
        import io

        Recorder.active = self
        saved = self._saved
        for name in ("stat", "lstat", "open", "listdir", "scandir", "access", "readlink", "getloadavg"):
            saved[name] = getattr(os, name)
        saved["io.open"] = io.open
        os.stat = self._stat
        os.lstat = self._lstat
        os.open = self._os_open
        os.listdir = self._listdir
        os.scandir = self._refused("scandir", saved["scandir"])
        os.access = self._access
        os.readlink = self._readlink
        os.getloadavg = self._refused("getloadavg", saved["getloadavg"])
        io.open = builtins.open = self._io_open
        _watch_events()
        self._saved["stderr"] = sys.stderr
        if sys.stderr is not None:  # (a closed one stays None: the call says nothing there)
            sys.stderr = _Watched(sys.stderr, self)

    def stop(self) -> None:
        import builtins
        import io

        saved = self._saved
        if not saved:
            return
        for name in ("stat", "lstat", "open", "listdir", "scandir", "access", "readlink", "getloadavg"):
            setattr(os, name, saved[name])
        io.open = builtins.open = saved["io.open"]
        sys.stderr = saved["stderr"]
        saved.clear()
        Recorder.active = None

    def _stat(self, path: t.Any, *, dir_fd: int | None = None, follow_symlinks: bool = True) -> t.Any:
        stat = self._saved["stat"]
        try:
            st = stat(path, dir_fd=dir_fd, follow_symlinks=follow_symlinks)
        except OSError as e:
            self.note("s" if follow_symlinks else "l", path, dir_fd, f"-{e.errno}")
            raise
        if follow_symlinks:
            self.note("s", path, dir_fd, f"{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}")
        else:
            self.note("l", path, dir_fd, f"{st.st_mode}:{st.st_ino}:{st.st_uid}")
        return st

    def _lstat(self, path: t.Any, *, dir_fd: int | None = None) -> t.Any:
        return self._stat(path, dir_fd=dir_fd, follow_symlinks=False)

    def _os_open(self, path: t.Any, flags: int, mode: int = 0o777, *, dir_fd: int | None = None) -> int:
        fd: int = self._saved["open"](path, flags, mode, dir_fd=dir_fd)
        if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC):
            self.spoil("it wrote a file")
            return fd
        self._opened(path, fd, dir_fd, nofollow=bool(flags & getattr(os, "O_NOFOLLOW", 0)))
        if flags & getattr(os, "O_DIRECTORY", 0) and not isinstance(path, int):
            base = self.directories.get(dir_fd, "") if dir_fd is not None else ""
            self.directories[fd] = os.path.abspath(os.path.join(base, os.fsdecode(path)))
        return fd

    def _opened(self, path: t.Any, fd: int, dir_fd: int | None, nofollow: bool) -> None:
        if self.spoilt:
            return
        st = os.fstat(fd)
        self.note("s", path, dir_fd, f"{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}")
        if nofollow:
            self.note("l", path, dir_fd, f"{st.st_mode}:{st.st_ino}:{st.st_uid}")

    def _io_open(self, file: t.Any, mode: str = "r", *args: t.Any, **kwargs: t.Any) -> t.Any:
        opened = self._saved["io.open"](file, mode, *args, **kwargs)
        if any(letter in mode for letter in "wax+"):
            self.spoil("it wrote a file")
        elif not isinstance(file, int):
            try:
                self._opened(file, opened.fileno(), None, nofollow=False)
            except (OSError, ValueError, AttributeError):
                self.spoil("a file it opened cannot be told")
        return opened

    def _listdir(self, path: t.Any = ".") -> list[t.Any]:
        if isinstance(path, int):
            self.spoil("a directory listed by its descriptor")
        else:
            self._stat(path)  # (a directory's modification time changes with what it holds)
        listed: list[t.Any] = self._saved["listdir"](path)
        return listed

    def _access(self, path: t.Any, mode: int, *args: t.Any, **kwargs: t.Any) -> bool:
        allowed: bool = self._saved["access"](path, mode, *args, **kwargs)
        if args or kwargs:
            self.spoil("access() with options")
        else:
            self.note(f"a{mode}", path, seen="1" if allowed else "0")
        return allowed

    def _readlink(self, path: t.Any, *, dir_fd: int | None = None) -> t.Any:
        try:
            target = self._saved["readlink"](path, dir_fd=dir_fd)
        except OSError as e:
            self.note("r", path, dir_fd, f"-{e.errno}")
            raise
        self.note("r", path, dir_fd, os.fsdecode(target))
        return target

    def _refused(self, what: str, function: t.Callable[..., t.Any]) -> t.Callable[..., t.Any]:
        def wrapped(*args: t.Any, **kwargs: t.Any) -> t.Any:
            self.spoil(f"it called {what}")
            return function(*args, **kwargs)

        return wrapped


class _Watched:
    """A stream that tells the recorder it was written to (a call that says anything on stderr
    leaves no record: its answer is more than its result)."""

    def __init__(self, stream: t.Any, recorder: Recorder) -> None:
        self._stream = stream
        self._recorder = recorder

    def write(self, text: t.Any) -> t.Any:
        self._recorder.spoil("it wrote on stderr")
        return self._stream.write(text)

    @property
    def buffer(self) -> t.Any:
        return _Watched(self._stream.buffer, self._recorder)

    def __getattr__(self, name: str) -> t.Any:
        return getattr(self._stream, name)


#: The audit events after which a call leaves no record: it ran something, changed a file, or
#: reached the network.
SPOILING_EVENTS = (
    "subprocess.",
    "os.exec",
    "os.fork",
    "os.posix_spawn",
    "os.spawn",
    "os.system",
    "pty.",
    "socket.",
    "os.remove",
    "os.rename",
    "os.rmdir",
    "os.mkdir",
    "os.chmod",
    "os.chown",
    "os.link",
    "os.symlink",
    "os.truncate",
    "os.utime",
    "shutil.",
)


#: Whether this process has the audit hook (it cannot be taken off, so it is added once).
_HOOKED: list[bool] = []


def _watch_events() -> None:
    """Spoil the active recorder's record at an event of :data:`SPOILING_EVENTS`, and at a file
    opened for writing or a directory scanned by any means (an audit hook: it stays for the life
    of the process, and does nothing while no recorder runs)."""
    if _HOOKED:
        return
    _HOOKED.append(True)

    def hook(event: str, args: tuple[t.Any, ...]) -> None:
        recorder = Recorder.active
        if recorder is None or recorder.spoilt:
            return
        if event.startswith(SPOILING_EVENTS) or event == "os.scandir":
            recorder.spoil(f"it did {event}")
        elif event == "open" and len(args) >= 3:
            mode, flags = args[1], args[2]
            if (isinstance(mode, str) and any(letter in mode for letter in "wax+")) or (
                isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC)
            ):
                recorder.spoil("it wrote a file")

    sys.addaudithook(hook)


def recording(argv: t.Sequence[str]) -> Recorder | None:
    """A recorder for the call ``argv``, started, when it is one a record may answer (then
    :func:`finish` must follow, whatever happens)."""
    if len(argv) != 1 or argv[0].startswith("-") or sys.stdin is None or sys.stdout is None:
        return None
    if sys.version_info < (3, 11):  # pathlib reads past the os module there: what it read would be missed
        return None
    from cogtools.core.places import cache_path

    try:
        if sys.stdin.isatty() or cache_path(os.environ) is None:
            return None
        recorder = Recorder(argv[0])
    except (OSError, ValueError):
        return None
    recorder.start()
    return recorder


def noted(tool: Tool, project: Project | None, also: t.Sequence[Project], data: bytes, result: str) -> None:
    """Tell the recorder of this process (if any) the call's outcome: the tool run, its project
    and the others whose policy it passed, what stdin held and what it answered."""
    recorder = Recorder.active
    if recorder is not None:
        recorder.outcome = (tool, project, tuple(also), data, result)


def finish(recorder: Recorder, status: int) -> None:
    """Stop ``recorder`` and leave the record of its call, when one may answer the next (never
    raises: a record is only an optimisation)."""
    recorder.stop()
    try:
        _leave(recorder, status)
    except Exception:
        pass


def _leave(recorder: Recorder, status: int) -> None:
    if status != 0 or recorder.spoilt or recorder.outcome is None:
        return
    tool, project, also, data, result = recorder.outcome
    entry = _entry(tool, project, also)
    if entry is None or rendered(entry, data) != result:
        return
    from cogtools.core.places import cache_key, cache_path

    directory = cache_path(os.environ)
    read = {**recorder.read, **{("s", path): identity("s", path) for path in _code()}}
    if directory is None or _racy(read, directory):
        return
    key = cache_key(directory)
    if key is None:
        return
    import json

    from cogtools.core.fsutil import replace_file
    from cogtools.core.places import mac

    record = {"situation": recorder.situation, "read": compact(read), **entry}
    payload = json.dumps(record, separators=(",", ":")).encode("utf-8", "surrogateescape")
    try:
        from pathlib import Path

        replace_file(Path(record_file(directory, recorder.situation)), mac(key, payload) + b"\n" + payload)
    except OSError:
        return
    _prune(directory)


def _entry(tool: Tool, project: Project | None, also: t.Sequence[Project]) -> dict[str, t.Any] | None:
    """What a record of a call of ``tool`` answers with, when a record can answer for it."""
    implementation = tool.implementation
    if (
        implementation.kind != "template"
        or implementation.plan is None
        or tool.environment
        or tool.output_schema is not None
        or tool.output_media_type is not None
        or project is None
        or also
    ):
        return None
    import copy

    from cogtools.core.model import WAIT_FOR_PREVIOUS
    from cogtools.run import context_for
    from cogtools.services.invoke import as_integers

    schema = tool.input_schema()
    if not _checkable(schema):
        return None
    names: dict[str, t.Any] = {p.name: p.schema.get("default") for p in tool.parameters}
    defaults = {p.name: copy.deepcopy(p.schema["default"]) for p in tool.parameters if "default" in p.schema}
    names.update(as_integers(schema, defaults))
    return {
        "schema": schema,
        "names": names,
        "drop": [WAIT_FOR_PREVIOUS] if tool.parameter(WAIT_FOR_PREVIOUS) is None else [],
        "plan": implementation.plan,
        "limit": int(context_for(tool, project).limits["max_output_bytes"]),
    }


def _checkable(schema: t.Any) -> bool:
    """Whether :func:`~cogtools.cli.warm.surely_valid` checks every keyword of ``schema``."""
    if isinstance(schema, list):
        return all(_checkable(item) for item in schema)
    if not isinstance(schema, dict):
        return True
    if any(key not in KEYWORDS and not key.startswith("x-") for key in schema):
        return False
    nested = [schema.get("items"), *schema.get("properties", {}).values(), schema.get("additionalProperties")]
    return all(_checkable(item) for item in nested if isinstance(item, dict))


def _code() -> list[str]:
    """The files of cogtools' modules this process imported: a record holds while they do."""
    import cogtools

    package = os.path.dirname(cogtools.__file__) + os.sep
    files = {getattr(module, "__file__", None) for module in list(sys.modules.values())}
    return sorted(f for f in files if isinstance(f, str) and f.startswith(package))


def compact(read: t.Mapping[tuple[str, str], str]) -> dict[str, list[list[str]]]:
    """What was read (``(kind, path) -> identity``) as a record keeps it
    (:func:`cogtools.cli.warm.holds`): by directory, and the links apart."""
    directories: dict[str, list[str]] = {}
    links = []
    for (kind, path), was in read.items():
        if kind == "r":
            links.append([path, was])
            continue
        parent, name = os.path.split(path)
        if not name:  # the root
            parent, name = path, "."
        directories.setdefault(parent, []).extend((kind, name, was))
    return {"dirs": [[parent, "/".join(fields)] for parent, fields in directories.items()], "links": links}


def _racy(read: t.Mapping[tuple[str, str], str], directory: str) -> bool:
    """Whether a file or directory read changed too recently for its stat to vouch for it (a
    change in the same tick would go unseen). The cache's own files are replaced whole, never
    changed in place: a new one is a new inode."""
    import time

    from cogtools.load.cache import RACY_SECONDS

    now = time.time_ns()
    inside = os.path.abspath(directory) + os.sep
    for (kind, path), was in read.items():
        if kind == "s" and not was.startswith("-") and not path.startswith(inside):
            _, _, mtime, ctime = was.split(":")
            if now - max(int(mtime), int(ctime)) <= RACY_SECONDS * 1e9:
                return True
    return False


def _prune(directory: str) -> None:
    """Remove the records not written for :data:`KEEP_SECONDS`."""
    import time

    now = time.time()
    try:
        names = [name for name in os.listdir(directory) if name.startswith("call-")]
    except OSError:
        return
    for name in names:
        path = os.path.join(directory, name)
        try:
            if now - os.lstat(path).st_mtime > KEEP_SECONDS:
                os.unlink(path)
        except OSError:
            pass
