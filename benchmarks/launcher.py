"""What the npm package's launcher costs: its first runs, and what it adds to a warm
``cogtools-call`` and to a warm ``cogtools mcp`` start, as ratios within one run.

Builds the npm package (``npm/pack.py``; or takes ``--tarball``), installs it as a dev dependency
of a temporary JavaScript project (``npm install --save-dev --offline``) that has one template
tool, and times its first runs, in a fresh ``HOME`` in the temporary directory (so pip's own
wheel cache is cold, unless ``--pip-cache DIR`` names one), with pip's index as configured:

- ``first_run_core``: ``cogtools --version``, which installs the core into the launchers' cached
  environment;
- ``first_run_mcp_extra``: then ``cogtools setup``, which adds the MCP extra (what ``cogtools
  mcp``'s first run installs);
- ``first_run_whole``: ``cogtools setup`` in another fresh ``HOME``, the core and the extra at
  once (what ``cogtools mcp``'s first run installs where nothing is);

then a warm ``cogtools mcp`` start, as a client sees it (from the start of the process to the
answer of ``initialize``; the median of ``--mcp-runs``) by the environment's own program, the
launcher, and ``npx``. Then, in interleaved rounds (a machine whose speed drifts weighs on
every job alike), whole processes of the same call with the same stdin:

- ``direct``: the cached environment's own ``bin/cogtools-call``, what the launcher execs;
- ``launcher``: ``node_modules/.bin/cogtools-call``, the launcher (sh: one test, then exec);
- ``npx``: ``npx --offline cogtools-call`` in the project, which starts Node.js first (why Gemini
  CLI's settings should name ``node_modules/.bin`` and not npx);
- ``sh``: ``sh -c :``, the floor of any sh launcher;
- ``launcher_alone`` and ``true``: the launcher's own work, without Python's noise: the same
  launcher pointed (by ``HOME``) at an environment whose programs are ``true``, and
  ``true`` itself;

each job taking each place in a round in turn (what runs just before a job weighs on it).

Reported: the median of each; the launcher's and npx's cost over ``direct``, the median of the
differences within a round, in milliseconds, and the ratio of the medians; and the launcher's own
work (``launcher_alone`` over ``true``) as a share of the direct call (target: at most 5%). Nothing here asserts a time:
the figures are printed (and written with ``--json``) for people to compare. Needs node and npm;
run it with the interpreter cogtools is installed in (it builds the wheel with its pip):

    python benchmarks/launcher.py [--runs 50] [--mcp-runs 10] [--pip-cache DIR] [--tarball FILE] [--json FILE]
"""

from __future__ import annotations

import argparse
import hashlib
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

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench import Measure, run_once  # noqa: E402

TOOL = """\
description: Greet someone.
parameters:
  who: {type: string, description: Whom to greet.}
implementation: "Hello, {{ who }}!"
"""
ARGS = '{"who": "Ada"}'
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
}


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    """The wall time of one whole process (stdin empty, not a terminal), which must succeed."""
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{argv} failed ({proc.returncode}): {proc.stderr[-3000:]}")
    return seconds


def mcp_start(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    """From the start of a stdio server to its answer to ``initialize``, as a client waits."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(INITIALIZE) + "\n")
    proc.stdin.flush()
    answer = proc.stdout.readline()
    seconds = time.perf_counter() - start
    proc.stdin.close()
    proc.wait(timeout=60)
    if '"serverInfo"' not in answer:
        raise SystemExit(f"{argv} answered initialize with {answer!r}")
    return seconds


def build(out: Path) -> Path:
    proc = subprocess.run(
        [sys.executable, str(HERE.parent / "npm" / "pack.py"), "--out", str(out)], capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise SystemExit(f"npm/pack.py failed: {proc.stderr}")
    return Path(proc.stdout.strip())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--mcp-runs", type=int, default=10, help="warm cogtools mcp starts of each kind")
    parser.add_argument("--pip-cache", type=Path, help="pip's wheel cache for the first runs (default: a cold one)")
    parser.add_argument("--tarball", type=Path, help="an npm/pack.py tarball (default: build one)")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    options = parser.parse_args()
    for program in ("node", "npm", "npx"):
        if shutil.which(program) is None:
            raise SystemExit(f"{program} is not on PATH")
    with tempfile.TemporaryDirectory(prefix="cogtools-launcher-bench-") as tmp:
        root = Path(tmp)
        tarball = options.tarball.resolve() if options.tarball else build(root / "dist")
        project = root / "project"
        (project / "tools").mkdir(parents=True)
        (project / "package.json").write_text('{"name": "bench", "version": "1.0.0", "private": true}\n')
        (project / ".cogtoolrc.yaml").write_text("# benchmark project\n")
        (project / "tools" / "hello.yaml").write_text(TOOL)
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("COGTOOLS_")},
            "HOME": str(root / "home"),
            "XDG_CACHE_HOME": str(root / "home" / ".cache"),
            "npm_config_cache": str(root / "npm-cache"),
            "npm_config_update_notifier": "false",
            "npm_config_fund": "false",
            "npm_config_audit": "false",
        }
        if options.pip_cache:
            env["PIP_CACHE_DIR"] = str(options.pip_cache.resolve())
        subprocess.run(
            ["npm", "install", "--save-dev", "--offline", str(tarball)],
            cwd=project,
            env=env,
            check=True,
            capture_output=True,
        )
        launcher = project / "node_modules" / ".bin" / "cogtools-call"
        porcelain = project / "node_modules" / ".bin" / "cogtools"
        first_core = timed([str(porcelain), "--version"], project, env)
        first_extra = timed([str(porcelain), "setup"], project, env)
        home2 = {"HOME": str(root / "home2"), "XDG_CACHE_HOME": str(root / "home2" / ".cache")}
        first_whole = timed([str(porcelain), "setup"], project, {**env, **home2})
        package = project / "node_modules" / "cogtools"
        version = json.loads((package / "package.json").read_text())["version"]
        wheel = (package / "wheels" / f"cogtools-{version}-py3-none-any.whl").read_bytes()
        key = f"{version}-{hashlib.sha256(wheel).hexdigest()[:12]}"  # npm/pack.py's cache_key
        direct = root / "home" / ".cache" / "cogtools" / "npm" / key / "bin" / "cogtools-call"
        servers = {
            "direct": [str(direct.parent / "cogtools"), "mcp"],
            "launcher": [str(porcelain), "mcp"],
            "npx": ["npx", "--offline", "cogtools", "mcp"],
        }
        starts: dict[str, list[float]] = {name: [] for name in servers}
        for _ in range(options.mcp_runs):
            for name, argv in servers.items():
                starts[name].append(mcp_start(argv, project, env))
        true = shutil.which("true") or "/bin/true"
        fake = root / "fake" / ".cache" / "cogtools" / "npm" / key / "bin"
        fake.mkdir(parents=True)
        for name in ("python", "cogtools-call"):
            (fake / name).symlink_to(true)
        jobs: dict[str, tuple[list[str], Path, dict[str, str], str | None]] = {
            "direct": ([str(direct), "hello"], project, env, ARGS),
            "launcher": ([str(launcher), "hello"], project, env, ARGS),
            "npx": (["npx", "--offline", "cogtools-call", "hello"], project, env, ARGS),
            "sh": (["sh", "-c", ":"], project, env, None),
            "launcher_alone": ([str(launcher), "hello"], project, {**env, "HOME": str(root / "fake")}, ARGS),
            "true": ([true, "hello"], project, env, ARGS),
        }
        samples: dict[str, list[tuple[float, int]]] = {name: [] for name in jobs}
        order = list(jobs)
        for _ in range(options.runs):
            order = order[1:] + order[:1]  # each job takes each place in a round in turn
            for name in order:
                argv, cwd, job_env, stdin = jobs[name]
                samples[name].append(run_once(argv, cwd, job_env, stdin))
    measured = {
        name: Measure(statistics.median(s for s, _ in got), max(k for _, k in got)) for name, got in samples.items()
    }
    added = {
        name: statistics.median(a - b for (a, _), (b, _) in zip(samples[name], samples["direct"], strict=True))
        for name in ("launcher", "npx")
    }
    added["launcher_alone"] = statistics.median(
        a - b for (a, _), (b, _) in zip(samples["launcher_alone"], samples["true"], strict=True)
    )
    report: dict[str, t.Any] = {
        "version": version,
        "runs": options.runs,
        "first_run_core_seconds": first_core,
        "first_run_mcp_extra_seconds": first_extra,
        "first_run_whole_seconds": first_whole,
        "mcp_start_seconds": {name: statistics.median(got) for name, got in starts.items()},
        **{name: m._asdict() for name, m in measured.items()},
        "added_seconds": added,
    }
    print_report(report, measured)
    if options.json:
        options.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


def print_report(report: dict[str, t.Any], measured: dict[str, Measure]) -> None:
    def ms(seconds: float) -> str:
        return f"{seconds * 1000:.1f} ms"

    base = measured["direct"].seconds
    print(
        f"cogtools {report['version']} from npm; first run: the core {report['first_run_core_seconds']:.1f} s,"
        f" then the MCP extra (cogtools setup) {report['first_run_mcp_extra_seconds']:.1f} s;"
        f" both at once {report['first_run_whole_seconds']:.1f} s"
    )
    started = report["mcp_start_seconds"]
    print(
        "a warm cogtools mcp, start to the answer of initialize: "
        + ", ".join(f"{name} {ms(seconds)}" for name, seconds in started.items())
    )
    print(f"a warm template call, median of {report['runs']} interleaved rounds:")
    for name in ("direct", "launcher", "npx"):
        m = measured[name]
        added = report["added_seconds"].get(name)
        extra = "" if added is None else f"  (adds {ms(added)}; ratio {m.seconds / base:.3f})"
        print(f"  {name:>8}: {ms(m.seconds):>9} {m.peak_kib / 1024:5.0f} MiB{extra}")
    print(f"  {'sh':>8}: {ms(measured['sh'].seconds):>9}  (sh -c :, the floor of an sh launcher)")
    own = report["added_seconds"]["launcher_alone"]
    print(
        f"the launcher's own work: {ms(own)} (exec'ing true: {ms(measured['launcher_alone'].seconds)}"
        f" vs true: {ms(measured['true'].seconds)})"
    )
    share = own / base
    print(f"it adds {share:.1%} to a warm call: {'PASS' if share <= 0.05 else 'FAIL'} (target <= 5%)")


if __name__ == "__main__":
    raise SystemExit(main())
