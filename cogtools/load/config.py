"""Configuration: where each setting comes from, and what it is.

Settings are read from, lowest precedence first (a later one replaces a whole top-level key):

1. the defaults below;
2. the user's file, ``$XDG_CONFIG_HOME/cogtools/config.yaml`` (``~/.config/cogtools/...``);
3. the project's ``pyproject.toml``, table ``[tool.cogtools]``;
4. the project's ``package.json``, key ``"cogtools"`` (seed 004: "Project's package.json"; its
   ``tools`` member is what the project ships as an npm toolset, :mod:`cogtools.load.npm`, not a
   setting);
5. the project's ``.cogtoolrc.yaml`` (or the file ``$COGTOOLS_CONFIG`` names instead);
6. the environment: ``COGTOOLS_ENV_PRIORITY``.

``.cogtoolrc.yaml`` wins over the manifests because it is cogtools' own file; ``package.json``
over ``pyproject.toml`` for no better reason than that an order is needed (a project rarely has
both with settings). Every file is
checked against the shipped ``config.schema.json``; a broken one is ``CONFIG_INVALID`` naming
file, line and key. Every value remembers its origin, for ``cogtools config --show-origin``.
"""

from __future__ import annotations

import typing as t
from pathlib import Path

from cogtools.core.errors import ConfigInvalidError

if t.TYPE_CHECKING:
    from cogtools.load.cache import CatalogCache

CONFIG_NAME = ".cogtoolrc.yaml"
#: A JavaScript project's manifest, whose ``"cogtools"`` key can carry the settings.
MANIFEST = "package.json"
#: The member of a package's ``"cogtools"`` key that declares the tools it ships (not a setting).
TOOLS_MEMBER = "tools"

DEFAULTS: dict[str, t.Any] = {
    "tool_sources": [{"local": "./tools"}],
    "env_priority": "project",
    "policy": {},
    "limits": {},
    "discovery_mode": False,
    "python_path": [],
    "sandbox": {},
    "auth": {},
}

#: Environment variables that set a configuration key.
ENV_SETTINGS = {"COGTOOLS_ENV_PRIORITY": "env_priority"}


class Setting(t.NamedTuple):
    value: t.Any
    #: "default", a file (with its line when known), or "environment VARIABLE".
    origin: str


class Config(t.NamedTuple):
    settings: dict[str, Setting]
    #: The configuration files that exist and were read, lowest precedence first.
    files: tuple[str, ...]
    #: The settings as the defaults and the user's own file make them, before any file of the
    #: project (which the agent can write) has its say: policy that only the user may raise
    #: is taken from here (see :meth:`cogtools.trust.policy.Policy.of`).
    trusted: dict[str, Setting] = {}

    def value(self, key: str) -> t.Any:
        return self.settings[key].value


def user_config_path(environ: t.Mapping[str, str]) -> Path | None:
    """The user's own configuration file (:func:`cogtools.core.places.config_dir`)."""
    from cogtools.core.places import config_dir

    directory = config_dir(environ)
    return directory / "config.yaml" if directory is not None else None


def load_config(root: Path, environ: t.Mapping[str, str], cache: CatalogCache | None = None) -> Config:
    settings = {key: Setting(value, "default") for key, value in DEFAULTS.items()}
    files: list[str] = []
    explicit = environ.get("COGTOOLS_CONFIG")
    project_file = Path(explicit).expanduser() if explicit else root / CONFIG_NAME
    candidates: list[tuple[Path | None, str]] = [
        (user_config_path(environ), "yaml"),
        (root / "pyproject.toml", "pyproject"),
        (root / MANIFEST, "package.json"),
        (project_file, "yaml"),
    ]
    trusted = dict(settings)
    for path, kind in candidates:
        if path is None:
            continue
        # A file of the project's (not one a person named, nor their own) may be a link the
        # agent planted; what it points at is not quoted in an error.
        ours = path != candidates[0][0] and not (path == project_file and explicit)
        loaded = _read(
            path, kind, cache, required=(path == project_file and bool(explicit)), root=root if ours else None
        )
        if loaded is None:
            continue
        data, lines = loaded
        files.append(str(path))
        for key, value in data.items():
            if key == TOOLS_GIVEN and settings["tool_sources"].origin == "default":
                # the tools the project ships are its own: its default sources, unless set elsewhere
                where = f"{path}:{lines[key]}" if lines.get(key) else str(path)
                settings["tool_sources"] = Setting([{"local": _local(entry)} for entry in value], where)
            if key.startswith("$"):
                continue
            line = lines.get(key)
            settings[key] = Setting(value, f"{path}:{line}" if line else str(path))
        if kind == "yaml" and path == candidates[0][0]:  # the user's own file
            trusted = dict(settings)
    for variable, key in ENV_SETTINGS.items():
        if environ.get(variable):
            value = environ[variable]
            _check({key: value}, f"environment {variable}", {})
            settings[key] = Setting(value, f"environment {variable}")
            trusted[key] = settings[key]
    return Config(settings, tuple(files), trusted)


def _local(entry: str) -> str:
    """A ``local:`` source for a directory a package.json's ``"tools"`` names (``tools/``: ``./tools``)."""
    entry = entry.rstrip("/") or "."
    return entry if entry.startswith(("./", "../")) or entry == "." else "./" + entry


def read_settings(path: Path, kind: str = "yaml", root: Path | None = None) -> dict[str, t.Any] | None:
    """The settings one file sets (``kind``: "yaml", "pyproject" for ``[tool.cogtools]``, or
    "package.json" for its ``"cogtools"`` key),
    checked against the schema; None when it does not exist (or has no such table). With
    ``root``, the file is the project's: see :func:`_read`."""
    found = _read(path, kind, None, required=False, root=root)
    return found[0] if found is not None else None


def user_settings(environ: t.Mapping[str, str]) -> tuple[Path | None, dict[str, t.Any] | None]:
    """The user's own configuration file and what it sets (None: there is no such file)."""
    path = user_config_path(environ)
    return path, (read_settings(path) if path is not None and path.is_file() else None)


def parse_settings(path: Path, text: str) -> dict[str, t.Any]:
    """The settings of a YAML configuration file's ``text``, read under the loader's limits
    (CONFIG_INVALID for what is past a limit or not YAML) but not checked against the schema:
    for an edit, which may be what mends the file."""
    return _parse_yaml(path, text, check=False)[0]


#: What is said of a project's configuration file that does not load and is reached through a
#: link leading outside the project: what it points at may be any file of the person's, and what
#: a parser quotes of it (a key, a value) would reach the model through cogtools_problems.
LINKED_AWAY = (
    "reached through a symbolic link that leads outside the project, and not a configuration that"
    " loads; what it points at is not shown (replace the link with the file itself to see why)"
)


def _read(
    path: Path, kind: str, cache: CatalogCache | None, *, required: bool, root: Path | None = None
) -> tuple[dict[str, t.Any], dict[str, int]] | None:
    """The settings in one file and the line of each top-level key; None when it does not exist
    (or, for ``pyproject.toml``, has no ``[tool.cogtools]``). With ``root`` (the file is the
    project's), an error in a file that a link leads to outside ``root`` names the file only."""
    try:
        return _read_checked(path, kind, cache, required=required)
    except ConfigInvalidError as e:
        from cogtools.core.fsutil import inside

        if root is not None and not inside(path, root):
            raise ConfigInvalidError(LINKED_AWAY, path=str(path)) from None
        raise e


def _read_checked(
    path: Path, kind: str, cache: CatalogCache | None, *, required: bool
) -> tuple[dict[str, t.Any], dict[str, int]] | None:
    from cogtools.load.cache import file_stat

    try:
        stat = file_stat(path.stat())
    except FileNotFoundError:
        if required:
            raise ConfigInvalidError(
                f"no such configuration file: {path} (from COGTOOLS_CONFIG)", path=str(path)
            ) from None
        return None
    except OSError as e:
        raise ConfigInvalidError(f"cannot read: {e.strerror}", path=str(path)) from e
    cached = cache.config_entry(str(path), stat) if cache is not None else None
    if cached is not None:
        return (cached["data"], cached["lines"]) if cached["data"] is not None else None
    from cogtools.core.fsutil import read_config

    try:
        text = read_config(path)
    except ConfigInvalidError:
        if kind == "package.json":  # npm's file, which cogtools cannot read: it holds no settings of ours
            return None
        raise
    if text is None:
        return None
    text = text.removeprefix("\ufeff")
    parse = {"pyproject": _parse_pyproject, "package.json": _parse_manifest}.get(kind, _parse_yaml)
    parsed = parse(path, text)
    if cache is not None:
        cache.put_config(str(path), stat, {"data": parsed[0] if parsed else None, "lines": parsed[1] if parsed else {}})
    return parsed


def _parse_yaml(path: Path, text: str, *, check: bool = True) -> tuple[dict[str, t.Any], dict[str, int]]:
    """The settings of a YAML file and the line of each top-level key; CONFIG_INVALID for what is
    not YAML, past a limit, not JSON-like data, or (with ``check``) not a valid configuration."""
    import yaml

    from cogtools.core.jsondata import NotJsonData, json_data
    from cogtools.core.yamlio import describe_error, load_located

    try:
        data, locate = load_located(text)
    except yaml.YAMLError as e:
        message, line = describe_error(e, text)
        raise ConfigInvalidError(message, path=str(path), line=line) from e
    if data is None:
        return {}, {}
    try:
        data = json_data(data)
    except NotJsonData as e:
        raise ConfigInvalidError(e.message, path=str(path), line=locate(e.key_path), key_path=e.key_path) from e
    if check:
        _check(data, str(path), {}, locate)
    elif not isinstance(data, dict):
        raise ConfigInvalidError("the configuration is a mapping of settings", path=str(path))
    return data, {key: line for key in data if (line := locate((key,))) is not None}


def _parse_pyproject(path: Path, text: str) -> tuple[dict[str, t.Any], dict[str, int]] | None:
    from cogtools.core.tomlio import TomlProblem, loads

    try:
        document = loads(text)
    except TomlProblem as e:
        raise ConfigInvalidError(e.message, path=str(path)) from e
    table = document.get("tool", {}).get("cogtools")
    if table is None:
        return None
    from cogtools.core.jsondata import NotJsonData, json_data

    try:
        data = json_data(table)
    except NotJsonData as e:
        raise ConfigInvalidError(e.message, path=str(path), key_path=("tool", "cogtools", *e.key_path)) from e
    _check(data, str(path), {"table": "[tool.cogtools]"}, prefix=("tool", "cogtools"))
    return data, {}


#: Where :func:`manifest_settings` puts what a project's ``"tools"`` member names (not a setting:
#: ``$`` keys are none), for :func:`load_config` to make the project's default ``tool_sources``.
TOOLS_GIVEN = "$tools"


def manifest_settings(path: Path, text: str, *, tools: bool = False) -> dict[str, t.Any] | None:
    """The settings a ``package.json``'s ``"cogtools"`` key carries (its ``tools`` member left
    out, or, with ``tools``, given as :data:`TOOLS_GIVEN`), not checked against the schema; None
    when it has no such key. CONFIG_INVALID for a file that is not JSON, or a key that is not an
    object."""
    import json
    import re

    from cogtools.core.jsondata import NotJsonData, json_data, refuse_constant

    if not re.search(r'"cogtools"\s*:', text):  # a JavaScript project's manifest, not cogtools' business
        return None
    try:
        document = json.loads(text, parse_constant=refuse_constant, object_pairs_hook=_Pairs)
    except (ValueError, RecursionError) as e:
        raise ConfigInvalidError(f"not JSON: {e}", path=str(path)) from None
    if not isinstance(document, dict) or "cogtools" not in document:
        return None
    table = document["cogtools"]
    if not isinstance(table, dict):
        raise ConfigInvalidError('"cogtools" is an object of settings', path=str(path), key_path=("cogtools",))
    given_twice = document.twice if isinstance(document, _Pairs) else set()
    twice = ("cogtools",) if "cogtools" in given_twice else _given_twice(table, ("cogtools",))
    if twice is not None:  # JSON.parse takes the last, a person may read the first: say so
        raise ConfigInvalidError(f"the key {'.'.join(twice)} is given twice", path=str(path), key_path=twice)
    try:
        data = json_data({key: value for key, value in table.items() if key != TOOLS_MEMBER})
    except NotJsonData as e:
        raise ConfigInvalidError(e.message, path=str(path), key_path=("cogtools", *e.key_path)) from e
    if tools and TOOLS_MEMBER in table:
        from cogtools.load.npm import tool_directories

        try:
            data[TOOLS_GIVEN] = list(tool_directories(table[TOOLS_MEMBER]))
        except ValueError as e:
            raise ConfigInvalidError(str(e), path=str(path), key_path=("cogtools", TOOLS_MEMBER)) from None
    return t.cast(dict[str, t.Any], data)


class _Pairs(dict):  # type: ignore[type-arg]
    """A JSON object, and the keys it was given more than once."""

    def __init__(self, pairs: list[tuple[str, t.Any]]) -> None:
        super().__init__(pairs)
        self.twice: set[str] = set()
        if len(self) < len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                (self.twice if key in seen else seen).add(key)


def _given_twice(node: t.Any, at: tuple[str, ...]) -> tuple[str, ...] | None:
    """The key path (from ``at``, the path of ``node``) of a key given twice in ``node``."""
    if isinstance(node, _Pairs):
        if node.twice:
            return (*at, sorted(node.twice)[0])
        for key, value in node.items():
            found = _given_twice(value, (*at, key))
            if found is not None:
                return found
    elif isinstance(node, list):
        for value in node:
            found = _given_twice(value, at)
            if found is not None:
                return found
    return None


def _parse_manifest(path: Path, text: str) -> tuple[dict[str, t.Any], dict[str, int]] | None:
    from cogtools.core import jsonc

    data = manifest_settings(path, text, tools=True)
    if data is None:
        return None
    given = data.pop(TOOLS_GIVEN, None)
    _check(data, str(path), {"key": '"cogtools"'}, prefix=("cogtools",))
    lines = {key: line for key in data if (line := jsonc.line_of(text, ("cogtools", key))) is not None}
    if given is not None:
        data[TOOLS_GIVEN] = given
        lines[TOOLS_GIVEN] = jsonc.line_of(text, ("cogtools", TOOLS_MEMBER)) or 0
    return data, lines


def _check(
    data: t.Any,
    where: str,
    details: dict[str, t.Any],
    locate: t.Callable[..., int | None] | None = None,
    prefix: tuple[str, ...] = (),
) -> None:
    from cogtools.schema.shipped import schema_problem

    if not isinstance(data, dict):
        raise ConfigInvalidError("the configuration is a mapping of settings", path=where)
    problem = schema_problem(data, "config")
    if problem is not None:
        raise ConfigInvalidError(
            problem.message,
            path=where,
            line=locate(problem.key_path) if locate and problem.key_path else None,
            key_path=(*prefix, *problem.key_path) or None,
            details={**details, **problem.details},
        )
