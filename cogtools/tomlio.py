"""The one place TOML is read: ``tomllib`` (``tomli`` on Python 3.10), under the limits of
:mod:`cogtools.limits`."""

from __future__ import annotations

import sys
import typing as t

from cogtools.limits import MAX_DEPTH, depth_problem

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


class TomlProblem(ValueError):
    """Text that is not a TOML document cogtools accepts."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def loads(text: str) -> dict[str, t.Any]:
    """``text`` parsed; TomlProblem says why it cannot be (the message starts "invalid TOML")."""
    try:
        parsed = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise TomlProblem(f"invalid TOML: {e}") from e
    except RecursionError as e:
        raise TomlProblem(f"invalid TOML: collections nest more than {MAX_DEPTH} levels deep") from e
    except ValueError as e:  # an integer of more digits than Python converts
        raise TomlProblem(f"invalid TOML: a value that cannot be read: {e}") from e
    problem = depth_problem(parsed)
    if problem is not None:
        raise TomlProblem(f"invalid TOML: {problem}")
    return parsed
