"""A server's confined programs run in warm sandboxes (cogtools/run/warm.py): through the real
``cogtools mcp`` and the MCP SDK's client, a sandbox serves one call after another, and each call
sees what a sandbox of its own would show it: nothing a call before it left (a file, a process),
its own environment, no network, no home directory, the errors a program that cannot start
gets, and a credentials file hidden however the person's tools rewrite it."""

from __future__ import annotations

import json
import os
import socket
import time
import typing as t
from pathlib import Path

import anyio
import pytest

from .conftest import BIN, write
from .test_processes import all_dead

mcp = pytest.importorskip("mcp")
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

MARKER = f"cogtools-warm-test-{os.getpid()}"


def confined(name: str, script: str, **more: t.Any) -> dict[str, t.Any]:
    """A command tool running ``sh -c script``, declaring no side effects (so it runs confined)."""
    implementation = {"kind": "command", "argv": ["sh", "-c", script], **more.pop("implementation", {})}
    return {"description": f"The {name} tool.", "side_effects": [], "implementation": implementation, **more}


TOOLS = {
    "namespaces": confined("namespaces", "readlink /proc/self/ns/pid /proc/self/ns/mnt"),
    "leave_file": confined("leave_file", "echo left > /tmp/left-behind; echo > $HOME/also-left; echo done"),
    "look": confined(
        "look",
        "ls -A /tmp $HOME /dev/shm; cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' ' | grep -c '[s]leep 300' || true",
    ),
    "leave_process": confined(
        "leave_process", f"setsid sh -c 'sleep 300; :' {MARKER} </dev/null >/dev/null 2>&1 & echo started"
    ),
    "leave_time": confined("leave_time", "touch -d @1000000 /tmp && stat -c %Y /tmp"),
    "look_time": confined("look_time", "stat -c %Y /tmp"),
    "greet": confined("greet", 'echo "$GREETING $TMPDIR"', environment=["GREETING"]),
    "stop_zygote": confined(
        "stop_zygote",
        "for p in 1 2; do [ $p = $$ ] || kill -STOP $p; done; echo stopped",
        implementation={"timeout": 30},
    ),
    "missing": {
        "description": "Runs a program that is nowhere.",
        "side_effects": [],
        "implementation": {"kind": "command", "argv": ["no-such-program-anywhere"]},
    },
    "slow": confined("slow", "sleep 30", implementation={"timeout": 1}),
    "secret": confined(
        "secret", 'test -x "$HOME/.tool/bin/tool" && echo "[shown]"; cat "$HOME/.tool/bin/.netrc"; echo "[end]"'
    ),
}


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    root = tmp_path / "project"
    for name, definition in TOOLS.items():
        write(root / "tools" / f"{name}.json", json.dumps(definition))
    write(root / ".cogtoolrc.yaml", "")
    home = tmp_path / "home"
    write(home / "secret.txt", "the person's own\n")
    # a toolchain on PATH under the home directory: its bin is shown, its credentials are not
    write(home / ".tool" / "bin" / "tool", "#!/bin/sh\n", 0o755)
    write(home / ".tool" / "bin" / ".netrc", "machine example.com password hunter2\n")
    env = {**os.environ, "HOME": str(home), "PATH": f"{home / '.tool' / 'bin'}:{os.environ['PATH']}"}
    return root, env


def serve(root: Path, env: dict[str, str], body: t.Callable[[Client], t.Awaitable[t.Any]]) -> t.Any:
    params = StdioServerParameters(command=str(BIN / "cogtools"), args=["mcp"], cwd=str(root), env=env)

    async def main() -> t.Any:
        with anyio.fail_after(90):
            async with Client(params) as client:
                return await body(client)

    return anyio.run(main)


async def call(client: Client, name: str, arguments: dict[str, t.Any] | None = None) -> tuple[bool, str]:
    result = await client.call_tool(name, arguments or {})
    return bool(result.is_error), "".join(getattr(block, "text", "") for block in result.content)


def _confinement_works() -> bool:
    from cogtools.run.confine import available

    return available()


needs_confinement = pytest.mark.skipif(not _confinement_works(), reason="this machine cannot confine programs")


@pytest.mark.slow
@needs_confinement
def test_calls_share_a_sandbox_and_see_nothing_a_call_before_left(project: tuple[Path, dict[str, str]]) -> None:
    root, env = project

    async def body(client: Client) -> dict[str, t.Any]:
        seen: dict[str, t.Any] = {}
        # the first call of a view starts bubblewrap of its own while a sandbox is made for
        # the calls to come: two calls in a row soon run in one
        for _ in range(100):
            seen["first"] = await call(client, "namespaces")
            seen["again"] = await call(client, "namespaces")
            if seen["first"] == seen["again"]:
                break
            await anyio.sleep(0.05)
        seen["look_before"] = await call(client, "look")
        seen["leave_file"] = await call(client, "leave_file")
        seen["look_after_file"] = await call(client, "look")
        seen["leave_process"] = await call(client, "leave_process")
        seen["look_after_process"] = await call(client, "look")
        seen["after"] = await call(client, "namespaces")
        seen["leave_time"] = await call(client, "leave_time")
        seen["look_time"] = await call(client, "look_time")
        return seen

    seen = serve(root, env, body)
    assert all(not error for error, _ in seen.values()), seen
    # one sandbox served both calls: the same PID and mount namespaces
    assert seen["first"][1] == seen["again"][1]
    # what a call left in /tmp or its home is not there for the next, nor a process it started
    assert seen["look_after_file"][1] == seen["look_before"][1]
    assert "left-behind" not in seen["look_after_file"][1]
    assert seen["look_after_process"][1] == seen["look_before"][1]
    # a call that left something ended its sandbox: the next one runs in another
    assert seen["after"][1] != seen["first"][1]
    # and nothing it started runs on
    assert not _processes_with(MARKER)
    # a time set on what it may touch is no message to the next call either
    assert seen["leave_time"][1] == "1000000\n" and seen["look_time"][1] != "1000000\n"


@pytest.mark.slow
@needs_confinement
def test_each_call_gets_its_own_environment_and_the_errors_of_a_sandbox_of_its_own(
    project: tuple[Path, dict[str, str]],
) -> None:
    root, env = project
    env = {**env, "GREETING": "from the person"}
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    async def body(client: Client) -> dict[str, t.Any]:
        seen: dict[str, t.Any] = {}
        for _ in range(2):  # the second from a warm sandbox
            seen.setdefault("greet", []).append(await call(client, "greet"))
            seen.setdefault("missing", []).append(await call(client, "missing"))
            seen.setdefault("network", []).append(await call(client, "network", {}))
        seen["slow"] = await call(client, "slow")
        seen["after_slow"] = await call(client, "greet")
        # a program cannot stop the process that starts them (the namespace's init, to which
        # the kernel gives no SIGSTOP from inside): its call ends as it would, and the next is served
        seen["stop_zygote"] = await call(client, "stop_zygote")
        seen["after_stop"] = await call(client, "greet")
        return seen

    write(root / "tools" / "network.json", json.dumps(_network_tool(port)))
    try:
        seen = serve(root, env, body)
    finally:
        listener.close()
    for error, text in seen["greet"]:
        assert (error, text) == (False, "from the person /tmp\n")
    for error, text in seen["missing"]:
        assert error and "cannot run 'no-such-program-anywhere'" in text and "No such file" in text
    for error, text in seen["network"]:
        assert error and "exited with status 1" in text  # its own loopback: nothing listens there
    error, text = seen["slow"]
    assert error and "TIMEOUT" in text
    assert seen["after_slow"] == (False, "from the person /tmp\n")
    assert seen["stop_zygote"] == (False, "stopped\n")
    assert seen["after_stop"] == (False, "from the person /tmp\n")


def _network_tool(port: int) -> dict[str, t.Any]:
    script = f"import socket; socket.create_connection(('127.0.0.1', {port}), 2)"
    return {
        "description": "Connects to the host's loopback.",
        "side_effects": [],
        "implementation": {"kind": "command", "argv": ["python3", "-c", script]},
    }


@pytest.mark.slow
@needs_confinement
def test_a_credentials_file_stays_hidden_when_it_is_rewritten_between_calls(
    project: tuple[Path, dict[str, str]],
) -> None:
    """A mount that hides a file is taken out of every namespace when the file is renamed over
    (as careful editors and ``npm login`` write): a sandbox kept from before would show it."""
    root, env = project
    netrc = Path(env["HOME"]) / ".tool" / "bin" / ".netrc"

    async def body(client: Client) -> list[tuple[bool, str]]:
        seen = [await call(client, "secret"), await call(client, "secret")]
        fresh = netrc.with_name(".netrc.new")
        fresh.write_text("machine example.com password rotated\n")
        os.replace(fresh, netrc)
        seen.append(await call(client, "secret"))
        return seen

    for error, text in serve(root, env, body):
        assert not error and text == "[shown]\n[end]\n", text
    assert "hunter2" not in netrc.read_text()


@pytest.mark.slow
@needs_confinement
def test_a_credentials_file_written_between_calls_is_hidden_from_the_next(
    attacked: tuple[Path, dict[str, str]],
) -> None:
    """A server makes a view again at most every two seconds: a credentials file that appears in
    a directory shown to the program (written, not renamed over) is hidden all the same from the
    next call, as a bubblewrap of its own would hide it."""
    root, env = attacked
    netrc = Path(env["HOME"]) / ".tool" / "bin" / ".netrc"
    netrc.unlink()

    async def body(client: Client) -> list[tuple[bool, str]]:
        await _warm_up(client)
        seen = []
        for round_ in range(5):
            seen.append(await call(client, "secret"))
            netrc.write_text(f"machine example.com password written{round_}\n")
            seen.append(await call(client, "secret"))
            netrc.unlink()
        return seen

    for error, text in serve(root, env, body):
        assert not error and text == "[shown]\n[end]\n", text


def _processes_with(marker: str) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if marker.encode() in Path(f"/proc/{name}/cmdline").read_bytes():
                    found.append(int(name))
            except OSError:
                pass
    return [pid for pid in found if not all_dead([pid])]


def test_a_view_whose_calls_always_leave_something_goes_without_a_kept_sandbox() -> None:
    """(a new sandbox costs more than a bubblewrap of its own: a tool whose every call writes a
    temporary file is better served without)"""
    from cogtools.run import warm

    pool = warm.Pool()
    key = ("a view",)
    made: list[str] = []

    def make() -> warm.Sandbox:
        made.append("sandbox")
        raise warm.Unusable("(none made here)")

    for _ in range(warm.DIRTY_RUN - 1):
        pool.tally(key, clean=False)
    pool.tally(key, clean=True)  # a clean call starts the count again
    for _ in range(warm.DIRTY_RUN - 1):
        pool.tally(key, clean=False)
    with pytest.raises(warm.Unusable):
        pool.take(key, make)
    for _ in range(200):  # (made in the background)
        if made:
            break
        time.sleep(0.01)
    assert made == ["sandbox"]  # still tried
    pool = warm.Pool()
    for _ in range(warm.DIRTY_RUN):
        pool.tally(key, clean=False)
    with pytest.raises(warm.Unusable, match="no sandbox is kept for this view now"):
        pool.take(key, make)
    assert made == ["sandbox"]  # not tried again


def _made_for(calls: t.Callable[[t.Any, t.Callable[[], t.Any]], None]) -> int:
    """How many sandboxes a pool is asked to make while ``calls`` takes from it (each made one
    fails once every ask is in: the pool's thread is held until then)."""
    import threading

    from cogtools.run import warm

    pool = warm.Pool()
    held = threading.Event()
    made: list[str] = []

    def make() -> warm.Sandbox:
        made.append("sandbox")
        held.wait(10)
        raise warm.Unusable("(none made here)")

    calls(pool, make)
    held.set()
    for _ in range(200):  # (the pool's thread ends each one it was asked for)
        if not pool._making:
            break
        time.sleep(0.01)
    return len(made)


def test_a_burst_has_as_many_sandboxes_made_as_calls_run_without_one_and_one_caller_one() -> None:
    """(a burst's calls find no sandbox at first: each has one made, a few at a time, so that
    the calls that follow find one each; one caller's calls, one after another, need one)"""
    from cogtools.run import warm

    key = ("a view",)

    def burst(pool: warm.Pool, make: t.Callable[[], warm.Sandbox]) -> None:
        for _ in range(warm.MAKE_AT_ONCE + 3):  # calls at once: none ends before the others start
            with pytest.raises(warm.Missed):
                pool.take(key, make)

    def one_after_another(pool: warm.Pool, make: t.Callable[[], warm.Sandbox]) -> None:
        for _ in range(warm.MAKE_AT_ONCE + 3):
            with pytest.raises(warm.Missed) as missed:
                pool.take(key, make)
            pool.missed_done(missed.value.key)

    assert _made_for(burst) == warm.MAKE_AT_ONCE
    assert _made_for(one_after_another) == 1


def test_a_call_that_finds_none_waiting_takes_the_first_given_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """(a sandbox serves a call in milliseconds, a bubblewrap of its own costs ten: calls at once
    take turns)"""
    import threading

    from cogtools.run import warm

    class Served:  # what the pool asks of a sandbox that a call gives back
        key = ("a view",)
        used = 0.0

        def settled(self) -> bool:
            return True

    monkeypatch.setattr(warm, "WAIT_SECONDS", 30.0)  # (the machine may be slow: the wait ends when one comes)
    pool, served, held = warm.Pool(), t.cast("warm.Sandbox", Served()), threading.Event()

    def make() -> warm.Sandbox:  # asked for while the call waits, and not done before it is served
        held.wait(30)
        raise warm.Unusable("(none made here)")

    def give_back() -> None:
        time.sleep(0.05)
        pool.give_back(served)

    giver = threading.Thread(target=give_back)
    giver.start()
    try:
        assert pool.take(served.key, make) is served
    finally:
        held.set()
        giver.join()


# An attacker's pass: what one call's program may do to the sandbox, the process that starts
# its programs (the zygote, pid 2) and the namespace's init (pid 1), to reach a later call.

_FORGE = """
import os
for name in os.listdir("/proc/self/fd"):
    try:
        if os.readlink("/proc/self/fd/" + name).startswith("socket:"):
            for message in ('{"exit": 0}', '{"ready": true}', '{"errno": 2, "error": "forged"}', '{"exit": 0}'):
                os.write(int(name), message.encode())
    except OSError:
        pass
print("forged")
raise SystemExit(3)
"""


_QUEUE = """
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
mq_open = getattr(libc, "mq_open", None) or ctypes.CDLL("librt.so.1").mq_open
fd = mq_open(b"/cogtools-test", os.O_RDWR | os.O_NONBLOCK | (os.O_CREAT if sys.argv[1] == "send" else 0), 0o600, None)
if fd < 0:
    print("none")
elif sys.argv[1] == "send":
    print(libc.mq_send(fd, b"from an earlier call", 20, 0))
else:
    buf = ctypes.create_string_buffer(65536)
    n = libc.mq_receive(fd, buf, 65536, None)
    print(buf.raw[:n].decode() if n > 0 else "none")
"""


_KEPT = """
import ctypes, os, socket, sys
syscall = ctypes.CDLL(None).syscall
keyctl = {"x86_64": 250, "aarch64": 219}.get(os.uname().machine)
if sys.argv[1] == "leave":
    if keyctl is not None:  # add_key is keyctl's number less two on both
        syscall(keyctl - 2, b"user", b"cogtools-left", b"from an earlier call", 20, -4)
        persistent = syscall(keyctl, 22, -1, -2)  # (where the kernel keeps one)
        syscall(keyctl - 2, b"user", b"cogtools-left", b"from an earlier call", 20, persistent)
    server = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(server.getsockname())
    accepted, _ = server.accept()
    client.close()  # (the side that closes first keeps the connection in TIME_WAIT)
    accepted.close()
    print("left")
else:
    rings = [-4, syscall(keyctl, 22, -1, -2)] if keyctl is not None else []
    found = max([syscall(keyctl, 10, ring, b"user", b"cogtools-left", 0) for ring in rings], default=-1)
    with open("/proc/net/tcp") as f:
        print("key" if found > 0 else "no key", len(f.read().splitlines()) - 1)
"""


def _python(name: str, script: str, *arguments: str) -> dict[str, t.Any]:
    implementation = {"kind": "command", "argv": ["python3", "-c", script, *arguments]}
    return {"description": f"The {name} tool.", "side_effects": [], "implementation": implementation}


ATTACKS = {
    "pid_namespace": confined("pid_namespace", "readlink /proc/self/ns/pid"),
    "py_namespace": _python("py_namespace", "import os; print(os.readlink('/proc/self/ns/pid'))"),
    "plain": _python("plain", "print('plain')"),
    # a descriptor the program inherits from the zygote is its end of the server's socket:
    # through it, a program could speak for the zygote (its own status, the next call's)
    "forge": _python("forge", _FORGE),
    # a POSIX message queue outlives the call that made it, in its IPC namespace
    "queue_send": _python("queue_send", _QUEUE, "send"),
    "queue_read": _python("queue_read", _QUEUE, "read"),
    # a key in the user's keyring, a connection in TIME_WAIT: both outlive the call's processes
    "kept_leave": _python("kept_leave", _KEPT, "leave"),
    "kept_look": _python("kept_look", _KEPT, "look"),
    # what the zygote and init pass on to the programs started after: limits, niceness, the
    # OOM score, the CPUs it may run on
    "mark": confined(
        "mark",
        "prlimit --pid 2 --nofile=77:77; prlimit --pid 1 --nofile=77:77; prlimit --pid 2 --fsize=4096;"
        " renice -n 7 -p 1 2; echo 900 > /proc/2/oom_score_adj; taskset -p 1 2; echo marked",
    ),
    "inherited": confined(
        "inherited",
        "grep -h -e 'open files' -e 'file size' /proc/self/limits /proc/1/limits | tr -s ' ';"
        " cut -d' ' -f19 /proc/self/stat; cat /proc/self/oom_score_adj; grep Cpus_allowed_list /proc/self/status",
    ),
    # a change in /tmp whose modification time is set back after (the inodes it took are a
    # message: the next call's files would tell how many)
    "hide_change": confined(
        "hide_change",
        'm=$(stat -c %y /tmp); for i in 1 2 3; do : > /tmp/f$i; rm /tmp/f$i; done; touch -d "$m" /tmp; echo hidden',
    ),
    # the process that starts the programs lives from call to call: a program must not trace it
    "trace_init": _python(
        "trace_init",
        "import ctypes, os; libc = ctypes.CDLL(None, use_errno=True);"
        " print(os.readlink('/proc/self/ns/pid'), libc.ptrace(16, 1, 0, 0))",
    ),
    # what a program is given as it starts: the signals it ignores
    "ignored": confined("ignored", "grep SigIgn /proc/self/status"),
    # a request too large for one message to the zygote (its variables)
    "big": confined("big", 'echo "$BIG1$BIG2" | wc -c', environment=["BIG1", "BIG2"]),
    # one that stops the zygote and stays, leaving a process of a session of its own
    "stop_and_stay": confined(
        "stop_and_stay",
        f"setsid sh -c 'sleep 300; :' {MARKER}-stay </dev/null >/dev/null 2>&1 &"
        " for p in 1 2; do [ $p = $$ ] || kill -STOP $p; done; echo stopped; exec sleep 300",
        implementation={"timeout": 120},
    ),
}


@pytest.fixture
def attacked(project: tuple[Path, dict[str, str]]) -> tuple[Path, dict[str, str]]:
    root, env = project
    for name, definition in ATTACKS.items():
        write(root / "tools" / f"{name}.json", json.dumps(definition))
    return root, env


async def _warm_up(client: Client, name: str = "pid_namespace") -> str:
    """Call until two calls in a row run in one sandbox (the first of a view runs cold, while
    one is made for the next): the namespace they share."""
    for _ in range(100):
        first, again = await call(client, name), await call(client, name)
        if first == again:
            return first[1]
        await anyio.sleep(0.05)
    raise AssertionError("no call ran in a warm sandbox")


@pytest.mark.slow
@needs_confinement
def test_a_program_cannot_speak_for_the_process_that_starts_it(attacked: tuple[Path, dict[str, str]]) -> None:
    root, env = attacked

    async def body(client: Client) -> list[tuple[str, tuple[bool, str]]]:
        seen = []
        for _ in range(3):
            await _warm_up(client, "py_namespace")
            seen.append(("forge", await call(client, "forge")))
            seen.append(("plain", await call(client, "plain")))
            seen.append(("plain", await call(client, "plain")))
        return seen

    for name, (error, text) in serve(root, env, body):
        if name == "forge":  # its own status, not the one it wrote as the zygote's
            assert error and "exited with status 3" in text, text
        else:  # and the next call is served as if nothing had been said
            assert (error, text) == (False, "plain\n")


@pytest.mark.slow
@needs_confinement
def test_a_change_with_its_time_set_back_leaves_the_sandbox_unfit(attacked: tuple[Path, dict[str, str]]) -> None:
    root, env = attacked

    async def body(client: Client) -> list[tuple[str, tuple[bool, str], tuple[bool, str]]]:
        seen = []
        for _ in range(3):
            warm = await _warm_up(client)
            seen.append((warm, await call(client, "hide_change"), await call(client, "pid_namespace")))
        return seen

    for warm, hidden, after in serve(root, env, body):
        assert hidden == (False, "hidden\n")
        assert after[1] != warm  # not the sandbox the change was made in


@pytest.mark.slow
@needs_confinement
def test_a_program_starts_with_the_signals_a_program_of_its_own_bubblewrap_has(
    attacked: tuple[Path, dict[str, str]],
) -> None:
    """(the zygote's Python ignores SIGPIPE and SIGXFSZ: a program started from it would too,
    and ``yes | head`` would tell of a broken pipe)"""
    root, env = attacked

    async def body(client: Client) -> list[tuple[bool, str]]:
        await _warm_up(client)
        return [await call(client, "ignored") for _ in range(3)]

    for error, text in serve(root, env, body):
        ignored = int(text.split()[1], 16)
        assert not error and not ignored & (1 << 12 | 1 << 24), text  # SIGPIPE (13), SIGXFSZ (25)


@pytest.mark.slow
@needs_confinement
def test_a_call_too_large_for_its_sandbox_leaves_the_sandbox_to_the_next(
    attacked: tuple[Path, dict[str, str]],
) -> None:
    root, env = attacked
    env = {**env, "BIG1": "x" * 120_000, "BIG2": "y" * 120_000}  # (each within what a variable may hold)

    async def body(client: Client) -> list[tuple[str, tuple[bool, str], tuple[bool, str]]]:
        seen = []
        for _ in range(3):
            warm = await _warm_up(client)
            seen.append((warm, await call(client, "big"), await call(client, "pid_namespace")))
        return seen

    for warm, big, after in serve(root, env, body):
        assert big == (False, "240001\n"), big  # (a bubblewrap of its own)
        assert after == (False, warm)  # the sandbox still serves


@pytest.mark.slow
@needs_confinement
def test_a_program_cannot_trace_the_process_that_starts_it(attacked: tuple[Path, dict[str, str]]) -> None:
    root, env = attacked

    async def body(client: Client) -> list[tuple[str, tuple[bool, str]]]:
        seen = []
        for _ in range(3):
            warm = await _warm_up(client, "py_namespace")
            seen.append((warm, await call(client, "trace_init")))
        return seen

    for warm, (error, text) in serve(root, env, body):
        namespace, traced = text.split()
        assert not error
        if namespace == warm.strip():  # (a bubblewrap of its own has an init of its own, for one call)
            assert traced == "-1", text


@pytest.mark.slow
@needs_confinement
@pytest.mark.parametrize(
    ("leave", "look", "left", "seen_after"),
    [
        ("queue_send", "queue_read", "0\n", "none\n"),  # a POSIX message queue
        ("kept_leave", "kept_look", "left\n", "no key 0\n"),  # a key, a connection in TIME_WAIT
    ],
)
def test_what_outlives_a_process_is_no_message_to_the_next_call(
    attacked: tuple[Path, dict[str, str]], leave: str, look: str, left: str, seen_after: str
) -> None:
    root, env = attacked

    async def body(client: Client) -> list[tuple[bool, str]]:
        seen = []
        for _ in range(3):
            await _warm_up(client, "py_namespace")
            seen += [await call(client, leave), await call(client, look)]
        return seen

    seen = serve(root, env, body)
    assert seen[0::2] == [(False, left)] * 3, seen  # (made: the system has them)
    assert seen[1::2] == [(False, seen_after)] * 3, seen


@pytest.mark.slow
@needs_confinement
def test_a_program_cannot_change_what_the_next_call_inherits(attacked: tuple[Path, dict[str, str]]) -> None:
    root, env = attacked

    async def body(client: Client) -> tuple[tuple[bool, str], list[tuple[bool, str]], tuple[bool, str]]:
        await _warm_up(client)
        before = await call(client, "inherited")
        after = []
        for _ in range(3):
            await _warm_up(client)
            marked = await call(client, "mark")
            after += [await call(client, "inherited"), await call(client, "inherited")]
        return before, after, marked

    before, after, marked = serve(root, env, body)
    assert not before[0] and "77" not in before[1], before
    assert marked == (False, "marked\n") or "marked" in marked[1], marked
    for seen in after:
        assert seen == before


@pytest.mark.slow
@needs_confinement
@pytest.mark.parametrize("signal_name", ["SIGKILL", "SIGTERM"])
def test_a_server_stopped_mid_call_leaves_nothing_of_its_sandbox(
    attacked: tuple[Path, dict[str, str]], signal_name: str
) -> None:
    """A program that tries to stop the process that starts it (which ends the namespace when the
    server's socket closes) and stays, with a process of a session of its own: the server's end
    mid-call, even by SIGKILL, ends the sandbox all the same (as bubblewrap's --die-with-parent
    does a sandbox of its own)."""
    import signal

    root, env = attacked
    left: list[int] = []

    async def body(client: Client) -> None:
        await _warm_up(client)
        server = _server_pid()
        async with anyio.create_task_group() as group:

            async def stay() -> None:
                try:
                    await call(client, "stop_and_stay")
                except Exception:  # noqa: BLE001 - the server goes away mid-call
                    pass

            group.start_soon(stay)
            for _ in range(200):
                if _processes_with(f"{MARKER}-stay"):
                    break
                await anyio.sleep(0.05)
            await anyio.sleep(0.5)
            os.kill(server, getattr(signal, signal_name))
            for _ in range(100):
                if not _processes_with(f"{MARKER}-stay"):
                    break
                await anyio.sleep(0.05)
            left.extend(_processes_with(f"{MARKER}-stay"))
            for pid in left:  # (else the client waits for what holds the server's pipes)
                os.kill(pid, signal.SIGKILL)
            group.cancel_scope.cancel()

    try:
        serve(root, env, body)
    except Exception:  # noqa: BLE001 - the client of a server that went away
        pass
    assert not left


def _server_pid() -> int:
    """The ``cogtools mcp`` this test's client started."""
    mine = str(os.getpid())
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                stat_fields = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()
                cmdline = Path(f"/proc/{name}/cmdline").read_bytes()
            except OSError:
                continue
            if stat_fields[1] == mine and b"mcp" in cmdline:
                return int(name)
    raise AssertionError("no server found")
