"""A time limit on work done in this process (rendering a template), in any thread.

In the main thread the limit is an interval timer whose signal raises :class:`Expired`; in any
other thread (a server's worker) one watchdog thread, shared by every deadline of the process,
raises it in the worker through CPython's ``PyThreadState_SetAsyncExc`` (a deadline costs a
heap entry, not a thread started per render). Either way the exception arrives between two bytecodes of the
interrupted code: Python loops end, but one long operation in C finishes first, which is why the
sandbox bounds the size of what a single operation can make (:mod:`cogtools.run.sandbox`).

``Expired`` derives from BaseException so that no ``except Exception`` on the way swallows it.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import signal
import threading
import time
import typing as t


class Expired(BaseException):
    """The time limit passed."""


@contextlib.contextmanager
def deadline(seconds: float) -> t.Iterator[None]:
    """Raise :class:`Expired` in the calling thread if the block runs longer than ``seconds``."""
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
        with _alarm(seconds):
            yield
    else:
        with _async_timer(seconds):
            yield


@contextlib.contextmanager
def _alarm(seconds: float) -> t.Iterator[None]:
    armed = [True]

    def expire(signum: int, frame: object) -> None:
        if armed[0]:
            raise Expired()

    started = time.monotonic()
    previous = signal.signal(signal.SIGALRM, expire)
    previous_timer = signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        armed[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if previous_timer[0]:  # an outer timer keeps running, less what this block used
            left = previous_timer[0] - (time.monotonic() - started)
            signal.setitimer(signal.ITIMER_REAL, max(left, 0.001), previous_timer[1])


@contextlib.contextmanager
def _async_timer(seconds: float) -> t.Iterator[None]:
    token = _WATCHDOG.arm(seconds, threading.get_ident())
    try:
        yield
    finally:
        _WATCHDOG.disarm(token)


class _Watchdog:
    """The deadlines of the threads that are not the main one, kept in a heap by when they fall
    due, and one daemon thread that sleeps until the first and raises :class:`Expired` in its
    thread. A deadline disarmed is forgotten at once, and the exception is raised only under the
    same lock: once :meth:`disarm` returns, it can no longer be raised."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        #: (when it falls due, its token, the thread it is of)
        self._heap: list[tuple[float, int, int]] = []
        self._armed: set[int] = set()
        self._tokens = itertools.count()
        self._thread: threading.Thread | None = None

    def arm(self, seconds: float, thread: int) -> int:
        with self._condition:
            token = next(self._tokens)
            heapq.heappush(self._heap, (time.monotonic() + seconds, token, thread))
            self._armed.add(token)
            if self._thread is None:
                self._thread = threading.Thread(target=self._watch, name="cogtools-deadlines", daemon=True)
                self._thread.start()
            elif self._heap[0][1] == token:
                self._condition.notify()  # the first to fall due now: wake to wait less
            return token

    def disarm(self, token: int) -> None:
        with self._condition:
            self._armed.discard(token)
            if len(self._heap) > 64 and len(self._heap) > 4 * len(self._armed):
                # (the disarmed are dropped as they come up; many long ones are dropped now)
                self._heap = [entry for entry in self._heap if entry[1] in self._armed]
                heapq.heapify(self._heap)

    def _watch(self) -> None:
        import ctypes

        with self._condition:
            while True:
                while self._heap and self._heap[0][1] not in self._armed:
                    heapq.heappop(self._heap)
                if not self._heap:
                    self._condition.wait()
                    continue
                due, token, thread = self._heap[0]
                left = due - time.monotonic()
                if left > 0:
                    self._condition.wait(left)
                    continue
                heapq.heappop(self._heap)
                self._armed.discard(token)
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread), ctypes.py_object(Expired))


_WATCHDOG = _Watchdog()
