"""The one place TOML is read: ``tomllib`` (``tomli`` on Python 3.10), under the limits of
:mod:`cogtools.core.limits`."""

from __future__ import annotations

import json
import re
import sys
import typing as t

from cogtools.core.limits import MAX_DEPTH, depth_problem

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


# What line_of reads: a [table] or [[array]] header, and the dotted key before `=`.
_BARE = r"[A-Za-z0-9_-]+"
_BASIC = r'"(?:[^"\\\n]|\\.)*"'
_LITERAL = r"'[^'\n]*'"
_KEY = rf"(?:{_BARE}|{_BASIC}|{_LITERAL})"
_DOTTED = rf"{_KEY}(?:[ \t]*\.[ \t]*{_KEY})*"
_HEADER_RE = re.compile(rf"[ \t]*(\[\[?)[ \t]*({_DOTTED})[ \t]*\]\]?[ \t]*(?:#.*)?$")
_ASSIGNMENT_RE = re.compile(rf"[ \t]*({_DOTTED})[ \t]*=[ \t]*")
_KEY_RE = re.compile(_KEY)
_MULTILINE_RE = re.compile(r'"""|\'\'\'')


def _keys(dotted: str) -> list[str]:
    out = []
    for match in _KEY_RE.finditer(dotted):
        key = match.group()
        if key.startswith('"'):
            key = json.loads(key) if "\\U" not in key else key[1:-1]
        elif key.startswith("'"):
            key = key[1:-1]
        out.append(key)
    return out


def _still_open(rest: str) -> tuple[str | None, int]:
    """After ``key =``: the multi-line string delimiter left open on this line, and how many
    brackets are left open (strings and comments skipped)."""
    depth, i = 0, 0
    while i < len(rest):
        char = rest[i]
        if rest.startswith(('"""', "'''"), i):
            end = rest.find(rest[i : i + 3], i + 3)
            if end < 0:
                return rest[i : i + 3], depth
            i = end + 3
            continue
        if char in "\"'":
            match = re.compile(_BASIC if char == '"' else _LITERAL).match(rest, i)
            i = match.end() if match else len(rest)
            continue
        if char == "#":
            break
        depth += (char in "[{") - (char in "]}")
        i += 1
    return None, depth


def line_of(text: str, key_path: t.Sequence[str | int], value: bool = False) -> int | None:
    """The line of the key at ``key_path`` in the TOML document ``text`` (or of the nearest key
    that holds it: a key inside an inline table or array is found at the line of that table's key;
    with ``value``, of where the value's text starts). None when no part of the path is found.
    ``tomllib`` gives no positions, so this reads the lines for the headers and keys it needs
    (only when an error is reported)."""
    found: dict[tuple[str | int, ...], int] = {}
    values: dict[tuple[str | int, ...], int] = {}
    arrays: dict[tuple[str | int, ...], int] = {}
    table: tuple[str | int, ...] = ()
    open_string: str | None = None
    depth = 0

    def resolved(keys: list[str], new_item: bool) -> tuple[str | int, ...]:
        path: tuple[str | int, ...] = ()
        for position, key in enumerate(keys):
            path = (*path, key)
            if path in arrays and not (new_item and position == len(keys) - 1):
                path = (*path, arrays[path])
        return path

    for number, line in enumerate(text.splitlines(), 1):
        if open_string is not None:
            if line.count(open_string) % 2:
                open_string = None
            continue
        if depth > 0:
            depth += _still_open(line)[1]
            continue
        header = _HEADER_RE.match(line)
        if header is not None:
            keys = _keys(header.group(2))
            table = resolved(keys, header.group(1) == "[[")
            if header.group(1) == "[[":
                index = arrays.get(table, -1) + 1
                arrays[table] = index
                found.setdefault(table, number)
                table = (*table, index)
            found.setdefault(table, number)
            continue
        assignment = _ASSIGNMENT_RE.match(line)
        if assignment is None:
            continue
        path = (*table, *_keys(assignment.group(1)))
        rest = line[assignment.end() :]
        found.setdefault(path, number)
        open_string, depth = _still_open(rest)
        # A multi-line string's first newline is not part of it: its text starts on the next line.
        values.setdefault(path, number + 1 if rest.rstrip() in ('"""', "'''") else number)
    for end in range(len(key_path), 0, -1):
        prefix = tuple(key_path[:end])
        if prefix in found:
            return values.get(prefix, found[prefix]) if value and end == len(key_path) else found[prefix]
    return None
