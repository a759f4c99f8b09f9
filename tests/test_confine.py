"""A tool can do only what it declares (DESIGN §11): each side effect tried through a real program,
by a tool that declares it and by one that does not, on Linux under bubblewrap."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import typing as t
from pathlib import Path

import pytest

from cogtools.cli import call, porcelain
from cogtools.run.bind import bwrap

from .conftest import BIN, Cli, write
from .test_cli import assert_error
from .test_socket_filter import INT80, int80_works

pytestmark = pytest.mark.skipif(bwrap() is None, reason="bubblewrap cannot make namespaces here")


def tool(project: Path, name: str, effects: list[str] | None, argv: list[str]) -> None:
    """A command tool ``name`` of low risk that runs ``argv`` and declares ``effects`` (None:
    declares none)."""
    declared = "risk_level: low\n" + ("" if effects is None else f"side_effects: {json.dumps(effects)}\n")
    write(
        project / "tools" / f"{name}.yaml",
        f"description: Try an effect.\n{declared}implementation:\n  kind: command\n  argv: {json.dumps(argv)}\n",
    )


def attempt(cli: Cli, project: Path, effects: list[str] | None, code: str) -> tuple[int, str]:
    """Run shell ``code`` as a tool declaring ``effects``; its status and output (with stderr)."""
    tool(project, "attempt", effects, ["sh", "-c", code + " 2>&1"])
    result = cli(call.main, "attempt")
    return result.status, result.stdout


@pytest.mark.parametrize("effects", [[], ["filesystem_read"], ["filesystem_write"], None])
def test_writes_reach_the_project_only_when_declared(project: Path, cli: Cli, effects: list[str] | None) -> None:
    home = Path(os.environ["HOME"])
    status, out = attempt(
        cli,
        project,
        effects,
        f"echo in-tmp > /tmp/scratch && cat /tmp/scratch; echo p > '{project}/written';"
        f" echo h > '{home}/written'; echo e > '{project.parent}/beside'; true",
    )
    assert status == 0 and "in-tmp" in out  # a private /tmp is always there
    may_write = effects is None or "filesystem_write" in effects
    assert (project / "written").exists() is may_write, out
    assert (home / "written").exists() is (effects is None)  # never the home directory
    assert (project.parent / "beside").exists() is (effects is None)  # nor beside the project


def test_a_write_its_confinement_refuses_says_why_and_what_to_do(project: Path, cli: Cli) -> None:
    """(issue 43, found by a new user: a vitest tool failed on every call with EROFS on vite's
    node_modules/.vite-temp, and nothing said that the tool's confinement was why)"""
    tool(project, "cache", ["filesystem_read"], ["sh", "-c", "mkdir -p node_modules/.vite-temp && true"])
    failed = cli(call.main, "cache")
    assert failed.status != 0 and "EXECUTION_FAILED" in failed.stderr, failed
    assert "Read-only file system" in failed.stderr and "filesystem_write" in failed.stderr, failed
    assert "--configLoader runner" in failed.stderr, failed  # (vite's own way to write no file there)
    detail = json.loads(failed.stdout)["error"]["details"]
    assert detail["hint"].startswith("the tool runs confined"), detail
    # (node's recursive mkdir, as vite makes it on a fresh install, says ENOENT, not EROFS)
    make = "require('fs').mkdirSync('node_modules/.vite-temp', {recursive: true})"
    if shutil.which("node") is not None:
        tool(project, "cache", ["filesystem_read"], ["node", "-e", make])
        failed = cli(call.main, "cache")
        assert "ENOENT" in failed.stderr and "--configLoader runner" in failed.stderr, failed
    # a program that fails for another reason gets no such hint
    tool(project, "other", ["filesystem_read"], ["sh", "-c", "echo broken >&2; exit 3"])
    assert "hint" not in json.loads(cli(call.main, "other").stdout)["error"]["details"]


@pytest.mark.parametrize("effects", [[], ["filesystem_read"], ["filesystem_write"], None])
def test_reads_of_the_project_and_home_only_as_declared(project: Path, cli: Cli, effects: list[str] | None) -> None:
    home = Path(os.environ["HOME"])
    write(home / ".ssh" / "id_rsa", "PRIVATE KEY\n")
    write(home / ".config" / "app" / "token", "TOKEN\n")
    write(project / "notes.txt", "PROJECT NOTES\n")
    status, out = attempt(
        cli, project, effects, f"cat notes.txt; cat '{home}/.ssh/id_rsa'; cat '{home}/.config/app/token'; true"
    )
    assert status == 0
    reads = effects is None or bool({"filesystem_read", "filesystem_write"} & set(effects))
    assert ("PROJECT NOTES" in out) is reads, out
    assert ("PRIVATE KEY" in out) is (effects is None) and ("TOKEN" in out) is (effects is None), out


class Listener:
    """A TCP and a UDP socket on the host's 127.0.0.1, noting what reaches them."""

    def __init__(self) -> None:
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))

    def reached(self, expected: bool) -> tuple[bool, bool]:
        """What reached the sockets, once the program that tried has ended: over loopback, a
        datagram sent or a connection made is queued before the sender's call returns, so what
        is expected is waited for (2 s at most) and what is not is looked for without waiting."""
        for sock in (self.tcp, self.udp):
            sock.settimeout(2 if expected else 0)
        try:
            self.tcp.accept()[0].close()
            tcp = True
        except OSError:
            tcp = False
        try:
            udp = self.udp.recv(16) == b"hello"
        except OSError:
            udp = False
        return tcp, udp

    def close(self) -> None:
        self.tcp.close()
        self.udp.close()


@pytest.mark.parametrize("effects", [[], ["network"], ["filesystem_read", "process"], None])
def test_network_only_when_declared_loopback_included(project: Path, cli: Cli, effects: list[str] | None) -> None:
    listener = Listener()
    try:
        tcp_port, udp_port = listener.tcp.getsockname()[1], listener.udp.getsockname()[1]
        code = (
            "import socket\n"
            "u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
            "try: u.sendto(b'hello', ('127.0.0.1', %d))\n"
            "except OSError as e: print('udp', e)\n"
            "try: socket.create_connection(('127.0.0.1', %d), timeout=2).close(); print('tcp ok')\n"
            "except OSError as e: print('tcp', e)\n"
        ) % (udp_port, tcp_port)
        tool(project, "attempt", effects, [sys.executable, "-c", code])
        result = cli(call.main, "attempt")
        assert result.status == 0, result
        allowed = effects is None or "network" in effects
        assert ("tcp ok" in result.stdout) is allowed, result.stdout
        assert listener.reached(allowed) == (allowed, allowed), result.stdout
    finally:
        listener.close()


@pytest.mark.parametrize("effects", [[], ["process"], None])
def test_processes_outside_the_call_only_when_declared(project: Path, cli: Cli, effects: list[str] | None) -> None:
    """Through a real cogtools-call: the test's own process adopts orphans as a subreaper would."""
    outside = subprocess.Popen(["sleep", "60"])
    try:
        tool(
            project,
            "attempt",
            effects,
            ["sh", "-c", f"kill -9 {outside.pid} && echo killed; ls /proc/{outside.pid}/environ 2>&1; true"],
        )
        done = subprocess.run([str(BIN / "cogtools-call"), "attempt"], capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done
        out = done.stdout
        allowed = effects is None or "process" in effects
        # kill's own answer says whether the signal was sent; the process's end is waited for
        # only where it was (a SIGKILL sent has been delivered when kill returns)
        assert ("killed" in out) is allowed, out
        try:
            outside.wait(timeout=2 if allowed else 0.1)
        except subprocess.TimeoutExpired:
            pass
        assert (outside.returncode is not None) is allowed, out
    finally:
        outside.kill()
        outside.wait()


def test_the_tools_own_script_runs_when_nothing_else_of_the_project_is_read(project: Path, cli: Cli) -> None:
    write(project / "scripts" / "count.sh", "#!/bin/sh\necho counted; cat ../notes.txt 2>&1; true\n", mode=0o755)
    write(project / "notes.txt", "PROJECT NOTES\n")
    tool(project, "count", [], ["sh", "scripts/count.sh"])
    result = cli(call.main, "count")
    assert result.status == 0 and "counted" in result.stdout and "PROJECT NOTES" not in result.stdout


def test_a_toolchain_under_home_runs_but_its_credentials_are_hidden(project: Path, cli: Cli) -> None:
    prefix = Path(os.environ["HOME"]) / ".toolchain"
    write(prefix / "bin" / "hello", "#!/bin/sh\necho hello from the toolchain\n", mode=0o755)
    write(prefix / "credentials.toml", "registry token\n")
    os.environ["PATH"] = f"{prefix / 'bin'}{os.pathsep}{os.environ['PATH']}"  # undone by the isolation fixture
    status, out = attempt(cli, project, [], f"hello; cat '{prefix}/credentials.toml'; true")
    assert status == 0 and "hello from the toolchain" in out and "registry token" not in out, out


def test_a_toolchain_inside_another_is_shown_with_it_and_its_credentials_hidden(
    project: Path, cli: Cli, tmp_path: Path
) -> None:
    """(pyenv's plugins put their bin on PATH too: one bind shows both, and the inner one's
    credentials are hidden as the outer one's are)"""
    prefix = tmp_path / "toolchain"
    write(prefix / "bin" / "hello", "#!/bin/sh\necho hello from the toolchain\n", mode=0o755)
    write(prefix / "plugins" / "extra" / "bin" / "extra", "#!/bin/sh\necho extra\n", mode=0o755)
    write(prefix / "plugins" / "extra" / ".netrc", "machine example.com password plugin-secret\n")
    write(prefix / ".netrc", "machine example.com password toolchain-secret\n")
    os.environ["PATH"] = os.pathsep.join(
        [str(prefix / "plugins" / "extra" / "bin"), str(prefix / "bin"), os.environ["PATH"]]
    )
    code = f"hello; extra; cat '{prefix}/plugins/extra/.netrc' '{prefix}/.netrc'; true"
    status, out = attempt(cli, project, [], code)
    assert status == 0 and "hello from the toolchain" in out and "extra" in out, out
    assert "secret" not in out, out


def user_config(text: str) -> None:
    write(Path(os.environ["XDG_CONFIG_HOME"]) / "cogtools" / "config.yaml", text)


def test_the_users_sandbox_paths_widen_what_a_declaring_tool_may_do(project: Path, cli: Cli, tmp_path: Path) -> None:
    cache, data = tmp_path / "cache", tmp_path / "data"
    write(data / "table.csv", "a,b\n")
    cache.mkdir()
    user_config(f"sandbox:\n  write: ['{cache}']\n  read: ['{data}']\n")
    code = f"cat '{data}/table.csv'; echo c > '{cache}/entry'; true"
    assert "a,b" not in attempt(cli, project, [], code)[1] and not (cache / "entry").exists()
    assert "a,b" in attempt(cli, project, ["filesystem_read", "filesystem_write"], code)[1]
    assert (cache / "entry").exists()


def test_a_projects_file_cannot_set_the_sandbox(project: Path, cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "cache").mkdir()
    write(project / ".cogtoolrc.yaml", f"sandbox:\n  write: ['{tmp_path / 'cache'}']\n")
    attempt(cli, project, ["filesystem_write"], f"echo c > '{tmp_path}/cache/entry'; true")
    assert not (tmp_path / "cache" / "entry").exists()


@pytest.fixture
def no_bubblewrap(monkeypatch: pytest.MonkeyPatch) -> None:
    """This system cannot confine programs."""
    monkeypatch.setattr("cogtools.run.bind.bwrap", lambda: None)
    monkeypatch.setattr("cogtools.run.confine.available", lambda: False)
    monkeypatch.setattr("cogtools.services.doctor.available", lambda: False)  # (doctor's own name for it)


def pinned(project: Path, cli: Cli, effects: list[str], code: str) -> None:
    tool(project, "attempt", effects, ["sh", "-c", code])
    write(project / ".gemini" / "settings.json", "{}\n")
    assert cli(porcelain.main, "sync", "--yes").status == 0


def test_where_nothing_can_confine_a_pinned_declaring_tool_is_refused(
    project: Path, cli: Cli, no_bubblewrap: None
) -> None:
    pinned(project, cli, [], "echo ran")
    error = assert_error(cli(call.main, "attempt"), "POLICY_DENIED", "cannot confine")
    assert error["details"]["reason"] == "unconfined" and "sandbox.unconfined" in error["message"]
    write(project / ".cogtoolrc.yaml", "sandbox: {unconfined: warn}\n")  # the project cannot say so
    assert_error(cli(call.main, "attempt"), "POLICY_DENIED", "cannot confine")
    user_config("sandbox: {unconfined: warn}\n")
    result = cli(call.main, "attempt")
    assert (result.status, result.stdout) == (0, "ran\n")
    assert "runs unconfined" in result.stderr


def test_where_nothing_can_confine_an_unpinned_tool_asks_as_before(
    project: Path, cli: Cli, no_bubblewrap: None
) -> None:
    """A tool nobody pinned runs only after the client asked the person, as it always did."""
    tool(project, "attempt", [], ["sh", "-c", "echo ran"])
    assert cli(call.main, "attempt") == (0, "ran\n", "")


def test_a_bad_sandbox_setting_is_config_invalid(project: Path, cli: Cli) -> None:
    user_config("sandbox: {unconfined: maybe}\n")
    tool(project, "attempt", [], ["true"])
    error = assert_error(cli(call.main, "attempt"), "CONFIG_INVALID")
    assert "unconfined" in json.dumps(error)


def test_dry_run_shows_the_confinement(project: Path, cli: Cli) -> None:
    tool(project, "attempt", ["filesystem_read"], ["true"])
    result = cli(call.main, "--dry-run", "attempt")
    assert "confined: reads the project; writes nothing outside a private /tmp; no network" in result.stdout


def walk(data: t.Any) -> t.Iterator[t.Any]:
    yield data
    if isinstance(data, dict):
        for value in data.values():
            yield from walk(value)
    elif isinstance(data, list):
        for value in data:
            yield from walk(value)


def test_threads_of_a_server_get_their_own_view(project: Path) -> None:
    """Two calls at once, one confined and one not, each in its own view (nothing is process-wide)."""
    from cogtools.load.loading import load_project as load
    from cogtools.services.invoke import invoke, resolve

    home = Path(os.environ["HOME"])
    tool(project, "free", None, ["sh", "-c", f"echo f > '{home}/free'"])
    tool(project, "held", [], ["sh", "-c", f"sleep 0.2; echo h > '{home}/held'; true"])
    loaded = load()
    threads = [threading.Thread(target=invoke, args=(resolve(loaded, name), {})) for name in ("held", "free")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert (home / "free").exists() and not (home / "held").exists()


def test_list_which_and_doctor_say_how_each_tool_is_confined(project: Path, cli: Cli) -> None:
    tool(project, "held", ["filesystem_read"], ["ls"])
    tool(project, "free", None, ["ls"])
    write(project / "tools" / "said.yaml", "description: Say.\nimplementation: said\n")
    listed = {line.split()[0]: line for line in cli(porcelain.main, "list").stdout.splitlines()}
    assert listed["held"].endswith(", confined)") and listed["free"].endswith(", unconfined)")
    assert listed["said"].endswith("(local:./tools)")
    which = cli(porcelain.main, "which", "held").stdout
    assert which.rstrip().endswith(
        "used; confined: reads the project; writes nothing outside a private /tmp; no network; sees no other process"
    )
    assert "not confined: it declares no side_effects" in cli(porcelain.main, "which", "free").stdout
    said = cli(porcelain.main, "which", "said").stdout.rstrip()
    assert said.endswith("\tused; runs no program; claims nothing: it declares no side_effects")
    report = json.loads(cli(porcelain.main, "doctor", "--no-discovery", "--format", "json").stdout)
    [sandbox] = [f for f in report["findings"] if f["check"] == "sandbox"]
    assert sandbox["status"] == "ok" and sandbox["message"].startswith("1 of 2 tools that run code are confined")
    assert "free is not confined: it declares no side_effects" in sandbox["message"]


def test_doctor_warns_where_nothing_can_confine(project: Path, cli: Cli, no_bubblewrap: None) -> None:
    tool(project, "held", ["filesystem_read"], ["ls"])
    report = json.loads(cli(porcelain.main, "doctor", "--no-discovery", "--format", "json").stdout)
    [sandbox] = [f for f in report["findings"] if f["check"] == "sandbox"]
    assert sandbox["status"] == "warning" and "held declare their side effects" in sandbox["message"]
    assert "a pinned one is refused" in sandbox["message"] and "install bubblewrap" in sandbox["fix"]


# -- what an attacker tried (each was a way out) ----------------------------------------------------


def secret_home() -> Path:
    home = Path(os.environ["HOME"])
    write(home / ".ssh" / "id_rsa", "PRIVATE KEY\n")
    return home


def test_a_path_the_tool_declares_chooses_no_directory_to_show(project: Path, cli: Cli) -> None:
    """The binds come from the person's PATH, never from a PATH the project's .env gives a tool."""
    home = secret_home()
    write(project / ".env", f"PATH={home / '.ssh'}:/usr/bin:/bin\n")
    write(
        project / "tools" / "p.yaml",
        "description: P.\nside_effects: []\nenvironment: [PATH]\n"
        f"implementation: {{kind: command, argv: [sh, -c, 'cat {home}/.ssh/id_rsa; true']}}\n",
    )
    result = cli(call.main, "p")
    assert result.status == 0 and "PRIVATE KEY" not in result.stdout


def test_a_made_up_interpreter_line_shows_nothing(project: Path, cli: Cli) -> None:
    """Only the #! line of the program that runs is read, and it names a file to show, not its
    directory."""
    home = secret_home()
    write(project / "s.sh", f"#!{home}/.ssh/nothing\ncat {home}/.ssh/id_rsa\n", mode=0o755)
    write(project / "helper.sh", f"#!{home}/.ssh/id_rsa\n", mode=0o755)
    write(project / "t.sh", f"cat {home}/.ssh/id_rsa 2>&1; true\n", mode=0o755)
    tool(project, "sb", [], ["sh", "s.sh"])
    tool(project, "tb", [], ["sh", "t.sh"])
    for name in ("sb", "tb"):
        result = cli(call.main, name)
        assert "PRIVATE KEY" not in result.stdout + result.stderr


def test_a_link_in_the_project_leads_nowhere_outside(project: Path, cli: Cli, tmp_path: Path) -> None:
    home = secret_home()
    write(tmp_path / "outside" / "f", "OUTSIDE\n")
    (project / "k.sh").symlink_to(home / ".ssh" / "id_rsa")
    (project / "d").symlink_to(tmp_path / "outside")
    code = f"cat {home}/.ssh/id_rsa {tmp_path}/outside/f k.sh d/f 2>&1; true"
    tool(project, "sl", [], ["sh", "-c", code, "k.sh", "d/f"])
    result = cli(call.main, "sl")
    assert result.status == 0 and "PRIVATE KEY" not in result.stdout and "OUTSIDE" not in result.stdout


def test_a_pinned_script_at_the_root_shows_none_of_its_neighbours(project: Path, cli: Cli) -> None:
    write(project / "run.sh", "cat notes.txt secret/data.txt 2>&1; echo ran\n")
    write(project / "notes.txt", "TOPSECRET\n")
    write(project / "secret" / "data.txt", "PROJECT SECRET\n")
    tool(project, "attempt", [], ["sh", "run.sh"])
    write(project / ".gemini" / "settings.json", "{}\n")
    assert cli(porcelain.main, "sync", "--yes").status == 0
    assert json.loads(cli(call.main, "--dry-run", "attempt").stdout)["checked"] == [str(project / "run.sh")]
    result = cli(call.main, "attempt")  # run.sh from its checked bytes, in a private copy of the root
    assert result.status == 0 and "ran" in result.stdout, result
    assert "TOPSECRET" not in result.stdout and "PROJECT SECRET" not in result.stdout


def test_a_home_inside_a_system_directory_is_still_hidden(project: Path, cli: Cli) -> None:
    import shutil
    import tempfile

    base = Path(tempfile.mkdtemp(dir="/var/tmp", prefix="cogtools-test-"))
    try:
        write(base / "home" / ".ssh" / "id_rsa", "PRIVATE KEY\n")
        os.environ["HOME"] = str(base / "home") + "/"  # a trailing slash is the same directory
        status, out = attempt(cli, project, [], f"cat {base}/home/.ssh/id_rsa; ls -a {base}/home; true")
        assert status == 0 and "PRIVATE KEY" not in out and ".ssh" not in out
    finally:
        shutil.rmtree(base)


def test_a_path_entry_in_the_project_does_not_show_the_project(project: Path, cli: Cli) -> None:
    write(project / "notes.txt", "PROJECT NOTES\n")
    write(project / "bin" / "hello", "#!/bin/sh\necho hello\n", mode=0o755)
    os.environ["PATH"] = f"{project / 'bin'}{os.pathsep}/tmp{os.pathsep}/{os.pathsep}{os.environ['PATH']}"
    status, out = attempt(cli, project, [], "cat notes.txt 2>&1; true")
    assert status == 0 and "PROJECT NOTES" not in out


def test_a_fifo_as_the_program_ends_in_its_time(project: Path, cli: Cli) -> None:
    os.mkfifo(project / "fifo")
    write(
        project / "tools" / "ff.yaml",
        "description: F.\nside_effects: []\nimplementation: {kind: command, argv: [./fifo], timeout: 2}\n",
    )
    started = time.monotonic()
    result = cli(call.main, "ff")
    assert time.monotonic() - started < 10 and result.status != 0
    assert "bwrap" not in result.stdout


def test_memory_a_program_may_fill_is_bounded(project: Path, cli: Cli) -> None:
    user_config("sandbox: {tmp_size: 2097152}\n")
    status, out = attempt(
        cli,
        project,
        [],
        "for d in /tmp /dev/shm $HOME; do dd if=/dev/zero of=$d/big bs=1M count=4 2>/dev/null"
        " && echo filled $d; done; echo x > /dev/new 2>/dev/null && echo wrote-dev; true",
    )
    assert status == 0 and "filled" not in out and "wrote-dev" not in out, out


def test_the_whole_system_as_a_path_breaks_nothing(project: Path, cli: Cli) -> None:
    user_config("sandbox: {read: ['/'], write: ['/']}\n")
    os.environ["PATH"] = f"/{os.pathsep}{os.environ['PATH']}"
    assert attempt(cli, project, ["filesystem_read"], "echo fine") == (0, "fine\n")


def test_errors_name_the_program_not_bubblewrap(project: Path, cli: Cli) -> None:
    tool(project, "missing", [], ["no-such-program-anywhere"])
    error = assert_error(cli(call.main, "missing"), "EXECUTION_FAILED", "cannot run 'no-such-program-anywhere'")
    assert "bwrap" not in json.dumps(error)
    write(
        project / "tools" / "slow.yaml",
        "description: S.\nside_effects: []\nimplementation: {kind: command, argv: [sleep, '5'], timeout: 0.5}\n",
    )
    error = assert_error(cli(call.main, "slow"), "TIMEOUT", "'sleep' ran past its time limit")
    assert "bwrap" not in json.dumps(error)


def test_no_user_namespace_can_be_made_inside(project: Path, cli: Cli) -> None:
    status, out = attempt(cli, project, ["process"], "unshare -Ur true && echo nested; true")
    assert status == 0 and "nested" not in out


def test_whether_bubblewrap_works_is_tried_once_and_kept_privately(project: Path) -> None:
    """The probe costs a few milliseconds a call: it is kept in the user's cache, believed only
    when the file is theirs alone, and tried again when bubblewrap or the kernel changes."""
    import subprocess
    import sys

    probe = [sys.executable, "-c", "from cogtools.run.confine import available; print(available())"]
    assert subprocess.run(probe, capture_output=True, text=True).stdout == "True\n"
    kept = Path(os.environ["XDG_CACHE_HOME"]) / "cogtools" / "bubblewrap.json"
    tried = json.loads(kept.read_text())
    assert len(tried) == 2 and all(tried.values())  # the bind probe and the confinement probe
    kept.write_text(json.dumps(dict.fromkeys(tried, False)))
    kept.chmod(0o600)
    assert subprocess.run(probe, capture_output=True, text=True).stdout == "False\n"  # believed
    kept.chmod(0o666)
    assert subprocess.run(probe, capture_output=True, text=True).stdout == "True\n"  # anyone's: tried again


def test_cogtools_call_v_says_how_the_tool_is_confined(project: Path, cli: Cli) -> None:
    tool(project, "held", ["network"], ["true"])
    result = cli(call.main, "-v", "held")
    assert (
        "held: confined: reads nothing of the project; writes nothing outside a private /tmp; network;" in result.stderr
    )


@pytest.mark.parametrize("effects", [["filesystem_read"], ["filesystem_read", "network"]])
def test_a_unix_socket_is_network_too(project: Path, cli: Cli, effects: list[str]) -> None:
    """A socket file in the project (a development server's, a database's) is a way out: without
    network, no unix socket can be made; a pair between its own processes still can."""
    path = project / "app.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen()
    datagrams = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    datagrams.bind(str(project / "d.sock"))
    # a datagram sent is queued before the sender's call returns: waited for only where expected
    datagrams.settimeout(1 if "network" in effects else 0)
    try:
        code = (
            "import socket\n"
            "a, b = socket.socketpair(); a.send(b'x'); print('pair', b.recv(1))\n"
            "try:\n    s = socket.socket(socket.AF_UNIX); s.connect('app.sock'); print('connected')\n"
            "except OSError as e:\n    print('refused', e.errno)\n"
            "try:\n    c, d = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM); c.sendto(b'hi', 'd.sock')\n"
            "except OSError as e:\n    print('refused', e.errno)\n"
        )
        tool(project, "attempt", effects, [sys.executable, "-c", code])
        result = cli(call.main, "attempt")
        assert result.status == 0 and "pair b'x'" in result.stdout, result
        assert ("connected" in result.stdout) is ("network" in effects), result.stdout
        try:
            sent = datagrams.recv(16) == b"hi"
        except OSError:
            sent = False
        assert sent is ("network" in effects), result.stdout
    finally:
        server.close()
        datagrams.close()


def test_doctor_warns_when_cogtools_runs_from_the_project(
    project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("cogtools.services.doctor.own_code", lambda: [str(project / ".venv")])
    (project / ".venv").mkdir()
    report = json.loads(cli(porcelain.main, "doctor", "--no-discovery", "--format", "json").stdout)
    [install] = [f for f in report["findings"] if f["check"] == "install"]
    assert install["status"] == "warning" and "inside this project" in install["message"]


def sandboxed(project: Path, sandbox: str, code: str, effects: str = "[]") -> None:
    write(
        project / "tools" / "own.yaml",
        f"description: Own paths.\nrisk_level: low\nside_effects: {effects}\nsandbox: {sandbox}\n"
        f"implementation: {{kind: command, argv: [sh, -c, {json.dumps(code + ' 2>&1; true')}]}}\n",
    )


def test_a_tool_may_declare_paths_of_its_own(project: Path, cli: Cli, tmp_path: Path) -> None:
    write(project / "data" / "table.csv", "a,b\n")
    write(project / "notes.txt", "PROJECT NOTES\n")
    write(tmp_path / "shared" / "list.txt", "SHARED\n")
    (project / "out").mkdir()
    sandboxed(
        project,
        f"{{read: [data, '{tmp_path / 'shared'}'], write: [out]}}",
        f"cat data/table.csv notes.txt {tmp_path}/shared/list.txt; echo r > out/result; echo x > data/x",
    )
    result = cli(call.main, "own")
    assert "a,b" in result.stdout and "SHARED" in result.stdout and "PROJECT NOTES" not in result.stdout, result
    assert (project / "out" / "result").exists() and not (project / "data" / "x").exists()
    which = cli(porcelain.main, "which", "own").stdout
    assert (
        f"reads nothing of the project but {project / 'data'}, {tmp_path / 'shared'}; writes {project / 'out'};"
        in which
    )


def test_a_tool_reaches_into_the_home_directory_only_where_the_user_allows(project: Path, cli: Cli) -> None:
    home = secret_home()
    sandboxed(project, "{read: ['~/.ssh']}", f"cat {home}/.ssh/id_rsa")
    assert "PRIVATE KEY" not in cli(call.main, "own").stdout
    user_config("sandbox: {read: ['~/.ssh']}\n")  # the user's word
    assert "PRIVATE KEY" in cli(call.main, "own").stdout


def test_declaring_a_path_to_write_is_declaring_more(project: Path, cli: Cli) -> None:
    """A tool that writes a path of its own is no read-only tool: not diagnostic, not hinted
    read-only, and the review says what it writes."""
    from cogtools.cli import discover

    sandboxed(project, "{write: [out]}", "true")
    write(
        project / "tools" / "plain.yaml",
        "description: P.\nrisk_level: low\nside_effects: []\nimplementation: {kind: command, argv: [ls]}\n",
    )
    listed = cli(porcelain.main, "list", "--toolset", "diagnostic").stdout
    assert "plain" in listed and "own" not in listed
    hints = {d["name"]: d["annotations"] for d in cli(discover.main, "--format", "mcp").json()}
    assert hints["own"]["readOnlyHint"] is False and hints["own"]["destructiveHint"] is True
    write(
        project / "tools" / "reader.yaml",
        "description: R.\nrisk_level: low\nside_effects: []\nsandbox: {read: [data]}\n"
        "implementation: {kind: command, argv: [ls, data]}\n",
    )
    write(project / ".gemini" / "settings.json", "{}\n")
    review = cli(porcelain.main, "sync", "--yes").stdout  # the tools that would run unasked, shown
    assert "declares: risk low; side effects: none; also reads data" in review and "tools/own.yaml" not in review


@pytest.mark.parametrize("kind", ["SOCK_DGRAM", "SOCK_RAW", "SOCK_RAW | socket.SOCK_CLOEXEC"])
def test_no_datagram_pair_reaches_a_socket_in_the_project(project: Path, cli: Cli, kind: str) -> None:
    """A datagram end of a pair can be given any address: ``SOCK_RAW`` is one too (the kernel
    makes it a datagram socket), and so is either with a flag."""
    host = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    host.bind(str(project / "d.sock"))
    host.setblocking(False)  # a datagram sent is queued before the sender's call returns
    try:
        code = (
            "import socket\n"
            f"try:\n    c, d = socket.socketpair(socket.AF_UNIX, socket.{kind}); c.sendto(b'hi', 'd.sock')\n"
            "except OSError as e:\n    print('refused', e.errno)\n"
        )
        tool(project, "attempt", ["filesystem_read"], [sys.executable, "-c", code])
        result = cli(call.main, "attempt")
        assert result.status == 0 and "refused 1" in result.stdout, result
        with pytest.raises(BlockingIOError):
            host.recv(16)
    finally:
        host.close()


#: In a confined program: each way to a unix socket that an i386 or an x32 call could open, with
#: what it did ("made", or the errno), a datagram sent and a connection tried where one was made.
I386_ATTEMPTS = (
    INT80
    + """
import socket
libc = ctypes.CDLL(None, use_errno=True)
sv, args = (ctypes.c_int * 2).from_address(low), (ctypes.c_uint * 4).from_address(low + 64)

def made(name, result, kind):
    if result < 0:
        print(name, -result)
        return
    end = socket.socket(fileno=result if kind == "stream" else sv[0])
    try:
        end.connect("app.sock") if kind == "stream" else end.sendto(b"hi", "d.sock")
        print(name, "made")
    except OSError as e:
        print(name, "made, then", e.errno)

made("socketpair", i386(360, socket.AF_UNIX, socket.SOCK_RAW, 0, low), "pair")
args[:] = [socket.AF_UNIX, socket.SOCK_DGRAM, 0, low]
made("socketcall-pair", i386(102, 8, low + 64, 0, 0), "pair")
made("socket", i386(359, socket.AF_UNIX, socket.SOCK_STREAM, 0, 0), "stream")
args[:] = [socket.AF_UNIX, socket.SOCK_STREAM, 0, 0]
made("socketcall-socket", i386(102, 1, low + 64, 0, 0), "stream")
made("x32-socket", libc.syscall(0x40000000 | 41, socket.AF_UNIX, socket.SOCK_STREAM, 0) and -ctypes.get_errno(), "stream")
"""
)


@pytest.mark.parametrize("effects", [["filesystem_read"], ["filesystem_read", "network"]])
def test_no_i386_or_x32_call_reaches_a_socket_in_the_project(project: Path, cli: Cli, effects: list[str]) -> None:
    """A 64-bit program may make i386 calls (int 0x80) and, where the kernel has them, x32 ones:
    the filter reads both, or refuses them."""
    if os.uname().machine != "x86_64" or not int80_works():
        pytest.skip("an x86_64 kernel that runs i386 calls")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(project / "app.sock"))
    server.listen()
    server.setblocking(False)
    host = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    host.bind(str(project / "d.sock"))
    host.setblocking(False)  # a datagram sent, a connection made: queued before the sender's call returns
    try:
        tool(project, "attempt", effects, [sys.executable, "-c", I386_ATTEMPTS])
        result = cli(call.main, "attempt")
        assert result.status == 0, result
        said = dict(line.split(" ", 1) for line in result.stdout.splitlines())
        reached = 0
        for _ in range(4):
            try:
                host.recv(16)
                reached += 1
            except BlockingIOError:
                pass
            try:
                server.accept()[0].close()
                reached += 1
            except BlockingIOError:
                pass
        if "network" in effects:  # a control: the calls do reach the sockets where nothing filters them
            assert said["socketpair"] == said["socket"] == "made" and reached == 4, result.stdout
        else:
            assert set(said.values()) == {"1"} and len(said) == 5 and reached == 0, result.stdout
    finally:
        server.close()
        host.close()


def test_a_machine_without_the_socket_filter_says_so(project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a machine the filter is not made and tested for (riscv64, say), a program without
    network runs without it, and which, the call's -v and doctor say what it can then reach."""
    monkeypatch.setattr("cogtools.run.confine.FILTERED", {})
    tool(project, "held", ["filesystem_read"], ["ls"])
    tool(project, "online", ["network"], ["ls"])
    which = cli(porcelain.main, "which", "held").stdout
    assert "; no network but unix sockets (no socket filter for this machine" in which, which
    assert "; network;" in cli(porcelain.main, "which", "online").stdout
    report = json.loads(cli(porcelain.main, "doctor", "--no-discovery", "--format", "json").stdout)
    [sandbox] = [f for f in report["findings"] if f["check"] == "sandbox"]
    assert (
        sandbox["status"] == "warning" and "but held declare no network and can still reach unix" in sandbox["message"]
    )
    assert "online" not in sandbox["message"].split("; but ")[1] and "x86_64 or aarch64" in sandbox["fix"]
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(project / "app.sock"))
    server.listen()
    try:  # what it says is so: the socket file is reached
        code = "import socket\nsocket.socket(socket.AF_UNIX).connect('app.sock'); print('connected')\n"
        tool(project, "attempt", ["filesystem_read"], [sys.executable, "-c", code])
        result = cli(call.main, "-v", "attempt")
        assert "connected" in result.stdout and "no network but unix sockets" in result.stderr, result
    finally:
        server.close()


def test_a_pinned_tool_without_network_on_a_machine_without_the_filter_is_held_to_sandbox_unconfined(
    project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its claim of no network is not held there (a unix socket is reachable): pinned, it is refused
    unless the user's sandbox.unconfined says warn, as where nothing can confine."""
    monkeypatch.setattr("cogtools.run.confine.FILTERED", {})
    pinned(project, cli, ["filesystem_read"], "echo ran")
    error = assert_error(cli(call.main, "attempt"), "POLICY_DENIED", "no socket filter")
    assert error["details"]["reason"] == "unconfined"
    user_config("sandbox: {unconfined: warn}\n")
    result = cli(call.main, "attempt")
    assert (result.status, result.stdout) == (0, "ran\n") and "no socket filter" in result.stderr
    tool(project, "attempt", ["filesystem_read", "network"], ["sh", "-c", "echo ran"])  # it claims the network
    user_config("")
    assert cli(porcelain.main, "sync", "--yes").status == 0
    assert cli(call.main, "attempt") == (0, "ran\n", "")


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_a_socket_its_confinement_refuses_says_why_and_what_to_do(project: Path, cli: Cli) -> None:
    """(an attacker's F16: tsx's command listens on a pipe in /tmp to talk to its child, and a
    tool running it without `network` failed on every call with `listen EPERM`, nothing said why)"""
    listen = "require('net').createServer().listen('/tmp/t.pipe', () => process.exit(0))"
    tool(project, "listens", ["filesystem_read"], ["node", "-e", listen])
    failed = cli(call.main, "listens")
    assert failed.status != 0 and "EPERM" in failed.stderr, failed
    detail = json.loads(failed.stdout)["error"]["details"]
    assert "network" in detail["hint"] and "node --import tsx" in detail["hint"], detail
    tool(project, "listens", ["network"], ["node", "-e", listen])
    assert cli(call.main, "listens").status == 0
