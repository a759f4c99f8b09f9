"""The ``http`` implementation kind, against a real server on 127.0.0.1 started by the test."""

from __future__ import annotations

import http.server
import json
import threading
import time
import typing as t
import urllib.parse
from pathlib import Path

import pytest

from cogtools.cli import call
from cogtools.core.errors import ERROR_TABLE

from .conftest import Cli, run_script, write

STATUS = {code: status for code, status, _ in ERROR_TABLE}


class Handler(http.server.BaseHTTPRequestHandler):
    """Answers by path: /echo/... (the request as JSON), /redirect?to=URL, /slow, /trickle,
    /huge, /status/CODE, /text, /data, /empty."""

    def log_message(self, *args: t.Any) -> None:
        pass

    def _send(self, status: int, body: bytes, content_type: str = "application/json", **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _answer(self) -> None:
        parts = urllib.parse.urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if parts.path.startswith("/echo"):
            echo = {
                "method": self.command,
                "path": parts.path,
                "raw_path": self.path,
                "query": urllib.parse.parse_qsl(parts.query, keep_blank_values=True),
                "headers": {k.lower(): v for k, v in self.headers.items()},
                "body": body.decode(),
            }
            self._send(200, json.dumps(echo).encode())
        elif parts.path == "/redirect":
            target = dict(urllib.parse.parse_qsl(parts.query))["to"]
            self._send(302, b"", Location=target)
        elif parts.path == "/loop":
            self._send(302, b"", Location="/loop")
        elif parts.path == "/slow":
            time.sleep(5)
            self._send(200, b"{}")
        elif parts.path == "/trickle":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            for _ in range(50):
                self.wfile.write(b"x")
                self.wfile.flush()
                time.sleep(0.1)
        elif parts.path == "/huge":
            self._send(200, b"y" * 5_000_000, "text/plain")
        elif parts.path.startswith("/status/"):
            self._send(int(parts.path.rsplit("/", 1)[1]), b"not here, sorry", "text/plain")
        elif parts.path == "/text":
            self._send(200, "héllo <b>text</b>".encode("latin-1"), "text/plain; charset=latin-1")
        elif parts.path == "/data":
            self._send(200, json.dumps({"items": [{"name": "first", "n": 1}, {"name": "second"}]}).encode())
        elif parts.path == "/empty":
            self._send(200, b"", "text/plain")
        else:
            self._send(404, b"no route")

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _answer


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request: t.Any, client_address: t.Any) -> None:
        """A client that stops reading (cogtools, at its output limit) is what some tests do:
        not an error of the test server's (whose default prints to a stderr pytest may have
        closed, a warning of every run)."""


@pytest.fixture(scope="module")
def server() -> t.Iterator[str]:
    httpd = _Server(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def http_tool(project: Path, name: str, parameters: dict[str, t.Any] | None = None, **spec: t.Any) -> None:
    definition = {
        "description": f"{name} tool",
        "parameters": parameters if parameters is not None else {"value": {"type": "string", "optional": True}},
        "implementation": {"kind": "http", **spec},
    }
    write(project / "tools" / f"{name}.json", json.dumps(definition))


def echo(cli: Cli, name: str, arguments: dict[str, t.Any]) -> dict[str, t.Any]:
    result = cli(call.main, name, stdin=json.dumps(arguments))
    assert result.status == 0, result
    return t.cast("dict[str, t.Any]", json.loads(result.stdout))


@pytest.mark.parametrize(
    "value",
    [
        "../../admin",
        "a/b",
        "x?admin=1",
        "x#frag",
        "@evil.example",
        "%2e%2e",
        "a b",
        "ünï",
        "x&y=z",
        "//evil.example/p",
        "\\\\evil",
    ],
)
def test_a_value_in_the_path_is_one_encoded_segment(project: Path, cli: Cli, server: str, value: str) -> None:
    http_tool(project, "seg", url=server + "/echo/items/{{ value }}/end")
    seen = echo(cli, "seg", {"value": value})
    assert seen["path"] == "/echo/items/" + urllib.parse.quote(value, safe="") + "/end"
    assert urllib.parse.unquote(seen["path"].split("/")[3]) == value and seen["query"] == []


@pytest.mark.parametrize("value", ["", ".", ".."])
def test_a_value_that_would_change_the_path_is_refused(project: Path, cli: Cli, server: str, value: str) -> None:
    http_tool(project, "seg", url=server + "/echo/items/{{ value }}/end")
    result = cli(call.main, "seg", stdin=json.dumps({"value": value}))
    assert result.status == STATUS["RENDER_FAILED"] and result.json()["error"]["details"]["reason"] == "url"


def test_query_headers_and_json_body(project: Path, cli: Cli, server: str) -> None:
    parameters = {
        "q": {"type": "string"},
        "n": {"type": "integer", "optional": True},
        "tags": {"type": "array", "items": {"type": "string"}, "optional": True},
    }
    http_tool(
        project,
        "post",
        parameters,
        method="POST",
        url=server + "/echo?fixed=1",
        query={"q": "{{ q }}", "n": "{{ n }}", "limit": 5},
        headers={"X-Query": "{{ q }}", "X-Empty": "{{ n }}"},
        json={
            "text": "q is {{ q }}",
            "n": "{{ n }}",
            "tags": "{{ tags }}",
            "nested": [{"q": "{{ q | upper }}"}],
            "const": 3,
        },
    )
    hostile = "a&b=c d=e#f"
    seen = echo(cli, "post", {"q": hostile, "tags": ["x", "y"]})
    # The literal query, then each declared parameter, the value encoded whole; an empty one is left out.
    assert seen["method"] == "POST" and seen["query"] == [["fixed", "1"], ["q", hostile], ["limit", "5"]]
    assert seen["headers"]["x-query"] == hostile and "x-empty" not in seen["headers"]
    assert seen["headers"]["content-type"] == "application/json; charset=utf-8"
    assert seen["headers"]["user-agent"].startswith("cogtools/")
    assert json.loads(seen["body"]) == {
        "text": f"q is {hostile}",
        "n": None,
        "tags": ["x", "y"],
        "nested": [{"q": hostile.upper()}],
        "const": 3,
    }


def test_form_body(project: Path, cli: Cli, server: str) -> None:
    http_tool(project, "form", method="PUT", url=server + "/echo", form={"value": "{{ value }}", "kind": "fixed"})
    seen = echo(cli, "form", {"value": "a&b=c"})
    assert urllib.parse.parse_qsl(seen["body"]) == [("value", "a&b=c"), ("kind", "fixed")]
    assert seen["headers"]["content-type"] == "application/x-www-form-urlencoded"


def test_a_header_value_cannot_add_a_header(project: Path, cli: Cli, server: str) -> None:
    http_tool(project, "hdr", url=server + "/echo", headers={"X-Value": "{{ value }}"})
    result = cli(call.main, "hdr", stdin=json.dumps({"value": "ok\r\nX-Admin: 1"}))
    assert result.status == STATUS["RENDER_FAILED"] and "line break" in result.json()["error"]["message"]


def test_redirects_are_followed_within_the_allowed_hosts(project: Path, cli: Cli, server: str) -> None:
    same = server + "/echo/after"
    http_tool(project, "hop", url=server + "/redirect", query={"to": "{{ value }}"})
    assert echo(cli, "hop", {"value": same})["path"] == "/echo/after"
    # localhost is the same machine, but not the URL's host: refused, and never asked.
    other = same.replace("127.0.0.1", "localhost")
    result = cli(call.main, "hop", stdin=json.dumps({"value": other}))
    error = result.json()["error"]
    assert result.status == STATUS["EXECUTION_FAILED"] and error["details"]["reason"] == "redirect"
    assert error["details"]["location"] == other and "not an allowed host" in error["message"]
    for scheme in ("file:///etc/passwd", "ftp://127.0.0.1/x"):
        assert (
            cli(call.main, "hop", stdin=json.dumps({"value": scheme})).json()["error"]["details"]["reason"]
            == "redirect"
        )


def test_redirects_are_counted(project: Path, cli: Cli, server: str) -> None:
    http_tool(project, "loop", url=server + "/loop", max_redirects=3)
    result = cli(call.main, "loop")
    assert result.status == STATUS["EXECUTION_FAILED"] and "more than 3 times" in result.json()["error"]["message"]
    http_tool(project, "none", url=server + "/redirect", query={"to": "/echo"}, max_redirects=0)
    result = cli(call.main, "none")
    assert result.status == STATUS["EXECUTION_FAILED"] and result.json()["error"]["details"]["status"] == 302


def test_allowed_hosts_admit_another_host(project: Path, cli: Cli, server: str) -> None:
    other = server.replace("127.0.0.1", "localhost") + "/echo/there"
    http_tool(project, "hop", url=server + "/redirect", query={"to": other}, allowed_hosts=["127.0.0.1", "localhost"])
    assert echo(cli, "hop", {})["path"] == "/echo/there"


@pytest.mark.slow
@pytest.mark.parametrize("path", ["/slow", "/trickle"])
def test_a_slow_server_meets_the_timeout(project: Path, cli: Cli, server: str, path: str) -> None:
    http_tool(project, "slow", url=server + path, timeout=1)
    started = time.monotonic()
    result = cli(call.main, "slow")
    assert result.status == STATUS["TIMEOUT"] and time.monotonic() - started < 3.5
    assert result.json()["error"]["details"]["timeout_seconds"] == 1


def test_a_huge_body_is_cut_with_a_marker(project: Path, cli: Cli, server: str) -> None:
    http_tool(project, "huge", url=server + "/huge", max_output_bytes=1000)
    result = cli(call.main, "huge")
    assert result.status == 0 and result.stdout == "y" * 1000 + "\n[cogtools: response truncated at 1000 bytes]\n"
    http_tool(project, "pick", url=server + "/huge", max_output_bytes=1000, pick="/x")
    assert cli(call.main, "pick").json()["error"]["details"]["reason"] == "too_large"


def test_a_status_outside_2xx_fails_with_the_status_and_the_body(project: Path, cli: Cli, server: str) -> None:
    http_tool(project, "missing", url=server + "/status/404")
    result = cli(call.main, "missing")
    error = result.json()["error"]
    assert result.status == STATUS["EXECUTION_FAILED"]
    assert error["details"]["status"] == 404 and error["details"]["body"] == "not here, sorry"
    assert "answered 404 Not Found: not here, sorry" in error["message"]
    http_tool(project, "broken", url=server + "/status/503")
    assert cli(call.main, "broken").json()["error"]["details"]["status"] == 503


def test_the_result_is_the_body(project: Path, cli: Cli, server: str) -> None:
    http_tool(project, "text", url=server + "/text")
    assert cli(call.main, "text").stdout == "héllo <b>text</b>"  # decoded by its charset, as it came
    http_tool(project, "data", url=server + "/data")
    out = cli(call.main, "data").stdout
    assert out == json.dumps({"items": [{"name": "first", "n": 1}, {"name": "second"}]}, indent=2) + "\n"
    http_tool(project, "empty", url=server + "/empty", empty_result="Nothing.")
    assert cli(call.main, "empty").stdout == "Nothing."


@pytest.mark.parametrize(
    ("pointer", "expected"),
    [
        ("/items/0/name", "first"),
        ("/items/0", '{\n  "name": "first",\n  "n": 1\n}\n'),
        ("/items/0/n", "1\n"),
        ("", None),
    ],
)
def test_pick(project: Path, cli: Cli, server: str, pointer: str, expected: str | None) -> None:
    http_tool(project, "pick", url=server + "/data", pick=pointer)
    out = cli(call.main, "pick").stdout
    assert out == (
        expected
        if expected is not None
        else json.dumps({"items": [{"name": "first", "n": 1}, {"name": "second"}]}, indent=2) + "\n"
    )


def test_pick_of_what_is_not_there(project: Path, cli: Cli, server: str) -> None:
    http_tool(project, "pick", url=server + "/data", pick="/items/5/name")
    assert cli(call.main, "pick").json()["error"]["details"]["reason"] == "pick"
    http_tool(project, "pick_text", url=server + "/text", pick="/a")
    assert cli(call.main, "pick_text").json()["error"]["details"]["reason"] == "pick"


def test_a_closed_port_is_execution_failed(project: Path, cli: Cli) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    http_tool(project, "closed", url=f"http://127.0.0.1:{port}/x")
    result = cli(call.main, "closed")
    assert result.status == STATUS["EXECUTION_FAILED"] and result.json()["error"]["details"]["reason"] == "connection"


def test_a_proxy_from_the_environment(project: Path, cli: Cli, server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The request goes to the proxy named by http_proxy, with the whole URL; no_proxy exempts."""
    http_tool(project, "via", url="http://api.example.invalid/echo/through")
    monkeypatch.setenv("http_proxy", server)
    seen = echo(cli, "via", {})
    assert (
        seen["raw_path"] == "http://api.example.invalid/echo/through"
        and seen["headers"]["host"] == "api.example.invalid"
    )
    monkeypatch.setenv("no_proxy", "example.invalid")
    assert cli(call.main, "via").json()["error"]["details"]["reason"] == "connection"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"url": "ftp://example.com/x"}, "`url` is http:// or https://"),
        ({"url": "https://{{ value }}.example.com/x"}, "`url` is http:// or https://"),
        ({"url": "https://user:pw@example.com/x"}, "no user information"),
        ({"url": "https://example.com/x?a={{ value }}"}, "put the parameter under `query`"),
        ({"url": "https://example.com/x", "method": "FETCH"}, "implementation.method: 'FETCH' is not one of GET, HEAD"),
        ({"url": "https://example.com/x", "json": {}, "form": {}}, "give `json` or `form`"),
        ({"url": "https://example.com/x", "json": {"a": 1}}, "a GET request has no body"),
        ({"url": "https://example.com/x", "allowed_hosts": ["other.com"]}, "not among `allowed_hosts`"),
        ({"url": "https://example.com/x", "allowed_hosts": ["http://x"]}, "`allowed_hosts` lists host names"),
        ({"url": "https://example.com/x", "pick": "items.0"}, "JSON Pointer"),
        ({"url": "https://example.com/x", "headers": {"Bad Name": "x"}}, "is not a header name"),
        ({"url": "https://example.com/{{ valeu }}"}, "did you mean 'value'"),
        (
            {"url": "https://example.com/x", "json": {"a": "{{ nope }}"}, "method": "POST"},
            "'nope', which is not a parameter",
        ),
        (
            {"url": "https://example.com/x", "timeout": 0},
            "implementation.timeout: 0 is less than or equal to the minimum of 0",
        ),
        (
            {"url": "https://example.com/x", "max_redirects": -1},
            "implementation.max_redirects: -1 is less than the minimum of 0",
        ),
        (
            {"url": "https://example.com/x", "max_redirect": 3},
            "unknown key 'max_redirect' (did you mean 'max_redirects'?)",
        ),
    ],
)
def test_a_definition_that_can_never_work_is_refused(
    project: Path, cli: Cli, spec: dict[str, t.Any], message: str
) -> None:
    http_tool(project, "bad", **spec)
    result = cli(call.main, "bad")
    assert result.status == STATUS["DEFINITION_INVALID"] and message in result.json()["error"]["message"], result


def test_dry_run_shows_the_request_and_sends_nothing(project: Path, cli: Cli, server: str) -> None:
    http_tool(
        project,
        "post",
        method="POST",
        url=server + "/status/500/{{ value }}",
        json={"v": "{{ value }}"},
        headers={"X-V": "1"},
    )
    result = cli(call.main, "--dry-run", "post", stdin='{"value": "a/b"}')
    assert result.status == 0
    shown = result.json()
    assert shown["dry_run"] is True and shown["kind"] == "http" and shown["method"] == "POST"
    assert shown["url"] == server + "/status/500/a%2Fb" and shown["json"] == {"v": "a/b"}
    assert (
        shown["headers"]["X-V"] == "1" and shown["allowed_hosts"] == ["127.0.0.1"] and shown["limits"]["timeout"] == 30
    )


def test_through_the_installed_entry_point(project: Path, server: str) -> None:
    http_tool(project, "data", url=server + "/data", pick="/items/1/name")
    result = run_script("cogtools-call", "data", stdin="{}", cwd=project)
    assert result == (0, "second", "")
