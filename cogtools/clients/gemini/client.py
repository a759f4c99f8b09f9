"""Gemini CLI as a :class:`cogtools.trust.clients.Client`: what the call path asks of it."""

from __future__ import annotations

import typing as t
from pathlib import Path

from cogtools.clients.gemini.rules import policy_file, unasked
from cogtools.clients.gemini.settings import SCOPES, settings_path
from cogtools.trust.clients import Client, Unasked


class GeminiCli:
    """Gemini CLI as a :class:`cogtools.trust.clients.Client`."""

    name = "gemini"
    title = "Gemini CLI"

    def files(self, root: Path, environ: t.Mapping[str, str]) -> list[Path]:
        return [
            *(settings_path(scope, root, environ) for scope in SCOPES),
            policy_file(root, environ),
            root / "GEMINI.md",
        ]

    def unasked(self, root: Path, environ: t.Mapping[str, str], *, only: str | None = None) -> Unasked:
        found = unasked(root, environ, only=only)
        return found._replace(
            names={name: f"in {self.title} ({source})" for name, source in found.names.items()},
            every=found.every and f"in {self.title} ({found.every})",
        )


CLIENT: Client = GeminiCli()
