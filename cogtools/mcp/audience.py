"""The connections of the handshake era to tell of a change (a client of 2026-07-28 listens for
itself, with ``subscriptions/listen``)."""

from __future__ import annotations

import typing as t

import anyio
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from cogtools.mcp.reporting import LOG_LEVEL_KEY, SEND_SECONDS, connection_of, levels_from


class Audience:
    """The connections to tell of a change, the handshake era's: each connection once, however
    many requests it made, and forgotten when it closes."""

    def __init__(self) -> None:
        self._connections: dict[int, t.Any] = {}

    def __len__(self) -> int:
        return len(self._connections)

    def join(self, ctx: t.Any) -> None:
        """Count the connection ``ctx`` came on, unless it is already counted or of an era that
        listens for itself."""
        connection = connection_of(ctx)
        key = id(connection)
        if connection is None or key in self._connections or connection.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return
        self._connections[key] = connection
        connection.exit_stack.callback(self._connections.pop, key, None)

    async def tell(self, problems: list[str]) -> None:
        """Send each connection ``notifications/tools/list_changed`` and the problems, a
        warning each (unless its ``logging/setLevel`` asked for more severe messages only); a
        connection that does not take them within :data:`SEND_SECONDS` is skipped."""
        for connection in list(self._connections.values()):
            with anyio.move_on_after(SEND_SECONDS):
                await connection.send_tool_list_changed()
                level = connection.state.get(LOG_LEVEL_KEY)
                if level is not None and "warning" not in levels_from(level):
                    continue
                for line in problems:
                    params = {"level": "warning", "logger": "cogtools", "data": line}
                    await connection.notify("notifications/message", params)
