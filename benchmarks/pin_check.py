"""What checking a pin costs against how many packages a project has installed
(:func:`cogtools.trust.pins.closure`: run at every call of a tool that runs unasked, and for each
tool at every sync), as ratios within one run to the same tool in a project of few packages.

Each project has a fake jest (``jest`` through ``node_modules/.bin``, as npm installs it) whose pin
holds what babel's per-file look-up finds in every directory of its tests (a look: one listing a
directory) and its package, declared in ``code:``, pinned whole with every package it imports;
they differ in how many packages jest imports (each of 12 files in 3 folders):

- ``few``: jest imports 3 packages;
- ``many``: jest imports 239 (issue 43's p4 had 241 installed: the check took 48 s a call there
  until ``_Cover.add`` stopped asking every package whether each named place was inside it);
- ``many_deep``: as ``many``, with 4 times the test directories.

What ``many`` costs over ``few`` is pinning 60 times as many packages (each from its stamps, a
stat per file), not packages x places: measured at b829176 (before), ``many`` 26x and
``many_deep`` 29x; at 526d4ca, 7x and 9.5x (1,080 places named where no file is). Since looks
(a pin records what each directory holds, not each name in each), ``many_deep`` costs what
``many`` does: 17x few, both (few itself 2.7 times cheaper).

    python benchmarks/pin_check.py [--rounds 5] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import typing as t
from pathlib import Path


def package(root: Path, name: str, program: str | None = None, imports: t.Sequence[str] = ()) -> None:
    """An installed package of 12 files in 3 folders (and its program in .bin), importing
    ``imports``."""
    home = root / "node_modules" / name
    for folder in ("lib", "lib/util", "dist"):
        (home / folder).mkdir(parents=True, exist_ok=True)
        for i in range(4):
            (home / folder / f"m{i}.js").write_text(f"module.exports = {i};\n")
    (home / "lib" / "m0.js").write_text("".join(f"require('{other}');\n" for other in imports))
    manifest = {
        "name": name,
        "version": "1.0.0",
        "main": "lib/m0.js",
        **({"bin": {program: "cli.js"}} if program else {}),
    }
    (home / "package.json").write_text(json.dumps(manifest))
    if program:
        (home / "cli.js").write_text("#!/usr/bin/env node\nrequire('./lib/m0.js');\n")
        os.chmod(home / "cli.js", 0o755)
        (root / "node_modules" / ".bin").mkdir(exist_ok=True)
        os.symlink(f"../{name}/cli.js", root / "node_modules" / ".bin" / program)


def project(root: Path, packages: int, test_directories: int) -> None:
    root.mkdir()
    names = [f"dep{i}" for i in range(packages - 1)]
    dependencies = dict.fromkeys(["jest", *names], "1.0.0")
    (root / "package.json").write_text(json.dumps({"name": "p", "devDependencies": dependencies}))
    package(root, "jest", "jest", names)  # (as jest's own packages are: each pinned whole)
    for name in names:
        package(root, name)
    for i in range(test_directories):
        (root / "test" / f"t{i}").mkdir(parents=True)
        (root / "test" / f"t{i}" / "a.test.js").write_text("test('a', () => {});\n")
    (root / "jest.config.js").write_text("module.exports = {testEnvironment: 'node'};\n")
    (root / "tools").mkdir()
    (root / "tools" / "jest_run.yaml").write_text(
        "description: Run the tests.\nrisk_level: low\nside_effects: [filesystem_read]\ncode: [node_modules/jest]\n"
        "implementation: {kind: command, argv: [jest]}\n"
    )
    (root / ".cogtoolrc.yaml").write_text("tool_sources: [{local: tools}]\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    from cogtools.load.catalog import load_catalog
    from cogtools.trust.pins import closure

    cases = {"few": (4, 16), "many": (240, 16), "many_deep": (240, 64)}
    with tempfile.TemporaryDirectory() as directory:
        environ = {**os.environ, "HOME": directory, "XDG_CACHE_HOME": os.path.join(directory, "cache")}
        loaded = {}
        for name, (packages, tests) in cases.items():
            root = Path(directory) / name
            project(root, packages, tests)
            catalog = load_catalog(root, environ)
            loaded[name] = (catalog.tools["jest_run"], catalog.project)
        seconds: dict[str, list[float]] = {name: [] for name in cases}
        sizes: dict[str, int] = {}
        for _ in range(args.rounds):
            for name, (tool, found) in loaded.items():
                started = time.process_time()
                pinned = closure(tool, found)
                seconds[name].append(time.process_time() - started)
                sizes[name] = len(pinned["files"])
    few = statistics.median(seconds["few"])
    figures = {
        name: {
            "cpu_ms": round(statistics.median(values) * 1000, 2),
            "ratio": round(statistics.median(values) / few, 2),
            "places": sizes[name],
        }
        for name, values in seconds.items()
    }
    for name, figure in figures.items():
        print(
            f"{name:10} {figure['cpu_ms']:9.2f} ms CPU  {figure['ratio']:6.2f}x few  ({figure['places']} places pinned)"
        )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
