"""The ``gemini`` on PATH: its version, read from its package (no process is started), and so
which mechanism tells it the tools that run without confirmation."""

from __future__ import annotations

import json
import os
import re
import shutil
import typing as t
from pathlib import Path

from cogtools.core.errors import ConfigInvalidError
from cogtools.core.fsutil import read_config

#: The first Gemini CLI whose tools.allowed is deprecated for the Policy Engine (it warns at each
#: start that it is set); 0.61.0 is the one measured.
POLICY_ENGINE_SINCE = (0, 30, 0)


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

    found = shutil.which("gemini", path=environ.get("PATH", os.defpath))
    if found is None:
        return None
    manifest = package_manifest(Path(os.path.realpath(found))) or {}
    version = manifest.get("version") if manifest.get("name") == "@google/gemini-cli" else None
    return Installed(found, version if isinstance(version, str) else None, manifest)


def package_manifest(executable: Path) -> dict[str, t.Any] | None:
    """The package.json nearest above ``executable``, None when there is none or it is unreadable."""

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
