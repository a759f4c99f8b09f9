"""What the audit log costs a call, as ratios within one run (issue 44):

- ``server``: ``cogtools mcp --http``'s CPU per ``tools/call`` of a template (2026-07-28, answered
  in front of the SDK) with ``--audit-log FILE`` against without (the helpers of
  :mod:`mcp_auth`: same tool, same load, rounds alternating);
- ``invoke``: :func:`cogtools.services.invoke.invoke` in process, auditing on against off (the
  line, its shape and keyed hash, the lock, the read of the last line, the write);
- ``cli``: a ``cogtools-call`` of the template, wall time, with the user's ``audit.log`` set
  against without (a call that writes a line leaves no record for the warm path: the next goes
  the whole way).

    python benchmarks/audit.py [--calls 2000] [--rounds 3] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mcp_auth import TOOLS, measure, serve, stop  # noqa: E402


def server_figures(root: Path, calls: int, rounds: int, log: Path) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"plain": [], "audit": []}
    for number in range(rounds):
        order = ("plain", "audit") if number % 2 == 0 else ("audit", "plain")
        for variant in order:
            server = serve(root, *(("--audit-log", str(log)) if variant == "audit" else ()))
            try:
                out[variant].append(measure(server, calls, lambda: None)["call"])
            finally:
                stop(server)
    return out


def invoke_figures(root: Path, calls: int, rounds: int, log: Path) -> dict[str, list[float]]:
    os.chdir(root)
    from cogtools.load.loading import load_project
    from cogtools.services import audit
    from cogtools.services.invoke import invoke, resolve

    loaded = load_project(environ=os.environ)
    out: dict[str, list[float]] = {"plain": [], "audit": []}
    for number in range(rounds):
        order = ("plain", "audit") if number % 2 == 0 else ("audit", "plain")
        for variant in order:
            if variant == "audit":
                audit.start([str(log)], {"name": "bench"}, os.environ)
            started = time.process_time()
            for _ in range(calls):
                invoke(resolve(loaded, "greet"), {"who": "bench"})
            out[variant].append((time.process_time() - started) * 1e6 / calls)
            audit.stop()
    return out


def cli_figures(root: Path, calls: int, rounds: int, log: Path, home: Path) -> dict[str, list[float]]:
    call = Path(sys.executable).parent / "cogtools-call"
    config = home / ".config" / "cogtools" / "config.yaml"
    config.parent.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    out: dict[str, list[float]] = {"plain": [], "audit": []}
    for number in range(rounds):
        order = ("plain", "audit") if number % 2 == 0 else ("audit", "plain")
        for variant in order:
            config.write_text(f"audit:\n  log: {log}\n" if variant == "audit" else "{}\n")
            time.sleep(2.5)  # (a file too new for its stat to vouch for it leaves no record)
            for _ in range(3):  # leaves its record, where it can
                subprocess.run(
                    [str(call), "greet"], input=b'{"who": "b"}', cwd=root, env=env, check=True, capture_output=True
                )
            started = time.perf_counter()
            for _ in range(calls):
                subprocess.run(
                    [str(call), "greet"], input=b'{"who": "b"}', cwd=root, env=env, check=True, capture_output=True
                )
            out[variant].append((time.perf_counter() - started) * 1000 / calls)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", type=Path)
    options = parser.parse_args()
    figures: dict[str, dict[str, list[float]]] = {}
    with tempfile.TemporaryDirectory(prefix="cogtools-audit-bench-") as workdir:
        root = Path(workdir) / "project"
        (root / "tools").mkdir(parents=True)
        (root / ".cogtoolrc.yaml").write_text("# benchmark\n")
        for name, text in TOOLS.items():
            (root / "tools" / f"{name}.yaml").write_text(text)
        log = Path(workdir) / "audit.jsonl"
        figures["server"] = server_figures(root, options.calls, options.rounds, log)
        figures["invoke"] = invoke_figures(root, options.calls, options.rounds, log)
        figures["cli"] = cli_figures(root, max(options.calls // 50, 5), options.rounds, log, Path(workdir) / "home")
        from cogtools.services import audit

        verdict = audit.verify(str(log))
    units = {"server": "ms of server CPU per call", "invoke": "us of CPU per invoke", "cli": "ms per cogtools-call"}
    print(f"audit log cost (median of {options.rounds} rounds):")
    medians: dict[str, dict[str, float]] = {}
    for kind, pair in figures.items():
        plain, audited = statistics.median(pair["plain"]), statistics.median(pair["audit"])
        medians[kind] = {"plain": plain, "audit": audited, "ratio": audited / plain if plain > 0 else 0.0}
        print(f"  {kind:<7} off {plain:.3f}  on {audited:.3f}  ratio {medians[kind]['ratio']:.2f}  ({units[kind]})")
    print(f"  the log: {verdict.lines} lines, {'whole' if not verdict.broken else f'{verdict.broken} breaks'}")
    if options.json:
        options.json.write_text(json.dumps({"medians": medians, "rounds": figures, "lines": verdict.lines}, indent=2))
    failed = any(value < 0 for pair in figures.values() for values in pair.values() for value in values)
    return 1 if failed or verdict.broken else 0


if __name__ == "__main__":
    sys.exit(main())
