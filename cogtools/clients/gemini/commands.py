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

from cogtools.clients.gemini.settings import _same_file, edit_settings, effective, read_settings, settings_layers
from cogtools.core.errors import ConfigInvalidError
from cogtools.load.npm import bin_directory

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


def spawnable_commands(search_path: str | None, scripts: t.Sequence[Path], root: Path | None = None) -> Commands:
    """The commands to write for Gemini CLI: the project's own (``node_modules/.bin/NAME``,
    relative to ``root``, where Gemini CLI starts, when the project installed the npm package),
    which every teammate's checkout has; else the bare names where ``search_path`` (the PATH
    Gemini will have) finds this very installation's scripts, else their absolute paths (from
    the first of ``scripts`` that holds them). The discovery command is split like a shell
    would split it, so its path is quoted; the call command is spawned as it is, so it is not."""

    values = []
    notes = []
    for name in (DISCOVER, CALL):
        if root is not None:
            project_bin = bin_directory(root) / name
            package = os.path.realpath(root / "node_modules" / "cogtools")
            real = os.path.realpath(project_bin)
            # npm's own layout (a link to the cogtools package's launcher), not any file of that name
            if os.path.commonpath([real, package]) == package and os.access(real, os.X_OK):
                values.append(str(project_bin.relative_to(root)))
                notes.append(
                    f"{name}: the project's npm package, {project_bin.relative_to(root)}: a file of the workspace,"
                    " which the agent can rewrite (and with it what Gemini CLI runs unasked); install cogtools"
                    " outside the project where that matters"
                )
                continue
        ours = next((directory / name for directory in scripts if (directory / name).is_file()), None)
        found = shutil.which(name, path=search_path)
        if ours is None or (found is not None and _same_file(found, ours)):
            if found is None:
                notes.append(f"{name}: neither PATH nor this installation has it; Gemini CLI will not find it")
            values.append(name)
            continue
        where = f"PATH finds another one, {found}" if found else "it is not on PATH"
        notes.append(f"{name}: {where}; wrote its full path, {ours}")
        values.append(shlex.quote(str(ours)) if name == DISCOVER else str(ours))
    return Commands(values[0], values[1], tuple(notes))


class Merge(t.NamedTuple):
    text: str
    #: Keys whose existing value differs from cogtools' and was kept (empty when forced).
    kept: tuple[str, ...]


def merge_settings(old: str | None, path: str, commands: Commands, *, force: bool = False) -> Merge:
    """``settings.json`` with ``tools.discoveryCommand`` and ``tools.callCommand`` set; every key
    already there survives. A value a person set differently is kept unless ``force``; the bare
    names an earlier ``cogtools init`` wrote are cogtools' own, and replaced."""
    tools = read_settings(old, path).get("tools", {})
    kept = []
    changes = []
    for key, value in commands.settings().items():
        if key not in tools or tools[key] == value:
            if key not in tools:
                changes.append((("tools", key), value))
            continue
        if force or tools[key] == {"discoveryCommand": DISCOVER, "callCommand": CALL}[key]:
            changes.append((("tools", key), value))
        else:
            kept.append(f"tools.{key}")
    return Merge(edit_settings(old, path, changes), tuple(kept))


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
