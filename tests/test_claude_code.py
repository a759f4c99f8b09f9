"""End to end against the real Claude Code (the native binary of @anthropic-ai/claude-code from
npm, pinned), headless (``claude -p``), with a scripted model: the stdio server that ``cogtools mcp
--print-config claude-code`` describes is started by Claude Code itself, its first answers
(:mod:`cogtools.mcp.first`) reach the model's first request, and a call the model makes is served
by the SDK after the handover.

Claude Code headless waits at most 2 s for its MCP servers and then runs without them, saying
nothing (DESIGN §8): the model's request shows which tools it was offered. The model is a
scripted Anthropic Messages API on loopback (``ANTHROPIC_BASE_URL``): no network, no key. The
package is installed once per pinned version, outside the clone (:mod:`tests.npm_packages`);
only its native binary for this machine is needed (the package of the platform, which the
wrapper's postinstall would copy)."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import threading
import typing as t
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from .conftest import BIN, ECHO_TOOL, run_script, write
from .npm_packages import npm_package, package_dir, unavailable

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

CLAUDE_CODE_VERSION = "2.1.197"


@pytest.fixture(scope="session")
def claude() -> Path:
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine().lower())
    if not sys.platform.startswith("linux") or arch is None:
        unavailable(f"no Claude Code build pinned here for {sys.platform} {platform.machine()}")
    package = f"@anthropic-ai/claude-code-linux-{arch}"
    directory = package_dir("claude-code-native", CLAUDE_CODE_VERSION, "COGTOOLS_CLAUDE_CODE_DIR")
    binary = npm_package(package, CLAUDE_CODE_VERSION, directory) / "node_modules" / package / "claude"
    done = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=60)
    if done.returncode != 0 or CLAUDE_CODE_VERSION not in done.stdout:
        unavailable(f"{binary} does not run: {done.stdout} {done.stderr[-500:]}")
    return binary


class Model:
    """A scripted model: to a request that offers ``tool`` and holds no result yet, a call of it
    with ``arguments``; to any other, the text ``done``. Each request's tool names and tool
    results are kept."""

    def __init__(self, tool: str, arguments: dict[str, t.Any]) -> None:
        self.tool, self.arguments = tool, arguments
        self.requests: list[dict[str, t.Any]] = []
        model = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: t.Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                if "count_tokens" in self.path:
                    self._json({"input_tokens": 10})
                    return
                self._stream(model.answer(body))

            def _json(self, value: t.Any) -> None:
                data = json.dumps(value).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, events: list[tuple[str, dict[str, t.Any]]]) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()
                for name, data in events:
                    self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def answer(self, body: dict[str, t.Any]) -> list[tuple[str, dict[str, t.Any]]]:
        tools = [tool.get("name") for tool in body.get("tools", [])]
        results = [
            part
            for message in body.get("messages", [])
            if isinstance(message.get("content"), list)
            for part in message["content"]
            if isinstance(part, dict) and part.get("type") == "tool_result"
        ]
        self.requests.append({"tools": tools, "results": results})
        if self.tool in tools and not results:
            block = {"type": "tool_use", "id": "toolu_1", "name": self.tool, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(self.arguments)}
            return _message(block, delta, "tool_use")
        return _message({"type": "text", "text": ""}, {"type": "text_delta", "text": "done"}, "end_turn")


def _message(block: dict[str, t.Any], delta: dict[str, t.Any], stop: str) -> list[tuple[str, dict[str, t.Any]]]:
    message: dict[str, t.Any] = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    }
    return [
        ("message_start", {"type": "message_start", "message": message}),
        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]


def test_claude_code_headless_is_offered_the_tools_and_calls_one(
    claude: Path, echo_project: Path, tmp_path: Path
) -> None:
    write(echo_project / "tools" / "echo.yaml", ECHO_TOOL)
    config = run_script("cogtools", "mcp", "--print-config", "claude-code", cwd=echo_project)
    assert config.status == 0, config.stderr
    (tmp_path / "mcp.json").write_text(config.stdout)
    model = Model("mcp__cogtools__echo", {"text": "hi"})
    env = {
        **os.environ,
        "PATH": os.pathsep.join([str(BIN), "/usr/local/bin", "/usr/bin", "/bin"]),
        "ANTHROPIC_BASE_URL": model.url,
        "ANTHROPIC_API_KEY": "sk-scripted",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
    }
    argv = [str(claude), "-p", "Say hi through echo", "--output-format", "json"]
    argv += ["--mcp-config", str(tmp_path / "mcp.json"), "--strict-mcp-config", "--allowedTools", model.tool]
    try:
        done = subprocess.run(argv, cwd=echo_project, env=env, capture_output=True, text=True, timeout=180)
    finally:
        model.server.shutdown()
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    first = model.requests[0]
    assert "mcp__cogtools__echo" in first["tools"], first  # offered from the model's first request on
    results = [result for request in model.requests for result in request["results"]]
    assert results and not results[0].get("is_error"), results
    content = results[0]["content"]
    assert (content if isinstance(content, str) else content[0]["text"]) == "hi\n"
    assert json.loads(done.stdout)["result"] == "done"
