"""Serving a project's tools over standard input and output with the SDK, once
:mod:`cogtools.mcp.first` has answered the first requests and imported it: :func:`serve` takes
over its :class:`~cogtools.mcp.first.Handover`, until the client closes its input (or a signal
stops the server).

The transport is this module's, not the SDK's ``stdio_server``: that one reads text with what is
not UTF-8 replaced, and hands what it cannot read to the server as an exception, which the
server logs and never answers (the client waits out its timeout). Here each line (read by the
first answers' reading thread, :class:`cogtools.mcp.framing.Lines`, at most 4 MiB) is taken by a
:class:`cogtools.mcp.framing.Wire` first, with the SDK's own model of a message as its last check:
the SDK serves what it can, and everything else is answered at once on the same output (one
writer at a time, under a lock). What the server writes goes out as the SDK writes it, save for a
batch's answers (one array), a progress token served under a string of the server's own, and
the answers to the messages the first answers served, which the SDK is told first (under ids of
the server's own) and whose answers are dropped.

File descriptors 0 and 1 stay claimed while it serves (:func:`cogtools.mcp.first.claimed`)."""

from __future__ import annotations

import contextlib
import functools
import json
import typing as t

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import ServerMessageMetadata, SessionMessage
from pydantic import ValidationError

from cogtools.mcp.first import Handover
from cogtools.mcp.framing import INTERNAL_ERROR, Id, TooLong, Wire, error_line
from cogtools.mcp.live import LiveCatalog
from cogtools.mcp.server import ToolServer, run_until_stopped

#: How long the first check for a change waits for the SDK to have served what the first answers
#: did (seconds): past it, it checks all the same.
CATCH_UP_SECONDS = 10.0


def serve(
    handover: Handover, live: LiveCatalog, *, max_calls: int, interval: float, report: t.Callable[[str], None]
) -> None:
    """Serve what ``handover`` leaves, and all that comes after, until the client closes the
    input (or a signal stops it)."""
    server = ToolServer(live, max_calls=max_calls)
    caught_up = anyio.Event()

    async def follow() -> None:
        # the catalog was loaded before the SDK was imported: checked at once, but only once the
        # SDK has been told what the first answers served (a connection joins the audience of
        # changes as the SDK serves its request): a change made meanwhile is told to it
        with anyio.move_on_after(CATCH_UP_SECONDS):
            await caught_up.wait()
        await server.follow(interval, report, at_once=True)

    async def main() -> None:
        async with _transport(handover, report, caught_up) as (read_stream, write_stream):
            async with anyio.create_task_group() as group:
                group.start_soon(follow)
                await server.sdk.run(read_stream, write_stream, server.sdk.create_initialization_options())
                group.cancel_scope.cancel()

    run_until_stopped(main)


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
    handover: Handover, report: t.Callable[[str], None], caught_up: anyio.Event
) -> t.AsyncIterator[
    tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]
]:
    """The streams the SDK's server serves: what the client said (first what was answered
    before, then what waited, then what comes); what the server says, written to the output.
    ``caught_up`` is set once the SDK has answered every request the first answers served."""
    out = handover.out
    wire = Wire(_validate)
    wire.version = handover.version
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

    async def take(line: bytes | TooLong) -> None:
        taken = wire.take(line)
        for dropped in taken.dropped:
            report(dropped)
        for reply in taken.replies:
            await put(reply)
        for inbound in taken.messages:
            metadata = None
            if inbound.id is not None:
                metadata = ServerMessageMetadata(on_request_unanswered=functools.partial(unanswered, inbound.id))
            await read_send.send(SessionMessage(inbound.message, metadata=metadata))

    async def read() -> None:
        async with read_send:
            for value in handover.served:
                try:
                    message = _validate(value)
                except ValueError as e:  # (a notification the first answers passed on as it was)
                    report(f"a notification ({value['method'][:100]!r}) dropped: {e}")
                    continue
                await read_send.send(SessionMessage(message))
            for waiting in handover.waiting:
                if waiting is None:
                    return
                await take(waiting)
            while (line := await anyio.to_thread.run_sync(handover.inbox.get, abandon_on_cancel=True)) is not None:
                assert isinstance(line, (bytes, TooLong))  # (the SDK, once imported, is said no more)
                await take(line)

    async def write() -> None:
        if not handover.replayed:
            caught_up.set()
        async with write_receive:
            async for session_message in write_receive:
                message = session_message.message
                if isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)) and message.id in handover.replayed:
                    handover.replayed.discard(message.id)  # answered before: dropped
                    if not handover.replayed:
                        caught_up.set()
                elif (line := _line(wire, message, report)) is not None:
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
