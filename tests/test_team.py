"""One tool server for a team, on an existing engine: three stateless replicas of ``cogtools mcp
--http --auth ISSUER`` behind HAProxy (Debian's package), a real OpenID provider issuing the
tokens (``oidc-provider`` from npm, pinned: client_credentials with resource indicators, so a JWT
whose audience is the server's resource URI), two callers with different scopes calling through
HAProxy in the 2026-07-28 era (each request on its own, any replica may answer it), and one
replica killed (SIGKILL) while they call. Every call is answered or refused as the caller's
scopes say, and none is lost: a call that could not reach a replica is sent to another by
HAProxy; a call in flight on the killed replica fails visibly (502), and the client tries again
a tool that changes nothing (what docs/team.md tells a client to do)."""

from __future__ import annotations

import collections
import os
import shutil
import signal
import time
import typing as t
from pathlib import Path

import pytest

from .conftest import write
from .npm_packages import node_binary, npm_package, package_dir, unavailable
from .team import (
    ANSWERS,
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
def team(project: Path, tmp_path: Path) -> t.Iterator[Team]:
    """The provider, three replicas of the project and HAProxy in front of them."""
    need_haproxy()
    write(project / "tools" / "look.yaml", LOOK)
    write(project / "tools" / "note.yaml", NOTE)
    node = node_binary(NODE_VERSION, "COGTOOLS_NODE_DIR")
    package = npm_package(
        "oidc-provider",
        OIDC_PROVIDER_VERSION,
        package_dir("oidc-provider", OIDC_PROVIDER_VERSION, "COGTOOLS_OIDC_PROVIDER_DIR"),
    )
    logs = tmp_path / "logs"
    logs.mkdir()
    front = free_port()
    resource = f"http://127.0.0.1:{front}/mcp"
    provider = Provider(node, package, resource, [READER, WRITER], logs / "provider.log")
    started: list[t.Any] = []
    balancer = None
    try:
        ports = [free_port() for _ in range(3)]
        for index, port in enumerate(ports, 1):
            started.append(replica(project, port, provider.url, resource, logs / f"r{index}.log"))
        balancer = Balancer(logs, ports, front)
        yield Team(provider, balancer, started, logs)
    finally:
        if balancer is not None:
            balancer.close()
        for proc in started:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in started:
            proc.wait(timeout=30)
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
def test_three_replicas_behind_haproxy_answer_every_call_through_a_replica_killed(team: Team) -> None:
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
    # what may fail is only a call in flight on the killed replica that the client may not try
    # again (a note, which may have written), each a 502 (or a connection closed): at most one per
    # thread, since each thread has one call in flight
    in_flight = [final for final in wrong if final.tool == "note" and final.status in (0, 502)]
    assert wrong == in_flight, wrong[:5]
    assert len(in_flight) <= len(tokens) * threads
    retried = [attempts for attempts in results if len(attempts) > 1]
    assert all(right(attempts[-1]) for attempts in retried)
    assert len(retried) <= len(tokens) * threads

    # the read-only caller never ran the tool that writes
    assert not [final for final in finals if final.caller == "reader" and final.text == "noted"]
    # every replica answered, and the two left answered everything after the kill
    served = collections.Counter(final.replica for final in finals if final.status in (200, 403))
    assert set(served) == {"r1", "r2", "r3"}, served
    after = [final for final in finals if final.ended > killed[0] and final.status in (200, 403)]
    assert after and {final.replica for final in after if final.replica != "r2"} == {"r1", "r3"}

    print(f"served {dict(served)}; failed in flight {len(in_flight)}; tried again {len(retried)}")
    for index in (1, 3):
        proc = team.replicas[index - 1]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 128 + signal.SIGTERM or proc.returncode == -signal.SIGTERM
    for log in team.logs.glob("r*.log"):
        assert "Traceback" not in log.read_text(), log.read_text()[-2000:]
    stop(team.balancer.proc)
