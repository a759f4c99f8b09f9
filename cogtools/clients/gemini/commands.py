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
from cogtools.clients.launchers import PROJECT_LAUNCHER, missing_launcher, own_command, own_install, refuse_own_install
from cogtools.core.errors import ConfigInvalidError

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
    """The commands to write for Gemini CLI: this very installation's (the first of ``scripts``
    that holds them), by their bare names where ``search_path`` (the PATH Gemini will have) finds
    them, else by their absolute paths; never a file of the workspace at ``root``, which the
    agent can rewrite (:mod:`cogtools.clients.launchers`). With ``project_launcher``, the
    project's own launchers instead (``node_modules/.bin/NAME``, relative to ``root``, where
    Gemini CLI starts), else this installation where it lies inside the project, said to be
    agent-writable. USAGE when the installation lies inside the project without
    ``project_launcher``, or ``project_launcher`` finds no launcher. The discovery command is
    split like a shell would split it, so its path is quoted; the call command is spawned as it
    is, so it is not."""

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
    elif inside_project is not None:
        raise refuse_own_install(inside_project, "Gemini CLI")
    values = []
    notes = []
    for name in (DISCOVER, CALL):
        found = shutil.which(name, path=search_path)
        own = ours[name]
        if own is None or (found is not None and _same_file(found, own)):
            if found is None:
                notes.append(f"{name}: neither PATH nor this installation has it; Gemini CLI will not find it")
            values.append(name)
            continue
        where = f"PATH finds another one, {found}" if found else "it is not on PATH"
        notes.append(f"{name}: {where}; wrote its full path, {own}")
        values.append(shlex.quote(str(own)) if name == DISCOVER else str(own))
    if inside_project is not None:
        notes.append(
            f"Gemini CLI runs this cogtools, inside the project ({inside_project}, {PROJECT_LAUNCHER}): a file of the"
            " workspace, which the agent can rewrite, and with it what Gemini CLI runs unasked; `cogtools doctor`"
            " warns of it"
        )
    elif root is not None:
        notes.extend(_not_the_workspaces(root, environ))
    return Commands(values[0], values[1], tuple(notes))


def _not_the_workspaces(root: Path, environ: t.Mapping[str, str]) -> list[str]:
    """Why the project's own launcher, where it has one, is not what was written."""

    npm = launchers.npm_environment(environ)
    if npm is not None:
        return [
            f"cogtools runs from its npm package's own environment, {npm}, outside the project: Gemini CLI is given"
            " its commands, by full path (this machine's: a teammate runs init too, and so do you after upgrading"
            f" the package). Not node_modules/.bin/{CALL}, which npx ran: a file of the workspace, which the agent"
            f" can rewrite; {PROJECT_LAUNCHER} writes that instead, knowingly. Installed outside any project (npm"
            " install -g, pipx), cogtools' commands are on PATH, and init writes their bare names"
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
    installation's by its absolute path (``.../bin/NAME``, quoted as a shell would for the
    discovery command)."""

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
    return value in (name, f"node_modules/.bin/{name}") or (value.startswith("/") and value.endswith(f"/bin/{name}"))


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
