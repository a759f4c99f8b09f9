"""The orphan sweep: a program's descendant that leaves its process group (``setsid``: a tool
that starts a daemon) does not outlive the call either, on Linux, where cogtools makes itself a
*child subreaper* (``PR_SET_CHILD_SUBREAPER``): orphaned descendants are re-parented to it
instead of to init, and after every program it ends every such adopted process and its group.
Elsewhere only the process group is ended, and a descendant that left it may survive.

To tell an adopted orphan from a program it started, this process counts the programs it runs
(:data:`RUNNING`), each started and counted in one step through :data:`GATE`, which a sweep
never sees half done.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import threading
import typing as t


def kill_group(pid: int) -> None:
    """Kill the process group of ``pid`` (gone already: nothing to do)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class Gate:
    """Starting programs, and telling adopted orphans from them: a program is started and added
    to :data:`RUNNING` in one step, which a sweep must never see half done, or it would take the
    program for an orphan. Starts may overlap one another (:meth:`shared`); a sweep goes alone
    (:meth:`alone`), and once one waits, no new start goes before it."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._starting = 0
        self._alone = False
        self._waiting = 0

    @contextlib.contextmanager
    def shared(self) -> t.Iterator[None]:
        with self._condition:
            while self._alone or self._waiting:
                self._condition.wait()
            self._starting += 1
        try:
            yield
        finally:
            with self._condition:
                self._starting -= 1
                if not self._starting:
                    self._condition.notify_all()

    @contextlib.contextmanager
    def alone(self) -> t.Iterator[None]:
        with self._condition:
            self._waiting += 1
            try:
                while self._alone or self._starting:
                    self._condition.wait()
            finally:
                self._waiting -= 1
            self._alone = True
        try:
            yield
        finally:
            with self._condition:
                self._alone = False
                self._condition.notify_all()


#: The programs this process is running now (its own children, not adopted ones), and the gate
#: through which one is started and added, and the adopted are told from them.
RUNNING: set[int] = set()
GATE = Gate()
#: Whether this process adopts orphaned descendants (decided once, on the first program).
_subreaper: list[bool] = []


def become_subreaper() -> bool:
    """Ask Linux to re-parent this process's orphaned descendants to it (once); whether it did."""
    if not _subreaper:
        _subreaper.append(_prctl_subreaper())
    return _subreaper[0]


def _prctl_subreaper() -> bool:
    if not os.path.exists("/proc/self/stat"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(36, 1, 0, 0, 0) == 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


def adopting() -> bool:
    """Whether this process adopts orphaned descendants (known once it has run a program)."""
    return bool(_subreaper and _subreaper[0])


def sweep_adopted() -> None:
    """Kill and reap every child of this process that it did not start itself (adopted orphans),
    with their process groups, until none is left. Killing one can orphan its own children: they
    are adopted before it can be reaped (Linux re-parents a process's children as it exits), so
    the next look, after the reaping, finds them. A look that finds none ends it: no sleeping,
    and one read of this process's own children, not a scan of every process. Only a look that
    finds a child not known to be running takes the gate (and looks again behind it: the child
    may be a program that is being started); the usual one lets the other calls start theirs."""
    while True:
        if all(pid in RUNNING for pid in _children()):
            return
        with GATE.alone():
            adopted = [pid for pid in _children() if pid not in RUNNING]
            for pid in adopted:
                kill_group(pid)
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        if not adopted:
            return
        for pid in adopted:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


def _children() -> list[int]:
    """The children of this process that may be adopted orphans: those listed under its main
    thread (``/proc/self/task/PID/children``), where Linux puts every process it re-parents to a
    subreaper (to the first live thread of its group, the main one while it runs), and where
    the programs started by the main thread are too (those of a server's calls are under the
    worker threads that started them, and need not be read). Where the kernel keeps no such
    file, a scan of /proc finds every child."""
    if not _children_files():
        return _children_by_scan(os.getpid())
    try:
        with open(f"/proc/self/task/{os.getpid()}/children", "rb") as f:
            return [int(pid) for pid in f.read().split()]
    except OSError:
        return _children_by_scan(os.getpid())


@functools.cache
def _children_files() -> bool:
    """Whether the kernel lists each thread's children (``CONFIG_PROC_CHILDREN``)."""
    return os.path.exists(f"/proc/self/task/{os.getpid()}/children")


def _children_by_scan(parent: int) -> list[int]:
    """The processes whose parent is ``parent``, from /proc."""
    found = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces and parentheses, so split after the last ')'
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 1 and int(fields[1]) == parent:
            found.append(int(entry))
    return found
