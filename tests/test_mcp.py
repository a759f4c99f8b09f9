"""``cogtools mcp`` driven by the official MCP SDK's own client, over stdio, as a real process: the
same tools, policy, checks and errors as cogtools-call, and a catalog that follows the files."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import threading
import time
import typing as t
from pathlib import Path

import anyio
import pytest

from .conftest import BIN, ECHO_TOOL, run_script, write
from .test_command import _alive
from .test_processes import all_dead
from .test_start_paths import imported

mcp = pytest.importorskip("mcp")
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

ADMIN = "description: Admin only.\nmin_role: admin\nimplementation: secret\n"
LOOK = (
    "title: Look\ndescription: Look around.\nrisk_level: low\nside_effects: [filesystem_read]\nimplementation: looked\n"
)


def server(cwd: Path, *args: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=str(BIN / "cogtools"), args=["mcp", "--interval", "0.2", *args], cwd=str(cwd), env=dict(os.environ)
    )


def session(cwd: Path, body: t.Callable[[Client], t.Awaitable[t.Any]], **options: t.Any) -> t.Any:
    async def main() -> t.Any:
        done: list[t.Any] = []
        with anyio.fail_after(60):
            try:
                async with Client(server(cwd), **options) as client:
                    done.append(await body(client))
            except BaseException as error:
                # (the SDK's client, closing, may signal a server that has just ended: its race, once
                # the body has finished, is no failure of the server's)
                if not (done and _only(error, ProcessLookupError)):
                    raise
        return done[0]

    return anyio.run(main)


def _only(error: BaseException, kind: type[BaseException]) -> bool:
    """Whether ``error`` is ``kind``, or a group of nothing else."""
    inner = getattr(error, "exceptions", None)
    return isinstance(error, kind) if inner is None else all(_only(e, kind) for e in inner)


@pytest.fixture
def mcp_project(echo_project: Path) -> Path:
    write(echo_project / "tools" / "admin.yaml", ADMIN)
    write(echo_project / "tools" / "look.yaml", LOOK)
    return echo_project


@pytest.mark.slow
def test_the_list_is_what_discovery_offers_in_the_mcp_dialect(mcp_project: Path) -> None:
    async def body(client: Client) -> t.Any:
        return (await client.list_tools()).tools

    tools = {tool.name: tool for tool in session(mcp_project, body)}
    assert sorted(tools) == ["echo", "look"]  # admin needs a role the project does not have
    exported = {
        d["name"]: d for d in json.loads(run_script("cogtools-discover", "--format", "mcp", cwd=mcp_project).stdout)
    }
    for name, tool in tools.items():
        assert tool.input_schema == exported[name]["inputSchema"]
        assert tool.annotations is not None
        assert tool.annotations.model_dump(by_alias=True, exclude_none=True) == exported[name]["annotations"]
    assert tools["look"].title == "Look" and tools["look"].annotations.read_only_hint is True


@pytest.mark.slow
def test_calls_succeed_and_fail_as_cogtools_call_does(mcp_project: Path) -> None:
    async def body(client: Client) -> t.Any:
        from mcp.shared.exceptions import MCPError

        missing = []
        for name in ("nosuch", "admin"):  # no such tool, and one the role may not see
            try:
                await client.call_tool(name, {})
            except MCPError as e:  # a tool the server does not offer: a JSON-RPC error, as the specification says
                missing.append(e)
        return [
            await client.call_tool("echo", {"text": "hi", "times": 2}),
            await client.call_tool("echo", {"text": "hi", "times": 9}),
            missing,
            await client.call_tool("echo", {"text": nested(150)}),
        ]

    good, invalid, missing, deep = session(mcp_project, body)
    assert not good.is_error and good.content[0].text == "hi\nhi\n"
    for name, error in zip(("nosuch", "admin"), missing, strict=True):
        assert error.code == -32602 and name in error.message
        direct = json.loads(run_script("cogtools-call", name, stdin="{}", cwd=mcp_project).stdout)
        assert error.data == direct  # the error object cogtools-call prints, as the error's data
    assert invalid.is_error
    error = json.loads(invalid.content[0].text)
    assert error == invalid.structured_content and error["error"]["code"] == "SCHEMA_VIOLATION"
    direct = json.loads(run_script("cogtools-call", "echo", stdin='{"text": "hi", "times": 9}', cwd=mcp_project).stdout)
    assert error == direct  # the very error object cogtools-call prints
    assert deep.is_error and deep.structured_content["error"]["code"] == "INVALID_INPUT"
    assert "levels deep" in deep.structured_content["error"]["message"]


def text_of(result: t.Any) -> str:
    """The text of a tool result's first content, which must be text."""
    content = result.content[0]
    assert content.type == "text", content
    return str(content.text)


def nested(depth: int) -> t.Any:
    value: t.Any = "x"
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.slow
def test_discovery_mode_offers_the_meta_tools(mcp_project: Path) -> None:
    write(mcp_project / ".cogtoolrc.yaml", "discovery_mode: true\n")
    write(
        mcp_project / "tools" / "hidden.yaml",
        "description: Convert temperatures.\ndiscoverable: true\nimplementation: converted\n",
    )

    async def body(client: Client) -> t.Any:
        names = [tool.name for tool in (await client.list_tools()).tools]
        found = await client.call_tool("cogtools_search", {"query": "convert temperatures"})
        called = await client.call_tool("cogtools_call", {"name": "hidden", "arguments": {}})
        missing = await client.call_tool("cogtools_call", {"name": "nosuch", "arguments": {}})
        return names, found, called, missing

    names, found, called, missing = session(mcp_project, body)
    assert "hidden" not in names and {"cogtools_search", "cogtools_call"} <= set(names)
    assert json.loads(found.content[0].text)["tools"][0]["name"] == "hidden"
    assert called.content[0].text == "converted"
    # a name the meta-tool is given is its argument, not the protocol's: a tool error the model reads
    assert missing.is_error and missing.structured_content["error"]["code"] == "TOOL_NOT_FOUND"


@pytest.mark.slow
def test_an_edit_is_announced_and_a_broken_edit_keeps_the_old_tool(mcp_project: Path) -> None:
    async def body(client: Client) -> t.Any:
        before = {tool.name: tool for tool in (await client.list_tools()).tools}
        async with client.listen(tools_list_changed=True) as changes:
            write(
                mcp_project / "tools" / "echo.yaml",
                ECHO_TOOL.replace("description: Say something back.", "description: Say it back, louder."),
            )
            with anyio.fail_after(20):
                await changes.__anext__()
            after = {tool.name: tool for tool in (await client.list_tools()).tools}
            write(mcp_project / "tools" / "echo.yaml", "name: echo\ndescription: [broken\n")
            with anyio.fail_after(20):
                await changes.__anext__()
        broken = {tool.name: tool for tool in (await client.list_tools()).tools}
        still = await client.call_tool("echo", {"text": "still here"})
        return before, after, broken, still

    before, after, broken, still = session(mcp_project, body)
    assert before["echo"].description == "Say something back."
    assert after["echo"].description == "Say it back, louder."
    assert broken["echo"].description == "Say it back, louder."  # the last good one
    assert not still.is_error and still.content[0].text == "still here\n"


def test_without_the_extra_it_says_how_to_install_it(mcp_project: Path, tmp_path: Path) -> None:
    shadow = tmp_path / "shadow"
    write(shadow / "mcp" / "__init__.py", "raise ImportError('mcp is not installed')\n")
    env = {**os.environ, "PYTHONPATH": str(shadow)}
    result = run_script("cogtools", "mcp", cwd=mcp_project, env=env)
    assert result.status == 2 and "pip install '.[mcp]' in a clone of cogtools" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


# -- over HTTP -------------------------------------------------------------------------------------


#: A client of the handshake era (2025-06-18) opening a session, as raw JSON-RPC.
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
}


def stdio_server(cwd: Path, *args: str, bufsize: int = -1, signals: t.Sequence[int] = ()) -> subprocess.Popen[bytes]:
    """``cogtools mcp ARGS`` in ``cwd``, its standard input, output and error piped to the test;
    ``signals`` at their default action in it, as a client starts it, however this test run
    was started (a background job ignores SIGINT, nohup SIGHUP, and the server keeps that)."""

    def defaults() -> None:
        for number in signals:
            signal.signal(number, signal.SIG_DFL)

    return subprocess.Popen(
        [str(BIN / "cogtools"), "mcp", *args],
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        bufsize=bufsize,
        preexec_fn=defaults if signals else None,
    )


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class HttpServer(t.NamedTuple):
    proc: subprocess.Popen[bytes]
    url: str

    def stop(self, signum: int = signal.SIGTERM) -> tuple[int, str]:
        self.proc.send_signal(signum)
        _, err = self.proc.communicate(timeout=20)
        return self.proc.returncode, err.decode()


def start_http(cwd: Path, *args: str, env: dict[str, str] | None = None, address: str = "127.0.0.1") -> HttpServer:
    """``cogtools mcp --http ADDRESS:PORT`` on a free port of ``cwd``'s project, once it listens
    (on 127.0.0.1, where the test reaches it)."""
    import socket

    port = free_port()
    proc = subprocess.Popen(
        [str(BIN / "cogtools"), "mcp", "--http", f"{address}:{port}", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **(env or {})},
    )
    end = time.monotonic() + 20
    while time.monotonic() < end:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.05)
    return HttpServer(proc, f"http://127.0.0.1:{port}/mcp")


@pytest.fixture
def http_server(mcp_project: Path) -> t.Iterator[t.Callable[..., HttpServer]]:
    started: list[HttpServer] = []

    def start(*args: str, env: dict[str, str] | None = None, address: str = "127.0.0.1") -> HttpServer:
        server = start_http(mcp_project, *args, env=env, address=address)
        started.append(server)
        return server

    yield start
    for server in started:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait()


def over_http(
    url: str, body: t.Callable[[Client], t.Awaitable[t.Any]], token: str | None = None, **options: t.Any
) -> t.Any:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    async def main() -> t.Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        async with httpx2.AsyncClient(headers=headers) as http:
            with anyio.fail_after(60):
                async with Client(streamable_http_client(url, http_client=http), **options) as client:
                    return await body(client)

    return anyio.run(main)


def post(url: str, headers: dict[str, str], message: dict[str, t.Any] | None = None) -> int:
    """The status of a POST of ``message`` (a tools/list outside any session, unless told)."""
    import urllib.error
    import urllib.request

    request = urllib.request.Request(
        url,
        data=json.dumps(message or {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode(),
        headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as e:
        return int(e.code)


class HandMade(t.NamedTuple):
    """A session of the handshake era opened by hand over HTTP (initialize, then initialized):
    a connection to the server, and the headers each later request of the session carries."""

    connection: t.Any
    headers: dict[str, str]

    @classmethod
    def open(cls, url: str, connection: t.Any = None) -> HandMade:
        import http.client

        host, port = url.split("/")[2].split(":")
        connection = connection or http.client.HTTPConnection(host, int(port), timeout=30)
        headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        connection.request("POST", "/mcp", json.dumps(INITIALIZE), headers)
        answer = connection.getresponse()
        answer.read()
        assert answer.status == 200 and answer.getheader("mcp-session-id"), answer.status
        headers |= {"mcp-session-id": answer.getheader("mcp-session-id"), "mcp-protocol-version": "2025-06-18"}
        made = cls(connection, headers)
        made.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return made

    def send(self, message: dict[str, t.Any]) -> int:
        """POST ``message`` in the session; the status of the answer (read whole)."""
        self.connection.request("POST", "/mcp", json.dumps(message), self.headers)
        answer = self.connection.getresponse()
        answer.read()
        return int(answer.status)

    def close(self) -> int:
        """End the session (DELETE); the status of the answer."""
        self.connection.request("DELETE", "/mcp", headers=self.headers)
        answer = self.connection.getresponse()
        answer.read()
        return int(answer.status)


@pytest.mark.slow
def test_both_transports_say_the_tools_list_changes(
    mcp_project: Path, http_server: t.Callable[..., HttpServer]
) -> None:
    """It is announced over both, so both say so when a client initializes."""

    async def capability(client: Client) -> t.Any:
        tools = client.server_capabilities.tools
        return tools is not None and tools.list_changed

    assert session(mcp_project, capability) is True
    server = http_server()
    assert over_http(server.url, capability) is True
    # a client of the handshake era (2025-06-18), which reads the flag from initialize
    import urllib.request

    request = urllib.request.Request(
        server.url,
        data=json.dumps(INITIALIZE).encode(),
        headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        body = response.read().decode()
    data = (
        json.loads(body[body.index("{") :].splitlines()[0]) if body.lstrip().startswith("event") else json.loads(body)
    )
    assert data["result"]["capabilities"]["tools"]["listChanged"] is True, data


async def list_and_call(client: Client) -> t.Any:
    names = [tool.name for tool in (await client.list_tools()).tools]
    result = await client.call_tool("echo", {"text": "over http"})
    return names, text_of(result)


@pytest.mark.slow
def test_http_serves_the_same_tools_and_stops_cleanly(http_server: t.Callable[..., HttpServer]) -> None:
    server = http_server()
    assert over_http(server.url, list_and_call) == (["echo", "look"], "over http\n")
    status, stderr = server.stop()
    assert status == 128 + signal.SIGTERM and "Traceback" not in stderr


def test_http_refuses_a_foreign_origin(http_server: t.Callable[..., HttpServer]) -> None:
    server = http_server()
    assert post(server.url, {"Origin": "http://evil.example"}) == 403
    assert post(server.url, {"Host": "evil.example"}) in (403, 421)


@pytest.mark.slow
def test_http_with_a_token_refuses_requests_without_it(
    http_server: t.Callable[..., HttpServer], tmp_path: Path
) -> None:
    secret = write(tmp_path / "token", "s3cret-token\n")
    server = http_server("--token-file", str(secret))
    assert post(server.url, {}) == 401
    assert post(server.url, {"Authorization": "Bearer wrong"}) == 401
    assert over_http(server.url, list_and_call, token="s3cret-token") == (["echo", "look"], "over http\n")
    from_env = http_server(env={"COGTOOLS_MCP_TOKEN": "from-env"})
    assert post(from_env.url, {}) == 401
    assert over_http(from_env.url, list_and_call, token="from-env")[1] == "over http\n"


@pytest.mark.slow
def test_a_server_on_every_address_answers_the_names_of_the_machine(
    http_server: t.Callable[..., HttpServer],
) -> None:
    """Bound to 0.0.0.0 (with a token, as it must be), it answers a client that names it by an
    address or by the machine's name, and still refuses a DNS name it was not told of."""
    import socket

    server = http_server("--allow-host", "Tools.Example.COM", env={"COGTOOLS_MCP_TOKEN": "tok"}, address="0.0.0.0")
    port = server.url.split(":")[2].split("/")[0]
    bearer = {"Authorization": "Bearer tok"}
    for name in ("127.0.0.1", "10.20.30.40", "[::1]", socket.gethostname(), "tools.example.com", "localhost"):
        assert post(server.url, {**bearer, "Host": f"{name}:{port}"}, INITIALIZE) == 200, name
    assert post(server.url, {**bearer, "Host": f"evil.example:{port}"}, INITIALIZE) == 421
    assert post(server.url, {**bearer, "Origin": "http://evil.example"}, INITIALIZE) == 403
    assert post(server.url, {**bearer, "Origin": f"http://10.20.30.40:{port}"}, INITIALIZE) == 200
    assert post(server.url, {"Host": f"127.0.0.1:{port}"}) == 401
    assert over_http(server.url, list_and_call, token="tok")[1] == "over http\n"


def test_a_server_on_localhost_answers_at_127_0_0_1(http_server: t.Callable[..., HttpServer]) -> None:
    """``--http localhost:PORT`` binds IPv4's loopback, as uvicorn does, whatever the resolver
    gives first: clients told of localhost reach it."""
    server = http_server(address="localhost")
    assert over_http(server.url, list_and_call)[1] == "over http\n"


def test_hosts_of_a_server() -> None:
    from cogtools.mcp.web import Hosts

    loopback, every = Hosts.serving("127.0.0.1"), Hosts.serving("::", ["proxy.example"])
    assert loopback.allows_host("localhost:8000") and loopback.allows_host("[::1]:8000")
    assert loopback.allows_host("127.0.0.1")  # no port: port 80
    assert not loopback.allows_host("10.0.0.1:8000") and not loopback.allows_host("proxy.example:8000")
    assert every.allows_host("10.0.0.1:8000") and every.allows_host("[fe80::1]:8000")
    assert every.allows_host("PROXY.example:443") and not every.allows_host("127.0.0.1.evil.example:80")
    for bad in ("", None, "[::1", "a b:80", "localhost:port"):
        assert not every.allows_host(bad), bad
    assert every.allows_origin(None) and every.allows_origin("https://10.0.0.1:8000")
    assert not every.allows_origin("file://10.0.0.1") and not every.allows_origin("null")
    assert not loopback.allows_origin("http://10.0.0.1:8000")


@pytest.mark.slow
def test_a_busy_port_is_a_usage_error_before_anything_is_served(mcp_project: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_script("cogtools", "mcp", "--http", f"127.0.0.1:{port}", cwd=mcp_project, timeout=30)
    assert result.status == 2, result
    assert "port is in use" in result.stderr and "serving" not in result.stderr, result.stderr
    assert "Traceback" not in result.stderr and "ERROR" not in result.stderr


@pytest.mark.slow
def test_a_stream_resumed_from_an_event_is_a_new_stream(http_server: t.Callable[..., HttpServer]) -> None:
    """The server keeps no events to replay: a GET with Last-Event-ID (of any size) opens a new
    stream, rather than failing with 500."""
    import http.client

    server = http_server()
    host, port = server.url.split("/")[2].split(":")
    session_id = HandMade.open(server.url).headers["mcp-session-id"]
    for size in (4, 10_000):
        stream = http.client.HTTPConnection(host, int(port), timeout=10)
        headers = {"Accept": "text/event-stream", "mcp-session-id": session_id, "Last-Event-ID": "e" * size}
        stream.request("GET", "/mcp", headers={**headers, "mcp-protocol-version": "2025-06-18"})
        opened = stream.getresponse()
        assert (opened.status, opened.getheader("content-type", "").split(";")[0]) in (
            (200, "text/event-stream"),
            (409, "application/json"),  # the session's one standalone stream is open already
        ), (size, opened.status, opened.read(500))
        stream.close()
    status, stderr = server.stop()
    assert "Traceback" not in stderr and "ASGI" not in stderr, stderr


@pytest.mark.slow
def test_binding_beyond_loopback_needs_a_token(mcp_project: Path) -> None:
    result = run_script("cogtools", "mcp", "--http", "0.0.0.0:1", cwd=mcp_project, timeout=30)
    assert result.status == 2 and "needs a token" in result.stderr


def nap_tool(project: Path) -> Path:
    """A tool ``nap`` whose program sleeps a minute; the file it writes its pid to."""
    pidfile = project / "child.pid"
    definition = {
        "description": "Sleep.",
        "implementation": {"kind": "command", "argv": ["sh", "-c", f"echo $$ > {pidfile}; exec sleep 60"]},
    }
    write(project / "tools" / "nap.json", json.dumps(definition))
    return pidfile


def started_pid(pidfile: Path, seconds: float = 20) -> int:
    """The pid a program wrote to ``pidfile``, once it has."""
    end = time.monotonic() + seconds
    while not (pidfile.exists() and pidfile.read_text().strip()) and time.monotonic() < end:
        time.sleep(0.05)
    return int(pidfile.read_text())


@pytest.mark.slow
def test_a_server_stopped_mid_call_leaves_no_process(
    mcp_project: Path, http_server: t.Callable[..., HttpServer]
) -> None:
    pidfile = nap_tool(mcp_project)
    server = http_server()

    def call_in_background() -> None:
        try:
            over_http(server.url, lambda client: client.call_tool("nap", {}))
        except Exception:
            pass  # the server goes away mid-call: that is the point

    import threading

    caller = threading.Thread(target=call_in_background, daemon=True)
    caller.start()
    child = started_pid(pidfile)
    status, stderr = server.stop()
    assert "Traceback" not in stderr
    assert all_dead([child]), "the tool outlived the server"


@pytest.mark.slow
@pytest.mark.parametrize("listening", [False, True], ids=["plain", "listening"])
def test_a_cancelled_call_kills_its_program_and_the_server_goes_on(mcp_project: Path, listening: bool) -> None:
    """(listening: a call with a progress token and a log level, whose reports are sent while it
    runs, is ended all the same)"""
    pidfile = nap_tool(mcp_project)
    heard = Heard()

    async def body(client: Client) -> t.Any:
        async def nap() -> None:
            if listening:
                await client.call_tool("nap", {}, progress_callback=heard.on_progress, meta=asking("debug"))
            else:
                await client.call_tool("nap", {})

        with anyio.move_on_after(30) as scope:
            async with anyio.create_task_group() as group:
                group.start_soon(nap)
                while not (pidfile.exists() and pidfile.read_text().strip()):
                    await anyio.sleep(0.05)
                group.cancel_scope.cancel()  # abandon the request: the client sends notifications/cancelled
        assert not scope.cancelled_caught
        child = int(pidfile.read_text())
        with anyio.fail_after(10):
            while _alive(child):
                await anyio.sleep(0.05)
        return text_of(await client.call_tool("echo", {"text": "after"}))

    assert session(mcp_project, body) == "after\n"


@pytest.mark.slow
def test_a_bounded_load_leaves_no_failed_call_and_no_process() -> None:
    """benchmarks/mcp_load.py, small: concurrent clients over HTTP on loopback, templates and
    programs alternating; it fails on a failed call, an unclean stop or a process left behind."""
    import sys

    from .conftest import REPO

    proc = subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "mcp_load.py"),
            "--clients",
            "10",
            "--calls",
            "10",
            "--rounds",
            "1",
            "--idle-tools",
            "0",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "100 calls from 10 clients" in proc.stdout and "0 failed" in proc.stdout


@pytest.mark.slow
def test_http_announces_an_edit(mcp_project: Path, http_server: t.Callable[..., HttpServer]) -> None:
    server = http_server("--interval", "0.2")

    async def body(client: Client) -> t.Any:
        async with client.listen(tools_list_changed=True) as changes:
            write(mcp_project / "tools" / "look.yaml", LOOK.replace("Look around.", "Look closer."))
            with anyio.fail_after(20):
                await changes.__anext__()
        return {tool.name: tool.description for tool in (await client.list_tools()).tools}

    assert over_http(server.url, body)["look"] == "Look closer."


@pytest.mark.slow
def test_a_client_that_goes_away_mid_call_leaves_no_process(mcp_project: Path) -> None:
    """A handshake-era client, by hand: initialize, start a long call, then close stdin (no
    cancellation): the server stops, and the tool's program with it."""
    pidfile = nap_tool(mcp_project)
    proc = stdio_server(mcp_project)
    assert proc.stdin is not None and proc.stdout is not None
    messages = [
        INITIALIZE,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "nap", "arguments": {}}},
    ]
    proc.stdin.write(json.dumps(messages[0]).encode() + b"\n")
    proc.stdin.flush()
    assert json.loads(proc.stdout.readline())["id"] == 1  # initialized
    for message in messages[1:]:
        proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()
    child = started_pid(pidfile)
    proc.stdin.close()  # the client is gone
    proc.wait(timeout=30)
    assert proc.stderr is not None
    stderr = proc.stderr.read()
    assert b"Traceback" not in stderr, stderr
    assert all_dead([child]), "the tool outlived its client"


@pytest.mark.slow
def test_a_session_closed_mid_call_ends_the_call(mcp_project: Path, http_server: t.Callable[..., HttpServer]) -> None:
    """Over HTTP, a client that gives up and closes its session (DELETE) ends its calls then,
    not when the tool's timeout comes; the server goes on serving. (A request whose connection
    drops goes on: the specification has a client cancel with notifications/cancelled, and a
    disconnection is not one.)"""
    import http.client

    pidfile = nap_tool(mcp_project)
    server = http_server()
    host, port = server.url.split("/")[2].split(":")
    first = HandMade.open(server.url)
    nap = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "nap", "arguments": {}}}
    calling = http.client.HTTPConnection(host, int(port), timeout=30)
    calling.request("POST", "/mcp", json.dumps(nap), first.headers)
    child = started_pid(pidfile)
    assert first.close() == 200
    assert all_dead([child]), "the call outlived its session"
    assert over_http(server.url, list_and_call)[1] == "over http\n"
    status, stderr = server.stop()
    assert "Traceback" not in stderr, stderr


def rss_kib(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("VmRSS:")).split()[1])


@pytest.mark.slow
def test_sessions_closed_leave_nothing_behind(http_server: t.Callable[..., HttpServer]) -> None:
    """Each session is remembered (to be told of changes) only until it closes: a second
    batch of sessions, opened, used and closed, costs the server no more memory than the
    first left it with."""
    import http.client

    server = http_server()
    host, port = server.url.split("/")[2].split(":")

    def sessions(count: int) -> None:
        connection = http.client.HTTPConnection(host, int(port), timeout=30)
        for _ in range(count):
            made = HandMade.open(server.url, connection)
            assert made.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}) == 200
            assert made.close() == 200
        connection.close()

    sessions(300)
    settled = rss_kib(server.proc.pid)
    sessions(300)
    grown = rss_kib(server.proc.pid) - settled
    assert grown < 2048, f"{grown} KiB more after 300 sessions that were closed"
    status, stderr = server.stop()
    assert "Traceback" not in stderr, stderr


# -- the MCP Inspector's CLI -----------------------------------------------------------------------

INSPECTOR_VERSION = "2.12.0"


@pytest.fixture(scope="module")
def inspector() -> Path:
    from .npm_packages import npm_package, package_dir

    directory = package_dir("mcp-inspector", INSPECTOR_VERSION, "COGTOOLS_MCP_INSPECTOR_DIR")
    return (
        npm_package("@modelcontextprotocol/inspector", INSPECTOR_VERSION, directory)
        / "node_modules"
        / ".bin"
        / "mcp-inspector"
    )


def inspect(inspector: Path, project: Path, *args: str, succeeds: bool = True) -> dict[str, t.Any]:
    """The Inspector's CLI against ``cogtools mcp`` in ``project``: its JSON answer. It exits
    non-zero when the tool result is an error."""
    proc = subprocess.run(
        [str(inspector), "--cli", "--cwd", str(project), *args, "--", str(BIN / "cogtools"), "mcp"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=project,
        env={**os.environ, "HOME": str(project.parent / "inspector-home")},
    )
    assert (proc.returncode == 0) is succeeds, proc.stdout[-2000:] + proc.stderr[-2000:]
    return t.cast("dict[str, t.Any]", json.loads(proc.stdout))


@pytest.mark.e2e
def test_the_mcp_inspector_lists_and_calls(inspector: Path, mcp_project: Path) -> None:
    listed = inspect(inspector, mcp_project, "--method", "tools/list")
    assert sorted(tool["name"] for tool in listed["tools"]) == ["echo", "look"]
    called = inspect(
        inspector, mcp_project, "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "text=inspected"
    )
    assert called["isError"] is False and called["content"][0]["text"] == "inspected\n"
    # (the Inspector itself refuses to call a tool the list does not show, such as admin)
    failed = inspect(
        inspector,
        mcp_project,
        "--method",
        "tools/call",
        "--tool-name",
        "echo",
        "--tool-arg",
        "text=x",
        "times=9",
        succeeds=False,
    )
    assert failed["isError"] is True and failed["structuredContent"]["error"]["code"] == "SCHEMA_VIOLATION"


@pytest.mark.slow
def test_http_errors_are_those_of_cogtools_call(mcp_project: Path, http_server: t.Callable[..., HttpServer]) -> None:
    server = http_server()

    async def body(client: Client) -> t.Any:
        from mcp.shared.exceptions import MCPError

        invalid = await client.call_tool("echo", {"text": "x", "times": 9})
        try:
            await client.call_tool("admin", {})  # hidden from the role: not there for it
        except MCPError as e:
            return invalid, e
        return invalid, None

    invalid, hidden = over_http(server.url, body)
    assert invalid.is_error and invalid.structured_content["error"]["code"] == "SCHEMA_VIOLATION"
    direct = json.loads(run_script("cogtools-call", "admin", stdin="{}", cwd=mcp_project).stdout)
    assert hidden is not None and hidden.code == -32602 and hidden.data == direct


@pytest.mark.slow
def test_stateless_replicas_serve_one_catalog(mcp_project: Path, http_server: t.Callable[..., HttpServer]) -> None:
    replicas = [http_server("--stateless"), http_server("--stateless")]
    answers = [over_http(replica.url, list_and_call) for replica in replicas for _ in range(2)]
    assert answers == [(["echo", "look"], "over http\n")] * 4
    for replica in replicas:
        status, stderr = replica.stop()
        assert status == 128 + signal.SIGTERM and "Traceback" not in stderr


@pytest.mark.slow
def test_protocol_misuse_gets_a_json_rpc_error(mcp_project: Path) -> None:
    proc = stdio_server(mcp_project)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    for message in (
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"arguments": {}}},
        {"jsonrpc": "2.0", "id": 3, "method": "no/such/method"},
    ):
        proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()
    answers: dict[int, t.Any] = {}
    while len(answers) < 3:  # the answers to 1, 2 and 3, in whatever order
        message = json.loads(proc.stdout.readline())
        answers[message["id"]] = message
    proc.stdin.close()
    proc.wait(timeout=30)
    assert answers[2]["error"]["code"] == -32602  # no tool name: invalid params
    assert answers[3]["error"]["code"] == -32601  # method not found
    assert b"Traceback" not in proc.stderr.read()


class RawStdio:
    """``cogtools mcp`` over stdio spoken to line by line, as a client of the handshake era
    (protocol 2025-06-18) speaks it: what each message the server sends is, and when it came."""

    def __init__(self, cwd: Path, *args: str) -> None:
        # unbuffered, so that select() sees every line that has come
        self.proc = stdio_server(cwd, "--interval", "0.2", *args, bufsize=0)
        self.send(INITIALIZE, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        self.answer(1)

    def send(self, *messages: dict[str, t.Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
        self.proc.stdin.flush()

    def receive(self, seconds: float) -> dict[str, t.Any] | None:
        """The next message, or None when none came within ``seconds``."""
        import select

        assert self.proc.stdout is not None
        if not select.select([self.proc.stdout], [], [], seconds)[0]:
            return None
        line = self.proc.stdout.readline()
        return json.loads(line) if line else None

    def answer(self, *requests: int, seconds: float = 30) -> dict[int, dict[str, t.Any]]:
        """The answers to ``requests``, in whatever order they come (what else comes is dropped)."""
        answers: dict[int, dict[str, t.Any]] = {}
        end = time.monotonic() + seconds
        while set(requests) - set(answers):
            message = self.receive(max(0.0, end - time.monotonic()))
            assert message is not None, f"no answer to {sorted(set(requests) - set(answers))}"
            if message.get("id") in requests:
                answers[message["id"]] = message
        return answers

    def until_quiet(self, first: float, quiet: float) -> list[dict[str, t.Any]]:
        """Every message that comes, waiting ``first`` seconds for one and then until none has
        come for ``quiet`` seconds."""
        messages: list[dict[str, t.Any]] = []
        while (message := self.receive(quiet if messages else first)) is not None:
            messages.append(message)
        return messages

    def close(self) -> bytes:
        """Close stdin, as a client does; what the server wrote on standard error."""
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)
        return self.proc.stderr.read()


@pytest.mark.slow
def test_a_handshake_era_client_hears_of_a_broken_edit(mcp_project: Path) -> None:
    client = RawStdio(mcp_project)
    client.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    client.answer(2)
    write(mcp_project / "tools" / "echo.yaml", "name: echo\ndescription: [broken\n")
    messages = client.until_quiet(20, 1.5)
    methods = [m.get("method") for m in messages]
    logged = [str(m["params"]["data"]) for m in messages if m.get("method") == "notifications/message"]
    assert methods.count("notifications/tools/list_changed") == 1, methods
    assert len(logged) == 1 and "DEFINITION_INVALID" in logged[0] and "echo.yaml" in logged[0], logged
    assert b"skipped: DEFINITION_INVALID" in client.close()


@pytest.mark.slow
def test_a_change_made_while_the_sdk_takes_over_is_told(mcp_project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first answers serve ``tools/list`` before the SDK is imported; an edit made then is
    found by the first check, which must wait for the SDK to have been told of that request (its
    connection joins the audience of changes then), however slowly the SDK gets to it: else the
    change is told to no one, and never again (a CI run under load lost it so)."""
    from cogtools.mcp import server as server_module
    from cogtools.mcp.first import Handover, Opening, declarations
    from cogtools.mcp.live import LiveCatalog
    from cogtools.mcp.stdio import serve

    joining = server_module.ToolServer._joining

    async def slowly(self: t.Any, ctx: t.Any, call_next: t.Any) -> t.Any:
        await anyio.sleep(0.5)  # (a loaded machine: the SDK's task scheduled late)
        return await joining(self, ctx, call_next)

    monkeypatch.setattr(server_module.ToolServer, "_joining", slowly)
    live = LiveCatalog(mcp_project, dict(os.environ))
    opening = Opening(declarations(live.loaded))
    for message in (
        INITIALIZE,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ):
        opening.take(message)
    write(mcp_project / "tools" / "echo.yaml", "name: echo\ndescription: [broken\n")
    reading, writing = os.pipe()
    inbox: t.Any = queue.SimpleQueue()
    lines: list[dict[str, t.Any]] = []

    def watch() -> None:
        with os.fdopen(reading, "rb") as stream:
            for line in stream:
                lines.append(json.loads(line))
                if lines[-1].get("method") == "notifications/message":
                    inbox.put(None)  # (the client closes its input)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    timer = threading.Timer(10, inbox.put, (None,))
    timer.start()
    with os.fdopen(writing, "wb") as out:
        serve(
            Handover(out, inbox, opening.served, opening.replayed, [], opening.version),
            live,
            max_calls=2,
            interval=0.2,
            report=lambda line: None,
        )
    timer.cancel()
    watcher.join(10)
    methods = [line.get("method") for line in lines]
    assert methods == ["notifications/tools/list_changed", "notifications/message"], methods
    assert "DEFINITION_INVALID" in lines[1]["params"]["data"]


@pytest.mark.slow
@pytest.mark.parametrize("requests", [1, 12])
def test_each_change_is_announced_once_however_many_requests_came_before(mcp_project: Path, requests: int) -> None:
    """A client is told of a change once, not once for every request it has made."""
    client = RawStdio(mcp_project)
    for number in range(requests):
        call = {"name": "echo", "arguments": {"text": str(number)}}
        client.send({"jsonrpc": "2.0", "id": 10 + number, "method": "tools/call", "params": call})
    client.answer(*range(10, 10 + requests))
    write(mcp_project / "tools" / "look.yaml", LOOK.replace("Look around.", "Look about."))
    methods = [m.get("method") for m in client.until_quiet(20, 1.5)]
    assert methods == ["notifications/tools/list_changed"], methods
    client.close()


@pytest.mark.slow
def test_python_tools_over_stdio_print_nothing_into_the_protocol(mcp_project: Path) -> None:
    """A python tool runs inside the server: what it prints must not reach the protocol stream,
    two calls at once keep their own output, a hanging one meets its time limit and the server
    goes on, and a secret it returns is masked."""
    write(
        mcp_project / "lib" / "chatty.py",
        "import sys, time\n"
        "def say(text):\n    print('noise on stdout'); print('noise on stderr', file=sys.stderr); time.sleep(0.2); return text\n"
        "def quiet(text):\n    print('printed', text)\n"
        "def spin(text):\n    while True:\n        pass\n"
        "def leak(text, env):\n    return 'token=' + env['TOKEN']\n",
    )
    write(mcp_project / ".cogtoolrc.yaml", "python_path: [lib]\n")
    write(mcp_project / ".env", "TOKEN=a-secret-value-here\n")
    for name, extra in (("say", ""), ("quiet", ""), ("spin", "\n  timeout: 0.5"), ("leak", "")):
        environment = "environment: [{name: TOKEN, secret: true}]\n" if name == "leak" else ""
        write(
            mcp_project / "tools" / f"py_{name}.yaml",
            f"description: Python {name}.\nparameters:\n  text: {{type: string, description: Text.}}\n{environment}"
            f"implementation:\n  kind: python\n  callable: chatty:{name}{extra}\n",
        )

    async def body(client: Client) -> t.Any:
        results: dict[str, t.Any] = {}

        async def one(key: str, name: str, text: str) -> None:
            results[key] = await client.call_tool(name, {"text": text})

        async with anyio.create_task_group() as group:
            group.start_soon(one, "a", "py_say", "first")
            group.start_soon(one, "b", "py_say", "second")
            group.start_soon(one, "q", "py_quiet", "third")
        results["spin"] = await client.call_tool("py_spin", {"text": "x"})
        results["leak"] = await client.call_tool("py_leak", {"text": "x"})
        results["after"] = await client.call_tool("echo", {"text": "still here"})
        return results

    results = session(mcp_project, body)
    assert results["a"].content[0].text == "first" and results["b"].content[0].text == "second"
    assert results["q"].content[0].text == "printed third\n"
    assert results["spin"].is_error and results["spin"].structured_content["error"]["code"] == "TIMEOUT"
    assert results["leak"].content[0].text == "token=***"
    assert results["after"].content[0].text == "still here\n"


def test_the_server_a_client_starts_is_not_one_the_workspace_planted(tmp_path: Path) -> None:
    """Found by an attacker's pass: the entry ran ``python -m cogtools`` in the workspace, where
    a ``cogtools/`` package the agent wrote came first on sys.path."""
    import subprocess

    from cogtools.clients.mcp_clients import server_entry

    write(tmp_path / "cogtools" / "__init__.py", "")
    write(tmp_path / "cogtools" / "__main__.py", "import sys\nsys.stdout.write('PWNED')\n")
    for client in ("claude-desktop", "claude-code"):  # this interpreter by absolute path; cogtools on PATH
        entry = server_entry(client, tmp_path)
        args = entry["args"][: entry["args"].index("mcp")]
        result = subprocess.run([entry["command"], *args, "--version"], cwd=tmp_path, capture_output=True, text=True)
        assert "PWNED" not in result.stdout and result.stdout.startswith("cogtools"), result


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_the_stdio_server_stops_on_a_signal_while_its_client_holds_stdin(mcp_project: Path, signum: int) -> None:
    """A client ends its server with SIGINT, then SIGTERM: the server leaves at once with the
    status of that signal, though stdin stays open (its reader thread would hold it)."""
    proc = stdio_server(mcp_project, signals=[signum])
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 1  # serving
        proc.send_signal(signum)
        assert proc.wait(timeout=10) == 128 + signum
        assert proc.stderr is not None and b"Traceback" not in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


# -- progress and log messages ---------------------------------------------------------------------

#: A shell function that reports on the channel when the call has one (docs/mcp.md, Progress).
REPORT = 'report() { [ -z "${COGTOOLS_PROGRESS_FD-}" ] || echo "$*" >&"$COGTOOLS_PROGRESS_FD"; }; '
#: Three steps of progress and a log message after each (and one at debug), 50 ms apart; it
#: prints the descriptor it was given, or none.
STEPS = (
    REPORT + 'for i in 1 2 3; do report "${i}0 30 step $i"; report "info: did $i"; sleep 0.05; done; '
    'report debug detail; echo "fd=${COGTOOLS_PROGRESS_FD-none}"'
)
#: What a client hears of STEPS's progress.
STEPPED = [(10, 30, "step 1"), (20, 30, "step 2"), (30, 30, "step 3")]
LOG_LEVEL = "io.modelcontextprotocol/logLevel"


def asking(level: str) -> t.Any:
    """A request's ``_meta`` that asks for its log messages at ``level`` and above (2026-07-28)."""
    return {LOG_LEVEL: level}


def command_tool(project: Path, name: str, script: str, **extra: t.Any) -> None:
    """A ``command`` tool NAME that runs ``sh -c SCRIPT``."""
    definition = {
        "description": f"{name} for the tests.",
        "implementation": {"kind": "command", "argv": ["sh", "-c", script]},
        **extra,
    }
    write(project / "tools" / f"{name}.json", json.dumps(definition))


class Heard:
    """What a client heard while its calls ran: progress (progress, total, message) and log
    messages (level, data, logger)."""

    def __init__(self) -> None:
        self.progress: list[tuple[float, float | None, str | None]] = []
        self.logs: list[tuple[str, t.Any, str | None]] = []

    def reported(self) -> list[tuple[float, float | None, str | None]]:
        """The progress the program reported (not the seconds counted before, which a slow
        machine may take to start it); all of it only ever growing."""
        values = [progress for progress, _, _ in self.progress]
        assert values == sorted(set(values)), self.progress
        return [p for p in self.progress if not (p[1] is None and (p[2] or "").startswith("running "))]

    async def on_progress(self, progress: float, total: float | None, message: str | None) -> None:
        self.progress.append((progress, total, message))

    async def on_log(self, params: t.Any) -> None:
        self.logs.append((params.level, params.data, params.logger))


@pytest.mark.slow
def test_a_call_that_asks_hears_its_programs_progress_and_log_messages(mcp_project: Path) -> None:
    """A client of 2026-07-28 (the SDK's own): a call with a progress token, and with a log level
    in its ``_meta``, hears what the program reports, in order, and nothing after the result; a
    call that asks for nothing gives its program no channel."""
    command_tool(mcp_project, "steps", STEPS)
    command_tool(mcp_project, "fds", "ls /proc/self/fd | wc -l")
    heard = Heard()

    async def body(client: Client) -> t.Any:
        fds = await client.call_tool("fds", {}, progress_callback=heard.on_progress)
        listened = await client.call_tool(
            "steps",
            {},
            progress_callback=heard.on_progress,
            meta=asking("info"),
        )
        told = (list(heard.progress), list(heard.logs))
        await anyio.sleep(0.5)
        plain = await client.call_tool("steps", {})
        return text_of(fds), text_of(listened), told, text_of(plain), client.server_capabilities.logging

    fds, listened, told, plain, logging = session(mcp_project, body, logging_callback=heard.on_log)
    assert fds == "5\n"  # 0, 1, 2, the channel and ls's own: nothing else of the server's
    assert told == (heard.progress, heard.logs)  # nothing came after the result
    assert heard.reported() == STEPPED
    assert heard.logs == [("info", f"did {i}", "steps") for i in (1, 2, 3)]  # not the debug one
    fd = listened.strip().removeprefix("fd=")
    assert fd.isdigit() and int(fd) < 10, listened  # a number any sh can redirect to
    assert plain == "fd=none\n"
    assert logging is not None


@pytest.mark.slow
def test_a_quiet_call_is_told_how_long_it_has_run(mcp_project: Path) -> None:
    """A program that reports nothing (a command, a python function) is reported for it: the
    seconds it has run, once a second. A function reports its own progress as a program does."""
    command_tool(mcp_project, "nap", "sleep 2.3")
    write(
        mcp_project / "lib" / "slow.py",
        "import os, time\n"
        "def nap():\n    time.sleep(2.3)\n    return 'rested'\n"
        "def steps():\n"
        "    fd = os.environ.get('COGTOOLS_PROGRESS_FD')\n"
        "    for i in (1, 2):\n"
        "        if fd:\n            os.write(int(fd), f'{i}0 20 python step {i}\\n'.encode())\n"
        "        time.sleep(0.05)\n"
        "    return 'stepped'\n",
    )
    write(mcp_project / ".cogtoolrc.yaml", "python_path: [lib]\n")
    for name in ("nap", "steps"):
        definition = {
            "description": f"Python {name}.",
            "implementation": {"kind": "python", "callable": f"slow:{name}"},
        }
        write(mcp_project / "tools" / f"py_{name}.json", json.dumps(definition))

    async def body(client: Client) -> t.Any:
        found = {}
        for name in ("nap", "py_nap", "py_steps"):
            heard = Heard()
            result = await client.call_tool(name, {}, progress_callback=heard.on_progress)
            found[name] = text_of(result), heard
        return found

    found = session(mcp_project, body)
    counted = [(1, None, "running 1 s"), (2, None, "running 2 s")]
    for name, text in (("nap", ""), ("py_nap", "rested")):
        assert found[name][0] == text
        heard = found[name][1].progress
        assert heard[:2] == counted and heard == [(n, None, f"running {n} s") for n in range(1, len(heard) + 1)]
    assert found["py_steps"][0] == "stepped"
    assert found["py_steps"][1].reported() == [(10, 20, "python step 1"), (20, 20, "python step 2")]


@pytest.mark.slow
def test_confined_programs_and_scripts_report_too(mcp_project: Path) -> None:
    """The channel reaches a program through bubblewrap (a tool that declares its side effects
    runs confined), at the number the variable names and as /dev/fd/N; and a script's."""
    from cogtools.run.confine import available

    if not available():
        pytest.skip("bubblewrap cannot confine a program here")
    command_tool(
        mcp_project,
        "boxed",
        REPORT + 'report "10 20 direct"; echo "20 20 through /dev/fd" > "/dev/fd/$COGTOOLS_PROGRESS_FD"; echo boxed',
        side_effects=[],
        risk_level="low",
    )
    write(
        mcp_project / "tools" / "scripted.sh",
        "#!/bin/sh\n# cogtools-tool\n# description: A script that reports.\n#\n"
        + REPORT
        + '\nreport "50 - scripted"\necho scripted\n',
        mode=0o755,
    )

    async def body(client: Client) -> t.Any:
        found = {}
        for name in ("boxed", "scripted"):
            heard = Heard()
            result = await client.call_tool(name, {}, progress_callback=heard.on_progress)
            found[name] = text_of(result), heard
        return found

    found = session(mcp_project, body)
    assert run_script("cogtools", "which", "boxed", cwd=mcp_project).stdout.count("confined:") == 1
    assert found["boxed"][0] == "boxed\n"
    assert found["boxed"][1].reported() == [(10, 20, "direct"), (20, 20, "through /dev/fd")]
    assert found["scripted"][0] == "scripted\n"
    assert found["scripted"][1].reported() == [(50, None, "scripted")]


#: A program as hostile to the channel as it can be: lines that are not reports, too long, not
#: UTF-8, with control characters, progress that goes back, numbers too large; then 20,000 lines
#: as fast as it can, a second or two of 200 lines a second, and a last word.
HOSTILE = (
    'fd="$COGTOOLS_PROGRESS_FD"; '
    "printf 'nonsense\\n\\n-1\\n1e5\\n5 4\\ninf\\nloud: x\\n' >&$fd; sleep 0.05; "
    "head -c 5000 /dev/zero | tr '\\0' 9 >&$fd; echo >&$fd; "
    "printf '7 - \\033]52;c;bad\\007 \\377\\n' >&$fd; sleep 0.3; "
    "printf '6\\n' >&$fd; "
    "printf '1%0400d\\n' 0 >&$fd; "
    "seq 10 20010 | sed 's/$/ 1000000/' >&$fd; "
    "i=30000; while [ $i -lt 30200 ]; do echo $i >&$fd; echo warning: $i >&$fd; i=$((i+1)); sleep 0.005; done; "
    "echo 999999 1000000 last >&$fd; echo survived"
)


@pytest.mark.slow
def test_a_hostile_program_cannot_flood_the_client_or_break_the_server(mcp_project: Path) -> None:
    command_tool(mcp_project, "hostile", HOSTILE)
    client = RawStdio(mcp_project)
    client.send({"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel", "params": {"level": "warning"}})
    client.answer(2)
    call = {"name": "hostile", "arguments": {}, "_meta": {"progressToken": "p"}}
    started = time.monotonic()
    client.send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call})
    messages: list[tuple[float, dict[str, t.Any]]] = []
    while not any(m.get("id") == 3 for _, m in messages):
        message = client.receive(60)
        assert message is not None
        messages.append((time.monotonic() - started, message))
    seconds = messages[-1][0]
    after = client.until_quiet(0.5, 0.5)
    client.send(
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "x"}}}
    )
    still = client.answer(4)[4]
    stderr = client.close()
    result = messages[-1][1]["result"]
    assert result["isError"] is False and result["content"][0]["text"] == "survived\n"
    notes = [m for _, m in messages[:-1]]
    progress = [n["params"] for n in notes if n.get("method") == "notifications/progress"]
    values = [p["progress"] for p in progress]
    assert values == sorted(set(values)), values  # only ever growing
    assert {"progressToken": "p", "progress": 7, "message": "\\x1b]52;c;bad\\x07 \ufffd"} in progress[:2]
    assert progress[-1] == {"progressToken": "p", "progress": 999999, "total": 1000000, "message": "last"}
    assert all(len(json.dumps(n)) < 2000 for n in notes)
    # at most RATE a second, after a burst of as many, and the last word
    assert len(notes) <= 10 + 10 * seconds + 1, (len(notes), seconds)
    assert {n["method"] for n in notes} <= {"notifications/progress", "notifications/message"}
    logs = [n["params"] for n in notes if n["method"] == "notifications/message"]
    assert logs and all(p["level"] == "warning" and p["logger"] == "hostile" for p in logs)
    assert after == []
    assert still["result"]["content"][0]["text"] == "x\n"
    assert b"Traceback" not in stderr and b"Exception" not in stderr, stderr


@pytest.mark.slow
def test_a_handshake_era_client_sets_the_level_of_what_it_hears(mcp_project: Path) -> None:
    """The logging capability is declared and logging/setLevel honoured, per connection: a
    program's log messages at or above the level reach the call's client, the catalog's warnings
    too unless the level is above warning; a client that set no level hears no program. No
    warning of the SDK's deprecations reaches the server's standard error."""
    command_tool(
        mcp_project, "chatty", REPORT + "report debug d; report info i; report warning w; report error e; echo ok"
    )
    client = RawStdio(mcp_project)

    def until(request: int) -> tuple[list[dict[str, t.Any]], dict[str, t.Any]]:
        """What came before the answer to ``request``, and the answer."""
        before = []
        while (message := client.receive(30)) is not None and message.get("id") != request:
            before.append(message)
        assert message is not None
        return before, message

    client.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "chatty", "arguments": {}}})
    unset, plain = until(2)
    client.send({"jsonrpc": "2.0", "id": 3, "method": "logging/setLevel", "params": {"level": "loud"}})
    client.send({"jsonrpc": "2.0", "id": 4, "method": "logging/setLevel", "params": {"level": "warning"}})
    answers = client.answer(3, 4)
    client.send({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "chatty", "arguments": {}}})
    heard, _ = until(5)
    client.send({"jsonrpc": "2.0", "id": 6, "method": "logging/setLevel", "params": {"level": "error"}})
    client.answer(6)
    write(mcp_project / "tools" / "look.yaml", "description: [broken\n")
    changed = client.until_quiet(20, 1.5)
    stderr = client.close()
    assert unset == [] and plain["result"]["content"][0]["text"] == "ok\n"  # no level set: no program heard
    assert answers[3]["error"]["code"] == -32602
    assert answers[4]["result"] == {}
    assert [(m["method"], m["params"]["level"], m["params"]["data"], m["params"]["logger"]) for m in heard] == [
        ("notifications/message", "warning", "w", "chatty"),
        ("notifications/message", "error", "e", "chatty"),
    ]
    assert [m.get("method") for m in changed] == ["notifications/tools/list_changed"]  # no warning below error
    assert b"Warning" not in stderr and b"deprecated" not in stderr, stderr


@pytest.mark.slow
def test_the_initialize_answer_declares_logging(mcp_project: Path) -> None:
    proc = subprocess.run(
        [str(BIN / "cogtools"), "mcp"],
        input=(json.dumps(INITIALIZE) + "\n").encode(),
        capture_output=True,
        cwd=mcp_project,
        timeout=60,
    )
    answer = json.loads(proc.stdout.splitlines()[0])
    assert answer["result"]["capabilities"]["logging"] == {}
    assert b"Warning" not in proc.stderr, proc.stderr


@pytest.mark.slow
def test_a_client_of_2026_07_28_has_no_set_level_and_asks_per_request(mcp_project: Path) -> None:
    """logging/setLevel is not of that revision (-32601): a request's ``_meta`` says what it
    wants to hear, and one that says nothing hears nothing."""
    import warnings

    from mcp.shared.exceptions import MCPError

    command_tool(mcp_project, "chatty", REPORT + "report info i; report error e; echo ok")
    heard = Heard()

    async def body(client: Client) -> t.Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                await client.set_logging_level("info")
                refused = None
            except MCPError as e:
                refused = e.code
        await client.call_tool("chatty", {})
        quiet = list(heard.logs)
        await client.call_tool("chatty", {}, meta=asking("error"))
        return client.protocol_version, refused, quiet

    version, refused, quiet = session(mcp_project, body, logging_callback=heard.on_log)
    assert version == "2026-07-28" and refused == -32601
    assert quiet == [] and heard.logs == [("error", "e", "chatty")]


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_progress_and_log_messages_ride_the_request_over_http(
    mcp_project: Path, http_server: t.Callable[..., HttpServer], mode: str
) -> None:
    """Over streamable HTTP, in both eras, what a call reports comes on its own response stream."""
    import warnings

    command_tool(mcp_project, "steps", STEPS)
    server = http_server()
    heard = Heard()

    async def body(client: Client) -> t.Any:
        if mode == "legacy":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                await client.set_logging_level("info")
        result = await client.call_tool("steps", {}, progress_callback=heard.on_progress)
        return client.protocol_version, text_of(result)

    options: dict[str, t.Any] = {"logging_callback": heard.on_log, "mode": mode}
    if mode == "auto":
        options["log_level"] = "info"
    version, text = over_http(server.url, body, **options)
    assert version == ("2026-07-28" if mode == "auto" else "2025-11-25")
    assert text.startswith("fd=") and text != "fd=none\n"
    assert heard.reported() == STEPPED
    assert heard.logs == [("info", f"did {i}", "steps") for i in (1, 2, 3)]
    status, stderr = server.stop()
    assert "Traceback" not in stderr and "Warning" not in stderr, stderr


# -- the channel and the reporter, in this process ---------------------------------------------


@pytest.mark.parametrize(
    ("line", "report"),
    [
        (b"3", ("progress", 3, None, None)),
        (b"3 10", ("progress", 3, 10, None)),
        (b"2.5 10 half way\r", ("progress", 2.5, 10, "half way")),
        (b"3 copying files", ("progress", 3, None, "copying files")),
        (b"3 - 5 files", ("progress", 3, None, "5 files")),
        (b"3 5files", ("progress", 3, None, "5files")),
        (b"1 -2", ("progress", 1, None, "-2")),
        (b"  7\t-\tx  ", ("progress", 7, None, "x")),
        (b"0 100", ("progress", 0, 100, None)),
        (b"1 2 \x1b[2J\xff\xfe", ("progress", 1, 2, "\\x1b[2J\ufffd\ufffd")),
        (b"info started", ("log", "info", "started")),
        (b"WARNING: disk nearly full", ("log", "warning", "disk nearly full")),
        (b"emergency:\tx", ("log", "emergency", "x")),
    ],
)
def test_a_line_is_a_report(line: bytes, report: tuple[t.Any, ...]) -> None:
    from cogtools.run.reports import Log, Progress, parse_report

    kind, *fields = report
    assert parse_report(line) == (Progress(*fields) if kind == "progress" else Log(*fields))


@pytest.mark.parametrize(
    "line",
    [
        b"",
        b"nonsense",
        b"-1",
        b"+1",
        b"1e5",
        b"1,5",
        b"3x",
        b"inf",
        b"nan",
        b"11 10",
        b"0 0",
        b"9" * 400,
        b"info",
        b"info:",
        b"loud: x",
        b"\xd9\xa3",
        b"1" * 1025,
    ],
)
def test_a_line_that_is_not_a_report_is_none(line: bytes) -> None:
    from cogtools.run.reports import parse_report

    assert parse_report(line) is None


def test_a_report_masks_the_values_it_was_told_to() -> None:
    from cogtools.run.reports import Log, parse_report

    assert parse_report(b"info token s3cret-value used", lambda text: text.replace("s3cret-value", "***")) == Log(
        "info", "token *** used"
    )


def test_any_bytes_are_a_report_or_none() -> None:
    from hypothesis import given
    from hypothesis import strategies as st

    from cogtools.run.reports import MAX_REPORT_LINE, Log, Progress, parse_report

    @given(st.binary(max_size=MAX_REPORT_LINE + 8) | st.from_regex(rb"\A[0-9. \t-]{0,12}[ -~]{0,8}\Z"))
    def check(line: bytes) -> None:
        report = parse_report(line)
        assert report is None or isinstance(report, (Progress, Log))
        if isinstance(report, Progress):
            assert report.progress >= 0 and (report.total is None or report.total >= report.progress)

    check()


def test_the_reporter_keeps_to_its_rate_and_progress_only_grows() -> None:
    from cogtools.mcp.reporting import Reporter
    from cogtools.run.reports import Log, Progress

    reporter = Reporter(progress=True, levels=frozenset({"warning", "error"}), started=0.0)
    for value in (1, 1, 0.5, 2):
        reporter.put(Progress(value))
    reporter.put(Log("info", "not asked for"))
    reporter.put(Log("error", "e"))
    assert reporter.due(0.0) == [Progress(1), Progress(2), Log("error", "e")]
    for value in range(3, 40):
        reporter.put(Progress(value))
        reporter.put(Log("warning", str(value)))
    burst = reporter.due(0.0)
    assert len(burst) == 7  # the rest of the burst of 10
    assert reporter.due(0.05) == []
    assert len(reporter.due(0.1)) == 1  # then one each 1/RATE s
    last = reporter.due(0.2, final=True)
    assert last[-1] == Progress(39)  # the last word on progress, whatever the rate
    reporter.put(Progress(100))
    assert reporter.due(5.0) == []  # nothing after the end


def test_the_reporter_counts_seconds_until_a_program_reports() -> None:
    from cogtools.mcp.reporting import Reporter
    from cogtools.run.reports import Progress

    reporter = Reporter(progress=True, levels=frozenset(), started=10.0)
    assert reporter.due(10.5) == []
    assert reporter.due(11.05) == [Progress(1, None, "running 1 s")]
    assert reporter.due(11.5) == []
    reporter.put(Progress(1, 10, "not beyond what was sent"))
    assert reporter.due(12.0) == [Progress(2, None, "running 2 s")]
    reporter.put(Progress(5, 10, "a program's own"))
    assert reporter.due(13.0) == [Progress(5, 10, "a program's own")]
    assert reporter.due(20.0) == []  # its own measure from then on
    assert not Reporter(progress=False, levels=frozenset(), started=0.0).channel
    assert Reporter(progress=False, levels=frozenset({"error"}), started=0.0).due(5.0) == []


@pytest.mark.slow
def test_a_program_writing_more_than_a_call_reports_is_read_at_little_cost() -> None:
    """10 MB of lines: the program is not stopped, the server's thread spends little on them,
    and what it wrote last is reported."""
    from cogtools.run.process import CALL_PROGRAMS, CallPrograms, run_program
    from cogtools.run.reports import Progress

    got: list[t.Any] = []
    token = CALL_PROGRAMS.set(CallPrograms(reports=got.append))
    try:
        started, cpu = time.monotonic(), time.process_time()
        finished = run_program(
            [
                "sh",
                "-c",
                'fd=/dev/fd/$COGTOOLS_PROGRESS_FD; yes "1 2" | head -c 10000000 > $fd; echo "2 2 end" > $fd',
            ],
            stdin=b"",
            cwd=None,
            env={"PATH": os.environ["PATH"]},
            timeout=30,
            max_output=1000,
            tool="flood",
        )
        seconds, used = time.monotonic() - started, time.process_time() - cpu
    finally:
        CALL_PROGRAMS.reset(token)
    assert finished.status == 0
    assert got[-1] == Progress(2, 2, "end")
    assert used < 0.5 * seconds + 0.2, (used, seconds)


def test_what_a_program_reported_is_read_even_when_the_reader_ran_late() -> None:
    """(a flaky test on a busy machine: the thread that reads the channel had not run when the
    call ended, and was told to stop before it read what the pipe held: every report was lost)"""
    from cogtools.run.reports import Channel, Progress

    got: list[t.Any] = []
    channel = Channel.open(got.append, str)
    os.write(channel.write_end, b"10 20 direct\n20 20 through /dev/fd\n")
    os.close(channel.write_end)
    channel._stop.set()  # told to stop before it ran at all
    channel.thread.start()
    channel.drain()
    assert got == [Progress(10, 20, "direct"), Progress(20, 20, "through /dev/fd")]


def test_a_program_of_a_call_that_listens_to_nothing_gets_no_channel() -> None:
    from cogtools.run.process import CALL_PROGRAMS, CallPrograms, run_program

    token = CALL_PROGRAMS.set(CallPrograms())
    try:
        finished = run_program(
            ["sh", "-c", 'echo "${COGTOOLS_PROGRESS_FD-none}"; ls /proc/self/fd | wc -l'],
            stdin=b"",
            cwd=None,
            env={"PATH": os.environ["PATH"]},
            timeout=30,
            max_output=1000,
            tool="plain",
        )
    finally:
        CALL_PROGRAMS.reset(token)
    assert finished.stdout.split() == [b"none", b"4"]  # 0, 1, 2 and ls's own


@pytest.mark.slow
def test_results_with_shape_are_structured_and_bytes_are_media(mcp_project: Path) -> None:
    """A tool that says what it prints is listed with its outputSchema and answers with
    structuredContent (and the same JSON as text); one whose program prints an image, audio or
    other bytes answers with that content, base64, of its declared type."""
    import base64

    write(
        mcp_project / "tools" / "stat.yaml",
        "description: Disk use.\nparameters: {path: {type: string, description: Where.}}\n"
        "output: {schema: {type: object, properties: {used: {type: integer}}, required: [used]}}\n"
        "implementation: '{\"used\": {{ path | length }}}'\n",
    )
    from .test_output_schema import multipart

    png, wav, pdf = b"\x89PNG\r\n\x1a\n\x00\xff", b"RIFF\x00\x00WAVE", b"%PDF-1.4\x00\xfe"
    mixed = multipart(("text/plain; charset=utf-8", "caf\u00e9".encode()), ("image/png", png), ("application/pdf", pdf))
    for name, media, data in (
        ("shot", "image/png", png),
        ("beep", "audio/wav", wav),
        ("doc", "application/pdf", pdf),
        ("all", "multipart/mixed", mixed),
    ):
        definition = {
            "description": f"A {media}.",
            "output": {"media_type": media},
            "implementation": {
                "kind": "command",
                "argv": ["sh", "-c", 'printf %s "$0" | base64 -d', base64.b64encode(data).decode()],
            },
        }
        write(mcp_project / "tools" / f"{name}.json", json.dumps(definition))

    async def body(client: Client) -> t.Any:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        stat = await client.call_tool("stat", {"path": "/tmp"})
        media = {name: (await client.call_tool(name, {})).content[0] for name in ("shot", "beep", "doc")}
        every = (await client.call_tool("all", {})).content
        return listed, stat, media, every

    listed, stat, media, every = session(mcp_project, body)
    assert [item.type for item in every] == ["text", "image", "resource"]
    assert every[0].text == "caf\u00e9" and base64.b64decode(every[1].data) == png
    assert every[2].resource.mime_type == "application/pdf" and str(every[2].resource.uri) == "cogtools://all/result/3"
    assert listed["stat"].output_schema == {
        "type": "object",
        "properties": {"used": {"type": "integer"}},
        "required": ["used"],
    }
    assert stat.structured_content == {"used": 4} and json.loads(text_of(stat)) == {"used": 4}
    assert not stat.is_error
    assert (media["shot"].type, media["shot"].mime_type, base64.b64decode(media["shot"].data)) == (
        "image",
        "image/png",
        png,
    )
    assert (media["beep"].type, media["beep"].mime_type, base64.b64decode(media["beep"].data)) == (
        "audio",
        "audio/wav",
        wav,
    )
    resource = media["doc"].resource
    assert media["doc"].type == "resource" and resource.mime_type == "application/pdf"
    assert base64.b64decode(resource.blob) == pdf and str(resource.uri) == "cogtools://doc/result"


@pytest.mark.slow
def test_calls_that_outlive_their_timeout_do_not_hold_the_server(mcp_project: Path) -> None:
    """With --max-calls 2, calls that ignore their time limit (a function that spins, a program
    that sleeps, a template that loops) are ended at it, and each frees its place: the calls
    after them run."""
    write(mcp_project / "lib" / "spinning.py", "def spin(text):\n    while True:\n        pass\n")
    # (the template's time limit is the project's: limits.timeout)
    write(mcp_project / ".cogtoolrc.yaml", "python_path: [lib]\nlimits: {timeout: 0.5}\n")
    for name, implementation in (
        ("py_spin", "  kind: python\n  callable: spinning:spin\n"),
        ("nap", "  kind: command\n  argv: [sleep, '60']\n"),
        (
            "loop",
            "  kind: template\n  template: '{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}'\n",
        ),
    ):
        write(
            mcp_project / "tools" / f"{name}.yaml",
            f"description: Never ends.\nparameters: {{text: {{type: string, description: Any.}}}}\n"
            f"implementation:\n{implementation}",
        )

    async def body(client: Client) -> t.Any:
        outcomes: dict[str, str] = {}

        async def one(key: str, name: str) -> None:
            result = await client.call_tool(name, {"text": "x"})
            outcomes[key] = result.structured_content["error"]["code"] if result.is_error else text_of(result)

        async with anyio.create_task_group() as group:
            for number in range(2):
                for name in ("py_spin", "nap", "loop"):
                    group.start_soon(one, f"{name}{number}", name)
        outcomes["echo"] = text_of(await client.call_tool("echo", {"text": "after"}))
        return outcomes

    async def main() -> t.Any:
        with anyio.fail_after(60):
            async with Client(server(mcp_project, "--max-calls", "2")) as client:
                return await body(client)

    began = time.monotonic()
    outcomes = anyio.run(main)
    assert outcomes.pop("echo") == "after\n"
    assert set(outcomes.values()) == {"TIMEOUT"}, outcomes
    assert time.monotonic() - began < 30


# -- what cogtools mcp imports ---------------------------------------------------------------------

#: The modules of cogtools.mcp a stdio server imports: none of HTTP's.
STDIO_MODULES = {
    "cogtools.mcp",
    "cogtools.mcp.audience",
    "cogtools.mcp.calls",
    "cogtools.mcp.first",
    "cogtools.mcp.framing",
    "cogtools.mcp.listing",
    "cogtools.mcp.live",
    "cogtools.mcp.reporting",
    "cogtools.mcp.server",
    "cogtools.mcp.stdio",
    "cogtools.mcp.watching",
}


@pytest.mark.slow
def test_what_cogtools_mcp_imports(mcp_project: Path) -> None:
    """Before it knows that the extra is there, ``cogtools mcp`` imports nothing of the SDK (its
    defaults are in ``cogtools.mcp``, which imports nothing); a stdio server imports the modules
    that serve stdio and none of HTTP's (what it imports before its first answers is
    tests/test_mcp_first.py's)."""
    printing = imported("cogtools", "mcp", "--print-config", "cursor", cwd=mcp_project)
    assert {name for name in printing if name.startswith("cogtools.mcp")} == {"cogtools.mcp"}
    assert not [name for name in printing if name.split(".")[0] in ("mcp", "mcp_types", "anyio")]
    serving = imported("cogtools", "mcp", cwd=mcp_project)  # (no input: it serves, and ends)
    assert {name for name in serving if name.startswith("cogtools.mcp")} == STDIO_MODULES
