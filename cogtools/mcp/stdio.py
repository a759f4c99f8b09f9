"""Serving a project's tools over standard input and output, until the client closes them (or a
signal stops the server).

The transport is this module's, not the SDK's ``stdio_server``: that one reads text with what is
not UTF-8 replaced, and hands what it cannot read to the server as an exception, which the
server logs and never answers (the client waits out its timeout). Here each line is read
(:class:`cogtools.mcp.framing.Lines`, at most 4 MiB) and taken by a
:class:`cogtools.mcp.framing.Wire` first, with the SDK's own model of a message as its last check:
the SDK serves what it can, and everything else is answered at once on the same output (one
writer at a time, under a lock). What the server writes goes out as the SDK writes it, save for a
batch's answers (one array) and a progress token served under a string of the server's own.

As the SDK's transport does, this one claims file descriptors 0 and 1 while it serves: 0 reads
the null device and 1 writes to standard error, so that a tool's program neither reads the
client's messages nor writes into them; the wire is served from private duplicates, and 0 and 1
are given back at the end."""

from __future__ import annotations

import contextlib
import fcntl
import functools
import json
import os
import typing as t

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import ServerMessageMetadata, SessionMessage
from pydantic import ValidationError

from cogtools.mcp.framing import INTERNAL_ERROR, Id, Lines, Wire, error_line
from cogtools.mcp.live import LiveCatalog
from cogtools.mcp.server import ToolServer, run_until_stopped


def serve_stdio(live: LiveCatalog, *, max_calls: int, interval: float, report: t.Callable[[str], None]) -> None:
    """Serve over stdin and stdout until the client closes them (or a signal stops it)."""
    server = ToolServer(live, max_calls=max_calls)

    async def main() -> None:
        with _claimed(0, os.O_RDONLY) as wire_in, _claimed(1, os.O_WRONLY) as wire_out:
            async with _transport(wire_in, wire_out, report) as (read_stream, write_stream):
                async with anyio.create_task_group() as group:
                    group.start_soon(server.follow, interval, report)
                    await server.sdk.run(read_stream, write_stream, server.sdk.create_initialization_options())
                    group.cancel_scope.cancel()

    run_until_stopped(main)


@contextlib.contextmanager
def _claimed(fd: int, mode: int) -> t.Iterator[int]:
    """A private duplicate of ``fd`` (0 or 1), while ``fd`` itself is diverted: 0 to the null
    device, 1 to standard error. When it cannot be diverted, ``fd`` itself."""
    try:
        private = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    except OSError:
        yield fd
        return
    try:
        diversion = os.dup(2) if fd == 1 else os.open(os.devnull, mode | os.O_CLOEXEC)
        try:
            os.dup2(diversion, fd)
        finally:
            os.close(diversion)
    except OSError:
        pass  # served from the duplicate all the same
    try:
        yield private
    finally:
        # (private stays open: the thread that reads it may still be blocked in a read)
        with contextlib.suppress(OSError):
            os.dup2(private, fd)


def _validate(value: dict[str, t.Any]) -> types.JSONRPCMessage:
    """``value`` as the SDK's message; ValueError, saying what the SDK's model refuses in the kind
    of message ``value`` is shaped as, when it refuses it."""
    try:
        return types.jsonrpc_message_adapter.validate_python(value, by_name=False)
    except ValidationError as e:
        if "method" in value:
            kind = "JSONRPCRequest" if "id" in value else "JSONRPCNotification"
        else:
            kind = "JSONRPCError" if "error" in value else "JSONRPCResponse"
        errors = e.errors()
        first = next((error for error in errors if error["loc"][:1] == (kind,)), errors[0])
        where = ".".join(str(part) for part in first["loc"][1:]) or "the message"
        raise ValueError(f"not a JSON-RPC message the server reads ({where}: {first['msg']})") from None


@contextlib.asynccontextmanager
async def _transport(
    wire_in: int, wire_out: int, report: t.Callable[[str], None]
) -> t.AsyncIterator[
    tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]
]:
    """The streams the SDK's server serves: what the client says, read from ``wire_in``; what the
    server says, written to ``wire_out``."""
    lines = Lines(os.fdopen(wire_in, "rb", closefd=False))
    out = os.fdopen(wire_out, "wb", closefd=False)
    wire = Wire(_validate)
    lock = anyio.Lock()
    read_send, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_receive = anyio.create_memory_object_stream[SessionMessage](0)

    def put_now(data: bytes) -> None:
        out.write(data)
        out.flush()

    async def put(data: bytes) -> None:
        async with lock:
            await anyio.to_thread.run_sync(put_now, data)

    async def unanswered(id: Id) -> None:
        if (line := wire.unanswered(id)) is not None:
            await put(line)

    async def read() -> None:
        async with read_send:
            while (line := await anyio.to_thread.run_sync(lines.next, abandon_on_cancel=True)) is not None:
                taken = wire.take(line)
                for dropped in taken.dropped:
                    report(dropped)
                for reply in taken.replies:
                    await put(reply)
                for inbound in taken.messages:
                    metadata = None
                    if inbound.id is not None:
                        metadata = ServerMessageMetadata(
                            on_request_unanswered=functools.partial(unanswered, inbound.id)
                        )
                    await read_send.send(SessionMessage(inbound.message, metadata=metadata))

    async def write() -> None:
        async with write_receive:
            async for session_message in write_receive:
                if (line := _line(wire, session_message.message, report)) is not None:
                    await put(line)

    async with anyio.create_task_group() as group:
        group.start_soon(read)
        group.start_soon(write)
        yield read_stream, write_stream


def _line(wire: Wire, message: types.JSONRPCMessage, report: t.Callable[[str], None]) -> bytes | None:
    """What to write of ``message``, one of the server's: the SDK's JSON of it, as ``wire``
    would have it (None: nothing yet)."""
    answers = message.id if isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)) else None
    try:
        line = message.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n"
    except ValueError as e:  # (text that is not Unicode, which no answer should hold)
        report(f"an answer that cannot be written as JSON: {e}")
        if answers is None:
            return None
        line = error_line(
            INTERNAL_ERROR, "Internal error: the answer could not be written as JSON", json.dumps(answers)
        )
    if answers is not None:
        return wire.answered(answers, line, message.result if isinstance(message, types.JSONRPCResponse) else None)
    if isinstance(message, types.JSONRPCNotification) and message.method == "notifications/progress" and message.params:
        return wire.progress(message.params.get("progressToken"), line)
    return line
