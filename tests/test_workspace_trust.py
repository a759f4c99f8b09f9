"""What the workspace can do to a person's cogtools (issue 27): the agent writes files in the
workspace, links included, and sets the variables of a project's ``.env``; none of it may make
cogtools write outside the project, run code a person did not allow, echo a file from outside,
or send control sequences to the person's terminal.

The commands run in process (``cli``) where only their answer matters (the pins are checked, and
programs and Python functions run, in child processes either way); the real processes kept:
``cogtools-call`` given the environment Gemini CLI gives it (``test_a_role_set_by_the_workspace_env_is_ignored``,
``test_a_pinned_python_tool_still_imports_what_is_installed``), refusing a FIFO within a time limit
(``test_a_fifo_in_place_of_a_module_refuses_instead_of_hanging``), running a script as it runs by path
(``test_a_pinned_script_behaves_as_it_does_run_by_path``) and printing exact bytes
(``test_machine_output_stays_exact``); ``cogtools-discover`` (``test_a_file_name_that_is_not_utf8_does_not_stop_discovery``)."""

from __future__ import annotations

import hashlib
import http.server
import json
import os
import re
import subprocess
import threading
import typing as t
from pathlib import Path

import pytest

from cogtools.cli import call, discover, porcelain

from .conftest import BIN, Cli, run_script, write
from .test_gemini_policy import older_gemini  # noqa: F401 (a fixture)

LOOK = "description: Look around.\nrisk_level: low\nside_effects: [filesystem_read]\nimplementation: looked\n"


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """A directory outside the project, with files a link in the workspace may point at."""
    directory = tmp_path / "victim"
    directory.mkdir()
    for name, text in {
        "allowed.json": '{"mine": "precious"}\n',
        "notes.md": "# my notes\n",
        "settings.json": '{"theme": "dark"}\n',
        "config.yaml": "limits:\n  timeout: 10\n",
    }.items():
        (directory / name).write_text(text)
    return directory


def snapshot(directory: Path) -> dict[str, str]:
    """Every file under ``directory``, by relative path, with the digest of its bytes."""
    return {
        str(path.relative_to(directory)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(directory.rglob("*"))
        if path.is_file()
    }


@pytest.mark.parametrize(
    ("link", "target"),
    [
        (".gemini/cogtools-allowed.json", "allowed.json"),
        ("GEMINI.md", "notes.md"),
        (".gemini/settings.json", "settings.json"),
    ],
)
@pytest.mark.usefixtures("older_gemini")  # tools.allowed: a Policy Engine sync leaves settings.json as it is
def test_sync_writes_through_no_link_that_leaves_the_project(
    project: Path, victim: Path, cli: Cli, link: str, target: str
) -> None:
    write(project / "tools" / "look.yaml", LOOK)
    write(project / ".gemini" / "settings.json", "{}\n")
    (project / link).unlink(missing_ok=True)
    (project / link).parent.mkdir(parents=True, exist_ok=True)
    (project / link).symlink_to(victim / target)
    before = snapshot(victim)
    result = cli(porcelain.main, "sync")
    assert result.status != 0
    assert "CONFIG_INVALID" in result.stderr and link in result.stderr and "outside the project" in result.stderr
    assert snapshot(victim) == before
    assert "Traceback" not in result.stderr


def test_sync_writes_through_no_linked_directory_that_leaves_the_project(project: Path, victim: Path, cli: Cli) -> None:
    write(project / "tools" / "look.yaml", LOOK)
    (project / ".gemini").symlink_to(victim)
    before = snapshot(victim)
    result = cli(porcelain.main, "sync")
    assert result.status != 0 and "outside the project" in result.stderr
    assert snapshot(victim) == before


def test_a_link_inside_the_project_is_still_written_through(project: Path, cli: Cli) -> None:
    write(project / "tools" / "look.yaml", LOOK)
    write(project / "AGENTS.md", "# Agents\n\nHand-written.\n")
    (project / "GEMINI.md").symlink_to("AGENTS.md")
    assert cli(porcelain.main, "sync").status == 0
    assert (project / "GEMINI.md").is_symlink()
    text = (project / "AGENTS.md").read_text()
    assert text.startswith("# Agents\n\nHand-written.\n") and "look" in text


def test_config_set_writes_through_no_link_that_leaves_the_project(project: Path, victim: Path, cli: Cli) -> None:
    (project / ".cogtoolrc.yaml").unlink()
    (project / ".cogtoolrc.yaml").symlink_to(victim / "config.yaml")
    before = snapshot(victim)
    result = cli(porcelain.main, "config", "set", "limits.timeout", "5")
    assert result.status != 0 and "outside the project" in result.stderr
    assert snapshot(victim) == before


@pytest.mark.slow
@pytest.mark.parametrize("name", [".cogtoolrc.yaml", "pyproject.toml"])
def test_a_configuration_linked_outside_the_project_is_named_not_quoted(
    project: Path, victim: Path, cli: Cli, name: str
) -> None:
    """The agent links the project's configuration to a file of the person's: whatever reads it
    (the model through cogtools_problems, discovery's stderr, doctor, config set) names the link,
    never a key or value of what it points at."""
    secret = victim / "private.txt"
    secret.write_text(
        "[tool.cogtools]\nhunter2 = 'the key to everything'\n"
        if name.endswith(".toml")
        else "hunter2: the key to everything\n"
    )
    (project / name).unlink(missing_ok=True)
    (project / name).symlink_to(secret)
    if name == "pyproject.toml":
        (project / ".cogtoolrc.yaml").write_text("# test project\n")
    runs = [
        run_script("cogtools-discover", cwd=project),
        run_script("cogtools-call", "cogtools_problems", stdin="{}", cwd=project),
        run_script("cogtools", "doctor", cwd=project),
        run_script("cogtools", "config", "set", "limits.timeout", "5", cwd=project),
        run_script("cogtools", "list", cwd=project),
    ]
    for result in runs:
        assert "hunter2" not in result.stdout + result.stderr, result
    assert "outside the project" in runs[1].stdout and name in runs[1].stdout
    assert "Traceback" not in "".join(r.stderr for r in runs)
    # a link to a configuration that loads still serves
    secret.write_text(
        "[tool.cogtools]\nenv_priority = 'system'\n" if name.endswith(".toml") else "env_priority: system\n"
    )
    assert cli(porcelain.main, "config", "get", "env_priority").stdout == "system\n"


def test_init_refuses_before_its_first_write(isolated: Path, victim: Path, cli: Cli) -> None:
    (isolated / "GEMINI.md").symlink_to(victim / "notes.md")
    before = snapshot(victim)
    result = cli(porcelain.main, "init", "--defaults")
    assert result.status != 0 and "GEMINI.md" in result.stderr and "outside the project" in result.stderr
    assert snapshot(victim) == before
    assert not (isolated / ".cogtoolrc.yaml").exists()  # nothing half done


def test_new_writes_no_tool_through_a_linked_directory(project: Path, victim: Path, cli: Cli) -> None:
    (project / "tools").rmdir()
    (project / "tools").symlink_to(victim)
    before = snapshot(victim)
    result = cli(porcelain.main, "new", "hello", "--non-interactive")
    assert result.status != 0 and "outside the project" in result.stderr
    assert snapshot(victim) == before


def test_a_link_swapped_in_after_the_check_refuses_the_write(project: Path, victim: Path) -> None:
    """The directory that receives the file is opened link by link without following any: a
    link that replaces a directory between the check and the write is refused, not followed."""
    from cogtools.core import fsutil

    (project / "sub").mkdir()
    real_open = fsutil._open_directory

    def swap_then_open(path: Path) -> int:
        (project / "sub").rename(project / "was-sub")
        (project / "sub").symlink_to(victim)
        return real_open(path)

    before = snapshot(victim)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fsutil, "_open_directory", swap_then_open)
        with pytest.raises(fsutil.LeavesRoot):
            fsutil.write_atomic(project / "sub" / "notes.md", "overwritten\n", within=project)
    assert snapshot(victim) == before
    assert not os.path.exists(project / "was-sub" / "notes.md")


def test_a_write_within_the_project_keeps_mode_and_replaces_whole(project: Path) -> None:
    from cogtools.core import fsutil

    path = write(project / "GEMINI.md", "old\n", mode=0o640)
    fsutil.write_atomic(path, "new\n", within=project)
    assert path.read_text() == "new\n" and (path.stat().st_mode & 0o777) == 0o640
    assert sorted(p.name for p in project.iterdir() if p.name.endswith(".tmp")) == []


# Control sequences: retitle the window, clear the screen, write the clipboard (OSC 52), and a
# direction override that makes text read other than it is.
HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x1b]52;c;cm0gLXJmIH4=\x07\u202e\x9b31m"
#: Bytes no human-facing line may carry raw: C0 controls but newline and tab, DEL, and the UTF-8
#: of C1 controls and of the direction overrides.
RAW = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]")


class Reason(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args: t.Any) -> None:
        pass

    def do_GET(self) -> None:
        self.send_response(503, "Down" + HOSTILE)
        self.send_header("Content-Length", "0")
        self.end_headers()


@pytest.fixture
def hostile_project(project: Path) -> t.Iterator[Path]:
    """Hostile text everywhere a person may see it: a description, an example's expected result,
    a program's stderr, an HTTP reason phrase, file names."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Reason)
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    tools = project / "tools"
    (tools / "describe.yaml").write_text(
        json.dumps(
            {
                "description": "Says hello." + HOSTILE,
                "parameters": {"who": {"type": "string", "description": "Who" + HOSTILE}},
                "examples": [{"arguments": {"who": "x"}, "expect": {"output": "no" + HOSTILE}}],
                "implementation": "hello {{ who }}",
            }
        )
    )
    (tools / "noisy.yaml").write_text(
        json.dumps(
            {
                "description": "Fails noisily.",
                "implementation": {"kind": "command", "argv": ["sh", "-c", f"printf '{HOSTILE}' >&2; exit 3"]},
            }
        )
    )
    (tools / "down.yaml").write_text(
        json.dumps(
            {
                "description": "A service that is down.",
                "implementation": {"kind": "http", "url": f"http://127.0.0.1:{httpd.server_address[1]}/"},
            }
        )
    )
    (tools / ("name" + HOSTILE.replace("/", "") + ".yaml")).write_text("description: [broken\n")
    os.symlink(b"nowhere", os.path.join(bytes(tools), b"\xff\xfe\x1b[2J.yaml"))
    yield project
    httpd.shutdown()


@pytest.mark.slow
def test_no_human_facing_line_carries_a_control_sequence(hostile_project: Path) -> None:
    runs = [
        ("cogtools", "list"),
        ("cogtools", "search", "hello"),
        ("cogtools", "which", "describe"),
        ("cogtools", "test"),
        ("cogtools", "doctor"),
        ("cogtools", "lint"),
        ("cogtools", "sync"),
        ("cogtools-discover",),
        ("cogtools-call", "noisy"),
        ("cogtools-call", "down"),
        ("cogtools-call", "-v", "describe"),
    ]
    for argv in runs:
        proc = subprocess.run([str(BIN / argv[0]), *argv[1:]], input=b'{"who": "x"}', capture_output=True, timeout=60)
        human = [proc.stderr] if argv[0] in ("cogtools-discover", "cogtools-call") else [proc.stdout, proc.stderr]
        for stream in human:
            assert RAW.search(stream) is None, (argv, stream)
        assert b"Traceback" not in proc.stderr, (argv, proc.stderr)
    # The escapes are shown, not dropped: a person sees that something was there.
    listed = subprocess.run([str(BIN / "cogtools"), "list"], capture_output=True).stdout.decode()
    assert "Says hello.\\x1b]0;pwned\\x07" in listed


def test_machine_output_stays_exact(hostile_project: Path) -> None:
    """What a program reads (the declarations, a call's JSON error) carries the text as it is."""
    declarations = json.loads(run_script("cogtools-discover").stdout)
    described = {d["name"]: d["description"] for d in declarations}
    assert described["describe"] == "Says hello." + HOSTILE
    failed = run_script("cogtools-call", "noisy", stdin="{}")
    assert failed.status != 0 and HOSTILE in json.loads(failed.stdout)["error"]["details"]["stderr_tail"]


def test_a_file_name_that_is_not_utf8_does_not_stop_discovery(project: Path) -> None:
    write(project / "tools" / "ok.yaml", "description: Fine.\nimplementation: fine\n")
    os.close(os.open(os.path.join(bytes(project / "tools"), b"\xff\xfe.yaml"), os.O_CREAT | os.O_WRONLY))
    result = run_script("cogtools-discover")
    assert result.status == 0, result
    names = {d["name"]: d["description"] for d in json.loads(result.stdout)}
    assert "ok" in names and "tools/\\xff\\xfe.yaml" in names["cogtools_problems"]
    assert "tools/\\xff\\xfe.yaml" in result.stderr


@pytest.mark.parametrize(
    ("text", "keep", "shown"),
    [
        ("plain text, é and 中文", "", "plain text, é and 中文"),
        ("a\x1b[2Jb", "", "a\\x1b[2Jb"),
        ("line\nnext\ttab\r", "\n\t", "line\nnext\ttab\\x0d"),
        ("\u202eevil", "", "\\u202eevil"),
        ("\x9b", "", "\\x9b"),
        (os.fsdecode(b"bad\xff"), "", "bad\\xff"),
    ],
)
def test_printable_escapes_what_a_terminal_acts_on(text: str, keep: str, shown: str) -> None:
    from cogtools.core.printable import printable

    assert printable(text, keep) == shown


def test_a_linked_tool_file_is_reported_by_name_only(project: Path, victim: Path, cli: Cli) -> None:
    """A link in the workspace to a file elsewhere: whatever the parser would quote of it (a
    line, a key) would reach the model through cogtools_problems, which runs without asking."""
    secret = victim / "id_token"
    secret.write_text("token: hunter2-SECRET-LINE\n")
    (project / "tools" / "a.yaml").symlink_to(secret)
    write(project / "tools" / "ok.yaml", "description: Fine.\nimplementation: fine\n")
    discovered = cli(discover.main)
    problems = cli(call.main, "cogtools_problems", stdin="{}")
    doctor = cli(porcelain.main, "doctor")
    listed = cli(porcelain.main, "list")
    for result in (discovered, problems, doctor, listed):
        assert "hunter2" not in result.stdout + result.stderr and "token" not in result.stdout + result.stderr
    assert "tools/a.yaml" in discovered.stderr and "outside the project" in discovered.stderr
    assert "tools/a.yaml" in problems.stdout


def test_a_link_to_a_tool_file_inside_the_project_still_says_what_is_wrong(project: Path, cli: Cli) -> None:
    write(project / "shared" / "b.yaml", "description: Broken.\nimplementation: x\nbogus_key: 1\n")
    (project / "tools" / "b.yaml").symlink_to(project / "shared" / "b.yaml")
    assert "bogus_key" in cli(discover.main).stderr


def gemini_env(project: Path, **values: str) -> dict[str, str]:
    """The environment Gemini CLI gives a command it runs once it has loaded ``project``'s
    ``.env`` (holding ``values``) into its own: the process's, plus what the file sets."""
    (project / ".env").write_text("".join(f"{name}={value}\n" for name, value in values.items()))
    return {**os.environ, **values}


def test_a_role_set_by_the_workspace_env_is_ignored(project: Path) -> None:
    write(project / "tools" / "restart.yaml", 'description: Restart.\nimplementation: restarted\nmin_role: "admin"\n')
    env = gemini_env(project, COGTOOLS_ROLE="admin")
    result = run_script("cogtools-call", "restart", stdin="{}", env=env)
    assert result.status != 0 and "restarted" not in result.stdout
    assert "COGTOOLS_ROLE" in result.stderr and ".env" in result.stderr and "ignored" in result.stderr
    # The person's own word still counts: a role set in the shell, not by the file.
    (project / ".env").write_text("OTHER=1\n")
    assert run_script("cogtools-call", "restart", stdin="{}", env=env).stdout == "restarted"


def test_a_state_directory_set_by_the_workspace_env_cannot_bring_its_own_pins(
    project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agent writes a pins file in the workspace that pins its edit of an allowed tool, and
    points XDG_STATE_HOME there through .env; the person's own pins still decide."""
    write(project / "tools" / "look.yaml", LOOK)
    write(project / ".gemini" / "settings.json", "{}\n")
    assert cli(porcelain.main, "sync", "--yes").status == 0
    write(project / "tools" / "look.yaml", LOOK.replace("looked", "evil"))
    from cogtools.core.places import project_key

    forged = project / "state" / "cogtools" / "pins" / f"{project_key(project.resolve())}.json"
    digest = hashlib.sha256((project / "tools" / "look.yaml").read_bytes()).hexdigest()
    write(
        forged,
        json.dumps({"root": str(project.resolve()), "pins": {"look": {"path": "tools/look.yaml", "sha256": digest}}}),
    )
    forged.chmod(0o600)
    forged.parent.chmod(0o700)
    gemini_env(project, XDG_STATE_HOME=str(project / "state"))
    monkeypatch.setenv("XDG_STATE_HOME", str(project / "state"))  # as Gemini CLI sets it from the .env
    result = cli(call.main, "look", stdin="{}")
    assert result.status != 0 and "evil" not in result.stdout
    assert "POLICY_DENIED" in result.stderr and "XDG_STATE_HOME" in result.stderr


def test_doctor_and_config_say_what_the_workspace_env_sets(project: Path, cli: Cli) -> None:
    (project / ".env").write_text("COGTOOLS_ROLE=admin\nAPI_URL=https://example.com\n")
    doctor = cli(porcelain.main, "doctor", "--no-discovery")
    assert "environment" in doctor.stdout and "COGTOOLS_ROLE" in doctor.stdout and "API_URL" not in doctor.stdout
    config = cli(porcelain.main, "config")
    assert "COGTOOLS_ROLE" in config.stderr and "ignores" in config.stderr


def test_the_users_own_env_file_is_the_users_word(project: Path, isolated: Path) -> None:
    from cogtools.core.environment import set_by_workspace

    home = Path(os.environ["HOME"])
    (home / ".env").write_text("COGTOOLS_ROLE=admin\n")
    assert set_by_workspace(project, {**os.environ, "COGTOOLS_ROLE": "admin"}) == {}
    (project / ".gemini").mkdir(exist_ok=True)
    (project / ".gemini" / ".env").write_text("COGTOOLS_ROLE=admin\n")  # the first found wins
    found = set_by_workspace(project, {**os.environ, "COGTOOLS_ROLE": "admin"})
    assert found == {"COGTOOLS_ROLE": str(project / ".gemini" / ".env")}


def allow(project: Path, cli: Cli, *names: str) -> None:
    """A person allows ``names`` to run without confirmation and syncs (which pins them)."""
    settings = {"tools": {"allowed": [f"discovered_tool_{name}" for name in names]}}
    write(project / ".gemini" / "settings.json", json.dumps(settings))
    assert cli(porcelain.main, "sync", "--yes").status == 0


AVG = (
    "description: The mean.\nrisk_level: low\nside_effects: []\n"
    "parameters:\n  data: {type: array, items: {type: number}, description: Numbers.}\n"
    "implementation: {kind: python, callable: 'statistics:mean'}\n"
)


def test_a_python_path_the_agent_adds_cannot_swap_the_module(project: Path, cli: Cli) -> None:
    write(project / "tools" / "avg.yaml", AVG)
    allow(project, cli, "avg")
    assert cli(call.main, "avg", stdin='{"data": [1, 2, 3]}').stdout.strip() == "2"
    write(project / ".cogtoolrc.yaml", "python_path: [evil]\n")
    write(project / "evil" / "statistics.py", "def mean(data):\n    return 'pwned'\n")
    result = cli(call.main, "avg", stdin='{"data": [1, 2, 3]}')
    assert result.status != 0 and "pwned" not in result.stdout
    assert "POLICY_DENIED" in result.stderr and "evil/statistics.py" in result.stderr


def test_an_edit_of_a_project_module_on_python_path_is_refused(project: Path, cli: Cli) -> None:
    write(project / ".cogtoolrc.yaml", "python_path: [lib]\n")
    write(project / "lib" / "mathx.py", "import helper\n\ndef double(n):\n    return helper.twice(n)\n")
    write(project / "lib" / "helper.py", "def twice(n):\n    return 2 * n\n")
    write(
        project / "tools" / "double.yaml",
        "description: Double.\nrisk_level: low\nside_effects: []\n"
        "parameters:\n  n: {type: integer, description: A number.}\n"
        "implementation: {kind: python, callable: 'mathx:double'}\n",
    )
    allow(project, cli, "double")
    assert cli(call.main, "double", stdin='{"n": 2}').stdout.strip() == "4"
    write(project / "lib" / "helper.py", "def twice(n):\n    return 'pwned'\n")
    result = cli(call.main, "double", stdin='{"n": 2}')
    assert result.status != 0 and "pwned" not in result.stdout and "lib/helper.py" in result.stderr
    assert cli(porcelain.main, "sync", "--yes").status == 0  # a person reviewed it
    assert cli(call.main, "double", stdin='{"n": 2}').stdout.strip() == "pwned"


DOUBLE = (
    "description: Double.\nrisk_level: low\nside_effects: []\n"
    "parameters:\n  n: {type: integer, description: A number.}\n"
    "implementation: {kind: python, callable: 'mathx:double'}\n"
)


def test_a_module_of_a_subpackage_is_covered_too(project: Path, cli: Cli) -> None:
    """Found by an attacker's pass: a module of another package on python_path, imported by the
    callable's module, was not in the pin."""
    write(project / ".cogtoolrc.yaml", "python_path: [lib]\n")
    write(project / "lib" / "mathx.py", "from helpers.arith import twice\n\ndef double(n):\n    return twice(n)\n")
    write(project / "lib" / "helpers" / "__init__.py", "")
    write(project / "lib" / "helpers" / "arith.py", "def twice(n):\n    return 2 * n\n")
    write(project / "tools" / "double.yaml", DOUBLE)
    allow(project, cli, "double")
    assert cli(call.main, "double", stdin='{"n": 2}').stdout.strip() == "4"
    write(project / "lib" / "helpers" / "arith.py", "def twice(n):\n    return 'pwned'\n")
    result = cli(call.main, "double", stdin='{"n": 2}')
    assert result.status != 0 and "pwned" not in result.stdout and "lib/helpers/arith.py" in result.stderr


def test_a_module_of_a_namespace_package_is_covered_too(project: Path, cli: Cli) -> None:
    """A directory without an __init__.py is a package all the same (a namespace package): its
    modules are importable, so the pin covers them (issue 41: it was left out, and refused only
    at import)."""
    write(project / ".cogtoolrc.yaml", "python_path: [lib]\n")
    write(project / "lib" / "mathx.py", "from loose.arith import twice\n\ndef double(n):\n    return twice(n)\n")
    write(project / "lib" / "loose" / "arith.py", "def twice(n):\n    return 2 * n\n")
    write(project / "tools" / "double.yaml", DOUBLE)
    allow(project, cli, "double")
    assert cli(call.main, "double", stdin='{"n": 2}').stdout.strip() == "4"
    write(project / "lib" / "loose" / "arith.py", "def twice(n):\n    return 'unreviewed'\n")
    result = cli(call.main, "double", stdin='{"n": 2}')
    assert result.status != 0 and "unreviewed" not in result.stdout
    assert "lib/loose/arith.py, which it loads, changed" in result.stderr


def test_a_compiled_module_beside_an_unchanged_source_does_not_run(project: Path, cli: Cli) -> None:
    """Found by an attacker's pass: a .pyc the agent writes into __pycache__, stamped with the
    mtime and size of the unchanged source, ran instead of it. A pinned call imports the
    project's modules from the checked source, never from bytecode."""
    import importlib.util
    import py_compile

    write(project / ".cogtoolrc.yaml", "python_path: [lib]\n")
    good = "def double(n):\n    return 2 * n\n"
    evil = "def double(n):\n    return 'pwd'\n"
    assert len(good) == len(evil)
    source = write(project / "lib" / "mathx.py", good)
    write(project / "tools" / "double.yaml", DOUBLE)
    allow(project, cli, "double")
    stamp = source.stat().st_mtime
    source.write_text(evil)
    os.utime(source, (stamp, stamp))
    py_compile.compile(str(source), cfile=importlib.util.cache_from_source(str(source)))
    source.write_text(good)
    os.utime(source, (stamp, stamp))  # the .pyc now matches the good source's mtime and size
    assert cli(call.main, "double", stdin='{"n": 2}').stdout.strip() == "4"


def test_an_edit_of_the_script_a_pinned_command_runs_is_refused(project: Path, cli: Cli) -> None:
    write(project / "scripts" / "count.sh", "echo 3\n")
    write(
        project / "tools" / "count.yaml",
        "description: Count.\nrisk_level: low\nside_effects: [filesystem_read]\n"
        "implementation: {kind: command, argv: [sh, scripts/count.sh]}\n",
    )
    allow(project, cli, "count")
    assert cli(call.main, "count", stdin="{}").stdout.strip() == "3"
    write(project / "scripts" / "count.sh", "echo pwned\n")
    result = cli(call.main, "count", stdin="{}")
    assert result.status != 0 and "pwned" not in result.stdout
    assert "scripts/count.sh" in result.stderr and "POLICY_DENIED" in result.stderr


#: How many calls a race test makes while a writer flips the file under them: each call's check
#: and run meet a file that changes every few microseconds, so a call that read the file twice
#: would run the other version about every other time (a bound by work, not by the clock).
RACING_CALLS = 20


def calls_while_flipping(path: Path, versions: list[str], tool: str) -> list[str]:
    """The outputs of RACING_CALLS calls of ``tool`` while a writer replaces ``path`` by each of
    ``versions`` in turn, as fast as it can (a new file of the same mode renamed over it); every
    call is checked to have been raced (the writer flipped the file while it ran)."""
    stop = threading.Event()
    flips = 0
    mode = path.stat().st_mode & 0o777

    def flip() -> None:
        nonlocal flips
        tmp = path.with_suffix(".tmp")
        while not stop.is_set():
            for text in versions:
                tmp.write_text(text)
                tmp.chmod(mode)
                os.replace(tmp, path)
                flips += 1

    writer = threading.Thread(target=flip, daemon=True)
    writer.start()
    outputs, raced = [], []
    try:
        for _ in range(RACING_CALLS):
            before = flips
            outputs.append(run_script("cogtools-call", tool, stdin="{}").stdout)
            raced.append(flips > before)
    finally:
        stop.set()
        writer.join()
    assert all(raced), raced
    return outputs


@pytest.mark.slow
def test_a_pinned_template_runs_only_the_checked_bytes_however_fast_it_flips(project: Path, cli: Cli) -> None:
    """A writer flips the definition between the allowed version and another while calls run:
    every call runs the allowed version or is refused, never the other one."""
    good = LOOK
    bad = LOOK.replace("looked", "EVIL")
    path = write(project / "tools" / "look.yaml", good)
    allow(project, cli, "look")
    outputs = calls_while_flipping(path, [bad, good], "look")
    assert not any("EVIL" in out for out in outputs), outputs
    assert any(out == "looked" for out in outputs)


SH_TOOL = "#!/bin/sh\n# cogtools-tool\n# description: Say.\n# risk_level: low\n# side_effects: []\n\necho {word}\n"
PY_TOOL = "#!/usr/bin/env python3\n# cogtools-tool\n# description: Say.\n# risk_level: low\n# side_effects: []\n\nprint('{word}')\n"
COMMAND_TOOL = "description: Say.\nrisk_level: low\nside_effects: []\nimplementation: {kind: command, argv: [sh, scripts/say.sh]}\n"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("flipped", "files"),
    [
        ("tools/say.sh", {"tools/say.sh": SH_TOOL}),
        ("tools/say.py", {"tools/say.py": PY_TOOL}),
        ("scripts/say.sh", {"tools/say.yaml": COMMAND_TOOL, "scripts/say.sh": "echo {word}\n"}),
    ],
)
def test_a_pinned_script_runs_only_the_checked_bytes_however_fast_it_flips(
    project: Path, cli: Cli, flipped: str, files: dict[str, str]
) -> None:
    """The issue's race, for what an interpreter reads: a script tool's own file, and the script
    a command runs. The program sees the bytes the pin check read, at the script's own path
    (cogtools.run.bind, with bubblewrap), so every call prints the allowed word or is refused,
    never the other one; a flip by rename (a new file over the path) included."""
    from cogtools.run.bind import bwrap

    if bwrap() is None:
        if os.environ.get("CI"):
            pytest.fail("bubblewrap is not installed, or cannot make a namespace here")
        pytest.skip("bubblewrap is not installed, or cannot make a namespace here")
    for name, text in files.items():
        write(project / name, text.replace("{word}", "good"), mode=0o755)
    allow(project, cli, "say")
    assert run_script("cogtools-call", "say", stdin="{}").stdout == "good\n"
    versions = [files[flipped].replace("{word}", word) for word in ("EVIL", "good")]
    outputs: list[str] = []
    for _ in range(3):  # (on a busy machine every call of a round may meet a flip, and be refused)
        outputs += calls_while_flipping(project / flipped, versions, "say")
        if "good\n" in outputs:
            break
    assert not any("EVIL" in out for out in outputs), [out for out in outputs if "EVIL" in out]
    assert "good\n" in outputs


def test_a_pin_of_an_older_cogtools_holds_while_the_tool_runs_nothing_else(project: Path, cli: Cli) -> None:
    write(project / "tools" / "look.yaml", LOOK)
    write(project / "scripts" / "count.sh", "echo 3\n")
    write(
        project / "tools" / "count.yaml",
        "description: Count.\nimplementation: {kind: command, argv: [sh, scripts/count.sh]}\n",
    )
    allow(project, cli, "look", "count")
    pins = next((Path(os.environ["XDG_STATE_HOME"]) / "cogtools" / "pins").glob("*.json"))
    document = json.loads(pins.read_text())
    for pin in document["pins"].values():
        del pin["closure"]  # as the second release wrote them
    pins.write_text(json.dumps(document))
    assert cli(call.main, "look", stdin="{}").stdout == "looked"
    refused = cli(call.main, "count", stdin="{}")
    assert refused.status != 0 and "scripts/count.sh" in refused.stderr and "never reviewed" in refused.stderr


def test_a_workspace_env_past_the_size_limit_still_is_not_the_users_word(project: Path) -> None:
    """Past cogtools' size limit: Gemini CLI reads it whole, so every trust variable is taken as
    set by it."""
    from cogtools.core.environment import set_by_workspace

    (project / ".env").write_text("COGTOOLS_ROLE=admin\n" + "# padding\n" * 200_000)
    found = set_by_workspace(project, {**os.environ, "COGTOOLS_ROLE": "admin"})
    assert found["COGTOOLS_ROLE"] == str(project / ".env")


@pytest.mark.skipif(os.geteuid() == 0, reason="root looks into a directory of mode 0 all the same")
def test_a_workspace_env_behind_an_unreadable_directory_is_still_found(project: Path) -> None:
    """A .gemini made unreadable: cogtools must not give up where Gemini CLI goes on to .env."""
    from cogtools.core.environment import set_by_workspace

    (project / ".env").write_text("COGTOOLS_ROLE=admin\n")
    (project / ".gemini").mkdir()
    (project / ".gemini").chmod(0)
    try:
        found = set_by_workspace(project, {**os.environ, "COGTOOLS_ROLE": "admin"})
    finally:
        (project / ".gemini").chmod(0o755)
    assert found["COGTOOLS_ROLE"] == str(project / ".env")


def test_a_fifo_in_place_of_a_module_refuses_instead_of_hanging(project: Path, cli: Cli) -> None:
    write(project / ".cogtoolrc.yaml", "python_path: [lib]\n")
    write(project / "lib" / "mathx.py", "def double(n):\n    return 2 * n\n")
    write(
        project / "tools" / "double.yaml",
        "description: Double.\nrisk_level: low\nside_effects: []\n"
        "parameters:\n  n: {type: integer, description: A number.}\n"
        "implementation: {kind: python, callable: 'mathx:double'}\n",
    )
    allow(project, cli, "double")
    os.mkfifo(project / "lib" / "helper.py")
    result = run_script("cogtools-call", "double", stdin='{"n": 2}', timeout=20)
    assert result.status != 0 and "lib/helper.py" in result.stderr and "POLICY_DENIED" in result.stderr


def test_the_git_configuration_a_pinned_git_tool_runs_under_is_pinned(project: Path, cli: Cli) -> None:
    """Found by an attacker's pass: a pinned ``git status`` ran the program that
    ``core.fsmonitor`` in the workspace's .git/config names."""
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    write(
        project / "tools" / "status.yaml",
        "description: Status.\nrisk_level: low\nside_effects: [filesystem_read]\n"
        "implementation: {kind: command, argv: [git, status, --short]}\n",
    )
    allow(project, cli, "status")
    assert cli(call.main, "status", stdin="{}").status == 0
    with (project / ".git" / "config").open("a") as f:
        f.write(f"[core]\n\tfsmonitor = touch {project / 'pwned'}\n")
    result = cli(call.main, "status", stdin="{}")
    assert result.status != 0 and ".git/config" in result.stderr and "POLICY_DENIED" in result.stderr
    assert not (project / "pwned").exists()


def test_a_pinned_python_tool_still_imports_what_is_installed(project: Path, cli: Cli) -> None:
    """A module of cogtools' own interpreter (its packages, which may be a virtual environment in
    a checkout) is not python_path: it is imported as usual, not refused; and PYTHONPATH (which
    a workspace's .env can set for the client) is not read by the function's process (-I)."""
    write(project / ".cogtoolrc.yaml", "python_path: [lib]\n")
    write(
        project / "lib" / "mathx.py",
        "def double(n):\n    import yaml\n    try:\n        import vendored\n    except ImportError:\n"
        "        return yaml.safe_load(str(2 * n))\n    return -1\n",
    )
    write(project / "site" / "vendored.py", "def twice(n):\n    return 2 * n\n")
    write(project / "tools" / "double.yaml", DOUBLE)
    allow(project, cli, "double")
    env = {**os.environ, "PYTHONPATH": str(project / "site")}
    result = run_script("cogtools-call", "double", stdin='{"n": 2}', env=env)
    assert result.stdout.strip() == "4", result.stderr


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (
            "who.sh",
            '#!/bin/bash\n# cogtools-tool\n# description: Who.\n# risk_level: low\n# side_effects: []\n\nmain() { echo "main $0 ${BASH_SOURCE[0]} $(dirname "${BASH_SOURCE[0]}")"; }\n'
            'if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then main "$@"; fi\nnosuchcommand 2>&1 | sed "s/line [0-9]*/line N/"\n',
        ),
        (
            "who.py",
            "#!/usr/bin/env python3\n# cogtools-tool\n# description: Who.\n# risk_level: low\n# side_effects: []\n\n"
            "import os, sys\nprint(__name__, __file__, sys.argv, sys.path[0] == os.path.dirname(os.path.realpath(__file__)))\n"
            "print(type(__loader__).__name__, open(__file__).read().count('cogtools-tool'))\n",
        ),
    ],
)
def test_a_pinned_script_behaves_as_it_does_run_by_path(project: Path, cli: Cli, name: str, text: str) -> None:
    """Running from the checked bytes changes nothing a script can see: $0, BASH_SOURCE and its
    main guard, __file__, sys.path[0], its loader, reading its own file, error messages."""
    path = write(project / "tools" / name, text, mode=0o755)
    allow(project, cli, "who")
    direct = subprocess.run([str(path)], input=b"{}", capture_output=True, cwd=project)
    pinned = run_script("cogtools-call", "who", stdin="{}")
    assert pinned.status == 0, pinned.stderr
    assert pinned.stdout == direct.stdout.decode()


@pytest.mark.parametrize("move", ["commondir", "hook", "include"])
def test_what_else_makes_a_pinned_git_run_another_program_is_pinned(project: Path, cli: Cli, move: str) -> None:
    """Found by a second attacker's pass: a .git/commondir pointing at another configuration, a
    new hook, and a file the configuration includes all let a pinned git tool run the agent's
    program."""
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    config = project / ".git" / "config"
    config.write_text(config.read_text() + "[include]\n\tpath = extra.cfg\n")
    write(project / ".git" / "extra.cfg", "")
    write(
        project / "tools" / "commit.yaml",
        "description: Commit.\nrisk_level: low\nside_effects: [filesystem_write]\n"
        "implementation: {kind: command, argv: [git, commit, -q, --allow-empty, -m, x]}\n",
    )
    allow(project, cli, "commit")
    evil = f"touch {project / 'pwned'}"
    if move == "commondir":
        (project / ".evil").mkdir()
        (project / ".evil" / "config").write_text(config.read_text() + f"[core]\n\tfsmonitor = {evil}\n")
        (project / ".git" / "commondir").write_text("../.evil\n")
    elif move == "hook":
        write(project / ".git" / "hooks" / "pre-commit", f"#!/bin/sh\n{evil}\n", mode=0o755)
    else:
        write(project / ".git" / "extra.cfg", f"[core]\n\tfsmonitor = {evil}\n")
    result = cli(call.main, "commit", stdin="{}")
    assert result.status != 0 and "POLICY_DENIED" in result.stderr, result
    assert not (project / "pwned").exists()


def test_what_a_pinned_script_sources_or_imports_beside_it_is_pinned(project: Path, cli: Cli) -> None:
    """Found by a second attacker's pass: a script tool sourcing a sibling (shell) or importing
    one (Python) ran the agent's edit of it with no refusal."""
    header = "# cogtools-tool\n# description: {d}.\n# risk_level: low\n# side_effects: []\n\n"
    write(project / "tools" / "lib.sh", "greet() { echo hello; }\n")
    write(
        project / "tools" / "greet.sh",
        "#!/bin/sh\n" + header.format(d="Greet") + '. "$(dirname "$0")/lib.sh"\ngreet\n',
        0o755,
    )
    write(project / "tools" / "helper.py", "WORD = 'hello'\n")
    write(
        project / "tools" / "say.py",
        "#!/usr/bin/env python3\n" + header.format(d="Say") + "import helper\nprint(helper.WORD)\n",
        0o755,
    )
    allow(project, cli, "greet", "say")
    assert cli(call.main, "greet", stdin="{}").stdout == "hello\n"
    assert cli(call.main, "say", stdin="{}").stdout == "hello\n"
    write(project / "tools" / "lib.sh", "greet() { echo PWNED; }\n")
    write(project / "tools" / "helper.py", "WORD = 'PWNED'\n")
    for name, file in (("greet", "tools/lib.sh"), ("say", "tools/helper.py")):
        result = cli(call.main, name, stdin="{}")
        assert result.status != 0 and "PWNED" not in result.stdout and file in result.stderr, result


def test_a_compiled_sibling_of_a_pinned_python_script_does_not_run(project: Path, cli: Cli) -> None:
    """A .pyc stamped to match an unchanged sibling module: the pinned script imports the
    checked source (bubblewrap shows its directory without __pycache__)."""
    import importlib.util
    import py_compile

    from cogtools.run.bind import bwrap

    if bwrap() is None:
        if os.environ.get("CI"):
            pytest.fail("bubblewrap is not installed, or cannot make a namespace here")
        pytest.skip("bubblewrap is not installed, or cannot make a namespace here")
    header = "# cogtools-tool\n# description: Say.\n# risk_level: low\n# side_effects: []\n\n"
    helper = write(project / "tools" / "helper.py", "WORD = 'hello'\n")
    write(
        project / "tools" / "say.py", "#!/usr/bin/env python3\n" + header + "import helper\nprint(helper.WORD)\n", 0o755
    )
    allow(project, cli, "say")
    stamp = helper.stat().st_mtime
    helper.write_text("WORD = 'PWND!'\n")
    os.utime(helper, (stamp, stamp))
    py_compile.compile(str(helper), cfile=importlib.util.cache_from_source(str(helper)))
    helper.write_text("WORD = 'hello'\n")
    os.utime(helper, (stamp, stamp))
    assert cli(call.main, "say", stdin="{}").stdout == "hello\n"


@pytest.mark.slow
def test_a_pinned_call_does_not_build_its_tool_again(project: Path, cli: Cli) -> None:
    """A pin check that finds the bytes as they were allowed takes the tool the cache built from
    those very bytes (its digest is kept with it) instead of parsing and checking the
    definition again: a pinned template call costs what an unpinned one does (no YAML parser,
    no Jinja2, no schema check imported)."""
    import sys
    import time

    from cogtools.load.cache import RACY_SECONDS

    write(project / "tools" / "look.yaml", LOOK)
    allow(project, cli, "look")
    time.sleep(RACY_SECONDS + 0.5)  # a file changed just now is read again by every call
    probe = (
        "import sys; from cogtools.cli.call import main; code = main(['look']);"
        " print(sorted(m for m in ('yaml', 'jinja2', 'jsonschema_rs') if m in sys.modules), file=sys.stderr);"
        " sys.exit(code)"
    )
    for _ in range(2):  # the first fills the cache
        done = subprocess.run([sys.executable, "-c", probe], input=b"{}", cwd=project, capture_output=True, text=False)
    assert done.returncode == 0 and done.stdout == b"looked", done
    assert done.stderr.decode().strip().splitlines()[-1] == "[]", done.stderr
