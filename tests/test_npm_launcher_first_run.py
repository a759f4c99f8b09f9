"""The npm launcher's first run as a person and a client meet it (npm/setup.sh, issue 42): on a
terminal it shows its steps and pip's own output; on a pipe two lines; it installs the core, and
the MCP extra only for `cogtools mcp` (or `cogtools setup`); and a client's start-up (`cogtools
mcp`, `cogtools-discover`, `cogtools-call` with neither stdin nor stdout a terminal) installs
nothing: it is told NOT_INSTALLED and the command that installs, at once.

The tarball and the wheels of cogtools' dependencies are tests/test_npm_package.py's fixtures
(npm offline, pip from a local directory of wheels)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import typing as t
from pathlib import Path

import pytest

from .test_npm_package import VERSION, Env, environments, javascript_project, key, need_npm, tarball, wheelhouse

pytestmark = pytest.mark.slow

__all__ = ["key", "tarball", "wheelhouse"]  # fixtures, used by name

NOT_INSTALLED = 78
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 7,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}


def on_a_terminal(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, str]:
    """Run ``argv`` with stdin, stdout and stderr on a pseudo-terminal, as in a person's shell;
    its exit status and everything it wrote there."""
    master, slave = os.openpty()
    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env, start_new_session=True)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the last writer closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return proc.wait(timeout=600), b"".join(chunks).decode(errors="replace").replace("\r\n", "\n")


@pytest.fixture
def fresh(tarball: Path, wheelhouse: Path, tmp_path: Path) -> tuple[Env, Path]:
    """A person's shell with nothing installed yet, and a JavaScript project with cogtools as a
    dev dependency."""
    need_npm()
    env = Env(tmp_path / "shell", wheelhouse)
    return env, javascript_project(tmp_path / "js", tarball, env)


def imports_mcp(installs: Path, key: str) -> bool:
    python = installs / key / "bin" / "python"
    return subprocess.run([str(python), "-c", "import mcp"], capture_output=True, check=False).returncode == 0


def test_a_clients_start_installs_nothing_and_names_the_command_that_does(fresh: tuple[Env, Path]) -> None:
    """An MCP client starting `cogtools mcp` before anything is installed gets, at once, a
    JSON-RPC error answering its initialize, naming `cogtools setup` by the launcher's own path;
    Gemini CLI's discovery and call commands the same on stderr (the call its JSON error too);
    the cache is left untouched."""
    env, project = fresh
    bin_dir = project / "node_modules" / ".bin"
    setup = f"'{bin_dir / 'cogtools'} setup'"
    served = env.run([str(bin_dir / "cogtools"), "mcp"], project, stdin=json.dumps(INITIALIZE) + "\n")
    assert served.returncode == NOT_INSTALLED, served.stderr
    answer = json.loads(served.stdout)
    assert answer["id"] == 7 and answer["error"]["data"] == {"code": "NOT_INSTALLED"}
    assert f"cogtools {VERSION} with its MCP extra is not installed yet" in answer["error"]["message"]
    assert setup in answer["error"]["message"]
    assert served.stderr.startswith("cogtools mcp: error: NOT_INSTALLED: ") and setup in served.stderr
    # a client whose request id is a string is answered with that id
    named = env.run([str(bin_dir / "cogtools"), "mcp"], project, stdin=json.dumps({**INITIALIZE, "id": "a"}) + "\n")
    assert json.loads(named.stdout)["id"] == "a"

    discover = env.run([str(bin_dir / "cogtools-discover")], project)
    assert (discover.returncode, discover.stdout) == (NOT_INSTALLED, "")
    assert discover.stderr.startswith("cogtools-discover: error: NOT_INSTALLED: ") and setup in discover.stderr
    call = env.run([str(bin_dir / "cogtools-call"), "hello"], project, stdin='{"who": "Ada"}')
    assert call.returncode == NOT_INSTALLED and json.loads(call.stdout)["error"]["code"] == "NOT_INSTALLED"
    assert not (env.root / "home" / ".cache" / "cogtools").exists()


def test_on_a_terminal_the_first_run_shows_its_steps_and_installs_the_core(fresh: tuple[Env, Path], key: str) -> None:
    """A person's first `cogtools --version` on a terminal: the steps, pip's own output, the time
    it took; only the core (no MCP SDK). Then `cogtools setup` adds the MCP extra, showing its
    steps, and a client's `cogtools mcp` is served."""
    env, project = fresh
    porcelain = str(project / "node_modules" / ".bin" / "cogtools")
    status, shown = on_a_terminal([porcelain, "--version"], project, env.vars)
    assert status == 0, shown
    for step in (
        f"cogtools: first run: installing cogtools {VERSION} for Python",
        "cogtools: [1/3] making a virtual environment\n",
        f"cogtools: [2/3] pip install cogtools-{VERSION}-py3-none-any.whl (from pip's index as configured",
        "Successfully installed ",  # pip's own output, on the terminal
        "cogtools: [3/3] checking the installed cogtools\n",
        f"cogtools {VERSION}\n",
    ):
        assert step in shown, shown
    assert (
        f"cogtools: installed cogtools {VERSION} into {env.installs / environments(env.installs, key)[0]} in " in shown
    )
    assert not imports_mcp(env.installs, key) and not (env.installs / key / ".mcp-extra").exists()

    status, shown = on_a_terminal([porcelain, "setup"], project, env.vars)
    assert status == 0, shown
    assert "cogtools setup: [1/2] pip install cogtools[mcp]" in shown and "Successfully installed " in shown
    assert f"cogtools setup: cogtools {VERSION} and its MCP extra are installed in " in shown
    assert imports_mcp(env.installs, key) and (env.installs / key / ".mcp-extra").is_file()
    served = env.run([porcelain, "mcp"], project, stdin=json.dumps(INITIALIZE) + "\n")
    assert json.loads(served.stdout.splitlines()[0])["result"]["serverInfo"]["name"] == "cogtools", served.stderr
    again = env.run([porcelain, "setup"], project)  # nothing left to install: says so at once
    assert again.returncode == 0 and "Successfully" not in again.stderr and "are installed in" in again.stderr


def test_on_a_pipe_the_first_run_says_two_lines(fresh: tuple[Env, Path], key: str) -> None:
    """Not on a terminal (a script, CI): one line when the install starts, one when it ends, and
    pip's output in the log; `cogtools mcp` asked to install there (COGTOOLS_NPM_INSTALL=1)
    installs the core and the MCP extra at once, and serves."""
    env, project = fresh
    porcelain = str(project / "node_modules" / ".bin" / "cogtools")
    served = env.run([porcelain, "mcp"], project, stdin=json.dumps(INITIALIZE) + "\n", COGTOOLS_NPM_INSTALL="1")
    assert json.loads(served.stdout.splitlines()[0])["result"]["serverInfo"]["name"] == "cogtools", served.stderr
    lines = served.stderr.splitlines()
    assert lines[0].startswith(f"cogtools mcp: first run: installing cogtools {VERSION} with its MCP extra for Python")
    assert lines[1].startswith(f"cogtools mcp: installed cogtools {VERSION} with its MCP extra into ")
    assert "Successfully installed" in (env.installs / f"{key}.log").read_text()
    assert imports_mcp(env.installs, key) and (env.installs / key / ".mcp-extra").is_file()


def test_an_interrupted_extra_is_not_trusted(fresh: tuple[Env, Path], key: str) -> None:
    """`cogtools setup` killed in the middle of pip adding the MCP extra: the core goes on
    running, `cogtools mcp` is still not served (no .mcp-extra), and the next setup repairs it."""
    env, project = fresh
    porcelain = str(project / "node_modules" / ".bin" / "cogtools")
    core = env.run([porcelain, "--version"], project)
    assert core.returncode == 0, core.stderr
    log = env.installs / f"{key}.log"
    started = subprocess.Popen(
        [porcelain, "setup"],
        cwd=project,
        env=env.vars,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while "[mcp]" not in log.read_text():  # the trace of pip adding the extra
        assert started.poll() is None and time.monotonic() < deadline, "setup never reached pip"
        time.sleep(0.05)
    os.killpg(started.pid, signal.SIGKILL)
    started.wait()
    assert not (env.installs / key / ".mcp-extra").exists()
    assert env.run([porcelain, "--version"], project).stdout == f"cogtools {VERSION}\n"
    refused = env.run([porcelain, "mcp"], project, stdin=json.dumps(INITIALIZE) + "\n")
    assert refused.returncode == NOT_INSTALLED, refused.stderr
    repaired = env.run([porcelain, "setup"], project)
    assert repaired.returncode == 0, repaired.stderr
    assert imports_mcp(env.installs, key) and (env.installs / key / ".mcp-extra").is_file()
    assert len(environments(env.installs, key)) == 1


def test_the_mcp_sdks_client_is_told_why_and_then_served(fresh: tuple[Env, Path]) -> None:
    """The MCP SDK's own stdio client starting the launcher before anything is installed: its
    initialize fails at once with NOT_INSTALLED and the command that installs (not a time-out);
    after `cogtools setup`, the same client lists the project's tools."""
    pytest.importorskip("mcp")
    import anyio
    from mcp import ClientSession, MCPError, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env, project = fresh
    porcelain = project / "node_modules" / ".bin" / "cogtools"
    server = StdioServerParameters(command=str(porcelain), args=["mcp"], cwd=str(project), env=env.vars)

    async def tools(errlog: t.TextIO) -> list[str]:
        async with stdio_client(server, errlog) as (read, written), ClientSession(read, written) as session:
            with anyio.fail_after(120):
                try:
                    await session.initialize()
                except MCPError as e:  # what the client shows of the server's answer
                    return [f"refused: {e}"]
                return sorted(tool.name for tool in (await session.list_tools()).tools)

    def run() -> list[str]:  # the server's stderr to a file: pytest may have closed sys.stderr's
        with open(env.root / "server.err", "w") as errlog:
            return anyio.run(tools, errlog)

    (refused,) = run()
    assert refused.startswith("refused: NOT_INSTALLED: ") and f"'{porcelain} setup'" in refused
    assert not (env.root / "home" / ".cache" / "cogtools").exists()
    assert env.run([str(porcelain), "setup"], project).returncode == 0
    assert run() == ["divide", "hello", "parent"]


def test_two_first_runs_of_cogtools_mcp_add_the_extra_once(fresh: tuple[Env, Path]) -> None:
    """Two `cogtools mcp` asked to install (COGTOOLS_NPM_INSTALL=1) at once, the core installed:
    one adds the MCP extra while the other waits on the lock, then finds it there; both serve."""
    env, project = fresh
    porcelain = str(project / "node_modules" / ".bin" / "cogtools")
    assert env.run([porcelain, "--version"], project).returncode == 0
    runs = [
        subprocess.Popen(
            [porcelain, "mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=project,
            env={**env.vars, "COGTOOLS_NPM_INSTALL": "1"},
            text=True,
        )
        for _ in range(2)
    ]
    outputs = [run.communicate(json.dumps(INITIALIZE) + "\n", timeout=300) for run in runs]
    for out, err in outputs:
        assert json.loads(out.splitlines()[0])["result"]["serverInfo"]["name"] == "cogtools", err
    assert sum("installing the MCP extra" in err for _, err in outputs) == 1, outputs
