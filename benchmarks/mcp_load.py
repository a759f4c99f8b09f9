"""A bounded load test of ``cogtools mcp --http`` on loopback, with the official SDK's client.

Starts the server on a free port of 127.0.0.1 in a temporary project with two tools (a template,
and a command that runs a program), then has CLIENTS concurrent clients make CALLS calls each,
alternating the two tools, and stops the server with SIGTERM. It reports the latency of a call
(p50, p99) and the calls per second, and fails (exit status 1) when a call failed, the server did
not stop cleanly, or a program it ran outlived it. Every request goes to 127.0.0.1 only, and the
run ends by itself.

    python benchmarks/mcp_load.py [--clients 20] [--calls 25] [--max-calls 8] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MARKER = f"cogtools-load-{os.getpid()}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def make_project(root: Path) -> None:
    (root / "tools").mkdir(parents=True)
    (root / ".cogtoolrc.yaml").write_text("")
    (root / "tools" / "greet.yaml").write_text(
        "description: Greet.\nparameters: {who: {type: string, description: Whom.}}\nimplementation: 'Hello, {{ who }}!'\n"
    )
    program = {
        "description": "Echo through a program.",
        "parameters": {"who": {"type": "string", "description": "Whom."}},
        "implementation": {"kind": "command", "argv": ["sh", "-c", f': {MARKER}; echo "$0"', "{{ who }}"]},
    }
    (root / "tools" / "shout.json").write_text(json.dumps(program))


def leftovers() -> int:
    """Processes still running that a call of this run started."""
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if MARKER.encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                    count += 1
            except OSError:
                pass
    return count


async def load(url: str, clients: int, calls: int) -> tuple[list[float], int]:
    import anyio
    from mcp import Client

    latencies: list[float] = []
    failures = 0

    async def one_client(index: int) -> None:
        nonlocal failures
        async with Client(url) as client:
            for n in range(calls):
                name = "greet" if n % 2 == 0 else "shout"
                started = time.perf_counter()
                result = await client.call_tool(name, {"who": f"c{index}-{n}"})
                latencies.append(time.perf_counter() - started)
                text = result.content[0].text if result.content else ""
                if result.is_error or f"c{index}-{n}" not in text:
                    failures += 1
                    if failures <= 3:
                        print(
                            f"failed: {name}: is_error={result.is_error} content={result.content!r} structured={result.structured_content!r}",
                            file=sys.stderr,
                        )

    with anyio.fail_after(600):
        async with anyio.create_task_group() as group:
            for index in range(clients):
                group.start_soon(one_client, index)
    return latencies, failures


def main() -> int:
    import anyio

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--calls", type=int, default=25, help="calls per client")
    parser.add_argument("--max-calls", type=int, default=8, help="the server's --max-calls")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        make_project(root)
        port = free_port()
        env = {**os.environ, "XDG_CACHE_HOME": str(Path(tmp) / "cache")}
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "cogtools",
                "mcp",
                "--http",
                f"127.0.0.1:{port}",
                "--max-calls",
                str(args.max_calls),
            ],
            cwd=root,
            env=env,
            stderr=subprocess.PIPE,
        )
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        print("the server did not start", file=sys.stderr)
                        return 1
                    time.sleep(0.05)
            started = time.perf_counter()
            latencies, failures = anyio.run(load, f"http://127.0.0.1:{port}/mcp", args.clients, args.calls)
            elapsed = time.perf_counter() - started
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                _, stderr = server.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                _, stderr = server.communicate()
        time.sleep(0.2)
        left = leftovers()

    total = len(latencies)
    figures = {
        "clients": args.clients,
        "calls": total,
        "failed": failures,
        "p50_ms": round(statistics.median(latencies) * 1000, 1),
        "p99_ms": round(sorted(latencies)[max(0, int(total * 0.99) - 1)] * 1000, 1),
        "calls_per_second": round(total / elapsed, 1),
        "server_exit": server.returncode,
        "processes_left": left,
    }
    print(
        f"{total} calls from {args.clients} clients: p50 {figures['p50_ms']} ms, p99 {figures['p99_ms']} ms,"
        f" {figures['calls_per_second']} calls/s; {failures} failed; server exit {server.returncode};"
        f" {left} processes left"
    )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    clean_exit = server.returncode == 128 + signal.SIGTERM and b"Traceback" not in stderr
    return 0 if failures == 0 and left == 0 and clean_exit and total == args.clients * args.calls else 1


if __name__ == "__main__":
    raise SystemExit(main())
