"""Measure the team set-up: calls/s and p99 latency of template tools/calls through HAProxy, with
each number of replicas given (default: 1 and 3), the figures of docs/team.md.

    python -m tests.team [--calls N] [--threads N] [REPLICAS...]

It uses the pinned oidc-provider and Node.js the tests installed (~/.cache/cogtools)."""

from __future__ import annotations

import argparse
import signal
import tempfile
from pathlib import Path

from tests.npm_packages import node_binary, npm_package, package_dir
from tests.team import (
    LOOK,
    NODE_VERSION,
    NOTE,
    OIDC_PROVIDER_VERSION,
    Balancer,
    Client,
    Provider,
    drive,
    free_port,
    percentile,
    replica,
)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("replicas", nargs="*", type=int, default=[1, 3])
    parser.add_argument("--calls", type=int, default=300, help="calls per thread")
    parser.add_argument("--threads", type=int, default=8, help="threads per caller (two callers)")
    args = parser.parse_args()
    node = node_binary(NODE_VERSION, "COGTOOLS_NODE_DIR")
    package = npm_package(
        "oidc-provider",
        OIDC_PROVIDER_VERSION,
        package_dir("oidc-provider", OIDC_PROVIDER_VERSION, "COGTOOLS_OIDC_PROVIDER_DIR"),
    )
    reader, writer = Client("reader", "r", "tools:read"), Client("writer", "w", "tools:read tools:write")
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        (root / ".cogtoolrc.yaml").write_text("")
        (root / "tools").mkdir()
        (root / "tools" / "look.yaml").write_text(LOOK)
        (root / "tools" / "note.yaml").write_text(NOTE)
        for count in args.replicas:
            front = free_port()
            resource = f"http://127.0.0.1:{front}/mcp"
            provider = Provider(node, package, resource, [reader, writer], root / "provider.log")
            ports = [free_port() for _ in range(count)]
            procs = [replica(root, port, provider.url, resource, root / f"r{port}.log") for port in ports]
            balancer = Balancer(root, ports, front)
            try:
                tokens = {"reader": provider.token(reader), "writer": provider.token(writer)}
                drive(balancer.url, tokens, ["look"], 20, 2)  # warm up (each replica's first token check)
                results, seconds = drive(balancer.url, tokens, ["look", "note"], args.calls, args.threads)
                finals = [attempts[-1] for attempts in results]
                good = sum(1 for final in finals if final.status in (200, 403))
                latencies = [final.seconds * 1000 for final in finals]
                print(
                    f"{count} replica(s): {len(finals)} calls ({good} answered or refused) in {seconds:.2f} s: "
                    f"{len(finals) / seconds:.0f} calls/s, p50 {percentile(latencies, 0.5):.1f} ms, "
                    f"p99 {percentile(latencies, 0.99):.1f} ms"
                )
            finally:
                balancer.close()
                for proc in procs:
                    proc.send_signal(signal.SIGTERM)
                    proc.wait()
                provider.close()


if __name__ == "__main__":
    main()
