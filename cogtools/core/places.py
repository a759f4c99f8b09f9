"""Where cogtools keeps the user's own files, and what makes one of them trustworthy.

- the user's configuration, ``$XDG_CONFIG_HOME/cogtools/`` (else ``~/.config/cogtools/``);
- the cache, ``$COGTOOLS_CACHE_DIR``, else ``$XDG_CACHE_HOME/cogtools/`` (else
  ``~/.cache/cogtools/``), none at all with ``COGTOOLS_NO_CACHE``;
- the state (the pins), ``$XDG_STATE_HOME/cogtools/`` (else ``~/.local/state/cogtools/``).

Files about one project are named by :func:`project_key`. The agent's file tools work in the
workspace, not here; a file here is believed only when it is the user's own and only they can
write it (:func:`is_private`).
"""

from __future__ import annotations

import hashlib
import os
import typing as t
from pathlib import Path


def _user_dir(environ: t.Mapping[str, str], variable: str, fallback: str) -> Path | None:
    if environ.get(variable):
        return Path(environ[variable]) / "cogtools"
    if environ.get("HOME"):
        return Path(environ["HOME"]) / fallback / "cogtools"
    return None


def config_dir(environ: t.Mapping[str, str]) -> Path | None:
    """The user's configuration directory, or None when neither XDG_CONFIG_HOME nor HOME is set."""
    return _user_dir(environ, "XDG_CONFIG_HOME", ".config")


def cache_dir(environ: t.Mapping[str, str]) -> Path | None:
    """Where caches live, or None when caching is off (``COGTOOLS_NO_CACHE``) or there is no home."""
    if environ.get("COGTOOLS_NO_CACHE"):
        return None
    if environ.get("COGTOOLS_CACHE_DIR"):
        return Path(environ["COGTOOLS_CACHE_DIR"])
    return _user_dir(environ, "XDG_CACHE_HOME", ".cache")


def state_dir(environ: t.Mapping[str, str]) -> Path | None:
    """The user's state directory (the pins), or None when neither XDG_STATE_HOME nor HOME is set."""
    return _user_dir(environ, "XDG_STATE_HOME", os.path.join(".local", "state"))


def project_key(path: Path | str) -> str:
    """The name of what is kept about the project (or file) at ``path``: 20 hex digits of its
    SHA-256."""
    return hashlib.sha256(str(path).encode()).hexdigest()[:20]


def is_private(info: os.stat_result) -> bool:
    """Owned by this user and writable by nobody else."""
    return info.st_uid == os.geteuid() and not info.st_mode & 0o022
