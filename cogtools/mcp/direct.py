"""The calls the HTTP server answers itself, in front of the SDK's streamable HTTP app.

A ``tools/call`` of the 2026-07-28 era is one POST and one JSON answer. The SDK's dispatch of it
(its routing, its task group for the answer, its runner and middleware) cost more than a
template's call itself (in process, 1.4 ms of CPU a call against 0.7 ms answered here);
:func:`answering` answers a call directly when its
client asks to hear nothing while it runs (no progress token, no log level), and passes every
other request to the SDK's app, as it came: anything else, and any call the SDK would answer with
other than the tool's result (a header that disagrees with the body, a version it does not
serve, parameters its model refuses, a tool it does not offer), so that every refusal is the
SDK's own. The call runs as the SDK's handler runs it (:meth:`cogtools.mcp.listing.Listing.try_inline`,
else :meth:`cogtools.mcp.server.ToolServer.run_in_worker`; a client that closes its response stream
cancels it, and its programs end); the answer is what that handler's result becomes in the SDK: the same
:class:`mcp_types.CallToolResult` (:meth:`cogtools.mcp.calls.Outcome.result`), shaped for the version
by the SDK's own ``serialize_server_result``, stamped with the server's ``serverInfo``. Unlike
the SDK, no keepalive comment is sent while a call runs past 15 seconds: the answer is JSON, as
the SDK's own ``json_response`` mode sends it.
"""

from __future__ import annotations

import json
import typing as t

import anyio
from mcp.server.connection import allowed_log_levels
from mcp.server.runner import modern_error_data
from mcp.server.streamable_http import CONTENT_TYPE_JSON, CONTENT_TYPE_SSE
from mcp.shared.exceptions import MCPError
from mcp.shared.inbound import (
    ERROR_CODE_HTTP_STATUS,
    InboundModernRoute,
    classify_inbound_request,
    find_duplicated_routing_header,
    validate_mcp_param_headers,
)
from mcp.shared.jsonrpc_dispatcher import progress_token_from_params
from mcp_types import CLIENT_INFO_META_KEY, INTERNAL_ERROR, SERVER_INFO_META_KEY, JSONRPCRequest
from mcp_types import methods as surface
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError
from starlette.datastructures import Headers

from cogtools.mcp.calls import Outcome, note_caller
from cogtools.mcp.listing import Listing
from cogtools.mcp.server import ToolServer

#: The path the SDK's app serves the streamable HTTP transport at.
PATH = "/mcp"
#: The largest body read here; a larger one goes to the SDK (which has its own limit).
MAX_BODY = 64 * 1024
#: The request headers read here, of those the SDK reads.
_WANTED = frozenset({b"mcp-protocol-version", b"mcp-method", b"content-type", b"content-length", b"accept"})
#: The protocol versions whose calls may be answered here, as they come in a header.
_MODERN = frozenset(version.encode() for version in MODERN_PROTOCOL_VERSIONS)


class DirectCall(t.NamedTuple):
    """A ``tools/call`` to answer here."""

    id: str | int
    version: str
    name: str
    arguments: dict[str, t.Any] | None
    listing: Listing
    #: The ``clientInfo`` the request's ``_meta`` carries.
    client: t.Any = None


def answering(app: t.Any, server: ToolServer) -> t.Any:
    """``app`` (the SDK's streamable HTTP app, serving ``server``'s SDK server), with the
    ``tools/call`` requests that :func:`read_call` takes answered first."""

    async def answered(scope: t.Any, receive: t.Any, send: t.Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != PATH:
            await app(scope, receive, send)
            return
        wanted: dict[bytes, bytes] = {}
        for key, value in scope["headers"]:
            if key in _WANTED:
                if key in wanted:  # twice: the SDK says what it makes of that
                    await app(scope, receive, send)
                    return
                wanted[key] = value
        length = wanted.get(b"content-length", b"")
        if (
            wanted.get(b"mcp-protocol-version") not in _MODERN
            or wanted.get(b"mcp-method") != b"tools/call"
            or not length.isdigit()
            or int(length) > MAX_BODY
        ):
            await app(scope, receive, send)
            return
        messages, body = await _read(receive, int(length))
        call = None if body is None else read_call(server, scope["headers"], wanted, body)
        if call is not None:
            note_caller(call.client, scope)  # (the audit log's)
        try:
            outcome = None if call is None else call.listing.try_inline(call.name, call.arguments)
            if call is not None and outcome is None:
                outcome = await _run_while_connected(server, call, receive)
                if outcome is None:
                    return  # the client is gone: the call ended with it
        except Exception as e:  # noqa: BLE001 - what the SDK answers of a handler that raised
            assert call is not None
            await _send(send, *failure(call, e))
            return
        if call is None or outcome is None or outcome.tool_not_found(call.name):
            # (nothing ran: a tool not offered fails in its lookup)
            await app(scope, _replaying(messages, receive), send)
            return
        await _send(send, *answer(server, call, outcome))

    return answered


async def _send(send: t.Any, status: int, payload: bytes) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})


async def _read(receive: t.Any, length: int) -> tuple[list[t.Any], bytes | None]:
    """The messages of the request's body as they came, and the body: None unless it is
    exactly ``length`` bytes, whole."""
    messages: list[t.Any] = []
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return messages, None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > length:
            return messages, None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return messages, b"".join(chunks) if size == length else None


def _replaying(messages: list[t.Any], receive: t.Any) -> t.Any:
    """``receive``, giving ``messages`` (those already read) first."""
    waiting = list(reversed(messages))

    async def replay() -> t.Any:
        if waiting:
            return waiting.pop()
        return await receive()

    return replay


async def _run_while_connected(server: ToolServer, call: DirectCall, receive: t.Any) -> Outcome | None:
    """The call in a worker thread, as the SDK's handler runs it; None when the client closed
    its response stream first (the call is cancelled, and its programs end)."""
    outcome: list[Outcome | Exception] = []

    async def run(group: t.Any) -> None:
        try:
            outcome.append(await server.run_in_worker(call.listing, call.name, call.arguments))
        except Exception as e:  # noqa: BLE001 - raised below, not in a group
            outcome.append(e)
        group.cancel_scope.cancel()

    async with anyio.create_task_group() as group:
        group.start_soon(run, group)
        while (await receive())["type"] != "http.disconnect":
            pass
        group.cancel_scope.cancel()
    if outcome and isinstance(outcome[0], Exception):
        raise outcome[0]
    return t.cast("Outcome", outcome[0]) if outcome else None


def read_call(
    server: ToolServer,
    raw_headers: t.Iterable[tuple[bytes, bytes]],
    wanted: t.Mapping[bytes, bytes],
    body: bytes,
) -> DirectCall | None:
    """The ``tools/call`` of the 2026-07-28 era in a request to answer here, or None when it is
    not one: anything the SDK would refuse, or answer with other than the tool's result, and any
    call whose client asks to hear of it while it runs (the SDK sends that on an event stream)."""
    content_type = wanted.get(b"content-type", b"").decode("latin-1").lower()
    accepted = {kind.split(";")[0].strip().lower() for kind in wanted.get(b"accept", b"").decode("latin-1").split(",")}
    if not content_type.startswith(CONTENT_TYPE_JSON) or not {CONTENT_TYPE_JSON, CONTENT_TYPE_SSE} <= accepted:
        return None  # (the SDK's 400 and 406; a wildcard is the SDK's to read)
    try:
        decoded = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if not isinstance(decoded, dict) or "id" not in decoded:
        return None
    headers = Headers(raw=list(raw_headers))  # (what the SDK reads them with: a name's first value)
    if find_duplicated_routing_header(headers.items()) is not None:
        return None
    verdict = classify_inbound_request(decoded, headers=dict(headers))
    if not isinstance(verdict, InboundModernRoute) or decoded.get("method") != "tools/call":
        return None
    try:
        request = JSONRPCRequest.model_validate(decoded)
        params = request.params or {}
        surface.validate_client_request("tools/call", verdict.protocol_version, params)
        handler = server.sdk.get_request_handler("tools/call")
        if handler is not None:  # (the server has one: it serves tools)
            handler.params_type.model_validate(params, by_name=False)
    except (ValidationError, KeyError, ValueError):
        return None  # (and the handler's own model: it refuses what the version's lets through)
    name, arguments, meta = params.get("name"), params.get("arguments"), params.get("_meta")
    listing = server.listing()
    if (
        not isinstance(name, str)
        or name not in listing.schemas
        or not isinstance(arguments, (dict, type(None)))
        or progress_token_from_params(params) is not None
        or allowed_log_levels(verdict.protocol_version, meta if isinstance(meta, dict) else None)
    ):
        return None
    if validate_mcp_param_headers(listing.schemas[name], arguments or {}, headers) is not None:
        return None
    client = meta.get(CLIENT_INFO_META_KEY) if isinstance(meta, dict) else None
    return DirectCall(request.id, verdict.protocol_version, name, arguments, listing, client)


def failure(call: DirectCall, error: Exception) -> tuple[int, bytes]:
    """The HTTP status and JSON body of the SDK's answer to ``call`` when its handler raised
    ``error`` (logged; the client is told only that it was internal)."""
    data = modern_error_data(error)
    body = {"jsonrpc": "2.0", "id": call.id, "error": data.model_dump(mode="json", by_alias=True, exclude_none=True)}
    return ERROR_CODE_HTTP_STATUS.get(data.code, 200), json.dumps(body, separators=(",", ":")).encode()


def answer(server: ToolServer, call: DirectCall, outcome: Outcome) -> tuple[int, bytes]:
    """The HTTP status and JSON body of the answer to ``call``, which ran: what the SDK makes
    of the result the server's handler returns."""
    shaped = outcome.result(call.name).model_dump(by_alias=True, mode="json", exclude_none=True)
    try:
        result = surface.serialize_server_result("tools/call", call.version, shaped)
    except ValidationError:  # as the SDK's runner says it
        return failure(call, MCPError(code=INTERNAL_ERROR, message="Handler returned an invalid result"))
    result.setdefault("resultType", "complete")
    meta = result.get("_meta")
    if meta is None or (isinstance(meta, dict) and meta.get(SERVER_INFO_META_KEY) is None):
        result["_meta"] = {**(meta or {}), SERVER_INFO_META_KEY: server.sdk.server_info_stamp}
    return 200, json.dumps({"jsonrpc": "2.0", "id": call.id, "result": result}, separators=(",", ":")).encode()
