"""The package type-checks under mypy --strict, passes ruff, and has no function past the
complexity a reader holds (radon's measure): each comes with the test extras."""

from __future__ import annotations

import subprocess
import sys
import typing as t

import pytest

from .conftest import REPO
from .package_source import package_trees


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


#: The most cyclomatic complexity (radon's measure) a function of the package may have: past it,
#: a reader no longer holds the function whole, and it is split along its seams (issue 40).
MAX_COMPLEXITY = 25


def test_no_function_is_too_complex() -> None:
    complexity = pytest.importorskip("radon.complexity", reason="radon is a test extra")
    visitors = pytest.importorskip("radon.visitors")

    def functions(blocks: list[t.Any]) -> t.Iterator[t.Any]:
        """Every function and method of ``blocks``, their closures too (radon counts a closure
        apart from the function that holds it)."""
        for block in blocks:
            if isinstance(block, visitors.Function):
                yield block
                yield from functions(block.closures)

    too_complex = [
        f"{path.relative_to(REPO)}:{function.lineno} {function.fullname} ({function.complexity})"
        for path, tree in package_trees()
        for function in functions(complexity.cc_visit_ast(tree))
        if function.complexity > MAX_COMPLEXITY
    ]
    assert not too_complex, f"above complexity {MAX_COMPLEXITY}, to split along their seams:\n" + "\n".join(too_complex)
