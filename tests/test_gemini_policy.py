"""Gemini CLI's settings layers and its Policy Engine (issue: tools.allowed is deprecated).

Gemini CLI 0.61 warns at every start while ``tools.allowed`` is set, and reads allow rules from
TOML files of the user's (``~/.gemini/policies/*.toml``, or the files ``policyPaths`` names), never
from the workspace. So where the installed Gemini CLI has the Policy Engine, ``cogtools sync``
writes the rules of the tools it pins into a file of the user's, one per project, moves the
entries it wrote into tools.allowed before out of it, and a tool that any rule lets through
unasked is refused by cogtools until it is pinned for the project, since a rule is user-wide.
The settings are read as the four files Gemini CLI merges (system-defaults < user < workspace <
system), and doctor names the file each value comes from."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from .conftest import write


def rules_file(root: Path) -> Path:
    from cogtools.gemini import policy_file

    return policy_file(root.resolve(), os.environ)


def allowed_by_rules(root: Path) -> list[str]:
    """The tools the project's rules file allows (``discovered_tool_NAME``), in order."""
    from cogtools.gemini import read_rules

    path = rules_file(root)
    return [rule.tool for rule in read_rules(path) if rule.decision == "allow"] if path.exists() else []


def unasked_names(root: Path) -> list[str]:
    """What Gemini CLI runs unasked in ``root``: the rules file's tools, then the entries of the
    project's tools.allowed that are not among them."""
    names = allowed_by_rules(root)
    settings = root / ".gemini" / "settings.json"
    if settings.exists():
        from cogtools import jsonc

        tools = jsonc.loads(settings.read_text()).get("tools", {})
        entries = tools.get("allowed", []) if isinstance(tools, dict) else []
        names += [entry for entry in entries if entry not in names]
    return names


def installed_gemini(where: Path, version: str) -> Path:
    """A ``gemini`` as npm installs it (a link into @google/gemini-cli, whose package.json says
    ``version``), in ``where``/bin; it is never run."""
    package = where / "lib" / "node_modules" / "@google" / "gemini-cli"
    write(package / "package.json", json.dumps({"name": "@google/gemini-cli", "version": version}))
    script = write(package / "bundle" / "gemini.js", "#!/usr/bin/env node\n", mode=0o755)
    (where / "bin").mkdir(parents=True, exist_ok=True)
    (where / "bin" / "gemini").symlink_to(script)
    return where / "bin"


@pytest.fixture
def older_gemini(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A Gemini CLI before the Policy Engine (0.29) first on PATH: tools.allowed is written."""
    directory = installed_gemini(tmp_path / "old-gemini", "0.29.0")
    monkeypatch.setenv("PATH", f"{directory}{os.pathsep}{os.environ['PATH']}")
    return directory
