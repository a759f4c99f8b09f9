"""The http kind against a hostile server (DESIGN §11): every response that is not HTTP, or not
what it claims, ends as EXECUTION_FAILED, never INTERNAL; credentials reach only the origin the
definition names; a secret is masked in every form it may be printed in."""

from __future__ import annotations

import json
import socket
import socketserver
import threading
import typing as t
import urllib.parse
from pathlib import Path

import pytest

from cogtools.cli import call

from .conftest import Cli, write
from .test_cli import assert_error


def deep(depth: int, inner: str = "1") -> bytes:
    return ("[" * depth + inner + "]" * depth).encode()


def response(body: bytes, content_type: str = "application/json", extra: str = "") -> bytes:
    head = f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n{extra}\r\n"
    return head.encode("latin-1") + body


#: path -> the bytes the server answers, whatever was asked.
ANSWERS: dict[str, bytes] = {
    "/idna": response("caf\u00e9".encode(), "text/plain; charset=idna"),
    "/undefined": response(b"hello", "text/plain; charset=undefined"),
    "/base64": response(b"hello", "text/plain; charset=base64"),
    "/deep": response(deep(100_000)),
    "/deep-object": response(b'{"a": ' + deep(3000) + b"}"),
    "/long-header": b"HTTP/1.1 200 OK\r\nX-Long: " + b"x" * 70_000 + b"\r\nContent-Length: 2\r\n\r\nok",
    "/many-headers": b"HTTP/1.1 200 OK\r\n" + b"".join(b"X-%d: y\r\n" % i for i in range(150)) + b"\r\nok",
    "/bad-status": b"HTTP/1.1 two hundred OK\r\nContent-Length: 2\r\n\r\nok",
    "/http09": b"<html>no status line at all</html>",
    "/garbage": b"\x00\xff\xfe garbage \r\n\r\n",
    "/bad-chunk": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nok\r\n0\r\n\r\n",
    "/redirect-bad-port": b"HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:abc/\r\nContent-Length: 0\r\n\r\n",
    "/redirect-bad-host": b"HTTP/1.1 302 Found\r\nLocation: http://[::1/\r\nContent-Length: 0\r\n\r\n",
}


class Hostile(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


class Answer(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        request_line = self.rfile.readline(65536).decode("latin-1")
        headers = {}
        while (line := self.rfile.readline(65536)) not in (b"\r\n", b"\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        path = request_line.split(" ")[1] if " " in request_line else "/"
        server = t.cast("Recording", self.server)
        server.seen.append((path, headers))
        if path.startswith("/to-other-port"):
            location = urllib.parse.parse_qs(urllib.parse.urlsplit(path).query)["url"][0]
            self.wfile.write(f"HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\n\r\n".encode())
            return
        self.wfile.write(ANSWERS.get(path, response(b'{"ok": true}')))


class Recording(Hostile):
    seen: list[tuple[str, dict[str, str]]]


def start() -> Recording:
    server = Recording(("127.0.0.1", 0), Answer)
    server.seen = []
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return server


@pytest.fixture(scope="module")
def hostile() -> t.Iterator[Recording]:
    server = start()
    yield server
    server.shutdown()


def url(server: Recording, path: str) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}{path}"


def http_tool(project: Path, name: str, **spec: t.Any) -> None:
    definition = {
        "description": f"{name} tool",
        "parameters": {"value": {"type": "string", "optional": True}},
        "implementation": {"kind": "http", **spec},
    }
    write(project / "tools" / f"{name}.json", json.dumps(definition))


@pytest.mark.parametrize("path", ["/idna", "/undefined", "/base64"])
def test_a_charset_that_cannot_decode_falls_back_to_utf_8(
    project: Path, cli: Cli, hostile: Recording, path: str
) -> None:
    http_tool(project, "get", url=url(hostile, path))
    result = cli(call.main, "get")
    assert result.status == 0 and result.stdout in ("caf\u00e9", "hello"), result


def test_a_body_too_deep_to_print_again_comes_as_it_is(project: Path, cli: Cli, hostile: Recording) -> None:
    http_tool(project, "get", url=url(hostile, "/deep"))
    result = cli(call.main, "get")
    assert result.status == 0 and result.stdout.startswith("[[[[") and len(result.stdout) == 200_001


def test_a_pick_in_a_body_too_deep_fails_cleanly(project: Path, cli: Cli, hostile: Recording) -> None:
    http_tool(project, "get", url=url(hostile, "/deep-object"), pick="/a")
    assert_error(cli(call.main, "get"), "EXECUTION_FAILED", "nests too deep")


@pytest.mark.parametrize(
    "path",
    [
        "/long-header",
        "/many-headers",
        "/bad-status",
        "/http09",
        "/garbage",
        "/bad-chunk",
        "/redirect-bad-port",
        "/redirect-bad-host",
    ],
)
def test_a_response_that_is_not_http_is_execution_failed(
    project: Path, cli: Cli, hostile: Recording, path: str
) -> None:
    http_tool(project, "get", url=url(hostile, path))
    error = assert_error(cli(call.main, "get"), "EXECUTION_FAILED")
    assert error["details"]["reason"] in ("response", "redirect", "connection"), error


def test_a_header_value_outside_latin_1_is_refused(project: Path, cli: Cli, hostile: Recording) -> None:
    http_tool(project, "get", url=url(hostile, "/ok"), headers={"X-Name": "{{ value }}"})
    error = assert_error(cli(call.main, "get", stdin='{"value": "\u4e2d\u6587"}'), "RENDER_FAILED", "Latin-1")
    assert error["details"] == {"reason": "header", "header": "X-Name"}


def test_credentials_go_only_to_the_origin_that_was_declared(
    project: Path, cli: Cli, hostile: Recording, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A redirect to another port of the same host (an allowed host) loses the credentials."""
    other = start()
    try:
        monkeypatch.setenv("TOKEN", "s3cret-token")
        target = urllib.parse.quote(url(other, "/landed"), safe="")
        write(
            project / "tools" / "auth.json",
            json.dumps(
                {
                    "description": "Authenticated.",
                    "environment": [{"name": "TOKEN", "secret": True}],
                    "implementation": {
                        "kind": "http",
                        "url": url(hostile, f"/to-other-port?url={target}"),
                        "headers": {
                            "Authorization": "Bearer {{ env.TOKEN }}",
                            "Cookie": "session=1",
                            "X-Api-Key": "{{ env.TOKEN }}",
                            "X-Plain": "kept",
                        },
                    },
                }
            ),
        )
        result = cli(call.main, "auth")
        assert result.status == 0, result
        [(path, first)] = [seen for seen in hostile.seen if seen[0].startswith("/to-other-port")][-1:]
        assert first["authorization"] == "Bearer s3cret-token" and first["cookie"] == "session=1"
        [(landed, headers)] = other.seen
        assert landed == "/landed" and headers["x-plain"] == "kept"
        assert not {"authorization", "cookie", "x-api-key"} & set(headers), headers
    finally:
        other.shutdown()


def test_a_secret_is_masked_percent_encoded_too(project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """In the URL a secret is percent-encoded: the error and the dry run mask that form too."""
    secret = "p@ss word/ü"
    monkeypatch.setenv("TOKEN", secret)
    port = free_port()
    write(
        project / "tools" / "leak.json",
        json.dumps(
            {
                "description": "A secret in the path.",
                "environment": [{"name": "TOKEN", "secret": True}],
                "lint": {"ignore": ["secret-exposed", "secret-cleartext"]},
                "implementation": {"kind": "http", "url": f"http://127.0.0.1:{port}/k/{{{{ env.TOKEN }}}}"},
            }
        ),
    )
    failed = cli(call.main, "leak")
    shown = cli(call.main, "--dry-run", "leak")
    for text in (failed.stdout + failed.stderr, shown.stdout):
        for form in (secret, urllib.parse.quote(secret, safe=""), json.dumps(secret)[1:-1]):
            assert form not in text, (form, text)
    assert "***" in shown.stdout


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize(
    "proxy", ["http://user:hunter2@proxy.example:3128", "user:hunter2@proxy.example:3128", "http://u:hunter2@[::1]:8"]
)
def test_a_proxys_password_is_not_in_the_dry_run(
    project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch, proxy: str
) -> None:
    monkeypatch.setenv("https_proxy", proxy)
    http_tool(project, "get", url="https://api.example.com/x")
    shown = cli(call.main, "--dry-run", "get").json()
    assert "hunter2" not in json.dumps(shown) and ":***@" in shown["proxy"]


@pytest.mark.slow
def test_over_mcp_a_broken_response_is_a_tool_error_not_a_protocol_error(project: Path, hostile: Recording) -> None:
    pytest.importorskip("mcp")
    from mcp import Client

    from .test_mcp import session

    http_tool(project, "get", url=url(hostile, "/garbage"))

    async def body(client: Client) -> t.Any:
        return await client.call_tool("get", {})

    result = session(project, body)
    assert result.is_error and result.structured_content["error"]["code"] == "EXECUTION_FAILED"
