"""The calls the HTTP server answers in front of the SDK (cogtools.mcp.direct), and the calls
tried on the event loop (cogtools.mcp.listing.Listing.try_inline): every request, answered there or
not, gets exactly the answer the SDK's own app gives it, and only the calls that may be are
answered there."""

from __future__ import annotations

import json
import os
import time
import typing as t
from pathlib import Path

import pytest

from .conftest import write

pytest.importorskip("mcp")

import anyio  # noqa: E402

VERSION = "2026-07-28"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": VERSION,
    "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


@pytest.fixture
def tools(project: Path) -> Path:
    write(
        project / "tools" / "greet.yaml",
        "description: Greet.\nparameters:\n  who: {type: string, description: Whom., maxLength: 100000}\n"
        "implementation: 'Hello, {{ who }}!'\n",
    )
    write(
        project / "tools" / "shaped.yaml",
        "description: Shaped.\nparameters:\n  n: {type: integer, description: N.}\n"
        "output: {schema: {type: object, properties: {n: {type: integer}}, required: [n]}}\n"
        "implementation: '{\"n\": {{ n }}}'\n",
    )
    write(
        project / "tools" / "checked.yaml",
        "description: Checked.\nparameters:\n  v: {type: string, description: V., pattern: '^(\\w)\\1*$'}\n"
        "implementation: ok\n",
    )
    write(
        project / "tools" / "listed.yaml",
        "description: Listed.\nparameters:\n  xs: {type: array, items: {type: string}, uniqueItems: true, description: Xs.}\n"
        "implementation: '{{ xs | length }}'\n",
    )
    write(
        project / "tools" / "mail.yaml",
        "description: Mail.\nparameters:\n  to: {type: string, format: email, description: To.}\nimplementation: '{{ to }}'\n",
    )
    write(
        project / "tools" / "day.yaml",
        "description: Day.\nparameters:\n  d: {type: string, format: date, pattern: '^[0-9-]+$', description: D.}\n"
        "implementation: '{{ d }}'\n",
    )
    write(
        project / "tools" / "costly.yaml",
        "description: Costly.\nparameters:\n  v: {type: string, description: V., pattern: '^(?:[a-z0-9]+[-_ ]?){1,1000}$'}\n"
        "implementation: '{{ v }}'\n",
    )
    write(
        project / "tools" / "said.yaml",
        "description: Said.\nparameters:\n  n: {type: integer, description: N.}\n"
        "output: {schema: {type: object, properties: {s: {type: string, pattern: '^[a-z]+$'}}}}\n"
        'implementation: \'{"s": "{{ n }}"}\'\n',
    )
    write(
        project / "tools" / "run.yaml",
        "description: Run.\nparameters:\n  text: {type: string, description: T.}\n"
        "implementation: {kind: command, argv: [echo, '{{ text }}']}\n",
    )
    return project


class Apps(t.NamedTuple):
    sdk: t.Any
    direct: t.Any
    server: t.Any
    #: how many requests reached the SDK's app through the direct one
    passed: list[int]


def apps(project: Path) -> Apps:
    from mcp.server.transport_security import TransportSecuritySettings

    from cogtools.mcp.direct import answering
    from cogtools.mcp.live import LiveCatalog
    from cogtools.mcp.server import ToolServer

    live = LiveCatalog(project, dict(os.environ))
    server = ToolServer(live)
    sdk = server.sdk.streamable_http_app(
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False)
    )
    passed = [0]

    async def counted(scope: t.Any, receive: t.Any, send: t.Any) -> None:
        if scope["type"] == "http":
            passed[0] += 1
        await sdk(scope, receive, send)

    return Apps(sdk, answering(counted, server), server, passed)


class Answer(t.NamedTuple):
    status: int
    headers: list[tuple[bytes, bytes]]
    #: the body's bytes, and what they say (JSON, or text)
    raw: bytes
    body: t.Any


async def ask(app: t.Any, body: bytes, headers: dict[str, str] | list[tuple[str, str]], chunks: int = 1) -> Answer:
    """One POST /mcp of ``body`` (in ``chunks`` pieces) to ``app``, in process."""
    pairs = headers.items() if isinstance(headers, dict) else headers
    raw = [(k.lower().encode(), v.encode()) for k, v in pairs]
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/mcp",
        "raw_path": b"/mcp",
        "query_string": b"",
        "root_path": "",
        "headers": raw,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }
    size = max(1, -(-len(body) // chunks))
    pieces = [body[i : i + size] for i in range(0, len(body), size)] or [b""]
    messages = [{"type": "http.request", "body": p, "more_body": n < len(pieces) - 1} for n, p in enumerate(pieces)]

    async def receive() -> t.Any:
        if messages:
            return messages.pop(0)
        await anyio.sleep_forever()

    sent: list[t.Any] = []

    async def send(message: t.Any) -> None:
        sent.append(message)

    with anyio.fail_after(30):
        await app(scope, receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    kind = dict(start["headers"]).get(b"content-type", b"").decode()
    data = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    parsed: t.Any = data.decode(errors="replace")
    if kind.startswith("application/json") and data:
        parsed = json.loads(data)
    # (a session is a new one each time: its id is random)
    answered: list[tuple[bytes, bytes]] = [
        (k, b"SESSION" if k == b"mcp-session-id" else v) for k, v in start["headers"]
    ]
    return Answer(start["status"], sorted(answered), data, parsed)


def request(
    name: str, arguments: t.Any = None, *, id: t.Any = 1, meta: t.Any = ENVELOPE, **params: t.Any
) -> dict[str, t.Any]:
    body: dict[str, t.Any] = {"name": name, "_meta": meta, **params}
    if arguments is not None:
        body["arguments"] = arguments
    if meta is None:
        del body["_meta"]
    return {"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": body}


def headers_for(message: t.Any, **extra: str) -> dict[str, str]:
    name = message.get("params", {}).get("name", "") if isinstance(message, dict) else ""
    out = {
        "host": "127.0.0.1:8000",
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
        "mcp-protocol-version": VERSION,
        "mcp-method": "tools/call",
        "mcp-name": name if isinstance(name, str) else "",
    }
    return {**out, **extra}


def both(project: Path, cases: list[tuple[bytes, dict[str, str], int]]) -> list[tuple[Answer, Answer, bool]]:
    """Each request asked of the SDK's app and of the direct one: both answers, and whether the
    direct one answered it itself."""
    made = apps(project)
    out: list[tuple[Answer, Answer, bool]] = []

    async def main() -> None:
        async with made.server.sdk.session_manager.run():
            for body, headers, chunks in cases:
                expected = await ask(made.sdk, body, {**headers, "content-length": str(len(body))}, chunks)
                before = made.passed[0]
                got = await ask(made.direct, body, {**headers, "content-length": str(len(body))}, chunks)
                out.append((expected, got, made.passed[0] == before))

    anyio.run(main)
    return out


def case(message: t.Any, chunks: int = 1, headers: dict[str, str] | None = None) -> tuple[bytes, dict[str, str], int]:
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return body, headers_for(message if isinstance(message, dict) else {}, **(headers or {})), chunks


ANSWERED_HERE = {
    "a template's result": case(request("greet", {"who": "Ada"})),
    "a string id": case(request("greet", {"who": "Ada"}, id="x-1")),
    "text beyond ASCII": case(request("greet", {"who": "é \U0001f600 \u2028"})),
    "a body in pieces": case(request("greet", {"who": "Ada"}), chunks=7),
    "an argument refused (a tool error)": case(request("greet", {"who": 5})),
    "a missing argument (a tool error)": case(request("greet", {})),
    "no arguments at all": case(request("greet")),
    "a structured result": case(request("shaped", {"n": 7})),
    "a result not of its declared shape": case(request("shaped", {"n": -1}, id=3)),
    "a pattern that runs in linear time, and a date": case(request("day", {"d": "2026-11-28"})),
    "an Mcp-Param header no schema declares (ignored)": case(
        request("greet", {"who": "x"}), headers={"mcp-param-who": "y"}
    ),
    "a backtracking pattern": case(request("checked", {"v": "aaa"})),
    "uniqueItems": case(request("listed", {"xs": ["a", "b"]})),
    "a format whose check backtracks": case(request("mail", {"to": "a@b.c"})),
    "a program": case(request("run", {"text": "hi"})),
    "arguments too large to try on the event loop": case(request("greet", {"who": "x" * 20_000})),
}

LEFT_TO_THE_SDK = {
    "a tool it does not offer (a protocol error)": case(request("nope", {})),
    "Mcp-Name that is not the body's": case(request("greet", {"who": "x"}), headers={"mcp-name": "shaped"}),
    "no envelope": case(request("greet", {"who": "x"}, meta=None)),
    "a version the body names that is not served": case(
        request("greet", {"who": "x"}, meta={**ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2099-01-01"})
    ),
    "a header version that is not the body's": case(
        request("greet", {"who": "x"}), headers={"mcp-protocol-version": "2025-11-25"}
    ),
    "not JSON": case(b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {'),
    "a notification": case({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "greet"}}),
    "a batch": case([request("greet", {"who": "x"})]),
    "an id that is not one": case(request("greet", {"who": "x"}, id=True)),
    "a null id": case(request("greet", {"who": "x"}, id=None)),
    "arguments that are not an object": case(request("greet", ["x"])),
    "a name that is not a string": case({**request("greet"), "params": {"name": 5, "_meta": ENVELOPE}}),
    "another method": case({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": ENVELOPE}}),
    "JSON only accepted": case(request("greet", {"who": "x"}), headers={"accept": "application/json"}),
    "any type accepted": case(request("greet", {"who": "x"}), headers={"accept": "*/*"}),
    "a body that is not said to be JSON": case(request("greet", {"who": "x"}), headers={"content-type": "text/plain"}),
    "a body larger than it reads": case(request("greet", {"who": "x" * 70_000})),
    "a null progress token (the handler's model refuses it)": case(
        request("greet", {"who": "x"}, meta={**ENVELOPE, "progressToken": None})
    ),
    "a task that is not one": case(request("greet", {"who": "x"}, task=5)),
    "a task of the wrong shape": case(request("run", {"text": "x"}, task={"ttl": "x"})),
    "a progress token (the SDK sends progress on an event stream)": case(
        request("run", {"text": "hi"}, meta={**ENVELOPE, "progressToken": 7})
    ),
    "a log level (the SDK sends log messages on an event stream)": case(
        request("run", {"text": "hi"}, meta={**ENVELOPE, "io.modelcontextprotocol/logLevel": "debug"})
    ),
}


@pytest.mark.parametrize("what", list(ANSWERED_HERE))
def test_a_call_answered_in_front_of_the_sdk_is_answered_as_the_sdk_answers_it(tools: Path, what: str) -> None:
    [(expected, got, here)] = both(tools, [ANSWERED_HERE[what]])
    assert got == expected
    assert here, "the SDK answered it: the direct path did not"


@pytest.mark.parametrize("what", list(LEFT_TO_THE_SDK))
def test_what_the_direct_path_does_not_answer_the_sdk_answers_as_it_came(tools: Path, what: str) -> None:
    [(expected, got, here)] = both(tools, [LEFT_TO_THE_SDK[what]])
    assert got == expected
    assert not here, "answered in front of the SDK, which should have answered it"


def test_the_same_request_twice_in_one_app_gets_the_same_answer(tools: Path) -> None:
    """The direct path keeps nothing from one request to the next that changes an answer."""
    asked = [ANSWERED_HERE["a template's result"], ANSWERED_HERE["a program"], LEFT_TO_THE_SDK["a batch"]] * 2
    answers = both(tools, asked)
    assert all(got == expected for expected, got, _ in answers)
    assert [here for _, _, here in answers] == [True, True, False] * 2


def test_a_duplicated_routing_header_is_the_sdks_to_refuse(tools: Path) -> None:
    made = apps(tools)
    body = json.dumps(request("greet", {"who": "x"})).encode()
    headers = [*headers_for(request("greet")).items(), ("mcp-method", "tools/call"), ("content-length", str(len(body)))]
    answers: list[Answer] = []

    async def main() -> None:
        async with made.server.sdk.session_manager.run():
            answers.extend([await ask(made.sdk, body, headers), await ask(made.direct, body, headers)])

    anyio.run(main)
    assert answers[0] == answers[1] and answers[0].status == 400 and made.passed == [1]


def test_which_tools_are_tried_on_the_event_loop(tools: Path) -> None:
    from cogtools.load.loading import load_project
    from cogtools.mcp.listing import Listing

    listing = Listing(load_project(tools, dict(os.environ)))
    assert listing.inline == {"greet", "shaped", "day"}
    # (costly: RE2 can search for its pattern, but a program of 9,000 on 16 KiB is a second;
    # said: its result, as large as the output limit, is searched)


def test_weight_counts_only_until_the_limit() -> None:
    from cogtools.mcp.listing import weight

    assert weight({"who": "Ada"}) == 1 + 3 + 3
    assert weight([1, [2, None], {"k": True}]) == 1 + 1 + 1 + 1 + 1 + (1 + 1) + 1
    assert weight(None) == 1
    many = ["x" * 10] * 1_000_000
    assert 100 < weight(many, limit=100) <= 111  # stops once past the limit


def test_a_template_slower_than_the_event_loop_allows_gets_its_whole_time(tools: Path) -> None:
    """A template call is tried on the event loop with a few hundredths of a second; one that
    needs longer is run again in a worker thread with its own limit, and gives its result, not
    a TIMEOUT, and is not tried on the loop again."""
    from cogtools.load.loading import load_project
    from cogtools.mcp.calls import run_call
    from cogtools.mcp.listing import INLINE_SECONDS, Listing

    busy = "{% for i in range(3000) %}{% for j in range(400) %}{% endfor %}{% endfor %}done"
    write(tools / "tools" / "busy.yaml", f"description: Busy.\nimplementation: '{busy}'\n")
    listing = Listing(load_project(tools, dict(os.environ)))
    assert "busy" in listing.inline
    assert listing.try_inline("busy", {}) is None
    assert "busy" not in listing.inline and listing.try_inline("busy", {}) is None
    assert run_call(listing.loaded, "busy", {}).text == "done"  # (what a worker runs)
    quick = listing.try_inline("greet", {"who": "Ada"})
    assert quick is not None and quick.text == "Hello, Ada!" and INLINE_SECONDS < 1


def port_of(server: t.Any) -> int:
    return int(server.url.rsplit(":", 1)[1].split("/")[0])


def raw_request(port: int, message: dict[str, t.Any], padding: int = 0) -> bytes:
    """The bytes of a POST of ``message`` as a tools/call of the 2026-07-28 era (with a header of
    ``padding`` bytes)."""
    body = json.dumps(message).encode()
    headers = {**headers_for(message, host=f"127.0.0.1:{port}"), **({"x-padding": "p" * padding} if padding else {})}
    head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    return f"POST /mcp HTTP/1.1\r\n{head}content-length: {len(body)}\r\n\r\n".encode() + body


def raw_post(port: int, message: dict[str, t.Any]) -> t.Any:
    """A socket that has sent ``message`` as a tools/call of the 2026-07-28 era."""
    import socket

    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.sendall(raw_request(port, message))
    return sock


@pytest.mark.slow
def test_a_client_that_closes_its_response_stream_ends_the_call_and_its_program(tools: Path) -> None:
    """Over real HTTP: closing the connection of a call answered in front of the SDK cancels the
    call (the 2026-07-28 way to cancel), and its program is ended, not left to its timeout; the
    server goes on answering."""
    from .test_mcp import nap_tool, start_http, started_pid
    from .test_processes import all_dead

    pidfile = nap_tool(tools)
    server = start_http(tools)
    try:
        port = port_of(server)
        sock = raw_post(port, request("nap", {}))
        child = started_pid(pidfile)
        sock.close()
        assert all_dead([child]), "the program outlived its call"
        again = raw_post(port, request("greet", {"who": "Ada"}, id=2))
        answer = b""
        while b"Hello" not in answer and (piece := again.recv(65536)):
            answer += piece
        again.close()
        assert answer.startswith(b"HTTP/1.1 200") and b"Hello, Ada!" in answer
    finally:
        server.stop()


def read_all(sock: t.Any, until: bytes | None = None) -> bytes:
    answer = b""
    try:
        while (until is None or answer.count(until) < 1) and (piece := sock.recv(65536)):
            answer += piece
    except OSError:
        pass
    return answer


def endless(sock: t.Any, start: bytes) -> int:
    """Send ``start`` then a mebibyte at a time (64 at most) until refused: the mebibytes sent."""
    sock.sendall(start)
    sent = 0
    try:
        for _ in range(64):
            sock.sendall(b"a" * (1 << 20))
            sent += 1
    except OSError:
        pass
    return sent


HOSTILE_HEADS = {
    "an endless header": "POST /mcp HTTP/1.1\r\nhost: {host}\r\nx-endless: ",
    "an endless request line": "POST /mcp?",
    "endless trailers of a chunked body": (
        "POST /mcp HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/json\r\n"
        "transfer-encoding: chunked\r\n\r\n1\r\n{{\r\n0\r\nx-trailer: "
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("what", list(HOSTILE_HEADS))
def test_a_request_head_is_held_to_its_limit(tools: Path, what: str) -> None:
    """httptools' protocol keeps a request's head (and a chunked body's trailers) whole however
    long it grows: the server holds it to MAX_HEAD, as h11 does, and its memory does not grow
    with it."""
    import socket

    from cogtools.mcp.bounded_head import web_protocol

    from .test_mcp import rss_kib, start_http

    assert web_protocol() != "h11", "httptools is not installed: the test extra brings it"
    server = start_http(tools)
    try:
        port = port_of(server)
        before = rss_kib(server.proc.pid)
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        sent = endless(sock, HOSTILE_HEADS[what].format(host=f"127.0.0.1:{port}").encode())
        answer = read_all(sock)
        sock.close()
        assert answer.startswith(b"HTTP/1.1 400") and sent < 64, (sent, answer[:200])
        assert rss_kib(server.proc.pid) - before < 16 * 1024, "the head was kept"
    finally:
        server.stop()


@pytest.mark.slow
def test_heads_within_the_limit_are_served_however_they_arrive(tools: Path) -> None:
    """A head of the most the limit allows, after 60 KiB of arguments sent with it in one write;
    a second request whose head begins in the first one's last write (pipelined); a head of a
    single write that is larger than the limit is refused all the same."""
    import socket

    from cogtools.mcp.bounded_head import MAX_HEAD

    from .test_mcp import start_http

    server = start_http(tools)
    try:
        port = port_of(server)

        big = raw_request(port, request("greet", {"who": "x" * 60_000}), padding=MAX_HEAD - 1024)
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        sock.sendall(big)
        assert read_all(sock, b"Hello, xxx").startswith(b"HTTP/1.1 200")
        sock.close()

        second = raw_request(port, request("greet", {"who": "second"}, id=2))
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        sock.sendall(raw_request(port, request("greet", {"who": "x" * 20_000})) + second[:100])
        time.sleep(0.2)
        sock.sendall(second[100:])
        answer = read_all(sock, b"Hello, second")
        sock.close()
        assert answer.count(b"HTTP/1.1 200") == 2, answer[:300]

        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        sock.sendall(raw_request(port, request("greet", {"who": "x"}), padding=MAX_HEAD + 1))
        assert read_all(sock).startswith(b"HTTP/1.1 400")
        sock.close()
    finally:
        server.stop()


def test_the_bounded_head_runs_on_a_uvicorn_it_was_checked_against() -> None:
    """BoundedHead subclasses uvicorn's httptools protocol, which is not public: the mcp extra
    holds uvicorn to the versions it was checked against, and the uvicorn installed is one."""
    import importlib.metadata

    from packaging.requirements import Requirement
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    from cogtools.core.tomlio import loads
    from cogtools.mcp.bounded_head import UVICORN_CHECKED

    pyproject = loads((Path(__file__).parent.parent / "pyproject.toml").read_text(encoding="utf-8"))
    extras = pyproject["project"]["optional-dependencies"]
    for extra in ("mcp", "test"):
        held = [Requirement(line) for line in extras[extra] if Requirement(line).name == "uvicorn"]
        assert [requirement.specifier for requirement in held] == [SpecifierSet(UVICORN_CHECKED)], extra
    assert Version(importlib.metadata.version("uvicorn")) in held[0].specifier
