"""The stdio wire of ``cogtools mcp``: every line a client writes is answered, by the server or by
its reading of the line (:mod:`cogtools.mcp.framing`), at once, and the server goes on. Through
the real server where a client would see it; the reading itself, in process, for each rule and
for any bytes at all."""

from __future__ import annotations

import io
import json
import select
import time
import typing as t
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from cogtools.mcp.framing import MAX_LINE_BYTES, MAX_MESSAGE_DEPTH, TOO_LONG, Lines, Taken, Wire

from .conftest import ECHO_TOOL, write
from .test_mcp import STEPS, command_tool, stdio_server

pytest.importorskip("mcp")

PING = b'{"jsonrpc":"2.0","id":"ping-%d","method":"ping"}'
DEEP = 200_000


def request(method: str, id: t.Any = 5, **params: t.Any) -> bytes:
    message: dict[str, t.Any] = {"jsonrpc": "2.0", "id": id, "method": method}
    if params:
        message["params"] = params
    return json.dumps(message).encode()


def call(arguments: str, id: int = 5) -> bytes:
    """A ``tools/call`` of echo, its arguments as raw JSON text (bytes as given)."""
    return b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":%s}}' % (
        id,
        arguments.encode("utf-8", "surrogatepass"),
    )


#: Lines no server can serve, the code of their answer and the id it carries (None: null).
MALFORMED: dict[str, tuple[bytes, int, t.Any]] = {
    "nested 200,000 deep": (
        request("tools/list")[:-1] + b',"params":{"a":' + b"[" * DEEP + b"]" * DEEP + b"}}",
        -32700,
        None,
    ),
    "nested deep, bare": (b"[" * DEEP, -32700, None),
    "a lone surrogate in an argument": (call('{"text": "\\ud800"}'), -32602, 5),
    "a lone surrogate in the method": (request("tools/\udc00"), -32600, 5),
    "a lone surrogate as the id": (request("ping", id="\ud800"), -32600, None),
    "invalid UTF-8 in an argument": (call('{"text": "ab"}').replace(b"ab", b"a\xffb"), -32602, 5),
    "invalid UTF-8 between the keys": (b'{"jsonrpc":"2.0",\xff"id":5,"method":"ping"}', -32700, None),
    "an object as the id": (request("tools/list", id={"a": 1}), -32600, None),
    "an array as the id": (request("tools/list", id=[1]), -32600, None),
    "true as the id": (request("ping", id=True), -32600, None),
    "null as the id": (request("ping", id=None), -32600, None),
    "a batch": (b"[" + request("tools/list") + b"]", -32600, None),
    "an empty array": (b"[]", -32600, None),
    "not JSON": (b"not json", -32700, None),
    "JSON cut short": (request("ping")[:-3], -32700, None),
    "a number": (b"42", -32600, None),
    "a key given twice": (b'{"jsonrpc":"2.0","id":5,"id":6,"method":"ping"}', -32700, None),
    "NaN": (b'{"jsonrpc":"2.0","id":5,"method":"ping","params":{"a":NaN}}', -32700, None),
    "a number too large for a double": (b'{"jsonrpc":"2.0","id":5,"method":"ping","params":{"a":1e400}}', -32700, None),
    "JSON-RPC 1.0": (b'{"jsonrpc":"1.0","id":9,"method":"ping"}', -32600, 9),
    "a method that is not a string": (b'{"jsonrpc":"2.0","id":10,"method":5}', -32600, 10),
    "params that are not an object": (b'{"jsonrpc":"2.0","id":11,"method":"tools/list","params":[1]}', -32600, 11),
    "an id and nothing else": (b'{"jsonrpc":"2.0","id":12}', -32600, None),
}


def answer_of(taken: Taken) -> dict[str, t.Any]:
    assert not taken.messages and not taken.dropped and len(taken.replies) == 1, taken
    reply = json.loads(taken.replies[0])
    assert reply["jsonrpc"] == "2.0" and set(reply) == {"jsonrpc", "id", "error"}, reply
    return t.cast(dict[str, t.Any], reply)


# -- the reading, in process -----------------------------------------------------------------------


@pytest.mark.parametrize("case", MALFORMED)
def test_a_malformed_line_is_answered_with_a_json_rpc_error(case: str) -> None:
    line, code, id = MALFORMED[case]
    reply = answer_of(Wire().take(line))
    assert (reply["error"]["code"], reply["id"]) == (code, id), reply


def test_what_is_wrong_is_said() -> None:
    def message(line: bytes) -> str:
        return t.cast(str, answer_of(Wire().take(line))["error"]["message"])

    assert (
        message(MALFORMED["nested deep, bare"][0])
        == f"Parse error: collections nest more than {MAX_MESSAGE_DEPTH} levels deep"
    )
    assert "params.arguments.text: not UTF-8 (the byte 0xff at offset" in message(
        MALFORMED["invalid UTF-8 in an argument"][0]
    )
    assert "params.arguments.text: text that is not valid Unicode (a lone surrogate" in message(
        MALFORMED["a lone surrogate in an argument"][0]
    )
    assert (
        message(MALFORMED["an object as the id"][0])
        == "Invalid request: an id is a string or an integer, not an object"
    )
    assert "only protocol 2025-03-26 had batches, and no protocol was agreed yet" in message(MALFORMED["a batch"][0])
    assert message(MALFORMED["a key given twice"][0]) == "Parse error: the key 'id' is given twice"
    assert message(b"[" + b"1" * 5000 + b"]") == "Parse error: an integer of more digits than can be read"


def test_a_message_nests_as_deep_as_the_sdk_read_and_brackets_in_strings_do_not_count() -> None:
    def nested(depth: int, inner: str = "1") -> bytes:
        # the message, its params, the arguments: 3 levels
        arguments = "[" * (depth - 3) + inner + "]" * (depth - 3)
        return call('{"text": %s}' % arguments)

    (inbound,) = Wire().take(nested(MAX_MESSAGE_DEPTH)).messages
    assert inbound.message["params"]["name"] == "echo"  # the call path refuses past MAX_DEPTH, under its id
    assert answer_of(Wire().take(nested(MAX_MESSAGE_DEPTH + 1)))["error"]["code"] == -32700
    for text in ('"' + "[{" * 300 + '"', '"\\"' + "[" * 300 + '"', '"\\\\"'):
        assert len(Wire().take(nested(MAX_MESSAGE_DEPTH, text)).messages) == 1, text
    unterminated = answer_of(Wire().take(b'{"a": "' + b"[" * 300))
    assert unterminated["error"]["code"] == -32700


def test_an_id_with_a_fraction_is_refused_under_that_id_as_given() -> None:
    reply = Wire().take(request("ping", id=1.5).replace(b"1.5", b"1.50"))
    assert reply.replies[0].startswith(b'{"jsonrpc":"2.0","id":1.50,"error":{"code":-32600,'), reply


def test_integer_and_string_ids_of_any_size_pass() -> None:
    for id in (2**70, -1, 0, "", "x" * 1000):
        taken = Wire().take(request("ping", id=id))
        assert [m.id for m in taken.messages] == [None] and not taken.replies, taken
        assert taken.messages[0].message["id"] == id


def test_a_progress_token_with_a_fraction_is_heard_back_as_given() -> None:
    wire = Wire()
    line = request("tools/call", id=3, name="echo", _meta={"progressToken": 1.0}).replace(b"1.0", b"1e308")
    (inbound,) = wire.take(line).messages
    served = inbound.message["params"]["_meta"]["progressToken"]
    assert isinstance(served, str) and inbound.id == 3
    notification = json.dumps(
        {"method": "notifications/progress", "params": {"progressToken": served, "progress": 1}}, separators=(",", ":")
    ).encode()
    assert (
        wire.progress(served, notification)
        == b'{"method":"notifications/progress","params":{"progressToken":1e308,"progress":1}}'
    )
    assert wire.answered(3, b"{}\n") == b"{}\n"
    assert wire.progress(served, notification) == notification  # forgotten with the answer
    for token in (7, "seven", 2**80):  # the SDK's own tokens pass as they are
        (inbound,) = wire.take(request("tools/call", name="echo", _meta={"progressToken": token})).messages
        assert inbound.message["params"]["_meta"]["progressToken"] == token and inbound.id is None


def test_a_notification_or_a_response_is_never_answered() -> None:
    for line in (
        b'{"jsonrpc":"2.0","method":"notifications/initialized","params":[1]}',
        b'{"jsonrpc":"2.0","method":"notifications/x","params":{"a":"\\ud800"}}',
        b'{"jsonrpc":"2.0","id":3,"result":"not an object"}',
        b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700}}',
    ):
        taken = Wire(_sdk_validate()).take(line)
        assert not taken.messages and not taken.replies and len(taken.dropped) == 1, taken


def _sdk_validate() -> t.Callable[[dict[str, t.Any]], t.Any]:
    from cogtools.mcp.stdio import _validate

    return _validate


def test_an_answer_that_cannot_be_written_as_json_is_an_internal_error_under_its_id() -> None:
    import mcp_types as types

    from cogtools.mcp.stdio import _line

    said: list[str] = []
    unwritable = types.JSONRPCResponse(jsonrpc="2.0", id="a", result={"text": "\ud800"})
    reply = json.loads(t.cast(bytes, _line(Wire(), unwritable, said.append)))
    assert reply["id"] == "a" and reply["error"]["code"] == -32603, reply
    assert said and said[0].startswith("an answer that cannot be written as JSON")
    notification = types.JSONRPCNotification(jsonrpc="2.0", method="x", params={"text": "\ud800"})
    assert _line(Wire(), notification, said.append) is None and len(said) == 2


def test_a_batch_is_served_on_the_protocol_that_had_batches() -> None:
    wire = Wire()
    wire.take(request("initialize", id="init"))
    assert wire.answered("init", b"{}\n", {"protocolVersion": "2025-03-26"}) == b"{}\n"
    taken = wire.take(
        b"["
        + b",".join(
            [
                request("ping", id=1),
                b'{"jsonrpc":"2.0","method":"notifications/x"}',
                request("ping", id={}),
                request("ping", id=2),
                request("initialize", id=3),
                request("ping", id=1),  # an id already waited for
                b"[]",
            ]
        )
        + b"]"
    )
    assert [m.id for m in taken.messages] == [1, None, 2] and not taken.replies
    assert wire.answered(2, b'{"id":2}\n') is None  # the batch waits for 1
    whole = wire.answered(1, b'{"id":1}\n')
    assert whole is not None and whole.endswith(b"]\n")
    answers = json.loads(whole)
    assert answers[:2] == [{"id": 1}, {"id": None, "jsonrpc": "2.0", "error": answers[1]["error"]}]
    assert answers[2] == {"id": 2}
    assert [a["error"]["code"] for a in answers[1:] if "error" in a] == [-32600] * 4
    assert "initialize is never part of a batch" in answers[3]["error"]["message"]
    # a request settled with no answer (cancelled) is not waited for
    (first, second) = wire.take(b"[" + request("ping", id=4) + b"," + request("ping", id=5) + b"]").messages
    assert wire.unanswered(4) is None
    assert wire.answered(5, b'{"id":5}\n') == b'[{"id":5}]\n'
    # a batch of notifications has no answer; an empty one is refused
    assert wire.take(b'[{"jsonrpc":"2.0","method":"notifications/x"}]').replies == []
    assert json.loads(wire.take(b"[]").replies[0])["error"]["message"] == "Invalid request: an empty batch"


def test_lines_are_read_to_a_limit_and_a_longer_one_is_skipped_to_its_end() -> None:
    limit = 10
    lines = Lines(io.BufferedReader(io.BytesIO(b"short\n" + b"x" * 25 + b"\n" + b"0123456789\nlast")), limit)
    assert [lines.next() for _ in range(5)] == [b"short", TOO_LONG, b"0123456789", b"last", None]
    assert b'"Invalid request: a message longer than %d bytes"' % MAX_LINE_BYTES in Wire().take(TOO_LONG).replies[0]
    assert Wire().take(b"") == Taken([], [], []) and Wire().take(b" \r") == Taken([], [], [])


@hypothesis_settings(deadline=None)
@given(st.one_of(st.binary(max_size=200), st.from_regex(rb'\A[\[\]{}",:0-9a-z\\ .\x80-\xff-]{0,120}\Z')))
def test_any_line_is_taken_without_an_exception_and_answered_in_json(line: bytes) -> None:
    taken = Wire(_sdk_validate()).take(line.replace(b"\n", b""))
    for reply in taken.replies:
        assert reply.endswith(b"\n") and b"\n" not in reply[:-1]
        json.loads(reply)
    assert len(taken.replies) <= 1


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
MESSAGES = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.just("2.0") | JSON_VALUES,
        "id": JSON_VALUES,
        "method": st.sampled_from(["ping", "tools/list", "notifications/initialized"]) | JSON_VALUES,
        "params": st.just({}) | JSON_VALUES,
        "result": st.just({}) | JSON_VALUES,
        "error": st.just({"code": 1, "message": "m"}) | JSON_VALUES,
    },
)


@hypothesis_settings(deadline=None)
@given(MESSAGES)
def test_any_object_is_served_or_answered_under_an_id_it_can_trust_or_dropped(message: dict[str, t.Any]) -> None:
    taken = Wire(_sdk_validate()).take(json.dumps(message).encode())
    assert len(taken.messages) + len(taken.replies) + len(taken.dropped) == 1, taken
    id = message.get("id")
    trusted = isinstance(id, (str, int)) and not isinstance(id, bool) and "method" in message
    if taken.messages and "id" in message and "method" in message:
        assert trusted
    if taken.replies:
        reply = json.loads(taken.replies[0])
        assert reply["error"]["code"] in (-32700, -32600, -32602)
        assert reply["id"] == (id if trusted else None) or isinstance(id, float), (message, reply)
    if taken.dropped:  # a notification or a response: never answered
        assert "id" not in message or "method" not in message


# -- through the real server -----------------------------------------------------------------------


class Wired:
    """``cogtools mcp`` over stdio, spoken to in raw lines after an ``initialize`` of protocol
    ``version``."""

    def __init__(self, cwd: Path, version: str) -> None:
        self.proc = stdio_server(cwd, bufsize=0)
        self.pings = 0
        self.send(
            request(
                "initialize", id=0, protocolVersion=version, capabilities={}, clientInfo={"name": "raw", "version": "0"}
            )
        )
        assert json.loads(self.line())["result"]["protocolVersion"] == version
        self.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')

    def send(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def line(self, seconds: float = 30) -> bytes:
        assert self.proc.stdout is not None
        end = time.monotonic() + seconds
        while not select.select([self.proc.stdout], [], [], max(0.0, end - time.monotonic()))[0]:
            if time.monotonic() >= end:
                raise AssertionError("no line came")
        line = self.proc.stdout.readline()
        assert line, "the server closed its output"
        return line

    def lines_until_a_ping(self) -> list[bytes]:
        """Every line that comes before the answer to a ping sent now (which comes, last)."""
        self.pings += 1
        self.send(PING % self.pings)
        return self.lines_until(lambda line: line == b'{"jsonrpc":"2.0","id":"ping-%d","result":{}}\n' % self.pings)[
            :-1
        ]

    def lines_until(self, last: t.Callable[[bytes], bool]) -> list[bytes]:
        """Every line that comes, up to the ``last`` one."""
        lines = [self.line()]
        while not last(lines[-1]):
            lines.append(self.line())
        return lines

    def close(self) -> bytes:
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        assert self.proc.wait(timeout=30) == 0
        return self.proc.stderr.read()


@pytest.fixture(scope="module")
def wire_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = tmp_path_factory.mktemp("wire")
    (project / ".cogtoolrc.yaml").write_text("# test project\n")
    write(project / "tools" / "echo.yaml", ECHO_TOOL)
    command_tool(project, "steps", STEPS)
    command_tool(project, "nap", "sleep 60")
    return project


@pytest.fixture(scope="module")
def served(wire_project: Path) -> t.Iterator[Wired]:
    server = Wired(wire_project, "2025-06-18")
    yield server
    assert b"Traceback" not in server.close()


@pytest.mark.slow
@pytest.mark.parametrize("case", MALFORMED)
def test_the_server_answers_each_malformed_line_at_once_and_goes_on(served: Wired, case: str) -> None:
    """The answer comes before the answer to a ping sent after it: the client does not wait."""
    line, code, id = MALFORMED[case]
    served.send(line)
    (answer,) = served.lines_until_a_ping()
    reply = json.loads(answer)
    assert (reply["error"]["code"], reply["id"]) == (code, id), reply


@pytest.mark.slow
def test_invalid_utf_8_in_an_argument_is_refused_not_replaced(served: Wired) -> None:
    served.send(call('{"text": "ab"}', id=21).replace(b"ab", b"a\xffb"))
    (answer,) = served.lines_until_a_ping()
    assert json.loads(answer)["error"]["code"] == -32602 and b"\xef\xbf\xbd" not in answer
    served.send(call('{"text": "a\u00e9b"}', id=22))  # UTF-8 that is UTF-8 is served
    (answer,) = served.lines_until_a_ping()
    assert json.loads(answer)["result"]["content"][0]["text"] == "a\u00e9b\n"


@pytest.mark.slow
def test_a_line_longer_than_the_limit_is_refused_and_the_next_one_served(served: Wired) -> None:
    served.send(call(json.dumps({"text": "x" * MAX_LINE_BYTES}), id=23))
    (answer,) = served.lines_until_a_ping()
    assert json.loads(answer)["error"] == {
        "code": -32600,
        "message": f"Invalid request: a message longer than {MAX_LINE_BYTES} bytes",
    }


@pytest.mark.slow
def test_a_notification_or_a_response_that_is_not_valid_is_dropped_and_said(wire_project: Path) -> None:
    server = Wired(wire_project, "2025-06-18")
    server.send(b'{"jsonrpc":"2.0","method":"notifications/initialized","params":[1]}')
    server.send(b'{"jsonrpc":"2.0","id":3,"result":"not an object"}')
    assert server.lines_until_a_ping() == []
    stderr = server.close().decode()
    assert stderr.splitlines() == [
        "cogtools mcp: a notification ('notifications/initialized') dropped: its params are not an object",
        "cogtools mcp: a response dropped: not a JSON-RPC message the server reads"
        " (result: Input should be a valid dictionary)",
    ]


@pytest.mark.slow
@pytest.mark.parametrize("token", [b"1e308", b"0.5", b"-2.50", b"7", b'"seven"'])
def test_a_progress_token_of_any_number_is_heard_back_as_given(served: Wired, token: bytes) -> None:
    served.send(
        b'{"jsonrpc":"2.0","id":30,"method":"tools/call","params":{"name":"steps","arguments":{},"_meta":{"progressToken":%s}}}'
        % token
    )
    lines = served.lines_until(lambda line: line.startswith(b'{"jsonrpc":"2.0","id":30,'))
    progress = [json.loads(line) for line in lines if b"notifications/progress" in line]
    assert [p["params"]["progress"] for p in progress][-3:] == [10, 20, 30], lines
    assert all(b'"progressToken":%s,' % token in line for line in lines if b"notifications/progress" in line), lines
    assert json.loads(lines[-1])["id"] == 30 and "result" in json.loads(lines[-1])


@pytest.fixture(scope="module")
def batching(wire_project: Path) -> t.Iterator[Wired]:
    server = Wired(wire_project, "2025-03-26")
    yield server
    assert b"Traceback" not in server.close()


@pytest.mark.slow
def test_a_client_of_2025_03_26_gets_its_batch_answered_as_one_array(batching: Wired) -> None:
    batching.send(
        b"["
        + b",".join(
            [
                request("ping", id=1),
                request("tools/list", id=2),
                b'{"jsonrpc":"2.0","method":"notifications/x"}',
                request("ping", id={"a": 1}),
                call('{"text": "hi"}', id=3),
            ]
        )
        + b"]"
    )
    answers = json.loads(batching.lines_until(lambda line: line.startswith(b"["))[-1])
    assert [a["id"] for a in answers] == [1, 2, None, 3]
    assert "echo" in [tool["name"] for tool in answers[1]["result"]["tools"]]
    assert answers[2]["error"]["code"] == -32600
    assert answers[3]["result"]["content"][0]["text"] == "hi\n"
    batching.send(b'[{"jsonrpc":"2.0","method":"notifications/x"}]')  # nothing to answer
    assert batching.lines_until_a_ping() == []


@pytest.mark.slow
def test_a_batch_whose_call_is_cancelled_is_answered_without_it(batching: Wired) -> None:
    batching.send(b"[" + request("tools/call", id=40, name="nap", arguments={}) + b"," + request("ping", id=41) + b"]")
    assert batching.lines_until_a_ping() == []  # the batch waits for its call
    batching.send(b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":40}}')
    assert json.loads(batching.line()) == [{"jsonrpc": "2.0", "id": 41, "result": {}}]
