"""Warm sandboxes: a server's confined programs started in a sandbox made before the call.

Making bubblewrap's namespaces and view (:mod:`cogtools.run.confine`) costs more than the
program it confines: on a two-core machine some 200 confined starts a second against nearly
1,000 unconfined ones. A server (``cogtools mcp``) calls the same tools again and again, so it
keeps, per view (the same confinement, program, files and working directory), sandboxes that
are ready: bubblewrap running :mod:`cogtools.run.zygote` as the init of the view's PID
namespace (``--as-pid-1``: no program can stop or trace it, as one could bubblewrap's own init,
which would live from call to call), which forks each program where the namespaces, the view, the dropped
capabilities and the seccomp program are made already.

A sandbox serves one call at a time, and serves another only when its call left nothing behind:
when a program ends, every other process of the namespace is killed, and the sandbox is used
again only when its private ``/tmp``, ``/dev/shm`` and home directory are empty and as they
were, no System V IPC object nor POSIX message queue is left, and the zygote passes on to
programs what it passed on before (limits, niceness, CPUs: a process of the user's may change
them). A call that left
something ends its sandbox, and the next one starts a new one, as every call does without a
server.

Not kept (the call starts bubblewrap of its own, as before): a program that may see other
processes (no PID namespace of its own: killing what it left would reach the user's), one
shown checked bytes (:mod:`cogtools.run.bind`: those are the call's own), one given a report
channel, and any where the interpreter that runs the zygote is not in the view (found by trying,
once per view). At most :data:`MAX_SANDBOXES` live at once, and one unused for
:data:`IDLE_SECONDS` is ended; the end of the server ends them all (their socket closes, and
each zygote ends its namespace).

Only a server turns them on (:func:`enable`); a ``cogtools-call`` makes one call and would gain
nothing.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import queue
import socket
import subprocess
import sys
import threading
import time
import typing as t

from cogtools.run.reaper import GATE, RUNNING, kill_group

if t.TYPE_CHECKING:
    from cogtools.run.confine import Confinement

#: Sandboxes alive at once (busy or waiting), over every view.
MAX_SANDBOXES = 16
#: A sandbox not used for this long, in seconds, is ended.
IDLE_SECONDS = 60.0
#: How many calls of a view in a row may leave their sandbox unfit before the view goes without.
DIRTY_RUN = 3
#: The most views whose calls left their sandbox unfit that are remembered.
MAX_REMEMBERED = 1024
#: How long a call waits for a sandbox of its view to be given back or made, in seconds, before
#: it starts bubblewrap of its own (which takes some 10 ms on a quiet machine, 60 on a busy one).
WAIT_SECONDS = 0.05
#: How long a call waits for its turn at its view's sandboxes before it has one more made.
ASK_SECONDS = 0.01
#: How many sandboxes of a view may be made at once (as many as its calls wait for, up to this
#: many): a burst of calls soon has enough.
MAKE_AT_ONCE = 4
#: How long a new sandbox may take to say it is ready, and a sandbox to answer, in seconds.
START_SECONDS = 5.0
ANSWER_SECONDS = 5.0

_enabled = False


def enable() -> None:
    """Keep warm sandboxes for this process's confined programs (a server's)."""
    global _enabled
    _enabled = True


def enabled() -> bool:
    return _enabled


class Unusable(Exception):
    """This view has no warm sandbox, or the sandbox cannot serve (the call starts bubblewrap of
    its own)."""


class Missed(Unusable):
    """No sandbox of the view waits: the call runs without, and says when it is done
    (:meth:`Pool.missed_done`), so that as many are made as calls run without one."""

    def __init__(self, key: t.Hashable) -> None:
        super().__init__("no sandbox of this view is waiting")
        self.key = key


class Lost(Exception):
    """The sandbox failed after it was asked to start a program (which it may have started, and
    which ended with it)."""


class Sandbox:
    """bubblewrap running the zygote in one view, and this process's end of its socket."""

    def __init__(self, key: t.Hashable, proc: subprocess.Popen[bytes], sock: socket.socket, zygote: int) -> None:
        self.key = key
        self.proc = proc
        self.sock = sock
        #: The zygote's pid as this process sees it.
        self.zygote = zygote
        self.used = time.monotonic()
        #: The variables the view sets (bubblewrap's ``--setenv``), which each program gets.
        self.settings: dict[str, str] = {}
        #: Given back by a call, its zygote's word on what the call left not read yet.
        self.settling = False

    @classmethod
    def launch(
        cls,
        key: t.Hashable,
        wrapped: t.Sequence[str],
        held: t.Sequence[int],
        ours: socket.socket,
        theirs: socket.socket,
    ) -> Sandbox:
        """Start ``wrapped`` (bubblewrap's command line running the zygote, given ``held`` and the
        zygote's end of the socket, ``theirs``), not waiting for it to be ready (:meth:`ready`:
        several are made at once); Unusable when it cannot start."""
        try:
            with GATE.shared():
                proc = subprocess.Popen(
                    list(wrapped),
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    env={"PATH": "/usr/bin:/bin"},
                    start_new_session=True,
                    pass_fds=(*held, theirs.fileno()),
                )
                RUNNING.add(proc.pid)
        except OSError as e:
            ours.close()
            raise Unusable(str(e)) from e
        finally:
            theirs.close()
        return cls(key, proc, ours, 0)

    def ready(self) -> None:
        """Wait for the zygote to say it is ready, and find it; Unusable (the sandbox ended) when
        it does not."""
        try:
            if _answer(self.sock, START_SECONDS) != {"ready": True}:
                raise Unusable("its zygote did not start")
            self.zygote = _find_zygote(self.proc.pid)
        except (Unusable, TimeoutError, OSError) as e:
            self.close()
            raise Unusable(f"its zygote did not start: {e}") from e

    def spawn(
        self,
        argv: t.Sequence[str],
        env: t.Mapping[str, str],
        cwd: str,
        fds: t.Sequence[int],
        more: t.Mapping[int, int] | None = None,
    ) -> int:
        """Start ``argv`` in the sandbox with ``fds`` as its stdin, stdout and stderr, and each
        descriptor of ``more`` at its number (``{number: descriptor}``); its pid as this process
        sees it. OSError when it cannot start (``errno`` and the system's words);
        Unusable when the sandbox cannot serve (nothing started), Lost when it failed after it
        was asked (it is closed either way, but for a request too large to send, which leaves
        it to the next call)."""
        import array

        more = dict(more or {})
        request = json.dumps({"argv": list(argv), "env": dict(env), "cwd": cwd, "fds": list(more)}).encode()
        given = array.array("i", [*fds, *more.values()])
        try:
            self.sock.sendmsg([request], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, given)])
        except OSError as e:  # (a message is sent whole or not at all)
            if e.errno == errno.EMSGSIZE:  # too large for one: nothing was sent, the sandbox is as it was
                POOL.give_back(self)
                raise Unusable("its request is too large for the sandbox") from e
            self.close()
            raise Unusable(f"the sandbox failed: {e}") from e
        try:
            answer = _answer(self.sock, ANSWER_SECONDS)
        except (OSError, Unusable) as e:
            self.close()
            raise Lost(f"its sandbox failed: {e}") from e
        if answer.get("stale"):
            self.close()
            raise Unusable("its view changed")
        if "errno" in answer:
            raise OSError(int(answer["errno"]), str(answer.get("error", "")))
        inside = answer.get("pid")
        pid = _child_with(self.zygote, inside) if isinstance(inside, int) else None
        if pid is None:
            self.close()
            raise Lost("its process could not be found in its sandbox")
        return pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def settled(self) -> bool:
        """Whether the sandbox may serve: alive, and (when a call gave it back) ready, the call
        having left nothing in it; else it is ended."""
        clean = self.alive()
        if clean and self.settling:
            try:
                clean = _answer(self.sock, ANSWER_SECONDS) == {"ready": True}
            except (OSError, Unusable, TimeoutError):
                clean = False
            POOL.tally(self.key, clean)
            self.settling = False
        if not clean:
            self.close()
        return clean

    def close(self) -> None:
        """End the sandbox (its zygote ends the namespace when its socket closes; the group is
        killed all the same)."""
        POOL.forget(self)
        try:
            self.sock.close()
        finally:
            kill_group(self.proc.pid)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL is not ignored
                pass
            RUNNING.discard(self.proc.pid)


class Process:
    """A program started in a sandbox, as :mod:`cogtools.run.process` serves a ``Popen``: its pid
    (this process's view of it), its pipes, and its status, which the zygote tells."""

    def __init__(self, sandbox: Sandbox, pid: int, stdin: int, stdout: int, stderr: int) -> None:
        self.sandbox = sandbox
        self.pid = pid
        self.args = ()
        self.stdin: t.IO[bytes] | None = os.fdopen(stdin, "wb", buffering=0)
        self.stdout: t.IO[bytes] | None = os.fdopen(stdout, "rb", buffering=0)
        self.stderr: t.IO[bytes] | None = os.fdopen(stderr, "rb", buffering=0)
        self.returncode: int | None = None
        self._broken = False

    def poll(self) -> int | None:
        if self.returncode is None:
            self._take(0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """Its status, once it has ended; when the zygote does not say it within ``timeout``
        (by default :data:`ANSWER_SECONDS`: a program that stopped its zygote must not hold its
        call past its time), the sandbox is ended, and the program with it (-9)."""
        if self.returncode is None:
            self._take(ANSWER_SECONDS if timeout is None else timeout)
            if self.returncode is None:
                self._broken = True
                self.returncode = -9
                self.sandbox.close()
        return self.returncode

    def _take(self, timeout: float | None) -> None:
        """Read the program's status when the zygote says it (within ``timeout``; None: wait)."""
        try:
            answer = _answer(self.sandbox.sock, timeout)
        except TimeoutError:
            return
        except (OSError, Unusable):  # the sandbox is gone, and the program with it
            self._broken = True
            self.returncode = -9
            return
        status = answer.get("exit")
        self.returncode = status if isinstance(status, int) else -9

    def release(self) -> None:
        """Give the sandbox back, to be looked at (:meth:`Sandbox.settled`) when a call takes it:
        the zygote's look at what the call left is no part of this call's time."""
        sandbox = self.sandbox
        if self._broken or self.returncode is None:
            sandbox.close()
            return
        try:
            sandbox.sock.send(b'{"reap": true}')
        except OSError:
            sandbox.close()
            return
        sandbox.settling = True
        POOL.give_back(sandbox)


class Pool:
    """The sandboxes that wait for a call, per view."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        #: Told when a sandbox is given back or made, or a view's cannot be (calls wait for it).
        self._turns = threading.Condition(self._lock)
        #: Per view, how many of its calls wait for a sandbox.
        self._wanting: dict[t.Hashable, int] = {}
        self._waiting: dict[t.Hashable, list[Sandbox]] = {}
        self._live: set[Sandbox] = set()
        self._starting = 0
        #: Per view, how many of its calls run without a sandbox, none having waited (:class:`Missed`).
        self._missed: dict[t.Hashable, int] = {}
        #: Per view, how many of its sandboxes are being made.
        self._making: dict[t.Hashable, int] = {}
        #: Views where no zygote ran (its interpreter is not in the view, say), and when they
        #: may be tried again.
        self._unusable: dict[t.Hashable, float] = {}
        self._sweeper: threading.Thread | None = None
        #: Per view, how many calls running left their sandbox unfit to serve again.
        self._dirty: dict[t.Hashable, int] = {}
        #: The sandboxes to make, which one thread makes, for as long as this process runs: it is
        #: bubblewrap's parent, which ends it when it ends (``--die-with-parent``: a thread's end
        #: is its parent's, for Linux), so that a server killed by SIGKILL leaves no sandbox, not
        #: even one whose zygote a program stopped.
        self._requests: queue.SimpleQueue[tuple[t.Hashable, t.Callable[[], Sandbox]]] = queue.SimpleQueue()
        self._starter: threading.Thread | None = None

    def take(self, key: t.Hashable, make: t.Callable[[], Sandbox]) -> Sandbox:
        """A sandbox of ``key``'s view: one waiting, else the first given back or made within
        :data:`WAIT_SECONDS` (a sandbox serves a call in a few milliseconds: calls at once take
        turns rather than each start bubblewrap); else :class:`Missed`, and the call starts
        bubblewrap of its own and says when it is done (:meth:`missed_done`). A new one is made
        by ``make`` in the background when the view has none, or when a call has waited
        :data:`ASK_SECONDS` for its turn: as many as the view's calls that wait or run without
        one (at most :data:`MAKE_AT_ONCE` at a time), so that a view has as many sandboxes as
        its calls keep busy, and no more (each costs a new interpreter's start)."""
        self._expire()
        start = time.monotonic()
        counted = asked = False
        while True:
            with self._lock:
                while True:
                    if self._unusable.get(key, 0.0) > time.monotonic():
                        if counted:
                            self._count(self._wanting, key, -1)
                        raise Unusable("no sandbox is kept for this view now")
                    waiting = self._waiting.get(key, [])
                    if waiting:
                        break
                    if not counted:
                        counted = True
                        self._count(self._wanting, key, 1)
                    waited = time.monotonic() - start
                    if not asked and (waited >= ASK_SECONDS or not self._serving(key)):
                        asked = True
                        self._ask(key, make, self._wanting[key] + self._missed.get(key, 0))
                    left = (WAIT_SECONDS if asked else ASK_SECONDS) - waited
                    if left > 0:
                        self._turns.wait(left)
                    elif asked:
                        self._count(self._wanting, key, -1)
                        self._count(self._missed, key, 1)
                        raise Missed(key)
                sandbox = waiting.pop()
                if counted:
                    counted = False
                    self._count(self._wanting, key, -1)
            if sandbox.settled():  # (outside the lock: it may wait for its zygote's word)
                return sandbox

    def _serving(self, key: t.Hashable) -> bool:
        """Whether a sandbox of ``key``'s view serves a call or is being made (the lock held)."""
        return key in self._making or any(sandbox.key == key for sandbox in self._live)

    def missed_done(self, key: t.Hashable) -> None:
        """A call that found no sandbox of ``key``'s view waiting (:class:`Missed`) has ended."""
        with self._lock:
            self._count(self._missed, key, -1)

    @staticmethod
    def _count(counts: dict[t.Hashable, int], key: t.Hashable, change: int) -> None:
        """Change ``key``'s count in ``counts`` (none kept at zero: a server sees many views)."""
        left = counts.pop(key, 0) + change
        if left > 0:
            counts[key] = left

    def _ask(self, key: t.Hashable, make: t.Callable[[], Sandbox], wanted: int) -> None:
        """Have a sandbox of ``key``'s view made, unless ``wanted`` (or :data:`MAKE_AT_ONCE`) are
        being made for it already, or there are as many as may be (the lock held)."""
        making = self._making.get(key, 0)
        if len(self._live) + self._starting >= MAX_SANDBOXES or making >= min(wanted, MAKE_AT_ONCE):
            return
        self._starting += 1
        self._making[key] = making + 1
        if self._starter is None:
            self._starter = threading.Thread(target=self._start_each, name="cogtools-warm-start", daemon=True)
            self._starter.start()
        self._requests.put((key, make))

    def _start_each(self) -> None:
        """Make the sandboxes asked for, for as long as this process runs: those asked for at once
        are started at once, then each is waited for."""
        while True:
            asked = [self._requests.get()]
            with contextlib.suppress(queue.Empty):
                while True:
                    asked.append(self._requests.get_nowait())
            started: list[Sandbox] = []
            for key, make in asked:
                try:
                    started.append(make())
                except Exception:  # (any failure: the view goes without for a while)
                    self._made(key, None)
            for sandbox in started:
                try:
                    sandbox.ready()
                except Exception:
                    self._made(sandbox.key, None)
                else:
                    self._made(sandbox.key, sandbox)

    def _made(self, key: t.Hashable, sandbox: Sandbox | None) -> None:
        """Keep ``sandbox``, made for ``key``'s view, waiting for a call; None: it could not be
        made, and the view goes without for a while."""
        with self._lock:
            self._starting -= 1
            self._count(self._making, key, -1)
            if sandbox is None:
                self._unusable[key] = time.monotonic() + IDLE_SECONDS
                self._turns.notify_all()
                return
            self._live.add(sandbox)
        self.give_back(sandbox)

    def tally(self, key: t.Hashable, clean: bool) -> None:
        """Count how a call of ``key``'s view left its sandbox: a view whose calls leave
        something :data:`DIRTY_RUN` times running (a shell's here-document, a temporary file)
        starts a bubblewrap of its own a call for a while, which costs less than a new sandbox."""
        with self._lock:
            before = self._dirty.pop(key, 0)
            run = 0 if clean else before + 1
            if len(self._dirty) >= MAX_REMEMBERED:  # (a view is a long key: a server lives long)
                self._dirty.clear()
            if run >= DIRTY_RUN:
                self._unusable[key] = time.monotonic() + IDLE_SECONDS
            elif run:
                self._dirty[key] = run

    def give_back(self, sandbox: Sandbox) -> None:
        sandbox.used = time.monotonic()
        with self._lock:
            self._waiting.setdefault(sandbox.key, []).append(sandbox)
            self._turns.notify_all()
            if self._sweeper is None:  # sandboxes left waiting by a server that went quiet end too
                self._sweeper = threading.Thread(target=self._sweep, name="cogtools-warm-sweeper", daemon=True)
                self._sweeper.start()

    def _sweep(self) -> None:
        while True:
            time.sleep(IDLE_SECONDS / 2)
            self._expire()

    def forget(self, sandbox: Sandbox) -> None:
        with self._lock:
            self._live.discard(sandbox)

    def _expire(self) -> None:
        now = time.monotonic()
        old: list[Sandbox] = []
        with self._lock:
            for key in [key for key, until in self._unusable.items() if until <= now]:
                del self._unusable[key]
            for key, waiting in list(self._waiting.items()):
                old += [sandbox for sandbox in waiting if now - sandbox.used > IDLE_SECONDS]
                waiting[:] = [sandbox for sandbox in waiting if now - sandbox.used <= IDLE_SECONDS]
                if not waiting:
                    del self._waiting[key]
        for sandbox in old:
            sandbox.close()

    def close_all(self) -> None:
        with self._lock:
            waiting = [sandbox for group in self._waiting.values() for sandbox in group]
            self._waiting.clear()
        for sandbox in waiting:
            sandbox.close()


POOL = Pool()


def _answer(sock: socket.socket, timeout: float | None) -> dict[str, t.Any]:
    """The zygote's next message; TimeoutError when none came within ``timeout`` seconds (None:
    wait), Unusable at the socket's end or for what is not an object."""
    sock.settimeout(timeout)
    try:
        data = sock.recv(65536)
    except (socket.timeout, BlockingIOError) as e:  # (a timeout of 0: BlockingIOError)
        raise TimeoutError from e
    finally:
        sock.settimeout(None)
    if not data:
        raise Unusable("its zygote ended")
    try:
        message = json.loads(data)
    except ValueError as e:
        raise Unusable("its zygote said what cannot be read") from e
    if not isinstance(message, dict):
        raise Unusable("its zygote said what cannot be read")
    return message


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children", "rb") as f:
            return [int(word) for word in f.read().split()]
    except (OSError, ValueError):
        return []


def _inside(pid: int) -> int | None:
    """``pid``'s number in its own (innermost) PID namespace."""
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(b"NSpid:"):
                    return int(line.split()[-1])
    except (OSError, ValueError):
        pass
    return None


def _find_zygote(bwrap: int) -> int:
    """The pid, as this process sees it, of the zygote bubblewrap ``bwrap`` runs (the init of
    the namespace, among its descendants)."""
    level = [bwrap]
    for _ in range(4):
        level = [child for pid in level for child in _children(pid)]
        for pid in level:
            if _inside(pid) == 1:
                return pid
    raise Unusable("its zygote could not be found")


def _child_with(zygote: int, inside: int) -> int | None:
    """The pid, as this process sees it, of the zygote's child numbered ``inside`` in the
    sandbox."""
    for pid in _children(zygote):
        if _inside(pid) == inside:
            return pid
    return None


class View:
    """bubblewrap's words that make a view (:func:`cogtools.run.confine.arguments`), as the
    sandboxes of a server read them: one reader for what a view shows, hides, makes private
    and sets."""

    def __init__(self, words: t.Sequence[str]) -> None:
        self.words = list(words)

    def _pairs(self, *options: str) -> list[tuple[str, str]]:
        words = self.words
        return [(words[i + 1], words[i + 2]) for i, word in enumerate(words[:-2]) if word in options]

    def shown(self) -> list[str]:
        """Where the view shows the system's files (read-only or not)."""
        return [target for source, target in self._pairs("--ro-bind", "--bind") if source != os.devnull]

    def hidden(self) -> list[str]:
        """The files the view hides (``/dev/null`` shown over them: a toolchain's credentials)."""
        return [target for source, target in self._pairs("--ro-bind") if source == os.devnull]

    def private(self) -> list[str]:
        """The directories the view makes a tmpfs of: each call's, to leave as it found them."""
        words = self.words
        return [words[i + 1] for i, word in enumerate(words[:-1]) if word == "--tmpfs"]

    def settings(self) -> dict[str, str]:
        """The variables the view sets (``--setenv``), which each program gets."""
        return dict(self._pairs("--setenv"))

    def stamps(self) -> list[tuple[int, int, int] | None]:
        """The time, device and inode of each directory the view shows read-only and of each
        that holds a file it hides (where the credentials files it hides are looked for): a
        file written there, which a view made now would hide, changes them at once."""
        import stat

        places = [source for source, _ in self._pairs("--ro-bind") if source != os.devnull]
        places += [os.path.dirname(path) for path in self.hidden()]
        out: list[tuple[int, int, int] | None] = []
        for place in places:
            try:
                info = os.stat(place)
            except OSError:
                out.append(None)
                continue
            out.append((info.st_mtime_ns, info.st_dev, info.st_ino) if stat.S_ISDIR(info.st_mode) else None)
        return out


def zygote_command(python: str, descriptor: int, view: View) -> list[str]:
    """The command line that runs the zygote with ``python`` (inside ``view``), on the socket
    ``descriptor``."""
    from pathlib import Path

    source = Path(__file__).with_name("zygote.py").read_text(encoding="utf-8")
    # what the view makes a tmpfs of is the calls' (each one leaves it as it was); what it
    # hides by a mount must stay hidden
    private = view.private()
    settings = json.dumps({"private": private, "masked": private + view.hidden()})
    return [python, "-I", "-S", "-c", source, str(descriptor), settings]


#: Interpreters that may run a zygote when this one's is not in the view: the system's.
SYSTEM_PYTHONS = ("/usr/bin/python3", "/usr/local/bin/python3", "/bin/python3")


def interpreter(view: View) -> str | None:
    """An interpreter that ``view`` shows, for the zygote: this one's base (a venv's is a link to
    it), else the system's; None when it shows none."""
    shown = view.shown()
    candidates = [getattr(sys, "_base_executable", None) or sys.executable, *SYSTEM_PYTHONS]
    for candidate in candidates:
        real = os.path.realpath(candidate)
        if os.access(real, os.X_OK) and any(real == top or real.startswith(top.rstrip("/") + "/") for top in shown):
            return real
    return None


#: A server's views, made again at most every VIEW_SECONDS (making one reads the file system
#: some 170 times: more than the rest of a warm call costs the server), at most MAX_VIEWS kept.
_VIEWS: dict[t.Hashable, tuple[float, View, bytes | None, list[tuple[int, int, int] | None]]] = {}
VIEW_SECONDS = 2.0
MAX_VIEWS = 256


def sandbox_for(
    argv: t.Sequence[str], confine: Confinement, runs: t.Sequence[str], cwd: str | None
) -> tuple[Sandbox | None, t.Hashable | None]:
    """A sandbox of the view ``confine`` makes for ``argv`` (given the files it ``runs``, in
    ``cwd``), or None: this process keeps none (:func:`enable`), or none serves this view; and
    the view when none was waiting (:class:`Missed`: the call tells when it is done,
    :meth:`Pool.missed_done`)."""
    if not _enabled or confine.process:  # (without a PID namespace of its own: never)
        return None, None
    from cogtools.run.confine import arguments, available, shows_as, unix_socket_filter

    if not available():
        return None, None
    where = os.path.abspath(cwd or ".")
    asked = (confine, tuple(runs), where, argv[0])
    now = time.monotonic()
    made = _VIEWS.get(asked)
    # (what the system shows may have changed; a credentials file written into a directory the
    # view shows, which a view made now would hide, changes the directory's time at once)
    if made is None or now - made[0] > VIEW_SECONDS or made[1].stamps() != made[3]:
        if len(_VIEWS) >= MAX_VIEWS:
            _VIEWS.clear()
        seccomp = None if confine.network else unix_socket_filter()
        view = View(arguments(confine, runs=runs, cwd=where, program=argv[0]))
        made = _VIEWS[asked] = (now, view, seccomp, view.stamps())
    _, view, seccomp, _ = made
    key = (tuple(view.words), seccomp)

    def make() -> Sandbox:
        from cogtools.run.bind import wrap

        python = interpreter(view)
        if python is None:
            raise Unusable("no interpreter for a zygote is in the view")
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        command = zygote_command(python, theirs.fileno(), view)
        try:
            wrapped, held = wrap(command, (), view.words, shows_as(confine, runs), seccomp)
        except OSError as e:
            ours.close()
            theirs.close()
            raise Unusable(str(e)) from e
        try:
            # the zygote is the namespace's init (no program can stop or trace it); bubblewrap
            # dies with the one thread that starts every sandbox, which lives as long as the server
            sandbox = Sandbox.launch(key, [wrapped[0], "--as-pid-1", *wrapped[1:]], held, ours, theirs)
            sandbox.settings = view.settings()  # (its view's, for good: the view is its key)
            return sandbox
        finally:
            for fd in held:
                os.close(fd)

    try:
        return POOL.take(key, make), None
    except Missed as e:
        return None, e.key
    except Unusable:
        return None, None


def start(
    sandbox: Sandbox, argv: t.Sequence[str], cwd: str | None, env: t.Mapping[str, str], descriptors: t.Sequence[int]
) -> Process | None:
    """Start ``argv`` in ``sandbox`` (in ``cwd``, with ``env`` and the view's variables, and each
    of ``descriptors`` at its number), as :func:`cogtools.run.process.run_program` does outside
    one; None when the sandbox cannot serve (nothing was started). OSError when the program
    cannot start (the sandbox is kept), :class:`Lost` when the sandbox failed."""
    r0, w0 = os.pipe()
    r1, w1 = os.pipe()
    r2, w2 = os.pipe()
    started = False
    try:
        given = {**env, **sandbox.settings}
        pid = sandbox.spawn(argv, given, os.path.abspath(cwd or "."), (r0, w1, w2), {fd: fd for fd in descriptors})
        RUNNING.add(pid)
        started = True
    except Unusable:
        return None
    except OSError:
        POOL.give_back(sandbox)  # it could not start the program, and is as it was
        raise
    finally:
        for fd in (r0, w1, w2) if started else (r0, w0, r1, w1, r2, w2):
            os.close(fd)
    return Process(sandbox, pid, w0, r1, r2)
