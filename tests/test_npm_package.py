"""cogtools' npm package (npm/): built by ``npm/pack.py`` into a tarball once per module, then
used as a person would, offline: ``npx`` of the tarball, and a JavaScript project that has it as a
dev dependency and serves its tools to the real Gemini CLI core through
``node_modules/.bin/cogtools-discover`` and ``-call``.

The launchers install the wheel the tarball carries into a cached virtual environment on their
first run; its dependencies come from pip's index as configured, here a local directory of
wheels (``PIP_NO_INDEX``, ``PIP_FIND_LINKS``: pip's own configuration, passed through), downloaded
once per set of requirements into ``~/.cache/cogtools/npm-wheelhouse-KEY`` like the pinned npm
packages (under a lock, in a scratch directory moved into place once pip succeeded)."""

from __future__ import annotations

import fcntl
import hashlib
import io
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tarfile
import time
import typing as t
import zipfile
from pathlib import Path

import pytest

import cogtools

from .conftest import BIN, REAL_HOME, REPO, write
from .npm_packages import unavailable
from .test_gemini_cli import drive, gemini_core, gemini_env

pytestmark = pytest.mark.slow

__all__ = ["gemini_core"]  # a fixture, used by name

VERSION = cogtools.__version__
COMMANDS = ["cogtools", "cogtools-call", "cogtools-discover", "cogtools-yaml"]
#: The statuses of the launcher's own errors (npm/setup.sh).
PYTHON_NOT_FOUND, INSTALL_FAILED = 69, 75
PATH = os.pathsep.join([str(BIN), "/usr/local/bin", "/usr/bin", "/bin"])

HELLO = """\
description: Greet someone.
parameters:
  who: {type: string, description: Whom to greet.}
examples:
  - who: Ada
implementation: "Hello, {{ who }}!"
"""
DIVIDE = """\
description: Divide 100 by n.
parameters:
  n: {type: integer, description: The divisor.}
implementation: "{{ 100 // n }}"
"""
#: A command tool that prints the pid of the process that runs its program (cogtools-call's).
PARENT = """\
description: The pid of the process that runs this tool's program.
implementation: {kind: command, argv: [sh, -c, 'echo $PPID']}
"""


def need_npm() -> None:
    for program in ("node", "npm", "npx"):
        if shutil.which(program, path=PATH) is None:
            unavailable(f"{program} is not installed (the npm package is built and run with it)")


@pytest.fixture(scope="module")
def tarball(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``npm/pack.py``'s tarball, built once for the module."""
    need_npm()
    out = tmp_path_factory.mktemp("npm-pack")
    proc = subprocess.run(
        [sys.executable, str(REPO / "npm" / "pack.py"), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PATH": PATH},
    )
    assert proc.returncode == 0, proc.stderr
    path = Path(proc.stdout.strip())
    assert path == out / f"cogtools-{VERSION}.tgz" and path.is_file()
    return path


def wheel_of(tarball: Path) -> bytes:
    with tarfile.open(tarball) as tar:
        member = tar.extractfile(f"package/wheels/cogtools-{VERSION}-py3-none-any.whl")
        assert member is not None
        return member.read()


@pytest.fixture(scope="module")
def wheelhouse(tarball: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheels of cogtools' dependencies for this Python, so that the launchers' pip runs
    offline: downloaded once per set of requirements, Python and machine."""
    wheel = tmp_path_factory.mktemp("wheel") / f"cogtools-{VERSION}-py3-none-any.whl"
    wheel.write_bytes(wheel_of(tarball))
    with zipfile.ZipFile(wheel) as z:
        metadata = z.read(f"cogtools-{VERSION}.dist-info/METADATA").decode()
    requires = sorted(line for line in metadata.splitlines() if line.startswith("Requires-Dist:"))
    key = hashlib.sha256(
        "\n".join([*requires, "[mcp]", sys.implementation.cache_tag or "", sys.platform, platform.machine()]).encode()
    ).hexdigest()[:16]
    directory = Path(REAL_HOME) / ".cache" / "cogtools" / f"npm-wheelhouse-{key}"
    directory.parent.mkdir(parents=True, exist_ok=True)
    with open(directory.parent / f".{directory.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (directory / ".complete").exists():
            scratch = directory.parent / f".{directory.name}.partial"
            shutil.rmtree(scratch, ignore_errors=True)
            proc = subprocess.run(
                [sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check", "-d", str(scratch)]
                + [f"{wheel}[mcp]"],
                capture_output=True,
                text=True,
                timeout=900,
            )
            if proc.returncode != 0:
                shutil.rmtree(scratch, ignore_errors=True)
                unavailable(f"pip download of cogtools' dependencies failed: {proc.stderr[-2000:]}")
            for own in scratch.glob("cogtools-*.whl"):
                own.unlink()  # the tarball's own wheel is what the launchers install
            (scratch / ".complete").write_text("\n".join(requires) + "\n")
            shutil.rmtree(directory, ignore_errors=True)
            scratch.rename(directory)
    return directory


class Env:
    """The environment of a person's shell: a home and cache of their own, npm offline
    with an empty cache, and pip reading the local wheels only."""

    def __init__(self, root: Path, wheelhouse: Path) -> None:
        self.root = root
        self.cache = root / "home" / ".cache"
        self.vars = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("COGTOOLS_", "PIP_", "npm_config_"))},
            "PATH": PATH,
            "HOME": str(root / "home"),
            "XDG_CACHE_HOME": str(self.cache),
            "XDG_CONFIG_HOME": str(root / "config"),
            "npm_config_cache": str(root / "npm-cache"),
            "npm_config_offline": "true",
            "npm_config_update_notifier": "false",
            "npm_config_fund": "false",
            "npm_config_audit": "false",
            "PIP_NO_INDEX": "1",
            "PIP_FIND_LINKS": str(wheelhouse),
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        }
        (root / "home").mkdir(parents=True, exist_ok=True)

    def run(
        self, argv: list[str], cwd: Path, stdin: str = "", timeout: float = 300, **extra: str
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            argv,
            input=stdin,
            capture_output=True,
            text=True,
            cwd=cwd,
            env={**self.vars, **extra},
            timeout=timeout,
        )

    @property
    def installs(self) -> Path:
        return self.cache / "cogtools" / "npm"


def environments(installs: Path, key: str) -> list[str]:
    """The virtual environments made in the launchers' cache ``installs``."""
    return sorted(p.name for p in installs.glob(f"{key}.env-*"))


@pytest.fixture(scope="module")
def key(tarball: Path) -> str:
    """The name of the launchers' environment: the version and the start of the wheel's SHA-256."""
    return f"{VERSION}-{hashlib.sha256(wheel_of(tarball)).hexdigest()[:12]}"


def javascript_project(directory: Path, tarball: Path, env: Env) -> Path:
    """A JavaScript project with cogtools as a dev dependency (npm install --save-dev, offline)
    and two tools of its own."""
    write(directory / "package.json", '{"name": "js-fixture", "version": "1.0.0", "private": true}\n')
    write(directory / ".cogtoolrc.yaml", "# a JavaScript project's tools\n")
    write(directory / "tools" / "hello.yaml", HELLO)
    write(directory / "tools" / "divide.yaml", DIVIDE)
    write(directory / "tools" / "parent.yaml", PARENT)
    proc = env.run(["npm", "install", "--save-dev", "--offline", str(tarball)], directory)
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((directory / "package.json").read_text())
    assert manifest["devDependencies"]["cogtools"].startswith("file:")
    return directory


class Warm(t.NamedTuple):
    env: Env
    project: Path
    #: The first run, which installed cogtools (test_npx_runs_cogtools checks it).
    first: subprocess.CompletedProcess[str]


@pytest.fixture(scope="module")
def warm(tarball: Path, wheelhouse: Path, tmp_path_factory: pytest.TempPathFactory) -> Warm:
    """A shell whose cache has cogtools installed, by a first npx run, and a JavaScript project
    that has it as a dev dependency."""
    root = tmp_path_factory.mktemp("npm-warm")
    env = Env(root, wheelhouse)
    shutil.copy(tarball, root / tarball.name)
    first = env.run(["npx", "--yes", f"./{tarball.name}", "cogtools", "--version"], root)
    return Warm(env, javascript_project(root / "project", tarball, env), first)


def test_the_tarball_is_the_package(tarball: Path, key: str) -> None:
    with tarfile.open(tarball) as tar:
        names = sorted(tar.getnames())
        member = tar.extractfile("package/package.json")
        assert member is not None
        manifest = json.loads(member.read())
        modes = {m.name: m.mode for m in tar.getmembers()}
        launchers = {c: tar.extractfile(f"package/bin/{c}").read().decode() for c in COMMANDS}  # type: ignore[union-attr]
    assert names == sorted(
        [
            "package/package.json",
            "package/README.md",
            "package/lib/setup.sh",
            f"package/wheels/cogtools-{VERSION}-py3-none-any.whl",
            *(f"package/bin/{c}" for c in COMMANDS),
        ]
    )
    assert manifest["name"] == "cogtools" and manifest["version"] == VERSION
    assert manifest["bin"] == {c: f"bin/{c}" for c in COMMANDS}
    assert "dependencies" not in manifest and "scripts" not in manifest  # nothing from npm's registry, nothing run
    assert manifest["os"] == ["!win32"]
    assert all(modes[f"package/bin/{c}"] & 0o111 for c in COMMANDS)
    for command, text in launchers.items():
        assert text.startswith("#!/bin/sh\n") and f"c={command}\n" in text
        assert f'e="$HOME/.cache/cogtools/npm/{key}"\n' in text
    with zipfile.ZipFile(io.BytesIO(wheel_of(tarball))) as z:
        assert f"Version: {VERSION}" in z.read(f"cogtools-{VERSION}.dist-info/METADATA").decode()


def test_npx_runs_cogtools(warm: Warm, tarball: Path, key: str) -> None:
    """`npx --yes ./cogtools-VERSION.tgz cogtools --version` installs cogtools on its first run
    (saying so on stderr) and prints the version; from then on, nothing but the command's own
    output. npx runs the package's `cogtools`, which runs the command its first argument names."""
    env, _, first = warm
    assert first.returncode == 0, first.stderr
    assert first.stdout == f"cogtools {VERSION}\n"
    assert f"cogtools: first run: installing cogtools {VERSION} for Python" in first.stderr
    assert environments(env.installs, key) and (env.installs / key).is_symlink()
    here = env.root
    for argv, out in [
        (["npx", "--yes", f"./{tarball.name}", "cogtools", "--version"], f"cogtools {VERSION}\n"),
        (["npx", "--yes", f"./{tarball.name}", "--version"], f"cogtools {VERSION}\n"),
        (["npx", "--yes", f"./{tarball.name}", "cogtools-call", "--version"], f"cogtools-call {VERSION}\n"),
        (
            ["npx", "--yes", "-p", f"./{tarball.name}", "cogtools-discover", "--version"],
            f"cogtools-discover {VERSION}\n",
        ),
        (["npx", "--yes", "-p", f"./{tarball.name}", "cogtools-yaml", "--version"], f"cogtools-yaml {VERSION}\n"),
    ]:
        proc = env.run(argv, here)
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, out, ""), argv


def test_argv_stdin_stdout_and_status_pass_through(warm: Warm) -> None:
    env, project, _ = warm
    bin_dir = project / "node_modules" / ".bin"
    ok = env.run([str(bin_dir / "cogtools-call"), "hello"], project, stdin='{"who": "Ada"}')
    assert (ok.returncode, ok.stdout, ok.stderr) == (0, "Hello, Ada!", "")
    failed = env.run([str(bin_dir / "cogtools-call"), "divide"], project, stdin='{"n": 0}')
    assert failed.returncode == 9
    error = json.loads(failed.stdout)["error"]
    assert error["code"] == "RENDER_FAILED" and error["tool"] == "divide"
    assert failed.stderr.startswith("cogtools-call: error: RENDER_FAILED:")
    # an argument with spaces and quotes arrives as it was given
    odd = "no such 'tool' \"here\""
    missing = env.run([str(bin_dir / "cogtools-call"), odd], project, stdin="{}")
    assert missing.returncode == 3 and json.loads(missing.stdout)["error"]["tool"] == odd
    # the porcelain, through the same launcher: cogtools call NAME
    porcelain = env.run([str(bin_dir / "cogtools"), "call", "hello"], project, stdin='{"who": "Bo"}')
    assert (porcelain.returncode, porcelain.stdout) == (0, "Hello, Bo!")
    # binary stdin is read by cogtools itself: not UTF-8 is its INVALID_INPUT
    bad = subprocess.run(
        [str(bin_dir / "cogtools-call"), "hello"], input=b"\xff\xfe", capture_output=True, cwd=project, env=env.vars
    )
    assert bad.returncode == 4 and json.loads(bad.stdout)["error"]["code"] == "INVALID_INPUT"


def test_node_runs_a_launcher_as_sh_does_as_yarn_berry_runs_bins(warm: Warm) -> None:
    """The newcomer's finding (a blocker): Yarn Berry runs a package's bins with node, and every
    launcher, a POSIX sh script, failed with node's SyntaxError. A launcher is sh and JavaScript
    at once: node runs it with sh, its arguments, stdin, stdout and status passed through."""
    env, project, _ = warm
    bin_dir = project / "node_modules" / ".bin"
    for name in ("cogtools", "cogtools-call", "cogtools-discover", "cogtools-yaml"):
        launcher = (bin_dir / name).resolve()
        assert subprocess.run(["node", "--check", str(launcher)], capture_output=True).returncode == 0, name
    call = (bin_dir / "cogtools-call").resolve()
    ok = env.run(["node", str(call), "hello"], project, stdin='{"who": "Ada"}')
    assert (ok.returncode, ok.stdout, ok.stderr) == (0, "Hello, Ada!", "")
    failed = env.run(["node", str(call), "divide"], project, stdin='{"n": 0}')
    assert failed.returncode == 9 and json.loads(failed.stdout)["error"]["code"] == "RENDER_FAILED"
    version = env.run(["node", str((bin_dir / "cogtools").resolve()), "--version"], project)
    assert version.returncode == 0 and version.stdout.startswith("cogtools "), version


def test_the_launcher_execs_no_second_process(warm: Warm) -> None:
    """The process the caller started is cogtools-call itself: the program a tool runs has it as
    its parent."""
    env, project, _ = warm
    proc = subprocess.Popen(
        [str(project / "node_modules" / ".bin" / "cogtools-call"), "parent"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=project,
        env=env.vars,
    )
    out, err = proc.communicate(b"{}", timeout=60)
    assert proc.returncode == 0, err
    assert int(out) == proc.pid


def bin_without(directory: Path, *names: str) -> str:
    """A PATH of one directory that has every program of /usr/bin and /bin but those whose name
    starts with one of ``names``."""
    directory.mkdir(parents=True, exist_ok=True)
    for source in (Path("/usr/bin"), Path("/bin")):
        for program in source.iterdir():
            link = directory / program.name
            if not program.name.startswith(names) and not link.exists() and not link.is_symlink():
                link.symlink_to(program)
    return str(directory)


def test_no_python_is_a_clear_error(warm: Warm, tarball: Path, tmp_path: Path) -> None:
    """With no Python 3.10+, the first run says what it tried and how to mend it, exits 69, and
    leaves nothing in the cache; cogtools-call prints its JSON error too. (The launcher found its
    installer, and the installer its wheel, through npm's links, a project's and a global one.)"""
    env, project, _ = warm
    fresh = str(tmp_path / "home")
    call = str(project / "node_modules" / ".bin" / "cogtools-call")
    porcelain = str(project / "node_modules" / ".bin" / "cogtools")

    named = env.run([porcelain, "--version"], project, HOME=fresh, COGTOOLS_PYTHON="/nonexistent/python3")
    assert named.returncode == PYTHON_NOT_FOUND and named.stdout == ""
    assert named.stderr == (
        "cogtools: error: PYTHON_NOT_FOUND: COGTOOLS_PYTHON names no usable Python 3.10 or newer: "
        "/nonexistent/python3 (not found)\n"
    )

    none = bin_without(tmp_path / "bin", "python")
    proc = env.run([call, "hello"], project, stdin="{}", HOME=fresh, PATH=none, COGTOOLS_NPM_INSTALL="1")
    assert proc.returncode == PYTHON_NOT_FOUND
    error = json.loads(proc.stdout)["error"]
    assert error["code"] == "PYTHON_NOT_FOUND"
    assert "python3 (not found); python3.14 (not found)" in error["message"]
    assert "install one, or set COGTOOLS_PYTHON to its path" in error["message"]
    assert proc.stderr == f"cogtools-call: error: PYTHON_NOT_FOUND: {error['message']}\n"

    old = tmp_path / "old"
    write(old / "python3", "#!/bin/sh\nprintf 3.8.10\nexit 3\n", mode=0o755)
    proc = env.run([porcelain, "--version"], project, HOME=fresh, PATH=f"{old}:{none}")
    assert proc.returncode == PYTHON_NOT_FOUND
    assert f"{old}/python3 (3.8.10, older than 3.10)" in proc.stderr and "Traceback" not in proc.stderr
    assert not (Path(fresh) / ".cache" / "cogtools").exists()  # nothing installed, nothing half-made

    prefix = tmp_path / "global"
    installed = env.run(["npm", "install", "--global", "--offline", "--prefix", str(prefix), str(tarball)], tmp_path)
    assert installed.returncode == 0, installed.stderr
    assert os.readlink(prefix / "bin" / "cogtools") == "../lib/node_modules/cogtools/bin/cogtools"
    proc = env.run([str(prefix / "bin" / "cogtools")], tmp_path, HOME=fresh, COGTOOLS_PYTHON="/nowhere")
    assert (proc.returncode, proc.stderr) == (
        PYTHON_NOT_FOUND,
        "cogtools: error: PYTHON_NOT_FOUND: COGTOOLS_PYTHON names no usable Python 3.10 or newer: /nowhere (not found)\n",
    )


def test_a_failed_install_says_why_and_is_not_trusted(warm: Warm, key: str, tmp_path: Path) -> None:
    """pip cannot find the dependencies (an index with none of them): INSTALL_FAILED, pip's last
    words on stderr, the log kept, and no environment left for the next run to trust."""
    env, project, _ = warm
    empty = tmp_path / "no-wheels"
    empty.mkdir()
    fresh = tmp_path / "home"
    proc = env.run(
        [str(project / "node_modules" / ".bin" / "cogtools-discover")],
        project,
        HOME=str(fresh),
        PIP_FIND_LINKS=str(empty),
        COGTOOLS_NPM_INSTALL="1",  # piped, it is a client's start: installing there is asked for
    )
    assert proc.returncode == INSTALL_FAILED and proc.stdout == ""
    assert "cogtools-discover: pip: " in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stderr.splitlines()[-1].startswith(
        f"cogtools-discover: error: INSTALL_FAILED: installing cogtools {VERSION} into "
    )
    installs = fresh / ".cache" / "cogtools" / "npm"
    assert sorted(p.name for p in installs.iterdir()) == [f".{key}.lock", f"{key}.log"]


def test_an_interrupted_first_run_is_repaired(warm: Warm, key: str, tmp_path: Path) -> None:
    """A first run killed in the middle of pip, where flock(1) is missing (the mkdir lock): the
    next run finds the lock stale, removes the half-made environment, and installs anew; an
    environment whose Python is gone is made anew too."""
    env, project, _ = warm
    fresh = tmp_path / "home"
    installs = fresh / ".cache" / "cogtools" / "npm"
    path = bin_without(tmp_path / "bin", "flock", "python")
    extra = {"HOME": str(fresh), "PATH": path, "COGTOOLS_PYTHON": sys.executable}
    porcelain = str(project / "node_modules" / ".bin" / "cogtools")
    first = subprocess.Popen(
        [porcelain, "--version"],
        cwd=project,
        env={**env.vars, **extra},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    log = installs / f"{key}.log"
    deadline = time.monotonic() + 120
    while not (log.exists() and "pip install" in log.read_text()):
        assert first.poll() is None and time.monotonic() < deadline, "the first run never reached pip"
        time.sleep(0.05)
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    assert (installs / f".{key}.lock.d").is_dir()  # left behind, its pid dead
    assert len(environments(installs, key)) == 1
    assert not (installs / key).exists()

    again = env.run([porcelain, "--version"], project, HOME=str(fresh), PATH=path, COGTOOLS_PYTHON=sys.executable)
    assert (again.returncode, again.stdout) == (0, f"cogtools {VERSION}\n"), again.stderr
    made = environments(installs, key)
    assert len(made) == 1 and os.readlink(installs / key) == made[0]
    assert not (installs / f".{key}.lock.d").exists()

    # the Python the environment was made with is gone: the launcher does not trust it
    (installs / made[0] / "bin" / "python").unlink()
    healed = env.run([porcelain, "--version"], project, HOME=str(fresh), PATH=path, COGTOOLS_PYTHON=sys.executable)
    assert (healed.returncode, healed.stdout) == (0, f"cogtools {VERSION}\n"), healed.stderr
    assert "first run: installing" in healed.stderr
    remade = environments(installs, key)
    assert len(remade) == 1 and remade != made and os.readlink(installs / key) == remade[0]


def test_concurrent_first_runs_install_once(warm: Warm, key: str, tmp_path: Path) -> None:
    """Two first runs at once: one installs while the other waits on the lock, and both read
    their own stdin (the install does not) and print their own result."""
    env, project, _ = warm
    fresh = tmp_path / "home"
    call = str(project / "node_modules" / ".bin" / "cogtools-call")
    runs = [
        subprocess.Popen(
            [call, "hello"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=project,
            env={**env.vars, "HOME": str(fresh), "COGTOOLS_PYTHON": sys.executable, "COGTOOLS_NPM_INSTALL": "1"},
            text=True,
        )
        for _ in range(2)
    ]
    outputs = [
        run.communicate(json.dumps({"who": who}), timeout=300) for run, who in zip(runs, ("A", "B"), strict=True)
    ]
    assert [run.returncode for run in runs] == [0, 0], outputs
    assert [out for out, _ in outputs] == ["Hello, A!", "Hello, B!"]
    assert sum("first run: installing" in err for _, err in outputs) == 1
    assert len(environments(fresh / ".cache" / "cogtools" / "npm", key)) == 1


@pytest.mark.e2e
def test_a_javascript_project_serves_its_tools_to_gemini_cli(
    gemini_core: Path, tarball: Path, key: str, wheelhouse: Path, tmp_path: Path
) -> None:
    """A JavaScript project that has cogtools as a dev dependency points Gemini CLI's
    tools.discoveryCommand and callCommand at node_modules/.bin: once `cogtools setup` has
    installed cogtools (a first discovery installs nothing: tests/test_npm_launcher_first_run.py),
    the real core discovers and calls its tools."""
    env = Env(tmp_path / "shell", wheelhouse)
    project = javascript_project(tmp_path / "js", tarball, env)
    setup = env.run([str(project / "node_modules" / ".bin" / "cogtools"), "setup"], project)
    assert setup.returncode == 0, setup.stderr
    driver_env = {
        **gemini_env(tmp_path),
        **{k: v for k, v in env.vars.items() if k.startswith(("PIP_", "npm_config_"))},
        "PATH": PATH,
        "XDG_CACHE_HOME": str(env.cache),
        "HOME": env.vars["HOME"],
    }
    report = drive(
        gemini_core,
        project,
        driver_env,
        "node_modules/.bin/cogtools-discover",
        "node_modules/.bin/cogtools-call",
        [
            {"name": "discovered_tool_hello", "args": {"who": "Gemini"}},
            {"name": "discovered_tool_divide", "args": {"n": 4}},
            {"name": "discovered_tool_divide", "args": {"n": 0}},
        ],
    )
    assert report["known"] == ["discovered_tool_divide", "discovered_tool_hello", "discovered_tool_parent"]
    hello, divide, failed = report["calls"]
    assert hello["error"] is None and hello["llmContent"] == "Hello, Gemini!"
    assert divide["error"] is None and divide["llmContent"] == "25"
    assert failed["error"]["type"] == "discovered_tool_execution_error"
    assert '"code": "RENDER_FAILED"' in failed["llmContent"] and "Exit Code: 9" in failed["llmContent"]
    assert len(environments(env.installs, key)) == 1


def test_a_javascript_project_serves_its_tools_over_mcp(warm: Warm) -> None:
    """`cogtools setup` adds the mcp extra to the npm package's environment: `cogtools init --mcp
    CLIENT --project-launcher` writes node_modules/.bin/cogtools for a JavaScript project, and that
    server answers a client."""
    env, project, _ = warm
    setup = env.run([str(project / "node_modules" / ".bin" / "cogtools"), "setup"], project)
    assert setup.returncode == 0 and "its MCP extra are installed" in setup.stderr, setup.stderr
    messages: list[dict[str, t.Any]] = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    proc = subprocess.Popen(
        [str(project / "node_modules" / ".bin" / "cogtools"), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=project,
        env=env.vars,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    answers = {}
    for message in messages:
        proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()
        if "id" in message:
            answer = json.loads(proc.stdout.readline())
            answers[answer["id"]] = answer
    proc.stdin.close()
    proc.wait(timeout=30)
    assert answers[1]["result"]["serverInfo"]["name"] == "cogtools"
    assert {tool["name"] for tool in answers[2]["result"]["tools"]} >= {"hello", "divide"}
    setup = env.run(
        [
            str(project / "node_modules" / ".bin" / "cogtools"),
            "mcp",
            "--print-config",
            "claude-code",
            "--project-launcher",
        ],
        project,
    )
    assert setup.returncode == 0 and '"command": "node_modules/.bin/cogtools"' in setup.stdout, setup.stdout


def test_a_cache_the_workspace_names_runs_nothing(warm: Warm, key: str, tmp_path: Path) -> None:
    """Gemini CLI loads the workspace's .env into what it runs: an XDG_CACHE_HOME from there,
    holding a planted environment, must not be what the launcher execs."""
    env, project, _ = warm
    planted = project / ".x" / "cogtools" / "npm" / key / "bin"
    for name in ("python", "cogtools-call"):
        write(planted / name, "#!/bin/sh\necho PLANTED\n", mode=0o755)
    call = str(project / "node_modules" / ".bin" / "cogtools-call")
    proc = env.run([call, "hello"], project, stdin='{"who": "Ada"}', XDG_CACHE_HOME=str(project / ".x"))
    assert (proc.returncode, proc.stdout) == (0, "Hello, Ada!"), proc.stderr


def test_npx_init_gives_gemini_cli_the_packages_environment_not_the_workspaces_launcher(
    warm: Warm, tarball: Path, key: str, tmp_path: Path
) -> None:
    """`npx cogtools init` in a JavaScript project runs its node_modules launcher, a file the agent
    can rewrite: Gemini CLI is given neither that launcher nor the environment it installed
    cogtools into by its path (this machine's and this version's, issue 43), but the commands'
    names, which a global install puts on PATH; the note says so, and how to have the launcher
    instead (--project-launcher, which writes node_modules/.bin's)."""
    env = warm.env
    project = javascript_project(tmp_path / "js", tarball, env)
    done = env.run(["npx", "cogtools", "init", "--non-interactive"], project)
    assert done.returncode == 0, done.stderr
    tools = json.loads((project / ".gemini" / "settings.json").read_text())["tools"]
    assert tools["callCommand"] == "cogtools-call" and key not in json.dumps(tools), done.stdout
    assert "cogtools runs from its npm package's own environment" in done.stdout
    assert "npm install -g of the npm package" in done.stdout and "--project-launcher" in done.stdout
    call = env.run([str(env.installs / key / "bin" / "cogtools-call"), "hello"], project, stdin='{"who": "Ada"}')
    assert (call.returncode, call.stdout) == (0, "Hello, Ada!"), call.stderr
    asked = env.run(["npx", "cogtools", "init", "--non-interactive", "--project-launcher"], project)
    assert asked.returncode == 0, asked.stderr
    tools = json.loads((project / ".gemini" / "settings.json").read_text())["tools"]
    assert tools["callCommand"] == "node_modules/.bin/cogtools-call"
    assert "which the agent can rewrite" in asked.stdout


def test_a_global_install_gives_gemini_cli_the_names_it_finds(warm: Warm, tarball: Path, tmp_path: Path) -> None:
    """`npm install -g cogtools`, then `cogtools init` (issue 43): PATH finds the package's
    launcher, which execs the environment that runs init; init took it for "another one" and
    wrote that environment's full path, version hash and all. Now the names, and no note."""
    env = warm.env
    prefix = tmp_path / "global"
    installed = env.run(["npm", "install", "--global", "--offline", "--prefix", str(prefix), str(tarball)], tmp_path)
    assert installed.returncode == 0, installed.stderr
    path = f"{prefix / 'bin'}{os.pathsep}{PATH}"
    project = tmp_path / "app"
    project.mkdir()
    done = env.run([str(prefix / "bin" / "cogtools"), "init", "--non-interactive"], project, PATH=path)
    assert done.returncode == 0, done.stderr
    tools = json.loads((project / ".gemini" / "settings.json").read_text())["tools"]
    assert (tools["discoveryCommand"], tools["callCommand"]) == ("cogtools-discover", "cogtools-call"), done.stdout
    assert "PATH finds another one" not in done.stdout and "not on PATH" not in done.stdout, done.stdout
    call = env.run(["cogtools-call", "hello"], project, stdin='{"who": "Ada"}', PATH=path)
    assert (call.returncode, call.stdout) == (0, "Hello, Ada!\n"), call.stderr
