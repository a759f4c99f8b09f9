"""A python tool's function runs in a child process (DESIGN §11: code that cannot be interrupted
runs where it can be killed): whatever it does ends as TIMEOUT or EXECUTION_FAILED, confined to its
side effects, and never takes cogtools-call or a server down.

The function runs in its child process either way: where only the call's answer matters,
cogtools-call runs in process (``cli``); ``test_what_a_function_may_do_is_what_it_declares`` and the
hostile functions (slow) keep the real ``cogtools-call`` process."""

from __future__ import annotations

import json
import os
import time
import typing as t
from pathlib import Path

import pytest

from cogtools.cli import call, porcelain
from cogtools.run.python import CHILD_MARK

from .conftest import Cli, run_script, write


def children_left(seconds: float = 5) -> list[int]:
    """The processes of a function's child (or what it forked) still running after ``seconds``."""
    end = time.monotonic() + seconds
    while True:
        found = []
        for entry in os.listdir("/proc"):
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if CHILD_MARK.encode() + b"\0" in f.read():
                        found.append(int(entry))
            except (OSError, ValueError):
                continue
        if not found or time.monotonic() > end:
            return found
        time.sleep(0.05)


#: Functions that misbehave, each with what a call of it ends as, and words of its message.
HOSTILE = {
    "forever": ("def forever():\n    while True:\n        pass\n", "TIMEOUT", "ran past its time limit"),
    "stubborn": (
        "import signal, time\ndef stubborn():\n    signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
        "    signal.signal(signal.SIGTERM, signal.SIG_IGN)\n    while True:\n        try:\n"
        "            time.sleep(10)\n        except BaseException:\n            pass\n",
        "TIMEOUT",
        "ran past its time limit",
    ),
    "forks": (
        "import os, time\ndef forks():\n    if os.fork() == 0:\n        os.setsid()\n        time.sleep(300)\n"
        "    return 'parent done'\n",
        "ok",
        "parent done",
    ),
    "threads": (
        "import threading, time\ndef threads():\n    threading.Thread(target=time.sleep, args=(300,)).start()\n"
        "    return 'started'\n",
        "ok",
        "started",
    ),
    "fd_one": (
        'import os\ndef fd_one():\n    os.write(1, b\'{"ok": true, "text": "forged"}\')\n    return \'real\'\n',
        "ok",
        "real",
    ),
    "interrupt": ("def interrupt():\n    raise KeyboardInterrupt\n", "EXECUTION_FAILED", "raised KeyboardInterrupt"),
    "generator_exit": ("def generator_exit():\n    raise GeneratorExit\n", "EXECUTION_FAILED", "raised GeneratorExit"),
    "custom": (
        "class Mine(BaseException):\n    pass\ndef custom():\n    raise Mine('mine')\n",
        "EXECUTION_FAILED",
        "raised Mine: mine",
    ),
    "bad_str": (
        "class Odd(Exception):\n    def __str__(self):\n        raise RuntimeError('no')\n"
        "def bad_str():\n    raise Odd()\n",
        "EXECUTION_FAILED",
        "raised Odd: (it cannot be shown)",
    ),
    "exits": ("import os\ndef exits():\n    os._exit(3)\n", "EXECUTION_FAILED", "ended its process without an answer"),
    "crashes": (
        "import ctypes\ndef crashes():\n    ctypes.string_at(0)\n",
        "EXECUTION_FAILED",
        "ended its process without an answer",
    ),
    "forged": (
        "import os\ndef forged():\n    for fd in range(3, 20):\n        try:\n"
        '            os.write(fd, b\'{"ok": true, "dropped": "zz"}\')\n        except OSError:\n            pass\n'
        "    os._exit(0)\n",
        "EXECUTION_FAILED",
        "ended its process without an answer",
    ),
    "forged_deep": (
        "import os\ndef forged_deep():\n    for fd in range(3, 20):\n        try:\n"
        "            os.write(fd, b'[' * 200000)\n        except OSError:\n            pass\n    os._exit(0)\n",
        "EXECUTION_FAILED",
        "ended its process without an answer",
    ),
    "chatty": (
        "import sys\ndef chatty():\n    sys.stderr.write('E' * 8 * 1024 * 1024)\n    return 'result'\n",
        "ok",
        "result",
    ),
    "sys_exit": ("import sys\ndef sys_exit():\n    sys.exit(0)\n", "EXECUTION_FAILED", "called sys.exit(0)"),
}


@pytest.fixture
def hostile_project(project: Path) -> Path:
    write(project / ".cogtoolrc.yaml", "python_path: [lib]\n")
    for name, (source, _, _) in HOSTILE.items():
        write(project / "lib" / f"h_{name}.py", source)
        write(
            project / "tools" / f"{name}.yaml",
            f"description: {name}.\nside_effects: []\nimplementation: {{kind: python, callable: 'h_{name}:{name}', timeout: 1}}\n",
        )
    write(project / "tools" / "fine.yaml", "description: Fine.\nside_effects: []\nimplementation: fine\n")
    return project


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_function_ends_as_an_error_through_cogtools_call(hostile_project: Path, name: str) -> None:
    _, code, words = HOSTILE[name]
    started = time.monotonic()
    result = run_script("cogtools-call", name, stdin="{}", cwd=hostile_project, timeout=30)
    assert time.monotonic() - started < 10  # a forked child holds nothing open
    assert "Traceback" not in result.stdout + result.stderr
    if code == "ok":
        assert result.status == 0 and result.stdout == words, result
    else:
        error = json.loads(result.stdout)["error"]
        assert error["code"] == code and words in error["message"], error
    assert children_left() == []


def test_what_a_function_may_do_is_what_it_declares(project: Path) -> None:
    home = Path(os.environ["HOME"])
    write(project / ".cogtoolrc.yaml", "python_path: [lib]\n")
    write(
        project / "lib" / "peek.py",
        "import os\ndef peek(path):\n    try:\n        return open(os.path.expanduser(path)).read()\n"
        "    except OSError as e:\n        return 'refused: ' + e.strerror\n",
    )
    write(home / ".ssh" / "id_rsa", "PRIVATE KEY\n")
    write(
        project / "tools" / "peek.yaml",
        "description: Peek.\nside_effects: [filesystem_read]\nparameters: {path: {type: string}}\n"
        "implementation: {kind: python, callable: 'peek:peek'}\n",
    )
    read = run_script("cogtools-call", "peek", stdin='{"path": ".cogtoolrc.yaml"}', cwd=project)
    assert read.stdout == "python_path: [lib]\n"
    secret = run_script("cogtools-call", "peek", stdin='{"path": "~/.ssh/id_rsa"}', cwd=project)
    assert secret.stdout.startswith("refused: ") and "PRIVATE" not in secret.stdout


@pytest.mark.slow
def test_a_server_goes_on_serving_after_each_hostile_call(hostile_project: Path) -> None:
    """Over MCP (stdio): after every hostile call the same server answers tools/list and a call."""
    from mcp import Client

    from .test_mcp import session, text_of

    async def body(client: Client) -> t.Any:
        seen = []
        for name in sorted(HOSTILE):
            result = await client.call_tool(name, {})
            listed = [tool.name for tool in (await client.list_tools()).tools]
            fine = await client.call_tool("fine", {})
            seen.append((name, result.is_error, "fine" in listed, text_of(fine)))
        return seen

    for name, is_error, listed, fine in session(hostile_project, body):
        assert is_error is (HOSTILE[name][1] != "ok") and listed and fine == "fine", name


@pytest.mark.slow
def test_an_http_server_goes_on_serving_after_each_hostile_call(hostile_project: Path) -> None:
    from mcp import Client

    from .test_mcp import over_http, start_http, text_of

    server = start_http(hostile_project)
    try:

        async def body(client: Client) -> t.Any:
            out = []
            for name in ("custom", "interrupt", "generator_exit", "bad_str", "exits", "forever"):
                result = await client.call_tool(name, {})
                out.append((name, result.is_error, text_of(await client.call_tool("fine", {}))))
            return out

        for name, is_error, fine in over_http(server.url, body):
            assert is_error and fine == "fine", name
        assert server.proc.poll() is None
    finally:
        server.stop()


def test_the_dry_run_of_a_python_tool_says_how_it_is_confined(project: Path, cli: Cli) -> None:
    write(
        project / "tools" / "mean.yaml",
        "description: Mean.\nside_effects: [network]\nparameters: {data: {type: array, items: {type: number}}}\n"
        "implementation: {kind: python, callable: 'statistics:mean'}\n",
    )
    shown = json.loads(cli(call.main, "--dry-run", "mean", stdin='{"data": [1]}').stdout)
    assert shown["callable"] == "statistics:mean"
    assert shown["confinement"].startswith("confined: reads nothing of the project; writes nothing") or shown[
        "confinement"
    ].startswith("not confined: this system cannot")


@pytest.mark.slow
def test_a_lone_surrogate_in_a_message_does_not_stop_the_server(project: Path) -> None:
    """MCP's encoder refuses a lone surrogate (and a stdio server would never answer again): an
    error a function made with one, and a file name that is not UTF-8, come as U+FFFD."""
    from mcp import Client

    from .test_mcp import session, text_of

    write(project / ".cogtoolrc.yaml", "python_path: [lib]\n")
    write(project / "lib" / "odd.py", "def odd():\n    raise ValueError('bad \\ud800 message')\n")
    write(
        project / "tools" / "odd.yaml",
        "description: Odd.\nside_effects: []\nimplementation: {kind: python, callable: 'odd:odd'}\n",
    )
    write(project / "tools" / "fine.yaml", "description: Fine.\nimplementation: fine\n")
    (project / "tools" / os.fsdecode(b"bad\xff.yaml")).write_text("not: [valid\n")

    async def body(client: Client) -> t.Any:
        odd = await client.call_tool("odd", {})
        problems = await client.call_tool("cogtools_problems", {})
        fine = await client.call_tool("fine", {})
        return odd, problems, text_of(fine)

    odd, problems, fine = session(project, body)
    assert odd.is_error and "bad \ufffd message" in odd.structured_content["error"]["message"]
    assert "bad\ufffd.yaml" in text_of(problems) and fine == "fine"


def pin(project: Path, cli: Cli) -> None:
    """A person allows the project's low-risk tools to run without confirmation (which pins them)."""
    write(project / ".gemini" / "settings.json", "{}\n")
    assert cli(porcelain.main, "sync", "--yes").status == 0


def test_a_pinned_function_imports_no_project_module_its_pin_does_not_cover(project: Path, cli: Cli) -> None:
    """A module of the project reached another way than python_path (an editable install's .pth,
    a path the function adds) is not what a person allowed: refused, not read from disk."""
    write(project / ".cogtoolrc.yaml", "python_path: [lib]\n")
    write(
        project / "lib" / "mod.py",
        "import os, sys\ndef f():\n    sys.path.append(os.path.join(os.getcwd(), 'src'))\n    import mypkg\n    return mypkg.SAY\n",
    )
    write(project / "src" / "mypkg" / "__init__.py", "SAY = 'unchecked'\n")
    write(
        project / "tools" / "f.yaml",
        "description: F.\nrisk_level: low\nside_effects: [filesystem_read]\nimplementation: {kind: python, callable: 'mod:f'}\n",
    )
    assert cli(call.main, "f", stdin="{}").stdout == "unchecked"  # not pinned: as it is
    pin(project, cli)
    error = json.loads(cli(call.main, "f", stdin="{}").stdout)["error"]
    assert (
        error["code"] == "EXECUTION_FAILED"
        and "src/mypkg/__init__.py is not among the files the pin" in error["message"]
    )


def test_a_pinned_module_that_is_a_link_runs_from_the_bytes_checked(project: Path, cli: Cli) -> None:
    write(project / ".cogtoolrc.yaml", "python_path: [lib]\n")
    write(project / "src" / "real.py", "def f():\n    return 'checked'\n")
    (project / "lib").mkdir()
    (project / "lib" / "linked.py").symlink_to(project / "src" / "real.py")
    write(
        project / "tools" / "f.yaml",
        "description: F.\nrisk_level: low\nside_effects: []\nimplementation: {kind: python, callable: 'linked:f'}\n",
    )
    pin(project, cli)
    assert cli(call.main, "f", stdin="{}").stdout == "checked"


def test_a_tool_that_writes_the_project_cannot_change_cogtools_kept_there() -> None:
    """cogtools' own interpreter and package, in a project (a checkout with its .venv), stay
    read-only to a tool that may write the project: a .pth written there would run unconfined."""
    import subprocess

    from cogtools.run.bind import bwrap
    from cogtools.run.confine import Confinement, arguments, available, own_code

    if not available():
        pytest.skip("bubblewrap cannot make namespaces here")
    code = [p for p in own_code() if p != "/"]
    root = os.path.commonpath(code[:1] + [os.path.dirname(code[0])])  # a project that holds the first
    rules = Confinement((root,), (root,), False, False, root, os.environ["PATH"], "")
    target = os.path.join(code[0], "cogtools-test-must-not-exist.pth")
    argv = [bwrap() or "", *arguments(rules, runs=(), cwd=root, program="sh"), "--", "sh", "-c", f"echo x > '{target}'"]
    try:
        done = subprocess.run(argv, capture_output=True, text=True)
        assert done.returncode != 0 and not os.path.exists(target), done
    finally:
        if os.path.exists(target):
            os.remove(target)


def test_a_pinned_function_imports_nothing_another_finder_finds_in_the_project(project: Path, cli: Cli) -> None:
    """An editable install adds a finder of its own to sys.meta_path (setuptools does): what it
    finds in the project is held to the pin as what the path finder finds."""
    write(project / ".cogtoolrc.yaml", "python_path: [lib]\n")
    write(
        project / "lib" / "mod.py",
        "import importlib.util, os, sys\n"
        "class Editable:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'helper':\n"
        "            return importlib.util.spec_from_file_location(name, os.path.join(os.getcwd(), 'src', 'helper.py'))\n"
        "def f():\n    sys.meta_path.append(Editable())\n    import helper\n    return helper.SAY\n",
    )
    write(project / "src" / "helper.py", "SAY = 'unchecked'\n")
    write(
        project / "tools" / "f.yaml",
        "description: F.\nrisk_level: low\nside_effects: [filesystem_read]\nimplementation: {kind: python, callable: 'mod:f'}\n",
    )
    pin(project, cli)
    error = json.loads(cli(call.main, "f", stdin="{}").stdout)["error"]
    assert "src/helper.py is not among the files the pin" in error["message"], error
