"""What a call tells its client while it runs, as it asked: with a ``progressToken``,
``notifications/progress`` (the seconds the call has run, or what its programs report on their
channel, :mod:`cogtools.run.reports`); with a log level (``logging/setLevel`` for the connection,
the request's ``_meta`` from 2026-07-28), the log messages its programs write there, as
``notifications/message``. Nothing is sent after the result."""

from __future__ import annotations

import collections
import threading
import time
import typing as t

import anyio
import mcp_types as types
from mcp.server.connection import allowed_log_levels
from mcp.shared.jsonrpc_dispatcher import progress_token_from_params
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from cogtools.run.reports import LOG_LEVELS, Progress, Report

#: Where a connection of the handshake era keeps the level ``logging/setLevel`` set.
LOG_LEVEL_KEY = "cogtools.log_level"
#: How often, in seconds, a call's reporter looks for what to send.
REPORT_TICK = 0.1
#: How long a client may take to accept a notification before it is skipped.
SEND_SECONDS = 5.0


def connection_of(ctx: t.Any) -> t.Any:
    """The connection request ``ctx`` came on (the SDK gives a handler the request's session,
    which is made anew for each request, and keeps the connection inside it)."""
    return getattr(getattr(ctx, "session", None), "_connection", None)


def levels_from(level: str | None) -> frozenset[str]:
    """The log levels at ``level`` and above (none for None)."""
    if level not in LOG_LEVELS:
        return frozenset()
    return frozenset(LOG_LEVELS[LOG_LEVELS.index(level) :])


def wanted_levels(ctx: t.Any) -> frozenset[str]:
    """The levels of the log messages the client of request ``ctx`` wants to hear of it: from
    2026-07-28, those its ``_meta`` asks for (``io.modelcontextprotocol/logLevel``); before, those
    the connection's ``logging/setLevel`` allows, none until it set one."""
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return frozenset(allowed_log_levels(ctx.protocol_version, ctx.meta))
    connection = connection_of(ctx)
    return levels_from(None if connection is None else connection.state.get(LOG_LEVEL_KEY))


def progress_token(ctx: t.Any) -> str | int | None:
    """The ``progressToken`` of request ``ctx``'s ``_meta``, if it has one (as the SDK reads it
    to send progress)."""
    return progress_token_from_params(ctx.params)


class Reporter:
    """What one call tells its client while it runs, as it asked (progress, and log messages at
    ``levels``): its programs' reports (:func:`cogtools.run.reports.parse_report`, put on any
    thread), and, while none reported progress, the seconds it has run (``running 3 s``, the
    progress a count of seconds) every :data:`BEAT` seconds. The event loop takes what is
    :meth:`due`.

    Progress only grows: a report that does not exceed the last one is dropped. At most
    :data:`RATE` notifications a second go out (a burst of as many, then one each 1/RATE s); of
    what must wait its turn, a run of progress reports is cut to its newest, and past
    :data:`WAITING` reports the oldest is dropped. When the call ends, what the rate allows is
    sent, and the newest progress besides: a program's last word on its progress is heard."""

    #: Notifications a second, at most (and the burst allowed).
    RATE = 10
    #: Seconds between two reports of how long the call has run.
    BEAT = 1.0
    #: Reports that may wait their turn.
    WAITING = 10

    def __init__(self, *, progress: bool, levels: frozenset[str], started: float) -> None:
        self.progress = progress
        self.levels = levels
        self._lock = threading.Lock()
        self._waiting: collections.deque[Report] = collections.deque()
        self._started = started
        self._tokens = float(self.RATE)
        self._refilled = started
        self._highest = -1.0  # the progress of the last report accepted (or sent)
        self._heard = False  # a program reported progress: the seconds are counted no more
        self._beats = 0
        self._closed = False

    @property
    def channel(self) -> bool:
        """Whether the call's programs get a channel to report on: its client listens."""
        return self.progress or bool(self.levels)

    def put(self, report: Report) -> None:
        """Take what a program reported (on any thread); drop what the client did not ask for,
        what does not advance, and the oldest of what waits when too much does."""
        with self._lock:
            if self._closed:
                return
            if isinstance(report, Progress):
                if not self.progress or report.progress <= self._highest:
                    return
                self._highest, self._heard = report.progress, True
            elif report.level not in self.levels:
                return
            self._waiting.append(report)
            if len(self._waiting) > self.WAITING:
                self._waiting.popleft()

    def _collapse(self) -> None:
        """Keep, of each run of progress reports waiting, only its newest."""
        kept: collections.deque[Report] = collections.deque()
        for report in self._waiting:
            if kept and isinstance(report, Progress) and isinstance(kept[-1], Progress):
                kept[-1] = report
            else:
                kept.append(report)
        self._waiting = kept

    def due(self, now: float, *, final: bool = False) -> list[Report]:
        """What to send now, in order; with ``final``, the last of it (nothing is taken after)."""
        with self._lock:
            if self._closed:
                return []
            self._tokens = min(float(self.RATE), self._tokens + (now - self._refilled) * self.RATE)
            self._refilled = now
            if len(self._waiting) > self._tokens:
                self._collapse()
            out: list[Report] = []
            while self._waiting and self._tokens >= 1:
                out.append(self._waiting.popleft())
                self._tokens -= 1
            if self.progress and not self._heard and not final:
                seconds = int((now - self._started) / self.BEAT)
                if seconds > self._beats and seconds > self._highest and self._tokens >= 1:
                    self._beats, self._highest = seconds, seconds
                    out.append(Progress(seconds, None, f"running {seconds} s"))
                    self._tokens -= 1
            if final:
                last = [report for report in self._waiting if isinstance(report, Progress)]
                out += last[-1:]
                self._waiting.clear()
                self._closed = True
            return out


async def send_report(ctx: t.Any, report: Report, tool: str) -> None:
    """Send ``report`` on the stream of request ``ctx`` (``notifications/progress`` against its
    token, or ``notifications/message`` from logger ``tool``)."""
    if isinstance(report, Progress):
        await ctx.session.report_progress(report.progress, report.total, report.message)
        return
    level = t.cast("types.LoggingLevel", report.level)
    params = types.LoggingMessageNotificationParams(level=level, data=report.message, logger=tool)
    await ctx.session.send_notification(
        types.LoggingMessageNotification(params=params), related_request_id=ctx.request_id
    )


async def keep_reporting(ctx: t.Any, reporter: Reporter, tool: str) -> None:
    """Send what ``reporter`` has due, every :data:`REPORT_TICK` seconds, until cancelled (or
    the client's stream fails: a report is advice, never the call's end)."""
    try:
        while True:
            await anyio.sleep(REPORT_TICK)
            for report in reporter.due(time.monotonic()):
                await send_report(ctx, report, tool)
    except Exception:  # noqa: BLE001 - the stream gone, or refusing: the call goes on, unreported
        return


async def last_reports(ctx: t.Any, reporter: Reporter, tool: str) -> None:
    """Send what ``reporter`` has left, once the call has its result (and before it is sent)."""
    with anyio.move_on_after(SEND_SECONDS):
        try:
            for report in reporter.due(time.monotonic(), final=True):
                await send_report(ctx, report, tool)
        except Exception:  # noqa: BLE001 - as in keep_reporting
            return
