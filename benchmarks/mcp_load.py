"""A bounded load test of ``cogtools mcp --http`` on loopback, against FastMCP, with the official SDK's client.

Load. In a temporary project with two tools, a template (``greet``) and a command that runs a
program (``shout``: ``sh -c``), ``cogtools mcp --http`` serves on a free port of 127.0.0.1, and
CLIENTS concurrent clients (the SDK's ``Client``, in this process) make CALLS calls each, one
phase per kind of tool: ``template`` (greet only), ``program`` (shout only) and ``mixed`` (the
two alternating, as this benchmark always did). FastMCP serves the same two tools
(benchmarks/fastmcp_server.py: a function returning ``f"Hello, {who}!"``, and a plain ``def``
running the same program with ``subprocess.run``, which FastMCP runs in a worker thread) over
streamable HTTP on 127.0.0.1, under the same load from the same client code, with an interpreter
that has fastmcp (``--fastmcp-python``; by default this one if it can import fastmcp, else the
FastMCP rows are skipped, and said to be). One server runs at a time: each round starts a
server, warms it up (each client makes a call of each tool, all at once: a burst after a start,
which waits on what a server makes as calls come, FastMCP's worker threads and cogtools'
sandboxes; its figures are printed, not counted), runs the phases and stops it with
SIGTERM; the servers' order alternates from round to round (cogtools then FastMCP, FastMCP then
cogtools, ...) so that a drift in the machine's load falls on both alike, and each figure is
the median over the ROUNDS rounds. The clients are spread over CLIENT_PROCESSES processes (2 by
default; each client in one of them, all starting at once): in one process, the load generator's
own core bounds the calls per second of either server (each SDK client costs some 3-6 ms of CPU
a call, more than a template's call costs either server), and the benchmark measures the client.
For each kind it reports the calls per second, p50, p99, the server's own CPU time per call
(utime + stime of /proc/PID/stat) and the clients' (getrusage of their processes; the clients
run on the same cores, so the calls per second of either server are bounded by what the clients
and the server cost together) of each server and, as the headline since absolute figures vary
by machine, the ratios
cogtools/FastMCP of the calls per second (higher is better for cogtools) and of the p99 (lower
is better), against these targets: template calls/s ratio >= 1.5, program calls/s ratio >= 1.0,
cogtools' p99 <= FastMCP's (both kinds).

Idle. ``cogtools mcp --http`` then serves a project of IDLE_TOOLS template tools
(``tools/t00001.yaml``..., written 3 s before, as files are that a user did not just write)
with a cold cache: the time from its start to listening, and to a listing of every tool (paged)
and one call answered; then, after a second's settling and with nobody calling, its CPU time
(utime + stime of /proc/PID/stat) over IDLE_SECONDS, as the fraction of one core (target: < 2%);
and the time to listening of a second start, with the cache warm.
A server that checks its files now and then (every 30 s where the kernel tells it of changes,
cogtools.mcp.live.CHECK_ANYWAY) may check within IDLE_SECONDS or not: a window of a minute or
more counts such checks at their share.

The PASS/FAIL of the targets is printed only: the exit status is 1 when something was not
correct, that is a call failed (either server), a phase made fewer calls than asked, the idle
server did not list its tools, cogtools did not stop cleanly on SIGTERM (status 143, no
traceback), a server had to be killed, or a program that a call ran outlived its server. Every
request goes to 127.0.0.1 only, each phase is bounded in time, every server is stopped (killed
if it does not stop) and the run ends by itself.

    python benchmarks/mcp_load.py [--clients 20] [--calls 25] [--max-calls 8] [--rounds 3]
        [--client-processes 2] [--fastmcp-python PATH] [--idle-tools 10000] [--idle-seconds 10]
        [--json FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import typing as t
from pathlib import Path

MARKER = f"cogtools-load-{os.getpid()}"
HERE = Path(__file__).resolve().parent
KINDS = ("template", "program", "mixed")
#: the tool each call of a phase makes, by the call's number
TOOL_OF: dict[str, t.Callable[[int], str]] = {
    "template": lambda n: "greet",
    "program": lambda n: "shout",
    "mixed": lambda n: "greet" if n % 2 == 0 else "shout",
}
#: (kind, figure, comparison, bound): the ratio cogtools/FastMCP that each target asks for
TARGETS = (
    ("template", "calls_per_second", ">=", 1.5),
    ("program", "calls_per_second", ">=", 1.0),
    ("template", "p99_ms", "<=", 1.0),
    ("program", "p99_ms", "<=", 1.0),
)
IDLE_TARGET = 0.02
#: How long the idle project's files are left before the server starts: the catalog cache does
#: not keep a file written within the last 2 s (cogtools.load.cache.RACY_SECONDS), and a server that
#: started with such files loads them all again at its next check (some 4 s of CPU at 10,000
#: tools, 30 s after the start), which a project as a user has it does not cost
SETTLED_AFTER = 3.0
PHASE_TIMEOUT = 600.0
LIBRARIES = ("mcp", "fastmcp", "uvicorn", "uvloop", "httptools", "starlette", "anyio", "pydantic")


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
        # it claims to do nothing but compute, so it runs confined (cogtools.run.confine): the
        # cost of that is part of the figure, as it is of every tool that declares its effects
        "side_effects": [],
        "implementation": {"kind": "command", "argv": ["sh", "-c", f': {MARKER}; echo "$0"', "{{ who }}"]},
    }
    (root / "tools" / "shout.json").write_text(json.dumps(program))


def idle_name(n: int) -> str:
    return f"t{n:05d}"


def make_idle_project(root: Path, count: int) -> None:
    (root / "tools").mkdir(parents=True)
    (root / ".cogtoolrc.yaml").write_text("")
    for n in range(1, count + 1):
        (root / "tools" / f"{idle_name(n)}.yaml").write_text(
            f"description: Tool {n}.\nparameters: {{who: {{type: string, description: Whom.}}}}\n"
            f"implementation: 'Hello, {{{{ who }}}}, from {n}!'\n"
        )


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


def cpu_seconds(pid: int) -> tuple[float, float]:
    """The CPU time of a process (utime + stime) and of its waited-for children (cutime +
    cstime), in seconds, from /proc/PID/stat."""
    text = Path(f"/proc/{pid}/stat").read_text()
    fields = text[text.rindex(")") + 2 :].split()  # fields[0] is field 3, the state
    tick = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / tick, (int(fields[13]) + int(fields[14])) / tick


def versions(python: str) -> dict[str, str | None]:
    """The versions of the libraries that shape a server, as ``python`` sees them."""
    code = (
        "import importlib.metadata as m, json, sys\n"
        "found = {'python': sys.version.split()[0]}\n"
        "for name in sys.argv[1:]:\n"
        "    try:\n"
        "        found[name] = m.version(name)\n"
        "    except m.PackageNotFoundError:\n"
        "        found[name] = None\n"
        "print(json.dumps(found))\n"
    )
    try:
        done = subprocess.run([python, "-c", code, *LIBRARIES], capture_output=True, text=True, timeout=60, check=True)
        return t.cast("dict[str, str | None]", json.loads(done.stdout))
    except (OSError, subprocess.SubprocessError, ValueError):
        return {}


def fastmcp_interpreter(given: str | None) -> tuple[str | None, str]:
    """The interpreter to run FastMCP with, or None and why not."""
    if given is None:
        if importlib.util.find_spec("fastmcp") is None:
            return None, f"{sys.executable} cannot import fastmcp; pass --fastmcp-python PATH (an interpreter that can)"
        return sys.executable, ""
    try:
        done = subprocess.run(
            [given, "-c", "import fastmcp; print(fastmcp.__version__)"], capture_output=True, text=True, timeout=60
        )
    except (OSError, subprocess.SubprocessError) as e:
        return None, f"--fastmcp-python {given}: {e}"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["?"])[-1]
        return None, f"--fastmcp-python {given} cannot import fastmcp: {last}"
    return given, ""


class Server:
    """One server process on 127.0.0.1:PORT, started, waited for and stopped."""

    def __init__(self, name: str, argv: list[str], port: int, cwd: Path, env: dict[str, str]) -> None:
        self.name = name
        self.port = port
        self.url = f"http://127.0.0.1:{port}/mcp"
        self.started = time.perf_counter()
        self.process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.stderr = b""
        self.killed = False

    def wait_listening(self, timeout: float) -> float | None:
        """Seconds from the start to accepting a connection, or None if it did not in time."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return time.perf_counter() - self.started
            except OSError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    return None
                time.sleep(0.02)

    def stop(self) -> int:
        """SIGTERM, then SIGKILL after 30 s; the exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            _, self.stderr = self.process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.killed = True
            self.process.kill()
            _, self.stderr = self.process.communicate()
        return self.process.returncode

    def clean(self, status: int | None) -> bool:
        """Whether it stopped by itself (with ``status`` if given) and without a traceback; if
        not, the end of what it said is shown."""
        clean = (
            not self.killed
            and (status is None or self.process.returncode == status)
            and b"Traceback" not in self.stderr
        )
        if not clean:
            print(f"{self.name} said:", file=sys.stderr)
            sys.stderr.write(self.stderr.decode(errors="replace")[-3000:])
        return clean


def cogtools_server(root: Path, cache: Path, max_calls: int) -> Server:
    port = free_port()
    argv = [sys.executable, "-m", "cogtools", "mcp", "--http", f"127.0.0.1:{port}", "--max-calls", str(max_calls)]
    return Server("cogtools", argv, port, root, {**os.environ, "XDG_CACHE_HOME": str(cache)})


def fastmcp_server(python: str, root: Path) -> Server:
    port = free_port()
    argv = [python, str(HERE / "fastmcp_server.py"), "--port", str(port), "--marker", MARKER]
    return Server("fastmcp", argv, port, root, {**os.environ, "FASTMCP_CHECK_FOR_UPDATES": "off"})


async def load(
    url: str, clients: t.Sequence[int], calls: int, tool: t.Callable[[int], str]
) -> tuple[list[float], int, float]:
    """The clients numbered ``clients`` making CALLS calls each: the latencies, the failures,
    and the seconds from the first client's start to the last one's end."""
    import anyio
    from mcp import Client

    latencies: list[float] = []
    failures = 0

    async def one_client(index: int) -> None:
        nonlocal failures
        async with Client(url) as client:
            for n in range(calls):
                name = tool(n)
                started = time.perf_counter()
                result = await client.call_tool(name, {"who": f"c{index}-{n}"})
                latencies.append(time.perf_counter() - started)
                text = result.content[0].text if result.content else ""  # type: ignore[union-attr]
                if result.is_error or f"c{index}-{n}" not in text:
                    failures += 1
                    if failures <= 3:
                        print(
                            f"failed: {name}: is_error={result.is_error} content={result.content!r} structured={result.structured_content!r}",
                            file=sys.stderr,
                        )

    started = time.perf_counter()
    with anyio.fail_after(PHASE_TIMEOUT):
        async with anyio.create_task_group() as group:
            for index in clients:
                group.start_soon(one_client, index)
    return latencies, failures, time.perf_counter() - started


def figures_of(latencies: list[float], failures: int, elapsed: float, client_cpu: float = 0.0) -> dict[str, t.Any]:
    total = len(latencies)
    ordered = sorted(latencies)
    return {
        "calls": total,
        "failed": failures,
        "p50_ms": round(statistics.median(ordered) * 1000, 1) if ordered else None,
        "p99_ms": round(ordered[max(0, int(total * 0.99) - 1)] * 1000, 1) if ordered else None,
        "calls_per_second": round(total / elapsed, 1) if elapsed > 0 else None,
        "seconds": round(elapsed, 2),
        # what the load itself cost: when the clients' processes use their cores whole, they,
        # not the server, bound the calls per second
        "client_cpu_ms": round(client_cpu / max(total, 1) * 1000, 3),
        "client_cores": round(client_cpu / elapsed, 2) if elapsed > 0 else None,
    }


def own_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def load_share(
    url: str, clients: list[int], calls: int, kind: str, start_at: float
) -> tuple[list[float], int, float, float, float]:
    """One client process's share of a phase, begun at ``start_at`` (time.monotonic, which all
    processes of the machine share): latencies, failures, its start and end, and its CPU time."""
    import anyio

    time.sleep(max(0.0, start_at - time.monotonic()))
    cpu, began = own_cpu(), time.monotonic()
    latencies, failures, _ = anyio.run(load, url, clients, calls, TOOL_OF[kind])
    return latencies, failures, began, time.monotonic(), own_cpu() - cpu


def warm_worker() -> None:
    """A client process's imports, made before its first phase."""
    import anyio  # noqa: F401
    import mcp  # noqa: F401


def run_phase(url: str, clients: int, calls: int, kind: str, pool: t.Any = None) -> dict[str, t.Any]:
    """A phase: CLIENTS clients of CALLS calls each, in this process, or spread over the
    processes of ``pool`` (each client in one of them), all starting at once."""
    try:
        if pool is None:
            import anyio

            cpu = own_cpu()
            latencies, failures, elapsed = anyio.run(load, url, range(clients), calls, TOOL_OF[kind])
            return figures_of(latencies, failures, elapsed, own_cpu() - cpu)
        processes = pool._processes  # (multiprocessing's count of its workers)
        shares = [list(range(clients))[n::processes] for n in range(processes)]
        start_at = time.monotonic() + 0.5
        jobs = [pool.apply_async(load_share, (url, share, calls, kind, start_at)) for share in shares if share]
        done = [job.get(PHASE_TIMEOUT) for job in jobs]
    except Exception as e:  # a client that could not connect, or the phase's time-out
        print(f"failed: {kind} phase at {url}: {type(e).__name__}: {e}", file=sys.stderr)
        return {**figures_of([], 0, 0.0), "failed": clients * calls, "error": f"{type(e).__name__}: {e}"}
    latencies = [latency for share in done for latency in share[0]]
    elapsed = max(share[3] for share in done) - min(share[2] for share in done)
    return figures_of(latencies, sum(share[1] for share in done), elapsed, sum(share[4] for share in done))


def one_round(
    server: Server, args: argparse.Namespace, label: str, pool: t.Any = None
) -> tuple[dict[str, t.Any], list[str]]:
    """Start ``server``, warm it up, run each kind's phase, stop it: its figures and what was
    not correct."""
    problems: list[str] = []
    phases: dict[str, t.Any] = {}
    try:
        listening = server.wait_listening(60)
        if listening is None:
            problems.append(f"{label}: did not start")
        else:
            # (the clients' processes too: a client's first call of a server may import what it
            # needs to read the answers, FastMCP's output schemas; and the server's pools, made as
            # calls come: FastMCP's worker threads, cogtools' sandboxes, which a burst after a
            # start waits on: that first burst's figures are printed, not counted)
            warm = run_phase(server.url, args.clients, 2, "mixed", pool)
            print(
                f"{label} warm-up (a call of each tool from each client at once, not counted): p50 {warm['p50_ms']} ms,"
                f" p99 {warm['p99_ms']} ms",
                flush=True,
            )
            phases["warm-up"] = warm
            if warm["failed"]:
                problems.append(f"{label}: the warm-up failed")
            for kind in KINDS:
                before = cpu_seconds(server.process.pid)
                phases[kind] = figures = run_phase(server.url, args.clients, args.calls, kind, pool)
                after = cpu_seconds(server.process.pid)
                # the server's own CPU per call (the programs' is the same program either way)
                figures["server_cpu_ms"] = round((after[0] - before[0]) / max(figures["calls"], 1) * 1000, 3)
                print(
                    f"{label} {kind}: {figures['calls']} calls from {args.clients} clients: p50 {figures['p50_ms']} ms,"
                    f" p99 {figures['p99_ms']} ms, {figures['calls_per_second']} calls/s; {figures['failed']} failed;"
                    f" the clients used {figures['client_cores']} cores ({figures['client_cpu_ms']} ms a call),"
                    f" the server {figures['server_cpu_ms']} ms a call",
                    flush=True,
                )
                if figures["failed"]:
                    problems.append(f"{label} {kind}: {figures['failed']} calls failed")
                if figures["calls"] != args.clients * args.calls:
                    problems.append(f"{label} {kind}: {figures['calls']} calls of {args.clients * args.calls}")
    finally:
        status = server.stop()
    time.sleep(0.2)
    left = leftovers()
    # cogtools leaves with SIGTERM's status; FastMCP (uvicorn) as it does, which is not judged
    clean = server.clean(128 + signal.SIGTERM if server.name == "cogtools" else None)
    print(f"{label}: server exit {status}{' (killed)' if server.killed else ''}; {left} processes left", flush=True)
    if not clean:
        problems.append(f"{label}: did not stop cleanly (exit {status}, killed {server.killed})")
    if left:
        problems.append(f"{label}: {left} processes left")
    return {
        "listening_s": round(listening, 3) if listening is not None else None,
        "phases": phases,
        "server_exit": status,
        "processes_left": left,
    }, problems


def median_of(rounds: list[dict[str, t.Any]], kind: str) -> dict[str, t.Any]:
    def med(key: str) -> float | None:
        values = [r["phases"][kind][key] for r in rounds if kind in r["phases"] and r["phases"][kind][key] is not None]
        return round(statistics.median(values), 1) if values else None

    return {key: med(key) for key in ("calls_per_second", "p50_ms", "p99_ms", "server_cpu_ms", "client_cpu_ms")}


def ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 2) if a is not None and b else None


async def list_and_call(url: str, first: str) -> tuple[set[str], bool]:
    """Every tool's name (paged) and whether a call of ``first`` answered."""
    import anyio
    from mcp import Client

    names: set[str] = set()
    with anyio.fail_after(PHASE_TIMEOUT):
        async with Client(url) as client:
            cursor: str | None = None
            for _ in range(10_000):
                page = await client.list_tools(cursor=cursor)
                names.update(tool.name for tool in page.tools)
                cursor = page.next_cursor
                if cursor is None:
                    break
            result = await client.call_tool(first, {"who": "idle"})
            text = result.content[0].text if result.content else ""  # type: ignore[union-attr]
    return names, not result.is_error and "idle" in text


def idle(args: argparse.Namespace, tmp: Path) -> tuple[dict[str, t.Any], list[str]]:
    """The idle server of ``--idle-tools`` tools: start time, CPU at rest, warm start time."""
    import anyio

    root, cache = tmp / "idle", tmp / "idle-cache"
    made = time.perf_counter()
    make_idle_project(root, args.idle_tools)
    print(f"idle: {args.idle_tools} tools written in {time.perf_counter() - made:.1f} s", flush=True)
    time.sleep(SETTLED_AFTER)
    figures: dict[str, t.Any] = {"tools": args.idle_tools, "seconds": args.idle_seconds}
    problems: list[str] = []
    server = cogtools_server(root, cache, args.max_calls)
    try:
        listening = server.wait_listening(600)
        figures["cold_start_to_listening_s"] = round(listening, 2) if listening is not None else None
        if listening is None:
            problems.append("idle: the server did not start")
        else:
            try:
                names, answered = anyio.run(list_and_call, server.url, idle_name(1))
            except Exception as e:
                names, answered = set(), False
                print(f"failed: idle listing: {type(e).__name__}: {e}", file=sys.stderr)
            figures["cold_start_to_ready_s"] = round(time.perf_counter() - server.started, 2)
            missing = {idle_name(n) for n in range(1, args.idle_tools + 1)} - names
            figures["listed"] = len(names)
            if missing or not answered:
                problems.append(f"idle: {len(missing)} tools not listed, the call {'' if answered else 'not '}answered")
            time.sleep(1.0)  # the listing's session closes
            if server.process.poll() is None:
                own, children = cpu_seconds(server.process.pid)
                began = time.perf_counter()
                time.sleep(args.idle_seconds)
                own2, children2 = cpu_seconds(server.process.pid)
                wall = time.perf_counter() - began
                figures["cpu_seconds"] = round(own2 - own, 3)
                figures["children_cpu_seconds"] = round(children2 - children, 3)
                figures["core_fraction"] = round((own2 - own) / wall, 4)
                figures["clock_ticks_per_second"] = os.sysconf("SC_CLK_TCK")
            else:
                problems.append("idle: the server died")
    finally:
        status = server.stop()
    if not server.clean(128 + signal.SIGTERM):
        problems.append(f"idle: did not stop cleanly (exit {status}, killed {server.killed})")
    figures["server_exit"] = status
    # the cache is warm now: a second start
    again = cogtools_server(root, cache, args.max_calls)
    try:
        listening = again.wait_listening(600)
        figures["warm_start_to_listening_s"] = round(listening, 2) if listening is not None else None
        if listening is None:
            problems.append("idle: the second start did not listen")
    finally:
        status = again.stop()
    if not again.clean(128 + signal.SIGTERM):
        problems.append(f"idle: the second start did not stop cleanly (exit {status}, killed {again.killed})")
    return figures, problems


def fmt(value: float | None, unit: str = "") -> str:
    return "-" if value is None else f"{value:g}{unit}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--calls", type=int, default=25, help="calls per client in each phase")
    parser.add_argument("--max-calls", type=int, default=8, help="cogtools' --max-calls")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each server, alternating; figures are medians")
    parser.add_argument(
        "--client-processes",
        type=int,
        default=2,
        help="processes the clients are spread over (1: all in this one, which then bounds the calls per second)",
    )
    parser.add_argument(
        "--fastmcp-python", help="an interpreter that can import fastmcp (default: this one, if it can)"
    )
    parser.add_argument("--idle-tools", type=int, default=10_000, help="tools of the idle server (0: no idle run)")
    parser.add_argument("--idle-seconds", type=float, default=10.0, help="how long the idle server's CPU is measured")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    if (
        min(args.clients, args.calls, args.max_calls, args.rounds, args.client_processes) < 1
        or args.idle_tools < 0
        or args.idle_seconds <= 0
    ):
        parser.error(
            "--clients, --calls, --max-calls, --rounds and --client-processes must be at least 1,"
            " --idle-seconds more than 0"
        )

    fastmcp_python, why_not = fastmcp_interpreter(args.fastmcp_python)
    if fastmcp_python is None:
        print(f"FastMCP skipped: {why_not}", flush=True)
    servers = ["cogtools", *(["fastmcp"] if fastmcp_python else [])]
    problems: list[str] = []
    rounds: dict[str, list[dict[str, t.Any]]] = {name: [] for name in servers}

    pool = None
    if args.client_processes > 1:
        import multiprocessing

        processes = min(args.client_processes, args.clients)
        pool = multiprocessing.get_context("spawn").Pool(processes, initializer=warm_worker)
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        if pool is not None:
            stack.callback(pool.terminate)
        root = Path(tmp) / "project"
        make_project(root)
        for n in range(args.rounds):
            order = servers if n % 2 == 0 else servers[::-1]
            for name in order:
                if name == "cogtools":
                    server = cogtools_server(root, Path(tmp) / "cache", args.max_calls)
                else:
                    assert fastmcp_python is not None
                    server = fastmcp_server(fastmcp_python, root)
                figures, wrong = one_round(server, args, f"{name} round {n + 1}", pool)
                rounds[name].append(figures)
                problems += wrong
        idle_figures, wrong = idle(args, Path(tmp)) if args.idle_tools else ({}, [])
        problems += wrong
    time.sleep(0.2)
    left = leftovers()
    if left:
        problems.append(f"{left} processes left at the end")

    medians = {name: {kind: median_of(rounds[name], kind) for kind in KINDS} for name in servers}
    ratios: dict[str, dict[str, t.Any]] = {}
    targets: list[dict[str, t.Any]] = []
    print(
        f"\nmedians over {args.rounds} rounds, {args.clients} clients x {args.calls} calls a phase,"
        f" the clients in {args.client_processes} process(es):"
    )
    print(f"{'kind':<9} {'server':<9} {'calls/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'CPU ms':>8} {'client ms':>9}")
    for kind in KINDS:
        for name in servers:
            m = medians[name][kind]
            print(
                f"{kind:<9} {name:<9} {fmt(m['calls_per_second']):>8} {fmt(m['p50_ms']):>8} {fmt(m['p99_ms']):>8}"
                f" {fmt(m['server_cpu_ms']):>8} {fmt(m['client_cpu_ms']):>9}"
            )
        if "fastmcp" in medians:
            c, f = medians["cogtools"][kind], medians["fastmcp"][kind]
            per_round = [
                ratio(
                    a["phases"].get(kind, {}).get("calls_per_second"), b["phases"].get(kind, {}).get("calls_per_second")
                )
                for a, b in zip(rounds["cogtools"], rounds["fastmcp"], strict=True)
            ]
            ratios[kind] = {
                "calls_per_second": ratio(c["calls_per_second"], f["calls_per_second"]),
                "p50_ms": ratio(c["p50_ms"], f["p50_ms"]),
                "p99_ms": ratio(c["p99_ms"], f["p99_ms"]),
                "server_cpu_ms": ratio(c["server_cpu_ms"], f["server_cpu_ms"]),
                "calls_per_second_by_round": per_round,
            }
            print(
                f"{kind:<9} {'ratio':<9} {fmt(ratios[kind]['calls_per_second'], 'x'):>8} {fmt(ratios[kind]['p50_ms'], 'x'):>8}"
                f" {fmt(ratios[kind]['p99_ms'], 'x'):>8} {fmt(ratios[kind]['server_cpu_ms'], 'x'):>8}"
                f"   (cogtools/FastMCP; calls/s by round: {per_round})"
            )
    first = {
        name: [r["phases"]["warm-up"]["p99_ms"] for r in rounds[name] if r["phases"].get("warm-up", {}).get("p99_ms")]
        for name in servers
    }
    print(
        "the first burst after a start (the warm-up, not counted), median p99: "
        + ", ".join(
            f"{name} {fmt(statistics.median(values) if values else None, ' ms')}" for name, values in first.items()
        )
    )
    print("\ntargets (informative: the exit status is about correctness only):")
    for kind, figure, comparison, bound in TARGETS:
        what = f"{kind} {'calls/s' if figure == 'calls_per_second' else 'p99'} cogtools/FastMCP {comparison} {bound:g}"
        value = ratios.get(kind, {}).get(figure)
        if value is None:
            verdict = "SKIP"
        else:
            verdict = "PASS" if (value >= bound if comparison == ">=" else value <= bound) else "FAIL"
        targets.append({"target": what, "value": value, "verdict": verdict})
        print(f"  {verdict}  {what}: {fmt(value)}")
    if idle_figures:
        fraction = idle_figures.get("core_fraction")
        verdict = "SKIP" if fraction is None else "PASS" if fraction < IDLE_TARGET else "FAIL"
        what = f"idle CPU with {args.idle_tools} tools < {IDLE_TARGET:.0%} of a core"
        targets.append({"target": what, "value": fraction, "verdict": verdict})
        print(f"  {verdict}  {what}: {fmt(None if fraction is None else round(fraction * 100, 2), '%')}")
        print(
            f"idle server of {args.idle_tools} tools: listening {fmt(idle_figures.get('cold_start_to_listening_s'), ' s')}"
            f" after its start (cold cache), ready (every tool listed, one called)"
            f" {fmt(idle_figures.get('cold_start_to_ready_s'), ' s')} after it;"
            f" warm cache: listening {fmt(idle_figures.get('warm_start_to_listening_s'), ' s')};"
            f" {fmt(idle_figures.get('cpu_seconds'), ' s')} of CPU in {args.idle_seconds:g} s idle"
        )
    for line in problems:
        print(f"NOT CORRECT: {line}")
    print("correct" if not problems else f"{len(problems)} problems", flush=True)

    if args.json:
        report = {
            "settings": {
                "clients": args.clients,
                "calls_per_client": args.calls,
                "max_calls": args.max_calls,
                "rounds": args.rounds,
                "client_processes": args.client_processes,
                "idle_tools": args.idle_tools,
                "idle_seconds": args.idle_seconds,
                "cores": os.cpu_count(),
            },
            "fastmcp_python": fastmcp_python,
            "fastmcp_skipped": why_not or None,
            "versions": {
                "cogtools": versions(sys.executable),
                **({"fastmcp": versions(fastmcp_python)} if fastmcp_python else {}),
            },
            "rounds": rounds,
            "medians": medians,
            "ratios": ratios,
            "targets": targets,
            "idle": idle_figures,
            "processes_left": left,
            "problems": problems,
            "correct": not problems,
        }
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0 if not problems else 1


if __name__ == "__main__":
    raise SystemExit(main())
