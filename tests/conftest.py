"""Shared fixtures. Every test runs isolated from the developer's machine: HOME, the XDG
directories, the working directory and cogtools' own environment variables point into a fresh
temporary directory (autouse), so no test reads or writes a real cache or configuration."""

from __future__ import annotations

import atexit
import gc
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import typing as t
from pathlib import Path

import pytest
from hypothesis import settings

#: Hypothesis runs a quick profile by default, for the loop of a person changing code, and the
#: thorough one where ``HYPOTHESIS_PROFILE=thorough`` (CI: ``.ci/run``) or ``--hypothesis-profile``
#: says so. A test that asks for a number of examples gets it in full from the thorough profile
#: and a tenth of it from the quick one (:func:`examples`).
settings.register_profile("thorough", max_examples=100)
settings.register_profile("quick", max_examples=20)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "quick"))


def examples(thorough: int) -> int:
    """How many examples a property test runs: ``thorough`` in the thorough profile, a tenth of
    it (at least 10) otherwise."""
    current = settings.default
    return thorough if current is not None and current.max_examples >= 100 else max(10, thorough // 10)


REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
#: The seed documents beside the checkout (../shared/seeds), as CI and every session have them.
SEEDS = REPO.parent / "shared" / "seeds"
BIN = Path(sys.executable).parent
#: The developer's home, read before any test isolates HOME (for caches outside the clone).
REAL_HOME = os.path.expanduser("~")


def _isolate(home: Path, setenv: t.Callable[[str, str], None], delenv: t.Callable[[str], None]) -> None:
    """Point HOME and the XDG directories into ``home`` and drop cogtools' own variables."""
    for key in list(os.environ):
        if key.startswith("COGTOOLS_"):
            delenv(key)
    setenv("HOME", str(home))
    for name, sub in (
        ("XDG_CACHE_HOME", ".cache"),
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_STATE_HOME", ".local/state"),
    ):
        setenv(name, str(home / sub))


# What runs while tests are collected (module-level catalogs) is isolated too: from here on, this
# process never sees the developer's HOME; each test then gets a home of its own (below).
_SESSION_HOME = Path(tempfile.mkdtemp(prefix="cogtools-tests-home-"))
atexit.register(shutil.rmtree, _SESSION_HOME, True)
_isolate(_SESSION_HOME, os.environ.__setitem__, os.environ.__delitem__)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Freeze what is left once the session is over: a worker ends with some 600,000 objects,
    and the collections of interpreter shutdown would walk them all again (about 4 s of an
    ``-n 2`` run spent after the last test)."""
    gc.freeze()


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    _isolate(home, monkeypatch.setenv, monkeypatch.delenv)
    # Only this interpreter's scripts and the system's programs (node, groff) are found.
    monkeypatch.setenv("PATH", os.pathsep.join([str(BIN), "/usr/local/bin", "/usr/bin", "/bin"]))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


def write(path: Path, text: str, mode: int | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    if mode is not None:
        path.chmod(mode)
    return path


@pytest.fixture
def project(isolated: Path) -> Path:
    """An empty project (it has a ``.cogtoolrc.yaml``) as the working directory."""
    (isolated / ".cogtoolrc.yaml").write_text("# test project\n")
    (isolated / "tools").mkdir()
    return isolated


ECHO_TOOL = """\
    name: echo
    description: Say something back.
    parameters:
      text:
        type: string
        description: What to say.
      times:
        type: integer
        minimum: 1
        maximum: 3
        default: 1
        optional: true
        description: How many times.
      shout:
        type: boolean
        optional: true
        description: Upper-case it.
    examples:
      - text: hello
    implementation: "{% for _ in range(times) %}{{ text | upper if shout else text }}\\n{% endfor %}"
    """


@pytest.fixture
def echo_project(project: Path) -> Path:
    write(project / "tools" / "echo.yaml", ECHO_TOOL)
    return project


class Result(t.NamedTuple):
    status: int
    stdout: str
    stderr: str

    def json(self) -> t.Any:
        return json.loads(self.stdout)


Cli = t.Callable[..., Result]


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> t.Callable[..., Result]:
    """Run an entry point's ``main(argv)`` in process, with ``stdin`` (bytes or str) as input."""

    def invoke(main: t.Callable[[list[str]], int], *argv: str, stdin: bytes | str = b"") -> Result:
        data = stdin.encode() if isinstance(stdin, str) else stdin
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
        capfd.readouterr()
        status = main(list(argv))
        out, err = capfd.readouterr()
        return Result(status, out, err)

    return invoke


def run_script(
    name: str,
    *args: str,
    stdin: str | bytes = "",
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 60,
) -> Result:
    """Run an installed console script (next to this interpreter) as a real process."""
    data = stdin.encode() if isinstance(stdin, str) else stdin
    proc = subprocess.run(
        [str(BIN / name), *args],
        input=data,
        capture_output=True,
        cwd=cwd,
        env=env,
        timeout=timeout,
    )
    return Result(proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace"))
