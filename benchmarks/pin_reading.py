"""What reading a pinned command's code costs (:func:`cogtools.run.program_files.command_code`,
run at every call of a tool that runs unasked and at every sync), as ratios within one run to a
plain reading (``node x.js`` importing one module), for inputs the workspace can write:

- ``script``: a 1,200-line shell script of ordinary commands (every word of each is asked whether
  it names a package's program);
- ``dag``: a package.json whose scripts run each other 4 by 4, 8 deep (4**8 ways to reach the last);
- ``strings``: a ``.mocharc.json`` of 512 commands naming mocha itself;
- ``options``: 128 scripts each running all the others through ``run-s`` with an option of its own;
- ``loose``: an rc file of 200,000 empty lines and a line of 3,000 spaces (attack10's MAJOR-11: a
  pattern across lines took 365 s, one matching spaces on both sides of a value 21 s);
- ``env``: a ``.env`` of 200,000 empty lines before its NODE_OPTIONS, which every program may
  load (attack11's MAJOR-E: a pattern across lines took 113 s at 65,536).

Before issue 43's stop 52, ``dag`` took 68 s and ``strings`` about 20 minutes on the machine where
``plain`` takes under a millisecond; the bounded reading keeps each under half a second (35-450 ms).

    python benchmarks/pin_reading.py [--rounds 5] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path


def installed(root: Path, name: str, program: str) -> None:
    (root / "node_modules" / name).mkdir(parents=True)
    (root / "node_modules" / name / "package.json").write_text(json.dumps({"name": name, "version": "1.0.0"}))
    (root / "node_modules" / name / "cli.js").write_text("\n")
    os.chmod(root / "node_modules" / name / "cli.js", 0o755)
    (root / "node_modules" / ".bin").mkdir(exist_ok=True)
    os.symlink(f"../{name}/cli.js", root / "node_modules" / ".bin" / program)


def projects(top: Path) -> dict[str, tuple[Path, list[str]]]:
    made: dict[str, tuple[Path, list[str]]] = {}
    plain = top / "plain"
    plain.mkdir()
    (plain / "x.js").write_text("require('./y.js');\n")
    (plain / "y.js").write_text("\n")
    made["plain"] = (plain, ["node", "x.js"])
    script = top / "script"
    script.mkdir()
    lines = ["echo hello world foo", "grep -n pattern a.txt b.txt", "cat a b | sort | uniq -c"] * 400
    (script / "big.sh").write_text("#!/bin/sh\n" + "\n".join(lines) + "\n")
    made["script"] = (script, ["sh", "big.sh"])
    dag = top / "dag"
    dag.mkdir()
    scripts = {
        f"s{i}_{j}": " && ".join(f"npm run s{i + 1}_{k}" for k in range(4)) if i < 7 else "node x.js"
        for i in range(8)
        for j in range(4)
    }
    (dag / "package.json").write_text(json.dumps({"name": "d", "scripts": {**scripts, "top": scripts["s0_0"]}}))
    (dag / "x.js").write_text("\n")
    made["dag"] = (dag, ["npm", "run", "top"])
    strings = top / "strings"
    strings.mkdir()
    installed(strings, "mocha", "mocha")
    (strings / ".mocharc.json").write_text(json.dumps({"notes": [f"mocha a{i}" for i in range(512)]}))
    made["strings"] = (strings, ["mocha"])
    options = top / "options"
    options.mkdir()
    installed(options, "npm-run-all", "run-s")
    many = {f"s:{i}": " && ".join(f"run-s --x{i} s:{j}" for j in range(128)) for i in range(128)}
    (options / "package.json").write_text(json.dumps({"name": "o", "scripts": many}))
    made["options"] = (options, ["npm", "run", "s:0"])
    loose = top / "loose"
    loose.mkdir()
    installed(loose, "zlint", "zlint")
    (loose / ".zlintrc").write_text("\n" * 200_000 + "extendsx\n" + "a=b" + " " * 3000 + "x\n")
    made["loose"] = (loose, ["zlint"])
    env = top / "env"
    env.mkdir()
    (env / "x.js").write_text("\n")
    (env / ".env").write_text("A=1\n" + "\n" * 200_000 + "NODE_OPTIONS=--require ./x.js\n")
    made["env"] = (env, ["node", "x.js"])
    return made


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    from cogtools.run.program_files import command_code

    with tempfile.TemporaryDirectory() as directory:
        made = projects(Path(directory))
        seconds: dict[str, list[float]] = {name: [] for name in made}
        for _ in range(args.rounds):
            for name, (root, command) in made.items():
                started = time.process_time()
                command_code(command, root, root)
                seconds[name].append(time.process_time() - started)
    plain = statistics.median(seconds["plain"])
    figures = {
        name: {
            "cpu_ms": round(statistics.median(values) * 1000, 2),
            "ratio": round(statistics.median(values) / plain, 1),
        }
        for name, values in seconds.items()
    }
    for name, figure in figures.items():
        print(f"{name:8} {figure['cpu_ms']:9.2f} ms CPU  {figure['ratio']:8.1f}x plain")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
