"""What the team test (tests/test_team.py) starts, and the load it drives: a real OpenID provider
(``oidc-provider`` from npm, pinned, run by :file:`provider.mjs` on a pinned Node.js), HAProxy
(Debian's package) in front of stateless replicas of ``cogtools mcp --http --auth``, and callers
that call tools through it as a 2026-07-28 client does, each request on its own.

Run as a module to measure (``python -m tests.team [REPLICAS...]``): calls/s and p99 through
HAProxy with each number of replicas, the figures of docs/team.md."""

from __future__ import annotations

import base64
import http.client
import json
import shutil
import socket
import subprocess
import sys
import threading
import time
import typing as t
import urllib.parse
import urllib.request
from pathlib import Path

#: The pinned versions: oidc-provider (OpenID Certified), and the Node.js it supports (22 LTS).
OIDC_PROVIDER_VERSION = "9.13.3"
NODE_VERSION = "22.23.3"
PROVIDER_SCRIPT = Path(__file__).with_name("provider.mjs")

#: The team's tools: one that changes nothing (``tools:read`` calls it), one that writes
#: (``tools:write``).
LOOK = "description: Look around.\nrisk_level: low\nside_effects: []\nimplementation: looked\n"
NOTE = "description: Write a note.\nrisk_level: medium\nside_effects: [filesystem_write]\nimplementation: noted\n"
ANSWERS = {"look": "looked", "note": "noted"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, proc: subprocess.Popen[bytes], what: str, seconds: float = 30) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited ({proc.returncode}) before it listened")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{what} did not listen on {port} within {seconds} s")


class Client(t.NamedTuple):
    client_id: str
    client_secret: str
    scope: str


class Provider:
    """``oidc-provider`` on loopback, with ``clients``; ``token(client)`` asks it for an access
    token by the client_credentials grant, for ``resource`` (RFC 8707), so a JWT whose audience
    is the resource."""

    def __init__(self, node: Path, package: Path, resource: str, clients: t.Sequence[Client], log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.resource = resource
        module = (package / "node_modules" / "oidc-provider" / "lib" / "index.js").as_uri()
        listed = json.dumps([client._asdict() for client in clients])
        with open(log, "wb") as out:
            self.proc = subprocess.Popen(
                [str(node), str(PROVIDER_SCRIPT), module, str(self.port), resource, listed],
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        wait_for_port(self.port, self.proc, "oidc-provider")

    def token(self, client: Client) -> str:
        form = {"grant_type": "client_credentials", "scope": client.scope, "resource": self.resource}
        basic = base64.b64encode(f"{client.client_id}:{client.client_secret}".encode()).decode()
        request = urllib.request.Request(
            self.url + "/token",
            data=urllib.parse.urlencode(form).encode(),
            headers={"Authorization": f"Basic {basic}", "Content-Type": "application/x-www-form-urlencoded"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return str(json.load(response)["access_token"])

    def close(self) -> None:
        stop(self.proc)


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait(timeout=30)


#: HAProxy's configuration: the set-up docs/team.md shows, with the ports of the test.
HAPROXY_CFG = """\
global
    maxconn 4096

defaults
    mode http
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    # a request that could not reach a replica (refused, reset before it was sent) goes to another
    retries 3
    option redispatch 1
    retry-on conn-failure empty-response response-timeout

frontend mcp
    bind 127.0.0.1:{port}
    default_backend cogtools

backend cogtools
    balance roundrobin
{limits}    # a tools/call that reached a replica is never sent twice (it may have changed something):
    # only a connection failure is retried for it; a list or a discovery is retried on any failure
    http-request disable-l7-retry if {{ req.hdr(mcp-method) -m str tools/call }}
    option httpchk
    http-check send meth GET uri /.well-known/oauth-protected-resource ver HTTP/1.1 hdr Host 127.0.0.1
    http-response set-header X-Replica %s
{servers}
"""


#: Each caller's calls a minute across every replica, held by HAProxy: a stick table counts the
#: requests of each bearer token (its SHA-256: a caller cannot spend another's count without its
#: token) over a sliding minute, and answers a 429 beyond the limit, before any replica is asked.
HAPROXY_LIMITS = """\
    stick-table type binary len 32 size 100k expire 2m store http_req_rate(1m)
    http-request track-sc0 req.hdr(authorization),sha2(256) if {{ req.hdr(authorization) -m found }}
    http-request return status 429 content-type application/json string '{{"error": "rate_limited"}}' hdr Retry-After 60 if {{ sc_http_req_rate(0) gt {per_minute} }}
"""


class Balancer:
    """HAProxy in front of ``ports`` (replicas on loopback), with its configuration in ``directory``."""

    def __init__(self, directory: Path, ports: t.Sequence[int], port: int | None = None, limits: str = "") -> None:
        haproxy = shutil.which("haproxy") or "/usr/sbin/haproxy"
        self.port = port or free_port()
        servers = "\n".join(
            f"    server r{index} 127.0.0.1:{replica} check inter 200ms fall 1 rise 2"
            for index, replica in enumerate(ports, 1)
        )
        self.config = directory / "haproxy.cfg"
        self.config.write_text(HAPROXY_CFG.format(port=self.port, servers=servers, limits=limits))
        check = subprocess.run([haproxy, "-c", "-q", "-f", str(self.config)], capture_output=True, text=True)
        if check.returncode != 0:
            raise RuntimeError(f"haproxy refuses its configuration: {check.stdout}{check.stderr}")
        with open(directory / "haproxy.log", "wb") as out:
            self.proc = subprocess.Popen([haproxy, "-db", "-f", str(self.config)], stdout=out, stderr=subprocess.STDOUT)
        wait_for_port(self.port, self.proc, "haproxy")
        self.url = f"http://127.0.0.1:{self.port}/mcp"

    def close(self) -> None:
        stop(self.proc)


def replica(cwd: Path, port: int, issuer: str, resource: str, log: Path, *extra: str) -> subprocess.Popen[bytes]:
    """``cogtools mcp --http 127.0.0.1:PORT --auth ISSUER --resource RESOURCE --stateless``."""
    cogtools = Path(sys.executable).parent / "cogtools"
    argv = [str(cogtools), "mcp", "--http", f"127.0.0.1:{port}", "--auth", issuer, "--resource", resource]
    with open(log, "wb") as out:
        proc = subprocess.Popen([*argv, "--stateless", *extra], cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
    wait_for_port(port, proc, f"replica on {port}")
    return proc


def call_message(name: str, number: int) -> bytes:
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "team", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    message = {
        "jsonrpc": "2.0",
        "id": number,
        "method": "tools/call",
        "params": {"name": name, "arguments": {}, "_meta": meta},
    }
    return json.dumps(message).encode()


class Outcome(t.NamedTuple):
    """One attempt of a call: the caller, the tool, the HTTP status (0: the connection failed),
    the replica that answered (HAProxy's ``X-Replica``), what it said, and how long it took."""

    caller: str
    tool: str
    status: int
    replica: str
    text: str
    seconds: float
    attempt: int
    #: When it ended (``time.monotonic()``).
    ended: float


class Caller:
    """A client on a connection of its own to ``url`` (kept alive, opened again after a failure)."""

    def __init__(self, name: str, url: str, token: str) -> None:
        parts = urllib.parse.urlsplit(url)
        self.name, self.host, self.port, self.path = name, parts.hostname or "", parts.port or 80, parts.path
        self.token = token
        self.connection: http.client.HTTPConnection | None = None

    def attempt(self, tool: str, number: int, attempt: int = 1) -> Outcome:
        started = time.perf_counter()
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "Authorization": f"Bearer {self.token}",
            "Mcp-Protocol-Version": "2026-07-28",
            "Mcp-Method": "tools/call",
            "Mcp-Name": tool,
        }
        try:
            if self.connection is None:
                self.connection = http.client.HTTPConnection(self.host, self.port, timeout=60)
            self.connection.request("POST", self.path, call_message(tool, number), headers)
            response = self.connection.getresponse()
            body = response.read()
            status, served = response.status, response.getheader("X-Replica") or ""
            if response.getheader("Connection", "").lower() == "close":
                self.close()
        except (OSError, http.client.HTTPException):
            self.close()
            return Outcome(self.name, tool, 0, "", "", time.perf_counter() - started, attempt, time.monotonic())
        text = ""
        if status == 200:
            try:
                result = json.loads(body)["result"]
                text = "error" if result.get("isError") else result["content"][0]["text"]
            except (ValueError, KeyError, IndexError, TypeError):
                text = "unreadable: " + body[:200].decode("utf-8", "replace")
        elif status == 403:
            try:
                text = json.loads(body)["error"]
            except (ValueError, KeyError, TypeError):
                text = "unreadable"
        return Outcome(self.name, tool, status, served, text, time.perf_counter() - started, attempt, time.monotonic())

    def call(self, tool: str, number: int, retry: bool, attempts: int = 5) -> list[Outcome]:
        """A call, and if it failed on the way (no answer, or HAProxy's 502/503/504) and ``retry``
        allows, more attempts, 0.1, 0.2, 0.4 and 0.8 s later: what a client does for a tool it
        knows it may run twice."""
        outcomes = [self.attempt(tool, number)]
        while retry and outcomes[-1].status in (0, 502, 503, 504) and len(outcomes) < attempts:
            time.sleep(0.1 * 2 ** (len(outcomes) - 1))
            outcomes.append(self.attempt(tool, number, len(outcomes) + 1))
        return outcomes

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None


def drive(
    url: str,
    callers: t.Mapping[str, str],
    tools: t.Sequence[str],
    calls: int,
    threads: int,
    *,
    retry: t.Callable[[str], bool] = lambda tool: True,
    midway: t.Callable[[], None] | None = None,
) -> tuple[list[list[Outcome]], float]:
    """``calls`` calls by each of ``threads`` threads per caller (``callers``: name -> token),
    cycling through ``tools``; ``midway`` is run once, by one thread, when a third of all calls
    are done. Every call's attempts, and the seconds the whole took."""
    results: list[list[Outcome]] = []
    lock = threading.Lock()
    done = [0]
    third = len(callers) * threads * calls // 3

    def work(name: str, token: str, offset: int) -> None:
        caller = Caller(name, url, token)
        for number in range(calls):
            tool = tools[(number + offset) % len(tools)]
            outcome = caller.call(tool, number, retry(tool))
            with lock:
                results.append(outcome)
                done[0] += 1
                run = midway is not None and done[0] == third
            if run and midway is not None:
                midway()
        caller.close()

    workers = [
        threading.Thread(target=work, args=(name, token, index))
        for name, token in callers.items()
        for index in range(threads)
    ]
    started = time.perf_counter()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return results, time.perf_counter() - started


def percentile(values: t.Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]
