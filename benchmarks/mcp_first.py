"""The first second of a stdio MCP server: how long after its start it answers ``initialize``, and
``tools/list`` after that, beside FastMCP's stdio server and a plain Python loop, in one run.

Each server is started as a client starts it (a process, its standard input and output piped),
sent ``initialize`` (protocol 2025-06-18) at once, then, on its answer,
``notifications/initialized`` and ``tools/list``; the times are from the start of the process to
each answer, and the server is then stopped by closing its input (killed after 10 s). The
servers:

- ``cogtools``: ``cogtools mcp`` of this checkout, in a project of the shipped examples (14
  tools; its catalog cache warm, as from a client's second start on);
- ``cogtools-before`` (with ``--before REV``): the same, with the package as it was at git
  revision REV (``git archive`` into a temporary directory, put first on ``PYTHONPATH``);
- ``fastmcp``: FastMCP's stdio server of the two tools of benchmarks/fastmcp_server.py
  (``--stdio``), with an interpreter that has fastmcp (``--fastmcp-python``; by default this one
  if it can import fastmcp, else the row is skipped, and said to be);
- ``plain``: a plain Python loop that reads JSON-RPC lines on stdin and answers ``initialize``
  and ``tools/list`` with ``json`` alone (the floor: the interpreter's start and a read), with
  this interpreter.

The servers take turns within each round, their order rotating from round to round, so that a
drift in the machine's load falls on all alike; each figure is the median over ROUNDS rounds,
and the headline is the ratios within the run (the machine may be busy): cogtools against the
plain loop (goal: at most 4x) and against FastMCP, and cogtools' medians against the absolute
goal of 150 ms (on a quiet two-core machine). The goals' PASS or FAIL is printed only; the exit
status is 1 when an answer was wrong (not JSON-RPC, an error, fewer tools than the project has)
or a server did not answer.

    python benchmarks/mcp_first.py [--rounds 15] [--before REV] [--fastmcp-python PATH] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import typing as t
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mcp_load import fastmcp_interpreter, versions  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
GOAL_MS = 150.0
GOAL_PLAIN_RATIO = 4.0
ANSWER_TIMEOUT = 30.0
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
}
LIST = b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n'

#: The plain loop: the interpreter, ``json`` and a read of stdin, nothing else.
PLAIN = """
import json, sys
TOOLS = [{"name": "greet", "description": "Greet.", "inputSchema": {"type": "object"}}]
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    if message["method"] == "initialize":
        result = {"protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
                  "serverInfo": {"name": "plain", "version": "1"}}
    else:
        result = {"tools": TOOLS}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\\n")
    sys.stdout.flush()
"""


class Timed(t.NamedTuple):
    """Milliseconds from a server's start to its answer to ``initialize``, and to ``tools/list``."""

    initialize: float
    tools_list: float


class Wrong(Exception):
    """A server answered wrongly, or not at all."""


def answer_line(process: subprocess.Popen[bytes], started: float, id: int) -> tuple[float, dict[str, t.Any]]:
    """The next line of ``process`` (milliseconds since ``started``, and the answer it holds)."""
    assert process.stdout is not None
    line = process.stdout.readline()
    at = (time.perf_counter() - started) * 1000
    if not line:
        raise Wrong(f"no answer to request {id} (the server ended)")
    try:
        message = json.loads(line)
    except ValueError as e:
        raise Wrong(f"not JSON: {line[:200]!r}") from e
    if message.get("id") != id or "result" not in message:
        raise Wrong(f"not the answer to request {id}: {line[:300]!r}")
    return at, message["result"]


def time_one(argv: list[str], cwd: Path, env: dict[str, str], tools: int) -> Timed:
    """Start a server, time its two answers, stop it."""
    started = time.perf_counter()
    process = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert process.stdin is not None
    try:
        process.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
        process.stdin.flush()
        initialized, _ = answer_line(process, started, 1)
        process.stdin.write(LIST)
        process.stdin.flush()
        listed, result = answer_line(process, started, 2)
        if len(result.get("tools", [])) < tools:
            raise Wrong(f"{len(result.get('tools', []))} tools listed, not {tools}")
        return Timed(initialized, listed)
    finally:
        process.stdin.close()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def make_project(root: Path, cogtools: list[str], env: dict[str, str]) -> int:
    """The shipped examples as a project, its cache warmed; how many tools it has."""
    shutil.copytree(REPO / "examples" / "tools", root / "tools")
    (root / ".cogtoolrc.yaml").write_text("")
    time.sleep(2.5)  # (a file written within 2 s is not kept in the catalog cache)
    done = subprocess.run(
        [*cogtools, "list", "--format", "json"], cwd=root, env=env, capture_output=True, text=True, check=True
    )
    return len(json.loads(done.stdout))


def before_tree(rev: str, into: Path) -> Path:
    """The package as it was at ``rev``, under ``into``."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev, "cogtools"], capture_output=True, check=True)
    into.mkdir()
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--before", metavar="REV", help="also time cogtools as it was at this git revision")
    parser.add_argument(
        "--fastmcp-python", help="an interpreter that can import fastmcp (default: this one, if it can)"
    )
    parser.add_argument("--json", type=Path, help="write the figures here too")
    args = parser.parse_args()

    fastmcp_python, why_not = fastmcp_interpreter(args.fastmcp_python)
    if fastmcp_python is None:
        print(f"FastMCP skipped: {why_not}")
    script = Path(sys.executable).parent / "cogtools"
    cogtools = [str(script)] if script.exists() else [sys.executable, "-m", "cogtools"]
    failed = False
    with tempfile.TemporaryDirectory(prefix="cogtools-first-") as tmp:
        base = Path(tmp)
        (base / "home").mkdir()
        env = {**os.environ, "HOME": str(base / "home"), "XDG_CACHE_HOME": str(base / "home" / ".cache")}
        env.pop("PYTHONPATH", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # (an installation has its bytecode; the first round writes it)
        project = base / "project"
        project.mkdir()
        tools = make_project(project, cogtools, env)
        servers: dict[str, tuple[list[str], dict[str, str], int]] = {"cogtools": (cogtools, env, tools)}
        if args.before:
            tree = before_tree(args.before, (base / "before"))
            servers["cogtools-before"] = (
                [sys.executable, "-m", "cogtools"],
                {**env, "PYTHONPATH": str(tree)},
                tools,
            )
        if fastmcp_python is not None:
            argv = [fastmcp_python, str(HERE / "fastmcp_server.py"), "--stdio", "--marker", "cogtools-first"]
            servers["fastmcp"] = (argv, {**env, "FASTMCP_CHECK_FOR_UPDATES": "off"}, 2)
        servers["plain"] = ([sys.executable, "-c", PLAIN], env, 1)
        names = list(servers)
        timings: dict[str, list[Timed]] = {name: [] for name in names}
        for round in range(args.rounds):
            order = names[round % len(names) :] + names[: round % len(names)]
            for name in order:
                argv, server_env, count = servers[name]
                try:
                    timings[name].append(
                        time_one([*argv, "mcp"] if name.startswith("cogtools") else argv, project, server_env, count)
                    )
                except Wrong as e:
                    print(f"{name}: {e}")
                    failed = True
    medians = {
        name: Timed(statistics.median(x.initialize for x in found), statistics.median(x.tools_list for x in found))
        for name, found in timings.items()
        if found
    }
    report(medians, args.rounds, tools)
    if args.json:
        figures = {
            "rounds": args.rounds,
            "tools": tools,
            "medians_ms": {name: timed._asdict() for name, timed in medians.items()},
            "load": os.getloadavg(),
            "cpus": os.cpu_count(),
            "versions": versions(sys.executable),
            "fastmcp_versions": versions(fastmcp_python) if fastmcp_python else None,
        }
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 1 if failed else 0


def report(medians: dict[str, Timed], rounds: int, tools: int) -> None:
    print(
        f"median of {rounds} rounds, ms from the start ({tools} tools; load {os.getloadavg()[0]:.2f}, {os.cpu_count()} CPUs)"
    )
    print(f"{'server':18} {'initialize':>11} {'tools/list':>11}   x plain (init, list)")
    plain = medians.get("plain")
    for name, timed in medians.items():
        ratio = (
            f"   {timed.initialize / plain.initialize:5.2f}x {timed.tools_list / plain.tools_list:5.2f}x"
            if plain
            else ""
        )
        print(f"{name:18} {timed.initialize:11.1f} {timed.tools_list:11.1f}{ratio}")
    ours = medians.get("cogtools")
    if ours is None:
        return
    for other in ("fastmcp", "cogtools-before"):
        if other in medians:
            them = medians[other]
            print(
                f"cogtools / {other}: initialize {ours.initialize / them.initialize:.3f}, "
                f"tools/list {ours.tools_list / them.tools_list:.3f}"
            )
    goals = [("both answers under 150 ms", max(ours) <= GOAL_MS)]
    if plain:
        worst = max(ours.initialize / plain.initialize, ours.tools_list / plain.tools_list)
        goals.append((f"at most {GOAL_PLAIN_RATIO:.0f}x the plain loop ({worst:.2f}x)", worst <= GOAL_PLAIN_RATIO))
    for goal, met in goals:
        print(f"{'PASS' if met else 'FAIL'}: {goal}")


if __name__ == "__main__":
    sys.exit(main())
