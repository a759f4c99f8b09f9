"""The clients that run a project's tools (Gemini CLI, the MCP clients), behind one small interface.

The call path must know whether any client runs a tool without asking a person: such a tool runs
only as a person allowed it (:mod:`cogtools.trust.pins`). It asks :func:`unasked`, which asks
each registered client (:data:`CLIENTS`), by name of a module, never importing one by name; and
a client that keeps no file that could let a tool run unasked (:class:`Registration`'s places,
checked by ``stat`` alone) is not asked at all, so a call in a project that no such client is
set up for imports no client module.

A client module exports an object satisfying :class:`Client`; see CONTRIBUTING.md, "Adding a
client".
"""

from __future__ import annotations

import importlib
import os
import typing as t
from pathlib import Path


class Unasked(t.NamedTuple):
    """The tools a client runs without asking, each with what lets it, in words."""

    #: bare tool name -> what lets it ("a rule in FILE", "tools.allowed of FILE")
    names: dict[str, str]
    #: what lets every tool run unasked (a rule or entry for ``*``), None when nothing does
    every: str | None = None
    #: the files that could not be read, and why
    broken: tuple[tuple[Path, str], ...] = ()

    def source(self, name: str) -> str | None:
        return self.names.get(name) or self.every


#: Nothing runs unasked.
NOTHING = Unasked({})


@t.runtime_checkable
class Client(t.Protocol):
    """What cogtools knows of a client, whatever its kind: Gemini CLI
    (:mod:`cogtools.clients.gemini.client`), each MCP client (:mod:`cogtools.clients.mcp_clients`)."""

    @property
    def name(self) -> str:
        """The name cogtools' commands and configuration use (``cogtools init --mcp NAME``)."""
        ...

    @property
    def title(self) -> str:
        """The name people know it by."""
        ...

    def files(self, root: Path, environ: t.Mapping[str, str]) -> list[Path]:
        """The files of the client that cogtools writes or checks for the project at ``root``,
        whether they exist or not."""
        ...

    def unasked(self, root: Path, environ: t.Mapping[str, str], *, only: str | None = None) -> Unasked:
        """The project's tools it runs without asking anyone, started in ``root`` with
        ``environ`` (``only``: the one tool asked about, where that makes the answer cheaper)."""
        ...


class Registration(t.NamedTuple):
    """A client as the call path knows it before importing it: where its module is, and where it
    keeps what could make it run a tool unasked. While none of those places exists it runs
    nothing unasked, and is not imported."""

    #: ``module:attribute`` of its :class:`Client`
    target: str
    #: places relative to the project root
    project: tuple[str, ...] = ()
    #: places relative to its home: the first set of ``home_variables``, else ``$HOME``
    home: tuple[str, ...] = ()
    home_variables: tuple[str, ...] = ()
    #: absolute places, and variables that name one
    system: tuple[str, ...] = ()
    system_variables: tuple[str, ...] = ()
    #: variables that name a file whose folder is a place (files the client reads sit beside it)
    system_folder_variables: tuple[str, ...] = ()

    def places(self, root: Path, environ: t.Mapping[str, str]) -> list[str]:
        home = next((environ[name] for name in self.home_variables if environ.get(name)), None)
        home = home or environ.get("HOME") or str(Path.home())
        named = [environ[name] for name in self.system_variables if environ.get(name)]
        named += [os.path.dirname(environ[name]) or "." for name in self.system_folder_variables if environ.get(name)]
        return [
            *(os.path.join(root, place) for place in self.project),
            *(os.path.join(home, place) for place in self.home),
            *self.system,
            *named,
        ]

    def present(self, root: Path, environ: t.Mapping[str, str]) -> bool:
        """Whether any of its places exists (a link that leads nowhere counts: what reads it
        says why it cannot)."""
        return any(os.path.lexists(place) for place in self.places(root, environ))


#: The clients that can run a tool without asking, by name. Gemini CLI: its settings files
#: (``tools.allowed``; ``policyPaths`` is read from them) and its user and admin Policy Engine
#: rules (DESIGN §8). The MCP clients that auto-approve (Codex, Copilot CLI) decide on a tool's
#: annotations, which cogtools derives from what the tool declares, so they are not asked here.
CLIENTS: dict[str, Registration] = {
    "gemini": Registration(
        "cogtools.clients.gemini.client:CLIENT",
        project=(".gemini/settings.json",),
        home=(".gemini/settings.json", ".gemini/policies"),
        home_variables=("GEMINI_CLI_HOME",),
        system=("/etc/gemini-cli", "/Library/Application Support/GeminiCli"),
        system_variables=("GEMINI_CLI_SYSTEM_DEFAULTS_PATH",),
        # the system defaults sit beside the system settings unless named
        system_folder_variables=("GEMINI_CLI_SYSTEM_SETTINGS_PATH",),
    ),
}


def client(name: str) -> Client:
    """The registered client ``name`` (its module imported now); LookupError when there is none."""
    registration = CLIENTS.get(name)
    if registration is None:
        raise LookupError(f"unknown client {name!r} (known: {', '.join(sorted(CLIENTS))})")
    module, _, attribute = registration.target.partition(":")
    found: Client = getattr(importlib.import_module(module), attribute)
    return found


def unasked(root: Path, environ: t.Mapping[str, str], *, only: str | None = None) -> Unasked:
    """What lets each tool of the project at ``root`` run unasked in any client: the first
    client's word for a name wins, and the broken files of all are kept."""
    names: dict[str, str] = {}
    every = None
    broken: list[tuple[Path, str]] = []
    for name, registration in CLIENTS.items():
        if not registration.present(root, environ):
            continue
        found = client(name).unasked(root, environ, only=only)
        for tool, source in found.names.items():
            names.setdefault(tool, source)
        every = every or found.every
        broken += found.broken
    return Unasked(names, every, tuple(broken)) if names or every or broken else NOTHING
