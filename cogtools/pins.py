"""Pins: the definitions a person allowed to run without confirmation (DESIGN §11).

Gemini CLI runs a tool listed in ``tools.allowed`` without asking anyone, and both that list and
the tool files live in the workspace, which the agent can write. So when a person runs
``cogtools sync`` (or ``cogtools init``), cogtools pins every allowed tool to the file that
defines it, by path and SHA-256 of its bytes (a script's body included), and to its closure:
the files of the project it executes or imports and the settings that choose them
(:func:`closure`). A call by name of a pinned tool whose definition or closure has changed, or
is now another file's (a new file shadowing it), is POLICY_DENIED until a person syncs again; one
that passes runs as built from the bytes that were checked. A tool in ``tools.allowed`` that was never pinned is
refused the same way; a tool that is not allowed runs as before, since Gemini CLI asks the person
first.

The pins live in the user's state directory (``$XDG_STATE_HOME/cogtools/pins/``, else
``~/.local/state/cogtools/pins/``), one file per project root, where the agent's file tools
(which work in the workspace) do not reach.
"""

from __future__ import annotations

import hashlib
import json
import os
import typing as t
from pathlib import Path

from cogtools.errors import PolicyDeniedError

if t.TYPE_CHECKING:
    from cogtools.model import Tool
    from cogtools.project import Project


def pins_path(root: Path, environ: t.Mapping[str, str]) -> Path | None:
    from cogtools.places import project_key, state_dir

    base = state_dir(environ)
    if base is None:
        return None
    return base / "pins" / f"{project_key(root)}.json"


def definition_file(tool: Tool, root: Path) -> Path:
    path = Path(tool.origin.path)
    return path if path.is_absolute() else root / path


def fingerprint(tool: Tool, root: Path) -> str | None:
    """The SHA-256 of the file that defines ``tool``, or None when it cannot be read."""
    data = _definition_bytes(tool, root)
    return None if data is None else hashlib.sha256(data).hexdigest()


def closure(tool: Tool, project: Project) -> dict[str, t.Any]:
    """What a pin covers besides the definition: every file of the project that a run of
    ``tool`` executes or imports (relative path -> SHA-256, None for one that cannot be read),
    and the settings that choose them (:meth:`~cogtools.run.Runner.closure`)."""
    from cogtools.run import python_path, runner

    try:
        kind = runner(tool.implementation.kind)
    except LookupError:
        return {"files": {}, "settings": {}}
    from cogtools.fsutil import inside

    files, settings = kind.closure(tool, project.root, python_path(project))
    top = os.path.realpath(project.root)
    covered: dict[str, str | None] = {}
    for path in files:
        if inside(path, top):  # not an installed module or a system program: not the workspace's
            real = os.path.realpath(path)
            covered[os.path.relpath(real, top)] = _digest(Path(real))
    return {"files": covered, "settings": settings}


def _digest(path: Path) -> str | None:
    """The SHA-256 of a regular file; None for what is not one (a FIFO the agent put in place of
    a module would make a plain open wait for ever) or cannot be read."""
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            return hashlib.file_digest(f, "sha256").hexdigest()
        except OSError:
            return None


def load(project: Project) -> dict[str, dict[str, str]]:
    """The pins of ``project`` (name -> {path, sha256}); {} when there are none or the file is not
    the user's own and private, or not what cogtools writes."""
    path = pins_path(project.root, project.environ)
    if path is None:
        return {}
    from cogtools.limits import MAX_CONFIG_BYTES, read_file
    from cogtools.places import is_private

    try:
        if not is_private(path.stat()):
            return {}
        data = json.loads(read_file(path, MAX_CONFIG_BYTES))
    except (OSError, ValueError):
        return {}
    pins = data.get("pins") if isinstance(data, dict) and data.get("root") == str(project.root) else None
    if not isinstance(pins, dict):
        return {}
    return {
        name: pin
        for name, pin in pins.items()
        if isinstance(pin, dict) and isinstance(pin.get("path"), str) and isinstance(pin.get("sha256"), str)
    }


def _closure_change(pinned: t.Any, now: dict[str, t.Any]) -> str | None:
    """What changed between the closure a person allowed and the one there is now, in words."""
    if not isinstance(pinned, dict):  # pinned by a cogtools that pinned the definition only
        if now["files"]:
            return f"what it runs ({', '.join(sorted(now['files']))}) was never reviewed (pinned by an older cogtools)"
        return None
    files = pinned.get("files")
    before_files: dict[str, t.Any] = files if isinstance(files, dict) else {}
    for path in sorted(set(before_files) | set(now["files"])):
        if path not in now["files"]:
            return f"{path}, which it ran, is gone"
        if path not in before_files:
            return f"it now runs {path}"
        if before_files[path] != now["files"][path]:
            return f"{path}, which it runs, changed"
    if pinned.get("settings") != now["settings"]:
        changed = sorted(
            key
            for key in set(pinned.get("settings") or {}) | set(now["settings"])
            if (pinned.get("settings") or {}).get(key) != now["settings"].get(key)
        )
        return f"the setting that chooses what it runs changed ({', '.join(changed)})"
    return None


def record(project: Project, tools: t.Iterable[Tool]) -> int:
    """Pin ``tools`` (and only them) for ``project``; how many were pinned. Written atomically,
    private to the user."""
    path = pins_path(project.root, project.environ)
    if path is None:
        return 0
    pins: dict[str, t.Any] = {}
    for tool in tools:
        digest = fingerprint(tool, project.root)
        if digest is not None:
            pins[tool.name] = {"path": tool.origin.path, "sha256": digest, "closure": closure(tool, project)}
    from cogtools.fsutil import write_private

    text = json.dumps({"root": str(project.root), "pins": pins}, indent=2, sort_keys=True) + "\n"
    write_private(path, text)
    return len(pins)


def allowed_in_settings(root: Path) -> set[str] | None:
    """The tool names in ``tools.allowed`` of the project's ``.gemini/settings.json``; None when
    there is no such file or it cannot be read."""
    from cogtools.errors import ConfigInvalidError
    from cogtools.fsutil import read_config

    try:
        text = read_config(root / ".gemini" / "settings.json")
    except ConfigInvalidError:
        return None
    return None if text is None else allowed_names(text)


def allowed_names(settings: str) -> set[str] | None:
    """The tool names in ``tools.allowed`` of the text of a settings.json (comments allowed, as
    Gemini CLI allows them); None when it is not such a document."""
    from cogtools import jsonc
    from cogtools.gemini import PREFIX

    try:
        document = jsonc.loads(settings)
    except jsonc.JsoncError:
        return None
    allowed = document.get("tools", {}).get("allowed", []) if isinstance(document, dict) else []
    if not isinstance(allowed, list):
        return None
    return {entry[len(PREFIX) :] for entry in allowed if isinstance(entry, str) and entry.startswith(PREFIX)}


def check(tool: Tool, project: Project) -> Tool:
    """``tool`` as the person allowed it: POLICY_DENIED when it may run without confirmation but
    is not the definition a person allowed (changed, moved, shadowed), or was never pinned, or
    what it runs of the workspace (its closure) changed. A pinned tool comes back built from
    the very bytes whose digest was checked, not from a second read (or the cache), which a
    writer could have changed in between."""
    pins = load(project)
    pin = pins.get(tool.name)
    how = "a person must review it and run `cogtools sync` to allow it again"
    if pin is None:
        allowed = allowed_in_settings(project.root)
        if allowed is not None and tool.name in allowed:
            raise PolicyDeniedError(
                f"{tool.name} is in tools.allowed of .gemini/settings.json (it runs without confirmation) but"
                f" its definition was never reviewed; {how}",
                tool=tool.name,
                details={"reason": "not_pinned", "file": tool.origin.path},
            )
        return tool
    if pin["path"] != tool.origin.path:
        raise PolicyDeniedError(
            f"{tool.name} runs without confirmation as defined in {pin['path']}, but is now defined in"
            f" {tool.origin.path}; {how}",
            tool=tool.name,
            details={"reason": "shadowed", "allowed_file": pin["path"], "file": tool.origin.path},
        )
    data = _definition_bytes(tool, project.root)
    if data is None or hashlib.sha256(data).hexdigest() != pin["sha256"]:
        raise PolicyDeniedError(
            f"{tool.name} runs without confirmation, and its definition in {tool.origin.path} changed since it"
            f" was allowed; {how}",
            tool=tool.name,
            details={"reason": "changed", "file": tool.origin.path},
        )
    verified = _verified(tool, data, project.root)
    change = _closure_change(pin.get("closure"), closure(verified, project))
    if change is not None:
        raise PolicyDeniedError(
            f"{tool.name} runs without confirmation, and {change} since it was allowed; {how}",
            tool=tool.name,
            details={"reason": "closure_changed", "file": tool.origin.path, "change": change},
        )
    return verified


def _definition_bytes(tool: Tool, root: Path) -> bytes | None:
    from cogtools.limits import MAX_DEFINITION_BYTES, read_file

    try:
        return read_file(definition_file(tool, root), MAX_DEFINITION_BYTES)
    except (OSError, ValueError):
        return None


def _verified(tool: Tool, data: bytes, root: Path) -> Tool:
    """``tool`` as ``data`` (the checked bytes of its definition) defines it."""
    from cogtools.catalog import parse_definition
    from cogtools.formats import FORMATS

    if tool.origin.format not in FORMATS:
        return tool
    result = parse_definition(
        definition_file(tool, root),
        data,
        display_path=tool.origin.path,
        source=tool.origin.source,
        fmt=tool.origin.format,
    )
    for built in result.tools:
        if built.name == tool.name:
            return built
    raise PolicyDeniedError(
        f"{tool.name} is no longer defined in {tool.origin.path}", tool=tool.name, details={"reason": "changed"}
    )
