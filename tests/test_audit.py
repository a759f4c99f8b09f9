"""The audit log (issue 44): a hash-chained JSON line per call, from every call path, through the
real commands (cogtools-call, cogtools mcp with the SDK's own client, cogtools audit), several
processes appending at once, and hostile log files.

Most calls run cogtools-call in process (the ``call`` fixture); ``test_a_call_is_a_line_with_no_value``
keeps the real ``cogtools-call`` process (and the real ``cogtools audit verify``),
``test_standard_output_is_no_log_for_a_stdio_server`` and the MCP tests the real ``cogtools mcp``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import typing as t
from pathlib import Path

import pytest

from cogtools.cli import call as call_cli
from cogtools.cli import porcelain
from cogtools.services import audit

from .conftest import BIN, Cli, Result, run_script, write

SECRET = "hunter2-do-not-log"


Call = t.Callable[..., Result]


def call_process(project: Path, name: str, arguments: str, *args: str) -> Result:
    """``cogtools-call ARGS NAME`` as a real process, ``arguments`` on its stdin."""
    return run_script("cogtools-call", *args, name, stdin=arguments, cwd=project)


@pytest.fixture
def call(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> t.Iterator[Call]:
    """``cogtools-call ARGS NAME`` in process, from ``project``. A process turns auditing on and
    leaves it on until it ends: each call here turns it off after it, as its process's end would."""

    def run(project: Path, name: str, arguments: str, *args: str) -> Result:
        monkeypatch.chdir(project)
        try:
            return cli(call_cli.main, *args, name, stdin=arguments)
        finally:
            audit.stop()

    yield run
    audit.stop()


def records(log: Path) -> list[dict[str, t.Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_shape_holds_keys_and_types_never_values() -> None:
    value = {"text": SECRET, "n": 3, "x": 1.5, "ok": True, "none": None, "list": [1, "a", 2], "deep": {"a": {"b": []}}}
    assert audit.shape(value) == {
        "text": "string",
        "n": "integer",
        "x": "number",
        "ok": "boolean",
        "none": "null",
        "list": ["integer", "string"],
        "deep": {"a": {"b": []}},
    }
    assert SECRET not in json.dumps(audit.shape(value))


def test_shape_is_bounded() -> None:
    wide = {f"k{n}": n for n in range(1000)}
    assert len(audit.shape(wide)) == audit.SHAPE_KEYS + 1 and audit.shape(wide)["…"] == "+968 keys"
    deep: t.Any = "leaf"
    for _ in range(500):
        deep = {"a": deep}
    assert len(json.dumps(audit.shape(deep))) < 200
    assert len(audit.shape({"k" * 10_000: 1})) == 1
    assert len(next(iter(audit.shape({"k" * 10_000: 1})))) == audit.SHAPE_KEY_CHARS
    assert audit.shape([[n] * n for n in range(100)]) == [[], ["integer"]]
    bushy: t.Any = 1
    for _ in range(5):  # 32 keys of 32 keys of ...: 33 million leaves
        bushy = {f"{'k' * 60}{n}": bushy for n in range(32)}
    assert len(json.dumps(audit.shape(bushy))) < 30_000


def test_a_line_stays_short_whatever_a_caller_sends(tmp_path: Path) -> None:
    log = _Log()
    auditor = audit.Auditor([log], b"k" * 32, None)  # type: ignore[list-item]
    from cogtools.core.errors import ToolNotFoundError

    auditor.refused("x" * 1_000_000, ToolNotFoundError("no such tool"), auditor.clock())
    (line,) = log.lines
    assert len(line["tool"]) == audit.TOOL_CHARS
    writer = audit.Log(str(tmp_path / "audit.jsonl"))
    record = audit.Auditor([], b"k" * 32, None).line(
        "\ud800é", {"\udfff": "\x1b[2J"}, error=None, denied=False, started=0.0
    )
    writer.append(record)  # a lone surrogate, as JSON can carry one
    writer.append(record)
    writer.close()
    assert audit.verify(str(tmp_path / "audit.jsonl")).broken == 0


def test_the_hash_is_keyed_and_canonical() -> None:
    a, b = os.urandom(32), os.urandom(32)
    assert audit.keyed_hash(a, {"x": 1, "y": 2}) == audit.keyed_hash(a, {"y": 2, "x": 1})
    assert audit.keyed_hash(a, {"x": 1}) != audit.keyed_hash(b, {"x": 1})
    assert audit.keyed_hash(a, {"x": 1}) != audit.keyed_hash(a, {"x": 2})


def test_a_call_is_a_line_with_no_value(echo_project: Path, tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    done = call_process(echo_project, "echo", json.dumps({"text": SECRET, "times": 2}), "--audit-log", str(log))
    assert done.status == 0 and done.stderr == ""
    bad = call_process(echo_project, "echo", json.dumps({"text": SECRET, "times": 9}), "--audit-log", str(log))
    assert bad.status == 5
    missing = call_process(echo_project, "nosuch", "{}", "--audit-log", str(log))
    assert missing.status == 3
    text = log.read_text()
    assert SECRET not in text
    first, second, third = records(log)
    assert first["tool"] == "echo" and first["status"] == "ok" and first["decision"] == "allowed"
    assert first["args"] == {"text": "string", "times": "integer"} and len(first["args_hmac"]) == 64
    assert first["client"]["name"] == "cogtools-call" and first["sub"] is None
    assert first["time"].endswith("Z") and isinstance(first["ms"], float)
    assert first["prev"] == audit.GENESIS
    assert second["status"] == "SCHEMA_VIOLATION" and second["decision"] == "allowed"
    assert second["args_hmac"] != first["args_hmac"]  # other values, another hash
    assert third["tool"] == "nosuch" and third["decision"] == "denied" and third["status"] == "TOOL_NOT_FOUND"
    key = (Path(os.environ["XDG_STATE_HOME"]) / "cogtools" / "audit" / "key").read_bytes()
    assert first["args_hmac"] == audit.keyed_hash(key, {"text": SECRET, "times": 2})
    assert oct(log.stat().st_mode & 0o777) == "0o600"
    verified = run_script("cogtools", "audit", "verify", str(log))  # (the real command)
    assert verified.status == 0 and "whole, 3 lines" in verified.stdout


def test_a_denial_says_why(echo_project: Path, tmp_path: Path, call: Call) -> None:
    write(echo_project / "tools" / "admin.yaml", "description: Admin only.\nmin_role: admin\nimplementation: x\n")
    log = tmp_path / "audit.jsonl"
    assert call(echo_project, "admin", "{}", "--audit-log", str(log)).status == 3  # hidden: not found
    (line,) = records(log)
    assert line["decision"] == "denied" and line["why"] == "tool_not_found" and line["status"] == "TOOL_NOT_FOUND"
    from cogtools.core.errors import PolicyDeniedError

    auditor = audit.Auditor([], b"k" * 32, {"name": "test"})
    denied = PolicyDeniedError("no: the value was hunter2", details={"reason": "insufficient_scope"})
    record = auditor.line("admin", {"a": 1}, error=denied, denied=False, started=0.0)
    assert record["decision"] == "denied" and record["why"] == "insufficient_scope"
    assert "hunter2" not in json.dumps(record)  # a denial's reason, never its message


def test_verify_finds_a_removed_or_edited_line(echo_project: Path, tmp_path: Path, cli: Cli, call: Call) -> None:
    log = tmp_path / "audit.jsonl"
    for n in range(4):
        assert call(echo_project, "echo", json.dumps({"text": f"t{n}"}), "--audit-log", str(log)).status == 0
    lines = log.read_text().splitlines(keepends=True)
    removed = tmp_path / "removed.jsonl"
    removed.write_text("".join(lines[:1] + lines[2:]))
    done = cli(porcelain.main, "audit", "verify", str(removed))
    assert done.status == 1 and f"{removed}:2:" in done.stdout
    edited = tmp_path / "edited.jsonl"
    edited.write_text("".join(lines[:2] + [lines[2].replace('"ok"', '"KO"')] + lines[3:]))
    done = cli(porcelain.main, "audit", "verify", "--json", str(edited))
    verdict = json.loads(done.stdout)
    assert done.status == 1 and not verdict["whole"] and [b["line"] for b in verdict["breaks"]] == [4]
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[1:]))  # the first lines gone
    done = cli(porcelain.main, "audit", "verify", str(cut))
    assert done.status == 1 and f"{cut}:1:" in done.stdout


def test_query_filters_and_prints_a_table_or_json(echo_project: Path, tmp_path: Path, cli: Cli, call: Call) -> None:
    log = tmp_path / "audit.jsonl"
    call(echo_project, "echo", '{"text": "a"}', "--audit-log", str(log))
    call(echo_project, "echo", '{"text": "a", "times": 9}', "--audit-log", str(log))
    call(echo_project, "nosuch", "{}", "--audit-log", str(log))
    table = cli(porcelain.main, "audit", str(log))
    assert table.status == 0 and table.stdout.startswith("TIME") and len(table.stdout.splitlines()) == 4
    only = cli(porcelain.main, "audit", "--json", "--status", "schema_violation", str(log))
    assert [json.loads(line)["status"] for line in only.stdout.splitlines()] == ["SCHEMA_VIOLATION"]
    tools = cli(porcelain.main, "audit", "--json", "--tool", "ec*", "--since", "1h", str(log))
    assert len(tools.stdout.splitlines()) == 2
    assert cli(porcelain.main, "audit", "--json", "--since", "2999-01-01", str(log)).stdout == ""
    assert cli(porcelain.main, "audit", "--json", "--sub", "alice", str(log)).stdout == ""
    bad = cli(porcelain.main, "audit", "--since", "yesterday-ish", str(log))
    assert bad.status == 2 and "Traceback" not in bad.stderr


def test_the_users_setting_audits_and_a_projects_cannot(echo_project: Path, tmp_path: Path, call: Call) -> None:
    mine, theirs = tmp_path / "mine.jsonl", tmp_path / "theirs.jsonl"
    write(Path(os.environ["XDG_CONFIG_HOME"]) / "cogtools" / "config.yaml", f"audit:\n  log: {mine}\n")
    write(echo_project / ".cogtoolrc.yaml", f"audit:\n  log: {theirs}\n")  # the agent's word
    for _ in range(3):  # (the second and third would be warm calls: they are audited all the same)
        assert call(echo_project, "echo", '{"text": "a"}').status == 0
    assert len(records(mine)) == 3 and not theirs.exists()
    other = tmp_path / "other.jsonl"
    assert call(echo_project, "echo", '{"text": "a"}', "--audit-log", str(other)).status == 0
    assert len(records(mine)) == 4 and len(records(other)) == 1  # an option adds a log, never takes one away


def test_a_broken_project_configuration_does_not_turn_the_users_log_off(
    echo_project: Path, tmp_path: Path, call: Call
) -> None:
    mine = tmp_path / "mine.jsonl"
    write(Path(os.environ["XDG_CONFIG_HOME"]) / "cogtools" / "config.yaml", f"audit:\n  log: {mine}\n")
    write(echo_project / ".cogtoolrc.yaml", "tool_sources: 5\n")
    assert call(echo_project, "echo", '{"text": "a"}').status == 7
    assert call(echo_project, "cogtools_problems", "{}").status == 0  # (what still runs)
    assert [(line["tool"], line["status"]) for line in records(mine)] == [
        ("echo", "CONFIG_INVALID"),
        ("cogtools_problems", "ok"),
    ]


def test_standard_output_is_no_log_for_a_call(echo_project: Path, call: Call) -> None:
    done = call(echo_project, "echo", '{"text": "a"}', "--audit-log", "-")
    assert done.status == 2 and json.loads(done.stdout)["error"]["code"] == "USAGE"


def test_a_log_that_cannot_be_written_is_said_before_the_call(echo_project: Path, tmp_path: Path, call: Call) -> None:
    done = call(echo_project, "echo", '{"text": "a"}', "--audit-log", str(tmp_path / "no" / "such" / "dir" / "log"))
    assert done.status == 2 and json.loads(done.stdout)["error"]["code"] == "USAGE"
    assert done.stderr.count("\n") == 1


_APPENDER = """
import sys
from cogtools.services.audit import Log
log = Log(sys.argv[1])
for n in range(int(sys.argv[2])):
    log.append({"tool": "t" + sys.argv[3], "n": n})
"""


@pytest.mark.slow
def test_processes_appending_at_once_keep_one_chain(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    each, count = 200, 6
    procs = [subprocess.Popen([sys.executable, "-c", _APPENDER, str(log), str(each), str(n)]) for n in range(count)]
    assert [p.wait(timeout=120) for p in procs] == [0] * count
    verdict = audit.verify(str(log))
    assert verdict.lines == each * count and verdict.broken == 0, verdict.breaks[:5]


@pytest.mark.slow
def test_concurrent_calls_keep_one_chain(echo_project: Path, tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    procs = [
        subprocess.Popen(
            [str(BIN / "cogtools-call"), "--audit-log", str(log), "echo"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=echo_project,
        )
        for _ in range(8)  # (all at once from a fresh home: they make the audit key at once too)
    ]
    for p in procs:  # (every one given its input before any is waited for: they run at once)
        assert p.stdin is not None
        p.stdin.write(b'{"text": "a"}')
        p.stdin.close()
    outcomes = [(p.stdout.read(), p.stderr.read(), p.wait(timeout=120)) for p in procs]  # type: ignore[union-attr]
    assert [p.returncode for p in procs] == [0] * 8, outcomes
    assert audit.verify(str(log)) == audit.Verdict(8, audit.verify(str(log)).head, [], 0)


def test_a_torn_last_line_is_one_break_and_the_chain_goes_on(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    writer = audit.Log(str(log))
    writer.append({"tool": "a"})
    with open(log, "ab") as f:
        f.write(b'{"tool": "b", "pr')  # a write cut short
    writer.append({"tool": "c"})
    writer.close()
    verdict = audit.verify(str(log))
    assert verdict.lines == 3 and [number for number, _ in verdict.breaks] == [2]


def test_a_rotated_log_starts_a_new_chain(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    writer = audit.Log(str(log))
    writer.append({"tool": "a"})
    log.rename(tmp_path / "audit.jsonl.1")
    writer.append({"tool": "b"})
    writer.close()
    assert records(log)[0]["prev"] == audit.GENESIS and audit.verify(str(log)).broken == 0


def test_a_huge_or_garbage_file_is_a_clean_answer(tmp_path: Path, cli: Cli) -> None:
    huge = tmp_path / "huge"
    with open(huge, "wb") as f:  # one line of 64 MiB, no newline: sparse, so nothing is written
        f.write(b"x")
        f.truncate(64 * 1024 * 1024)
    done = cli(porcelain.main, "audit", "verify", str(huge))
    assert done.status == 1 and f"{huge}:1: longer than" in done.stdout
    shown = cli(porcelain.main, "audit", str(huge))
    assert shown.status == 4 and "INVALID_INPUT" in shown.stderr and "line 1" in shown.stderr
    assert shown.stdout == ""
    garbage = tmp_path / "garbage"
    garbage.write_bytes(b'\xff\xfe\x00garbage\n[1, 2]\n{"tool": 1}\n' + b"{" * 100_000 + b"\n")
    done = cli(porcelain.main, "audit", "verify", "--json", str(garbage))
    verdict = json.loads(done.stdout)
    assert done.status == 1 and [b["line"] for b in verdict["breaks"]] == [1, 2, 3, 4]
    missing = cli(porcelain.main, "audit", "verify", str(tmp_path / "nothing"))
    assert missing.status == 2 and "Traceback" not in missing.stderr
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    assert cli(porcelain.main, "audit", "verify", str(empty)).status == 0


def test_a_long_line_streams_into_the_next_ones_prev(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    long_line = b"y" * (3 * audit.MAX_LINE)
    log.write_bytes(long_line + b"\n")
    writer = audit.Log(str(log))
    writer.append({"tool": "after"})  # (chains to the tail it can read: verify flags the long line)
    writer.close()
    verdict = audit.verify(str(log))
    assert [number for number, _ in verdict.breaks][:1] == [1]


mcp = pytest.importorskip("mcp")


@pytest.mark.slow
def test_mcp_calls_are_audited_with_the_clients_name(echo_project: Path, tmp_path: Path) -> None:
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    log = tmp_path / "audit.jsonl"
    params = StdioServerParameters(
        command=str(BIN / "cogtools"),
        args=["mcp", "--audit-log", str(log)],
        cwd=str(echo_project),
        env=dict(os.environ),
    )

    async def main() -> None:
        with anyio.fail_after(60):
            async with Client(params) as client:
                await client.call_tool("echo", {"text": SECRET})
                await client.call_tool("echo", {"text": SECRET, "times": 9})

    anyio.run(main)
    first, second = records(log)
    assert first["client"]["name"] != "cogtools mcp" and first["client"]["name"]  # the SDK client's clientInfo
    assert first["status"] == "ok" and second["status"] == "SCHEMA_VIOLATION"
    assert SECRET not in log.read_text()
    assert audit.verify(str(log)).broken == 0


@pytest.mark.slow
def test_a_server_started_on_a_broken_configuration_audits_as_the_user_said(echo_project: Path, tmp_path: Path) -> None:
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    mine = tmp_path / "mine.jsonl"
    write(Path(os.environ["XDG_CONFIG_HOME"]) / "cogtools" / "config.yaml", f"audit:\n  log: {mine}\n")
    write(echo_project / ".cogtoolrc.yaml", "tool_sources: 5\n")
    params = StdioServerParameters(
        command=str(BIN / "cogtools"), args=["mcp"], cwd=str(echo_project), env=dict(os.environ)
    )

    async def main() -> None:
        with anyio.fail_after(60):
            async with Client(params) as client:
                await client.call_tool("cogtools_problems", {})

    anyio.run(main)
    assert [line["tool"] for line in records(mine)] == ["cogtools_problems"]


def test_the_caller_is_found_where_auth_puts_it() -> None:
    from cogtools.mcp import auth, calls

    assert calls.CALLER_KEY == auth.CALLER_KEY


def test_standard_output_is_no_log_for_a_stdio_server(echo_project: Path) -> None:
    done = run_script("cogtools", "mcp", "--audit-log", "-", cwd=echo_project)
    assert done.status == 2 and "standard output" in done.stderr


@pytest.mark.slow
def test_replicas_append_one_chain_with_each_callers_subject(tmp_path: Path) -> None:
    """Two ``cogtools mcp --http --stateless --auth`` replicas, one log: 2026-07-28 calls answered in
    front of the SDK from several threads, and calls of the 2025 handshake through the SDK; each
    line carries its caller's subject and client, and the chain is whole."""
    import threading

    from .test_mcp import over_http, start_http
    from .test_mcp_auth import Issuer, call_message, list_and_call, request

    project = tmp_path / "work"
    write(project / ".cogtoolrc.yaml", "# team\n")
    write(
        project / "tools" / "look.yaml",
        "description: Look.\nrisk_level: low\nside_effects: [filesystem_read]\n"
        "parameters:\n  n: {type: integer, optional: true}\nimplementation: looked\n",
    )
    write(project / "tools" / "note.yaml", "description: Note.\nside_effects: [filesystem_write]\nimplementation: n\n")
    log = tmp_path / "audit.jsonl"
    issuer = Issuer()
    replicas = [start_http(project, "--stateless", "--auth", issuer.url, "--audit-log", str(log)) for _ in range(2)]
    try:
        tokens = {
            (n, sub): issuer.token("tools:read", sub=sub, aud=server.url)
            for n, server in enumerate(replicas)
            for sub in ("alice", "bob")
        }
        failures: list[t.Any] = []

        def caller(sub: str) -> None:
            for number in range(20):
                n = number % 2
                answer = request(replicas[n].url, tokens[(n, sub)], call_message("look", {"n": number}))
                if answer.status != 200 or b"looked" not in answer.body:
                    failures.append(answer)

        threads = [threading.Thread(target=caller, args=(sub,)) for sub in ("alice", "bob") for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
        assert not failures
        refused = request(replicas[1].url, tokens[(1, "bob")], call_message("note", {"text": SECRET}))
        assert refused.status == 403  # (beyond bob's scopes: never run, written down all the same)
        legacy = over_http(replicas[0].url, list_and_call("look"), token=tokens[(0, "alice")], mode="legacy")
        assert legacy == (["look"], ["looked"])
    finally:
        for server in replicas:
            server.stop()
        issuer.close()
    lines = records(log)
    (denied,) = [line for line in lines if line["decision"] == "denied"]
    assert denied["tool"] == "note" and denied["why"] == "insufficient_scope" and denied["sub"] == "bob"
    assert denied["args"] == {"text": "string"} and SECRET not in log.read_text()
    lines.remove(denied)
    direct = [line for line in lines if line["client"] == {"name": "raw", "version": "0"}]
    assert len(direct) == 80 and len(lines) == 81
    assert sorted({line["sub"] for line in lines}) == ["alice", "bob"]
    assert sum(line["sub"] == "alice" for line in direct) == 40
    assert all(line["args"] == {"n": "integer"} for line in direct)
    (through_sdk,) = [line for line in lines if line not in direct]
    # (a stateless server of the handshake era hears no clientInfo: none is made up)
    assert through_sdk["sub"] == "alice" and through_sdk["client"] is None
    assert audit.verify(str(log)).broken == 0


@pytest.mark.slow
def test_the_benchmark_runs(tmp_path: Path) -> None:
    """benchmarks/audit.py, small, as a smoke test: the figures are for people."""
    from .conftest import REPO

    out = tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "audit.py"), "--calls", "20", "--rounds", "1", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert set(json.loads(out.read_text())["medians"]) == {"server", "invoke", "cli"}


class _Log:
    def __init__(self) -> None:
        self.path = "memory"
        self.lines: list[dict[str, t.Any]] = []

    def append(self, record: dict[str, t.Any]) -> None:
        self.lines.append(record)


def test_a_servers_inline_try_that_runs_out_of_time_is_no_line() -> None:
    """The server tries a template on its event loop with a short time limit, then again in a
    worker: only the call that ends is written."""
    from cogtools.core.errors import ToolTimeoutError
    from cogtools.services.invoke import Target

    log = _Log()
    auditor = audit.Auditor([log], b"k" * 32, None)  # type: ignore[list-item]
    target = t.cast(Target, type("T", (), {"tool": type("Tool", (), {"name": "slow"})()})())

    def run(target: Target, arguments: t.Any, **options: t.Any) -> str:
        raise ToolTimeoutError("too slow", details={"timeout_seconds": options["time_limit"]})

    for limit in (0.05, None):
        with pytest.raises(ToolTimeoutError):
            auditor.invoking(run, target, {"a": 1}, {"time_limit": limit, "dry_run": False})
    assert [line["status"] for line in log.lines] == ["TIMEOUT"]  # the second: its own limit
    assert log.lines[0]["client"] is None and log.lines[0]["args"] == {"a": "integer"}


def test_a_call_through_cogtools_call_is_two_lines(echo_project: Path, tmp_path: Path, call: Call) -> None:
    write(echo_project / ".cogtoolrc.yaml", "discovery_mode: true\n")
    log = tmp_path / "audit.jsonl"
    done = call(echo_project, "cogtools_call", '{"name": "echo", "arguments": {"text": "hi"}}', "--audit-log", str(log))
    assert done.status == 0, done.stdout
    assert [line["tool"] for line in records(log)] == ["echo", "cogtools_call"]
    assert audit.verify(str(log)).broken == 0
