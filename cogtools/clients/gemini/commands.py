"""The commands cogtools writes for Gemini CLI in ``.gemini/settings.json``
(``tools.discoveryCommand`` and ``tools.callCommand``), as Gemini CLI will find them on its PATH,
and ``tools.allowed`` for a Gemini CLI older than its Policy Engine: functions from old text to
new text (the caller writes)."""

from __future__ import annotations

import os
import shlex
import shutil
import typing as t
from pathlib import Path

from cogtools.clients import launchers
from cogtools.clients.gemini.settings import _same_file, edit_settings, effective, read_settings, settings_layers
from cogtools.clients.launchers import (
    PROJECT_LAUNCHER,
    missing_launcher,
    npm_launcher_runs,
    own_command,
    own_install,
    refuse_own_install,
)
from cogtools.core.errors import ConfigInvalidError
from cogtools.core.fsutil import without_runners

#: The commands cogtools writes when they are on PATH, and what an earlier init wrote.
DISCOVER = "cogtools-discover"
CALL = "cogtools-call"


class Commands(t.NamedTuple):
    """``tools.discoveryCommand`` and ``tools.callCommand`` as Gemini CLI will spawn them."""

    discovery: str
    call: str
    #: Why a command is a full path rather than a bare name (or will not be found), a line each.
    notes: tuple[str, ...] = ()

    def settings(self) -> dict[str, str]:
        return {"discoveryCommand": self.discovery, "callCommand": self.call}


def spawnable_commands(
    search_path: str | None,
    scripts: t.Sequence[Path],
    root: Path | None = None,
    *,
    project_launcher: bool = False,
    environ: t.Mapping[str, str] | None = None,
) -> Commands:
    """The commands to write for Gemini CLI in the project's settings, a file its teammates
    share: never a path of this machine (:func:`cogtools.clients.launchers.machine_path`), and
    never a file of the workspace at ``root``, which the agent can rewrite
    (:mod:`cogtools.clients.launchers`). So their bare names, which Gemini CLI finds on its PATH
    (``search_path`` without what a package runner adds, npx's and pnpm's ``node_modules/.bin``),
    with a note where that PATH finds no cogtools, or another one than this installation (an npm
    launcher that execs this very environment is this one). With ``project_launcher``, the
    project's own launchers instead (``node_modules/.bin/NAME``, relative to ``root``, where
    Gemini CLI starts), else this installation where it lies inside the project, by its path
    relative to ``root``, said to be agent-writable. USAGE when the installation lies inside
    the project without ``project_launcher``, or ``project_launcher`` finds no launcher."""

    environ = os.environ if environ is None else environ
    ours = {name: own_command(name, scripts) for name in (DISCOVER, CALL)}
    inside_project = None if root is None else own_install(root, ours.values())
    if project_launcher:
        assert root is not None
        if all(launchers.project_launcher(root, name) for name in (DISCOVER, CALL)):
            return Commands(
                f"node_modules/.bin/{DISCOVER}",
                f"node_modules/.bin/{CALL}",
                (
                    f"Gemini CLI runs the project's own launchers, node_modules/.bin/{DISCOVER} and -call"
                    f" ({PROJECT_LAUNCHER}): files of the workspace, which the agent can rewrite, and with them what"
                    " Gemini CLI runs unasked; `cogtools doctor` warns of it",
                ),
            )
        if inside_project is None:
            raise missing_launcher([DISCOVER, CALL])
        return _inside(root, ours, inside_project)
    if inside_project is not None:
        raise refuse_own_install(inside_project, "Gemini CLI")
    if root is not None:
        search_path = os.pathsep.join(without_runners(search_path, root))
    npm = launchers.npm_environment(environ)
    found: dict[str, list[tuple[str, str | None]]] = {}  # what PATH finds -> (name, where)
    for name in (DISCOVER, CALL):
        where = shutil.which(name, path=search_path)
        own = ours[name]
        if where is None:
            found.setdefault("missing", []).append((name, None))
        elif root is not None and launchers.workspace_file(where, root):
            found.setdefault("workspace", []).append((name, where))
        elif own is not None and not _same_file(where, own) and not (npm and npm_launcher_runs(where, npm, environ)):
            found.setdefault("other", []).append((name, where))
    notes = [_path_note(kind, names, ours, npm) for kind, names in found.items()]
    if root is not None:
        notes.extend(_not_the_workspaces(root, environ))
    return Commands(DISCOVER, CALL, tuple(notes))


#: Where to install cogtools so that every teammate's Gemini CLI finds its commands by their names.
INSTALL_OUTSIDE = (
    "install cogtools where every teammate's PATH finds it (pipx install or uv tool install of the Python package,"
    f" npm install -g of the npm package's tarball), or run init again with {PROJECT_LAUNCHER} for the project's own"
    " launchers"
    f" (node_modules/.bin/{CALL}), which the agent can rewrite"
)


def _path_note(
    kind: str, names: t.Sequence[tuple[str, str | None]], ours: t.Mapping[str, Path | None], npm: Path | None
) -> str:
    """Why Gemini CLI will not run this installation by the names written: PATH finds no
    command of that name (``missing``), a file of the workspace (``workspace``), or another
    installation's (``other``). Each says what to do; none adds a path of this machine to the
    project's settings, which teammates share."""
    both = " and ".join(name for name, _ in names)
    them = "them" if len(names) > 1 else "it"
    where = ", ".join(dict.fromkeys(str(place) for _, place in names))
    own = ours[names[0][0]]
    if kind == "workspace":
        return (
            f"this PATH finds {both} in the workspace ({where}), which the agent can rewrite: Gemini CLI started with"
            f" it runs that. Instead, {INSTALL_OUTSIDE}"
        )
    if kind == "other":
        return (
            f"PATH finds another {both} ({where}), which Gemini CLI will run, not this installation's"
            f" ({own.parent if own else 'none'}): put this one first on PATH, or run init from that one"
        )
    add = f"add {own.parent} to PATH, or " if own is not None and npm is None else ""
    return (
        f"{both} {'are' if len(names) > 1 else 'is'} not on PATH, so Gemini CLI will not find {them}"
        f" unless its own PATH does (the project's settings, which teammates share, name no path of this machine):"
        f" {add}{INSTALL_OUTSIDE}"
    )


def _inside(root: Path, ours: t.Mapping[str, Path | None], where: str) -> Commands:
    """This installation's commands where it lies inside the project (its ``.venv``), by their
    paths relative to ``root``, where Gemini CLI starts (every checkout that has that
    environment resolves them), else by their bare names."""
    values = []
    for name in (DISCOVER, CALL):
        own = ours[name]
        relative = None if own is None else os.path.relpath(own, root)
        if relative is None or relative.startswith(".."):
            values.append(name)
        else:
            values.append(shlex.quote(relative) if name == DISCOVER else relative)
    note = (
        f"Gemini CLI runs this cogtools, inside the project ({where}, {PROJECT_LAUNCHER}): a file of the"
        " workspace, which the agent can rewrite, and with it what Gemini CLI runs unasked; `cogtools doctor`"
        " warns of it"
    )
    return Commands(values[0], values[1], (note,))


def _not_the_workspaces(root: Path, environ: t.Mapping[str, str]) -> list[str]:
    """Why the project's own launcher, where it has one, is not what was written."""

    npm = launchers.npm_environment(environ)
    if npm is not None:
        return [
            f"cogtools runs from its npm package's own environment, {npm}: Gemini CLI is given its commands by"
            " their names, which its PATH resolves (npm install -g of the npm package puts them there), not that"
            " environment's path (this machine's, and this version's). Not node_modules/.bin's, which npx ran:"
            f" files of the workspace, which the agent can rewrite; {PROJECT_LAUNCHER} writes those instead,"
            " knowingly"
        ]
    planted = [name for name in (DISCOVER, CALL) if (root / "node_modules" / ".bin" / name).exists()]
    if not planted:
        return []
    return [
        f"node_modules/.bin/{planted[-1]}, a file of the workspace that the agent can rewrite, is not what Gemini CLI"
        f" runs: this installation is; {PROJECT_LAUNCHER} writes the project's own launchers instead, knowingly"
    ]


class Merge(t.NamedTuple):
    text: str
    #: Keys whose existing value differs from cogtools' and was kept (empty when forced).
    kept: tuple[str, ...]


def merge_settings(old: str | None, path: str, commands: Commands, *, force: bool = False) -> Merge:
    """``settings.json`` with ``tools.discoveryCommand`` and ``tools.callCommand`` set; every key
    already there survives. A value a person set differently is kept unless ``force``; what an
    earlier ``cogtools init`` writes (:func:`init_wrote`) is cogtools' own, and replaced."""
    tools = read_settings(old, path).get("tools", {})
    kept = []
    changes = []
    for key, value in commands.settings().items():
        if key not in tools or tools[key] == value:
            if key not in tools:
                changes.append((("tools", key), value))
            continue
        if force or init_wrote(key, tools[key]):
            changes.append((("tools", key), value))
        else:
            kept.append(f"tools.{key}")
    return Merge(edit_settings(old, path, changes), tuple(kept))


def init_wrote(key: str, value: t.Any) -> bool:
    """Whether ``value`` of ``tools.KEY`` has a shape ``cogtools init`` writes, on any machine:
    the command's bare name, the project's launcher (``node_modules/.bin/NAME``), or an
    installation's by its path (``.../bin/NAME``: absolute, as an earlier cogtools wrote, or
    relative to the project; quoted as a shell would for the discovery command)."""

    name = {"discoveryCommand": DISCOVER, "callCommand": CALL}[key]
    if not isinstance(value, str):
        return False
    if key == "discoveryCommand":
        try:
            words = shlex.split(value)
        except ValueError:
            return False
        if len(words) != 1 or shlex.quote(words[0]) != value:
            return False
        value = words[0]
    return value in (name, f"node_modules/.bin/{name}") or value.endswith(f"/bin/{name}")


def merge_allowed(old: str | None, path: str, ours: t.Sequence[str], before: t.Sequence[str]) -> str:
    """``settings.json`` whose ``tools.allowed`` holds exactly ``ours`` among the entries cogtools
    manages (``before``: what it wrote last time), and every entry a person wrote."""
    tools = read_settings(old, path).get("tools", {})
    allowed = tools.get("allowed", [])
    if not isinstance(allowed, list) or not all(isinstance(e, str) for e in allowed):
        raise ConfigInvalidError(
            "`tools.allowed` is not a list of names; left untouched", path=path, key_path=("tools", "allowed")
        )
    kept = [entry for entry in allowed if entry not in before or entry in ours]
    merged = kept + [name for name in ours if name not in kept]
    if merged == allowed and ("allowed" in tools or not merged):
        return old or ""
    return edit_settings(old, path, [(("tools", "allowed"), merged)])


def overridden(root: Path, environ: t.Mapping[str, str], commands: Commands) -> list[str]:
    """The commands written for the project that a settings file Gemini CLI merges after it (the
    system's) replaces, each in a line."""
    layers = settings_layers(root, environ)
    lines = []
    for key, value in commands.settings().items():
        setting = effective(layers, "tools", key)
        if setting is not None and setting.layer.scope == "system" and setting.value != value:
            lines.append(
                f"tools.{key} is set to {setting.value!r} in {setting.layer.path}, the system settings, which"
                " Gemini CLI merges last: it, not the project's, runs"
            )
    return lines
