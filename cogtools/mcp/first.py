"""The first answers of a stdio server, before the SDK is imported (DESIGN §12).

Importing the ``mcp`` SDK costs 1-2 s (the pydantic models of ``mcp_types``), and clients give
up sooner (DESIGN §8): Claude Code headless waits 2 s for its servers, Codex about 1. So a stdio
server starts here, with only the standard library and the catalog: it loads the catalog,
imports the SDK in a thread of its own, and meanwhile answers what a client asks first, in the
order it asks it, from what :class:`Opening` has made of the catalog:

- ``initialize`` (the handshake era's first request), ``notifications/initialized``, ``ping``
  and ``tools/list``;
- ``server/discover`` and ``tools/list`` of a 2026-07-28 client (each carrying the protocol's
  ``_meta`` envelope: that era has no handshake);
- a line that is no message at all (not JSON, not an object, too long) is answered at once by
  the wire's own reading (:class:`cogtools.mcp.framing.Wire`), as ever.

Anything else (a call, a message this module does not read as surely as the SDK would, a
batch) waits for the SDK, and so does every message that comes after it, in order; a
``notifications/cancelled`` of a request still waiting takes it off the queue (it is never
served, nor answered, as the specification asks of a cancelled request). Once the SDK is
imported the server hands over (:func:`cogtools.mcp.stdio.serve`): the SDK is first told every
message that was answered here, under ids of the server's own whose answers are dropped, so
that its session is the one it would have made of the client's own messages (the protocol
version agreed, the client's capabilities, ``notifications/initialized``) by the SDK's own
code, not by setting its state from outside; then it serves what waited, then the rest.

The answers are the SDK's, made without it: :data:`CAPABILITIES` and the protocol versions are
what the SDK's server says for cogtools' :class:`~cogtools.mcp.server.ToolServer`, and a message
is answered here only when its shape is one the SDK certainly accepts (anything less sure
waits for the SDK); ``tests/test_mcp_first.py`` holds each answer equal to the SDK's, for every
protocol version and for projects of every kind of declaration."""

from __future__ import annotations

import contextlib
import fcntl
import importlib
import json
import os
import queue
import threading
import typing as t

from cogtools import __version__
from cogtools.clients.export import export
from cogtools.mcp import INSTRUCTIONS, SERVER_NAME
from cogtools.mcp.framing import Id, Lines, TooLong, Wire, read_message
from cogtools.services.discovery import offer

if t.TYPE_CHECKING:
    from types import ModuleType

    from cogtools.load.loading import Loaded
    from cogtools.mcp.live import LiveCatalog

#: The protocol versions of the handshake era, oldest first, and the one a server answers a
#: version it does not know with (the SDK's ``HANDSHAKE_PROTOCOL_VERSIONS``, as of ``mcp`` 2.3).
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
LATEST_HANDSHAKE = HANDSHAKE_VERSIONS[-1]
#: The versions whose requests each carry the ``_meta`` envelope (``MODERN_PROTOCOL_VERSIONS``).
MODERN_VERSIONS = ("2026-07-28",)
#: What the server can do: tools whose list changes (and is announced), and log messages.
CAPABILITIES: dict[str, t.Any] = {"logging": {}, "tools": {"listChanged": True}}
#: The envelope's keys (2026-07-28), and the key under which a result names the server.
_ENVELOPE = "io.modelcontextprotocol/"
PROTOCOL_VERSION_KEY = _ENVELOPE + "protocolVersion"
CLIENT_INFO_KEY = _ENVELOPE + "clientInfo"
CLIENT_CAPABILITIES_KEY = _ENVELOPE + "clientCapabilities"
SERVER_INFO_KEY = _ENVELOPE + "serverInfo"
#: What a 2026-07-28 result says of how long it may be kept (the SDK's default cache hint).
_CACHE_HINT: dict[str, t.Any] = {"cacheScope": "private", "ttlMs": 0}

#: The methods of the specification that the server has no handler for (it offers no prompts nor
#: resources), which clients of the handshake era ask for all the same, answered as the SDK does.
UNSERVED = ("prompts/list", "resources/list", "resources/templates/list")
METHOD_NOT_FOUND = -32601

#: A message taken here that has nothing to write back (a notification).
CONSUMED = b""


def declarations(loaded: Loaded) -> list[dict[str, t.Any]]:
    """What ``tools/list`` answers: the offer (:func:`cogtools.services.discovery.offer`, what
    ``cogtools-discover`` gives Gemini CLI), in the MCP dialect."""
    tools = offer(loaded).tools
    found, _ = export(tools, "mcp")
    titles = {tool.name: tool.title for tool in tools}
    for declaration in found:
        if titles.get(declaration["name"]):
            declaration["title"] = titles[declaration["name"]]
    return found


# -- what the SDK certainly accepts ------------------------------------------------------------------
#
# Each check answers True only for a shape that the SDK's models accept and read as given: known
# keys with values of exactly their types (no null, no value pydantic would coerce); anything
# else waits for the SDK, which answers it as it does.


def _strings(value: t.Any, required: tuple[str, ...], optional: tuple[str, ...]) -> bool:
    """Whether ``value`` is an object of string values, with the keys ``required`` and no
    others than ``optional``."""
    return (
        isinstance(value, dict)
        and all(key in value for key in required)
        and all(key in required or key in optional for key in value)
        and all(isinstance(item, str) for item in value.values())
    )


def _client_info(value: t.Any) -> bool:
    return _strings(value, ("name", "version"), ("title", "description", "websiteUrl"))


def _objects(value: t.Any, keys: tuple[str, ...] | None = None) -> bool:
    """Whether ``value`` is an object whose values are objects (of only ``keys``, if given)."""
    return (
        isinstance(value, dict)
        and all(isinstance(item, dict) for item in value.values())
        and (keys is None or all(key in keys for key in value))
    )


def _client_capabilities(value: t.Any) -> bool:
    """Whether ``value`` is client capabilities the SDK takes as given: roots, sampling,
    elicitation and experimental ones (no tasks; and at 2026-07-28 no extensions, whose keys
    follow rules of their own)."""
    if not isinstance(value, dict):
        return False
    for key, item in value.items():
        if key == "roots":
            if not isinstance(item, dict) or not isinstance(item.get("listChanged", False), bool):
                return False
        elif key == "sampling":
            if not _objects(item, ("context", "tools")):
                return False
        elif key == "elicitation":
            if not _objects(item, ("form", "url")):
                return False
        elif key == "experimental":
            if not _objects(item):
                return False
        else:
            return False
    return True


def _handshake(params: t.Any) -> str | None:
    """The protocol version that ``initialize``'s ``params`` agree on, or None when they are not
    certainly what the SDK accepts."""
    if not (
        isinstance(params, dict)
        and set(params) == {"protocolVersion", "capabilities", "clientInfo"}
        and isinstance(params["protocolVersion"], str)
        and _client_info(params["clientInfo"])
        and _client_capabilities(params["capabilities"])
    ):
        return None
    requested = params["protocolVersion"]
    return requested if requested in HANDSHAKE_VERSIONS else LATEST_HANDSHAKE


def _bare(params: dict[str, t.Any]) -> bool:
    """Whether a request of the handshake era has no params but, at most, a progress token (Codex
    asks for the list of tools with one) that is a string or an integer."""
    if not params:
        return True
    meta = params.get("_meta")
    token = meta.get("progressToken") if isinstance(meta, dict) and set(meta) == {"progressToken"} else None
    return set(params) == {"_meta"} and isinstance(token, (str, int)) and not isinstance(token, bool)


def _has_envelope(params: t.Any) -> bool:
    """Whether a request carries the 2026-07-28 envelope (its protocol version key, as the SDK
    tells the era: :func:`mcp.server.runner._has_modern_envelope`)."""
    return (
        isinstance(params, dict) and isinstance(params.get("_meta"), dict) and PROTOCOL_VERSION_KEY in params["_meta"]
    )


def _envelope(params: t.Any) -> bool:
    """Whether ``params`` are the 2026-07-28 envelope alone, certainly what the SDK accepts."""
    if not isinstance(params, dict) or set(params) != {"_meta"}:
        return False
    meta = params["_meta"]
    if not isinstance(meta, dict) or any(
        key not in (PROTOCOL_VERSION_KEY, CLIENT_INFO_KEY, CLIENT_CAPABILITIES_KEY) for key in meta
    ):
        return False
    return (
        meta.get(PROTOCOL_VERSION_KEY) in MODERN_VERSIONS
        and (CLIENT_INFO_KEY not in meta or _client_info(meta[CLIENT_INFO_KEY]))
        and _client_capabilities(meta.get(CLIENT_CAPABILITIES_KEY))
    )


# -- what the SDK's models keep of a declaration -----------------------------------------------------

_TOOL_KEYS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")
_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def _schema(value: t.Any) -> dict[str, t.Any] | None:
    """A tool's input or output schema as the SDK's model writes it (its keys whose value is null
    left out), or None when the model would not take it as it is."""
    if not isinstance(value, dict) or value.get("type") != "object":
        return None
    properties, required = value.get("properties"), value.get("required")
    if properties is not None and not (
        isinstance(properties, dict) and all(isinstance(item, (dict, bool)) for item in properties.values())
    ):
        return None
    if required is not None and not (isinstance(required, list) and all(isinstance(item, str) for item in required)):
        return None
    if not isinstance(value.get("$schema", ""), (str, type(None))):
        return None
    return {key: item for key, item in value.items() if item is not None}


def served_tool(declaration: dict[str, t.Any]) -> dict[str, t.Any] | None:
    """A declaration (:func:`declarations`) as the SDK answers it in ``tools/list``, or None when
    it is not certainly what the SDK's models take as given."""
    if not all(key in _TOOL_KEYS for key in declaration) or not isinstance(declaration.get("name"), str):
        return None
    tool: dict[str, t.Any] = {}
    for key, value in declaration.items():
        if value is None:
            continue
        if key in ("inputSchema", "outputSchema"):
            value = _schema(value)
        elif key == "annotations":
            ok = isinstance(value, dict) and all(
                (k in _HINTS and isinstance(v, bool)) or (k == "title" and isinstance(v, str)) for k, v in value.items()
            )
            value = value if ok else None
        elif not isinstance(value, str):
            value = None
        if value is None:
            return None
        tool[key] = value
    return tool if "inputSchema" in tool else None


def _json(value: t.Any) -> bytes | None:
    """``value`` as JSON text, as the SDK writes it (compact, UTF-8); None when it cannot be."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
    except (ValueError, UnicodeEncodeError):
        return None


def answer(id: Id, member: bytes) -> bytes:
    """The line that answers request ``id`` with ``member`` (its ``"result":...`` or
    ``"error":...``, as JSON text)."""
    return b'{"jsonrpc":"2.0","id":%s,%s}\n' % (json.dumps(id, ensure_ascii=False).encode(), member)


def _result(value: t.Any) -> bytes | None:
    text = _json(value)
    return None if text is None else b'"result":' + text


class Opening:
    """The first messages of a connection, answered from a listing of the catalog
    (:func:`declarations`): :meth:`take` answers what it can, and says what it took, for the
    SDK to be told later (:attr:`served`, each request under an id of the server's own:
    :attr:`replayed`).

    The era is the SDK's: a connection's first request decides it, once; one that carries the
    2026-07-28 envelope (and is not ``initialize``) opens a connection of that era, any other
    one of the handshake era."""

    def __init__(self, found: list[dict[str, t.Any]]) -> None:
        served = [served_tool(declaration) for declaration in found]
        #: The tools as ``tools/list`` answers them, or None when they wait for the SDK.
        self.tools: list[dict[str, t.Any]] | None = None if None in served else t.cast("list[dict[str, t.Any]]", served)
        #: The connection's era, once its first request said it: "handshake" or "modern".
        self.era: str | None = None
        #: The protocol version agreed by ``initialize``, once answered here.
        self.version: str | None = None
        #: What was taken here, in order, as the SDK is to be told it.
        self.served: list[dict[str, t.Any]] = []
        #: The ids of the server's own under which the requests of :attr:`served` go to the SDK.
        self.replayed: set[str] = set()
        self._prefix = f"cogtools-first-{os.urandom(8).hex()}-"
        server = {"name": SERVER_NAME, "version": __version__}
        self._initialize: dict[str, t.Any] = {
            "capabilities": CAPABILITIES,
            "instructions": INSTRUCTIONS,
            "serverInfo": server,
        }
        self._modern: dict[str, t.Any] = {**_CACHE_HINT, "resultType": "complete", "_meta": {SERVER_INFO_KEY: server}}
        self._listed: dict[str, bytes | None] = {}

    def take(self, value: dict[str, t.Any]) -> bytes | None:
        """The answer to ``value`` (a JSON object, read as :func:`~cogtools.mcp.framing.read_message`
        reads a line), :data:`CONSUMED` for a notification taken here, or None when it waits
        for the SDK."""
        method, params = value.get("method"), value.get("params", {})
        if value.get("jsonrpc") != "2.0" or not isinstance(method, str) or not isinstance(params, dict):
            return None
        if "id" not in value:
            # (the SDK is told it in its turn: every message after one that waits, waits too)
            if not all(key in ("jsonrpc", "method", "params") for key in value):
                return None
            self._served(value)
            return CONSUMED
        id = value["id"]
        if isinstance(id, bool) or not isinstance(id, (str, int)):
            return None
        era = self.era or ("modern" if method != "initialize" and _has_envelope(params) else "handshake")
        member = self._modern_result(method, params) if era == "modern" else self._handshake_result(method, params)
        if member is None:
            return None
        self.era = era
        self._served(value)
        return answer(id, member)

    def _handshake_result(self, method: str, params: t.Any) -> bytes | None:
        if method == "initialize" and self.version is None:
            version = _handshake(params)
            if version is None:
                return None
            self.version = version
            return _result({**self._initialize, "protocolVersion": version})
        if not _bare(params):
            return None
        if method == "ping":
            return b'"result":{}'
        if method in UNSERVED:
            error = {"code": METHOD_NOT_FOUND, "message": "Method not found", "data": method}
            return b'"error":' + json.dumps(error, separators=(",", ":")).encode()
        if method == "tools/list" and self.version is not None:
            return self._listing(self.version)
        return None

    def _modern_result(self, method: str, params: t.Any) -> bytes | None:
        if not _envelope(params):
            return None
        if method == "server/discover":
            return _result(
                {
                    **self._modern,
                    "capabilities": CAPABILITIES,
                    "instructions": INSTRUCTIONS,
                    "supportedVersions": list(MODERN_VERSIONS),
                }
            )
        if method == "tools/list":
            return self._listing(MODERN_VERSIONS[-1])
        return None

    def _listing(self, version: str) -> bytes | None:
        if self.tools is None:
            return None
        if version not in self._listed:
            extra = self._modern if version in MODERN_VERSIONS else {}
            self._listed[version] = _result({**extra, "tools": self.tools})
        return self._listed[version]

    def _served(self, value: dict[str, t.Any]) -> None:
        if "id" in value:
            id = f"{self._prefix}{len(self.served)}"
            self.replayed.add(id)
            value = {**value, "id": id}
        self.served.append(value)


# -- the loop -------------------------------------------------------------------------------------------


class _Loaded(t.NamedTuple):
    """The SDK's side of the server, imported (or why it could not be)."""

    module: ModuleType | None
    error: BaseException | None


#: What the reading thread puts in the inbox: a line, or None at the end of the input.
Line = t.Union[bytes, TooLong, None]


class Handover(t.NamedTuple):
    """What the SDK's side takes over from the first answers: the wire's output (written by
    one writer at a time from then on), the inbox of lines the reading thread fills, what was
    answered here (for the SDK to be told, under ids whose answers are dropped), the lines that
    wait for the SDK, in order, and the protocol version agreed."""

    out: t.BinaryIO
    inbox: queue.SimpleQueue[Line | _Loaded]
    served: list[dict[str, t.Any]]
    replayed: set[str]
    waiting: list[bytes | None]
    version: str | None


class _Waiting:
    """The lines that wait for the SDK, in order; a request cancelled while it waits is taken off."""

    def __init__(self) -> None:
        self.lines: list[bytes | None] = []
        self._requests: dict[Id, int] = {}

    def add(self, line: bytes, value: t.Any) -> None:
        if isinstance(value, dict) and isinstance(value.get("method"), str):
            if (
                "id" not in value
                and value["method"] == "notifications/cancelled"
                and self._cancels(value.get("params"))
            ):
                return
            id = value.get("id")
            if isinstance(id, (str, int)) and not isinstance(id, bool) and id not in self._requests:
                self._requests[id] = len(self.lines)
        self.lines.append(line)

    def _cancels(self, params: t.Any) -> bool:
        """Whether ``params`` cancel a request that waits (then taken off: it is never served)."""
        id = params.get("requestId") if isinstance(params, dict) else None
        if isinstance(id, bool) or not isinstance(id, (str, int)) or id not in self._requests:
            return False
        self.lines[self._requests.pop(id)] = b""  # (an empty line: nothing)
        return True


class Unavailable(Exception):
    """The SDK cannot be imported (the extra is not installed as it should be)."""


def serve_stdio(live: LiveCatalog, *, max_calls: int, interval: float, report: t.Callable[[str], None]) -> None:
    """Serve over stdin and stdout until the client closes them (or a signal stops it): the
    first answers here, the rest by the SDK (:func:`cogtools.mcp.stdio.serve`) once it is
    imported. A client that leaves before anything needed the SDK is left when the SDK is
    imported all the same: the server's exit status says whether it could have served
    (:class:`Unavailable` when it could not)."""
    opening = Opening(declarations(live.loaded))
    with claimed(0, os.O_RDONLY) as wire_in, claimed(1, os.O_WRONLY) as wire_out:
        out = os.fdopen(wire_out, "wb", closefd=False)
        inbox: queue.SimpleQueue[Line | _Loaded] = queue.SimpleQueue()
        lines = Lines(os.fdopen(wire_in, "rb", closefd=False))
        threading.Thread(target=_read, args=(lines, inbox), name="cogtools-stdin", daemon=True).start()
        threading.Thread(target=_load, args=(inbox,), name="cogtools-sdk", daemon=True).start()
        waiting, sdk = _first(opening, inbox, out, report)
        if isinstance(sdk.error, ImportError):
            raise Unavailable(str(sdk.error)) from sdk.error
        if sdk.error is not None:
            raise sdk.error
        if waiting == [None]:
            return  # the client left, and nothing waits for the SDK
        assert sdk.module is not None
        handover = Handover(out, inbox, opening.served, opening.replayed, waiting, opening.version)
        sdk.module.serve(handover, live, max_calls=max_calls, interval=interval, report=report)


def _first(
    opening: Opening, inbox: queue.SimpleQueue[Line | _Loaded], out: t.BinaryIO, report: t.Callable[[str], None]
) -> tuple[list[bytes | None], _Loaded]:
    """Answer what comes until the SDK is imported: then the lines that wait for it (the end of
    the input last, if it came), and the SDK."""
    wire = Wire()  # (only to answer what is no message at all: it never validates here)
    waiting = _Waiting()
    ended = False
    while True:
        item = inbox.get()
        if isinstance(item, _Loaded):
            return [*waiting.lines, *([None] if ended else [])], item
        if item is None:
            ended = True
            continue
        written = _take(opening, wire, waiting, item, report)
        if written:
            out.write(written)
            out.flush()


def _take(
    opening: Opening, wire: Wire, waiting: _Waiting, line: bytes | TooLong, report: t.Callable[[str], None]
) -> bytes:
    """What to write for ``line`` now (nothing, for a line that waits for the SDK)."""
    value: t.Any = None
    if isinstance(line, bytes) and line.strip():
        _, value, problem = read_message(line)
        if isinstance(value, list):  # a batch: whether it is served depends on the protocol
            waiting.add(line, value)
            return CONSUMED
        if isinstance(value, dict) and problem is None:
            answered = None if waiting.lines else opening.take(value)
            if answered is None:
                waiting.add(line, value)
                return CONSUMED
            return answered
    # no message at all (too long, not JSON, not an object, text that is not Unicode): answered
    # at once, or dropped, by what the wire reads of it, which never asks the SDK
    taken = wire.take(line)
    for dropped in taken.dropped:
        report(dropped)
    return b"".join(taken.replies)


def _read(lines: Lines, inbox: queue.SimpleQueue[Line | _Loaded]) -> None:
    """Put each line of the input in ``inbox``, then None."""
    while True:
        line = lines.next()
        inbox.put(line)
        if line is None:
            return


def _load(inbox: queue.SimpleQueue[Line | _Loaded]) -> None:
    """Import the SDK's side of the server (:mod:`cogtools.mcp.stdio`), and say so in ``inbox``."""
    try:
        inbox.put(_Loaded(importlib.import_module("cogtools.mcp.stdio"), None))
    except BaseException as e:  # noqa: BLE001 - raised again by the loop, in the main thread
        inbox.put(_Loaded(None, e))


@contextlib.contextmanager
def claimed(fd: int, mode: int) -> t.Iterator[int]:
    """A private duplicate of ``fd`` (0 or 1), while ``fd`` itself is diverted: 0 to the null
    device, 1 to standard error, so that a tool's program neither reads the client's messages
    nor writes into them. When it cannot be diverted, ``fd`` itself."""
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
