"""Text that is safe to show a person or a model: what a file, a program or a server said may
hold control sequences (ANSI CSI and OSC escapes that clear the screen, retitle the window or
write the clipboard through OSC 52), direction overrides that make text read other than it is,
and, from a file name that is not UTF-8, lone surrogates that no UTF-8 output can carry.

:func:`printable` writes each such character as a visible escape (``\\x1b``, ``\\u202e``; a
byte of a file name that was not UTF-8 as ``\\xff``), and leaves every other character as it is.
What is meant for programs (JSON) stays exact: the CLI applies this to the lines it writes for a
person, and the offer to the text it writes for a model.
"""

from __future__ import annotations

import re
import typing as t

#: C0 controls, DEL and C1 controls; the bidirectional embeddings, overrides and isolates, and
#: the marks; what is invisible (soft hyphen, zero-width space and joiners, byte order mark) or
#: breaks a line where no newline is seen (line and paragraph separators); lone surrogates (a
#: file name's undecodable bytes, from ``surrogateescape``).
_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\xad\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff\ud800-\udfff]"
)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # surrogateescape's stand-in for the byte code - 0xDC00
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def printable(text: str, keep: str = "") -> str:
    """``text`` with every control, direction and surrogate character but those in ``keep``
    (``"\\n\\t"`` for lines of a table) written as a visible escape."""
    if keep:
        return _UNSAFE.sub(lambda m: m.group() if m.group() in keep else _escape(m), text)
    return _UNSAFE.sub(_escape, text)


_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_unicode(value: t.Any) -> t.Any:
    """``value`` (text, or JSON-like data) with every lone surrogate (from a file name that is
    not UTF-8, or a message a function made) replaced by U+FFFD: what a transport that encodes
    strictly (MCP's) can send."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {valid_unicode(k): valid_unicode(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [valid_unicode(v) for v in value]
    return value
