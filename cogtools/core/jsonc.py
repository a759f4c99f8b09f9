"""JSON with comments, read as Gemini CLI reads its settings and edited without losing a comment.

Gemini CLI (0.61.0) reads ``settings.json`` and ``trustedFolders.json`` as
``JSON.parse(stripJsonComments(text))``: ``//`` and ``/* */`` comments outside strings are
blanked, and the rest must be strict JSON (a trailing comma is an error there, and so here).

:func:`set_value` changes one key and leaves every other byte of the file as it was: comments,
order, indentation and line endings. Where it cannot (the value to replace holds a comment, a
container on the way is not an object) it raises :class:`CannotEdit` and the caller changes
nothing.
"""

from __future__ import annotations

import json
import re
import typing as t

from cogtools.core.jsondata import NotJsonConstant, refuse_constant

Path = t.Tuple[str, ...]


class JsoncError(ValueError):
    """Not a document Gemini CLI would read."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


class CannotEdit(Exception):
    """The change cannot be made without losing what a person wrote."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def strip_comments(text: str) -> str:
    """``text`` with every comment outside a string turned into spaces (line breaks kept), as the
    npm package strip-json-comments does: the result has the same length, so an offset in it is
    an offset in ``text``. An unterminated block comment runs to the end."""
    out: list[str] = []
    i, n = 0, len(text)
    start = 0  # where the text not yet copied begins
    while i < n:
        c = text[i]
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            continue
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end == -1 else end
            if end > i and text[end - 1] == "\r":
                end -= 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end == -1 else end + 2
        else:
            i += 1
            continue
        out.append(text[start:i])
        out.append(re.sub(r"\S", " ", text[i:end]))
        start = i = end
    out.append(text[start:])
    return "".join(out)


def loads(text: str) -> t.Any:
    """The document in ``text``, comments allowed; :class:`JsoncError` (with line and column)
    where Gemini CLI's ``JSON.parse`` would fail too."""
    return _parse(strip_comments(text))


def _parse(stripped: str) -> t.Any:
    try:
        return json.loads(stripped, parse_constant=refuse_constant)
    except json.JSONDecodeError as e:
        raise JsoncError(e.msg, e.lineno, e.colno) from e
    except NotJsonConstant as e:  # JSON.parse refuses NaN and Infinity, which Python's reader takes
        raise JsoncError(str(e)) from None
    except RecursionError as e:
        raise JsoncError("nested too deeply") from e


class _Member(t.NamedTuple):
    key: str
    key_start: int
    value_start: int
    value_end: int


class _Object(t.NamedTuple):
    open: int  # the offset of "{"
    close: int  # the offset of "}"
    members: list[_Member]


_WHITESPACE = " \t\r\n"
_SCALAR = re.compile(r"-?[0-9][0-9eE.+-]*|true|false|null")


def _skip(s: str, i: int) -> int:
    while i < len(s) and s[i] in _WHITESPACE:
        i += 1
    return i


def _value_end(s: str, i: int) -> int:
    """Where the value starting at ``s[i]`` ends (``s`` is valid JSON: :func:`loads` said so)."""
    c = s[i]
    if c == '"':
        return t.cast(int, json.decoder.scanstring(s, i + 1)[1])  # type: ignore[attr-defined]
    if c == "{":
        return _object(s, i).close + 1
    if c == "[":
        i = _skip(s, i + 1)
        while s[i] != "]":
            i = _skip(s, _value_end(s, i))
            if s[i] == ",":
                i = _skip(s, i + 1)
        return i + 1
    match = _SCALAR.match(s, i)
    assert match is not None, s[i : i + 20]
    return match.end()


def _object(s: str, open_: int) -> _Object:
    members = []
    i = _skip(s, open_ + 1)
    while s[i] != "}":
        key, after = json.decoder.scanstring(s, i + 1)  # type: ignore[attr-defined]
        value_start = _skip(s, _skip(s, after) + 1)  # past the colon
        value_end = _value_end(s, value_start)
        members.append(_Member(key, i, value_start, value_end))
        i = _skip(s, value_end)
        if s[i] == ",":
            i = _skip(s, i + 1)
    return _Object(open_, i, members)


def _line_indent(s: str, offset: int) -> str | None:
    """The whitespace before ``offset`` on its line, when nothing else precedes it there."""
    start = s.rfind("\n", 0, offset) + 1
    before = s[start:offset]
    return before if before.strip(" \t") == "" else None


def set_value(text: str, path: Path, value: t.Any) -> str:
    """``text`` (a JSONC document whose top level is an object) with the key at ``path`` set to
    ``value``, objects on the way created; every other byte stays. :class:`JsoncError` when
    ``text`` is not such a document, :class:`CannotEdit` when the change would lose a comment or
    a value on the way is not an object."""
    stripped, obj = _top(text, path)
    newline = "\r\n" if "\r\n" in text else "\n"
    unit = _indent_unit(stripped)
    for depth, key in enumerate(path):
        found = [member for member in obj.members if member.key == key]
        if not found:
            nested: t.Any = value
            for outer in reversed(path[depth + 1 :]):
                nested = {outer: nested}
            return _insert(text, stripped, obj, key, nested, unit, newline)
        member = found[-1]  # JSON.parse keeps the last of duplicate keys
        if depth == len(path) - 1:
            return _replace(text, stripped, member, value, unit, newline)
        if stripped[member.value_start] != "{":
            raise CannotEdit(f"`{'.'.join(path[: depth + 1])}` is not an object")
        obj = _object(stripped, member.value_start)
    raise AssertionError("unreachable")


def _top(text: str, path: t.Sequence[str]) -> tuple[str, _Object]:
    """``text`` without its comments, and its top-level object, for an edit at ``path``."""
    if not path:
        raise ValueError("an empty path")
    stripped = strip_comments(text)
    if not isinstance(_parse(stripped), dict):
        raise CannotEdit("the top level is not an object")
    return stripped, _object(stripped, _skip(stripped, 0))


def remove_value(text: str, path: t.Sequence[str]) -> str:
    """``text`` (a JSONC document whose top level is an object) without the key at ``path`` (and
    the comma and line that were its); ``text`` itself when there is no such key.
    :class:`JsoncError` when ``text`` is not such a document, :class:`CannotEdit` when the change
    would lose a comment."""
    stripped, obj = _top(text, path)
    for depth, key in enumerate(path):
        found = [member for member in obj.members if member.key == key]
        if not found:
            return text
        member = found[-1]
        if depth < len(path) - 1:
            if stripped[member.value_start] != "{":
                return text
            obj = _object(stripped, member.value_start)
            continue
        index = obj.members.index(member)
        if index + 1 < len(obj.members):  # up to the next member, which takes its place
            start, end = member.key_start, obj.members[index + 1].key_start
        elif index > 0:  # the last: from the end of the one before it
            start, end = obj.members[index - 1].value_end, member.value_end
        else:  # the only one
            start, end = obj.open + 1, obj.close
        if stripped[start:end] != text[start:end]:
            raise CannotEdit(f"a comment beside `{key}`")
        return text[:start] + text[end:]
    raise AssertionError("unreachable")


def _indent_unit(stripped: str) -> str:
    match = re.search(r"\n([ \t]+)\S", stripped)
    return match.group(1) if match else "  "


def _dump(value: t.Any, indent: str, unit: str, newline: str) -> str:
    """``value`` as JSON, laid out as a value whose line is indented by ``indent``."""
    if isinstance(value, (dict, list)) and value:
        text = json.dumps(value, indent=unit, ensure_ascii=False)
        return text.replace("\n", newline + indent)
    return json.dumps(value, ensure_ascii=False)


def _replace(text: str, stripped: str, member: _Member, value: t.Any, unit: str, newline: str) -> str:
    old = text[member.value_start : member.value_end]
    if json.loads(stripped[member.value_start : member.value_end]) == value:
        return text
    if stripped[member.value_start : member.value_end] != old:
        raise CannotEdit(f"a comment inside the value of `{member.key}`")
    indent = _line_indent(stripped, member.key_start)
    if indent is None or "\n" not in stripped:  # a member that shares its line stays on it
        new = json.dumps(value, ensure_ascii=False)
    else:
        new = _dump(value, indent, unit, newline)
    return text[: member.value_start] + new + text[member.value_end :]


def _insert(text: str, stripped: str, obj: _Object, key: str, value: t.Any, unit: str, newline: str) -> str:
    """``key: value`` added to ``obj``: as its last member (on a line of its own, before the
    object's end when that shares the last member's line; on the object's line when it has one),
    or where a comment ends the last member's line (and would end up beside the new one), as its
    first."""
    name = json.dumps(key, ensure_ascii=False)
    comma = "," if obj.members else ""
    if "\n" not in stripped[obj.open : obj.close]:  # a one-line object: stay on one line, last
        piece = f"{name}: {json.dumps(value, ensure_ascii=False)}"
        if obj.members:
            end = obj.members[-1].value_end
            return text[:end] + ", " + piece + text[end:]
        return text[: obj.open + 1] + piece + text[obj.open + 1 :]
    if obj.members and (found := _line_indent(stripped, obj.members[0].key_start)) is not None:
        indent = found
    else:
        indent = (_line_indent(stripped, obj.open) or "") + unit
    member = f"{name}: {_dump(value, indent, unit, newline)}"
    if obj.members:  # last, where nothing but the line's end (or the object's) follows the last member
        end = obj.members[-1].value_end
        line_end = stripped.find("\n", end)
        stop = line_end if 0 <= line_end < obj.close else obj.close
        if text[end:stop].strip() == "":
            return text[:end] + "," + newline + indent + member + text[end:]
    line_end = stripped.find("\n", obj.open)
    piece = f"{indent}{member}{comma}"
    if stripped[obj.open + 1 : line_end].strip() == "":  # "{" ends its line (a comment may follow)
        return text[: line_end + 1] + piece + newline + text[line_end + 1 :]
    return text[: obj.open + 1] + newline + piece + text[obj.open + 1 :]


def line_of(text: str, key_path: t.Sequence[str | int], value: bool = False) -> int | None:
    """The line of the key at ``key_path`` in the JSONC document ``text`` (of its value, with
    ``value``; of an array's item, for an index); None when there is no such key, or ``text`` is
    not a document :func:`loads` reads."""
    stripped = strip_comments(text)
    try:
        _parse(stripped)
    except JsoncError:
        return None
    offset = _skip(stripped, 0)
    for key in key_path:
        if isinstance(key, int):
            if stripped[offset] != "[":
                return None
            items = _array_items(stripped, offset)
            if not 0 <= key < len(items):
                return None
            offset = items[key]
            continue
        if stripped[offset] != "{":
            return None
        found = [member for member in _object(stripped, offset).members if member.key == key]
        if not found:
            return None
        offset = found[-1].value_start
        key_offset = found[-1].key_start
    if key_path and not value and not isinstance(key_path[-1], int):
        offset = key_offset
    return stripped.count("\n", 0, offset) + 1


def _array_items(s: str, open_: int) -> list[int]:
    """Where each item of the array at ``s[open_]`` starts."""
    starts = []
    i = _skip(s, open_ + 1)
    while s[i] != "]":
        starts.append(i)
        i = _skip(s, _value_end(s, i))
        if s[i] == ",":
            i = _skip(s, i + 1)
    return starts
