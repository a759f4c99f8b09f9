"""Which cogtools a client is told to start: Gemini CLI's discovery and call commands, an MCP
client's server command.

The workspace never chooses what trusted code runs: what ``cogtools init`` writes is the cogtools
that runs it, from outside the project. A file of the workspace (the project's
``node_modules/.bin``, a virtual environment inside the project), which the agent can rewrite, and
with it what a client runs unasked, is written only when a person asks for the project's own
launcher (:data:`PROJECT_LAUNCHER`), and is then said to be agent-writable. When the cogtools that
runs is itself inside the project, init refuses without that flag (:func:`refuse_own_install`).
"""

from __future__ import annotations

import os
import re
import sys
import sysconfig
import typing as t
from pathlib import Path

import cogtools
from cogtools.core.errors import UsageError
from cogtools.core.fsutil import inside

#: The flag of ``cogtools init`` and ``cogtools mcp --print-config`` that asks for the project's own launcher.
PROJECT_LAUNCHER = "--project-launcher"
#: Where the npm package's launchers install cogtools (npm/setup.sh), under the home directory.
NPM_CACHE = (".cache", "cogtools", "npm")


def workspace_file(path: str | Path, root: Path) -> bool:
    """Whether ``path``, as a client spawns it, is a file of the workspace at ``root``: it lies
    inside the project, or a link on the way to it does (the agent can point a link elsewhere)."""

    absolute = os.path.abspath(path)
    for top in dict.fromkeys([os.path.abspath(root), os.path.realpath(root)]):
        if os.path.commonpath([absolute, top]) == top:
            return True
    return inside(absolute, root)


def scripts_directories() -> list[Path]:
    """Where this installation's commands are: beside the running command, then the scripts
    directory of this interpreter."""

    found = [Path(sys.argv[0]).absolute().parent] if sys.argv and sys.argv[0] else []
    return [*found, Path(sysconfig.get_path("scripts"))]


def own_command(name: str, scripts: t.Sequence[Path] | None = None) -> Path | None:
    """This installation's command ``name`` (the first of ``scripts`` that holds it), or None."""

    directories = scripts_directories() if scripts is None else scripts
    return next((directory / name for directory in directories if (directory / name).is_file()), None)


def own_install(root: Path, commands: t.Iterable[Path | None] = ()) -> str | None:
    """Where the cogtools that runs lies inside the project at ``root``: the directory of one of
    its ``commands``, its interpreter's prefixes or its package; None when all are outside."""

    places = [*(os.path.dirname(command) for command in commands if command is not None)]
    places += [sys.prefix, sys.exec_prefix, sys.base_prefix, os.path.dirname(cogtools.__file__)]
    return next((place for place in places if workspace_file(place, root)), None)


def refuse_own_install(where: str, client: str) -> UsageError:
    """The refusal to name, without :data:`PROJECT_LAUNCHER`, a cogtools that runs from inside the
    project."""

    return UsageError(
        f"cogtools runs from inside the project ({where}), which the agent can rewrite: {client} would run what"
        " the agent wrote there, the tools it runs unasked included. Run init from a cogtools installed outside"
        f" the project (pipx install, uv tool install, npm install -g), or pass {PROJECT_LAUNCHER} to have {client}"
        " run this one, knowingly"
    )


def npm_environment(environ: t.Mapping[str, str]) -> Path | None:
    """The npm package's own environment (``~/.cache/cogtools/npm/KEY``) when that is what runs:
    ``npx cogtools``, or a JavaScript project's dev dependency, whose launcher execs it."""

    home = environ.get("HOME")
    if not home:
        return None
    cache = os.path.realpath(os.path.join(home, *NPM_CACHE))
    prefix = os.path.realpath(sys.prefix)
    return Path(prefix) if os.path.dirname(prefix) == cache else None


def project_launcher(root: Path, name: str) -> Path | None:
    """The project's own launcher ``node_modules/.bin/NAME`` (the npm package's), when it is an
    executable file; None otherwise. Only for :data:`PROJECT_LAUNCHER`: the agent can write it."""

    path = root / "node_modules" / ".bin" / name
    return path if path.is_file() and os.access(path, os.X_OK) else None


def missing_launcher(names: t.Sequence[str]) -> UsageError:
    """:data:`PROJECT_LAUNCHER` where the project has no launcher of its own."""

    shown = " and ".join(f"node_modules/.bin/{name}" for name in names)
    what = "an executable file" if len(names) == 1 else "executable files"
    return UsageError(
        f"{PROJECT_LAUNCHER}: the project has no launcher of its own (it needs {shown}, {what}): install"
        " cogtools into it (npm install --save-dev cogtools), or leave the flag out to use this installation"
    )


#: How a word of a command names this machine's own places, which a teammate's checkout lacks: an
#: absolute path, one under the home directory however a client spells it (``~``, ``$HOME``,
#: VS Code's ``${userHome}``), and the npm package's environment, whose name carries the version
#: and the wheel's hash (``~/.cache/cogtools/npm/0.1.0-1b7619ea4f7f``).
_HOME_WORDS = ("~", "$HOME", "${HOME}", "${userHome}", "${env:HOME}")


def machine_path(word: str) -> str | None:
    """Why ``word``, of a command in a file a project shares (``.gemini/settings.json``,
    ``.mcp.json``...), is this machine's, or None when it is not: a path every checkout resolves
    is a bare name found on PATH or a path relative to the project."""

    if "/".join(NPM_CACHE) in word:
        return "the npm package's environment of one version, in this machine's cache"
    if word.startswith("/"):
        return "an absolute path"
    if any(word == home or word.startswith(home + "/") for home in _HOME_WORDS):
        return "a path under the home directory"
    return None


def npm_launcher_runs(path: str, environment: Path, environ: t.Mapping[str, str]) -> bool:
    """Whether ``path`` is a launcher of cogtools' npm package (npm/launcher.sh, as ``npm install
    -g`` or pnpm links it) that execs ``environment``, the package's environment that runs: the
    same cogtools, by a name that every machine's PATH resolves to its own."""

    try:
        with open(path, "rb") as file:
            head = file.read(4096).decode("utf-8", "replace")
    except OSError:
        return False
    home = environ.get("HOME")
    found = re.search(r'^e="\$HOME/' + re.escape("/".join(NPM_CACHE)) + r'/([^"/]+)"$', head, re.MULTILINE)
    if found is None or not home:
        return False
    return os.path.realpath(os.path.join(home, *NPM_CACHE, found.group(1))) == os.path.realpath(environment)
