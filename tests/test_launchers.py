"""The workspace never chooses what trusted code runs (issue 41, part 4): ``cogtools init`` tells
Gemini CLI (its discovery and call commands) and the MCP clients (the server's command) to start
the cogtools that runs init, from outside the project, never a file of the workspace, which the
agent can rewrite; the project's own launcher (``node_modules/.bin``, an environment inside the
project) only when a person asks for it (``--project-launcher``), and then init and ``doctor``
say that it is agent-writable.

``cogtools`` runs in process (the ``cogtools`` fixture, its ``sys.argv`` as the installed script's)
where the cogtools that runs is this installation's; the real processes kept: init from outside the
project and the call command Gemini CLI spawns (``test_init_does_not_adopt_a_launcher_the_workspace_planted``),
a cogtools that runs from inside the project (``test_init_run_from_inside_the_project_asks_for_the_flag``)
and the npm, npx and pnpm launchers (the slow tests)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import typing as t
import venv
from pathlib import Path

import pytest

from cogtools.cli import porcelain
from cogtools.core import jsonc

from .conftest import BIN, Cli, Result, run_script, write
from .test_cli import STATUS

INIT = ("init", "--non-interactive", "--defaults")
PLANTED = "#!/bin/sh\necho 'the agent was here'\n"
COMMANDS = ("cogtools", "cogtools-discover", "cogtools-call")


Cogtools = t.Callable[..., Result]


@pytest.fixture
def cogtools(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> Cogtools:
    """``cogtools ARGS`` in process, from the working directory, as this installation's script
    runs it (``sys.argv[0]`` names it: where cogtools looks for its own commands)."""

    def run(*args: str, cwd: Path | None = None) -> Result:
        if cwd is not None:
            monkeypatch.chdir(cwd)
        monkeypatch.setattr(sys, "argv", [str(BIN / "cogtools"), *args])
        return cli(porcelain.main, *args)

    return run


def settings_commands(root: Path) -> dict[str, str]:
    tools = jsonc.loads((root / ".gemini" / "settings.json").read_text())["tools"]
    return {key: tools[key] for key in ("discoveryCommand", "callCommand")}


def npm_layout(root: Path, script: str | None = None) -> None:
    """node_modules/.bin/cogtools* as npm makes them: links to the package's launchers, which
    here run this installation's commands, or ``script`` (what an agent planted)."""
    for name in COMMANDS:
        launcher = root / "node_modules" / "cogtools" / "bin" / name
        write(launcher, script or f'#!/bin/sh\nexec "{BIN / name}" "$@"\n', mode=0o755)
        link = root / "node_modules" / ".bin" / name
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(f"../cogtools/bin/{name}")


def test_init_does_not_adopt_a_launcher_the_workspace_planted(isolated: Path) -> None:
    """The finding: run from an installation outside the project, init wrote
    node_modules/.bin/cogtools-call (a 3-line script the agent planted, linked as npm links a
    package's launcher) as Gemini CLI's call command, and its note read as if the person had
    installed it."""
    npm_layout(isolated, PLANTED)
    done = run_script("cogtools", *INIT, cwd=isolated)
    assert done.status == 0, done
    assert settings_commands(isolated) == {"discoveryCommand": "cogtools-discover", "callCommand": "cogtools-call"}
    assert "the project's npm package" not in done.stdout
    assert (
        "note: node_modules/.bin/cogtools-call, a file of the workspace that the agent can rewrite, is not what"
        " Gemini CLI runs" in done.stdout
    ), done.stdout
    assert "--project-launcher" in done.stdout
    # what Gemini CLI will spawn (no shell, from the project) is this installation's
    call = subprocess.run(
        [settings_commands(isolated)["callCommand"], "hello"],
        input='{"who": "Ada"}',
        capture_output=True,
        text=True,
        cwd=isolated,
        env={**os.environ, "PATH": f"{BIN}:/usr/bin:/bin"},
    )
    assert call.stdout == "Hello, Ada!\n", call


def test_the_projects_own_launcher_only_when_asked_and_said_to_be_agent_writable(
    isolated: Path, cogtools: Cogtools
) -> None:
    npm_layout(isolated)
    done = cogtools(*INIT, "--project-launcher", cwd=isolated)
    assert done.status == 0, done
    assert settings_commands(isolated) == {
        "discoveryCommand": "node_modules/.bin/cogtools-discover",
        "callCommand": "node_modules/.bin/cogtools-call",
    }
    assert "files of the workspace, which the agent can rewrite" in done.stdout, done.stdout
    doctor = cogtools("doctor", "--no-discovery", cwd=isolated)
    assert "warning  commands: tools.callCommand 'node_modules/.bin/cogtools-call'" in doctor.stdout, doctor.stdout
    assert "inside this project, which the agent can rewrite" in doctor.stdout
    assert "--project-launcher" in doctor.stdout


def test_init_without_the_flag_replaces_the_project_launcher_it_wrote(isolated: Path, cogtools: Cogtools) -> None:
    """What an earlier `init --project-launcher` wrote is cogtools' own: no --force needed."""
    npm_layout(isolated)
    assert cogtools(*INIT, "--project-launcher", cwd=isolated).status == 0
    again = cogtools(*INIT, cwd=isolated)
    assert again.status == 0, again
    assert settings_commands(isolated) == {"discoveryCommand": "cogtools-discover", "callCommand": "cogtools-call"}


def test_init_replaces_the_full_paths_an_earlier_init_wrote(isolated: Path, cogtools: Cogtools) -> None:
    """An installation's commands by full path (another environment's, npx's) are cogtools' own
    too: running init from another cogtools, or asking for the project's launchers, needs no
    --force; a command a person wrote is still kept."""
    old = {"discoveryCommand": "'/old place/bin/cogtools-discover'", "callCommand": "/old place/bin/cogtools-call"}
    write(isolated / ".gemini" / "settings.json", json.dumps({"tools": old}))
    assert cogtools(*INIT, cwd=isolated).status == 0
    assert settings_commands(isolated) == {"discoveryCommand": "cogtools-discover", "callCommand": "cogtools-call"}
    write(isolated / ".gemini" / "settings.json", json.dumps({"tools": {**old, "callCommand": "/opt/my-caller"}}))
    kept = cogtools(*INIT, cwd=isolated)
    assert (
        settings_commands(isolated)["callCommand"] == "/opt/my-caller" and "kept your tools.callCommand" in kept.stdout
    )


def test_sync_warns_that_pins_mean_nothing_behind_a_workspace_command(isolated: Path, cogtools: Cogtools) -> None:
    """What runs unasked is what the call command runs: a person syncing is told when that is a
    file the agent can rewrite, whatever the pins say."""
    npm_layout(isolated)
    assert cogtools(*INIT, "--project-launcher", cwd=isolated).status == 0
    synced = cogtools("sync", cwd=isolated)
    assert synced.status == 0, synced
    call = isolated / "node_modules" / ".bin" / "cogtools-call"
    assert f"tools.callCommand runs {call}: inside the project, which the agent can rewrite" in synced.stdout, synced


def test_asking_for_a_project_launcher_the_project_has_not_is_a_usage_error(isolated: Path, cogtools: Cogtools) -> None:
    done = cogtools(*INIT, "--project-launcher", cwd=isolated)
    assert done.status == STATUS["USAGE"], done
    assert "node_modules/.bin/cogtools-call" in done.stderr
    assert list(isolated.iterdir()) == []  # nothing written


def test_doctor_flags_a_command_that_is_a_link_in_the_workspace(isolated: Path, cogtools: Cogtools) -> None:
    """A link in the project that leads to this installation's command is still the agent's to
    point elsewhere."""
    assert cogtools(*INIT, cwd=isolated).status == 0
    (isolated / "bin").mkdir()
    (isolated / "bin" / "cogtools-call").symlink_to(BIN / "cogtools-call")
    settings = isolated / ".gemini" / "settings.json"
    settings.write_text(settings.read_text().replace('"cogtools-call"', '"bin/cogtools-call"'))
    doctor = cogtools("doctor", "--no-discovery", cwd=isolated)
    assert "warning  commands: tools.callCommand 'bin/cogtools-call'" in doctor.stdout, doctor.stdout


def copy_of_this_installation(directory: Path) -> None:
    """This installation's console scripts in ``directory`` (their #! line names this
    interpreter): a cogtools that runs from there."""
    directory.mkdir(parents=True)
    for name in COMMANDS:
        shutil.copy2(BIN / name, directory / name)


def test_init_run_from_inside_the_project_asks_for_the_flag(isolated: Path) -> None:
    """`.venv/bin/cogtools init`: the cogtools that runs is itself a file of the workspace.
    Without --project-launcher init refuses, saying why and what to do; with it, it names that
    cogtools, and says that the agent can rewrite it."""
    copy_of_this_installation(isolated / ".venv" / "bin")
    own = str(isolated / ".venv" / "bin" / "cogtools")
    env = {**os.environ, "PATH": f"{isolated / '.venv' / 'bin'}:/usr/bin:/bin"}
    refused = subprocess.run([own, *INIT], capture_output=True, text=True, cwd=isolated, env=env)
    assert refused.returncode == STATUS["USAGE"], refused
    assert f"cogtools runs from inside the project ({isolated / '.venv' / 'bin'})" in refused.stderr, refused.stderr
    assert "--project-launcher" in refused.stderr and "pipx install" in refused.stderr
    assert sorted(p.name for p in isolated.iterdir()) == [".venv"]
    done = subprocess.run([own, *INIT, "--project-launcher"], capture_output=True, text=True, cwd=isolated, env=env)
    assert done.returncode == 0, done
    # relative to the project, where Gemini CLI starts: every checkout with that environment has it
    assert settings_commands(isolated) == {
        "discoveryCommand": ".venv/bin/cogtools-discover",
        "callCommand": ".venv/bin/cogtools-call",
    }
    assert "which the agent can rewrite" in done.stdout, done.stdout
    call = subprocess.run(
        [".venv/bin/cogtools-call", "hello"],
        input='{"who": "Ada"}',
        capture_output=True,
        text=True,
        cwd=isolated,
        env=env,
    )
    assert call.stdout == "Hello, Ada!\n", call


# -- MCP clients ----------------------------------------------------------------------------------


def mcp_entry(root: Path) -> dict[str, object]:
    return dict(json.loads((root / ".mcp.json").read_text())["mcpServers"]["cogtools"])


def test_an_mcp_clients_command_is_not_the_workspaces_either(isolated: Path, cogtools: Cogtools) -> None:
    """init --mcp wrote node_modules/.bin/cogtools whenever a file of that name existed."""
    write(isolated / "node_modules" / ".bin" / "cogtools", PLANTED, mode=0o755)
    done = cogtools(*INIT, "--mcp", "claude-code", cwd=isolated)
    assert done.status == 0, done
    assert mcp_entry(isolated)["command"] == "cogtools"
    assert "node_modules/.bin/cogtools" not in done.stdout.split("note:")[0]
    printed = cogtools("mcp", "--print-config", "claude-code", cwd=isolated)
    assert '"command": "cogtools"' in printed.stdout, printed


def test_an_mcp_client_gets_the_projects_launcher_when_asked(isolated: Path, cogtools: Cogtools) -> None:
    npm_layout(isolated)
    done = cogtools(*INIT, "--mcp", "claude-code", "--project-launcher", cwd=isolated)
    assert done.status == 0, done
    assert mcp_entry(isolated) == {"type": "stdio", "command": "node_modules/.bin/cogtools", "args": ["mcp"]}
    assert "which the agent can rewrite" in done.stdout, done.stdout
    printed = cogtools("mcp", "--print-config", "claude-code", "--project-launcher", cwd=isolated)
    assert '"command": "node_modules/.bin/cogtools"' in printed.stdout, printed
    doctor = cogtools("doctor", "--no-discovery", cwd=isolated)
    assert "inside this project, which the agent can rewrite" in doctor.stdout, doctor.stdout


# -- npx: cogtools runs from the npm package's own environment ------------------------------------


def npm_cache_install(home: Path, key: str = "0.0.0-abcdef012345") -> Path:
    """What the npm package's first run makes (npm/setup.sh): a virtual environment in
    ~/.cache/cogtools/npm/KEY.env-STAMP, linked from KEY, with cogtools' commands; here its Python
    finds this checkout's cogtools through a .pth file. Returns KEY's bin directory."""
    cache = home / ".cache" / "cogtools" / "npm"
    environment = cache / f"{key}.env-1"
    venv.EnvBuilder(with_pip=False, symlinks=True).create(environment)
    python = environment / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    here = sysconfig.get_paths()["purelib"]
    Path(purelib, "cogtools-tests.pth").write_text(f"import site; site.addsitedir({here!r})\n")
    mains = {"cogtools": "entry", "cogtools-discover": "discover", "cogtools-call": "call"}
    for name, module in mains.items():
        script = f"#!{python}\nimport sys\nfrom cogtools.cli.{module} import main\nsys.exit(main())\n"
        write(environment / "bin" / name, script, mode=0o755)
    (cache / key).symlink_to(environment.name)
    return cache / key / "bin"


def npm_launchers(directory: Path, key: str = "0.0.0-abcdef012345") -> None:
    """cogtools' npm launchers (npm/launcher.sh, in short) in ``directory``: each execs KEY's
    environment under ~/.cache/cogtools/npm."""
    for name in COMMANDS:
        launcher = f'#!/bin/sh\nc={name}\ne="$HOME/.cache/cogtools/npm/{key}"\nexec "$e/bin/$c" "$@"\n'
        write(directory / name, launcher, mode=0o755)


def shared_files(root: Path) -> str:
    """What init wrote in the files a project shares."""
    return "\n".join(
        path.read_text() for path in (root / ".gemini" / "settings.json", root / ".mcp.json") if path.exists()
    )


@pytest.mark.slow
def test_npx_init_writes_no_path_of_this_machine(isolated: Path) -> None:
    """The finding (issue 43): `npx cogtools init`, cogtools a dev dependency only, wrote
    ~/.cache/cogtools/npm/VERSION-HASH/bin/cogtools-discover into the committed settings: this
    machine's, and this version's. Now the names, which init says Gemini CLI finds once cogtools
    is on its PATH (npm install -g), and never node_modules/.bin's, which npx put on PATH."""
    home = Path(os.environ["HOME"])
    npm_cache_install(home)
    npm_launchers(isolated / "node_modules" / "cogtools" / "bin")
    for name in COMMANDS:
        link = isolated / "node_modules" / ".bin" / name
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(f"../cogtools/bin/{name}")
    env = {**os.environ, "PATH": f"{isolated / 'node_modules' / '.bin'}:/usr/bin:/bin"}  # as npx runs it
    npx = str(isolated / "node_modules" / ".bin" / "cogtools")
    done = subprocess.run([npx, *INIT], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done
    assert settings_commands(isolated) == {"discoveryCommand": "cogtools-discover", "callCommand": "cogtools-call"}
    assert "cogtools-discover and cogtools-call are not on PATH, so Gemini CLI will not find them" in done.stdout, (
        done.stdout
    )
    assert "npm install -g of the npm package" in done.stdout and "--project-launcher" in done.stdout
    assert f"add {home}" not in done.stdout  # the cache's directory is this version's: not on PATH either
    assert "cogtools runs from its npm package's own environment" in done.stdout
    mcp = subprocess.run([npx, *INIT, "--mcp", "claude-code"], capture_output=True, text=True, env=env)
    assert mcp.returncode == 0, mcp
    assert mcp_entry(isolated)["command"] == "cogtools"
    assert "`cogtools` is not on this PATH" in mcp.stdout, mcp.stdout  # npx's node_modules/.bin is not the client's
    assert str(home) not in shared_files(isolated) and ".cache" not in shared_files(isolated)


@pytest.mark.slow
def test_a_global_npm_install_is_written_by_name_and_said_to_be_this_one(isolated: Path, tmp_path: Path) -> None:
    """`npm install -g cogtools`: PATH finds its launcher, which execs the environment that runs
    init. The finding: init took that for "another one" and wrote the environment's full path."""
    home = Path(os.environ["HOME"])
    npm_cache_install(home)
    prefix = tmp_path / "npm-global"
    npm_launchers(prefix / "lib" / "node_modules" / "cogtools" / "bin")
    (prefix / "bin").mkdir()
    for name in COMMANDS:
        (prefix / "bin" / name).symlink_to(f"../lib/node_modules/cogtools/bin/{name}")
    env = {**os.environ, "PATH": f"{prefix / 'bin'}:/usr/bin:/bin"}
    done = subprocess.run(
        [str(prefix / "bin" / "cogtools"), *INIT], capture_output=True, text=True, cwd=isolated, env=env
    )
    assert done.returncode == 0, done
    assert settings_commands(isolated) == {"discoveryCommand": "cogtools-discover", "callCommand": "cogtools-call"}
    assert "PATH finds another one" not in done.stdout and "not on PATH" not in done.stdout, done.stdout
    call = subprocess.run(
        ["cogtools-call", "hello"], input='{"who": "Ada"}', capture_output=True, text=True, cwd=isolated, env=env
    )
    assert call.stdout == "Hello, Ada!\n", call
    doctor = subprocess.run(
        [str(prefix / "bin" / "cogtools"), "doctor", "--no-discovery"],
        capture_output=True,
        text=True,
        cwd=isolated,
        env=env,
    )
    assert "ok       commands: tools.callCommand 'cogtools-call'" in doctor.stdout, doctor.stdout


@pytest.mark.slow
def test_pnpm_init_writes_no_path_of_this_machine(isolated: Path) -> None:
    """`pnpm exec cogtools init`: pnpm's node_modules/.bin holds shell shims (not links), and its
    PATH starts with the project's node_modules/.bin; the settings get the names all the same."""
    home = Path(os.environ["HOME"])
    npm_cache_install(home)
    npm_launchers(isolated / "node_modules" / ".pnpm" / "cogtools@0.0.0" / "node_modules" / "cogtools" / "bin")
    for name in COMMANDS:
        target = f"$basedir/../.pnpm/cogtools@0.0.0/node_modules/cogtools/bin/{name}"
        shim = f'#!/bin/sh\nbasedir=$(dirname "$(echo "$0" | sed -e \'s,\\\\,/,g\')")\nexec "{target}" "$@"\n'
        write(isolated / "node_modules" / ".bin" / name, shim, mode=0o755)
    env = {**os.environ, "PATH": f"{isolated / 'node_modules' / '.bin'}:/usr/bin:/bin"}
    done = subprocess.run(
        [str(isolated / "node_modules" / ".bin" / "cogtools"), *INIT],
        capture_output=True,
        text=True,
        cwd=isolated,
        env=env,
    )
    assert done.returncode == 0, done
    assert settings_commands(isolated) == {"discoveryCommand": "cogtools-discover", "callCommand": "cogtools-call"}
    assert str(home) not in shared_files(isolated) and "node_modules" not in shared_files(isolated)
    assert "cogtools-discover and cogtools-call are not on PATH, so Gemini CLI will not find them" in done.stdout, (
        done.stdout
    )


# -- doctor refuses a path of this machine in a file the project shares ---------------------------


def doctor_findings(cogtools: Cogtools | None, root: Path, check: str) -> tuple[int, list[dict[str, str]]]:
    """``cogtools doctor --no-discovery``'s exit status, and its findings of ``check`` (in process
    by ``cogtools``, or a real process when None)."""
    argv = ("doctor", "--no-discovery", "--format", "json")
    done = run_script("cogtools", *argv, cwd=root) if cogtools is None else cogtools(*argv, cwd=root)
    return done.status, [f for f in json.loads(done.stdout)["findings"] if f["check"] == check]


CREPT_IN = "/home/someone/.cache/cogtools/npm/0.1.0-1b7619ea4f7f/bin/cogtools-call"


@pytest.mark.slow
def test_doctor_refuses_a_path_of_this_machine_in_the_projects_gemini_settings(isolated: Path) -> None:
    """The finding: doctor said ok of the cache path init wrote. A person's own settings may
    hold one (they are this machine's); the project's, which teammates share, may not."""
    assert run_script("cogtools", *INIT, cwd=isolated).status == 0
    settings = isolated / ".gemini" / "settings.json"
    original = settings.read_text()
    write(
        isolated.parent / "elsewhere" / "bin" / "cogtools-call",
        f'#!/bin/sh\nexec "{BIN / "cogtools-call"}" "$@"\n',
        mode=0o755,
    )
    for value, why in (
        (CREPT_IN, "the npm package's environment of one version"),
        (str(isolated.parent / "elsewhere" / "bin" / "cogtools-call"), "an absolute path"),
        ("~/bin/cogtools-call", "a path under the home directory"),
        ("$HOME/bin/cogtools-call", "an absolute path"),  # as Gemini CLI expands it
    ):
        settings.write_text(original.replace('"cogtools-call"', json.dumps(value)))
        status, findings = doctor_findings(None, isolated, "commands")
        assert status == 1, findings
        found = [f for f in findings if f["status"] == "problem"]
        assert len(found) == 1 and why in found[0]["message"] and "teammate" in found[0]["message"], (value, found)
        assert "cogtools init" in found[0]["fix"], found
    # the same command in the user's own settings is theirs to keep
    settings.write_text(original.replace('"callCommand": "cogtools-call"', '"otherKey": 1'))
    user = Path(os.environ["HOME"]) / ".gemini" / "settings.json"
    write(user, json.dumps({"tools": {"callCommand": str(isolated.parent / "elsewhere" / "bin" / "cogtools-call")}}))
    assert [f["status"] for f in doctor_findings(None, isolated, "commands")[1]] == ["ok", "ok"]


def test_doctor_refuses_a_path_of_this_machine_in_a_projects_mcp_file(isolated: Path, cogtools: Cogtools) -> None:
    assert cogtools(*INIT, "--mcp", "claude-code", cwd=isolated).status == 0
    path = isolated / ".mcp.json"
    path.write_text(
        path.read_text().replace('"command": "cogtools"', json.dumps({"command": str(BIN / "cogtools")})[1:-1])
    )
    status, findings = doctor_findings(cogtools, isolated, "mcp")
    assert status == 1, findings
    found = [f for f in findings if f["status"] == "problem"]
    assert len(found) == 1 and f"names a path of this machine ({BIN / 'cogtools'}" in found[0]["message"], found
    assert "cogtools init --mcp claude-code --force" in found[0]["fix"]
