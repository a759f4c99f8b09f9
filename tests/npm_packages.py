"""Pinned npm packages the tests drive (the real Gemini CLI core, the MCP Inspector, the MCP
conformance suite, and a Node.js of its own for a package that needs a newer one), installed
once per version into a cache directory outside the clone (``~/.cache/cogtools/NAME-VERSION``,
or the directory an environment variable names), under a lock, in a scratch directory that is
moved into place and marked complete only once npm has succeeded: a half-finished install is
repaired, not trusted. Without node and npm the tests that need them skip, saying why; under CI
(``CI`` set) they fail instead."""

from __future__ import annotations

import fcntl
import json
import os
import platform
import shutil
import subprocess
import sys
import typing as t
from pathlib import Path

import pytest

from .conftest import REAL_HOME

#: Written into the install directory once npm install has succeeded, and only then.
COMPLETE = ".cogtools-install-complete"


def unavailable(reason: str) -> t.NoReturn:
    if os.environ.get("CI"):
        pytest.fail(f"an end-to-end test cannot run under CI: {reason}")
    pytest.skip(reason)


def package_dir(slug: str, version: str, variable: str) -> Path:
    configured = os.environ.get(variable)
    if configured:
        return Path(configured)
    return Path(REAL_HOME) / ".cache" / "cogtools" / f"{slug}-{version}"


def npm_package(package: str, version: str, directory: Path) -> Path:
    """``directory`` holding ``package@version`` in its node_modules, installed if it is not."""
    if shutil.which("node") is None:
        unavailable(f"node is not installed ({package} is a node package)")
    directory.parent.mkdir(parents=True, exist_ok=True)
    with open(directory.parent / f".{directory.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one installer at a time; the others wait and reuse it
        if not _installed(package, version, directory):
            _install(package, version, directory)
    return directory


def node_binary(version: str, variable: str) -> Path:
    """A pinned Node.js ``version``, for a package that needs a newer node than the machine's: the
    npm registry's own build of it (``node-PLATFORM-ARCH``, the package the ``node`` package
    installs), installed as any other pinned package (``~/.cache/cogtools/node-VERSION``, or the
    directory ``variable`` names). Its ``bin/node``, checked to run."""
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine().lower())
    system = {"linux": "linux", "darwin": "darwin"}.get(sys.platform)
    if arch is None or system is None:
        unavailable(f"no Node.js {version} build on the npm registry for {sys.platform} {platform.machine()}")
    package = f"node-{system}-{arch}"
    directory = npm_package(package, version, package_dir("node", version, variable))
    node = directory / "node_modules" / package / "bin" / "node"
    check = subprocess.run([str(node), "--version"], capture_output=True, text=True, timeout=60)
    if check.returncode != 0 or check.stdout.strip() != f"v{version}":
        unavailable(f"{node} does not run as Node.js {version}: {check.stdout.strip()} {check.stderr[-500:]}")
    return node


def _installed(package: str, version: str, directory: Path) -> bool:
    """Whether ``directory`` holds a whole install. One made before the completion marker existed
    counts if npm itself finds its dependency tree whole."""
    marker = directory / COMPLETE
    if marker.exists() and marker.read_text().strip() == version:
        return True
    manifest = directory / "node_modules" / package / "package.json"
    if not manifest.exists() or json.loads(manifest.read_text()).get("version") != version:
        return False
    if shutil.which("npm") is None:
        return False
    check = subprocess.run(
        ["npm", "ls", "--all", "--omit=dev"], cwd=directory, capture_output=True, text=True, timeout=300
    )
    if check.returncode != 0:
        return False
    marker.write_text(version + "\n")
    return True


def _install(package: str, version: str, directory: Path) -> None:
    if shutil.which("npm") is None:
        unavailable(f"npm is not installed, and {directory} has no {package} {version}")
    scratch = directory.parent / f".{directory.name}.partial"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir()
    (scratch / "package.json").write_text('{"name": "cogtools-e2e", "private": true}\n')
    proc = subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", f"{package}@{version}"],
        cwd=scratch,
        capture_output=True,
        text=True,
        timeout=900,
    )
    if proc.returncode != 0:
        shutil.rmtree(scratch, ignore_errors=True)
        unavailable(f"npm install {package}@{version} failed: {proc.stderr[-2000:]}")
    (scratch / COMPLETE).write_text(version + "\n")
    shutil.rmtree(directory, ignore_errors=True)  # a half-finished install is repaired, not trusted
    scratch.rename(directory)
