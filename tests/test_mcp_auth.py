"""``cogtools mcp --http --auth ISSUER``, a real server process, as an OAuth 2.1 resource server:
tokens of a local issuer run here (its OpenID metadata and JWKS over HTTP, its keys made with
``cryptography``), the MCP SDK's own client sending them, in both eras of the protocol; each
caller shown and let call only what its scopes allow, derived from what the tools declare; and
every bad token a clear 401, the server unaffected. (``cogtools show`` runs in process; every
server test keeps the real ``cogtools mcp --http`` process.)"""

from __future__ import annotations

import base64
import json
import os
import threading
import time
import typing as t
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from .conftest import BIN, Cli, write
from .test_mcp import HttpServer, http_server, over_http, start_http  # noqa: F401 (http_server: a fixture)

mcp = pytest.importorskip("mcp")
jwt = pytest.importorskip("jwt")
from cryptography.hazmat.primitives import serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec, rsa  # noqa: E402
from mcp import Client  # noqa: E402

LOOK = "description: Look around.\nrisk_level: low\nside_effects: [filesystem_read]\nimplementation: looked\n"
NOTE = "description: Write a note.\nrisk_level: medium\nside_effects: [filesystem_write]\nimplementation: noted\n"
ADMIN = "description: Admin only.\nrisk_level: low\nside_effects: []\nmin_role: admin\nimplementation: secret\n"
DEPLOY = "description: Deploy.\nrisk_level: low\nside_effects: []\ncategory: ops\nimplementation: deployed\n"
ECHO = "description: Says nothing of what it does.\nimplementation: echoed\n"


class Issuer:
    """An authorization server's public face, on loopback: its metadata and its key set
    (``mode``: ``ok``, ``hang``, ``garbage``, ``huge`` or ``hostile`` for the key set)."""

    def __init__(self) -> None:
        self.rsa = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.ec = ec.generate_private_key(ec.SECP256R1())
        self.mode = "ok"
        self.fetches = 0
        issuer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: t.Any) -> None:
                pass

            def do_GET(self) -> None:
                if self.path == "/.well-known/openid-configuration":
                    body = json.dumps({"issuer": issuer.url, "jwks_uri": issuer.url + "/jwks"}).encode()
                elif self.path == "/jwks":
                    issuer.fetches += 1
                    if issuer.mode == "hang":
                        time.sleep(30)
                        return
                    hostile = [{"kty": []}, {"kty": "RSA", "n": 5, "e": []}, {"kty": "EC", "crv": {}}, {"kty": "OKP"}]
                    body = {
                        "garbage": b"<html>not json",
                        "huge": b"[" + b"0," * 200_000 + b"0]",
                        "hostile": json.dumps({"keys": hostile}).encode(),
                    }.get(issuer.mode, json.dumps(issuer.jwks()).encode())
                else:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def jwks(self) -> dict[str, t.Any]:
        rsa_jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.rsa.public_key()))
        ec_jwk = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(self.ec.public_key()))
        return {"keys": [{**rsa_jwk, "kid": "rsa1", "use": "sig"}, {**ec_jwk, "kid": "ec1"}]}

    def token(self, scope: str = "tools:read", *, sub: str = "alice", **claims: t.Any) -> str:
        now = int(time.time())
        payload = {"iss": self.url, "sub": sub, "aud": claims.pop("aud", None), "iat": now, "exp": now + 300}
        payload.update(scope=scope, **claims)
        payload = {key: value for key, value in payload.items() if value is not None}
        return str(jwt.encode(payload, self.rsa, algorithm="RS256", headers={"kid": "rsa1"}))

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def issuer() -> t.Iterator[Issuer]:
    found = Issuer()
    yield found
    found.close()


@pytest.fixture
def auth_project(project: Path) -> Path:
    for name, text in (("look", LOOK), ("note", NOTE), ("admin", ADMIN), ("deploy", DEPLOY), ("echo", ECHO)):
        write(project / "tools" / f"{name}.yaml", text)
    return project


@pytest.fixture
def mcp_project(auth_project: Path) -> Path:
    """(The project test_mcp's http_server serves.)"""
    return auth_project


@pytest.fixture
def auth_server(http_server: t.Callable[..., HttpServer], issuer: Issuer) -> t.Callable[..., HttpServer]:  # noqa: F811
    """``cogtools mcp --http --auth ISSUER`` of the project, with the role admin (the most a token gets)."""

    def start(*args: str, env: dict[str, str] | None = None) -> HttpServer:
        return http_server("--auth", issuer.url, *args, env={"COGTOOLS_ROLE": "admin", **(env or {})})

    return start


class Answer(t.NamedTuple):
    status: int
    headers: t.Any
    body: bytes

    def json(self) -> t.Any:
        return json.loads(self.body)


def request(
    url: str, token: str | None = None, message: dict[str, t.Any] | None = None, headers: dict[str, str] | None = None
) -> Answer:
    """A request as a 2026-07-28 client sends it (a POST of ``message``; a GET without one)."""
    sent = {"Accept": "application/json, text/event-stream", **(headers or {})}
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    data = None
    if message is not None:
        data = json.dumps(message).encode()
        sent |= {"Content-Type": "application/json", "Mcp-Protocol-Version": "2026-07-28"}
        sent["Mcp-Method"] = message["method"]
        if message["method"] == "tools/call":
            sent["Mcp-Name"] = message["params"]["name"]
    call = urllib.request.Request(url, data=data, headers=sent, method="POST" if data else "GET")
    try:
        with urllib.request.urlopen(call, timeout=30) as response:
            return Answer(response.status, response.headers, response.read())
    except urllib.error.HTTPError as e:
        return Answer(e.code, e.headers, e.read())


def call_message(name: str, arguments: dict[str, t.Any] | None = None) -> dict[str, t.Any]:
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    params = {"name": name, "arguments": arguments or {}, "_meta": meta}
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}


def list_and_call(*names: str) -> t.Callable[[Client], t.Awaitable[t.Any]]:
    async def body(client: Client) -> t.Any:
        listed = sorted(tool.name for tool in (await client.list_tools()).tools)
        results = []
        for name in names:
            try:
                result = await client.call_tool(name, {})
                results.append(result.content[0].text if not result.is_error else "error")  # type: ignore[union-attr]
            except Exception as e:  # noqa: BLE001 - what the client makes of a refusal
                results.append(type(e).__name__)
        return listed, results

    return body


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["auto", "legacy", "stateless"])
def test_a_caller_with_tools_read_sees_and_calls_only_what_changes_nothing(
    auth_server: t.Callable[..., HttpServer], issuer: Issuer, mode: str
) -> None:
    """Both eras of the protocol (2026-07-28's requests, the 2025 handshake), and replicas' stateless mode."""
    server = auth_server("--stateless") if mode == "stateless" else auth_server()
    mode = "auto" if mode == "stateless" else mode
    reader = issuer.token("tools:read", aud=server.url)
    listed, results = over_http(server.url, list_and_call("look", "note"), token=reader, mode=mode)
    assert listed == ["deploy", "look"]  # (what changes nothing and reaches no network)
    assert results[0] == "looked" and results[1] != "noted"
    # a writer: what changes things too, not what may do anything, nor what its role lacks
    writer = issuer.token("tools:write", aud=server.url)
    listed, results = over_http(server.url, list_and_call("note", "echo"), token=writer, mode=mode)
    assert listed == ["deploy", "look", "note"] and results[0] == "noted" and results[1] != "echoed"
    # an admin with every scope: every tool
    admin = issuer.token("tools:destructive role:admin", aud=server.url)
    listed, results = over_http(server.url, list_and_call("admin", "echo"), token=admin, mode=mode)
    assert listed == ["admin", "deploy", "echo", "look", "note"] and results == ["secret", "echoed"]
    # one tool by name
    one = issuer.token("tool:echo", aud=server.url)
    assert over_http(server.url, list_and_call("echo"), token=one, mode=mode) == (["echo"], ["echoed"])
    status, stderr = server.stop()
    assert status == 128 + 15 and "Traceback" not in stderr


@pytest.mark.slow
def test_a_call_beyond_the_scopes_is_403_with_the_scope_to_step_up_to(
    auth_server: t.Callable[..., HttpServer], issuer: Issuer
) -> None:
    server = auth_server()
    reader = issuer.token("tools:read", aud=server.url)
    answer = request(server.url, reader, call_message("note"))
    assert answer.status == 403
    challenge = answer.headers["WWW-Authenticate"]
    assert challenge.startswith('Bearer error="insufficient_scope", scope="tools:write"')
    assert "resource_metadata=" in challenge
    assert request(server.url, reader, call_message("admin")).headers["WWW-Authenticate"].count("role:admin") == 1
    assert request(server.url, reader, call_message("look")).json()["result"]["content"][0]["text"] == "looked"
    # a listing is the caller's own: no cache may share it
    listing = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/list",
        "params": {"_meta": call_message("x")["params"]["_meta"]},
    }
    listed = request(server.url, reader, listing).json()["result"]
    assert [tool["name"] for tool in listed["tools"]] == ["deploy", "look"]
    assert listed.get("cacheScope", "private") == "private"
    # a call larger than the HTTP layer reads (64 KiB) is refused by the SDK's middleware: a
    # POLICY_DENIED result
    answer = request(server.url, reader, call_message("note", {"pad": "x" * 70_000}))
    result = answer.json()["result"]
    assert answer.status == 200 and result["isError"] is True
    assert result["structuredContent"]["error"]["code"] == "POLICY_DENIED"
    assert result["structuredContent"]["error"]["details"] == {"reason": "insufficient_scope", "scope": "tools:write"}


@pytest.mark.slow
def test_the_meta_tool_is_no_way_around_the_scopes(
    auth_project: Path, auth_server: t.Callable[..., HttpServer], issuer: Issuer
) -> None:
    write(auth_project / ".cogtoolrc.yaml", "discovery_mode: true\n")
    server = auth_server()
    reader = issuer.token("tools:read", aud=server.url)
    answer = request(server.url, reader, call_message("cogtools_call", {"name": "note", "arguments": {}}))
    assert answer.status == 403 and 'scope="tools:write"' in answer.headers["WWW-Authenticate"]
    answer = request(server.url, reader, call_message("cogtools_call", {"name": "look", "arguments": {}}))
    assert answer.status == 200 and "looked" in answer.body.decode()
    # the search finds every tool the server shows: only a caller who may call them all may search
    assert over_http(server.url, list_and_call(), token=reader)[0] == ["cogtools_call", "deploy", "look"]
    answer = request(server.url, reader, call_message("cogtools_search", {"query": "note"}))
    assert answer.status == 403 and "tools:destructive" in answer.headers["WWW-Authenticate"]
    admin = issuer.token("tools:destructive role:admin", aud=server.url)
    answer = request(server.url, admin, call_message("cogtools_search", {"query": "note"}))
    assert answer.status == 200 and '"note"' in answer.body.decode().replace("\\", "")


@pytest.mark.slow
def test_the_resource_metadata_and_the_401s(auth_server: t.Callable[..., HttpServer], issuer: Issuer) -> None:
    server = auth_server()
    base = server.url.removesuffix("/mcp")
    for path in ("/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"):
        answer = request(base + path)
        assert answer.status == 200
        document = answer.json()
        assert document["resource"] == server.url and document["authorization_servers"] == [issuer.url]
        assert "tools:read" in document["scopes_supported"]
    answer = request(server.url, None, {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})
    assert answer.status == 401
    assert answer.headers["WWW-Authenticate"] == (
        f'Bearer resource_metadata="{base}/.well-known/oauth-protected-resource/mcp"'
    )
    # what the SDK's own OAuth client makes of them
    import httpx2
    from mcp.client.auth.utils import extract_resource_metadata_from_www_auth, extract_scope_from_www_auth
    from mcp.shared.auth import ProtectedResourceMetadata

    told = httpx2.Response(401, headers={"WWW-Authenticate": answer.headers["WWW-Authenticate"]})
    assert extract_resource_metadata_from_www_auth(told) == f"{base}/.well-known/oauth-protected-resource/mcp"
    metadata = ProtectedResourceMetadata.model_validate(request(base + "/.well-known/oauth-protected-resource").json())
    assert str(metadata.resource) == server.url
    assert [str(url).rstrip("/") for url in metadata.authorization_servers] == [issuer.url]
    refused = request(server.url, issuer.token("tools:read", aud=server.url), call_message("note"))
    step_up = httpx2.Response(403, headers={"WWW-Authenticate": refused.headers["WWW-Authenticate"]})
    assert extract_scope_from_www_auth(step_up) == "tools:write"


def _forged_none(payload: dict[str, t.Any], header: dict[str, t.Any] | None = None) -> str:
    def part(value: dict[str, t.Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    return f"{part(header or {'alg': 'none', 'typ': 'JWT'})}.{part(payload)}."


@pytest.mark.slow
def test_bad_tokens_are_each_a_clear_401_and_the_server_goes_on(
    auth_server: t.Callable[..., HttpServer], issuer: Issuer
) -> None:
    server = auth_server()
    url, now = server.url, int(time.time())
    good = {"iss": issuer.url, "sub": "mallory", "aud": url, "exp": now + 300, "scope": "tools:destructive"}
    public_pem = issuer.rsa.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)

    def hs256_with_the_public_key() -> str:
        # what a library that takes the key's bytes as an HMAC secret would accept
        import hashlib
        import hmac

        def part(value: dict[str, t.Any]) -> bytes:
            return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=")

        signing = part({"alg": "HS256", "kid": "rsa1"}) + b"." + part(good)
        mac = hmac.new(public_pem, signing, hashlib.sha256).digest()
        return (signing + b"." + base64.urlsafe_b64encode(mac).rstrip(b"=")).decode()

    def signed(claims: dict[str, t.Any], key: t.Any = issuer.rsa, kid: str = "rsa1") -> str:
        return str(jwt.encode(claims, key, "RS256", headers={"kid": kid}))

    deep = ('{"alg": ' + "[" * 2500 + "]" * 2500 + "}").encode()
    nested = base64.urlsafe_b64encode(deep).rstrip(b"=").decode() + "." + _forged_none(good).split(".")[1] + "."
    cases = {
        "expired": (signed({**good, "exp": now - 600}), "expired"),
        "not yet valid": (signed({**good, "nbf": now + 600}), "not valid yet"),
        "issued in the future": (signed({**good, "iat": now + 600}), "not valid yet"),
        "wrong audience": (signed({**good, "aud": "http://127.0.0.1:1/mcp"}), "not for this server"),
        "wrong issuer": (signed({**good, "iss": "https://evil.example"}), "not issued by"),
        "alg none": (_forged_none(good), "'none' is not accepted"),
        "HS256 with the public key": (hs256_with_the_public_key(), "'HS256' is not accepted"),
        "unknown kid": (signed(good, other, "rotated-away"), "is not one of the issuer's"),
        "another key, a known kid": (signed(good, other), "signature does not verify"),
        "EC key, RSA algorithm": (signed(good, issuer.rsa, "ec1"), "is not its key's"),
        "no sub": (signed({k: v for k, v in good.items() if k != "sub"}), "no sub claim"),
        "malformed": ("not-a-jwt", "not a JWT"),
        "three dots of garbage": ("a.b.c", "not a JWT"),
        "huge": ("x" * 12_000, "over 8192 bytes"),
        "a kid that would end the header": (signed(good, other, "k\r\nX-Injected: 1"), "is not one of the issuer's"),
        "an algorithm of 4 KiB": (_forged_none(good, {"alg": "x\r\n" * 1000}), "is not accepted"),
        "a header nested 2,500 deep": (nested, "not a JWT"),
    }
    # within the leeway (30 s) a token just expired, or about to be valid, is taken
    for claims in ({**good, "exp": now - 10}, {**good, "nbf": now + 10}):
        assert request(url, signed(claims), call_message("look")).status == 200
    for case, (token, said) in cases.items():
        answer = request(url, token, call_message("look"))
        assert answer.status == 401, case
        assert said in answer.json()["error_description"], (case, answer.body)
        assert answer.headers["WWW-Authenticate"].startswith('Bearer error="'), case
        assert "X-Injected" not in answer.headers and len(answer.headers["WWW-Authenticate"]) < 1000, case
    # a head past the server's bound is refused by the HTTP layer itself
    assert request(url, "y" * 20_000, call_message("look")).status in (400, 431)
    # not a bearer token
    assert request(url, None, call_message("look"), {"Authorization": "Basic YTpi"}).status == 401
    # and the server goes on
    assert request(url, signed(good), call_message("look")).json()["result"]["content"][0]["text"] == "looked"
    assert server.proc.poll() is None


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["hang", "garbage", "huge", "hostile"])
def test_a_key_set_that_hangs_or_is_garbage_is_a_401_in_time_and_stalls_nothing(
    auth_server: t.Callable[..., HttpServer], issuer: Issuer, mode: str
) -> None:
    issuer.mode = mode
    server = auth_server()
    token = issuer.token(aud=server.url)
    answers: list[Answer] = []
    waiting = threading.Thread(target=lambda: answers.append(request(server.url, token, call_message("look"))))
    waiting.start()
    while issuer.fetches == 0:
        time.sleep(0.02)
    # while that request waits on the key set, the server answers others
    metadata = request(server.url.removesuffix("/mcp") + "/.well-known/oauth-protected-resource")
    assert metadata.status == 200
    assert request(server.url, None, call_message("look")).status == 401
    if mode == "hang":
        assert waiting.is_alive()  # (still waiting: the others did not wait behind it)
    waiting.join(timeout=30)
    assert answers and answers[0].status == 401
    assert "the issuer" in answers[0].json()["error_description"]
    assert server.proc.poll() is None


@pytest.mark.slow
def test_a_session_belongs_to_the_subject_that_opened_it(
    auth_server: t.Callable[..., HttpServer], issuer: Issuer
) -> None:
    server = auth_server()
    alice, bob = issuer.token(sub="alice", aud=server.url), issuer.token(sub="bob", aud=server.url)
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
    }
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    opened = urllib.request.urlopen(
        urllib.request.Request(
            server.url, json.dumps(initialize).encode(), {**headers, "Authorization": f"Bearer {alice}"}
        ),
        timeout=30,
    )
    session = opened.headers["mcp-session-id"]
    opened.read()
    assert session
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    session_headers = {"mcp-session-id": session, "mcp-protocol-version": "2025-06-18"}

    def post(token: str) -> int:
        sent = urllib.request.Request(
            server.url, json.dumps(listing).encode(), {**headers, **session_headers, "Authorization": f"Bearer {token}"}
        )
        try:
            with urllib.request.urlopen(sent, timeout=30) as answer:
                answer.read()
                return int(answer.status)
        except urllib.error.HTTPError as e:
            return int(e.code)

    assert post(bob) == 404
    assert post(alice) == 200


@pytest.mark.slow
def test_the_user_configuration_sets_the_issuer_categories_and_roles(
    auth_project: Path, issuer: Issuer, isolated: Path
) -> None:
    home = Path(os.environ["XDG_CONFIG_HOME"]) / "cogtools" / "config.yaml"
    write(
        home,
        f"auth:\n  issuer: {issuer.url}\n  categories: {{ops: 'ops:run'}}\n"
        "  roles: {admin: [team-admins]}\n  claim: groups\npolicy:\n  role: admin\n",
    )
    # a project's file cannot set it
    write(auth_project / ".cogtoolrc.yaml", "auth:\n  issuer: https://evil.example\n")
    server = start_http(auth_project, "--auth", issuer.url)
    try:
        plain = issuer.token("tools:read", aud=server.url)
        assert over_http(server.url, list_and_call(), token=plain)[0] == ["look"]  # (deploy needs ops:run)
        ops = issuer.token("tools:read ops:run", aud=server.url, groups=["team-admins"])
        assert over_http(server.url, list_and_call("deploy"), token=ops) == (["admin", "deploy", "look"], ["deployed"])
    finally:
        server.stop()


@pytest.mark.slow
def test_without_an_issuer_or_with_a_token_file_too_it_is_a_usage_error(auth_project: Path, tmp_path: Path) -> None:
    import subprocess

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(BIN / "cogtools"), "mcp", *args], cwd=auth_project, capture_output=True, text=True, timeout=60
        )

    assert run("--auth", "https://idp.example").returncode == 2  # (no --http)
    token = write(tmp_path / "token", "s3cret\n")
    both = run("--http", "0", "--auth", "https://idp.example", "--token-file", str(token))
    assert both.returncode == 2
    plain_http = run("--http", "127.0.0.1:1", "--auth", "http://idp.example")
    assert plain_http.returncode == 2 and "https" in plain_http.stderr
    every = run("--http", "0.0.0.0:1", "--auth", "https://idp.example")
    assert every.returncode == 2 and "--resource" in every.stderr


def test_show_says_which_scopes_a_tool_needs(auth_project: Path, cli: Cli) -> None:
    """(``cogtools show`` in process: the servers here are the real processes)"""
    from cogtools.cli import porcelain

    def scopes(name: str) -> str:
        shown = cli(porcelain.main, "show", name)
        line = next(line for line in shown.stdout.splitlines() if line.startswith("scopes:"))
        return line.split(":", 1)[1].strip()

    assert scopes("look").startswith("tools:read (or tool:look)")
    assert scopes("note").startswith("tools:write (or tool:note)")
    assert scopes("echo").startswith("tools:destructive (or tool:echo)")
    assert "role:admin" in scopes("admin")


def test_keys_are_fetched_again_for_a_new_kid_at_most_every_few_seconds(
    issuer: Issuer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rotation: the issuer publishes a new key; a token of it is taken once the key set may be
    fetched again (REFETCH_SECONDS after the last fetch), and tokens naming keys nobody has
    cannot make the server fetch more often than that."""
    import anyio

    from cogtools.mcp import auth

    keys = auth.Keys(issuer.url)

    async def lookup(kid: str) -> str:
        try:
            return str((await keys.key(kid)).jwk.key_id)
        except auth.AuthFailure as e:
            return e.description

    assert anyio.run(lookup, "rsa1") == "rsa1" and issuer.fetches == 1
    rotated = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    published = issuer.jwks()
    published["keys"].append({**json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(rotated.public_key())), "kid": "rsa2"})
    monkeypatch.setattr(issuer, "jwks", lambda: published)
    for _ in range(5):
        assert "is not one of the issuer's" in anyio.run(lookup, "rsa2")
    assert issuer.fetches == 1
    monkeypatch.setattr(keys, "_fetched", keys._fetched - auth.REFETCH_SECONDS)
    assert anyio.run(lookup, "rsa2") == "rsa2" and issuer.fetches == 2
    assert anyio.run(lookup, "rsa1") == "rsa1" and issuer.fetches == 2


def test_rights_derived_from_the_declarations() -> None:
    from cogtools.core.model import Implementation, Metadata, Origin, Tool
    from cogtools.trust.policy import Rights, scopes_needed

    def tool(name: str, **metadata: t.Any) -> Tool:
        return Tool(
            name=name,
            description="x",
            implementation=Implementation("template", {"template": "x"}),
            origin=Origin("tools/x.yaml", "yaml"),
            metadata=Metadata(**metadata),
        )

    look = tool("look", risk_level="low", side_effects=("filesystem_read",))
    note = tool("note", risk_level="medium", side_effects=("filesystem_write",))
    wipe = tool("wipe", risk_level="high", side_effects=("filesystem_write",))
    ops = tool("ops", risk_level="low", side_effects=(), category="Ops", min_role="human_agent")
    assert scopes_needed(look) == ("tools:read",) and scopes_needed(note) == ("tools:write",)
    assert scopes_needed(wipe) == ("tools:destructive",) and scopes_needed(tool("bare")) == ("tools:destructive",)
    assert scopes_needed(ops, {"ops": "ops:run"}) == ("tools:read", "ops:run")
    reader = Rights.of(["tools:read"], "admin")
    assert reader.missing(look) == () and reader.missing(note) == ("tools:write",)
    assert reader.missing(ops, {"ops": "ops:run"}) == ("role:human_agent", "ops:run")
    assert Rights.of(["tools:destructive"], "admin").missing(note) == ()
    assert Rights.of(["tool:wipe"], "admin").missing(wipe) == ()
    # a token's role is never above the server's
    assert Rights.of(["role:admin"], "human_agent").role == "human_agent"
    assert Rights.of(["team-admins"], "admin", {"admin": ["team-admins"]}).role == "admin"


@pytest.mark.slow
def test_what_the_servers_policy_hides_no_token_reaches_nor_tells_apart(
    auth_server: t.Callable[..., HttpServer], issuer: Issuer
) -> None:
    """A server of the role ai_agent hides admin's tool from everyone: an admin's token does not
    list it, and a call of it is the same error for every caller, as for a name no tool has."""
    server = auth_server(env={"COGTOOLS_ROLE": "ai_agent"})
    admin = issuer.token("tools:destructive role:admin", aud=server.url)
    reader = issuer.token("tools:read", aud=server.url)
    assert "admin" not in over_http(server.url, list_and_call(), token=admin)[0]
    answers = [request(server.url, token, call_message(name)) for token in (admin, reader) for name in ("admin", "nil")]
    assert {answer.status for answer in answers} == {400}  # (the SDK's for -32602; no 403 telling the tool exists)
    errors = [answer.json()["error"] for answer in answers]
    assert all(error["code"] == -32602 for error in errors)
    assert all(error["data"]["error"]["code"] == "TOOL_NOT_FOUND" for error in errors)


@pytest.mark.slow
def test_the_benchmark_runs(tmp_path: Path) -> None:
    """benchmarks/mcp_auth.py, small, as a smoke test: the figures are for people."""
    import subprocess
    import sys

    from .conftest import REPO

    figures = tmp_path / "figures.json"
    done = subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "mcp_auth.py"),
            "--calls",
            "20",
            "--rounds",
            "1",
            "--clients",
            "2",
            "--client-calls",
            "2",
            "--json",
            str(figures),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    found = json.loads(figures.read_text())
    assert set(found["medians"]["auth"]) == {"call", "list", "fresh"}
    # against FastMCP with its JWT verifier where this interpreter has fastmcp, else said to be skipped
    if found["fastmcp"].get("skipped"):
        assert "FastMCP skipped:" in done.stdout
    else:
        assert found["fastmcp"]["ratio"] is not None
