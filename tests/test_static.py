"""The package type-checks under mypy --strict and passes ruff (both come with the test extras)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from .conftest import REPO


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param([sys.executable, "-m", "ruff", "check", "cogtools", "tests", "benchmarks", "npm"], id="ruff"),
        pytest.param(
            [sys.executable, "-m", "ruff", "format", "--check", "cogtools", "tests", "benchmarks", "npm"],
            id="ruff-format",
        ),
        pytest.param([sys.executable, "-m", "mypy"], id="mypy", marks=pytest.mark.slow),
        pytest.param([sys.executable, "-m", "mypy", "--strict", "npm/pack.py"], id="mypy-npm"),
    ],
)
def test_static_checks(argv: list[str]) -> None:
    pytest.importorskip(argv[2], reason=f"{argv[2]} is a test extra")
    proc = subprocess.run(argv, cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
