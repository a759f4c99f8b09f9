"""One tool server for a team, on an existing engine: three stateless replicas of ``cogtools mcp
--http --auth ISSUER`` behind HAProxy (Debian's package), a real OpenID provider issuing the
tokens (``oidc-provider`` from npm, pinned: client_credentials with resource indicators, so a JWT
whose audience is the server's resource URI), two callers with different scopes calling through
HAProxy in the 2026-07-28 era (each request on its own, any replica may answer it), and one
replica killed (SIGKILL) while they call. Every call is answered or refused as the caller's
scopes say, and none is lost: a call that could not reach a replica is sent to another by
HAProxy; a call in flight on the killed replica fails visibly (502), and the client tries again
a tool that changes nothing (what docs/team.md tells a client to do). The replicas' one audit log
accounts for every call that ran, its chain whole."""

from __future__ import annotations

import collections
import os
import shutil
import signal
import subprocess
import time
import typing as t
from pathlib import Path

import pytest

from .conftest import write
from .npm_packages import node_binary, npm_package, package_dir, unavailable
from .team import (
    ANSWERS,
    HAPROXY_CFG,
    HAPROXY_LIMITS,
    LOOK,
    NODE_VERSION,
    NOTE,
    OIDC_PROVIDER_VERSION,
    Balancer,
    Client,
    Outcome,
    Provider,
    drive,
    free_port,
    replica,
    stop,
)

pytest.importorskip("mcp")
pytest.importorskip("jwt")

READER = Client("reader", "reader-secret", "tools:read")
WRITER = Client("writer", "writer-secret", "tools:read tools:write")


def need_haproxy() -> None:
    """HAProxy, Debian's package, which .ci/run installs when it is missing."""
    if shutil.which("haproxy") is None and not os.path.exists("/usr/sbin/haproxy"):
        unavailable("haproxy is not installed (apt-get install haproxy; .ci/run installs it)")


class Team(t.NamedTuple):
    provider: Provider
    balancer: Balancer
    replicas: list[t.Any]
    logs: Path


@pytest.fixture
def teams(project: Path, tmp_path: Path) -> t.Iterator[t.Callable[..., Team]]:
    """Start a team: the provider, ``replicas`` replicas of the project (each with ``extra``
    options) and HAProxy in front of them (with ``limits`` in its backend)."""
    need_haproxy()
    write(project / "tools" / "look.yaml", LOOK)
    write(project / "tools" / "note.yaml", NOTE)
    node = node_binary(NODE_VERSION, "COGTOOLS_NODE_DIR")
    package = npm_package(
        "oidc-provider",
        OIDC_PROVIDER_VERSION,
        package_dir("oidc-provider", OIDC_PROVIDER_VERSION, "COGTOOLS_OIDC_PROVIDER_DIR"),
    )
    providers: list[Provider] = []
    balancers: list[Balancer] = []
    started: list[t.Any] = []

    def start(replicas: int = 3, limits: str = "", extra: t.Sequence[str] = ()) -> Team:
        logs = tmp_path / f"logs{len(providers)}"
        logs.mkdir()
        front = free_port()
        resource = f"http://127.0.0.1:{front}/mcp"
        provider = Provider(node, package, resource, [READER, WRITER], logs / "provider.log")
        providers.append(provider)
        ports = [free_port() for _ in range(replicas)]
        procs = [
            replica(project, port, provider.url, resource, logs / f"r{index}.log", *extra)
            for index, port in enumerate(ports, 1)
        ]
        started.extend(procs)
        balancer = Balancer(logs, ports, front, limits)
        balancers.append(balancer)
        return Team(provider, balancer, procs, logs)

    try:
        yield start
    finally:
        for balancer in balancers:
            balancer.close()
        for proc in started:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in started:
            proc.wait(timeout=30)
        for provider in providers:
            provider.close()


def listed(url: str, token: str) -> list[str]:
    """The tools the SDK's own client is shown through HAProxy (each request may meet another replica)."""
    from .test_mcp import over_http

    async def names(client: t.Any) -> list[str]:
        return sorted(tool.name for tool in (await client.list_tools()).tools)

    return t.cast(list[str], over_http(url, names, token=token, mode="auto"))


def right(final: Outcome) -> bool:
    """Whether a call's last attempt is what the caller's scopes say: the reader's note refused
    (403 insufficient_scope), every other call answered with what the tool says."""
    if final.caller == "reader" and final.tool == "note":
        return final.status == 403 and final.text == "insufficient_scope"
    return final.status == 200 and final.text == ANSWERS[final.tool]


@pytest.mark.slow
@pytest.mark.e2e
def test_three_replicas_behind_haproxy_answer_every_call_through_a_replica_killed(
    teams: t.Callable[..., Team],
) -> None:
    audit = Path(os.environ["HOME"]) / "audit.log"  # (one chain, which the three replicas append to)
    team = teams(extra=("--audit-log", str(audit)))
    tokens = {"reader": team.provider.token(READER), "writer": team.provider.token(WRITER)}
    # each caller is shown what its scopes allow, by whichever replicas answer
    assert listed(team.balancer.url, tokens["reader"]) == ["look"]
    assert listed(team.balancer.url, tokens["writer"]) == ["look", "note"]

    killed: list[float] = []

    def kill() -> None:
        team.replicas[1].send_signal(signal.SIGKILL)
        killed.append(time.monotonic())

    calls, threads = 60, 3
    # a client tries a call again only for a tool that changes nothing (readOnlyHint)
    results, _ = drive(
        team.balancer.url, tokens, ["look", "note"], calls, threads, retry=lambda tool: tool == "look", midway=kill
    )
    assert killed and team.replicas[1].wait(timeout=30) == -signal.SIGKILL

    # no call lost: every call of every thread has its outcome
    assert len(results) == len(tokens) * threads * calls
    finals = [attempts[-1] for attempts in results]
    wrong = [final for final in finals if not right(final)]
    # what may fail is only a call that reached the killed replica (in flight on it, or sent on a
    # connection to it before HAProxy saw it die) and that the client may not try again (a note,
    # which may have written): each a 502, or its connection closed; a few per thread at most
    failed = [final for final in wrong if final.tool == "note" and final.status in (0, 502)]
    assert wrong == failed, wrong[:5]
    assert len(failed) <= 2 * len(tokens) * threads
    retried = [attempts for attempts in results if len(attempts) > 1]
    assert all(right(attempts[-1]) for attempts in retried)
    assert all(attempts[0].tool == "look" for attempts in retried)

    # the read-only caller never ran the tool that writes
    assert not [final for final in finals if final.caller == "reader" and final.text == "noted"]
    # every replica answered, and the two left answered everything after the kill
    served = collections.Counter(final.replica for final in finals if final.status in (200, 403))
    assert set(served) == {"r1", "r2", "r3"}, served
    after = [final for final in finals if final.ended > killed[0] and final.status in (200, 403)]
    assert after and {final.replica for final in after if final.replica != "r2"} == {"r1", "r3"}

    print(f"served {dict(served)}; failed {len(failed)}; tried again {len(retried)}")
    for index in (1, 3):
        proc = team.replicas[index - 1]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 128 + signal.SIGTERM or proc.returncode == -signal.SIGTERM
    # the audit lines of all the replicas account for every call that ran: each answered call has
    # its line (a call that failed in flight may have run, and have one too), and the reader's
    # note never ran
    import json

    from .conftest import BIN

    lines = [json.loads(line) for line in audit.read_text().splitlines()]
    ran = collections.Counter((line["sub"], line["tool"]) for line in lines if line["decision"] == "allowed")
    answered = collections.Counter((final.caller, final.tool) for final in finals if final.status == 200)
    tried = collections.Counter((o.caller, o.tool) for attempts in results for o in attempts if o.status != 403)
    for key in set(ran) | set(answered):
        assert answered[key] <= ran[key] <= tried[key], (key, ran, answered, tried)
    assert ("reader", "note") not in ran
    assert all(line["status"] == "ok" for line in lines if line["decision"] == "allowed")
    verify = subprocess.run([str(BIN / "cogtools"), "audit", "verify", str(audit)], capture_output=True, text=True)
    assert verify.returncode == 0, verify.stdout + verify.stderr

    for log in team.logs.glob("r*.log"):
        assert "Traceback" not in log.read_text(), log.read_text()[-2000:]
    stop(team.balancer.proc)


# -- per-caller limits --------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_caller_gets_a_minute_of_calls_then_the_rate_and_each_caller_its_own() -> None:
    from cogtools.mcp.limits import Limiter, Limits

    clock = Clock()
    limiter = Limiter(Limits(calls_per_minute=6), clock)
    admitted = [limiter.admit("alice") for _ in range(6)]
    for _ in admitted:
        limiter.done("alice")
    assert admitted == [None] * 6
    assert limiter.admit("alice") == 10  # one call comes back every 10 s
    assert limiter.admit("bob") is None  # another caller is not held by alice's calls
    clock.now += 9.5
    assert limiter.admit("alice") == 1
    clock.now += 0.5
    assert limiter.admit("alice") is None
    assert limiter.admit("alice") == 10
    clock.now += 3600  # a bucket refills to a minute's worth, no more
    assert [limiter.admit("alice") for _ in range(7)][-2:] == [None, 10]


def test_calls_at_once_are_held_until_one_is_done() -> None:
    from cogtools.mcp.limits import BUSY_RETRY, Limiter, Limits

    limiter = Limiter(Limits(concurrent=2), Clock())
    assert limiter.admit("alice") is None and limiter.admit("alice") is None
    assert limiter.admit("alice") == BUSY_RETRY
    assert limiter.admit("bob") is None
    limiter.done("alice")
    assert limiter.admit("alice") is None


def test_idle_callers_are_forgotten_not_those_with_calls_in_flight(monkeypatch: pytest.MonkeyPatch) -> None:
    from cogtools.mcp import limits

    monkeypatch.setattr(limits, "MAX_CALLERS", 10)
    clock = Clock()
    limiter = limits.Limiter(limits.Limits(calls_per_minute=60, concurrent=1), clock)
    for number in range(10):
        assert limiter.admit(f"caller{number}") is None
    for number in range(1, 10):
        limiter.done(f"caller{number}")
    clock.now += 120
    assert limiter.admit("new") is None
    assert set(limiter.callers) == {"caller0", "new"}  # (caller0 still has its call in flight)
    assert limiter.admit("caller0") == limits.BUSY_RETRY


@pytest.mark.parametrize(
    ("config", "options", "expected"),
    [
        (None, (None, None), None),
        ({"calls_per_minute": 60}, (None, None), (60, None)),
        ({"calls_per_minute": 60, "concurrent": 4}, (120, None), (120, 4)),
        ({}, (None, 2), (None, 2)),
    ],
)
def test_the_limits_come_from_the_setting_and_the_options_over_it(
    config: t.Any, options: tuple[int | None, int | None], expected: tuple[int | None, int | None] | None
) -> None:
    from cogtools.mcp.limits import Limits

    found = Limits.of(config, *options)
    assert (tuple(found) if found else None) == expected


@pytest.mark.parametrize(
    "config", [[60], {"per_minute": 60}, {"concurrent": 0}, {"calls_per_minute": True}, {"concurrent": "4"}]
)
def test_a_bad_limits_setting_is_a_config_error(config: t.Any) -> None:
    from cogtools.core.errors import ConfigInvalidError
    from cogtools.mcp.limits import Limits

    with pytest.raises(ConfigInvalidError, match="auth.limits"):
        Limits.of(config, None, None)


def test_a_call_beyond_the_calls_in_flight_is_a_429_while_the_others_run() -> None:
    """Through the middleware web.py puts in front of the server's app."""
    import anyio

    from cogtools.mcp.limits import Limits, limited
    from cogtools.mcp.web import _refuse

    release = anyio.Event()
    answers: list[tuple[int, dict[bytes, bytes]]] = []

    async def app(scope: t.Any, receive: t.Any, send: t.Any) -> None:
        await release.wait()
        await _refuse(send, 200, b"{}")

    guarded = limited(app, Limits(concurrent=1), _refuse, None)

    def sender() -> t.Callable[[t.Any], t.Awaitable[None]]:
        async def send(message: t.Any) -> None:
            if message["type"] == "http.response.start":
                answers.append((message["status"], dict(message["headers"])))

        return send

    async def request(address: str, method: str = "POST") -> None:
        scope = {"type": "http", "method": method, "path": "/mcp", "headers": [], "client": (address, 5000)}
        await guarded(scope, None, sender())

    async def main() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(request, "10.0.0.1")
            await anyio.sleep(0.01)
            await request("10.0.0.1")  # refused at once, while the first waits
            assert answers == [(429, answers[0][1])] and answers[0][1][b"retry-after"] == b"1"
            group.start_soon(request, "10.0.0.2")  # another address is another caller
            group.start_soon(request, "10.0.0.1", "GET")  # a GET (a stream) is no call
            await anyio.sleep(0.01)
            release.set()
        assert sorted(status for status, _ in answers) == [200, 200, 200, 429]

    anyio.run(main)


@pytest.mark.slow
def test_the_server_answers_429_with_retry_after_per_caller(project: Path, isolated: Path) -> None:
    """The real ``cogtools mcp --http``: the user's auth.limits, the option over it, a caller per
    token subject with --auth."""
    from .test_mcp import start_http
    from .test_mcp_auth import Issuer, call_message, request

    write(project / "tools" / "look.yaml", LOOK)
    write(
        isolated.parent / "home" / ".config" / "cogtools" / "config.yaml", "auth:\n  limits:\n    calls_per_minute: 2\n"
    )
    server = start_http(project)
    try:
        statuses = [request(server.url, None, call_message("look")) for _ in range(3)]
        assert [answer.status for answer in statuses] == [200, 200, 429]
        assert statuses[2].headers["Retry-After"] == "30"
        assert statuses[2].json()["error"] == "rate_limited"
    finally:
        server.stop()
    issuer = Issuer()
    server = start_http(project, "--auth", issuer.url, "--calls-per-minute", "3")
    try:
        alice, bob = (issuer.token("tools:read", sub=sub, aud=server.url) for sub in ("alice", "bob"))
        assert [request(server.url, alice, call_message("look")).status for _ in range(4)] == [200, 200, 200, 429]
        assert request(server.url, bob, call_message("look")).status == 200
        # a request without a valid token is a 401 still, counted for no one
        assert request(server.url, "forged", call_message("look")).status == 401
        status, stderr = server.stop()
        assert "3 calls a minute" in stderr and "Traceback" not in stderr
    finally:
        issuer.close()


@pytest.mark.slow
@pytest.mark.e2e
def test_haproxy_holds_a_callers_calls_a_minute_across_the_replicas(teams: t.Callable[..., Team]) -> None:
    """docs/team.md's stick table: each bearer token's requests counted over every replica."""
    per_minute = 20
    team = teams(replicas=2, limits=HAPROXY_LIMITS.format(per_minute=per_minute))
    reader, writer = team.provider.token(READER), team.provider.token(WRITER)
    results, _ = drive(team.balancer.url, {"reader": reader}, ["look"], per_minute + 5, 1)
    finals = [attempts[-1] for attempts in results]
    assert [final.status for final in finals] == [200] * per_minute + [429] * 5
    assert {final.replica for final in finals[:per_minute]} == {"r1", "r2"}  # (spread over both)
    # another caller has its own count
    results, _ = drive(team.balancer.url, {"writer": writer}, ["note"], 3, 1)
    assert [attempts[-1].status for attempts in results] == [200, 200, 200]


def test_docs_team_shows_the_haproxy_configuration_the_tests_run() -> None:
    """What a team copies is what the tests run: every line of the tests' haproxy.cfg but the
    addresses (``bind``, ``server``) is in docs/team.md's."""
    from .conftest import REPO

    text = (REPO / "docs" / "team.md").read_text(encoding="utf-8")
    block = text.split("<!-- not run: HAProxy's configuration", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    shown = {line.strip() for line in block.splitlines()}
    tested = HAPROXY_CFG.format(port=0, servers="", limits=HAPROXY_LIMITS.format(per_minute=600))
    wanted = {line.strip() for line in tested.splitlines()} - {""}
    assert {line for line in wanted if not line.startswith(("bind ", "server "))} <= shown
