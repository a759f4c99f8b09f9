"""End to end against the real Codex (the native binary of @openai/codex from npm, pinned),
headless (``codex exec``), with a scripted model: the stdio server that ``cogtools mcp
--print-config codex`` describes is started by Codex itself, its first answers
(:mod:`cogtools.mcp.first`) reach the model's first request, and a call the model makes is served
by the SDK after the handover.

Codex offers a server's tools only if they are listed within about a second (DESIGN §8), and it
asks for the list with a progress token, which the first answers take. The model is a scripted
OpenAI Responses API on loopback (a provider of Codex's configuration): no network, no key. The
package of this platform is installed once per pinned version, outside the clone
(:mod:`tests.npm_packages`)."""

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

CODEX_VERSION = "0.169.0"


@pytest.fixture(scope="session")
def codex() -> Path:
    triple = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}.get(
        platform.machine().lower()
    )
    if not sys.platform.startswith("linux") or triple is None:
        unavailable(f"no Codex build pinned here for {sys.platform} {platform.machine()}")
    arch = "x64" if triple == "x86_64" else "arm64"
    directory = package_dir("codex-native", CODEX_VERSION, "COGTOOLS_CODEX_DIR")
    installed = npm_package("@openai/codex", f"{CODEX_VERSION}-linux-{arch}", directory)
    binary = (
        installed / "node_modules" / "@openai" / "codex" / "vendor" / f"{triple}-unknown-linux-musl" / "bin" / "codex"
    )
    done = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=60)
    if done.returncode != 0 or CODEX_VERSION not in done.stdout:
        unavailable(f"{binary} does not run: {done.stdout} {done.stderr[-500:]}")
    return binary


class Model:
    """A scripted model: to a request that offers ``tool`` (of the namespace ``mcp__cogtools``)
    and holds no output of it yet, a call of it with ``arguments``; to any other, the text
    ``done``. Each request's tool names and function call outputs are kept."""

    def __init__(self, tool: str, arguments: dict[str, t.Any]) -> None:
        self.tool, self.arguments = tool, arguments
        self.requests: list[dict[str, t.Any]] = []
        model = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: t.Any) -> None:
                pass

            def do_GET(self) -> None:
                data = json.dumps({"object": "list", "data": [], "models": []}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()
                for event in model.answer(body):
                    self.wfile.write(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode())

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def answer(self, body: dict[str, t.Any]) -> list[dict[str, t.Any]]:
        tools = [name for tool in body.get("tools", []) for name in _names(tool)]
        outputs = [
            item
            for item in body.get("input", [])
            if isinstance(item, dict) and item.get("type") == "function_call_output"
        ]
        self.requests.append({"tools": tools, "outputs": outputs})
        item: dict[str, t.Any]
        if f"mcp__cogtools/{self.tool}" in tools and not outputs:
            item = {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_1",
                "namespace": "mcp__cogtools",
                "name": self.tool,
                "arguments": json.dumps(self.arguments),
            }
        else:
            text = {"type": "output_text", "text": "done", "annotations": []}
            item = {"type": "message", "role": "assistant", "id": "msg_1", "content": [text]}
        response: dict[str, t.Any] = {"id": "resp_1", "object": "response", "status": "in_progress", "output": []}
        usage = {
            "input_tokens": 10,
            "output_tokens": 5,
            "total_tokens": 15,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        }
        return [
            {"type": "response.created", "response": response},
            {"type": "response.output_item.done", "output_index": 0, "item": item},
            {"type": "response.completed", "response": {**response, "status": "completed", "usage": usage}},
        ]


def _names(tool: dict[str, t.Any]) -> list[str]:
    """The names a tool of a request offers (a namespace's as NAMESPACE/NAME)."""
    if "tools" in tool:
        return [f"{tool.get('name')}/{inner.get('name')}" for inner in tool["tools"]]
    return [str(tool.get("name") or tool.get("type"))]


def test_codex_exec_is_offered_the_tools_and_calls_one(codex: Path, echo_project: Path, tmp_path: Path) -> None:
    write(echo_project / "tools" / "echo.yaml", ECHO_TOOL)
    printed = run_script("cogtools", "mcp", "--print-config", "codex", cwd=echo_project)
    assert printed.status == 0, printed.stderr
    model = Model("echo", {"text": "hi"})
    home = tmp_path / "codex"
    write(
        home / "config.toml",
        f'model = "gpt-5"\nmodel_provider = "scripted"\n\n'
        f'[model_providers.scripted]\nname = "scripted"\nbase_url = "{model.url}"\nwire_api = "responses"\n'
        f'env_key = "SCRIPTED_KEY"\n\n{printed.stdout}\n',
    )
    env = {
        **os.environ,
        "PATH": os.pathsep.join([str(BIN), "/usr/local/bin", "/usr/bin", "/bin"]),
        "CODEX_HOME": str(home),
        "SCRIPTED_KEY": "scripted",
    }
    argv = [str(codex), "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "Say hi"]
    try:
        done = subprocess.run(
            argv, cwd=echo_project, env=env, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL
        )
    finally:
        model.server.shutdown()
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    first = model.requests[0]
    assert "mcp__cogtools/echo" in first["tools"], first  # offered from the model's first request on
    outputs = [output for request in model.requests for output in request["outputs"]]
    assert outputs, model.requests
    texts = [part["text"] for part in outputs[0]["output"] if isinstance(part, dict) and "text" in part]
    assert "hi\n" in texts, outputs
    assert done.stdout.strip().endswith("done")
