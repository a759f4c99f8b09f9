"""Colour where a person reads: on a terminal only, never with NO_COLOR or TERM=dumb, and never
in what a program reads (a pipe, Gemini CLI's call)."""

from __future__ import annotations

import os
import pty
import subprocess
from pathlib import Path

import pytest

from .conftest import BIN, write

RED, GREEN, YELLOW, RESET = "\x1b[1;31m", "\x1b[32m", "\x1b[33m", "\x1b[0m"


def on_a_terminal(argv: list[str], cwd: Path, **env: str) -> str:
    """What ``argv`` writes to a terminal (stdout and stderr both on a pseudo-terminal)."""
    main, secondary = pty.openpty()
    environ = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM")}
    environ.update({"TERM": "xterm", **env})
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=secondary, stderr=secondary, cwd=cwd, env=environ)
    os.close(secondary)
    out = b""
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the other end closed
            break
        if not chunk:
            break
        out += chunk
    os.close(main)
    proc.wait(timeout=60)
    return out.decode("utf-8", "replace")


@pytest.fixture
def failing(project: Path) -> Path:
    write(project / "tools" / "ok.yaml", "description: Fine.\nimplementation: fine\nexamples:\n  - {}\n")
    write(project / "tools" / "bad.yaml", "description: Bad.\nimplementation: '{{ 1 // 0 }}'\nexamples:\n  - {}\n")
    return project


@pytest.mark.slow
def test_reports_are_coloured_on_a_terminal(failing: Path) -> None:
    tested = on_a_terminal([str(BIN / "cogtools"), "test"], failing)
    assert f"{RED}FAIL{RESET} bad[0]" in tested and f"{GREEN}PASS{RESET} ok[0]" in tested
    doctor = on_a_terminal([str(BIN / "cogtools"), "doctor", "--no-discovery"], failing)
    assert f"{GREEN}ok{RESET}       project:" in doctor
    called = on_a_terminal([str(BIN / "cogtools-call"), "nope"], failing)
    assert f"cogtools-call: {RED}error{RESET}: TOOL_NOT_FOUND" in called
    linted = on_a_terminal([str(BIN / "cogtools"), "lint"], failing)
    assert f": {YELLOW}warning{RESET}[" in linted


@pytest.mark.slow
@pytest.mark.parametrize("env", [{"NO_COLOR": "1"}, {"TERM": "dumb"}])
def test_no_colour_when_asked_or_the_terminal_cannot(failing: Path, env: dict[str, str]) -> None:
    for argv in (["cogtools", "test"], ["cogtools", "doctor", "--no-discovery"], ["cogtools-call", "nope"]):
        shown = on_a_terminal([str(BIN / argv[0]), *argv[1:]], failing, **env)
        assert "\x1b[" not in shown and ("FAIL" in shown or "ok" in shown or "error" in shown)


def test_no_colour_in_a_pipe(failing: Path) -> None:
    for argv in (["cogtools", "test"], ["cogtools-call", "nope"]):
        done = subprocess.run(
            [str(BIN / argv[0]), *argv[1:]],
            capture_output=True,
            text=True,
            cwd=failing,
            env={**os.environ, "TERM": "xterm"},
        )
        assert "\x1b[" not in done.stdout + done.stderr


def test_a_hostile_description_cannot_bring_its_own_colours(project: Path) -> None:
    """The escaping happens first: only cogtools' own colours reach the terminal."""
    write(project / "tools" / "x.yaml", 'description: "\\e[32mPASS\\e[0m fake"\nimplementation: x\nexamples:\n  - {}\n')
    shown = on_a_terminal([str(BIN / "cogtools"), "list"], project)
    assert "\x1b[32mPASS" not in shown
