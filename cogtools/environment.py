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

import typing as t
from pathlib import Path

from cogtools.errors import ConfigInvalidError

#: Values shorter than this are not scrubbed from messages: they would erase ordinary text.
SCRUB_MIN_LENGTH = 4


def read_dotenv(path: Path) -> dict[str, str]:
    """The variables of a ``.env`` file ({} when there is none); a line that cannot be parsed is
    CONFIG_INVALID naming it (its content is not quoted: it may hold a secret)."""
    from cogtools.fsutil import read_config

    text = read_config(path)
    if text is None:
        return {}
    text = text.removeprefix("\ufeff")
    import io

    from dotenv import dotenv_values
    from dotenv.parser import parse_stream

    for binding in parse_stream(io.StringIO(text)):
        if binding.error:
            raise ConfigInvalidError(
                "a line that is not NAME=VALUE", path=str(path), line=binding.original.line
            )
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
) -> dict[str, str | None]:
    """Every declared name, with its value (None when neither source sets it)."""
    names = list(names)
    if not names:
        return {}
    system = environ
    project = read_dotenv(root / ".env")
    first, second = (system, project) if priority == "system" else (project, system)
    return {name: first.get(name, second.get(name)) for name in names}


def scrub(text: str, values: t.Iterable[str | None]) -> str:
    """``text`` with every environment value in it replaced by ``***``."""
    for value in sorted((v for v in values if v and len(v) >= SCRUB_MIN_LENGTH), key=len, reverse=True):
        text = text.replace(value, "***")
    return text
