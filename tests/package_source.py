"""The package's source, parsed once per test process, for the tests that read it (the layers,
the imports at the top, the complexity bound, what the recorder wraps): each parsed all of it
again, and walked every node of it (half a million), a second of CPU a test. The trees are only
read: a test that changes one parses its own."""

from __future__ import annotations

import ast
import functools
import gc
import typing as t
from pathlib import Path

from .conftest import REPO


@functools.cache
def package_trees() -> tuple[tuple[Path, ast.Module], ...]:
    """Each module of the package (``cogtools/**/*.py``, by path) and its syntax tree.

    The garbage collector is off meanwhile: the half a million nodes made hold no cycle, and its
    passes over a test process's heap as they grew were two thirds of the time (0.8 s, not 0.25)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return tuple(
            (path, ast.parse(path.read_text(encoding="utf-8"))) for path in sorted((REPO / "cogtools").rglob("*.py"))
        )
    finally:
        if enabled:
            gc.enable()


#: The fields of a node that hold statements (or the handlers and cases that hold them).
_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def statements(node: ast.AST) -> t.Iterator[ast.stmt]:
    """Every statement within ``node``, at any depth (in functions, classes, branches, handlers,
    cases): what :func:`ast.walk` finds of them, without visiting the expressions, where no
    statement can be (an import is a statement)."""
    for field in _BLOCKS:
        for child in getattr(node, field, ()):
            if isinstance(child, ast.stmt):
                yield child
            yield from statements(child)


def child_statements(node: ast.AST) -> t.Iterator[ast.stmt]:
    """The statements directly within ``node`` (through the handlers and cases that hold some)."""
    for field in _BLOCKS:
        for child in getattr(node, field, ()):
            if isinstance(child, ast.stmt):
                yield child
            else:
                yield from child_statements(child)
