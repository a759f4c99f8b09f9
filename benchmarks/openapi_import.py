"""How ``cogtools import openapi`` grows with a document's operations, as ratios within one run.

Builds OpenAPI 3.0 documents (JSON) of 2,000 and 20,000 operations (``--sizes``), each operation
as real documents write them: a path parameter, a query parameter and a header named by
``$ref``, a JSON body whose schema names others (an ``allOf`` of a shared base and its own
properties, a nested object, an array of references), responses named by ``$ref``, tags, a
security scheme; one in ten has no operationId, so its name comes from the method and the path.
Then, in interleaved rounds (a machine whose speed drifts weighs on every size alike), whole
processes of ``cogtools import openapi DOC --into DIR --max-operations N`` (a fresh directory each
time), and reports for each size:

- the median wall time and CPU time (the process and its children: the validator runs in one),
  and the largest resident set;
- the time per operation, and the ratio of the largest size's to the smallest's: linear work is
  the ratio of the sizes (20,000 / 2,000: 10x), less what every run pays once (start-up);
- once per size, in this process, the CPU time of each phase: reading (the JSON parse, the check
  that every reference is within the document, the count of operations), the validator (its
  child process), and the import (each tool built, rendered and loaded back as a tool file).

Before issue 41 a document of 20,000 operations ran past 120 s: naming them compared each new
name with every one before it, and the validator kept the operationIds and schemas it had seen in
lists. Nothing here asserts a time: the figures are printed (and written with ``--json``) for
people to compare. Run it with the interpreter cogtools is installed in:

    python benchmarks/openapi_import.py [--runs 3] [--sizes 2000,20000] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import typing as t
from pathlib import Path


def document(operations: int) -> dict[str, t.Any]:
    """An OpenAPI 3.0 document of ``operations`` operations, two per path (GET and PUT)."""
    ref = "#/components/{}/{}".format
    paths: dict[str, t.Any] = {}
    for n in range(operations):
        path = f"/stores/{{storeId}}/things{n // 2}"
        method = "get" if n % 2 == 0 else "put"
        spec: dict[str, t.Any] = {
            "summary": f"Thing {n // 2}, {method}.",
            "tags": [f"group{n % 40}"],
            "parameters": [
                {"name": "storeId", "in": "path", "required": True, "schema": {"type": "integer", "minimum": 1}},
                {"$ref": ref("parameters", "Limit")},
                {"$ref": ref("parameters", "RequestId")},
            ],
            "responses": {"200": {"$ref": ref("responses", "Thing")}, "404": {"$ref": ref("responses", "Missing")}},
        }
        if n % 10:
            spec["operationId"] = f"{method}Thing{n // 2}"
        if method == "put":
            spec["requestBody"] = {
                "required": True,
                "content": {
                    "application/json": {
                        "schema": {
                            "allOf": [
                                {"$ref": ref("schemas", "Base")},
                                {
                                    "type": "object",
                                    "required": ["name"],
                                    "properties": {
                                        "name": {"type": "string", "maxLength": 80},
                                        "size": {"type": "integer", "minimum": 0},
                                        "where": {"$ref": ref("schemas", "Place")},
                                        "labels": {"type": "array", "items": {"$ref": ref("schemas", "Label")}},
                                    },
                                },
                            ]
                        },
                        "example": {"name": f"thing {n}", "size": 3},
                    }
                },
            }
        paths.setdefault(path, {})[method] = spec
    return {
        "openapi": "3.0.3",
        "info": {"title": "Benchmark Stores API", "version": "1.0"},
        "servers": [{"url": "https://api.stores.example/v1"}],
        "security": [{"token": []}],
        "paths": paths,
        "components": {
            "securitySchemes": {"token": {"type": "http", "scheme": "bearer"}},
            "parameters": {
                "Limit": {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100}},
                "RequestId": {"name": "X-Request-Id", "in": "header", "schema": {"type": "string", "format": "uuid"}},
            },
            "responses": {
                "Thing": {
                    "description": "The thing.",
                    "content": {"application/json": {"schema": {"$ref": ref("schemas", "Base")}}},
                },
                "Missing": {"description": "No such thing."},
            },
            "schemas": {
                "Base": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer", "readOnly": True},
                        "note": {"type": "string", "nullable": True},
                    },
                },
                "Place": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}, "shelf": {"type": "integer"}},
                },
                "Label": {"type": "string", "enum": ["red", "green", "blue"]},
            },
        },
    }


class Sample(t.NamedTuple):
    wall: float
    cpu: float
    peak_kib: int


def run_once(argv: list[str], cwd: Path, out: Path) -> Sample:
    """One whole process, writing into ``out`` (removed first): its wall time, its CPU time and
    its children's (wait4), and its peak resident set, in KiB."""
    shutil.rmtree(out, ignore_errors=True)
    start = time.perf_counter()
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            log.seek(0)
            raise SystemExit(f"{argv} failed: {log.read().decode(errors='replace')[-2000:]}")
    return Sample(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss)


def _cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def phases(path: Path, operations: int) -> dict[str, float]:
    """The CPU seconds of each phase of one import, in this process (the validator in its child)."""
    from cogtools.core.limits import read_file
    from cogtools.importers import openapi

    start = _cpu()
    data = read_file(path, openapi.MAX_DOCUMENT_BYTES)
    check = openapi._validate
    openapi._validate = lambda document: None  # measured on its own, below
    try:
        document = openapi.parse_document(data, str(path), max_operations=operations)
    finally:
        openapi._validate = check
    read = _cpu()
    check(document)
    checked = _cpu()
    imported = openapi.import_document(document)
    done = _cpu()
    assert len(imported.tools) == operations, len(imported.tools)
    return {"read": read - start, "check": checked - read, "import": done - checked}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", default="2000,20000")
    parser.add_argument("--json", dest="json_path")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    cogtools = str(Path(sys.executable).parent / "cogtools")
    with tempfile.TemporaryDirectory(prefix="cogtools-openapi-bench-") as tmp:
        root = Path(tmp)
        (root / ".cogtoolrc.yaml").write_text("# benchmark project\n")
        jobs = {}
        for size in sizes:
            path = root / f"api-{size}.json"
            path.write_text(json.dumps(document(size)))
            argv = [cogtools, "import", "openapi", path.name, "--into", f"out-{size}", "--max-operations", str(size)]
            jobs[size] = (argv, root / f"out-{size}")
        samples: dict[int, list[Sample]] = {size: [] for size in sizes}
        for _ in range(args.runs):
            for size, (argv, out) in jobs.items():
                samples[size].append(run_once(argv, root, out))
            written = len(list((root / f"out-{sizes[-1]}").iterdir()))
            assert written == sizes[-1], written
        split = {size: phases(root / f"api-{size}.json", size) for size in sizes}
    results: dict[str, t.Any] = {}
    for size in sizes:
        got = samples[size]
        wall, cpu = statistics.median(s.wall for s in got), statistics.median(s.cpu for s in got)
        results[str(size)] = {
            "wall_s": round(wall, 3),
            "cpu_s": round(cpu, 3),
            "ms_per_operation": round(1000 * wall / size, 3),
            "peak_mib": round(max(s.peak_kib for s in got) / 1024, 1),
            "phases_cpu_s": {name: round(value, 3) for name, value in split[size].items()},
        }
        row = results[str(size)]
        print(
            f"{size:>6} operations: {row['wall_s']:7.2f} s wall, {row['cpu_s']:7.2f} s CPU,"
            f" {row['ms_per_operation']:.2f} ms per operation, {row['peak_mib']} MiB;"
            f" phases (CPU s): " + ", ".join(f"{k} {v:.2f}" for k, v in row["phases_cpu_s"].items())
        )
    small, large = results[str(sizes[0])], results[str(sizes[-1])]
    results["ratio"] = {
        "sizes": round(sizes[-1] / sizes[0], 2),
        "wall": round(large["wall_s"] / small["wall_s"], 2),
        "cpu": round(large["cpu_s"] / small["cpu_s"], 2),
        **{
            name: round(large["phases_cpu_s"][name] / max(small["phases_cpu_s"][name], 1e-9), 2)
            for name in small["phases_cpu_s"]
        },
    }
    ratio = results["ratio"]
    print(
        f"{sizes[-1]} / {sizes[0]} operations ({ratio['sizes']}x): wall {ratio['wall']}x, CPU {ratio['cpu']}x;"
        f" phases: read {ratio['read']}x, check {ratio['check']}x, import {ratio['import']}x"
    )
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
