"""What authorization costs ``cogtools mcp --http`` per call: the server's CPU time per call
with ``--auth`` (an OAuth access token checked, the caller's rights applied) against without.

In a temporary project with a template tool (``greet``) and three others of other scopes, a
local issuer on loopback (OpenID metadata and a JWKS of an RSA key made here with
``cryptography``) signs an RS256 token with ``tools:read``. Each round starts ``cogtools mcp
--http`` twice, without and with ``--auth`` (the order alternating from round to round), warms
it up (WARMUP calls, not counted), then makes CALLS sequential requests on one keep-alive
connection, and reads the server's CPU time (utime + stime of /proc/PID/stat) before and after:

- ``call``: a 2026-07-28 ``tools/call`` of ``greet`` (answered in front of the SDK, with auth:
  token from the verifier's cache, the body read and checked against the caller's rights);
- ``list``: a 2026-07-28 ``tools/list`` (through the SDK, with auth: the listing cut to the
  caller's rights by the middleware, from its cache);
- ``fresh``: a ``tools/call`` with a token never seen before (a signature checked each time:
  the cost of a cache miss).

It prints the median over ROUNDS of each figure, in ms of server CPU per request, and the
difference auth - plain (goal: < 1 ms per call); the exit status is 1 when a request failed.

    python benchmarks/mcp_auth.py [--calls 2000] [--rounds 3] [--json FILE]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import typing as t
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa

TOOLS = {
    "greet": "description: Greet.\nrisk_level: low\nside_effects: []\nparameters:\n  who: {type: string}\n"
    "implementation: 'Hello, {{ who }}!'\n",
    "note": "description: Note.\nrisk_level: medium\nside_effects: [filesystem_write]\nimplementation: noted\n",
    "fetch": "description: Fetch.\nrisk_level: low\nside_effects: [network]\nimplementation: fetched\n",
    "wipe": "description: Wipe.\nimplementation: wiped\n",
}
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def start_issuer() -> tuple[str, t.Any, ThreadingHTTPServer]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public = {**json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key())), "kid": "k1", "use": "sig"}
    documents: dict[str, bytes] = {}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: t.Any) -> None:
            pass

        def do_GET(self) -> None:
            body = documents.get(self.path)
            if body is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    documents["/.well-known/openid-configuration"] = json.dumps({"issuer": url, "jwks_uri": url + "/jwks"}).encode()
    documents["/jwks"] = json.dumps({"keys": [public]}).encode()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return url, key, server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Server(t.NamedTuple):
    proc: subprocess.Popen[bytes]
    port: int


def serve(root: Path, *args: str) -> Server:
    port = free_port()
    cogtools = Path(sys.executable).parent / "cogtools"
    proc = subprocess.Popen(
        [str(cogtools), "mcp", "--http", f"127.0.0.1:{port}", *args],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    end = time.monotonic() + 30
    while time.monotonic() < end:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return Server(proc, port)
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("the server did not start")


def message(method: str, params: dict[str, t.Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": META}}).encode()


CALL = message("tools/call", {"name": "greet", "arguments": {"who": "bench"}})
LIST = message("tools/list", {})


def send(connection: http.client.HTTPConnection, body: bytes, method: str, token: str | None) -> bool:
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "Mcp-Protocol-Version": "2026-07-28",
        "Mcp-Method": method,
    }
    if method == "tools/call":
        headers["Mcp-Name"] = "greet"
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    connection.request("POST", "/mcp", body, headers)
    response = connection.getresponse()
    answer = response.read()
    return response.status == 200 and b'"error"' not in answer[:200] and b'"isError":true' not in answer


def measure(server: Server, calls: int, tokens: t.Callable[[], str | None]) -> dict[str, float]:
    """The server's CPU ms per request of each kind; -1 when a request failed."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    figures: dict[str, float] = {}
    token = tokens()
    kinds: list[tuple[str, bytes, str, t.Callable[[], str | None]]] = [
        ("call", CALL, "tools/call", lambda: token),
        ("list", LIST, "tools/list", lambda: token),
    ]
    if token is not None:
        kinds.append(("fresh", CALL, "tools/call", tokens))
    for kind, body, method, token_of in kinds:
        for _ in range(50):
            send(connection, body, method, token)
        made = [token_of() for _ in range(calls)] if kind == "fresh" else [token] * calls
        before = cpu_seconds(server.proc.pid)
        ok = all([send(connection, body, method, made[n]) for n in range(calls)])
        figures[kind] = (cpu_seconds(server.proc.pid) - before) * 1000 / calls if ok else -1.0
    connection.close()
    return figures


def stop(server: Server) -> None:
    server.proc.terminate()
    try:
        server.proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.proc.kill()
        server.proc.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", type=Path)
    options = parser.parse_args()
    issuer, key, issuer_server = start_issuer()
    results: dict[str, list[dict[str, float]]] = {"plain": [], "auth": []}
    with tempfile.TemporaryDirectory(prefix="cogtools-auth-bench-") as workdir:
        root = Path(workdir)
        (root / ".cogtoolrc.yaml").write_text("# benchmark\n")
        (root / "tools").mkdir()
        for name, text in TOOLS.items():
            (root / "tools" / f"{name}.yaml").write_text(text)
        for number in range(options.rounds):
            order = ("plain", "auth") if number % 2 == 0 else ("auth", "plain")
            for variant in order:
                server = serve(root, *(("--auth", issuer) if variant == "auth" else ()))
                resource = f"http://127.0.0.1:{server.port}/mcp"
                counter = iter(range(10**9))

                def token(resource: str = resource, counter: t.Iterator[int] = counter) -> str:
                    now = int(time.time())
                    claims = {"iss": issuer, "sub": f"u{next(counter)}", "aud": resource, "exp": now + 600}
                    return jwt.encode({**claims, "scope": "tools:read"}, key, "RS256", headers={"kid": "k1"})

                try:
                    results[variant].append(
                        measure(server, options.calls, token if variant == "auth" else lambda: None)
                    )
                finally:
                    stop(server)
    issuer_server.shutdown()
    medians = {
        variant: {kind: statistics.median(r[kind] for r in rounds) for kind in rounds[0]}
        for variant, rounds in results.items()
    }
    failed = any(value < 0 for rounds in results.values() for r in rounds for value in r.values())
    print(f"server CPU per request, ms (median of {options.rounds} rounds of {options.calls}):")
    for kind in ("call", "list"):
        plain, auth = medians["plain"][kind], medians["auth"][kind]
        print(f"  {kind:<6} plain {plain:.3f}  auth {auth:.3f}  overhead {auth - plain:+.3f}")
    fresh = medians["auth"]["fresh"]
    print(f"  fresh  auth {fresh:.3f} (a new token each call: overhead {fresh - medians['plain']['call']:+.3f})")
    overhead = medians["auth"]["call"] - medians["plain"]["call"]
    print(f"goal: authorization < 1 ms of server CPU per call: {'PASS' if overhead < 1 else 'FAIL'}")
    if options.json:
        options.json.write_text(json.dumps({"medians": medians, "rounds": results}, indent=2))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
