"""What a tool's implementation may see of the environment.

A definition declares the variables it reads (``environment: [NAME, ...]``); the implementation
sees those and no others. Values come from the process environment and the project's ``.env``
(read with python-dotenv, never by changing cogtools' own environment). The ``.env`` wins unless
``env_priority: system`` (configuration) or ``--system-env`` (command line) says the process
environment does (seed 004, "Input from DeepSeek").

Values never leave this path: discovery, listings and exports show names only, and
:func:`scrub` takes them out of error messages.
"""

from __future__ import annotations

import functools
import os
import typing as t
from pathlib import Path

from cogtools.core.errors import ConfigInvalidError

if t.TYPE_CHECKING:
    from cogtools.core.model import Variable

#: Values shorter than this are not scrubbed from messages: they would erase ordinary text.
SCRUB_MIN_LENGTH = 4


def _read_text(path: Path, checked: t.Mapping[str, bytes], limit: int | None = None) -> str | None:
    """The text of the file at ``path``: the bytes a pin check read of it (``checked``: real path
    -> bytes), else the file as it is now (:func:`~cogtools.core.fsutil.read_config`)."""
    import os

    data = checked.get(os.path.realpath(path)) if checked else None
    if data is not None:
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ConfigInvalidError("not UTF-8 text", path=str(path)) from e
    from cogtools.core.fsutil import read_config

    return read_config(path) if limit is None else read_config(path, limit)


def read_dotenv(path: Path, checked: t.Mapping[str, bytes] = {}) -> dict[str, str]:
    """The variables of a ``.env`` file ({} when there is none); a line that cannot be parsed is
    CONFIG_INVALID naming it (its content is not quoted: it may hold a secret). ``checked``: the
    bytes a pin check read of it, which are read instead of the file."""
    text = _read_text(path, checked)
    if text is None:
        return {}
    text = text.removeprefix("\ufeff")
    import io

    from dotenv import dotenv_values
    from dotenv.parser import parse_stream

    for binding in parse_stream(io.StringIO(text)):
        if binding.error:
            raise ConfigInvalidError("a line that is not NAME=VALUE", path=str(path), line=binding.original.line)
    # No interpolation: ``TOKEN=${AWS_SECRET_ACCESS_KEY}`` would copy a process variable the tool
    # did not declare into one it did.
    values = dotenv_values(stream=io.StringIO(text), interpolate=False)
    return {k: v for k, v in values.items() if v is not None}


def tool_environment(
    names: t.Iterable[str],
    root: Path,
    *,
    priority: str,
    environ: t.Mapping[str, str],
    variables: t.Iterable[Variable] = (),
    checked: t.Mapping[str, bytes] = {},
) -> dict[str, str | None]:
    """Every declared name, with its value (None when no source sets it). A variable with a
    ``file`` is read from that file when neither the .env nor the process environment sets it; a
    secret set nowhere (or empty) is CONFIG_INVALID, saying where it was looked for. ``checked``:
    the bytes a pin check read of the .env and of value files, which are read instead of them."""
    names = list(names)
    if not names:
        return {}
    system = environ
    project = read_dotenv(root / ".env", checked)
    first, second = (system, project) if priority == "system" else (project, system)
    values = {name: first.get(name, second.get(name)) for name in names}
    for variable in variables:
        path = value_file(variable, root, environ)
        if not values.get(variable.name) and path is not None:
            values[variable.name] = _read_value(path, checked)
        if variable.secret and not values.get(variable.name):
            order = ["the process environment", f"{root / '.env'}"]
            looked = [*(order if priority == "system" else reversed(order)), *([str(path)] if path else [])]
            raise ConfigInvalidError(
                f"the secret {variable.name} is not set: it is looked for in {', then '.join(looked)}",
                details={"variable": variable.name, "looked_in": looked, "reason": "missing_secret"},
            )
    return values


#: The largest file a variable's value is read from.
MAX_VALUE_FILE_BYTES = 64 * 1024


def value_file(variable: Variable, root: Path, environ: t.Mapping[str, str]) -> Path | None:
    """The file ``variable`` names, as a path: ``~`` is the caller's home, a relative path is
    under the project root."""
    if variable.file is None:
        return None
    text = variable.file
    if text == "~" or text.startswith("~/"):
        home = environ.get("HOME")
        if home:
            text = home + text[1:]
    return root / text


def _read_value(path: Path, checked: t.Mapping[str, bytes] = {}) -> str | None:
    """The content of a value file without its final newline; None when there is no such file;
    CONFIG_INVALID when it is not a readable regular UTF-8 file of at most 64 KiB."""
    text = _read_text(path, checked, MAX_VALUE_FILE_BYTES)
    return None if text is None else text.removesuffix("\n").removesuffix("\r")


def scrub(text: str, values: t.Iterable[str | None], *, secrets: t.Iterable[str | None] = ()) -> str:
    """``text`` with every environment value in it of at least :data:`SCRUB_MIN_LENGTH`
    characters, and every secret whatever its length, replaced by ``***``."""
    hidden = {v for v in values if v and len(v) >= SCRUB_MIN_LENGTH}
    for secret in secrets:
        if secret:
            hidden |= secret_forms(secret)
    for value in sorted(hidden, key=len, reverse=True):
        text = text.replace(value, "***")
    return text


@functools.lru_cache(maxsize=64)
def secret_forms(secret: str) -> frozenset[str]:
    """The forms in which ``secret`` may be printed: as it is, percent-encoded as a URL carries
    it (in a path, a query, a form), and escaped as JSON writes it."""
    import json
    import urllib.parse

    forms = {
        secret,
        urllib.parse.quote(secret, safe=""),
        urllib.parse.quote(secret),
        urllib.parse.quote_plus(secret),
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
    }
    return frozenset(form for form in forms if form)


def scrub_value(value: t.Any, secrets: t.Collection[str]) -> t.Any:
    """``value`` (JSON-like data: an error's details, a dry run's description) with every secret
    in its strings, keys included, replaced by ``***``."""
    if not secrets:
        return value
    if isinstance(value, str):
        return scrub(value, (), secrets=secrets)
    if isinstance(value, dict):
        return {scrub_value(k, secrets): scrub_value(v, secrets) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrub_value(v, secrets) for v in value]
    return value


#: The variables that decide what may run and which files are believed: the role, the
#: configuration file, and the user's directories (configuration, pins, cache). A value the
#: workspace set for one of them is not the user's word.
#: Variables whose value chooses what code runs (a program found on PATH, a library preloaded,
#: a module path, a shell's start-up file), besides every ``LD_*`` and ``DYLD_*``.
CHOOSES_CODE = frozenset(
    "PATH BASH_ENV ENV PYTHONPATH PYTHONSTARTUP PYTHONHOME NODE_OPTIONS NODE_PATH PERL5LIB PERL5OPT RUBYLIB"
    " RUBYOPT GIT_EXEC_PATH GIT_SSH GIT_SSH_COMMAND GIT_CONFIG_GLOBAL GIT_DIR SHELL EDITOR PAGER".split()
)


def chooses_code(name: str) -> bool:
    """Whether the value of the variable ``name`` chooses what code a program runs."""
    return name in CHOOSES_CODE or name.startswith(("LD_", "DYLD_"))


def code_choosing_files(
    names: t.Iterable[str], variables: t.Iterable[Variable], root: Path, environ: t.Mapping[str, str]
) -> list[Path]:
    """The files of the workspace that may give a value to a variable of ``names`` that chooses
    the code that runs: the project's ``.env``, and the value files such a variable names. A pin
    covers them as it covers a script: the workspace could otherwise put its own program first
    on a pinned tool's ``PATH``."""
    choosing = {name for name in names if chooses_code(name)}
    if not choosing:
        return []
    files = [root / ".env"]
    for variable in variables:
        path = value_file(variable, root, environ) if variable.name in choosing else None
        if path is not None:
            files.append(path)
    return files


TRUST_VARIABLES = (
    "COGTOOLS_ROLE",
    "COGTOOLS_CONFIG",
    "XDG_CONFIG_HOME",
    "XDG_STATE_HOME",
    "XDG_CACHE_HOME",
    "COGTOOLS_CACHE_DIR",
    # where the global npm toolsets are read from (cogtools.load.npm.global_root); npm reads its
    # settings from the environment in either case
    "npm_config_prefix",
    "NPM_CONFIG_PREFIX",
    "npm_config_userconfig",
    "NPM_CONFIG_USERCONFIG",
    # Not GEMINI_CLI_HOME: Gemini CLI reads it after loading the .env, and so must cogtools, to
    # see the rules Gemini CLI obeys (a rule there that lets an unpinned tool through refuses it)
)


#: The trust variables read in any case (npm reads its settings from the environment so).
_ANY_CASE = frozenset(name.lower() for name in TRUST_VARIABLES if name.lower().startswith("npm_config_"))


def is_trust_variable(name: str) -> bool:
    """Whether ``name`` is one of :data:`TRUST_VARIABLES` (npm's in any case)."""
    return name in TRUST_VARIABLES or name.lower() in _ANY_CASE


def trust_value(variables: t.Mapping[str, t.Any], name: str) -> t.Any:
    """What ``variables`` (a file's, an entry's ``env``) set the trust variable ``name`` to: by
    its own name, or, for npm's, by any case of it; None when they do not set it."""
    if name in variables:
        return variables[name]
    if name.lower() in _ANY_CASE:
        return next((value for key, value in variables.items() if str(key).lower() == name.lower()), None)
    return None


def gemini_env_file(workspace: Path, home: str | None) -> Path | None:
    """The ``.env`` file Gemini CLI loads into its own environment (and so into every command it
    runs) for a trusted ``workspace``, as its ``findEnvFile`` finds it (0.61): from the workspace
    upwards, the first of ``DIR/.gemini/.env`` and ``DIR/.env``, then ``~/.gemini/.env`` and
    ``~/.env``."""
    directory = workspace
    while True:
        for candidate in (directory / ".gemini" / ".env", directory / ".env"):
            if os.path.exists(candidate):  # False for what cannot be looked at, as Node's existsSync
                return candidate
        if directory.parent == directory:
            break
        directory = directory.parent
    if home:
        for candidate in (Path(home) / ".gemini" / ".env", Path(home) / ".env"):
            if os.path.exists(candidate):
                return candidate
    return None


def workspace_env(workspace: Path, home: str | None) -> tuple[Path, dict[str, str]] | None:
    """The workspace's ``.env`` file that Gemini CLI loads for ``workspace`` and which of
    :data:`TRUST_VARIABLES` it sets (None when the file it loads is the user's own, ``~/.env`` or
    ``~/.gemini/.env``, or there is none). A file that cannot be parsed is taken to set every
    variable it names, and one that cannot be read within the limits (too large, not a regular
    file: Gemini CLI may still read it) to set them all."""
    found = gemini_env_file(workspace, home)
    if found is None or (home and found.parent in (Path(home), Path(home) / ".gemini")):
        return None
    try:
        values = read_dotenv(found)
    except ConfigInvalidError:
        from cogtools.core.fsutil import read_config

        try:
            text = read_config(found) or ""
        except ConfigInvalidError:
            return found, dict.fromkeys(TRUST_VARIABLES, "")
        return found, {name: "" for name in TRUST_VARIABLES if name.lower() in text.lower()}
    return found, {name: value for name, value in values.items() if is_trust_variable(name)}


def set_by_workspace(workspace: Path, environ: t.Mapping[str, str]) -> dict[str, str]:
    """Each of :data:`TRUST_VARIABLES` in ``environ`` that the workspace's ``.env`` file
    (:func:`workspace_env`) sets to the same value, with that file: Gemini CLI sets a variable
    only where its own environment lacks it, so an equal value may have come from the file,
    which the agent can write."""
    present = [name for name in environ if is_trust_variable(name) and environ.get(name)]
    if not present:
        return {}
    found = workspace_env(workspace, environ.get("HOME"))
    if found is None:
        return {}
    path, values = found
    return {name: str(path) for name in present if trust_value(values, name) in ("", environ[name])}
