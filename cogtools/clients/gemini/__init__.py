"""Gemini CLI as a client of cogtools (DESIGN §8): what it runs without asking, and the files of it
that cogtools writes (settings, Policy Engine rules, GEMINI.md) and checks.

The parts: :mod:`.settings` its four settings files as it merges them; :mod:`.commands` the
discovery and call commands written there; :mod:`.rules` its Policy Engine rules, and what they
and ``tools.allowed`` let run unasked; :mod:`.memory` the table of tools in GEMINI.md;
:mod:`.install` the ``gemini`` on PATH and which mechanism it reads. This module is imported by
the call path only when Gemini CLI keeps a file that could let a tool run unasked
(:mod:`cogtools.trust.clients`), and then :mod:`.client` imports only the parts it asks."""

from __future__ import annotations

#: The prefix Gemini CLI gives a discovered tool's name.
PREFIX = "discovered_tool_"
