"""The first answers of a stdio server (:mod:`cogtools.mcp.first`), made before the SDK is
imported, are the SDK's own: each answer held equal to what the SDK's server answers the same
message (in process, as cogtools composes it), for projects of every kind of declaration and every
protocol version; what it is not sure of waits for the SDK; the handover leaves the SDK's session
as the client's messages would have made it; requests that arrive while the SDK loads are served
in order, and one cancelled meanwhile never is. Through the real server where a client would see
it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import typing as t
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from cogtools.mcp import first
from cogtools.mcp.first import (
    CLIENT_CAPABILITIES_KEY,
    CLIENT_INFO_KEY,
    CONSUMED,
    PROTOCOL_VERSION_KEY,
    Opening,
    declarations,
    served_tool,
)

from .conftest import BIN, EXAMPLES, REPO, examples, write

pytest.importorskip("mcp")

#: What a client of the handshake era says of itself.
CLIENT = {"name": "probe", "version": "1.0"}
VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "1999-01-01", "2026-07-28")


def initialize(version: str, id: t.Any = 1, capabilities: t.Any = None, **more: t.Any) -> dict[str, t.Any]:
    params = {"protocolVersion": version, "capabilities": capabilities or {}, "clientInfo": CLIENT, **more}
    return {"jsonrpc": "2.0", "id": id, "method": "initialize", "params": params}


def request(method: str, id: t.Any, params: t.Any = None) -> dict[str, t.Any]:
    message: dict[str, t.Any] = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def envelope(capabilities: t.Any = None, info: t.Any = CLIENT, version: str = "2026-07-28") -> dict[str, t.Any]:
    meta = {PROTOCOL_VERSION_KEY: version, CLIENT_CAPABILITIES_KEY: capabilities or {}}
    if info is not None:
        meta[CLIENT_INFO_KEY] = info
    return {"_meta": meta}


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
#: What real clients say of themselves in their initialize: Codex 0.169, Claude Code 2.1.197.
CLIENTS = {
    "codex": {
        "capabilities": {"experimental": {"codex/auth-change": {}}, "elicitation": {"form": {}, "url": {}}},
        "clientInfo": {"name": "codex-mcp-client", "title": "Codex", "version": "0.169.0"},
    },
    "claude-code": {
        "capabilities": {"roots": {}, "elicitation": {}},
        "clientInfo": {
            "name": "claude-code",
            "title": "Claude Code",
            "version": "2.1.197",
            "description": "Anthropic's agentic coding tool",
            "websiteUrl": "https://claude.com/claude-code",
        },
    },
}


def handshake(version: str, client: str = "codex") -> list[dict[str, t.Any]]:
    """A client of the handshake era opening, as the real ones do: the list of tools, and of
    prompts and resources, which this server does not offer (some clients ask all the same),
    a ping."""
    return [
        initialize(version, **CLIENTS[client]),
        INITIALIZED,
        request("tools/list", 2),
        request("ping", 3),
        request("prompts/list", 4),
        request("resources/list", 5),
        request("resources/templates/list", 6, {}),
        {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"},
        request("tools/list", 7, {"_meta": {"progressToken": 0}}),  # (as Codex asks)
        request("ping", 8, {"_meta": {"progressToken": "p"}}),
    ]


def modern() -> list[dict[str, t.Any]]:
    """A client of 2026-07-28 opening: discovery, then the list, each in its envelope."""
    return [request("server/discover", 1, envelope()), request("tools/list", 2, envelope({"roots": {}}))]


def sdk_answers(root: Path, messages: list[dict[str, t.Any]]) -> list[dict[str, t.Any]]:
    """What the SDK's server, as cogtools composes it (:class:`cogtools.mcp.server.ToolServer`),
    answers ``messages``, each request's answer awaited before the next message is sent."""
    import anyio
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    from cogtools.mcp.live import LiveCatalog
    from cogtools.mcp.server import ToolServer

    server = ToolServer(LiveCatalog(root, dict(os.environ)))
    answers: list[dict[str, t.Any]] = []

    async def main() -> None:
        send, read_stream = anyio.create_memory_object_stream[t.Any](100)
        write_stream, receive = anyio.create_memory_object_stream[t.Any](100)
        async with anyio.create_task_group() as group:
            group.start_soon(server.sdk.run, read_stream, write_stream, server.sdk.create_initialization_options())
            with anyio.fail_after(30):
                for message in messages:
                    await send.send(
                        SessionMessage(types.jsonrpc_message_adapter.validate_python(message, by_name=False))
                    )
                    if "id" in message:
                        answer = (await receive.receive()).message
                        answers.append(json.loads(answer.model_dump_json(by_alias=True, exclude_unset=True)))
            await send.aclose()

    anyio.run(main)
    return answers


def fast_answers(root: Path, messages: list[dict[str, t.Any]]) -> list[dict[str, t.Any] | None]:
    """What :class:`Opening` answers ``messages`` (None: it waits for the SDK)."""
    from cogtools.load.loading import load_project

    opening = Opening(declarations(load_project(root, dict(os.environ))))
    answers: list[dict[str, t.Any] | None] = []
    for message in messages:
        answer = opening.take(message)
        if "id" in message:
            answers.append(json.loads(answer) if answer is not None else None)
        else:
            assert answer == CONSUMED  # (the SDK is told it when it comes, in its turn)
    return answers


def projects(base: Path) -> dict[str, Path]:
    """Projects of every kind of declaration: the shipped examples (titles, output schemas,
    annotations of each kind of tool, confined or not, a tool not offered), the conformance
    suite's (a 2020-12 schema with ``$defs``), discovery mode's meta-tools, one with a schema
    that holds nulls, one with no tool, and one whose configuration does not load."""
    found: dict[str, Path] = {}
    for name, tools in (("examples", EXAMPLES / "tools"), ("conformance", REPO / "tests/fixtures/conformance/tools")):
        shutil.copytree(tools, base / name / "tools")
        (base / name / ".cogtoolrc.yaml").write_text("")
        found[name] = base / name
    shutil.copytree(EXAMPLES / "tools", base / "discovery" / "tools")
    (base / "discovery" / ".cogtoolrc.yaml").write_text("discovery_mode: true\n")
    found["discovery"] = base / "discovery"
    write(
        base / "nulls" / "tools" / "nulls.json",
        json.dumps(
            {
                "description": "Nulls, in defaults and enums.",
                "title": "Nulls — ünïcode",
                "parameters": {
                    "choice": {"type": ["string", "null"], "enum": ["a", None], "default": None, "description": "C."}
                },
                "implementation": "{{ choice }}",
            }
        ),
    )
    (base / "nulls" / ".cogtoolrc.yaml").write_text("")
    found["nulls"] = base / "nulls"
    (base / "empty" / "tools").mkdir(parents=True)
    (base / "empty" / ".cogtoolrc.yaml").write_text("")
    found["empty"] = base / "empty"
    write(base / "broken" / ".cogtoolrc.yaml", "policy: [\n")  # (cogtools_problems alone is offered)
    found["broken"] = base / "broken"
    return found


@pytest.fixture(scope="module")
def every_project(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return projects(tmp_path_factory.mktemp("first"))


@pytest.mark.slow
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", ["examples", "conformance", "discovery", "nulls", "empty", "broken"])
def test_each_first_answer_is_the_sdks(every_project: dict[str, Path], name: str, version: str) -> None:
    root = every_project[name]
    client = "claude-code" if VERSIONS.index(version) % 2 else "codex"
    messages = modern() if version == "2026-07-28" else handshake(version, client)
    fast = fast_answers(root, messages)
    assert None not in fast, fast  # all of them answered without the SDK
    assert fast == sdk_answers(root, messages)
    listed = fast[1]
    assert listed is not None and (len(listed["result"]["tools"]) > 0) == (name != "empty")


def test_the_protocol_versions_and_capabilities_are_the_sdks() -> None:
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION, MODERN_PROTOCOL_VERSIONS

    assert first.HANDSHAKE_VERSIONS == HANDSHAKE_PROTOCOL_VERSIONS
    assert first.LATEST_HANDSHAKE == LATEST_HANDSHAKE_VERSION
    assert first.MODERN_VERSIONS == MODERN_PROTOCOL_VERSIONS


def test_what_is_not_surely_the_sdks_waits_for_it(echo_project: Path) -> None:
    """A message of a shape the first answers do not know for sure is left to the SDK, and so is
    one of another era than the connection's, or out of its turn."""
    opening = Opening(declarations(_loaded(echo_project)))
    waits = [
        request("tools/list", 1),  # before initialize: the SDK refuses it
        request("tools/call", 1, {"name": "echo", "arguments": {"text": "x"}}),
        initialize("2025-06-18", capabilities={"tasks": {}}),
        initialize("2025-06-18", capabilities={"roots": {"listChanged": "yes"}}),
        initialize("2025-06-18", capabilities={"sampling": None}),
        {**initialize("2025-06-18"), "params": {**initialize("2025-06-18")["params"], "clientInfo": {"name": "x"}}},
        initialize("2025-06-18", _meta={"progressToken": 1}),
        initialize(20250618),  # type: ignore[arg-type]
        {**initialize("2025-06-18"), "id": True},
        {**initialize("2025-06-18"), "jsonrpc": "1.0"},
        request("ping", 1, {"_meta": {"progressToken": 0.5}}),
        request("ping", 1, {"_meta": {"progressToken": True}}),
        request("ping", 1, {"_meta": {"progressToken": "p", "other": 1}}),
        {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": None},
        {**INITIALIZED, "id": None},  # a notification of a shape the SDK may not take
        {**INITIALIZED, "other": 1},
        request("server/discover", 1, envelope(version="2025-11-25")),
        request("server/discover", 1, envelope({"extensions": {"io.x/y": {}}})),
        request("server/discover", 1, envelope(info={"name": "x", "version": 1})),
        request("server/discover", 1, {**envelope(), "cursor": "x"}),
    ]
    for message in waits:
        assert opening.take(message) is None, message
    assert opening.served == [] and opening.era is None
    assert opening.take(initialize("2025-06-18")) is not None
    for message in (
        initialize("2025-06-18", id=2),  # a second one
        request("tools/list", 3, {"cursor": "x"}),
        request("tools/list", 3, envelope()),  # the other era's
        request("server/discover", 3, envelope()),
    ):
        assert opening.take(message) is None, message
    assert opening.take(INITIALIZED) == CONSUMED and opening.take(request("tools/list", 4)) is not None
    assert [message.get("method") for message in opening.served] == ["initialize", INITIALIZED["method"], "tools/list"]
    assert {message["id"] for message in opening.served if "id" in message} == opening.replayed


def _loaded(root: Path) -> t.Any:
    from cogtools.load.loading import load_project

    return load_project(root, dict(os.environ))


# -- anything the first answers take is taken as the SDK takes it ---------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=6,
)


def mostly(valid: st.SearchStrategy[t.Any], other: st.SearchStrategy[t.Any] = JSON) -> st.SearchStrategy[t.Any]:
    """``valid`` three times in four, else ``other``: what is taken here is tried often."""
    return st.integers(0, 3).flatmap(lambda n: valid if n else other)


CAPABILITY = mostly(
    st.sampled_from(["roots", "sampling", "elicitation", "experimental"]),
    st.sampled_from(["tasks", "extensions", "other"]),
)
CAPABILITY_VALUE = mostly(
    st.one_of(
        st.just({}),
        st.fixed_dictionaries({}, optional={"listChanged": mostly(st.booleans())}),
        st.dictionaries(st.sampled_from(["context", "tools", "form", "url", "x"]), mostly(st.just({})), max_size=2),
    )
)
CAPABILITIES = mostly(st.dictionaries(CAPABILITY, CAPABILITY_VALUE, max_size=3))
INFO = mostly(
    st.fixed_dictionaries(
        {"name": st.text(max_size=3), "version": st.text(max_size=3)},
        optional={"title": mostly(st.text(max_size=2)), "websiteUrl": st.text(max_size=2), "icons": JSON},
    )
)


@hypothesis_settings(deadline=None, max_examples=examples(300))
@given(
    version=st.sampled_from(VERSIONS) | st.text(max_size=4),
    capabilities=CAPABILITIES,
    info=INFO,
    extra=mostly(st.just({}), st.dictionaries(st.sampled_from(["_meta", "other"]), JSON, max_size=1)),
)
def test_an_initialize_taken_here_is_answered_as_the_sdk_answers_it(
    every_project: dict[str, Path], version: str, capabilities: t.Any, info: t.Any, extra: dict[str, t.Any]
) -> None:
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": version, "capabilities": capabilities, "clientInfo": info, **extra},
    }
    answer = Opening([]).take(message)
    if answer is not None:
        assert sdk_answers(every_project["empty"], [message]) == [json.loads(answer)]


@hypothesis_settings(deadline=None, max_examples=examples(300))
@given(
    method=st.sampled_from(["server/discover", "tools/list"]),
    version=st.sampled_from(["2026-07-28", "2025-11-25"]),
    capabilities=CAPABILITIES,
    info=INFO | st.none(),
    extra=mostly(
        st.just({}),
        st.dictionaries(
            st.sampled_from([CLIENT_INFO_KEY, "io.modelcontextprotocol/logLevel", "other"]), JSON, max_size=1
        ),
    ),
)
def test_a_request_of_2026_taken_here_is_answered_as_the_sdk_answers_it(
    every_project: dict[str, Path], method: str, version: str, capabilities: t.Any, info: t.Any, extra: dict[str, t.Any]
) -> None:
    params = envelope(capabilities, info, version)
    params["_meta"].update(extra)
    message = request(method, 1, params)
    answer = Opening([]).take(message)
    if answer is not None:
        assert sdk_answers(every_project["empty"], [message]) == [json.loads(answer)]


SCHEMA = mostly(
    st.fixed_dictionaries(
        {"type": mostly(st.just("object"))},
        optional={
            "properties": mostly(st.dictionaries(st.text(max_size=2), mostly(st.booleans() | st.just({})), max_size=2)),
            "required": mostly(st.lists(st.text(max_size=2), max_size=2)),
            "$schema": mostly(st.text(max_size=2)),
            "$defs": JSON,
            "other": JSON,
        },
    )
)


@hypothesis_settings(deadline=None, max_examples=examples(1000))
@given(
    declaration=st.fixed_dictionaries(
        {"name": mostly(st.text(max_size=3)), "inputSchema": SCHEMA},
        optional={
            "title": mostly(st.text(max_size=2)),
            "description": mostly(st.text(max_size=2)),
            "outputSchema": SCHEMA,
            "annotations": mostly(
                st.dictionaries(
                    st.sampled_from(["title", "readOnlyHint", "destructiveHint", "openWorldHint", "other"]),
                    mostly(st.booleans()),
                    max_size=3,
                )
            ),
            "icons": JSON,
        },
    )
)
def test_a_declaration_listed_here_is_listed_as_the_sdk_lists_it(declaration: dict[str, t.Any]) -> None:
    """What :func:`served_tool` keeps of a declaration is what the SDK's models (the tool, then
    the result of each era) write of it; one it does not take, the SDK's listing would not
    take as it is either, or would change."""
    import mcp_types as types
    from mcp_types import methods
    from pydantic import ValidationError

    served = served_tool(declaration)
    if served is None:
        return
    listed = types.ListToolsResult(tools=[types.Tool.model_validate(declaration)]).model_dump(
        by_alias=True, mode="json", exclude_none=True
    )
    for version in ("2025-11-25", "2026-07-28"):
        try:
            sdk = methods.serialize_server_result("tools/list", version, listed)
        except ValidationError:
            pytest.fail(f"taken here, refused by the SDK at {version}: {declaration}")
        assert sdk["tools"] == [served]


# -- the server --------------------------------------------------------------------------------------


def stdio_server(cwd: Path, *args: str) -> subprocess.Popen[bytes]:
    """``cogtools mcp ARGS`` in ``cwd``, as a client starts it."""
    return subprocess.Popen(
        [str(BIN / "cogtools"), "mcp", *args],
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def lines_of(*messages: dict[str, t.Any] | bytes) -> bytes:
    return b"".join((m if isinstance(m, bytes) else json.dumps(m).encode()) + b"\n" for m in messages)


def answers_of(proc: subprocess.Popen[bytes], count: int) -> list[dict[str, t.Any]]:
    assert proc.stdout is not None
    found = []
    for _ in range(count):
        line = proc.stdout.readline()
        assert line, "the server ended"
        found.append(json.loads(line))
    return found


def stopped(proc: subprocess.Popen[bytes]) -> str:
    assert proc.stdin is not None and proc.stderr is not None
    proc.stdin.close()
    assert proc.wait(timeout=30) == 0
    return proc.stderr.read().decode()


@pytest.mark.slow
@pytest.mark.parametrize("version", ["2024-11-05", "2025-06-18", "2026-07-28"])
def test_the_server_answers_first_as_it_does_once_the_sdk_serves(echo_project: Path, version: str) -> None:
    """The same opening through the real server, answered first here, and by the SDK (when a
    message that waits for it comes first, all that follows waits too); then a call, which only
    the SDK serves, after the handover: the SDK's session is the one the client opened."""
    opening = modern() if version == "2026-07-28" else handshake(version)
    call_params = {"name": "echo", "arguments": {"text": "hi"}}
    if version == "2026-07-28":
        call_params.update(envelope())
    call = request("tools/call", 9, call_params)
    seen = []
    for lead in ([], [{"jsonrpc": "2.0", "method": "notifications/cogtools-test-waits"}]):
        proc = stdio_server(echo_project)
        assert proc.stdin is not None
        requests = [m for m in opening if "id" in m]
        proc.stdin.write(lines_of(*lead, *opening, call))
        proc.stdin.flush()
        found = sorted(answers_of(proc, len(requests) + 1), key=lambda answer: str(answer["id"]))
        stopped(proc)
        assert found[-1]["id"] == 9 and found[-1]["result"]["content"][0]["text"] == "hi\n", found[-1]
        seen.append(found)
    assert seen[0] == seen[1]


@pytest.mark.slow
def test_requests_that_come_while_the_sdk_loads_are_served_in_order_and_a_cancelled_one_never(
    project: Path,
) -> None:
    """Calls that wait for the SDK reach it in the order they came (one at a time: --max-calls
    1, each adding a line to a file); one cancelled before the SDK came is never run nor
    answered; a ping among them is answered; a line that is not JSON is answered at once."""
    log = project / "calls.log"
    write(
        project / "tools" / "mark.yaml",
        f"""\
        description: Add a mark to the log.
        parameters: {{mark: {{type: string, description: The mark.}}}}
        side_effects: [filesystem_write]
        implementation: {{kind: command, argv: [sh, -c, 'echo "$0" >> {log}', '{{{{ mark }}}}']}}
        """,
    )
    proc = stdio_server(project, "--max-calls", "1")
    assert proc.stdin is not None
    proc.stdin.write(lines_of(initialize("2025-06-18"), INITIALIZED))
    proc.stdin.flush()
    assert answers_of(proc, 1)[0]["id"] == 1

    def mark(id: int, text: str) -> dict[str, t.Any]:
        return request("tools/call", id, {"name": "mark", "arguments": {"mark": text}})

    proc.stdin.write(
        lines_of(
            mark(10, "a"),
            mark(11, "cancelled"),
            mark(12, "b"),
            {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 11}},
            b"not json",
            mark(13, "c"),
            request("ping", 14),
        )
    )
    proc.stdin.flush()
    found = answers_of(proc, 5)
    assert found[0] == {"jsonrpc": "2.0", "id": None, "error": found[0]["error"]}
    assert found[0]["error"]["code"] == -32700  # at once, before the SDK has come
    assert sorted(answer["id"] for answer in found[1:]) == [10, 12, 13, 14]
    assert all("result" in answer and not answer["result"].get("isError") for answer in found[1:]), found
    stopped(proc)
    assert log.read_text().split() == ["a", "b", "c"]


@pytest.mark.slow
def test_a_client_that_leaves_after_the_first_answers_ends_the_server(echo_project: Path) -> None:
    proc = stdio_server(echo_project)
    assert proc.stdin is not None
    proc.stdin.write(lines_of(*handshake("2025-06-18")))
    proc.stdin.close()
    assert [answer["id"] for answer in answers_of(proc, 3)] == [1, 2, 3]
    assert proc.wait(timeout=30) == 0


@pytest.mark.slow
def test_the_first_answers_need_neither_the_sdk_nor_pydantic_nor_anyio(echo_project: Path) -> None:
    """What a stdio server has imported when its first answers are ready (when it starts the
    SDK's import): none of the SDK, pydantic, anyio, nor click (a client's command line is read
    plainly); of cogtools.mcp, the first answers, the wire, the live catalog."""
    probe = (
        "import json, os, sys\n"
        "import cogtools.mcp.first as first\n"
        "def load(inbox):\n"
        "    print(json.dumps(sorted(sys.modules)), file=sys.stderr, flush=True)\n"
        "    os._exit(0)\n"
        "first._load = load\n"
        "from cogtools.cli.entry import main\n"
        "sys.argv = ['cogtools', 'mcp']\n"
        "main()\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=echo_project, capture_output=True, text=True, input="")
    modules = set(json.loads(done.stderr.strip().splitlines()[-1]))
    assert not {name for name in modules if name.split(".")[0] in ("mcp", "mcp_types", "pydantic", "anyio", "click")}
    assert {name for name in modules if name.startswith("cogtools.mcp")} == {
        "cogtools.mcp",
        "cogtools.mcp.first",
        "cogtools.mcp.framing",
        "cogtools.mcp.live",
        "cogtools.mcp.watching",
    }


@pytest.mark.slow
def test_the_benchmark_runs(tmp_path: Path) -> None:
    """benchmarks/mcp_first.py, one round, as a smoke test: the figures are for people."""
    out = tmp_path / "first.json"
    done = subprocess.run(
        [sys.executable, REPO / "benchmarks" / "mcp_first.py", "--rounds", "1", "--json", out],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    figures = json.loads(out.read_text())
    assert figures["tools"] >= 12 and {"cogtools", "plain"} <= set(figures["medians_ms"])


# -- the command line, read without click ---------------------------------------------------------

TOKENS = st.sampled_from(
    ["--project", "--max-calls", "--interval", "--http", "--stateless", "-h", "--", "=", "--project=a-dir"]
    + ["--audit-log", "--audit-log=a.jsonl", "-", "--audit-log=-"]
    + ["--max-calls=2", "--interval=0.5", "5", "0", "-1", "007", "0.5", "0.05", "1e1", " 3", "a-dir", "a-file"]
    + ["missing", "", "-x", "٣", "1_0", "1000000", "0.10"]
)


@hypothesis_settings(deadline=None, max_examples=examples(1000))
@given(argv=st.lists(TOKENS, max_size=6))
def test_the_plain_command_line_is_read_as_click_reads_it(
    tmp_path_factory: pytest.TempPathFactory, argv: list[str]
) -> None:
    """What :func:`cogtools.cli.mcp_stdio.parse_plain` reads, click reads alike, to serve stdio
    with the same options; anything else it leaves to click."""
    import click

    from cogtools.cli.mcp_cmd import command
    from cogtools.cli.mcp_stdio import parse_plain

    where = tmp_path_factory.mktemp("argv")
    (where / "a-dir").mkdir()
    (where / "a-file").write_text("")
    os.chdir(where)
    plain = parse_plain(argv)
    if plain is None:
        return
    try:
        params = command.make_context("mcp", list(argv)).params
    except click.exceptions.Exit:  # (help)
        pytest.fail(f"read plainly, but click answers {argv}")
    except click.UsageError as e:
        pytest.fail(f"read plainly, but click refuses {argv}: {e}")
    assert params == {
        **params,
        "address": None,
        "client": None,
        "stateless": False,
        "token_file": None,
        "allowed_hosts": (),
        "project_launcher": False,
    }
    assert (params["project"], params["max_calls"], params["interval"], params["audit_log"]) == tuple(plain)


def test_a_client_s_command_lines_are_read_plainly() -> None:
    from cogtools.cli.mcp_stdio import Plain, parse_plain

    assert parse_plain([]) == Plain()
    assert parse_plain(["--project", "/p", "--max-calls=2", "--interval", "2.5"]) == Plain(Path("/p"), 2, 2.5)
    for argv in (["--help"], ["-V"], ["--http", "8000"], ["--project"], ["--max-calls", "0"], ["x"]):
        assert parse_plain(argv) is None, argv
