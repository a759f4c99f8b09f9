"""Whole-process timings and peak memory of cogtools, as ratios within one run.

Builds catalogs of 3, 1,000 and 10,000 tools (each in YAML, TOML and JSON) in a temporary
directory and measures whole processes (the median of several runs; peak memory is the largest
resident set of any run):

- ``python -c pass``: the floor of any Python command;
- ``cogtools-call`` of a template tool with a warm cache: in the middle of the catalog (the
  files before it are what the call must check) and at its end (the worst case);
- ``cogtools-discover`` warm (an earlier run filled the cache) and cold (no cache);
- ``cogtools --version``, ``cogtools --help``, and ``cogtools lint`` on a 10-tool project;
- the same call and discovery done by ``reference.py``, the obvious PyYAML + jsonschema + Jinja2
  script, in the same run;
- the warm jobs of every catalog in interleaved rounds, so that a machine whose speed drifts over
  the run weighs on every job alike;
- the cache's size per tool;
- the cost of a pin: a call of a template tool and of a command that runs a project script, each
  allowed and pinned (the pin checked, the script run from the checked bytes) and not;
- the cost of confinement (issue 28): a command that runs a project script, and a python tool
  (its function in a child process), each declaring its side effects (confined under bubblewrap)
  and not; and the python tool against a template tool (what the child costs).

Targets (issue 42): a warm call of a template tool at most 2x ``python -c pass`` (the ``/py``
column); a confined call of a command at most 1.1x the same call unconfined (the ``confined vs
not`` line: each one-shot call starts bubblewrap of its own; a server keeps its sandboxes warm,
which benchmarks/mcp_load.py measures). Targets (issue 16): a warm call in the largest catalog at most 1.5x the call in the smallest,
under 40 MiB; warm discovery of 10,000 tools under 0.5 s and 80 MiB; cold discovery at most 0.5x
the reference; a warm template call at most 0.35x the reference; ``--version`` and ``--help``
under 60 ms; lint of 10 tools under 300 ms; at most 1 KB of cache per simple tool. Nothing here
asserts a time: the figures are printed (and written with ``--json``) for people to compare.
Run it with the interpreter cogtools is installed in:

    python benchmarks/bench.py [--runs 5] [--sizes 3,1000,10000] [--formats yaml,toml,json] [--json FILE]
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

import tomli_w
import yaml

HERE = Path(__file__).resolve().parent
REFERENCE = HERE / "reference.py"

TOOL = """\
name: {name}
description: |
  Summarise the log lines of service {i} between two times, grouped by level.
parameters:
  service:
    type: string
    description: The service whose logs to read.
    enum: [api, worker, scheduler, web]
  since:
    type: string
    format: date-time
    description: Start of the window (RFC 3339).
  lines:
    type: integer
    minimum: 1
    maximum: 10000
    default: 100
    optional: true
    description: How many lines to read at most.
  levels:
    type: array
    items:
      type: string
      enum: [debug, info, warning, error]
    optional: true
    description: Levels to keep.
  note:
    type: string
    nullable: true
    optional: true
    description: A remark to add to the summary.
examples:
  - service: api
    since: "2025-01-31T12:00:00Z"
implementation: |
  Summary of {{{{ service }}}} since {{{{ since }}}} ({{{{ lines }}}} lines)
  {{% for level in levels or [] %}}- {{{{ level }}}}
  {{% endfor %}}{{% if note %}}Note: {{{{ note }}}}{{% endif %}}
"""

ARGS = json.dumps({"service": "api", "since": "2025-01-31T12:00:00Z", "levels": ["error"], "note": "x"})
FORMATS = ("yaml", "toml", "json")


def definition(name: str, i: int, fmt: str) -> str:
    text = TOOL.format(name=name, i=i)
    if fmt == "yaml":
        return text
    data = yaml.safe_load(text)
    return tomli_w.dumps(data) if fmt == "toml" else json.dumps(data, indent=2)


def make_project(root: Path, size: int, fmt: str) -> list[str]:
    """A project of ``size`` tools in ten directories; the names of the tool in the middle of
    the walk's order and of the last one."""
    (root / "tools").mkdir(parents=True)
    (root / ".cogtoolrc.yaml").write_text("# benchmark project\n")
    for i in range(size):
        sub = root / "tools" / f"group{i % 10}"
        sub.mkdir(exist_ok=True)
        (sub / f"tool_{i:05d}.{fmt}").write_text(definition(f"tool_{i:05d}", i, fmt))
    order = sorted(range(size), key=lambda i: (i % 10, i))
    return [f"tool_{order[len(order) // 2]:05d}", f"tool_{order[-1]:05d}"]


class Measure(t.NamedTuple):
    seconds: float
    peak_kib: int


def run_once(argv: list[str], cwd: Path, env: dict[str, str], stdin: str | None) -> tuple[float, int]:
    """One whole process: its wall time, and its own peak resident set (from wait4), in KiB."""
    with tempfile.TemporaryFile() as given, tempfile.TemporaryFile() as out:
        given.write((stdin or "").encode())
        given.seek(0)
        start = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=given, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            out.seek(0)
            raise SystemExit(
                f"{argv} failed ({os.waitstatus_to_exitcode(status)}): {out.read().decode(errors='replace')}"
            )
        return seconds, usage.ru_maxrss


def measure(argv: list[str], cwd: Path, env: dict[str, str], stdin: str | None, runs: int) -> Measure:
    """The median wall time of ``runs`` runs and the largest resident set among them."""
    samples = [run_once(argv, cwd, env, stdin) for _ in range(runs)]
    return Measure(statistics.median(s for s, _ in samples), max(k for _, k in samples))


def interleaved(jobs: dict[str, tuple[list[str], Path, dict[str, str], str | None]], runs: int) -> dict[str, Measure]:
    """Each job measured ``runs`` times, in rounds that run every job once: a machine that
    speeds up or slows down over the run weighs on every job alike, so their ratios hold."""
    samples: dict[str, list[tuple[float, int]]] = {name: [] for name in jobs}
    for _ in range(runs):
        for name, (argv, cwd, env, stdin) in jobs.items():
            samples[name].append(run_once(argv, cwd, env, stdin))
    return {
        name: Measure(statistics.median(s for s, _ in got), max(k for _, k in got)) for name, got in samples.items()
    }


def script(name: str) -> str:
    path = Path(sys.executable).parent / name
    found = str(path) if path.exists() else shutil.which(name)
    if not found:
        raise SystemExit(f"{name} is not installed next to {sys.executable} nor on PATH")
    return found


def make_pinned(root: Path, porcelain: str, env: dict[str, str], pinned: bool) -> None:
    """A project of a template tool and a command that runs a project script; with ``pinned``,
    both allowed to run without confirmation and pinned (``cogtools sync --yes``)."""
    import subprocess

    (root / "tools").mkdir(parents=True)
    (root / "scripts").mkdir()
    (root / ".cogtoolrc.yaml").write_text("tool_sources: [{local: ./tools}]\n")
    (root / "scripts" / "count.sh").write_text("echo 3\n")
    low = "risk_level: low\nside_effects: []\n"
    (root / "tools" / "hello.yaml").write_text(f"description: Hello.\n{low}implementation: Hello!\n")
    (root / "tools" / "count.yaml").write_text(
        f"description: Count.\n{low}implementation: {{kind: command, argv: [sh, scripts/count.sh]}}\n"
    )
    if pinned:
        (root / ".gemini").mkdir()
        (root / ".gemini" / "settings.json").write_text("{}\n")
        subprocess.run([porcelain, "sync", "--yes"], cwd=root, env=env, check=True, capture_output=True)


#: The confinement project: name -> definition (the confined declare side_effects).
CONFINE_TOOLS = {
    "count_confined": "side_effects: [filesystem_read]\nimplementation: {kind: command, argv: [sh, scripts/count.sh]}\n",
    "count_free": "implementation: {kind: command, argv: [sh, scripts/count.sh]}\n",
    "mean_confined": "side_effects: []\nimplementation: {kind: python, callable: 'statistics:mean'}\n",
    "mean_free": "implementation: {kind: python, callable: 'statistics:mean'}\n",
    "mean_template": "implementation: '{{ (data | sum) / (data | length) }}'\n",
}


def make_confined(root: Path) -> None:
    (root / "tools").mkdir(parents=True)
    (root / "scripts").mkdir()
    (root / ".cogtoolrc.yaml").write_text("tool_sources: [{local: ./tools}]\n")
    (root / "scripts" / "count.sh").write_text("echo 3\n")
    for name, body in CONFINE_TOOLS.items():
        parameters = "parameters: {data: {type: array, items: {type: number}}}\n" if "mean" in name else ""
        (root / "tools" / f"{name}.yaml").write_text(f"description: {name}.\n{parameters}{body}")


def cache_bytes(cache: Path) -> int:
    return sum(path.stat().st_size for path in cache.rglob("catalog-*"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", default="3,1000,10000")
    parser.add_argument("--formats", default=",".join(FORMATS))
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    options = parser.parse_args()
    discover, call, porcelain = script("cogtools-discover"), script("cogtools-call"), script("cogtools")
    py = sys.executable
    runs = options.runs
    report: dict[str, t.Any] = {"catalogs": []}
    with tempfile.TemporaryDirectory(prefix="cogtools-bench-") as tmp:
        base = {**os.environ, "COGTOOLS_CACHE_DIR": ""}
        base.pop("COGTOOLS_NO_CACHE", None)
        lint_root = Path(tmp) / "lint"
        make_project(lint_root, 10, "yaml")
        catalogs = []
        for fmt in options.formats.split(","):
            for size in (int(s) for s in options.sizes.split(",")):
                root = Path(tmp) / f"{fmt}{size}"
                middle, last = make_project(root, size, fmt)
                catalogs.append((fmt, size, root, middle, last, Path(tmp) / f"cache-{fmt}{size}"))
        time.sleep(2.1)  # every file ages past the cache's racy window
        # Cold: once per catalog (each run takes long at 10,000), cogtools then the reference.
        for fmt, size, root, _, _, cache in catalogs:
            env = {**base, "XDG_CACHE_HOME": str(cache)}
            cold_runs = 1 if size >= 1000 else runs
            report["catalogs"].append(
                {
                    "format": fmt,
                    "size": size,
                    "discover_cold": measure(
                        [discover], root, {**env, "COGTOOLS_NO_CACHE": "1"}, None, cold_runs
                    )._asdict(),
                    "reference_discover": measure(
                        [py, str(REFERENCE), "discover", str(root)], root, env, None, cold_runs
                    )._asdict(),
                }
            )
            measure([discover], root, env, None, 1)  # fills the cache
            report["catalogs"][-1]["cache_bytes_per_tool"] = cache_bytes(cache) / size
        # Warm: every job of every catalog in interleaved rounds.
        jobs: dict[str, tuple[list[str], Path, dict[str, str], str | None]] = {
            "python": ([py, "-c", "pass"], Path(tmp), base, None),
            "version": ([porcelain, "--version"], Path(tmp), base, None),
            "help": ([porcelain, "--help"], Path(tmp), base, None),
            "lint": ([porcelain, "lint"], lint_root, {**base, "XDG_CACHE_HOME": str(Path(tmp) / "lint-cache")}, None),
        }
        for fmt, size, root, middle, last, cache in catalogs:
            env = {**base, "XDG_CACHE_HOME": str(cache)}
            jobs[f"{fmt}{size} discover_warm"] = ([discover], root, env, None)
            jobs[f"{fmt}{size} call"] = ([call, middle], root, env, ARGS)
            jobs[f"{fmt}{size} call_last"] = ([call, last], root, env, ARGS)
            jobs[f"{fmt}{size} reference_call"] = ([py, str(REFERENCE), "call", str(root), middle], root, env, ARGS)
        for pinned in (True, False):
            root = Path(tmp) / f"pins-{pinned}"
            # each its own Gemini CLI home: the rules sync writes there are user-wide, and would let
            # the other project's unpinned tool of the same name through (which cogtools refuses)
            env = {
                **base,
                "XDG_CACHE_HOME": str(root) + "-cache",
                "XDG_STATE_HOME": str(root) + "-state",
                "GEMINI_CLI_HOME": str(root) + "-gemini",
            }
            make_pinned(root, porcelain, env, pinned)
            for tool in ("hello", "count"):
                jobs[f"{tool} {'pinned' if pinned else 'unpinned'}"] = ([call, tool], root, env, "{}")
        confined_root = Path(tmp) / "confine"
        make_confined(confined_root)
        env = {**base, "XDG_CACHE_HOME": str(confined_root) + "-cache"}
        for name in CONFINE_TOOLS:
            stdin = '{"data": [1, 2, 3]}' if "mean" in name else "{}"
            jobs[f"confine {name}"] = ([call, name], confined_root, env, stdin)
        measured = interleaved(jobs, runs)
        report["confine"] = {name: measured[f"confine {name}"]._asdict() for name in CONFINE_TOOLS}
        report["pins"] = {
            f"{tool} {state}": measured[f"{tool} {state}"]._asdict()
            for tool in ("hello", "count")
            for state in ("pinned", "unpinned")
        }
        for name in ("python", "version", "help", "lint"):
            report[name] = measured[name]._asdict()
        for row in report["catalogs"]:
            for job in ("discover_warm", "call", "call_last", "reference_call"):
                row[job] = measured[f"{row['format']}{row['size']} {job}"]._asdict()
    print_report(report)
    if options.json:
        options.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


def print_report(report: dict[str, t.Any]) -> None:
    def ms(m: dict[str, t.Any]) -> str:
        return f"{m['seconds'] * 1000:.0f} ms"

    def mib(m: dict[str, t.Any]) -> str:
        return f"{m['peak_kib'] / 1024:.0f} MiB"

    print(
        f"python -c pass: {ms(report['python'])}; cogtools --version: {ms(report['version'])}; "
        f"--help: {ms(report['help'])}; lint of 10 tools: {ms(report['lint'])}"
    )
    python = report["python"]["seconds"]
    print(
        f"\n{'format':>6} {'tools':>6} | {'call':>7} {'/py':>5} {'mem':>7} {'last':>7} {'ref':>7} {'ratio':>5} | "
        f"{'warm':>7} {'mem':>7} | {'cold':>8} {'ref':>8} {'ratio':>5} | {'cache/tool':>10}"
    )
    for r in report["catalogs"]:
        print(
            f"{r['format']:>6} {r['size']:>6} | {ms(r['call']):>7} {r['call']['seconds'] / python:>5.2f} "
            f"{mib(r['call']):>7} {ms(r['call_last']):>7} "
            f"{ms(r['reference_call']):>7} {r['call']['seconds'] / r['reference_call']['seconds']:>5.2f} | "
            f"{ms(r['discover_warm']):>7} {mib(r['discover_warm']):>7} | {ms(r['discover_cold']):>8} "
            f"{ms(r['reference_discover']):>8} {r['discover_cold']['seconds'] / r['reference_discover']['seconds']:>5.2f} | "
            f"{r['cache_bytes_per_tool']:>8.0f} B"
        )
    smallest = min(report["catalogs"], key=lambda r: r["size"])
    print(
        f"\na warm template call / python -c pass (the same run): {smallest['call']['seconds'] / python:.2f}"
        f" ({smallest['format']}, {smallest['size']} tools; target <= 2); a one-line template"
        f" {report['pins']['hello unpinned']['seconds'] / python:.2f}"
    )
    pins = report["pins"]
    print(
        "\npinned vs not: template call "
        f"{ms(pins['hello pinned'])} / {ms(pins['hello unpinned'])} "
        f"({pins['hello pinned']['seconds'] / pins['hello unpinned']['seconds']:.2f}); a command running a project script "
        f"{ms(pins['count pinned'])} / {ms(pins['count unpinned'])} "
        f"({pins['count pinned']['seconds'] / pins['count unpinned']['seconds']:.2f})"
    )
    confine = report["confine"]

    def versus(a: str, b: str) -> str:
        return f"{ms(confine[a])} / {ms(confine[b])} ({confine[a]['seconds'] / confine[b]['seconds']:.2f})"

    print(
        f"confined vs not: a command running a project script {versus('count_confined', 'count_free')};"
        f" a python function {versus('mean_confined', 'mean_free')};"
        f" a python function (its child) vs a template {versus('mean_free', 'mean_template')}"
    )
    by_format: dict[str, list[dict[str, t.Any]]] = {}
    for r in report["catalogs"]:
        by_format.setdefault(r["format"], []).append(r)
    print()
    for fmt, rows in by_format.items():
        small, big = min(rows, key=lambda r: r["size"]), max(rows, key=lambda r: r["size"])
        if small is not big:
            print(
                f"{fmt}: a warm call in {big['size']} tools / in {small['size']}: "
                f"{big['call']['seconds'] / small['call']['seconds']:.2f} (its last tool: "
                f"{big['call_last']['seconds'] / small['call']['seconds']:.2f}; target <= 1.5)"
            )


if __name__ == "__main__":
    raise SystemExit(main())
