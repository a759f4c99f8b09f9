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

Against FastMCP, with an interpreter that has fastmcp (``--fastmcp-python``; by default this one if
it can import fastmcp, else these rows are skipped, and said to be): each round then also starts,
one at a time and in an order reversed from round to round, cogtools and FastMCP
(benchmarks/fastmcp_server.py, ``greet`` returning ``f"Hello, {who}!"``), each without and with
auth (cogtools ``--auth ISSUER``; FastMCP its own ``JWTVerifier(jwks_uri=..., issuer=...,
audience=...)`` of the same issuer, audience its resource URL), and loads each as
benchmarks/mcp_load.py does: CLIENTS clients of the official SDK (streamable HTTP, its default
mode: discovery, else the 2025 handshake; the token in an ``Authorization`` header of the
client's HTTP client), spread over CLIENT_PROCESSES processes, making CLIENT_CALLS template calls
each. It prints the medians of calls/s and of the server's CPU per call, each server's auth
overhead, and the ratio cogtools/FastMCP of calls/s with auth on both (target >= 1.5).

    python benchmarks/mcp_auth.py [--calls 2000] [--rounds 3] [--clients 20] [--client-calls 100]
        [--client-processes 2] [--fastmcp-python PATH] [--json FILE]
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mcp_load  # noqa: E402  (benchmarks/mcp_load.py: its servers, clients' processes and figures)

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


async def load_with_token(url: str, clients: t.Sequence[int], calls: int, token: str | None) -> tuple[list[float], int]:
    """The clients numbered ``clients`` making CALLS template calls each, with ``token`` as a
    bearer token: the latencies and the failures."""
    import anyio
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    latencies: list[float] = []
    failures = 0

    async def one_client(index: int) -> None:
        nonlocal failures
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            for n in range(calls):
                started = time.perf_counter()
                result = await client.call_tool("greet", {"who": f"c{index}-{n}"})
                latencies.append(time.perf_counter() - started)
                text = result.content[0].text if result.content else ""  # type: ignore[union-attr]
                if result.is_error or f"Hello, c{index}-{n}!" not in text:
                    failures += 1

    with anyio.fail_after(mcp_load.PHASE_TIMEOUT):
        async with anyio.create_task_group() as group:
            for index in clients:
                group.start_soon(one_client, index)
    return latencies, failures


def load_share(
    url: str, clients: list[int], calls: int, token: str | None, start_at: float
) -> tuple[list[float], int, float, float, float]:
    """One client process's share of a phase (as mcp_load.load_share): latencies, failures, its
    start and end, and its CPU time."""
    import anyio

    time.sleep(max(0.0, start_at - time.monotonic()))
    cpu, began = mcp_load.own_cpu(), time.monotonic()
    latencies, failures = anyio.run(load_with_token, url, clients, calls, token)
    return latencies, failures, began, time.monotonic(), mcp_load.own_cpu() - cpu


def phase(server: mcp_load.Server, clients: int, calls: int, token: str | None, pool: t.Any) -> dict[str, t.Any]:
    """CLIENTS clients of CALLS calls each, spread over the processes of ``pool``, all starting at
    once: mcp_load's figures, with the server's CPU per call."""
    processes = pool._processes  # (multiprocessing's count of its workers)
    shares = [list(range(clients))[n::processes] for n in range(processes)]
    before = cpu_seconds(server.process.pid)
    start_at = time.monotonic() + 0.5
    try:
        jobs = [pool.apply_async(load_share, (server.url, share, calls, token, start_at)) for share in shares if share]
        done = [job.get(mcp_load.PHASE_TIMEOUT) for job in jobs]
    except Exception as e:  # a client that could not connect, or the phase's time-out
        print(f"failed: {server.name} at {server.url}: {type(e).__name__}: {e}", file=sys.stderr)
        return {**mcp_load.figures_of([], 0, 0.0), "failed": clients * calls, "server_cpu_ms": None}
    after = cpu_seconds(server.process.pid)
    latencies = [latency for share in done for latency in share[0]]
    elapsed = max(share[3] for share in done) - min(share[2] for share in done)
    figures = mcp_load.figures_of(latencies, sum(share[1] for share in done), elapsed, sum(s[4] for s in done))
    figures["server_cpu_ms"] = round((after - before) / max(len(latencies), 1) * 1000, 3)
    return figures


#: the servers the comparison starts, in the order of an even round
COMPARED = ("cogtools plain", "cogtools auth", "fastmcp plain", "fastmcp auth")


def compare(
    options: argparse.Namespace, python: str, root: Path, issuer: str, mint: t.Callable[[str], str]
) -> dict[str, t.Any]:
    """cogtools and FastMCP, each without and with auth, under the same load: the figures of
    each round, their medians, the ratios; ``failed`` when a call failed."""
    import multiprocessing

    processes = min(options.client_processes, options.clients)
    pool = multiprocessing.get_context("spawn").Pool(processes, initializer=mcp_load.warm_worker)
    rounds: dict[str, list[dict[str, t.Any]]] = {name: [] for name in COMPARED}
    failed = False
    try:
        for number in range(options.rounds):
            for name in COMPARED if number % 2 == 0 else COMPARED[::-1]:
                port = free_port()
                resource = f"http://127.0.0.1:{port}/mcp"
                if name.startswith("cogtools"):
                    argv = [sys.executable, "-m", "cogtools", "mcp", "--http", f"127.0.0.1:{port}"]
                    argv += ["--auth", issuer] if name.endswith("auth") else []
                else:
                    argv = [python, str(Path(__file__).resolve().parent / "fastmcp_server.py"), "--port", str(port)]
                    argv += ["--marker", "cogtools-auth-bench"]
                    if name.endswith("auth"):
                        argv += ["--jwks-uri", issuer + "/jwks", "--issuer", issuer, "--audience", resource]
                env = {**os.environ, "FASTMCP_CHECK_FOR_UPDATES": "off"}
                server = mcp_load.Server(name, argv, port, root, env)
                token = mint(resource) if name.endswith("auth") else None
                try:
                    if server.wait_listening(60) is None:
                        print(f"{name}: did not start", file=sys.stderr)
                        failed = True
                        continue
                    phase(server, processes, 2, token, pool)  # the warm-up, not counted
                    figures = phase(server, options.clients, options.client_calls, token, pool)
                finally:
                    server.stop()
                if figures["failed"] or figures["calls"] != options.clients * options.client_calls:
                    server.clean(None)
                    failed = True
                rounds[name].append(figures)
                print(
                    f"round {number + 1} {name}: {figures['calls_per_second']} calls/s,"
                    f" server {figures['server_cpu_ms']} ms CPU a call, {figures['failed']} failed",
                    flush=True,
                )
    finally:
        pool.terminate()
    medians = {
        name: {
            key: statistics.median(values) if (values := [r[key] for r in done if r[key] is not None]) else None
            for key in ("calls_per_second", "server_cpu_ms", "p50_ms", "p99_ms")
        }
        for name, done in rounds.items()
    }
    ratio = mcp_load.ratio(medians["cogtools auth"]["calls_per_second"], medians["fastmcp auth"]["calls_per_second"])
    by_round = [
        mcp_load.ratio(a["calls_per_second"], b["calls_per_second"])
        for a, b in zip(rounds["cogtools auth"], rounds["fastmcp auth"], strict=False)
    ]
    return {"rounds": rounds, "medians": medians, "ratio": ratio, "ratio_by_round": by_round, "failed": failed}


def report_comparison(found: dict[str, t.Any], options: argparse.Namespace) -> None:
    medians = found["medians"]
    print(
        f"against FastMCP with its JWTVerifier (median of {options.rounds} rounds, {options.clients} clients"
        f" x {options.client_calls} template calls, the clients in {options.client_processes} processes):"
    )
    for name in COMPARED:
        m = medians[name]
        print(
            f"  {name:<15} {mcp_load.fmt(m['calls_per_second']):>8} calls/s  p99 {mcp_load.fmt(m['p99_ms'])} ms"
            f"  server CPU {mcp_load.fmt(m['server_cpu_ms'])} ms a call"
        )
    for server in ("cogtools", "fastmcp"):
        plain, auth = medians[f"{server} plain"]["server_cpu_ms"], medians[f"{server} auth"]["server_cpu_ms"]
        if plain is not None and auth is not None:
            print(f"  {server} auth overhead: {auth - plain:+.3f} ms of server CPU a call")
    ratio = found["ratio"]
    verdict = "PASS" if ratio is not None and ratio >= 1.5 else "FAIL"
    by_round = ", ".join(mcp_load.fmt(r, "x") for r in found["ratio_by_round"])
    print(f"calls/s with auth on both, cogtools/FastMCP: {mcp_load.fmt(ratio, 'x')} (by round: {by_round});")
    print(f"  target >= 1.5x: {verdict}")


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
    parser.add_argument("--clients", type=int, default=20, help="concurrent clients against FastMCP")
    parser.add_argument("--client-calls", type=int, default=100, help="template calls per client against FastMCP")
    parser.add_argument("--client-processes", type=int, default=2, help="processes the clients are spread over")
    parser.add_argument(
        "--fastmcp-python", help="an interpreter that can import fastmcp (default: this one, if it can)"
    )
    parser.add_argument("--json", type=Path)
    options = parser.parse_args()
    if min(options.calls, options.rounds, options.clients, options.client_calls, options.client_processes) < 1:
        parser.error("--calls, --rounds, --clients, --client-calls and --client-processes must be at least 1")
    fastmcp_python, why_not = mcp_load.fastmcp_interpreter(options.fastmcp_python)
    issuer, key, issuer_server = start_issuer()
    comparison: dict[str, t.Any] = {"skipped": why_not}
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

        def mint(resource: str) -> str:
            claims = {"iss": issuer, "sub": "bench", "aud": resource, "exp": int(time.time()) + 3600}
            return jwt.encode({**claims, "scope": "tools:read"}, key, "RS256", headers={"kid": "k1"})

        if fastmcp_python is not None:
            comparison = compare(options, fastmcp_python, root, issuer, mint)
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
    if fastmcp_python is None:
        print(f"FastMCP skipped: {why_not}")
    else:
        report_comparison(comparison, options)
        failed = failed or comparison["failed"]
    if options.json:
        options.json.write_text(json.dumps({"medians": medians, "rounds": results, "fastmcp": comparison}, indent=2))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
