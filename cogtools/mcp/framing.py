"""The stdio wire's lines, read in front of the SDK: every line a client writes is answered, by
the server or here.

A line is one JSON-RPC message (MCP's stdio transport). :class:`Lines` reads them, at most
:data:`MAX_LINE_BYTES` each; :meth:`Wire.take` makes of each what the SDK is to serve, or the
JSON-RPC error that answers it at once, so that no client waits out its timeout for an answer that
never comes:

- What is not JSON as cogtools reads it (as :func:`cogtools.core.jsondata.parse_json` does: UTF-8
  with no byte replaced, no key given twice, no NaN nor a number past a double's range) is a
  parse error (-32700, id null), and so are collections nested deeper than
  :data:`MAX_MESSAGE_DEPTH`, measured before the parser recurses. A string that is not Unicode (a
  lone surrogate, or bytes that are not UTF-8, inside a string) is refused with the request's id:
  invalid params (-32602) in its ``params``, an invalid request (-32600) elsewhere.
- A request's id is a string or an integer (the SDK's ids); any other id is an invalid request
  (-32600), answered with id null, or with the id as given when it is a number with a fraction
  (MCP allows any number; the SDK holds integers). Anything else that is not a request, a
  notification or a response is an invalid request, id null.
- A notification, or a response of the client's, that is not valid is dropped and said on
  standard error (JSON-RPC answers neither; answering a response could loop between two peers).
- A ``progressToken`` that is a number with a fraction (``1e308``: MCP's tokens are a string or a
  number) is served under a string of the server's own, and the client hears its progress under
  the token as it gave it, byte for byte (:meth:`Wire.progress`).
- A batch (a JSON array) is served when the connection's protocol is one that had batches
  (2025-03-26 added them, 2025-06-18 removed them): each element as a message, and the answers to
  its requests as one array, in the order of the batch (:meth:`Wire.answered`). On any other
  protocol, a batch is an invalid request.

Only the standard library and :mod:`cogtools.core`: this reading can sit in front of the SDK
before the SDK is imported. The SDK's own checks come in as ``validate``."""

from __future__ import annotations

import array
import functools
import itertools
import json
import math
import os
import re
import typing as t

from cogtools.core.jsondata import KeyPath, NotJsonData, json_data, text_problem
from cogtools.core.limits import MAX_INPUT_BYTES

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
#: The longest line read, newline excluded: what a call reads at most (``MAX_INPUT_BYTES``, 4 MiB),
#: as the SDK's HTTP transport limits a request's body. A longer line is skipped to its end.
MAX_LINE_BYTES = MAX_INPUT_BYTES
#: How deeply a message's collections may nest: about as deeply as the SDK's own reader of JSON
#: took them (pydantic's parser stops past 200). A call's arguments are held to ``MAX_DEPTH`` by
#: the call path, which answers under the request's id.
MAX_MESSAGE_DEPTH = 200
#: The protocol versions that had JSON-RPC batches.
BATCH_VERSIONS = frozenset({"2025-03-26"})

Id = t.Union[str, int]


class TooLong:
    """A line longer than the limit (its bytes skipped)."""


TOO_LONG = TooLong()


class Lines:
    """The lines of ``stream`` (a buffered binary file), each without its end. A line longer than
    ``limit`` comes as :class:`TooLong` as soon as that is known; the rest of it is read and
    dropped before the next line."""

    CHUNK = 1 << 16

    def __init__(self, stream: t.BinaryIO, limit: int = MAX_LINE_BYTES) -> None:
        self._stream = stream
        self._limit = limit
        self._skipping = False

    def next(self) -> bytes | TooLong | None:
        """The next line, or None at the end of the stream (blocks until either comes)."""
        while self._skipping:
            chunk = self._stream.readline(self.CHUNK)
            if not chunk:
                return None
            self._skipping = not chunk.endswith(b"\n")
        line = self._stream.readline(self._limit + 1)
        if not line:
            return None
        if line.endswith(b"\n"):
            return line[:-1]
        if len(line) > self._limit:
            self._skipping = True
            return TOO_LONG
        return line  # the last line, unterminated


class Inbound(t.NamedTuple):
    """A message for the SDK: what ``validate`` made of it; ``id`` when the wire wants to hear
    (:meth:`Wire.unanswered`) that the request it is settled with no answer."""

    message: t.Any
    id: Id | None


class Taken(t.NamedTuple):
    """What a line became: the messages for the SDK, the lines to write back at once, and what
    was dropped, said for standard error."""

    messages: list[Inbound]
    replies: list[bytes]
    dropped: list[str]


def error_line(code: int, message: str, id_json: str = "null") -> bytes:
    """A JSON-RPC error, as a line; ``id_json`` is the id as JSON text."""
    error = json.dumps({"code": code, "message": message}, separators=(",", ":"))
    return f'{{"jsonrpc":"2.0","id":{id_json},"error":{error}}}\n'.encode()


_TITLES = {PARSE_ERROR: "Parse error", INVALID_REQUEST: "Invalid request", INVALID_PARAMS: "Invalid params"}


class _Problem(t.NamedTuple):
    """What is wrong with a message: a code, what, and where in it (a key path)."""

    code: int
    detail: str
    key_path: KeyPath = ()

    def within(self, index: int) -> _Problem | None:
        """This problem as one of a batch's element ``index``, if it is in that element."""
        return self._replace(key_path=self.key_path[1:]) if self.key_path[:1] == (index,) else None


class _Raw(str):
    """A number with a fraction or an exponent, as its text (see :class:`_Lazy`)."""


class _Batch:
    """A batch being answered: its answers, by element, and how many it still waits for."""

    def __init__(self, size: int) -> None:
        self.answers: list[bytes | None] = [None] * size
        self.waiting = 0

    def line(self) -> bytes | None:
        answers = [answer for answer in self.answers if answer is not None]
        return b"[" + b",".join(answers) + b"]\n" if answers else None


class Wire:
    """One connection's reading of its lines, and what its answers need: the protocol version
    agreed (from the server's answer to ``initialize``), the batches being answered, and the
    progress tokens served under a string of the server's own."""

    def __init__(self, validate: t.Callable[[dict[str, t.Any]], t.Any] | None = None) -> None:
        #: The protocol version of the connection, once the server answered ``initialize``.
        self.version: str | None = None
        self._validate = validate or (lambda value: value)
        self._opening: set[Id] = set()
        self._batches: dict[Id, tuple[_Batch, int]] = {}
        self._tokens: dict[Id, str] = {}
        self._raw_tokens: dict[str, bytes] = {}
        self._prefix = f"cogtools-progress-{os.urandom(8).hex()}-"
        self._served = 0

    # -- what comes in ----------------------------------------------------------------------------

    def take(self, line: bytes | TooLong) -> Taken:
        """What ``line`` (one line as :class:`Lines` gives it) is to the SDK, and what is answered
        at once."""
        taken = Taken([], [], [])
        if isinstance(line, TooLong):
            taken.replies.append(
                error_line(INVALID_REQUEST, f"Invalid request: a message longer than {MAX_LINE_BYTES} bytes")
            )
            return taken
        if not line.strip():
            return taken  # an empty line: nothing was said
        text, value, problem = read_message(line)
        raw = _Lazy(text)
        if isinstance(value, list):
            self._batch(value, problem, raw, taken)
            return taken
        inbound, reply, dropped = self._one(value, problem, raw.top)
        _add(taken, inbound, reply, dropped)
        return taken

    def _batch(self, items: list[t.Any], problem: _Problem | None, raw: _Lazy, taken: Taken) -> None:
        if self.version not in BATCH_VERSIONS:
            agreed = "no protocol was agreed yet" if self.version is None else f"this connection's is {self.version}"
            taken.replies.append(
                error_line(
                    INVALID_REQUEST,
                    f"Invalid request: a batch (a JSON array) is refused: only protocol 2025-03-26 had batches, "
                    f"and {agreed}",
                )
            )
            return
        if not items:
            taken.replies.append(error_line(INVALID_REQUEST, "Invalid request: an empty batch"))
            return
        batch = _Batch(len(items))
        for index, item in enumerate(items):
            inbound, reply, dropped = self._element(batch, index, item, problem, raw)
            if reply is not None:
                batch.answers[index] = reply.rstrip(b"\n")
            _add(taken, inbound, None, dropped)
        if not batch.waiting and (line := batch.line()) is not None:
            taken.replies.append(line)

    def _element(
        self, batch: _Batch, index: int, item: t.Any, problem: _Problem | None, raw: _Lazy
    ) -> tuple[Inbound | None, bytes | None, str | None]:
        """Element ``index`` of ``batch``: a request is waited for."""
        if isinstance(item, list):
            return None, error_line(INVALID_REQUEST, "Invalid request: a batch in a batch"), None
        within = problem.within(index) if problem is not None else None
        inbound, reply, dropped = self._one(item, within, functools.partial(raw.item, index), batched=True)
        if inbound is None or inbound.id is None:
            return inbound, reply, dropped
        if inbound.id in self._batches:
            self._forget(inbound.id)
            return None, error_line(INVALID_REQUEST, _id_twice(inbound.id)), None
        self._batches[inbound.id] = (batch, index)
        batch.waiting += 1
        return inbound, None, None

    def _one(
        self, value: t.Any, problem: _Problem | None, raw: t.Callable[[], t.Any], *, batched: bool = False
    ) -> tuple[Inbound | None, bytes | None, str | None]:
        """One message: what goes to the SDK, or the answer to it, or why it was dropped."""
        if value is None and problem is not None:
            return None, error_line(problem.code, f"{_TITLES[problem.code]}: {problem.detail}"), None
        if not isinstance(value, dict):
            return None, error_line(INVALID_REQUEST, f"Invalid request: not an object but {_kind(value)}"), None
        method = value.get("method")
        if "id" not in value and isinstance(method, str):
            return self._notification(value, method, problem)
        if "method" not in value:
            return self._response(value, problem)
        id_json, id_problem = self._id(value.get("id"), raw)
        if id_problem is not None:
            return None, error_line(INVALID_REQUEST, f"Invalid request: {id_problem}", id_json), None
        if problem is not None:
            code = INVALID_PARAMS if problem.key_path[:1] == ("params",) else INVALID_REQUEST
            where = ".".join(str(key) for key in problem.key_path)
            detail = f"{where}: {problem.detail}" if where else problem.detail
            return None, error_line(code, f"{_TITLES[code]}: {detail}", id_json), None
        why = _envelope_problem(value)
        if why is None and batched and method == "initialize":
            why = "initialize is never part of a batch"
        if why is None:
            served = self._serve_token(value, raw)
            try:
                return self._request(served, self._validate(served), batched), None, None
            except ValueError as e:
                if served is not value:  # (its token, not one of another request with its id)
                    self._forget(value["id"])
                why = str(e)
        return None, error_line(INVALID_REQUEST, f"Invalid request: {why}", id_json), None

    def _request(self, value: dict[str, t.Any], message: t.Any, batched: bool) -> Inbound:
        """A request for the SDK, its id kept when its answer or its settling is waited for."""
        if value["method"] == "initialize":
            self._opening.add(value["id"])
        tracked = batched or value["id"] in self._tokens
        return Inbound(message, value["id"] if tracked else None)

    def _notification(
        self, value: dict[str, t.Any], method: str, problem: _Problem | None
    ) -> tuple[Inbound | None, bytes | None, str | None]:
        """A notification: passed on, or dropped (never answered)."""
        why = problem.detail if problem is not None else _envelope_problem(value)
        if why is None:
            try:
                return Inbound(self._validate(value), None), None, None
            except ValueError as e:
                why = str(e)
        return None, None, f"a notification ({method[:100]!r}) dropped: {why}"

    def _response(
        self, value: dict[str, t.Any], problem: _Problem | None
    ) -> tuple[Inbound | None, bytes | None, str | None]:
        """A message with no method: a response of the client's (passed on, or dropped), or not a
        message at all."""
        if "result" not in value and "error" not in value:
            return None, error_line(INVALID_REQUEST, "Invalid request: no method, and not a response either"), None
        why = problem.detail if problem is not None else None
        if why is None and value.get("jsonrpc") != "2.0":
            why = 'its "jsonrpc" is not "2.0"'
        if why is None:
            try:
                return Inbound(self._validate(value), None), None, None
            except ValueError as e:
                why = str(e)
        return None, None, f"a response dropped: {why}"

    def _id(self, given: t.Any, raw: t.Callable[[], t.Any]) -> tuple[str, str | None]:
        """A request's id as JSON text to answer with, and what is wrong with it, if anything."""
        if isinstance(given, str):
            if text_problem(given) is not None:
                return "null", "an id that is not valid Unicode"
            return json.dumps(given), None
        if isinstance(given, int) and not isinstance(given, bool):
            return str(given), None
        if isinstance(given, float):
            text = str(raw().get("id"))
            return (
                text,
                f"the id {text} is a number with a fraction or an exponent; this server's ids are strings or integers",
            )
        return "null", f"an id is a string or an integer, not {_kind(given)}"

    def _serve_token(self, value: dict[str, t.Any], raw: t.Callable[[], t.Any]) -> dict[str, t.Any]:
        """``value``, its progress token a string of the server's own when it is a number the SDK
        does not hold (one with a fraction); the token as given is kept to answer with."""
        params = value.get("params")
        if not isinstance(params, dict):
            return value
        meta = params.get("_meta")
        if not isinstance(meta, dict) or not isinstance(meta.get("progressToken"), float):
            return value
        given = str(raw()["params"]["_meta"]["progressToken"]).encode()
        self._served += 1
        token = f"{self._prefix}{self._served}"
        self._tokens[value["id"]] = token
        self._raw_tokens[token] = given
        return {**value, "params": {**params, "_meta": {**meta, "progressToken": token}}}

    # -- what goes out ----------------------------------------------------------------------------

    def answered(self, id: Id, line: bytes, result: t.Any = None) -> bytes | None:
        """What to write for the server's answer ``line`` (its result ``result``) to request
        ``id``: the line itself; nothing yet, when it answers one of a batch that waits for
        more; the batch's answers when it was the last."""
        if id in self._opening:
            self._opening.discard(id)
            version = result.get("protocolVersion") if isinstance(result, dict) else None
            self.version = version if isinstance(version, str) else self.version
        return self._settle(id, line)

    def unanswered(self, id: Id) -> bytes | None:
        """What to write when request ``id`` was settled with no answer (cancelled): its batch's
        answers, when it was the last that batch waited for."""
        return self._settle(id, None)

    def progress(self, token: t.Any, line: bytes) -> bytes:
        """A ``notifications/progress`` line, with the token as the client gave it."""
        given = self._raw_tokens.get(token) if isinstance(token, str) else None
        if given is None:
            return line
        return line.replace(json.dumps(token).encode(), given, 1)

    def _settle(self, id: Id, line: bytes | None) -> bytes | None:
        self._forget(id)
        held = self._batches.pop(id, None)
        if held is None:
            return line
        batch, index = held
        if line is not None:
            batch.answers[index] = line.rstrip(b"\n")
        batch.waiting -= 1
        return batch.line() if not batch.waiting else None

    def _forget(self, id: Id) -> None:
        token = self._tokens.pop(id, None)
        if token is not None:
            del self._raw_tokens[token]


def _add(taken: Taken, inbound: Inbound | None, reply: bytes | None, dropped: str | None) -> None:
    if inbound is not None:
        taken.messages.append(inbound)
    if reply is not None:
        taken.replies.append(reply)
    if dropped is not None:
        taken.dropped.append(dropped)


def read_message(line: bytes) -> tuple[str, t.Any, _Problem | None]:
    """The text of ``line``, what it holds, and what is wrong with it. A value comes with a
    problem when only some of its text is not Unicode (the problem says where)."""
    try:
        text, not_utf8 = line.decode("utf-8"), None
    except UnicodeDecodeError as e:
        # read on, so that a request whose argument is not UTF-8 is answered with its id
        text = line.decode("utf-8", "surrogateescape")
        not_utf8 = f"not UTF-8 (the byte 0x{line[e.start]:02x} at offset {e.start})"
    if _too_deep(text):
        return (
            text,
            None,
            _Problem(PARSE_ERROR, not_utf8 or f"collections nest more than {MAX_MESSAGE_DEPTH} levels deep"),
        )
    try:
        value = json.loads(text, object_pairs_hook=_unique, parse_constant=_no_constant, parse_float=_finite)
    except json.JSONDecodeError as e:
        return text, None, _Problem(PARSE_ERROR, not_utf8 or f"{e.msg} (column {e.colno})")
    except _Refused as e:  # a key given twice, NaN, a number past a double
        return text, None, _Problem(PARSE_ERROR, not_utf8 or str(e))
    except ValueError:  # an integer of more digits than int() reads
        return text, None, _Problem(PARSE_ERROR, not_utf8 or "an integer of more digits than can be read")
    if "\\u" in text or not text.isascii():
        try:
            json_data(value)
        except NotJsonData as e:  # all JSON, but some text is not Unicode
            return text, value, _Problem(INVALID_REQUEST, not_utf8 or e.message, e.key_path)
    return text, value, None


#: Strings (closed or not) and what is not a bracket, which :func:`_too_deep` drops.
_NOT_BRACKETS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[^\[\]{}"]+')
#: An opening bracket as 1 and a closing one as -1 (a signed byte).
_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")


def _too_deep(text: str) -> bool:
    """Whether the collections of ``text`` nest more than MAX_MESSAGE_DEPTH deep, measured before
    it is parsed (the parser recurses), in time linear in its length."""
    if text.count("[") + text.count("{") <= MAX_MESSAGE_DEPTH:
        return False
    steps = array.array("b", _NOT_BRACKETS.sub("", text).encode("ascii").translate(_STEPS))
    return any(map(MAX_MESSAGE_DEPTH.__lt__, itertools.accumulate(steps)))


class _Refused(ValueError):
    """JSON that is not read, and why."""


def _unique(pairs: list[tuple[str, t.Any]]) -> dict[str, t.Any]:
    value = dict(pairs)
    if len(value) < len(pairs):
        twice = next(key for i, (key, _) in enumerate(pairs) if any(key == other for other, _ in pairs[:i]))
        raise _Refused(f"the key {twice!r} is given twice")
    return value


def _no_constant(name: str) -> t.NoReturn:
    raise _Refused(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"the number {text} is too large for a double")
    return value


class _Lazy:
    """A line's value with its numbers that have a fraction or an exponent as their text, read
    only when one is needed (a progress token or an id that is such a number)."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._value: t.Any = None

    def value(self) -> t.Any:
        if self._value is None:
            self._value = json.loads(self._text, parse_float=_Raw)
        return self._value

    def top(self) -> t.Any:
        return self.value()

    def item(self, index: int) -> t.Any:
        return self.value()[index]


def _envelope_problem(value: dict[str, t.Any]) -> str | None:
    """What is wrong with a request's or a notification's envelope (MCP's params are an object)."""
    if value.get("jsonrpc") != "2.0":
        return 'its "jsonrpc" is not "2.0"'
    if not isinstance(value.get("method"), str):
        return "its method is not a string"
    if not isinstance(value.get("params"), (dict, type(None))):  # (null, as the SDK takes it)
        return "its params are not an object"
    return None


def _id_twice(id: Id) -> str:
    return f"Invalid request: the id {json.dumps(id)} is that of another request not yet answered"


def _kind(value: t.Any) -> str:
    """What kind of JSON value ``value`` is, for a message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"
