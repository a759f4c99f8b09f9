"""Gemini CLI's Policy Engine: where it reads its rules, what they (and ``tools.allowed``) let run
without asking, and the rules file ``cogtools sync`` writes for a project."""

from __future__ import annotations

import json
import os
import re
import stat
import typing as t
from pathlib import Path

from cogtools.clients.gemini import PREFIX
from cogtools.clients.gemini.settings import (
    Layer,
    effective,
    gemini_home,
    resolve_path,
    settings_layers,
    system_config_dir,
)
from cogtools.core.errors import ConfigInvalidError
from cogtools.core.fsutil import inside, read_config, write_private
from cogtools.core.limits import MAX_CONFIG_BYTES, read_file
from cogtools.core.places import project_key
from cogtools.trust.clients import Unasked

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


#: The priority of cogtools' allow rules within the user tier (4.100): above every shipped
#: default (1.x, among them ``discovered_tool_*``'s ask and headless deny at 1.010), below what a
#: person's own settings say of a tool (tools.exclude 4.4, tools.confirmationRequired 4.35) and
#: their own rules of a higher priority.
RULE_PRIORITY = 100


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
    from cogtools.core import tomlio  # only where a rules file may name the tool (a call pays for no TOML reader)

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

    if layers is None:
        layers = settings_layers(root, environ)
    names: dict[str, str] = {}
    every = _allowed_in_settings(layers, names)
    skip = {os.path.realpath(path) for path in leave_out}
    broken = []
    sources = policy_sources(layers, root, environ)
    for source in [*(path for path, _ in sources.user), *sources.admin]:
        for path in policy_files(source):
            if os.path.realpath(path) in skip or (only is not None and not _may_name(path, PREFIX + only)):
                continue
            try:
                rules = read_rules(path)
            except ConfigInvalidError as e:
                broken.append((path, e.message))
                continue
            found = _allowed_by_rules(rules, path, names)
            every = every or found
    return Unasked(names, every, tuple(broken))


def _allowed_in_settings(layers: t.Sequence[Layer], names: dict[str, str]) -> str | None:
    """Add to ``names`` the tools the merged ``tools.allowed`` lets through; what lets every
    tool through (an entry ``*``), None when nothing does."""
    allowed = effective(layers, "tools", "allowed")
    if allowed is None or not isinstance(allowed.value, list):
        return None
    where = f"tools.allowed of {allowed.layer.path}"
    every = None
    for entry in allowed.value:
        name = _ALLOWED_ENTRY.sub(r"\1", entry) if isinstance(entry, str) else ""
        if name == "*":
            every = every or where
        elif name.startswith(PREFIX):
            names.setdefault(name[len(PREFIX) :], where)
    return every


def _allowed_by_rules(rules: t.Iterable[Rule], path: Path, names: dict[str, str]) -> str | None:
    """Add to ``names`` the tools the allow rules of the file ``path`` let through in Gemini
    CLI's default modes; what lets every tool through (a rule for ``*``), None when nothing does."""
    every = None
    for rule in rules:
        if rule.decision != "allow" or rule.mcp or (rule.modes and set(rule.modes) <= _CHOSEN_MODES):
            continue
        if rule.tool == "*":
            every = every or f"a rule for every tool in {path}"
        elif rule.tool.startswith(PREFIX) and "*" not in rule.tool:
            names.setdefault(rule.tool[len(PREFIX) :], f"a rule in {path}")
    return every


def _may_name(path: Path, name: str) -> bool:
    """Whether the rules file ``path`` could hold a rule for ``name`` (it names it, or ``*``, or
    uses an escape); True when it cannot be read (the parse then says why)."""

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

    name = re.sub(r"[^A-Za-z0-9._-]+", "_", root.name)[:40].strip("._") or "project"
    return gemini_home(environ) / ".gemini" / "policies" / f"cogtools-{name}-{project_key(root)[:12]}.toml"


def policy_rules(root: Path, names: t.Sequence[str]) -> str:
    """The text of the project's rules file: a header saying whose it is and who writes it, and
    an allow rule for each of ``names`` (``discovered_tool_NAME``)."""

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


#: What :func:`store_policy` says when the rules file was a symbolic link, which it replaced.
REPLACED_LINK = "replaced the symbolic link"


def store_policy(path: Path, text: str | None, root: Path) -> str:
    """Write (or, for ``text`` None, remove) the rules file ``path``, private to the user and
    never inside the project at ``root``; "created", "updated", "unchanged", "removed", or
    :data:`REPLACED_LINK`: Gemini CLI loads no policy file that is a symbolic link, so a link
    there is replaced by the file (never written through; what it led to is left as it was),
    even where what it leads to holds the same rules."""

    check_policy_file(path, root)
    linked = path.is_symlink()
    old = None if linked else read_config(path)
    try:
        if text is None:
            if old is None and not linked:
                return "unchanged"
            os.unlink(path)
            return "removed"
        if old == text:
            return "unchanged"
        replaced = write_private(path, text)
    except OSError as e:
        raise ConfigInvalidError(f"cannot write: {e.strerror}", path=str(path), details={"reason": "unwritable"}) from e
    if replaced:
        return REPLACED_LINK
    return "created" if old is None else "updated"


def stored_notes(done: str, path: Path) -> list[str]:
    """What a person should know of how :func:`store_policy` stored ``path``."""
    if done != REPLACED_LINK:
        return []
    return [
        f"note: {path} was a symbolic link, and Gemini CLI loads no policy file that is one (its rules never"
        " applied): it is now a file of its own, and what the link led to is left as it was"
    ]


def check_policy_file(path: Path, root: Path) -> None:
    """CONFIG_INVALID when the rules file ``path`` would be inside the project at ``root`` (the
    agent's to write: a rule there would let anything through), its directory's links followed
    (a link in place of the file itself is replaced, not followed: :func:`store_policy`)."""

    if inside(path.parent, root) or (not path.is_symlink() and path.exists() and inside(path, root)):
        raise ConfigInvalidError(
            f"the Gemini CLI policy file would be inside the project, which the agent can write ({path});"
            " set GEMINI_CLI_HOME to a directory outside it",
            path=str(path),
        )
