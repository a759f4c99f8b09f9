"""What cogtools writes for Gemini CLI: the tool commands in ``.gemini/settings.json`` and the
table of tools in ``GEMINI.md``: functions from old text to new text (the caller writes), and
the commands to write, as Gemini CLI will find them on its PATH."""

from __future__ import annotations

import functools
import re
import typing as t
from pathlib import Path

from cogtools.core.errors import ConfigInvalidError

if t.TYPE_CHECKING:
    from cogtools.core.model import Tool

#: The commands cogtools writes when they are on PATH, and what an earlier init wrote.
DISCOVER = "cogtools-discover"
CALL = "cogtools-call"
#: The prefix Gemini CLI gives a discovered tool's name.
PREFIX = "discovered_tool_"

BEGIN = "<!-- cogtools:tools:begin (written by `cogtools sync`; edits inside are replaced) -->"
END = "<!-- cogtools:tools:end -->"
_BEGIN_MARK = "<!-- cogtools:tools:begin"


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
    import os
    import shlex
    import shutil

    values = []
    notes = []
    for name in (DISCOVER, CALL):
        if root is not None:
            from cogtools.load.npm import bin_directory

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


def _same_file(a: str | Path, b: str | Path) -> bool:
    import os

    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


class Merge(t.NamedTuple):
    text: str
    #: Keys whose existing value differs from cogtools' and was kept (empty when forced).
    kept: tuple[str, ...]


def read_settings(old: str | None, path: str) -> dict[str, t.Any]:
    """The settings in ``old`` ({} for none), read as Gemini CLI reads them (comments allowed,
    trailing commas not); CONFIG_INVALID, file untouched, when it is not an object whose
    ``tools`` is an object."""
    from cogtools.core import jsonc

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
    import json

    from cogtools.core import jsonc

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


def tools_table(tools: t.Iterable[Tool]) -> str:
    """The block of GEMINI.md that lists the tools, markers included."""
    rows = [
        f"| `{PREFIX}{tool.name}` | {_cell(tool.summary())} | {tool.metadata.risk_level or 'not stated'} |"
        for tool in tools
    ]
    body = "\n".join(rows) if rows else "| (none) | | |"
    return (
        f"{BEGIN}\n"
        "## Tools\n\n"
        "The tools of this project, served by cogtools (`cogtools list` shows where each is defined):\n\n"
        "| tool | what it does | risk |\n"
        "|---|---|---|\n"
        f"{body}\n"
        f"{END}\n"
    )


_BEGIN_LINE = re.compile(r"^" + re.escape(_BEGIN_MARK) + r".*?\r?$", re.MULTILINE)
_END_LINE = re.compile(r"^" + re.escape(END) + r"[ \t]*\r?$", re.MULTILINE)


def update_gemini_md(old: str | None, block: str, path: str) -> str:
    """``GEMINI.md`` with the block between the markers replaced (or appended); every other line
    stays as it was. A marker counts only on a line of its own (one quoted in prose is text), and
    a file written with CRLF line endings keeps them."""
    if old is None or not old.strip():
        return block
    if "\r\n" in old:
        block = block.replace("\n", "\r\n")
    begins = list(_BEGIN_LINE.finditer(old))
    ends = list(_END_LINE.finditer(old))
    if not begins and not ends:
        newline = "\r\n" if "\r\n" in old else "\n"
        return old + ("" if old.endswith("\n") else newline) + newline + block
    if len(begins) != 1 or len(ends) != 1 or ends[0].start() < begins[0].start():
        raise ConfigInvalidError(
            "the cogtools markers are broken (one without the other, or twice); left untouched", path=path
        )
    after = ends[0].end()
    if old[after : after + 1] == "\n":
        after += 1
    return old[: begins[0].start()] + block + old[after:]


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


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

#: The first Gemini CLI whose tools.allowed is deprecated for the Policy Engine (it warns at each
#: start that it is set); 0.61.0 is the one measured.
POLICY_ENGINE_SINCE = (0, 30, 0)
#: The priority of cogtools' allow rules within the user tier (4.100): above every shipped
#: default (1.x, among them ``discovered_tool_*``'s ask and headless deny at 1.010), below what a
#: person's own settings say of a tool (tools.exclude 4.4, tools.confirmationRequired 4.35) and
#: their own rules of a higher priority.
RULE_PRIORITY = 100
#: The settings files in Gemini CLI's order of merging, the last winning.
SCOPES = ("system-defaults", "user", "workspace", "system")


def gemini_home(environ: t.Mapping[str, str]) -> Path:
    """Gemini CLI's home: ``$GEMINI_CLI_HOME``, else the user's home."""
    return _path(environ.get("GEMINI_CLI_HOME") or environ.get("HOME") or str(Path.home()))


@functools.lru_cache(maxsize=64)
def _path(text: str) -> Path:
    """``Path(text)``, made once (a call of an unpinned tool asks for the same few)."""
    return Path(text)


class Installed(t.NamedTuple):
    """The ``gemini`` PATH finds."""

    path: str
    #: the version of @google/gemini-cli it belongs to, None when that cannot be told
    version: str | None
    #: its package.json ({} when none was found)
    manifest: t.Mapping[str, t.Any]


def installed_gemini(environ: t.Mapping[str, str]) -> Installed | None:
    """The ``gemini`` on ``environ``'s PATH and the package it belongs to, read from the
    package.json above the file it links to (no process is started); None when there is none."""
    import os
    import shutil

    found = shutil.which("gemini", path=environ.get("PATH", os.defpath))
    if found is None:
        return None
    manifest = package_manifest(Path(os.path.realpath(found))) or {}
    version = manifest.get("version") if manifest.get("name") == "@google/gemini-cli" else None
    return Installed(found, version if isinstance(version, str) else None, manifest)


def package_manifest(executable: Path) -> dict[str, t.Any] | None:
    """The package.json nearest above ``executable``, None when there is none or it is unreadable."""
    import json

    from cogtools.core.fsutil import read_config

    for directory in executable.parents:
        manifest = directory / "package.json"
        if manifest.is_file():
            try:
                data = json.loads(read_config(manifest) or "")
            except (ConfigInvalidError, ValueError):
                return None
            return data if isinstance(data, dict) else None
    return None


def version_tuple(text: str) -> tuple[int, ...]:
    return (tuple(int(part) for part in re.findall(r"\d+", text)[:3]) + (0, 0, 0))[:3]


class Mechanism(t.NamedTuple):
    """How the tools that run without confirmation are told to Gemini CLI."""

    #: True: allow rules in a Policy Engine file of the user's; False: tools.allowed
    policy_engine: bool
    #: why, in words (which gemini, which version)
    why: str


def mechanism(environ: t.Mapping[str, str]) -> Mechanism:
    """The Policy Engine where the ``gemini`` on PATH has it (0.30 and later), or where no
    ``gemini`` is found or its version cannot be told (a Gemini CLI installed today has it);
    ``tools.allowed`` for an older one. Cheap: a PATH search and a package.json read."""
    found = installed_gemini(environ)
    since = ".".join(map(str, POLICY_ENGINE_SINCE))
    if found is None:
        return Mechanism(True, f"no `gemini` on PATH: written as Gemini CLI {since} and later read them")
    if found.version is None:
        return Mechanism(True, f"{found.path}: its version cannot be told, taken to be {since} or later")
    if version_tuple(found.version) >= POLICY_ENGINE_SINCE:
        return Mechanism(True, f"Gemini CLI {found.version} ({found.path}) reads them")
    return Mechanism(
        False, f"Gemini CLI {found.version} ({found.path}) predates the Policy Engine ({since}): tools.allowed"
    )


@functools.lru_cache(maxsize=1)
def system_config_dir() -> Path:
    import sys

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

    from cogtools.core.errors import CogtoolsError
    from cogtools.core.fsutil import read_config

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
    import os
    import stat

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
    import os

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
    import os

    if value == "~" or value.startswith("~/"):
        value = str(gemini_home(environ)) + value[1:]
    return Path(os.path.normpath(os.path.join(root, value)))


class PolicySources(t.NamedTuple):
    """Where Gemini CLI reads the rules of the tiers that can allow a tool."""

    #: the user tier: (file or directory, the settings file that named it, or None for the default)
    user: tuple[tuple[Path, Layer | None], ...]
    #: the admin tier's files and directories
    admin: tuple[Path, ...]
    #: the user policies directory (``~/.gemini/policies``), read only when policyPaths is empty
    default_user: Path


def policy_sources(layers: t.Sequence[Layer], root: Path, environ: t.Mapping[str, str]) -> PolicySources:
    """The files and directories of user and admin rules, as Gemini CLI 0.61.0 picks them:
    ``policyPaths`` (the union over the settings files) instead of ``~/.gemini/policies`` when
    it names any; ``/etc/gemini-cli/policies`` (when root's alone), else ``adminPolicyPaths``."""
    import os

    default_user = gemini_home(environ) / ".gemini" / "policies"
    named: dict[Path, Layer] = {}
    admin_named: list[Path] = []
    for layer in layers:
        for key, into in (("policyPaths", named), ("adminPolicyPaths", None)):
            values = layer.settings.get(key)
            for value in values if isinstance(values, list) else ():
                if isinstance(value, str) and value:
                    path = resolve_path(value, root, environ)
                    if into is None:
                        admin_named.append(path)
                    else:
                        into.setdefault(path, layer)
    user: tuple[tuple[Path, Layer | None], ...] = tuple(named.items()) or ((default_user, None),)
    system = system_config_dir() / "policies"
    admin: list[Path] = []
    if os.path.isdir(system) and insecure_directory(system) is None:
        admin.append(system)
    if not any(name.endswith(".toml") for name in _listing(system)):
        admin += admin_named
    return PolicySources(user, tuple(admin), default_user)


def insecure_directory(path: Path) -> str | None:
    """Why Gemini CLI skips the system policies directory: not root's, or writable by others."""
    import os

    if os.name != "posix":
        return None
    try:
        info = os.stat(path)
    except OSError:
        return None
    if info.st_uid != 0:
        return f"{path} is not root's"
    return f"{path} is writable by group or others" if info.st_mode & 0o022 else None


def _listing(directory: Path) -> list[str]:
    import os

    try:
        return sorted(os.listdir(directory))
    except OSError:
        return []


class Rule(t.NamedTuple):
    """One tool's rule of a policy file."""

    tool: str
    decision: str
    priority: int
    #: the approval modes it applies in (empty: all)
    modes: tuple[str, ...]
    #: it names an MCP server (mcpName): not a discovered tool's
    mcp: bool
    file: Path


def policy_files(source: Path) -> list[Path]:
    """The rule files Gemini CLI reads from ``source``: a directory's regular ``*.toml`` files
    (a link is not one), or the file itself when its name ends in .toml."""
    import os
    import stat

    try:
        info = os.stat(source)
    except OSError:
        return []
    if stat.S_ISDIR(info.st_mode):
        found = []
        for name in _listing(source):
            try:
                if name.endswith(".toml") and stat.S_ISREG(os.lstat(source / name).st_mode):
                    found.append(source / name)
            except OSError:
                continue
        return found
    return [source] if stat.S_ISREG(info.st_mode) and source.name.endswith(".toml") else []


def read_rules(path: Path) -> list[Rule]:
    """The rules of one policy file; CONFIG_INVALID when Gemini CLI would not load it (not TOML,
    a rule without toolName, a decision or a priority of 0 to 999)."""
    from cogtools.core import tomlio
    from cogtools.core.fsutil import read_config

    try:
        document = tomlio.loads(read_config(path) or "")
    except tomlio.TomlProblem as e:
        raise ConfigInvalidError(e.message, path=str(path)) from e
    rules = document.get("rule", [])
    if not isinstance(rules, list):
        raise ConfigInvalidError("`rule` is not an array of tables", path=str(path))
    found = []
    for index, rule in enumerate(rules):
        names = rule.get("toolName") if isinstance(rule, dict) else None
        names = [names] if isinstance(names, str) else names
        priority = rule.get("priority") if isinstance(rule, dict) else None
        if (
            not isinstance(names, list)
            or not all(isinstance(name, str) for name in names)
            or rule.get("decision") not in ("allow", "deny", "ask_user")
            or not isinstance(priority, int)
            or isinstance(priority, bool)
            or not 0 <= priority <= 999
        ):
            raise ConfigInvalidError(
                f"rule {index + 1} is not one Gemini CLI loads (toolName, decision and a priority of 0 to 999)",
                path=str(path),
            )
        modes = rule.get("modes") or []
        for name in names:
            found.append(
                Rule(
                    name,
                    rule["decision"],
                    priority,
                    tuple(str(mode) for mode in modes if isinstance(mode, str)),
                    "mcpName" in rule,
                    path,
                )
            )
    return found


#: The approval modes in which a tool runs unasked only because a person chose so for a session.
_CHOSEN_MODES = frozenset({"yolo", "plan"})


class Unasked(t.NamedTuple):
    """The discovered tools Gemini CLI runs without asking, each with what lets it, in words."""

    #: bare tool name -> "rule in FILE" / "tools.allowed of FILE"
    names: dict[str, str]
    #: what lets every tool run unasked (a rule or entry for ``*``), None when nothing does
    every: str | None = None
    #: the policy files that could not be read, and why
    broken: tuple[tuple[Path, str], ...] = ()

    def source(self, name: str) -> str | None:
        return self.names.get(name) or self.every


def unasked(
    root: Path,
    environ: t.Mapping[str, str],
    *,
    layers: t.Sequence[Layer] | None = None,
    leave_out: t.Collection[Path] = (),
    only: str | None = None,
) -> Unasked:
    """The discovered tools Gemini CLI, started in ``root``, runs without asking (in its default
    modes): every allow rule of the user and admin tiers (``leave_out``: files not to read, such
    as the one about to be rewritten) and every entry of the merged tools.allowed. A deny of a
    higher priority is not weighed: what is counted here is refused unless pinned. With
    ``only`` (a tool's name), a rules file that names neither it nor ``*`` is not parsed (a call
    of one tool pays for no TOML reader)."""
    import os

    if layers is None:
        layers = settings_layers(root, environ)
    names: dict[str, str] = {}
    every = None
    broken = []
    allowed = effective(layers, "tools", "allowed")
    if allowed is not None and isinstance(allowed.value, list):
        where = f"tools.allowed of {allowed.layer.path}"
        for entry in allowed.value:
            name = _ALLOWED_ENTRY.sub(r"\1", entry) if isinstance(entry, str) else ""
            if name == "*":
                every = every or where
            elif name.startswith(PREFIX):
                names.setdefault(name[len(PREFIX) :], where)
    sources = policy_sources(layers, root, environ)
    skip = {os.path.realpath(path) for path in leave_out}
    for source in [*(path for path, _ in sources.user), *sources.admin]:
        for path in policy_files(source):
            if os.path.realpath(path) in skip or (only is not None and not _may_name(path, PREFIX + only)):
                continue
            try:
                rules = read_rules(path)
            except ConfigInvalidError as e:
                broken.append((path, e.message))
                continue
            for rule in rules:
                if rule.decision != "allow" or rule.mcp or (rule.modes and set(rule.modes) <= _CHOSEN_MODES):
                    continue
                if rule.tool == "*":
                    every = every or f"a rule for every tool in {path}"
                elif rule.tool.startswith(PREFIX) and "*" not in rule.tool:
                    names.setdefault(rule.tool[len(PREFIX) :], f"a rule in {path}")
    return Unasked(names, every, tuple(broken))


def _may_name(path: Path, name: str) -> bool:
    """Whether the rules file ``path`` could hold a rule for ``name`` (it names it, or ``*``, or
    uses an escape); True when it cannot be read (the parse then says why)."""
    from cogtools.core.limits import MAX_CONFIG_BYTES, read_file

    try:
        data = read_file(path, MAX_CONFIG_BYTES)
    except (OSError, ValueError):
        return True
    return name.encode() in data or b"*" in data or b"\\" in data


#: ``NAME(ARGS)`` in tools.allowed: Gemini CLI allows NAME (with arguments narrowed for a shell).
_ALLOWED_ENTRY = re.compile(r"^([a-zA-Z0-9_-]+)\((.*)\)$", re.DOTALL)


def policy_file(root: Path, environ: t.Mapping[str, str]) -> Path:
    """The rules file ``cogtools sync`` writes for the project at ``root``, in the user's policies
    directory: ``cogtools-NAME-HASH.toml``, NAME the project directory's name and HASH the start
    of its key (:func:`cogtools.core.places.project_key`), so a person can tell whose it is."""
    from cogtools.core.places import project_key

    name = re.sub(r"[^A-Za-z0-9._-]+", "_", root.name)[:40].strip("._") or "project"
    return gemini_home(environ) / ".gemini" / "policies" / f"cogtools-{name}-{project_key(root)[:12]}.toml"


def policy_rules(root: Path, names: t.Sequence[str]) -> str:
    """The text of the project's rules file: a header saying whose it is and who writes it, and
    an allow rule for each of ``names`` (``discovered_tool_NAME``)."""
    import json

    where = json.dumps(str(root)).replace("\x7f", "\\u007f")
    lines = [
        f"# Gemini CLI Policy Engine rules for the cogtools project at {where}.",
        "# Written by `cogtools sync` (and `cogtools init`) there, and rewritten at each run: an edit",
        "# here is replaced. They allow, without confirmation, the tools that a person reviewed and",
        "# pinned there. A rule is user-wide: a tool of the same name in another project is let",
        "# through too, and refused by cogtools there until it is pinned (`cogtools doctor`).",
        "",
    ]
    for name in names:
        lines += ["[[rule]]", f"toolName = {json.dumps(name)}", 'decision = "allow"', f"priority = {RULE_PRIORITY}", ""]
    return "\n".join(lines)


def store_policy(path: Path, text: str | None, root: Path) -> str:
    """Write (or, for ``text`` None, remove) the rules file ``path``, private to the user and
    never inside the project at ``root``; "created", "updated", "unchanged" or "removed"."""
    import os

    from cogtools.core.fsutil import read_config, write_private

    check_policy_file(path, root)
    old = read_config(path)
    try:
        if text is None:
            if old is None:
                return "unchanged"
            os.unlink(path)
            return "removed"
        if old == text:
            return "unchanged"
        write_private(path, text)
    except OSError as e:
        raise ConfigInvalidError(f"cannot write: {e.strerror}", path=str(path), details={"reason": "unwritable"}) from e
    return "created" if old is None else "updated"


def check_policy_file(path: Path, root: Path) -> None:
    """CONFIG_INVALID when the rules file ``path`` would be inside the project at ``root`` (the
    agent's to write: a rule there would let anything through), its links followed."""
    from cogtools.core.fsutil import inside

    if inside(path.parent, root) or (path.exists() and inside(path, root)):
        raise ConfigInvalidError(
            f"the Gemini CLI policy file would be inside the project, which the agent can write ({path});"
            " set GEMINI_CLI_HOME to a directory outside it",
            path=str(path),
        )


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
