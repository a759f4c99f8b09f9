"""The installed console scripts as real processes: what a shell, a shebang and Gemini CLI see.

What does not depend on the process (the porcelain's listing, its built-ins, its usage errors, help
without man(1)) runs in process (``cli``). The real processes kept: every script's --help and
--version (``test_help_and_version``), ``cogtools --help`` without click
(``test_help_without_click_is_the_help_click_prints``), ``cogtools-call`` through a shell pipe, its
errors and its stdin (``test_call_through_a_shell_pipe``, ``test_errors_as_a_process``,
``test_stdin_is_drained_even_when_the_call_fails_early``), ``cogtools-discover``
(``test_discover_as_a_process_keeps_stdout_clean``), ``cogtools-yaml`` (``test_help_and_version``), the
exec of an external command and of man(1) (``test_porcelain_dispatches_to_external_commands``,
``test_help_finds_the_file_format_pages``) and a terminal
(``test_on_a_terminal_...``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from cogtools import __version__
from cogtools.cli import call, discover, porcelain
from cogtools.cli.commands import BUILTINS
from cogtools.core.errors import ERROR_TABLE

from .conftest import BIN, EXAMPLES, Cli, run_script, write

SCRIPTS = ["cogtools", "cogtools-discover", "cogtools-call", "cogtools-yaml"]
STATUS = {code: status for code, status, _ in ERROR_TABLE}
FACEPALM_ARGS = {"facepalm": "F", "what_happened": "W", "but_really": "B", "therefore": "T", "next": "N"}


def env_with_bin(extra: list[Path] | None = None) -> dict[str, str]:
    path = os.pathsep.join([*(str(p) for p in extra or []), str(BIN), os.environ.get("PATH", "")])
    return {**os.environ, "PATH": path}


@pytest.mark.parametrize("script", SCRIPTS)
def test_help_and_version(script: str) -> None:
    result = run_script(script, "--help")
    assert result.status == 0 and result.stdout.startswith(f"Usage: {script} ") and result.stderr == ""
    assert run_script(script, "--version") == (0, f"{script} {__version__}\n", "")


@pytest.mark.slow
@pytest.mark.parametrize("sub", sorted(porcelain.group.commands))
def test_every_subcommand_has_help_and_version(sub: str, isolated: Path) -> None:
    result = run_script("cogtools", sub, "--help")
    assert result.status == 0 and result.stdout.startswith(f"Usage: cogtools {sub} ") and result.stderr == ""
    assert run_script("cogtools", sub, "-V") == (0, f"cogtools {sub} {__version__}\n", "")


@pytest.mark.parametrize("sub", sorted(BUILTINS))
def test_the_short_help_written_for_help_is_the_commands_own(sub: str) -> None:
    assert porcelain.group.commands[sub].get_short_help_str(200) == BUILTINS[sub][2]


@pytest.mark.parametrize("columns", ["40", "80", "100", "160"])
def test_help_without_click_is_the_help_click_prints(
    external: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch, columns: str
) -> None:
    """``cogtools --help`` is laid out without click (cogtools.cli.commands); it is the text click
    would print (the porcelain's click group, in process), at any terminal width, with external
    commands on PATH (a long name among them)."""
    write(external / "cogtools-a-subcommand-whose-name-is-long", "#!/bin/sh\n", mode=0o755)
    env = {**env_with_bin([external]), "COLUMNS": columns}
    monkeypatch.setenv("PATH", env["PATH"])
    monkeypatch.setenv("COLUMNS", columns)
    by_click = cli(porcelain.main, "--help")
    assert by_click.status == 0
    for option in ("--help", "-h"):
        fast = run_script("cogtools", option, env=env)
        assert fast == (0, by_click.stdout, "")
    assert "\n  a-subcommand-whose-name-is-long\n" in by_click.stdout and "\n  hello " in by_click.stdout


def test_help_without_click_imports_no_click(external: Path) -> None:
    """(the part of the test above that needs a fresh process, whatever the width)"""
    env = env_with_bin([external])
    probe = "import sys, runpy; sys.argv = ['cogtools', '--help']; from cogtools.cli.entry import main; main(); print('click' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env).stdout.endswith(
        "\nFalse\n"
    )


def test_version_and_help_import_no_subcommand() -> None:
    """Every cogtools is a fresh process: --version and --help load no built-in's module."""
    probe = (
        "import sys; from cogtools.cli import porcelain; porcelain.main(sys.argv[1:]);"
        "print(sorted(m for m in sys.modules if m.startswith('cogtools.cli.') and m not in"
        " ('cogtools.cli.porcelain', 'cogtools.cli.commands', 'cogtools.cli.common', 'cogtools.cli.boundary',"
        " 'cogtools.cli.streams')))"
    )
    for option in ("--version", "--help"):
        proc = subprocess.run([sys.executable, "-c", probe, option], capture_output=True, text=True)
        assert proc.returncode == 0 and proc.stdout.splitlines()[-1] == "[]", proc.stdout + proc.stderr


def test_python_dash_m() -> None:
    proc = subprocess.run([sys.executable, "-m", "cogtools", "--version"], capture_output=True, text=True)
    assert (proc.returncode, proc.stdout) == (0, f"cogtools {__version__}\n")


def test_call_through_a_shell_pipe(isolated: Path) -> None:
    shutil.copytree(EXAMPLES, isolated / "examples")
    proc = subprocess.run(
        ["sh", "-c", f"echo '{json.dumps(FACEPALM_ARGS)}' | cogtools-call facepalm"],
        cwd=isolated / "examples",
        env=env_with_bin(),
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout.startswith("# Facepalm\n\nF\n")
    assert "## Remarks" not in proc.stdout


def test_the_tool_file_runs_itself(isolated: Path) -> None:
    tool = EXAMPLES / "tools" / "facepalm.yaml"
    assert os.access(tool, os.X_OK), "examples/tools/facepalm.yaml must keep its run bit"
    args = write(isolated / "args.json", json.dumps({**FACEPALM_ARGS, "remarks": "R"}))
    with open(args, "rb") as stdin:
        proc = subprocess.run([str(tool)], stdin=stdin, env=env_with_bin(), capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout.endswith("## Next\n\nN\n\n\n## Remarks\n\nR\n\n\n")


def test_errors_as_a_process(isolated: Path) -> None:
    shutil.copytree(EXAMPLES, isolated / "examples")
    result = run_script("cogtools-call", "facepalm", stdin="[]", cwd=isolated / "examples")
    assert result.status == STATUS["INVALID_INPUT"]
    assert result.json()["error"]["code"] == "INVALID_INPUT"
    assert result.stderr == "cogtools-call: error: INVALID_INPUT: the arguments must be an object, not array\n"


def test_stdin_is_drained_even_when_the_call_fails_early(isolated: Path) -> None:
    """A caller writing a large input never meets a closed pipe (Gemini CLI would crash)."""
    proc = subprocess.Popen(
        [str(BIN / "cogtools-call"), "--no-such-option"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    failures: list[BaseException] = []

    def feed() -> None:
        try:
            assert proc.stdin is not None
            proc.stdin.write(b'{"x": "' + b"a" * (8 * 1024 * 1024) + b'"}')
            proc.stdin.close()
        except BaseException as e:  # noqa: BLE001 - a broken pipe is the failure under test
            failures.append(e)

    writer = threading.Thread(target=feed)
    writer.start()
    out, _ = proc.communicate(timeout=60)
    writer.join()
    assert failures == []
    assert proc.returncode == STATUS["USAGE"]
    assert json.loads(out)["error"]["code"] == "USAGE"


def test_discover_as_a_process_keeps_stdout_clean(isolated: Path) -> None:
    shutil.copytree(EXAMPLES, isolated / "examples")
    write(isolated / "examples" / "tools" / "broken.yaml", "nope\n")
    result = run_script("cogtools-discover", cwd=isolated / "examples")
    assert result.status == 0
    names = [d["name"] for d in json.loads(result.stdout)]
    assert "facepalm" in names and "broken" not in names
    assert "skipped: DEFINITION_INVALID: tools/broken.yaml" in result.stderr


# -- the porcelain --------------------------------------------------------------------------


@pytest.fixture
def external(tmp_path: Path) -> Path:
    """A directory with an external subcommand ``cogtools-hello`` that echoes its arguments and
    exits 7."""
    bin_dir = tmp_path / "ext-bin"
    write(
        bin_dir / "cogtools-hello",
        f"#!{sys.executable}\nimport sys\nprint('hello', sys.argv[1:])\nsys.exit(7)\n",
        mode=0o755,
    )
    return bin_dir


def test_porcelain_dispatches_to_external_commands(external: Path) -> None:
    env = env_with_bin([external])
    result = run_script("cogtools", "hello", "--help", "-x", "a b", env=env)
    assert result.status == 7
    assert result.stdout == "hello ['--help', '-x', 'a b']\n"
    help_text = run_script("cogtools", "--help", env=env).stdout
    for sub in ("call", "discover", "help", "list", "hello", "yaml"):
        assert f"\n  {sub} " in help_text
    assert run_script("cogtools", "help", "hello", env=env).stdout == "hello ['--help']\n"


def test_porcelain_unknown_command_suggests(external: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", env_with_bin([external])["PATH"])
    result = cli(porcelain.main, "helo")
    assert result.status == STATUS["USAGE"] and result.stdout == ""
    assert "'helo' is not a cogtools command; did you mean 'hello' or 'help'?" in result.stderr
    from cogtools.cli.porcelain import group

    expected = sorted({*group.commands, "hello", "yaml"})
    assert f"Commands: {', '.join(expected)} (try 'cogtools --help')" in result.stderr
    far = cli(porcelain.main, "xyzzy")
    assert far.stderr.startswith("cogtools: error: USAGE: 'xyzzy' is not a cogtools command. Commands: ")


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["search"], "cogtools search"),
        (["list", "--bogus"], "cogtools list"),
        (["--bogus"], "cogtools"),
        (["cogtools-call", "--bogus"], "cogtools-call"),
    ],
)
def test_a_usage_error_points_to_the_help_of_the_command_that_failed(
    isolated: Path, cli: Cli, argv: list[str], hint: str
) -> None:
    script, *args = argv if argv[0].startswith("cogtools-") else ["cogtools", *argv]
    result = cli({"cogtools": porcelain.main, "cogtools-call": call.main}[script], *args)
    assert result.status == STATUS["USAGE"]
    assert result.stderr.rstrip().endswith(f"(try '{hint} --help')")


def test_porcelain_builtins(isolated: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(EXAMPLES, isolated / "examples")
    monkeypatch.chdir(isolated / "examples")
    listing = cli(porcelain.main, "list")
    assert listing.status == 0
    assert any(
        line.split()[0] == "facepalm" and "tools/facepalm.yaml (local:./tools)" in line
        for line in listing.stdout.splitlines()
    )
    assert json.loads(cli(porcelain.main, "discover").stdout) == json.loads(cli(discover.main).stdout)
    called = cli(porcelain.main, "call", "facepalm", stdin=json.dumps(FACEPALM_ARGS))
    assert called.status == 0 and called.stdout.startswith("# Facepalm")
    monkeypatch.setenv("PATH", str(BIN))  # no man(1)
    assert cli(porcelain.main, "help", "list").stdout.startswith("Usage: cogtools list")
    assert cli(porcelain.main, "help").stdout.startswith("Usage: cogtools ")
    assert cli(porcelain.main, "help", "cogtools").stdout.startswith("Usage: cogtools ")


def test_help_without_a_command_lists_them_all_with_man_installed(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As ``git help`` does: the built-in and the external commands, not a page."""
    fake = write(tmp_path / "bin" / "man", '#!/bin/sh\necho man "$@"\n', mode=0o755)
    write(tmp_path / "bin" / "cogtools-extra", "#!/bin/sh\n", mode=0o755)
    monkeypatch.setenv("PATH", os.pathsep.join([str(fake.parent), str(BIN)]))
    monkeypatch.chdir(tmp_path)
    listed = cli(porcelain.main, "help").stdout
    assert listed.startswith("Usage: cogtools ") and "man -l" not in listed
    assert "  lint " in listed and "  extra " in listed


@pytest.mark.parametrize(
    ("args", "page"),
    [
        (("cogtools",), "cogtools"),
        (("call",), "cogtools-call"),
        (("discover",), "cogtools-discover"),
        (("init",), "cogtools-init"),
        (("help",), "cogtools-help"),
    ],
)
def test_help_shows_the_man_page(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...], page: str
) -> None:
    """(In process: man(1) is run, not exec'd, which would replace this process;
    ``test_help_finds_the_file_format_pages`` keeps the real exec.)"""
    fake = write(tmp_path / "bin" / "man", '#!/bin/sh\necho man "$@"\n', mode=0o755)
    monkeypatch.setenv("PATH", os.pathsep.join([str(fake.parent), str(BIN)]))
    monkeypatch.setattr(porcelain, "_exec", lambda path, argv: subprocess.call([path, *argv]))
    result = cli(porcelain.main, "help", *args)
    assert result.status == 0
    shown = result.stdout.split()
    assert shown[:2] == ["man", "-l"] and shown[2].endswith(f"/{page}.1") and Path(shown[2]).is_file()


@pytest.mark.parametrize(
    ("topic", "page"), [("tool", "cogtools-tool.5"), ("cogtoolrc", "cogtoolrc.5"), ("config-file", "cogtoolrc.5")]
)
def test_help_finds_the_file_format_pages(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch, topic: str, page: str
) -> None:
    """The hint of a definition error says `cogtools help tool`: it shows the section-5 page
    (man(1) replaces the real process; the rest runs in process)."""
    fake = write(tmp_path / "bin" / "man", '#!/bin/sh\necho man "$@"\n', mode=0o755)
    env = {**os.environ, "PATH": os.pathsep.join([str(fake.parent), str(BIN)])}
    shown = run_script("cogtools", "help", topic, env=env).stdout.split()
    assert shown[:2] == ["man", "-l"] and shown[2].endswith(f"/{page}") and Path(shown[2]).is_file()
    monkeypatch.setenv("PATH", str(BIN))
    no_man = cli(porcelain.main, "help", topic)
    assert no_man.status == 0 and "is at " in no_man.stdout
    monkeypatch.setenv("PATH", env["PATH"])
    unknown = cli(porcelain.main, "help", "tooll")
    assert unknown.status != 0 and "Topics: cogtoolrc, config-file, tool." in unknown.stderr


def _on_a_terminal(argv: list[str], cwd: Path, typed: bytes = b"") -> str:
    """What ``argv`` shows on a terminal (stdin, stdout and stderr a pseudo-terminal), ``typed``
    typed at it and then Ctrl-D."""
    import pty
    import select
    import time

    leader, follower = pty.openpty()
    proc = subprocess.Popen(argv, stdin=follower, stdout=follower, stderr=follower, cwd=cwd, close_fds=True)
    os.close(follower)
    shown = b""
    deadline = time.monotonic() + 30
    sent = False
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
        if not sent and (b"reading the arguments" in shown or proc.poll() is not None):
            os.write(leader, typed + b"\x04")
            sent = True
        if proc.poll() is not None and not ready:
            break
    proc.wait(timeout=10)
    os.close(leader)
    return shown.decode("utf-8", "replace").replace("\r\n", "\n")


def test_on_a_terminal_call_says_what_it_waits_for_and_ends_the_result_with_a_newline(echo_project: Path) -> None:
    write(echo_project / "tools" / "bare.yaml", "description: d\nimplementation: no newline\n")
    shown = _on_a_terminal([str(BIN / "cogtools-call"), "bare"], echo_project)
    assert "cogtools-call: reading the arguments (a JSON object) from the terminal; end with Ctrl-D" in shown
    assert shown.endswith("no newline\n")
    piped = run_script("cogtools-call", "bare", cwd=echo_project)
    assert piped.stdout == "no newline" and piped.stderr == ""  # a pipe gets the bytes, and no prompt


def test_yaml_is_a_built_in_command_not_an_external_one(isolated: Path, cli: Cli) -> None:
    listed = cli(porcelain.main, "--help").stdout
    assert "yaml        Run the tool defined in a file (cogtools-yaml)." in listed and "External command" not in listed
    tool = write(
        isolated / "t.yaml", "description: d\nparameters:\n  x: {type: integer}\nimplementation: '{{ x + 1 }}'\n"
    )
    assert cli(porcelain.main, "yaml", str(tool), stdin='{"x": 1.0}').stdout == "2"
