"""Regular expressions as JSON Schema means them: ECMA-262, compiled with the ``u`` flag (as ajv,
Gemini CLI's validator, compiles them) and searched, not anchored.

Python's ``re`` is another language: its ``\\d`` and ``\\w`` match any Unicode digit or letter,
its ``$`` matches before a final newline, and it reads ``(?P<x>)`` and ``\\Z``, which ECMA-262
refuses. The engine here is ``regress`` (Rust, the engine jsonschema itself uses when present).
"""

from __future__ import annotations

import functools
import typing as t

if t.TYPE_CHECKING:
    import regress

#: ECMA-262 ``u``: a pattern reads code points, and rejects escapes that mean nothing.
FLAGS = "u"


class PatternError(ValueError):
    """A pattern that is not a valid ECMA-262 regular expression (with the ``u`` flag)."""


@functools.lru_cache(maxsize=512)
def compiled(pattern: str) -> regress.Regex:
    """``pattern`` compiled; PatternError says why it cannot be."""
    import regress

    try:
        return regress.Regex(pattern, FLAGS)
    except regress.RegressError as e:
        raise PatternError(f"not an ECMA-262 regular expression: {e}") from None


def search(pattern: str, text: str) -> bool:
    """Whether ``pattern`` matches somewhere in ``text`` (JSON Schema's ``pattern``)."""
    return compiled(pattern).find(text) is not None


def problem(pattern: str) -> str | None:
    """Why ``pattern`` is not a valid ECMA-262 regular expression; None when it is."""
    try:
        compiled(pattern)
    except PatternError as e:
        return str(e)
    return None
