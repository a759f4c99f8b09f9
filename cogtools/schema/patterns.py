"""Regular expressions as JSON Schema means them: ECMA-262, compiled with the ``u`` flag (as ajv,
Gemini CLI's validator, compiles them) and searched, not anchored; and never a search that
cannot end (DESIGN §11: no argument can make a call outlive its timeout).

Python's ``re`` is another language: its ``\\d`` and ``\\w`` match any Unicode digit or letter,
its ``$`` matches before a final newline, and it reads ``(?P<x>)`` and ``\\Z``, which ECMA-262
refuses. What is a pattern is judged by ``regress`` (Rust, the engine jsonschema itself uses
when present), an ECMA-262 engine; but it backtracks, holds the interpreter while it does, and
``^(a+)+$`` against 31 ``a`` and a ``!`` takes it minutes. So a search runs:

- on RE2 (``google-re2``), whose time grows with the text and never more, when the pattern
  means the same there: it is written again in RE2's syntax (:func:`translated`), each ECMA-262
  class spelt out (``\\s`` is ECMA-262's white space and line terminators, ``.`` is anything but
  a line terminator), every group made non-capturing (a search only asks whether);
- else (a back-reference, a look-around, a Unicode property, ``\\B``, a repetition past RE2's
  1000) on regress in a child process (:class:`_Bounded`, one per process, reused), killed when a
  search outlives :data:`MATCH_SECONDS`: :class:`PatternTimeout`, which a validation reports as a
  value that could not be checked. ``cogtools lint`` warns of such patterns
  (``pattern-backtracks``). So does an RE2 search whose text times its program's size passes
  :data:`MAX_LINEAR_WORK` (RE2 is linear, but a large program on a long text still takes
  seconds); and all the bounded searches of one validation take :data:`BUDGET_SECONDS` at most
  (:func:`budget`).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import threading
import typing as t

if t.TYPE_CHECKING:
    import subprocess

    import re2
    import regress

#: ECMA-262 ``u``: a pattern reads code points, and rejects escapes that mean nothing.
FLAGS = "u"
#: The longest a search in the bounded child may take, in seconds.
MATCH_SECONDS = 1.0
#: The longest all the bounded searches of one validation may take together, in seconds.
BUDGET_SECONDS = 2.0
#: RE2's time grows with the text times the size of its program (when its DFA gives up, as for
#: ``(?:.{1000}|b)*c``): past this product a search runs in the bounded child too.
MAX_LINEAR_WORK = 200_000_000


class PatternError(ValueError):
    """A pattern that is not a valid ECMA-262 regular expression (with the ``u`` flag)."""


class PatternTimeout(Exception):
    """A search on the backtracking engine that did not end within :data:`MATCH_SECONDS`."""


@functools.lru_cache(maxsize=512)
def compiled(pattern: str) -> regress.Regex:
    """``pattern`` compiled; PatternError says why it cannot be."""
    import regress

    try:
        return regress.Regex(pattern, FLAGS)
    except regress.RegressError as e:
        raise PatternError(f"not an ECMA-262 regular expression: {e}") from None


def search(pattern: str, text: str) -> bool:
    """Whether ``pattern`` matches somewhere in ``text`` (JSON Schema's ``pattern``), in a time
    that grows with ``text`` alone (RE2), or at most :data:`MATCH_SECONDS` (else
    :class:`PatternTimeout`). PatternError when ``pattern`` is not a valid pattern."""
    compiled(pattern)  # what is valid is ECMA-262's to say
    linear = _linear(pattern)
    if linear is not None and _encodable(text):
        if len(text) * max(linear.programsize, 1) <= MAX_LINEAR_WORK:
            return linear.search(text) is not None
        return _bounded().search("re2", translated(pattern), text)
    return _bounded().search("regress", pattern, text)


_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar("cogtools_pattern_deadline", default=None)


@contextlib.contextmanager
def budget(seconds: float = BUDGET_SECONDS) -> t.Iterator[None]:
    """The bounded searches inside the block take at most ``seconds`` together (the first one
    past it raises :class:`PatternTimeout`); an enclosing budget is kept."""
    if _deadline.get() is not None:
        yield
        return
    import time

    token = _deadline.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _deadline.reset(token)


def problem(pattern: str) -> str | None:
    """Why ``pattern`` is not a valid ECMA-262 regular expression; None when it is."""
    try:
        compiled(pattern)
    except PatternError as e:
        return str(e)
    return None


def backtracks(pattern: str) -> str | None:
    """Why a search for ``pattern`` needs the backtracking engine (bounded by
    :data:`MATCH_SECONDS`), in words; None when it runs in linear time (or is no pattern)."""
    if problem(pattern) is not None:
        return None
    try:
        translated(pattern)
    except Untranslatable as e:
        return str(e)
    return None if _linear(pattern) is not None else "RE2 cannot hold it (too large a repetition)"


def linear_work(pattern: str) -> int | None:
    """What a search for ``pattern`` costs RE2 per character of the text (the size of its
    program), when RE2 can search for it; None when the search needs the backtracking engine
    (or ``pattern`` is no pattern)."""
    if problem(pattern) is not None:
        return None
    linear = _linear(pattern)
    return None if linear is None else max(linear.programsize, 1)


def _encodable(text: str) -> bool:
    """Whether ``text`` is UTF-8 (RE2 reads that): not when it holds a lone surrogate."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@functools.lru_cache(maxsize=512)
def _linear(pattern: str) -> re2._Regexp | None:
    """``pattern`` compiled by RE2, when it means the same there; None when not."""
    try:
        text = translated(pattern)
    except Untranslatable:
        return None
    import re2

    options = re2.Options()
    options.log_errors = False  # RE2 would write its refusal to stderr
    options.never_capture = True
    try:
        return re2.compile(text, options=options)
    except re2.error:  # a program past RE2's size, say
        return None


# -- ECMA-262 (u) to RE2 --------------------------------------------------------------------------


class Untranslatable(Exception):
    """A pattern that means something RE2 cannot say, or says otherwise."""


#: ECMA-262's WhiteSpace and LineTerminator code points: what ``\s`` matches.
_SPACE = "\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}"
#: The class escapes that mean the same in RE2 (ASCII digits and word characters, as ECMA-262's
#: with ``u`` and without ``i``), and ``\s`` spelt out.
_CLASSES = {"d": "0-9", "w": "0-9A-Za-z_", "s": _SPACE}
_CONTROL = {"t": 0x09, "n": 0x0A, "v": 0x0B, "f": 0x0C, "r": 0x0D}
#: ECMA-262's syntax characters, which ``\\`` makes literal (with ``/``).
_SYNTAX = set("^$\\.*+?()[]{}|/")
_HEX = set("0123456789abcdefABCDEF")
#: RE2's largest repetition count.
_MAX_REPEAT = 1000


def translated(pattern: str) -> str:
    """``pattern`` (a valid ECMA-262 pattern with ``u``) in RE2's syntax, meaning the same for a
    search; Untranslatable, saying why, when it cannot be."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            word, i = _escape(pattern, i, in_class=False)
            out.append(word)
        elif c == "[":
            word, i = _class(pattern, i)
            out.append(word)
        elif c == "(":
            if pattern.startswith("(?:", i):
                out.append("(?:")
                i += 3
            elif pattern.startswith(("(?=", "(?!", "(?<=", "(?<!"), i):
                raise Untranslatable("it looks around (lookahead or lookbehind)")
            elif pattern.startswith("(?<", i):  # a named group: a search needs no name
                out.append("(?:")
                i = pattern.index(">", i) + 1
            elif pattern.startswith("(?", i):
                raise Untranslatable("it changes flags inside the pattern")
            else:
                out.append("(?:")
                i += 1
        elif c == "{":
            end = pattern.index("}", i)
            if any(len(part.lstrip("0")) > 4 for part in pattern[i + 1 : end].split(",")):
                raise Untranslatable(f"it repeats more than {_MAX_REPEAT} times")  # and int() is not asked
            counts = [part.lstrip("0") or "0" if part else "" for part in pattern[i + 1 : end].split(",")]
            if any(count and int(count) > _MAX_REPEAT for count in counts):
                raise Untranslatable(f"it repeats more than {_MAX_REPEAT} times")
            out.append("{" + ",".join(counts) + "}")  # written as RE2 reads it: no leading zeros
            i = end + 1
        elif c == ".":
            out.append("[^\\n\\r\\x{2028}\\x{2029}]")
            i += 1
        elif c in "^$|)*+?":
            out.append(c)
            i += 1
        else:
            out.append(_literal(ord(c)))
            i += 1
    return "".join(out)


def _literal(point: int) -> str:
    if 0xD800 <= point <= 0xDFFF:
        raise Untranslatable("it names a lone surrogate")
    return f"\\x{{{point:X}}}"


def _escape(pattern: str, i: int, *, in_class: bool) -> tuple[str, int]:
    """The escape at ``pattern[i]`` (a backslash) in RE2's syntax, and where it ends."""
    c = pattern[i + 1]
    if c in _CLASSES or c.lower() in _CLASSES:
        body = _CLASSES[c.lower()]
        if c.islower():
            return (body if in_class else f"[{body}]"), i + 2
        if in_class:
            if c == "S":
                raise Untranslatable("it negates \\s inside a class")
            return f"\\{c}", i + 2  # RE2's \D and \W are ECMA-262's
        return f"[^{body}]", i + 2
    if c == "b":
        return ("\\x{8}" if in_class else "\\b"), i + 2  # in a class, \b is backspace
    if c == "B":  # RE2's \B also matches between the bytes of one character
        raise Untranslatable("it asks for a non-boundary (\\B)")
    if c.isdigit() and c != "0" or c == "k":
        raise Untranslatable("it refers back to a group")
    if c in "pP":
        raise Untranslatable("it names a Unicode property")
    point, end = _code_point(pattern, i)
    return _literal(point), end


def _code_point(pattern: str, i: int) -> tuple[int, int]:
    """The one character the escape at ``pattern[i]`` means, and where the escape ends."""
    c = pattern[i + 1]
    if c in _CONTROL:
        return _CONTROL[c], i + 2
    if c == "0":
        return 0, i + 2
    if c == "c":
        return ord(pattern[i + 2]) % 32, i + 3
    if c == "x":
        return int(pattern[i + 2 : i + 4], 16), i + 4
    if c == "u":
        if pattern[i + 2] == "{":
            end = pattern.index("}", i)
            return int(pattern[i + 3 : end], 16), end + 1
        point = int(pattern[i + 2 : i + 6], 16)
        if 0xD800 <= point <= 0xDBFF and pattern.startswith("\\u", i + 6):
            trail = pattern[i + 8 : i + 12]
            if len(trail) == 4 and set(trail) <= _HEX and 0xDC00 <= int(trail, 16) <= 0xDFFF:
                return 0x10000 + ((point - 0xD800) << 10) + (int(trail, 16) - 0xDC00), i + 12
        return point, i + 6
    return ord(c), i + 2  # an identity escape: a syntax character, / or (in a class) -


def _class(pattern: str, i: int) -> tuple[str, int]:
    """The class at ``pattern[i]`` (``[``) in RE2's syntax, and where it ends."""
    i += 1
    negated = pattern.startswith("^", i)
    i += negated
    parts: list[str] = []
    while pattern[i] != "]":
        if pattern[i] == "\\":
            word, i = _escape(pattern, i, in_class=True)
        else:
            word, i = _literal(ord(pattern[i])), i + 1
        parts.append(word)
        if pattern[i] == "-" and pattern[i + 1] != "]":  # a range: the word before is one character
            parts.append("-")
            i += 1
    body = "".join(parts)
    if not body:  # [] matches nothing, [^] anything
        return ("[\\x{0}-\\x{10FFFF}]" if negated else "[^\\x{0}-\\x{10FFFF}]"), i + 1
    return f"[{'^' * negated}{body}]", i + 1


# -- the backtracking engine, bounded --------------------------------------------------------------

#: The child's program: a search per line of JSON (engine, pattern, text) on stdin, "1" or "0"
#: back; the engine is "regress" (an ECMA-262 pattern) or "re2" (one translated for it).
_CHILD = """\
import json, sys
cache = {}
def compiled(engine, pattern):
    if engine == "re2":
        import re2
        options = re2.Options()
        options.log_errors = False
        options.never_capture = True
        return re2.compile(pattern, options=options).search
    import regress
    return regress.Regex(pattern, "u").find
for line in sys.stdin:
    engine, pattern, text = json.loads(line)
    if (engine, pattern) not in cache:
        if len(cache) > 256:
            cache.clear()
        cache[engine, pattern] = compiled(engine, pattern)
    sys.stdout.write("1\\n" if cache[engine, pattern](text) is not None else "0\\n")
    sys.stdout.flush()
"""


class _Bounded:
    """A child process that searches with regress, one search at a time, killed and started
    again when one outlives :data:`MATCH_SECONDS`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._child: subprocess.Popen[bytes] | None = None

    def search(self, engine: str, pattern: str, text: str) -> bool:
        import json
        import time

        line = (json.dumps([engine, pattern, text], ensure_ascii=True) + "\n").encode()
        with self._lock:
            deadline = _deadline.get()
            seconds = MATCH_SECONDS if deadline is None else min(MATCH_SECONDS, deadline - time.monotonic())
            if seconds <= 0:
                raise PatternTimeout(f"the searches of this call took their {BUDGET_SECONDS:g} s")
            child = self._start()
            assert child.stdin is not None and child.stdout is not None
            try:
                child.stdin.write(line)
                child.stdin.flush()
            except OSError:
                self._stop()
                raise PatternTimeout("the pattern's search ended before it answered") from None
            answer = _read_line(child, seconds)
            if answer is None:
                self._stop()
                raise PatternTimeout(f"the search did not end within {seconds:g} s")
            return answer == b"1\n"

    def _start(self) -> subprocess.Popen[bytes]:
        if self._child is None or self._child.poll() is not None:
            import subprocess
            import sys

            self._child = subprocess.Popen(
                [sys.executable, "-I", "-c", _CHILD],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        return self._child

    def _stop(self) -> None:
        if self._child is not None:
            self._child.kill()
            self._child.wait()
            self._child = None

    def close(self) -> None:
        with self._lock:
            self._stop()


def _read_line(child: subprocess.Popen[bytes], seconds: float) -> bytes | None:
    """A line of ``child``'s stdout, or None when none comes within ``seconds``."""
    import selectors

    assert child.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(child.stdout, selectors.EVENT_READ)
        if not selector.select(seconds):
            return None
    line = child.stdout.readline()
    return line or None


@functools.cache
def _bounded() -> _Bounded:
    import atexit

    bounded = _Bounded()
    atexit.register(bounded.close)
    return bounded
