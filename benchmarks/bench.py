"""Whole-process timings of cogtools-discover and cogtools-call, as ratios within one run.

Builds projects of 10, 100 and 1,000 tools in a temporary directory and times, as whole
processes (several runs, median):

- ``python -c pass``, the floor of any Python command;
- ``cogtools-discover`` warm (its cache filled by an earlier run) and cold (no cache);
- ``cogtools-call`` of a template tool;
- the same two jobs done by ``reference.py`` (PyYAML + jsonschema + Jinja2, the obvious way).

Targets (DESIGN §9, issue 2): a call at most 0.6x the reference call; discovery of 1,000 tools at
most 0.5x the reference discovery. Run it with the interpreter cogtools is installed in:

    python benchmarks/bench.py [--runs 7] [--sizes 10,100,1000] [--json FILE]
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
from pathlib import Path

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


def make_project(root: Path, size: int) -> str:
    (root / "tools").mkdir(parents=True)
    (root / ".cogtoolrc.yaml").write_text("# benchmark project\n")
    for i in range(size):
        sub = root / "tools" / f"group{i % 10}"
        sub.mkdir(exist_ok=True)
        (sub / f"tool_{i:04d}.yaml").write_text(TOOL.format(name=f"tool_{i:04d}", i=i))
    return f"tool_{size // 2:04d}"


def timed(argv: list[str], cwd: Path, env: dict[str, str], stdin: str | None, runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        result = subprocess.run(argv, cwd=cwd, env=env, input=stdin, capture_output=True, text=True)
        samples.append(time.perf_counter() - start)
        if result.returncode != 0:
            raise SystemExit(f"{argv} failed ({result.returncode}): {result.stderr or result.stdout}")
    return statistics.median(samples)


def script(name: str) -> str:
    path = Path(sys.executable).parent / name
    found = str(path) if path.exists() else shutil.which(name)
    if not found:
        raise SystemExit(f"{name} is not installed next to {sys.executable} nor on PATH")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--sizes", default="10,100,1000")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    options = parser.parse_args()
    discover, call = script("cogtools-discover"), script("cogtools-call")
    py = sys.executable
    results = []
    with tempfile.TemporaryDirectory(prefix="cogtools-bench-") as tmp:
        env = {**os.environ, "XDG_CACHE_HOME": os.path.join(tmp, "cache"), "COGTOOLS_CACHE_DIR": ""}
        cold_env = {**env, "COGTOOLS_NO_CACHE": "1"}
        floor = timed([py, "-c", "pass"], Path(tmp), env, None, options.runs)
        for size in (int(s) for s in options.sizes.split(",")):
            root = Path(tmp) / f"p{size}"
            name = make_project(root, size)
            # Let every file age past the cache's racy window, then fill the cache once.
            time.sleep(2.1)
            timed([discover], root, env, None, 1)
            row = {
                "size": size,
                "python": floor,
                "discover_warm": timed([discover], root, env, None, options.runs),
                "discover_cold": timed([discover], root, cold_env, None, max(1, options.runs // 2)),
                "reference_discover": timed([py, str(REFERENCE), "discover", str(root)], root, env, None, options.runs),
                "call": timed([call, name], root, env, ARGS, options.runs),
                "reference_call": timed([py, str(REFERENCE), "call", str(root), name], root, env, ARGS, options.runs),
            }
            results.append(row)
    print(f"{'tools':>6} {'python':>8} {'discover':>9} {'cold':>8} {'ref.disc':>9} {'ratio':>6} "
          f"{'call':>8} {'ref.call':>9} {'ratio':>6}")
    for r in results:
        d_ratio = r["discover_warm"] / r["reference_discover"]
        c_ratio = r["call"] / r["reference_call"]
        print(
            f"{r['size']:>6} {r['python'] * 1000:>6.0f}ms {r['discover_warm'] * 1000:>7.0f}ms "
            f"{r['discover_cold'] * 1000:>6.0f}ms {r['reference_discover'] * 1000:>7.0f}ms {d_ratio:>6.2f} "
            f"{r['call'] * 1000:>6.0f}ms {r['reference_call'] * 1000:>7.0f}ms {c_ratio:>6.2f}"
        )
        r.update(discover_ratio=d_ratio, call_ratio=c_ratio)
    worst_call = max(r["call_ratio"] for r in results)
    big = [r for r in results if r["size"] >= 1000]
    print(f"\ncall / reference call, worst: {worst_call:.2f} (target <= 0.60)")
    if big:
        print(f"discover of {big[-1]['size']} / reference: {big[-1]['discover_ratio']:.2f} (target <= 0.50)")
    if options.json:
        options.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
