"""Gemini CLI's settings files as it reads and merges them, and how cogtools edits one keeping
every comment."""

from __future__ import annotations

import functools
import json
import os
import re
import stat
import sys
import typing as t
from pathlib import Path

from cogtools.clients.gemini import PREFIX
from cogtools.core import jsonc
from cogtools.core.errors import CogtoolsError, ConfigInvalidError
from cogtools.core.fsutil import read_config

# -- Gemini CLI as installed: its settings layers and its Policy Engine ---------------------------
#
# As Gemini CLI 0.61.0 reads them (packages/cli/src/config/settings.ts ``loadSettings``,
# packages/core/src/policy/config.ts ``createPolicyEngineConfig``): four settings files merged
# system-defaults < user < workspace < system (the workspace's only in a trusted folder, and not
# when it is the home directory; a system file only when it and every directory above it is
# root's and writable by no one else); a key is replaced by the last file that sets it, but
# ``policyPaths`` is the union of them all. Policy rules are TOML files in tiers, each rule's
# priority being tier + priority/1000: default (1, shipped), extension (2), workspace (3, never
# loaded: ``disableWorkspacePolicies``), user (4: ``~/.gemini/policies/*.toml``, or instead of it
# the files and directories ``policyPaths`` names), admin (5: ``/etc/gemini-cli/policies``).
# ``tools.allowed`` becomes user-tier allow rules of priority 4.3.


#: The settings files in Gemini CLI's order of merging, the last winning.
SCOPES = ("system-defaults", "user", "workspace", "system")


def gemini_home(environ: t.Mapping[str, str]) -> Path:
    """Gemini CLI's home: ``$GEMINI_CLI_HOME``, else the user's home."""
    return _path(environ.get("GEMINI_CLI_HOME") or environ.get("HOME") or str(Path.home()))


@functools.lru_cache(maxsize=64)
def _path(text: str) -> Path:
    """``Path(text)``, made once (a call of an unpinned tool asks for the same few)."""
    return Path(text)


def _same_file(a: str | Path, b: str | Path) -> bool:

    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def read_settings(old: str | None, path: str) -> dict[str, t.Any]:
    """The settings in ``old`` ({} for none), read as Gemini CLI reads them (comments allowed,
    trailing commas not); CONFIG_INVALID, file untouched, when it is not an object whose
    ``tools`` is an object."""

    settings: t.Any = {}
    if old is not None and old.strip():
        try:
            settings = jsonc.loads(old)
        except jsonc.JsoncError as e:
            where = f" at line {e.line} column {e.column}" if e.line else ""
            raise ConfigInvalidError(
                f"not valid JSON ({e.message}{where}); Gemini CLI reads comments but nothing else that JSON lacks"
                " (no trailing commas), and stops at start-up on this file too; left untouched",
                path=path,
                line=e.line,
            ) from e
        if not isinstance(settings, dict):
            raise ConfigInvalidError("the settings are not a JSON object; left untouched", path=path)
    if not isinstance(settings.get("tools", {}), dict):
        raise ConfigInvalidError("`tools` is not an object; left untouched", path=path, key_path=("tools",))
    return t.cast("dict[str, t.Any]", settings)


def edit_settings(old: str | None, path: str, changes: t.Sequence[tuple[tuple[str, ...], t.Any]]) -> str:
    """``old`` with each ``(key path, value)`` of ``changes`` set, and every other byte as it was
    (comments included); a new file when ``old`` is empty. Where a change would lose a comment,
    CONFIG_INVALID naming the keys to add by hand, and nothing is changed."""

    if not changes:
        return old or ""
    if old is None or not old.strip():
        document: dict[str, t.Any] = {}
        for key_path, value in changes:
            target = document
            for key in key_path[:-1]:
                target = target.setdefault(key, {})
            target[key_path[-1]] = value
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    text = old
    try:
        for key_path, value in changes:
            text = jsonc.set_value(text, key_path, value)
    except jsonc.CannotEdit as e:
        wanted = {".".join(key_path): value for key_path, value in changes}
        raise ConfigInvalidError(
            f"cannot change it without losing what a person wrote ({e.reason}); left untouched."
            f" Set these keys by hand: {json.dumps(wanted, ensure_ascii=False)}",
            path=path,
            details={"reason": "cannot_edit", "set": wanted},
        ) from e
    return text


@functools.lru_cache(maxsize=1)
def system_config_dir() -> Path:

    if sys.platform == "darwin":
        return Path("/Library/Application Support/GeminiCli")
    if sys.platform == "win32":
        return Path("C:\\ProgramData\\gemini-cli")
    return Path("/etc/gemini-cli")


def settings_path(scope: str, root: Path, environ: t.Mapping[str, str]) -> Path:
    """Where Gemini CLI reads the settings of ``scope`` (:data:`SCOPES`) for a session started in
    ``root``: ``$GEMINI_CLI_SYSTEM_SETTINGS_PATH`` and ``$GEMINI_CLI_SYSTEM_DEFAULTS_PATH`` move
    the system files (the defaults sit beside the system settings unless named)."""
    return _settings_path(
        scope,
        root,
        gemini_home(environ) if scope == "user" else None,
        environ.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH") or "",
        environ.get("GEMINI_CLI_SYSTEM_DEFAULTS_PATH") or "",
    )


@functools.lru_cache(maxsize=64)  # a call of an unpinned tool asks for them (what lets it run unasked)
def _settings_path(scope: str, root: Path, home: Path | None, system_settings: str, system_defaults: str) -> Path:
    if scope == "workspace":
        return root / ".gemini" / "settings.json"
    if home is not None:
        return home / ".gemini" / "settings.json"
    system = Path(system_settings or system_config_dir() / "settings.json")
    if scope == "system":
        return system
    return Path(system_defaults or system.parent / "system-defaults.json")


class Layer(t.NamedTuple):
    """One settings file as Gemini CLI reads it."""

    scope: str
    path: Path
    #: its settings, variables expanded; {} when absent, skipped or broken
    settings: dict[str, t.Any]
    #: its text, None when there is no such file
    text: str | None = None
    #: why Gemini CLI does not use it (a system file someone else can write, the home directory's
    #: workspace, an untrusted folder), None when it does
    skipped: str | None = None
    #: why it cannot be read (Gemini CLI stops at start-up on it), None when it can
    error: str | None = None


def settings_layers(
    root: Path, environ: t.Mapping[str, str], *, workspace_text: str | None = None, trusted: bool = True
) -> list[Layer]:
    """The four settings files in Gemini CLI's order of merging (:data:`SCOPES`), each read as it
    reads them; ``workspace_text`` stands for the workspace file's text (a change not yet
    written), ``trusted`` says whether Gemini CLI trusts ``root``."""

    layers = []
    for scope in SCOPES:
        path = settings_path(scope, root, environ)
        skipped = None
        if scope.startswith("system"):
            skipped = insecure(path)
        elif scope == "workspace":
            if _same_file(root, gemini_home(environ)):
                skipped = "the home directory's workspace settings are the user's"
            elif not trusted:
                skipped = "the folder is not trusted"
        try:
            text = workspace_text if scope == "workspace" and workspace_text is not None else read_config(path)
            settings = read_settings(text, str(path))
        except CogtoolsError as e:
            layers.append(Layer(scope, path, {}, None, skipped, e.message))
            continue
        if skipped is not None:
            settings = {}
        layers.append(Layer(scope, path, _expanded(settings, environ), text, skipped))
    return layers


def expand_variables(value: str, environ: t.Mapping[str, str]) -> str:
    """``$VAR`` and ``${VAR}`` replaced as Gemini CLI replaces them in its settings (an unset one
    is left as written)."""
    return _VARIABLE.sub(lambda m: environ.get(m.group(1) or m.group(2), m.group(0)), value)


_VARIABLE = re.compile(r"\$\{([^{}]+)\}|\$([A-Za-z_][A-Za-z0-9_]*)")


def _expanded(value: t.Any, environ: t.Mapping[str, str]) -> t.Any:
    if isinstance(value, str):
        return expand_variables(value, environ)
    if isinstance(value, list):
        return [_expanded(item, environ) for item in value]
    if isinstance(value, dict):
        return {key: _expanded(item, environ) for key, item in value.items()}
    return value


def insecure(path: Path) -> str | None:
    """Why Gemini CLI skips the system file ``path`` (it, or a directory above it, is not root's
    or can be written by group or others, or is a link that is not root's); None when it reads it
    (or there is no such file). Not checked off POSIX."""

    if os.name != "posix" or not os.path.exists(path):
        return None
    normal = os.path.abspath(path)
    real = os.path.realpath(path)
    for place in dict.fromkeys([*_ancestors(normal), *_ancestors(real), normal, real]):
        try:
            link = os.lstat(place)
            info = os.stat(place)
        except OSError as e:
            return f"{place} cannot be examined ({e.strerror})"
        if stat.S_ISLNK(link.st_mode) and link.st_uid != 0:
            return f"{place} is a symbolic link that is not root's"
        if info.st_uid != 0:
            return f"{place} is not root's (uid {info.st_uid})"
        if info.st_mode & 0o022:
            return f"{place} is writable by group or others"
    return None


def _ancestors(path: str) -> list[str]:

    found = []
    current = os.path.dirname(path)
    while True:
        found.append(current)
        parent = os.path.dirname(current)
        if parent == current:
            return found
        current = parent


class Setting(t.NamedTuple):
    """A merged setting and the file it comes from."""

    value: t.Any
    layer: Layer


def effective(layers: t.Sequence[Layer], *key_path: str) -> Setting | None:
    """The value Gemini CLI uses for a key it merges by replacement (tools.discoveryCommand,
    tools.callCommand, tools.allowed...): the last file's that sets it."""
    found = None
    for layer in layers:
        value: t.Any = layer.settings
        for key in key_path:
            value = value.get(key) if isinstance(value, dict) else None
        if value is not None:
            found = Setting(value, layer)
    return found


def resolve_path(value: str, root: Path, environ: t.Mapping[str, str]) -> Path:
    """A path of ``policyPaths`` as Gemini CLI resolves it: ``~`` is its home, a relative one is
    taken from the directory it starts in."""

    if value == "~" or value.startswith("~/"):
        value = str(gemini_home(environ)) + value[1:]
    return Path(os.path.normpath(os.path.join(root, value)))


def allowed_in(settings: str) -> set[str] | None:
    """The tool names in ``tools.allowed`` of the text of a settings.json (comments allowed, as
    Gemini CLI allows them); None when it is not such a document."""
    try:
        document = jsonc.loads(settings)
    except jsonc.JsoncError:
        return None
    tools = document.get("tools", {}) if isinstance(document, dict) else {}
    allowed = tools.get("allowed", []) if isinstance(tools, dict) else []
    if not isinstance(allowed, list):
        return None
    return {entry[len(PREFIX) :] for entry in allowed if isinstance(entry, str) and entry.startswith(PREFIX)}
