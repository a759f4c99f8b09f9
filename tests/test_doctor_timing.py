"""``cogtools doctor`` times each configured MCP server's first answers, as a client would meet
them: it starts every server at once (a client starts its servers together), asks each
``initialize`` and ``tools/list`` (or, for an HTTP entry, sends them), gives up on them all at
once after a bounded time, and warns of a server slower than a headless client waits (Codex
``exec`` about 1 s, Claude Code ``-p`` 2 s: they then run without its tools, and say nothing),
naming those clients and the setting that makes one wait. Found: a server that took 7.28 s to
answer was reported as ok. Every test runs the real ``cogtools doctor``."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
import typing as t
from pathlib import Path

import pytest

from .conftest import BIN, Result, write

HELLO = "description: Say hello.\nparameters:\n  who: {type: string, description: Who.}\nimplementation: Hello, {{ who }}!\n"


def doctor(root: Path, *argv: str, path: t.Sequence[Path] = ()) -> Result:
    """The real ``cogtools doctor`` in ``root``, with ``path`` first on PATH."""
    env = {**os.environ, "PATH": os.pathsep.join([*map(str, path), os.environ["PATH"]])}
    done = subprocess.run(
        [str(BIN / "cogtools"), "doctor", *argv], cwd=root, env=env, capture_output=True, text=True, timeout=120
    )
    return Result(done.returncode, done.stdout, done.stderr)


def launcher(directory: Path, before: str) -> Path:
    """A ``cogtools`` in ``directory`` (outside the project) that runs the shell code ``before``,
    then the real cogtools: a server that is slow to start, as on a busy machine, behind a
    wrapper, or a first ``npx`` run."""
    return write(directory / "cogtools", f'#!/bin/sh\n{before}\nexec "{BIN / "cogtools"}" "$@"\n', mode=0o755)


def mcp_json(root: Path, **servers: dict[str, t.Any]) -> None:
    write(root / ".mcp.json", json.dumps({"mcpServers": servers}))


@pytest.fixture
def hello(project: Path) -> Path:
    write(project / "tools" / "hello.yaml", HELLO)
    return project


@pytest.mark.slow
def test_a_server_slower_than_the_headless_clients_is_named_with_them(hello: Path, tmp_path: Path) -> None:
    """The finding: a server that takes seconds to answer was ok to doctor, while `claude -p`
    and `codex exec` ran without its tools."""
    launcher(tmp_path / "slow", "sleep 2.5")
    mcp_json(hello, cogtools={"type": "stdio", "command": "cogtools", "args": ["mcp"]})
    result = doctor(hello, path=[tmp_path / "slow"])
    assert result.status == 0, result  # a warning, not a problem: the server works
    lines = [line for line in result.stdout.splitlines() if line.startswith("warning  mcp:")]
    assert len(lines) == 1, result.stdout
    line = lines[0]
    assert f"Claude Code, {hello}/.mcp.json: the server answered initialize (cogtools " in line
    took = float(line.split("listed 1 tool in ")[1].split(" s")[0])
    assert took >= 2.5
    assert "`codex exec` (Codex, about 1 s)" in line and "`claude -p` (Claude Code, 2 s)" in line, line
    assert "run without its tools" in line
    fix = result.stdout[result.stdout.index(line) + len(line) :].splitlines()[1]
    assert "required = true" in fix and "[mcp_servers.cogtools]" in fix, fix


@pytest.mark.slow
def test_a_fast_server_is_ok_with_its_times(hello: Path) -> None:
    mcp_json(hello, cogtools={"type": "stdio", "command": "cogtools", "args": ["mcp"]})
    result = doctor(hello)
    assert result.status == 0 and "warning  mcp:" not in result.stdout, result
    ok = next(line for line in result.stdout.splitlines() if "answered initialize" in line)
    assert ok.startswith(f"ok       mcp: Claude Code, {hello}/.mcp.json: started, answered initialize (cogtools ")
    assert " in " in ok and "listed 1 tool in " in ok


@pytest.mark.slow
def test_servers_are_started_together_and_given_up_on_together(hello: Path, tmp_path: Path) -> None:
    """Two servers that each answer only once the other has started answer only when doctor
    starts them at once (one after the other, the first would wait for ever); a server that never
    answers is given up on within doctor's bound, said with it, and ends."""
    first, second = tmp_path / "first-started", tmp_path / "second-started"
    wait = "i=0; while [ ! -e {0} ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done"
    launcher(tmp_path / "a", f"touch {first}; {wait.format(second)}")
    launcher(tmp_path / "b", f"touch {second}; {wait.format(first)}")
    launcher(tmp_path / "mute", f"echo $$ > {tmp_path / 'mute.pid'}; sleep 300")
    mcp_json(hello, a={"command": str(tmp_path / "a" / "cogtools"), "args": ["mcp"]})
    write(
        hello / ".cursor" / "mcp.json",
        json.dumps({"mcpServers": {"b": {"command": str(tmp_path / "b" / "cogtools"), "args": ["mcp"]}}}),
    )
    write(
        hello / ".vscode" / "mcp.json",
        json.dumps(
            {"servers": {"mute": {"type": "stdio", "command": str(tmp_path / "mute" / "cogtools"), "args": ["mcp"]}}}
        ),
    )
    result = doctor(hello)
    out = result.stdout
    assert f"ok       mcp: Claude Code, {hello}/.mcp.json: started, answered initialize" in out, out
    assert f"ok       mcp: Cursor, {hello}/.cursor/mcp.json: started, answered initialize" in out, out
    assert f"problem  mcp: VS Code, {hello}/.vscode/mcp.json: the server did not answer: no answer within 10 s" in out
    assert "no headless client waits that long" in out
    assert result.status == 1
    pid = int((tmp_path / "mute.pid").read_text())
    with pytest.raises(ProcessLookupError):  # ended with its process group, not left behind
        for _ in range(100):
            os.kill(pid, 0)
            time.sleep(0.05)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
def test_an_http_entry_is_timed_by_its_requests(hello: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An HTTP entry's server is asked as its client asks it, the variables of the user's own file
    filled in as the client fills them; a project's file is sent as written (the agent can write
    it, and with it where a token would go)."""
    port = free_port()
    server = subprocess.Popen(
        [str(BIN / "cogtools"), "mcp", "--http", f"127.0.0.1:{port}"],
        cwd=hello,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "COGTOOLS_MCP_TOKEN": "s3cret-token"},
    )
    url = f"http://127.0.0.1:{port}/mcp"
    home = Path(os.environ["HOME"])
    bearer = {"Authorization": "Bearer ${COGTOOLS_MCP_TOKEN}"}
    write(
        home / ".claude.json", json.dumps({"mcpServers": {"cogtools": {"type": "http", "url": url, "headers": bearer}}})
    )
    monkeypatch.setenv("COGTOOLS_MCP_TOKEN", "s3cret-token")
    try:
        for _ in range(400):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        result = doctor(hello)
        assert result.status == 0, result
        assert f"ok       mcp: Claude Code, {home}/.claude.json: {url} answered initialize (cogtools " in result.stdout
        assert "listed 1 tool in " in result.stdout and "from the first request" in result.stdout
        # the same variable in the project's file: not filled, and said so, not a problem
        mcp_json(hello, cogtools={"type": "http", "url": url, "headers": bearer})
        unfilled = doctor(hello)
        assert unfilled.status == 0, unfilled
        assert (
            f"warning  mcp: Claude Code, {hello}/.mcp.json: {url} refused doctor's request (HTTP 401)"
            in unfilled.stdout
        )
        # a token that is wrong: a problem, with the status
        mcp_json(hello, cogtools={"type": "http", "url": url, "headers": {"Authorization": "Bearer wrong"}})
        refused = doctor(hello)
        assert refused.status == 1 and f"{url} refused the request (HTTP 401" in refused.stdout, refused
    finally:
        server.terminate()
        server.wait(timeout=20)
    gone = doctor(hello)  # nothing listens there any more: what the client meets
    assert gone.status == 1 and f"nothing answers at {url}" in gone.stdout, gone
