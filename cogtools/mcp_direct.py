"""The calls the HTTP server answers itself, in front of the SDK's streamable HTTP app.

A ``tools/call`` of the 2026-07-28 era is one POST and one JSON answer. For a call that may run
on the event loop (:meth:`cogtools.mcp_server.Offer.try_inline`: a template whose arguments are
checked in linear time), the SDK's dispatch (its routing, its task group for the answer, its
runner and middleware) costs several times the call itself; :func:`answering` answers such a
call directly, and passes every other request to the SDK's app, unread: anything else, and any
call the SDK would answer with other than a result (a header that disagrees with the body, a
version it does not serve, parameters its model refuses), goes there as it came, so that every
refusal is the SDK's own. The answer is what the SDK's handler would send: the same
:class:`mcp_types.CallToolResult` (:func:`cogtools.mcp_server.result_of`), shaped for the
version by the SDK's own ``serialize_server_result``, stamped with the server's ``serverInfo``.
"""

from __future__ import annotations

import json
import typing as t

if t.TYPE_CHECKING:
    from mcp.server.lowlevel import Server

    from cogtools.mcp_server import Offer

#: The path the SDK's app serves the streamable HTTP transport at.
PATH = "/mcp"
#: The largest body read here; a larger one goes to the SDK (which has its own limit).
MAX_BODY = 64 * 1024
#: The request headers read here, of those the SDK reads.
_WANTED = frozenset({b"mcp-protocol-version", b"mcp-method", b"content-type", b"content-length", b"accept"})


def answering(app: t.Any, server: Server[t.Any], offer: t.Callable[[], Offer]) -> t.Any:
    """``app`` (the SDK's streamable HTTP app, serving ``server``), with the ``tools/call``
    requests that :func:`answer` can answer answered first; ``offer`` gives the offer of the
    catalog as it is now."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    modern = frozenset(version.encode() for version in MODERN_PROTOCOL_VERSIONS)

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
            wanted.get(b"mcp-protocol-version") not in modern
            or wanted.get(b"mcp-method") != b"tools/call"
            or not length.isdigit()
            or int(length) > MAX_BODY
        ):
            await app(scope, receive, send)
            return
        messages, body = await _read(receive, int(length))
        answer = None if body is None else answer_call(server, offer, scope["headers"], wanted, body)
        if answer is None:
            await app(scope, _replaying(messages, receive), send)
            return
        status, payload = answer
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": payload})

    return answered


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


def answer_call(
    server: Server[t.Any],
    offer: t.Callable[[], Offer],
    raw_headers: t.Iterable[tuple[bytes, bytes]],
    wanted: t.Mapping[bytes, bytes],
    body: bytes,
) -> tuple[int, bytes] | None:
    """The HTTP status and body of the answer to a ``tools/call`` of the 2026-07-28 era, or
    None when it is not one to answer here: anything the SDK would refuse, or answer with other
    than the tool's result, and any call not tried on the event loop or not ended in time there
    (the SDK runs it in a worker thread)."""
    from mcp.server.streamable_http import CONTENT_TYPE_JSON, CONTENT_TYPE_SSE
    from mcp.shared.inbound import (
        InboundModernRoute,
        classify_inbound_request,
        find_duplicated_routing_header,
        validate_mcp_param_headers,
    )
    from mcp_types import SERVER_INFO_META_KEY, JSONRPCRequest
    from mcp_types import methods as surface
    from pydantic import ValidationError

    from cogtools.mcp_server import result_of

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
    headers = [(key.decode("latin-1"), value.decode("latin-1")) for key, value in raw_headers]
    if find_duplicated_routing_header(headers) is not None:
        return None
    folded = dict(headers)
    verdict = classify_inbound_request(decoded, headers=folded)
    if not isinstance(verdict, InboundModernRoute) or decoded.get("method") != "tools/call":
        return None
    try:
        request = JSONRPCRequest.model_validate(decoded)
        params = request.params or {}
        surface.validate_client_request("tools/call", verdict.protocol_version, params)
    except (ValidationError, KeyError, ValueError):
        return None
    name, arguments = params.get("name"), params.get("arguments")
    offered = offer()
    if not isinstance(name, str) or name not in offered.inline or not isinstance(arguments, (dict, type(None))):
        return None
    if validate_mcp_param_headers(offered.schemas[name], arguments or {}, folded) is not None:
        return None
    called = offered.try_inline(name, arguments)
    if called is None or (called.error is not None and called.error["error"]["code"] == "TOOL_NOT_FOUND"):
        return None  # (the SDK runs it in a worker; or says it is not offered, as a protocol error)
    shaped = result_of(called, name).model_dump(by_alias=True, mode="json", exclude_none=True)
    try:
        result = surface.serialize_server_result("tools/call", verdict.protocol_version, shaped)
    except (ValidationError, KeyError, ValueError):
        return None  # (the SDK's handler says so, as an internal error)
    result.setdefault("resultType", "complete")
    meta = result.get("_meta")
    if meta is None or (isinstance(meta, dict) and meta.get(SERVER_INFO_META_KEY) is None):
        result["_meta"] = {**(meta or {}), SERVER_INFO_META_KEY: server.server_info_stamp}
    answer = {"jsonrpc": "2.0", "id": request.id, "result": result}
    return 200, json.dumps(answer, separators=(",", ":")).encode()
