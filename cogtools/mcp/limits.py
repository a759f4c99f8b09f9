"""Per-caller limits of an HTTP server (``--calls-per-minute``, ``--concurrent-calls``, the user's
``auth.limits``): how many requests a caller may send a minute and have in flight at once. A
caller is the access token's subject with ``--auth``, else the client's address. A POST to the
MCP endpoint is a call (a ``tools/call``, a ``tools/list``, an ``initialize`` alike); a request
beyond a limit is a ``429`` with ``Retry-After``, before anything of it is read.

The limits are one process's: replicas behind a load balancer hold each its own (docs/team.md
says how the balancer holds them across replicas). The rate is a token bucket per caller: a
minute's calls may come at once, then they come back at the rate (``calls_per_minute`` / 60 a
second)."""

from __future__ import annotations

import json
import math
import time
import typing as t

from cogtools.core.errors import ConfigInvalidError

#: How many callers are remembered before the idle ones are forgotten (one whose bucket is full
#: and who has nothing in flight first; any idle one if that is not enough).
MAX_CALLERS = 10_000
#: What a refusal of a call beyond the calls in flight tells the client to wait, in seconds.
BUSY_RETRY = 1


class Limits(t.NamedTuple):
    """A caller's limits; None is no limit."""

    calls_per_minute: int | None = None
    concurrent: int | None = None

    @classmethod
    def of(cls, config: t.Any, calls_per_minute: int | None, concurrent: int | None) -> Limits | None:
        """The limits of the user's ``auth.limits`` setting (``config``), the options over it;
        None when there are none."""
        if config is None:
            config = {}
        if not isinstance(config, dict) or set(config) - set(cls._fields):
            raise ConfigInvalidError(
                "auth.limits takes calls_per_minute and concurrent, each a whole number from 1", path="auth.limits"
            )
        found = cls(
            calls_per_minute if calls_per_minute is not None else config.get("calls_per_minute"),
            concurrent if concurrent is not None else config.get("concurrent"),
        )
        for name, value in found._asdict().items():
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise ConfigInvalidError(f"auth.limits.{name} is a whole number from 1", path="auth.limits")
        return None if found == cls() else found


class _Caller:
    __slots__ = ("tokens", "stamp", "flight")

    def __init__(self, tokens: float, stamp: float) -> None:
        self.tokens, self.stamp, self.flight = tokens, stamp, 0


class Limiter:
    """The callers' buckets and calls in flight, of one process (used on its event loop)."""

    def __init__(self, limits: Limits, clock: t.Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        self.callers: dict[str, _Caller] = {}

    def _refilled(self, state: _Caller, now: float) -> None:
        per_minute = self.limits.calls_per_minute
        if per_minute is not None:
            state.tokens = min(float(per_minute), state.tokens + (now - state.stamp) * per_minute / 60)
        state.stamp = now

    def admit(self, caller: str) -> int | None:
        """Take a call of ``caller`` in (None), or refuse it: the whole seconds to wait before
        trying again. A call taken in is :meth:`done` later."""
        now = self.clock()
        state = self.callers.get(caller)
        if state is None:
            if len(self.callers) >= MAX_CALLERS:
                self._forget(now)
            state = self.callers[caller] = _Caller(float(self.limits.calls_per_minute or 0), now)
        self._refilled(state, now)
        if self.limits.concurrent is not None and state.flight >= self.limits.concurrent:
            return BUSY_RETRY
        per_minute = self.limits.calls_per_minute
        if per_minute is not None:
            if state.tokens < 1:
                return max(1, math.ceil((1 - state.tokens) * 60 / per_minute))
            state.tokens -= 1
        state.flight += 1
        return None

    def done(self, caller: str) -> None:
        state = self.callers.get(caller)
        if state is not None:
            state.flight -= 1

    def _forget(self, now: float) -> None:
        idle = [name for name, state in self.callers.items() if state.flight == 0]
        for name in idle:
            self._refilled(self.callers[name], now)
        full = float(self.limits.calls_per_minute or 0)
        rested = [name for name in idle if self.callers[name].tokens >= full]
        for name in rested if len(self.callers) - len(rested) < MAX_CALLERS else idle:
            del self.callers[name]


def limited(
    app: t.Any, limits: Limits, refuse: t.Callable[..., t.Awaitable[None]], caller_key: str | None, path: str = "/mcp"
) -> t.Any:
    """``app`` with each caller's POSTs to ``path`` held to ``limits``: the caller is the
    ``subject`` of what the scope holds at ``caller_key`` (the resource server's caller), else the
    client's address; beyond a limit, ``refuse(send, 429, body, ...)`` with ``Retry-After``."""
    limiter = Limiter(limits)

    async def limiting(scope: t.Any, receive: t.Any, send: t.Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != path:
            await app(scope, receive, send)
            return
        found = scope.get(caller_key) if caller_key is not None else None
        client = scope.get("client")
        caller = f"sub:{found.subject}" if found is not None else f"address:{client[0] if client else ''}"
        wait = limiter.admit(caller)
        if wait is not None:
            which = "calls at once" if wait == BUSY_RETRY and _busy(limiter, caller) else "calls a minute"
            body = json.dumps(
                {"error": "rate_limited", "error_description": f"over this caller's {which}; try again in {wait} s"}
            ).encode()
            await refuse(send, 429, body, (b"retry-after", str(wait).encode()))
            return
        try:
            await app(scope, receive, send)
        finally:
            limiter.done(caller)

    return limiting


def _busy(limiter: Limiter, caller: str) -> bool:
    state = limiter.callers.get(caller)
    concurrent = limiter.limits.concurrent
    return state is not None and concurrent is not None and state.flight >= concurrent
