"""A time limit on work done in this process (rendering a template), in any thread.

In the main thread the limit is an interval timer whose signal raises :class:`Expired`; in any
other thread (a server's worker) a timer thread raises it in the worker through CPython's
``PyThreadState_SetAsyncExc``. Either way the exception arrives between two bytecodes of the
interrupted code: Python loops end, but one long operation in C finishes first, which is why the
sandbox bounds the size of what a single operation can make (:mod:`cogtools.run.sandbox`).

``Expired`` derives from BaseException so that no ``except Exception`` on the way swallows it.
"""

from __future__ import annotations

import contextlib
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
    import ctypes

    target = threading.get_ident()
    lock = threading.Lock()
    done = [False]

    def expire() -> None:
        with lock:
            if not done[0]:
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(target), ctypes.py_object(Expired))

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        with lock:
            done[0] = True
        timer.cancel()
