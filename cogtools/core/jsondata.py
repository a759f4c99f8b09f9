"""JSON data from what a YAML or TOML parser returns.

Those formats carry more than JSON does (dates, non-string keys, ``.nan``). A tool definition and
a call's arguments must be JSON data, because that is what schemas describe and what the cache and
the exports write.
"""

from __future__ import annotations

import math
import typing as t

KeyPath = t.Tuple[t.Union[str, int], ...]


class NotJsonData(ValueError):
    """A YAML value that JSON cannot carry, and where it is."""

    def __init__(self, message: str, key_path: KeyPath) -> None:
        super().__init__(message)
        self.message = message
        self.key_path = key_path


def json_data(value: t.Any, key_path: KeyPath = ()) -> t.Any:
    """``value`` as JSON data: unquoted dates become their ISO strings (``2025-01-31`` is meant
    as text far more often than as a date); anything else JSON lacks raises NotJsonData, and so
    does text that is not valid Unicode (a lone surrogate). ``value`` must nest no deeper than
    :data:`~cogtools.core.limits.MAX_DEPTH` (every parser of cogtools checks that first)."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise NotJsonData(f"keys are strings; {key!r} is not (quote it)", key_path)
            if (problem := text_problem(key)) is not None:
                raise NotJsonData(f"a key: {problem}", key_path)
            out[key] = json_data(item, (*key_path, key))
        return out
    if isinstance(value, list):
        return [json_data(item, (*key_path, i)) for i, item in enumerate(value)]
    if isinstance(value, str):
        if (problem := text_problem(value)) is not None:
            raise NotJsonData(problem, key_path)
        return value
    if isinstance(value, float) and not math.isfinite(value):
        raise NotJsonData(f"{value!r} is not a number JSON can carry", key_path)
    if value is None or isinstance(value, (int, float, bool)):
        return value
    if isinstance(value, _dates()):  # last: JSON data never imports datetime
        return value.isoformat()  # type: ignore[attr-defined]  # a date or a datetime
    raise NotJsonData(f"a value of type {type(value).__name__} is not JSON data", key_path)


def _dates() -> tuple[type, ...]:
    import datetime  # only YAML and TOML make dates; a JSON call does not pay for the import

    return (datetime.date, datetime.datetime)


def text_problem(text: str) -> str | None:
    """Why ``text`` is not valid Unicode (it holds a lone surrogate, which no UTF-8 output can
    carry), or None."""
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        return f"text that is not valid Unicode (a lone surrogate, {text[e.start]!r}, at character {e.start})"
    return None


class JsonProblem(ValueError):
    """Text that is not JSON data that cogtools accepts; ``line`` and ``column`` when known."""

    def __init__(
        self, message: str, line: int | None = None, column: int | None = None, key_path: KeyPath = ()
    ) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.key_path = key_path


def _unique(pairs: list[tuple[str, t.Any]]) -> dict[str, t.Any]:
    out: dict[str, t.Any] = {}
    for key, value in pairs:
        if key in out:
            raise JsonProblem(f"the key {key!r} is given twice")
        out[key] = value
    return out


class NotJsonConstant(ValueError):
    """NaN or Infinity, which Python's ``json`` reads and JSON (and ``JSON.parse``) has not."""


def refuse_constant(name: str) -> t.NoReturn:
    """``json.loads``'s ``parse_constant`` for a reader that takes JSON as JSON.parse does."""
    raise NotJsonConstant(f"{name} is not JSON")


def _constant(name: str) -> t.NoReturn:
    raise JsonProblem(f"{name} is not valid JSON")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JsonProblem(f"the number {text} is too large for a floating-point number")
    return value


def parse_json(text: str) -> t.Any:
    """JSON text as JSON data, under the limits of :mod:`cogtools.core.limits`: no key given twice,
    no NaN or Infinity (nor a number so large it becomes one), no integer of more digits than
    Python converts, no nesting past MAX_DEPTH, no lone surrogate. Raises JsonProblem."""
    import json

    from cogtools.core.limits import depth_problem

    try:
        value = json.loads(text, object_pairs_hook=_unique, parse_constant=_constant, parse_float=_finite)
    except json.JSONDecodeError as e:
        raise JsonProblem(e.msg, e.lineno, e.colno) from e
    except RecursionError as e:
        from cogtools.core.limits import MAX_DEPTH

        raise JsonProblem(f"collections nest more than {MAX_DEPTH} levels deep") from e
    except JsonProblem:
        raise
    except ValueError as e:  # an integer of more digits than int() converts
        raise JsonProblem(f"a number that cannot be read: {e}") from e
    problem = depth_problem(value)
    if problem is not None:
        raise JsonProblem(problem)
    if "\\u" in text or not text.isascii():
        try:
            json_data(value)
        except NotJsonData as e:
            raise JsonProblem(e.message, key_path=e.key_path) from e
    return value
