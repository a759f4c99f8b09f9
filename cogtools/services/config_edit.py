"""Changing the configuration: set, unset, add to and remove from one settings file (the project's
``.cogtoolrc.yaml`` or the user's ``config.yaml``), as ``git config`` does.

The file keeps its comments, key order, blank lines, quoting and flow or block style: it is edited
through ruamel.yaml's round-trip loader, with the file's own indentation. ruamel.yaml imports in
about the time PyYAML does (some 25 ms), and only this command pays it. What it may still change:
the spacing before a comment that follows a flow collection (a comment after a value keeps its
column), a one-key mapping inside a flow list (``[{local: ./tools}]`` is written
``[local: ./tools]``, which YAML reads the same), and the indentation of a file that mixes
several.

Nothing is written unless the whole resulting file is a valid configuration (the shipped
``config.schema.json``): a bad key gets a "did you mean", a bad value says what is accepted. A
project's file can be written by the agent (DESIGN §11), so a change there that would raise the
role or widen the policy the user's own file allows is refused, saying where it belongs. The
file is read under the usual limits, written atomically, and every change holds a lock on it, so
that two at once leave a valid file with both changes.
"""

from __future__ import annotations

import io
import json
import re
import typing as t
from pathlib import Path

import yaml
from filelock import FileLock, Timeout
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import CommentMark
from ruamel.yaml.tokens import CommentToken

from cogtools.core import jsonc
from cogtools.core.errors import ConfigInvalidError, PolicyDeniedError, UsageError, close_names, did_you_mean
from cogtools.core.fsutil import config_within, read_config, write_config
from cogtools.core.jsondata import NotJsonData, json_data
from cogtools.core.places import cache_dir, project_key
from cogtools.core.yamlio import load
from cogtools.load.config import (
    CONFIG_NAME,
    DEFAULTS,
    MANIFEST,
    manifest_settings,
    parse_settings,
    read_settings,
    user_config_path,
    user_settings,
)
from cogtools.schema.shipped import load_schema, schema_problem
from cogtools.trust.policy import ROLES, Policy, narrowed

#: The interactive walk's settings, in order (the ones that matter to most projects).
WALK = ("tool_sources", "env_priority", "policy.role", "policy.denied_categories", "discovery_mode")

SCHEMA_LINE = "$schema: schema:agladysh-research.org,2025/cogtools:config\n"


def setting_keys() -> dict[str, dict[str, t.Any]]:
    """Every key ``cogtools config`` takes (``policy``, ``policy.role``...) and its schema."""

    out: dict[str, dict[str, t.Any]] = {}
    for key, schema in load_schema("config")["properties"].items():
        if key.startswith("$"):
            continue
        out[key] = schema
        for sub, sub_schema in (schema.get("properties") or {}).items():
            out[f"{key}.{sub}"] = sub_schema
    return out


def is_list(key: str) -> bool:
    return setting_keys()[key].get("type") == "array"


def check_key(key: str, *, lists_only: bool = False) -> tuple[str, ...]:
    """``key`` as a path (``("policy", "role")``); USAGE naming the nearest key when it is none."""
    keys = setting_keys()
    known = [k for k in keys if is_list(k)] if lists_only else list(keys)
    if key not in known:
        near = close_names(key, known)
        what = "a list setting" if lists_only and key in keys else "a setting"
        hint = f"; {did_you_mean(near)}" if near else f"; the settings are {', '.join(known)}"
        raise UsageError(f"{key!r} is not {what}{hint}", details={"key": key, "known": known})
    return tuple(key.split("."))


def parse_value(text: str) -> t.Any:
    """A value from the command line: a YAML scalar or flow collection (``'[Billing, HR]'``),
    read under the usual limits; JSON-compatible."""

    try:
        value = load(text)
    except yaml.YAMLError as e:
        problem = getattr(e, "problem", None) or "cannot parse"
        raise UsageError(f"the value {text!r} is not YAML: {problem}") from e
    try:
        return json_data(value)
    except NotJsonData as e:
        raise UsageError(f"the value {text!r}: {e.message}") from e


#: The level of the project's ``.cogtoolrc.yaml`` itself, chosen by a person (``--config-file``):
#: the project's level, written there even where ``package.json`` would keep the settings.
CONFIG_FILE = "config-file"


def level_path(level: str, root: Path, environ: t.Mapping[str, str]) -> Path:
    """The file a level writes: the project's ``.cogtoolrc.yaml`` (or the file
    ``COGTOOLS_CONFIG`` names), or its ``package.json`` when that is where the project keeps its
    settings (there is no ``.cogtoolrc.yaml``, and the project has a ``package.json``: its
    ``"cogtools"`` key, added when missing); with :data:`CONFIG_FILE`, the ``.cogtoolrc.yaml``
    whatever else there is; or the user's ``config.yaml``."""

    if level == CONFIG_FILE:
        return root / CONFIG_NAME
    if level == "project":
        explicit = environ.get("COGTOOLS_CONFIG")
        if explicit:
            return Path(explicit).expanduser()
        if not (root / CONFIG_NAME).exists() and _is_manifest(root / MANIFEST):
            return root / MANIFEST
        return root / CONFIG_NAME
    path = user_config_path(environ)
    if path is None:
        raise UsageError("neither XDG_CONFIG_HOME nor HOME is set: there is no user configuration file")
    return path


def _is_manifest(manifest: Path) -> bool:
    """Whether ``manifest`` is a ``package.json`` cogtools can keep settings in: a JSON object it
    reads (one that is not is npm's business, and left alone)."""

    try:
        text = read_config(manifest)
        return text is not None and isinstance(json.loads(text.removeprefix("\ufeff")), dict)
    except (ConfigInvalidError, ValueError, RecursionError):
        return False


class Change(t.NamedTuple):
    """One change of one setting: ``set`` (to ``value``), ``unset``, ``add`` or ``remove``
    (``value`` to or from a list)."""

    action: str
    key: str
    value: t.Any = None
    #: The value as given on the command line, kept for its style (``[a, b]`` stays a flow list).
    text: str | None = None


class Outcome(t.NamedTuple):
    #: Whether the file changed (an ``unset`` of what is not set, a ``remove`` of what is not
    #: there, an ``add`` of what is, change nothing).
    changed: bool
    #: What a person should know: a value copied from pyproject.toml, a setting now shadowed.
    notes: list[str]


def read_for_edit(path: Path) -> tuple[str | None, dict[str, t.Any]]:
    """The text of a settings file (None: it does not exist) and its settings, read under the
    loader's limits: CONFIG_INVALID for a file past a limit or not YAML. The schema is not
    checked here: an edit may be what mends the file."""

    text = read_config(path)
    if text is None:
        return None, {}
    return text, parse_settings(path, text.removeprefix("\ufeff"))


def file_value(path: Path, key: str) -> tuple[bool, t.Any]:
    """Whether the file at ``path`` sets ``key``, and its value there."""
    _, data = read_for_edit(path)
    node: t.Any = data
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return False, None
        node = node[part]
    return True, node


def apply(
    changes: t.Sequence[Change],
    *,
    level: str,
    root: Path,
    environ: t.Mapping[str, str],
    dry_run: bool = False,
    path: Path | None = None,
) -> Outcome:
    """Make ``changes`` to the file of ``level`` (or ``path``, a file of that level: ``cogtools
    init`` gives a ``package.json`` its ``"cogtools"`` key) in one locked read-check-write;
    nothing is written unless the result is valid and allowed (and, with ``dry_run``, nothing at
    all: the changes are only checked)."""
    path = level_path(level, root, environ) if path is None else path
    level = "project" if level == CONFIG_FILE else level
    # The project's file is written only inside the project, whatever links lead to it (nor is
    # what a link leads to outside read and quoted); a file a person named elsewhere
    # (COGTOOLS_CONFIG) or their own is written where it is.
    inside = level == "project" and root.absolute() in path.absolute().parents
    if inside:
        config_within(path, root)
    with _locked(path, environ):
        manifest = path.name == MANIFEST and level == "project"
        text, data = _read_manifest(path) if manifest else read_for_edit(path)
        # A manifest is JSON: what is written is the settings as plain data, each changed key in
        # place (:func:`_manifest_text`); the round-trip document is YAML's alone.
        document, prefix = (json.loads(json.dumps(data)), "") if manifest else _round_trip_load(text)
        plain = json.loads(json.dumps(data))
        notes: list[str] = []
        changed = False
        for change in changes:
            changed |= _change(document, plain, change, (level, path), root, environ, notes)
        if not changed:
            return Outcome(False, notes)
        _validate(plain, path, changes)
        if level == "project":
            _check_trust(plain, changes, environ, path)
        notes += _role_notes(plain, changes)
        if dry_run:
            return Outcome(True, notes)

        path.parent.mkdir(parents=True, exist_ok=True)
        if manifest:
            assert text is not None
            write_config(path, _manifest_text(path, text, data, plain), within=root if inside else None)
        else:
            write_config(path, _round_trip_dump(document, prefix, text), within=root if inside else None)
        return Outcome(True, notes)


def _role_notes(plain: dict[str, t.Any], changes: t.Sequence[Change]) -> list[str]:
    """What a person raising ``policy.role`` must know: it is the role every agent is given."""

    if not any(c.key in ("policy", "policy.role") for c in changes):
        return []
    role = (plain.get("policy") or {}).get("role")
    if role not in ROLES or ROLES.index(role) == 0:
        return []
    return [
        f"policy.role {role} is the role every agent calling these tools is given (Gemini CLI, MCP clients,"
        f" discovery): the tools for {role} are offered to the model and run when it calls them; for a call"
        f" of your own, `cogtools-call --role {role}` or COGTOOLS_ROLE={role} is enough"
    ]


def _read_manifest(path: Path) -> tuple[str | None, dict[str, t.Any]]:
    """The text of a ``package.json`` and the settings of its ``"cogtools"`` key."""

    text = read_config(path)
    if text is None:
        raise ConfigInvalidError("the project's package.json is gone", path=str(path))
    return text, manifest_settings(path, text.removeprefix("\ufeff")) or {}


def _manifest_text(path: Path, text: str, before: dict[str, t.Any], after: dict[str, t.Any]) -> str:
    """``text`` (a ``package.json``) with each setting that changed from ``before`` to ``after``
    set or removed in its ``"cogtools"`` key, every other byte as it was."""

    bom = "\ufeff" if text.startswith("\ufeff") else ""
    text = text.removeprefix(bom)
    try:
        for key in sorted(set(before) | set(after)):
            if key not in after:
                text = jsonc.remove_value(text, ("cogtools", key))
            elif before.get(key) != after[key]:
                span = _one_line(text, key) if isinstance(after[key], (list, dict)) else None
                if span is not None:  # a list written on one line stays on one line
                    text = text[: span[0]] + json.dumps(after[key], ensure_ascii=False) + text[span[1] :]
                else:
                    text = jsonc.set_value(text, ("cogtools", key), after[key])
    except (jsonc.JsoncError, jsonc.CannotEdit) as e:
        raise ConfigInvalidError(f"cannot change it without losing what it holds: {e}", path=str(path)) from e
    return bom + text


def _one_line(text: str, key: str) -> tuple[int, int] | None:
    """Where the value of ``"cogtools"``'s ``key`` is in ``text`` (a ``package.json``), when it
    is written on one line with no comment in it; else None."""

    stripped, top = jsonc._top(text, ("cogtools", key))
    found = [member for member in top.members if member.key == "cogtools"]
    if not found or stripped[found[-1].value_start] != "{":
        return None
    members = [member for member in jsonc._object(stripped, found[-1].value_start).members if member.key == key]
    if not members:
        return None
    start, end = members[-1].value_start, members[-1].value_end
    return (start, end) if "\n" not in stripped[start:end] and stripped[start:end] == text[start:end] else None


def _change(
    document: t.Any,
    plain: dict[str, t.Any],
    change: Change,
    writing: tuple[str, Path],
    root: Path,
    environ: t.Mapping[str, str],
    notes: list[str],
) -> bool:
    """Make ``change`` to ``document`` and ``plain`` (the file's settings as data), ``writing``
    being the level and the file; whether anything changed."""
    level, path = writing
    parts = change.key.split(".")
    head, leaf = parts[:-1], parts[-1]
    if change.action == "unset":
        for target in (plain, document):
            node = _descend(target, head, create=False)
            if node is None or leaf not in node:
                return False
            del node[leaf]
            if head and not node:  # policy: {} left empty goes too
                del _descend(target, head[:-1], create=False)[head[-1]]
        return True
    if parts[0] not in plain:
        _seed(document, plain, parts[0], writing, root, environ, notes)
    if change.action == "set":
        for target, value in ((plain, change.value), (document, _styled(change))):
            _descend(target, head, create=True)[leaf] = value
        return True
    current = _descend(plain, head, create=False)
    items = current.get(leaf) if current is not None else None
    if items is None:
        items = _base_list(change.key, level, environ)
        for target in (plain, document):
            _descend(target, head, create=True)[leaf] = list(items) if target is plain else _new_list(items)
    if not isinstance(items, list):
        raise UsageError(f"{change.key} is not a list in {path}")
    present = change.value in items
    if change.action == "add":
        if present:
            return False
        # The item as plain data: it takes the list's own style (block or flow).
        _descend(plain, head, create=False)[leaf].append(change.value)
        _append(_descend(document, head, create=False)[leaf], json.loads(json.dumps(change.value)))
        return True
    if not present:
        return False
    index = items.index(change.value)
    del _descend(plain, head, create=False)[leaf][index]
    _remove(_descend(document, head, create=False)[leaf], index)
    return True


def _seed(
    document: t.Any,
    plain: dict[str, t.Any],
    key: str,
    level_and_file: tuple[str, Path],
    root: Path,
    environ: t.Mapping[str, str],
    notes: list[str],
) -> None:
    """A top-level key the file does not set yet replaces the whole of it from the files below
    (a later file replaces a whole top-level key): the project's pyproject.toml's value is copied
    first, so that nothing of it is lost; one from the user's file is said to be shadowed."""

    level, writing = level_and_file
    if level == "project":
        below = [(MANIFEST, "package.json", '"cogtools"'), ("pyproject.toml", "pyproject", "[tool.cogtools]")]
        for name, kind, where in below[1:] if writing.name == MANIFEST else below:
            found = read_settings(root / name, kind, root)
            if found is not None and key in found:
                value = found[key]
                plain[key] = json.loads(json.dumps(value))
                document[key] = value if writing.name == MANIFEST else _round_trip_value(json.dumps(value))
                notes.append(f"copied {key} from {name} {where}, which the project's file now replaces whole")
                return
        user, settings = user_settings(environ)
        if settings is not None and key in settings and key not in ("policy",):
            notes.append(f"{key} of the project's file now replaces the whole of {key} from {user}")


def _descend(node: t.Any, parts: t.Sequence[str], *, create: bool) -> t.Any:
    for part in parts:
        if not isinstance(node, dict):
            return None
        if part not in node:
            if not create:
                return None
            node[part] = _mapping_like(node)
        node = node[part]
    return node if isinstance(node, dict) else None


def _mapping_like(node: t.Any) -> t.Any:
    if type(node) is dict:
        return {}

    return CommentedMap()


def _append(sequence: t.Any, item: t.Any) -> None:
    """Append to a round-trip list, the blank lines and comments that followed its last item
    following the new one (ruamel.yaml keeps them on the item they came after)."""

    sequence.append(CommentedMap(item) if isinstance(item, dict) and item else item)
    if len(sequence) > 1:
        _give_after(sequence, len(sequence) - 1, _take_after(sequence, len(sequence) - 2))


def _remove(sequence: t.Any, index: int) -> None:
    """Remove an item of a round-trip list; what followed the last item follows the new last."""
    taken = _take_after(sequence, index) if index == len(sequence) - 1 else ("", None)
    del sequence[index]
    if sequence:
        _give_after(sequence, len(sequence) - 1, taken)


def _trailing(sequence: t.Any, index: int) -> tuple[t.Any, int] | None:
    """Where the comment after item ``index`` is kept: (the ruamel.yaml comment slots, the slot)."""

    item = sequence[index]
    if isinstance(item, CommentedMap) and item:
        return item.ca.items.setdefault(list(item)[-1], [None, None, None, None]), 2
    comments = getattr(sequence, "ca", None)
    return (comments.items.setdefault(index, [None, None, None, None]), 0) if comments is not None else None


def _take_after(sequence: t.Any, index: int) -> tuple[str, t.Any]:
    """The lines after item ``index``'s own line (blank lines, comments on lines of their own),
    taken from it, and where they were."""
    where = _trailing(sequence, index)
    if where is None or where[0][where[1]] is None:
        return "", None
    token = where[0][where[1]]
    own, _, after = str(token.value).partition("\n")
    if after:
        token.value = own + "\n"
    return after, token.start_mark


def _give_after(sequence: t.Any, index: int, taken: tuple[str, t.Any]) -> None:
    after, mark = taken
    if not after:
        return

    where = _trailing(sequence, index)
    if where is None:
        return
    slots, slot = where
    if slots[slot] is not None:
        own, mark = str(slots[slot].value).partition("\n")[0], slots[slot].start_mark
    else:
        own, mark = "", mark or CommentMark(0)
    slots[slot] = CommentToken(own + "\n" + after, mark)


def _new_list(items: t.Sequence[t.Any]) -> t.Any:

    return CommentedSeq(json.loads(json.dumps(list(items))))


def _base_list(key: str, level: str, environ: t.Mapping[str, str]) -> list[t.Any]:
    """What a list the file does not set holds before an ``add`` to it: a top-level list replaces
    the one below it whole, so it starts as that one (the user's, for the project's file; else
    the default); ``policy.denied_categories`` adds to the user's, so it starts empty."""

    if "." in key:
        return []
    settings = user_settings(environ)[1] if level == "project" else None
    if settings is not None and key in settings:
        return list(settings[key])
    return list(DEFAULTS.get(key, []))


def _styled(change: Change) -> t.Any:
    """The value as ruamel.yaml reads what was typed, so that ``[a, b]`` is written as typed."""
    return _round_trip_value(change.text) if change.text is not None else change.value


def _round_trip_value(text: str) -> t.Any:

    return YAML().load(text)


def _validate(plain: dict[str, t.Any], path: Path, changes: t.Sequence[Change]) -> None:
    """USAGE for a value the schema refuses (what is accepted is said); CONFIG_INVALID for a
    problem of the file elsewhere."""

    problem = schema_problem(plain, "config")
    if problem is None:
        return
    where = ".".join(str(p) for p in problem.key_path)
    for change in changes:
        if where == change.key or where.startswith(change.key + ".") or change.key.startswith(where + ".") or not where:
            raise UsageError(
                f"{change.key}: {problem.message}"
                if where == change.key or not where
                else f"{where}: {problem.message}",
                details={"key": change.key, **problem.details},
            )
    raise ConfigInvalidError(
        f"{problem.message} (the file has this problem already; mend it, or unset {where})",
        path=str(path),
        key_path=problem.key_path,
    )


def _check_trust(
    plain: dict[str, t.Any], changes: t.Sequence[Change], environ: t.Mapping[str, str], path: Path
) -> None:
    """POLICY_DENIED for a project-file change that would raise the role or widen a limit the
    user's own configuration sets: the agent can write the project's files."""

    if not any(c.key == "policy" or c.key.startswith("policy.") for c in changes):
        return
    user, found = user_settings(environ)
    trusted = Policy.from_settings((found or {}).get("policy", {}), environ)
    for widening in narrowed(trusted._asdict(), plain.get("policy") or {}).widenings:
        key = widening.key
        where = (
            "COGTOOLS_ROLE"
            if key == "role" and environ.get("COGTOOLS_ROLE")
            else (str(user) if found else "the default")
        )
        raise PolicyDeniedError(
            f"policy.{key} {widening.wanted} would widen what {where} allows ({widening.allowed}): a project's file can"
            f" only narrow the policy, since the agent can write it; set it with --user"
            + (" or COGTOOLS_ROLE" if key == "role" else ""),
            details={"key": f"policy.{key}", "value": widening.wanted, "allowed": widening.allowed, "file": str(path)},
        )


def _round_trip_load(text: str | None) -> tuple[t.Any, str]:
    """The file as ruamel.yaml's round trip reads it, and the text to write before it: a new file
    starts with the ``$schema`` line; a file of comments alone (which ruamel.yaml would drop)
    keeps them."""

    if text is None:
        return CommentedMap(), SCHEMA_LINE
    document = _yaml(text).load(text) if text.strip() else None
    if document is None:
        return CommentedMap(), text if not text or text.endswith("\n") else text + "\n"
    return document, ""


def _round_trip_dump(document: t.Any, prefix: str, text: str | None) -> str:
    """The text to write: ruamel.yaml's dump of ``document`` after ``prefix``; a document left
    empty keeps the comments that opened the file (ruamel.yaml holds them on its first key)."""
    if not document:
        lines = (text or "").splitlines(keepends=True)
        header = "".join(line for line in _leading(lines))
        return prefix or header
    out = io.StringIO()
    _yaml(text or "").dump(document, out)
    dumped = prefix + out.getvalue()
    if text is not None and text.startswith("\ufeff") and not dumped.startswith("\ufeff"):
        dumped = "\ufeff" + dumped
    return dumped


def _leading(lines: list[str]) -> t.Iterator[str]:
    """The comment and blank lines a file opens with."""
    for line in lines:
        if line.strip() and not line.lstrip().startswith("#"):
            return
        yield line


def _yaml(text: str) -> t.Any:
    """A round-trip YAML that writes with the file's own indentation (by default, as ``cogtools
    init`` writes: mappings by 2, list items by 2 then their content)."""

    mapping, offset = _indentation(text)
    yaml = YAML()
    yaml.preserve_quotes = True
    yaml.width = 4096
    yaml.indent(mapping=mapping, sequence=offset + 2, offset=offset)
    return yaml


_KEY_LINE = re.compile(r"^( *)[^\s#-][^#]*:\s*(#.*)?$")


def _indentation(text: str) -> tuple[int, int]:
    """How far a nested mapping and a block list's ``-`` are indented under their key in
    ``text``; (2, 2) when it does not say."""
    mapping = offset = None
    lines = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    for line, following in zip(lines, lines[1:], strict=False):
        found = _KEY_LINE.match(line)
        if not found:
            continue
        depth = len(following) - len(following.lstrip(" ")) - len(found.group(1))
        if depth < 0 or (depth == 0 and not following.lstrip().startswith("- ")):
            continue
        if following.lstrip().startswith("- "):
            offset = depth if offset is None else offset
        elif depth > 0:
            mapping = depth if mapping is None else mapping
    return mapping or 2, 2 if offset is None else offset


class _locked:
    """An exclusive lock on the settings file at ``path`` for one read-check-write (filelock).
    The lock file lives in the user's cache directory, not beside the file; with caching off,
    beside it."""

    def __init__(self, path: Path, environ: t.Mapping[str, str]) -> None:

        directory = cache_dir(environ)
        name = project_key(path.absolute())
        self._file = directory / "locks" / f"config-{name}.lock" if directory is not None else Path(str(path) + ".lock")
        self._path = path

    def __enter__(self) -> None:

        try:
            self._file.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            self._lock = FileLock(str(self._file), timeout=30)
            self._lock.acquire()
        except Timeout as e:
            raise ConfigInvalidError(
                f"{self._path} stayed locked by another change for 30 s", path=str(self._path)
            ) from e
        except OSError as e:
            raise ConfigInvalidError(f"cannot lock {self._file}: {e.strerror}", path=str(self._path)) from e

    def __exit__(self, *exc: object) -> None:
        self._lock.release()


#: Where a project keeps its settings: ``.cogtoolrc.yaml``, its ``package.json``'s ``"cogtools"``
#: key, or its ``pyproject.toml``'s ``[tool.cogtools]``.
YAML_HOME, MANIFEST_HOME, PYPROJECT_HOME = "yaml", "package.json", "pyproject"
PYPROJECT = "pyproject.toml"


def settings_home(root: Path, *, config_file: bool) -> tuple[Path, str]:
    """The file ``cogtools init`` keeps the project's settings in, and its kind: the
    ``.cogtoolrc.yaml`` a person chose (``config_file``) or that exists; else the project's
    ``package.json`` (Node's own model: its ``"cogtools"`` key, added when missing); else a
    ``pyproject.toml`` that has ``[tool.cogtools]``; else a new ``.cogtoolrc.yaml``. A
    ``.cogtoolrc.yaml`` beside the others would replace their settings, key by key, unseen.
    CONFIG_INVALID for a ``"cogtools"`` key or table that is not a valid configuration."""

    yaml_file = root / CONFIG_NAME
    if config_file or yaml_file.exists() or yaml_file.is_symlink():
        return yaml_file, YAML_HOME
    manifest = root / MANIFEST
    if _is_manifest(manifest):  # one cogtools cannot read is npm's file: not where the settings go
        read_settings(manifest, MANIFEST_HOME, root)  # the person's settings, if any, must be valid
        return manifest, MANIFEST_HOME
    if read_settings(root / PYPROJECT, PYPROJECT_HOME, root) is not None:
        return root / PYPROJECT, PYPROJECT_HOME
    return yaml_file, YAML_HOME


class Edit(t.NamedTuple):
    """What ``cogtools init`` does to a manifest that keeps the settings: the report line, the
    text to write (None: nothing) and what a person should know."""

    path: Path
    done: str
    text: str | None
    notes: list[str]


def init_manifest(path: Path, kind: str, tools_dir: str, root: Path, environ: t.Mapping[str, str]) -> Edit:
    """The change ``cogtools init`` makes to the ``package.json`` or ``pyproject.toml`` at
    ``path`` that keeps the settings, checked (nothing is written): its ``tool_sources`` made to
    list ``./TOOLS_DIR``, every other byte as it was."""

    entry = {"local": f"./{tools_dir}"}
    shown, where = (MANIFEST, '"cogtools" key') if kind == MANIFEST_HOME else (PYPROJECT, "[tool.cogtools]")
    settings = read_settings(path, kind, root) or {}
    sources = settings.get("tool_sources")
    if isinstance(sources, list) and any(_names_dir(source, tools_dir) for source in sources):
        return Edit(path, f"unchanged {shown} (its {where} keeps the settings)", None, [])
    if kind == MANIFEST_HOME:
        change = Change("set", "tool_sources", [entry]) if sources is None else Change("add", "tool_sources", entry)
        text = read_config(path)
        assert text is not None
        apply([change], level="project", root=root, environ=environ, dry_run=True, path=path)  # checked
        plain = json.loads(json.dumps(settings))
        plain["tool_sources"] = [*(sources or []), entry]
        return Edit(
            path,
            f"updated {shown} (its {where} keeps the settings: tool_sources lists ./{tools_dir})",
            _manifest_text(path, text, settings, plain),
            [],
        )
    if sources is not None:  # a TOML list is not rewritten in place: said, not done
        return Edit(
            path,
            f"unchanged {shown} (its {where} keeps the settings)",
            None,
            [
                f"tool_sources in {shown} {where} does not list ./{tools_dir}, where the starter tool is:"
                f' add {{ local = "./{tools_dir}" }} to it'
            ],
        )
    text = read_config(path)
    assert text is not None
    return Edit(
        path,
        f"updated {shown} (its {where} keeps the settings: tool_sources lists ./{tools_dir})",
        _toml_added(path, text, "tool_sources", f"[{{ local = {json.dumps(entry['local'])} }}]", settings),
        [],
    )


def _names_dir(source: t.Any, tools_dir: str) -> bool:
    import os.path

    return isinstance(source, dict) and os.path.normpath(str(source.get("local", ""))) == os.path.normpath(tools_dir)


_TABLE_HEADER = re.compile(r"^[ \t]*\[[ \t]*tool[ \t]*\.[ \t]*cogtools[ \t]*\][ \t]*(#.*)?$")
_ANY_HEADER = re.compile(r"^[ \t]*\[")


def _toml_added(path: Path, text: str, key: str, value: str, before: dict[str, t.Any]) -> str:
    """``text`` (a ``pyproject.toml``) with ``key = value`` added as the last line of its
    ``[tool.cogtools]`` table, every other byte as it was; CONFIG_INVALID where the table is not
    written as one ``[tool.cogtools]`` header (dotted keys, an inline table), or the result would
    not read back as the settings with ``key`` added."""

    lines = text.splitlines(keepends=True)
    headers = [i for i, line in enumerate(lines) if _TABLE_HEADER.match(line.rstrip("\r\n"))]
    if len(headers) == 1:
        end = next((i for i in range(headers[0] + 1, len(lines)) if _ANY_HEADER.match(lines[i])), len(lines))
        while end > headers[0] + 1 and not lines[end - 1].strip():
            end -= 1  # after the table's last line, before the blank lines that end it
        newline = "\r\n" if lines[headers[0]].endswith("\r\n") else "\n"
        if end and not lines[end - 1].endswith(("\n", "\r")):
            lines[end - 1] += newline
        lines.insert(end, f"{key} = {value}{newline}")
        edited = "".join(lines)
        from cogtools.load.config import _parse_pyproject

        try:
            found = _parse_pyproject(path, edited.removeprefix("\ufeff"))
        except ConfigInvalidError:
            found = None
        if found is not None and {k: v for k, v in found[0].items() if k != key} == before and key in found[0]:
            return edited
    raise ConfigInvalidError(
        f"cannot add {key} to [tool.cogtools] without rewriting the file: add `{key} = {value}` to it by hand,"
        " or keep the settings in .cogtoolrc.yaml (--config-file)",
        path=str(path),
    )
