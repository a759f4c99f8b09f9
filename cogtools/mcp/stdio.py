"""Serving a project's tools over standard input and output, until the client closes them (or a
signal stops the server)."""

from __future__ import annotations

import typing as t

import anyio
from mcp.server.stdio import stdio_server

from cogtools.mcp.live import LiveCatalog
from cogtools.mcp.server import ToolServer, run_until_stopped


def serve_stdio(live: LiveCatalog, *, max_calls: int, interval: float, report: t.Callable[[str], None]) -> None:
    """Serve over stdin and stdout until the client closes them (or a signal stops it)."""
    server = ToolServer(live, max_calls=max_calls)

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            async with anyio.create_task_group() as group:
                group.start_soon(server.follow, interval, report)
                await server.sdk.run(read_stream, write_stream, server.sdk.create_initialization_options())
                group.cancel_scope.cancel()

    run_until_stopped(main)
