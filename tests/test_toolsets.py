"""Toolsets from installed distributions: a real wheel, built and installed by pip."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import run_script, write

PYPROJECT = """\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "{dist}"
version = "1.0"

[project.entry-points."cogtools.toolsets"]
{entry_points}

[tool.setuptools]
packages = {packages}

[tool.setuptools.package-data]
"*" = ["*.yaml", "**/*.yaml"]
"""


def build_dist(root: Path, dist: str, entry_points: str, packages: list[str], files: dict[str, str]) -> Path:
    source = root / dist
    write(
        source / "pyproject.toml", PYPROJECT.format(dist=dist, entry_points=entry_points, packages=json.dumps(packages))
    )
    for name, text in files.items():
        write(source / name, text)
    return source


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory with two distributions installed by pip: one good toolset, one whose entry
    point names a package that does not exist."""
    root = tmp_path_factory.mktemp("dists")
    good = build_dist(
        root,
        "acme-ops",
        'ops = "acme_ops.tools"',
        ["acme_ops", "acme_ops.tools"],
        {
            "acme_ops/__init__.py": "",
            "acme_ops/tools/__init__.py": "",
            "acme_ops/tools/disk_usage.yaml": "description: Show disk usage.\nimplementation: 'disk usage of {{ path }}'\nparameters:\n  path: {type: string}\n",
            "acme_ops/tools/nested/uptime.yaml": "description: Show uptime.\nimplementation: up\n",
        },
    )
    broken = build_dist(root, "broken-toolset", 'gone = "no_such_package.tools"', [], {})
    target = root / "site"
    argv = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--no-deps",
        "--target",
        str(target),
        str(good),
        str(broken),
    ]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return target


@pytest.mark.slow
def test_installed_toolsets_contribute_their_tools(site: Path, project: Path) -> None:
    write(project / ".cogtoolrc.yaml", "tool_sources:\n  - local: ./tools\n  - packages\n")
    write(project / "tools" / "uptime.yaml", "description: Local uptime.\nimplementation: local\n")
    env = {**os.environ, "PYTHONPATH": str(site)}
    result = run_script("cogtools-discover", env=env, cwd=project)
    assert result.status == 0
    assert {d["name"] for d in json.loads(result.stdout)} == {"disk_usage", "uptime", "cogtools_problems"}
    lines = result.stderr.splitlines()
    assert any("toolset 'gone' of broken-toolset cannot be loaded" in line for line in lines), result.stderr
    assert any("uptime" in line and "shadowed by tools/uptime.yaml" in line for line in lines), result.stderr
    listing = run_script("cogtools", "list", env=env, cwd=project).stdout
    (row,) = [line for line in listing.splitlines() if line.startswith("disk_usage")]
    assert row.endswith("(package:acme-ops:ops)") and "acme_ops/tools/disk_usage.yaml" in row
    called = run_script("cogtools-call", "disk_usage", stdin='{"path": "/"}', env=env, cwd=project)
    assert (called.status, called.stdout, called.stderr) == (0, "disk usage of /", "")


@pytest.mark.slow
def test_packages_are_read_only_when_configured(site: Path, project: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(site)}
    result = run_script("cogtools-discover", env=env, cwd=project)
    assert json.loads(result.stdout) == [] and result.stderr == ""
