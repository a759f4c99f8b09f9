"""JSON data from what a YAML or TOML parser returns.

Those formats carry more than JSON does (dates, non-string keys, ``.nan``). A tool definition and
a call's arguments must be JSON data, because that is what schemas describe and what the cache and
the exports write.
"""

from __future__ import annotations

import datetime
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
    as text far more often than as a date); anything else JSON lacks raises NotJsonData."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise NotJsonData(f"keys are strings; {key!r} is not (quote it)", key_path)
            out[key] = json_data(item, (*key_path, key))
        return out
    if isinstance(value, list):
        return [json_data(item, (*key_path, i)) for i, item in enumerate(value)]
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        raise NotJsonData(f"{value!r} is not a number JSON can carry", key_path)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise NotJsonData(f"a value of type {type(value).__name__} is not JSON data", key_path)
