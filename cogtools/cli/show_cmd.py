"""``cogtools show NAME``: one tool whole, as the project serves it."""

from __future__ import annotations

import json
import typing as t

import click

from cogtools.cli.boundary import warn, write_text
from cogtools.cli.common import CONTEXT_SETTINGS, project_catalog, version_option
from cogtools.cli.names import tool_name_argument
from cogtools.clients.export import EXPORTS, export
from cogtools.run import runner
from cogtools.services.sync import shown_through_link
from cogtools.trust import pins
from cogtools.trust.policy import ROLE_SCOPES, Policy, confined, risk, scopes_needed, tool_scope, toolset

if t.TYPE_CHECKING:
    from cogtools.core.model import Tool
    from cogtools.load.catalog import Catalog

FORMATS = ["text", "json", *EXPORTS]


@click.command("show", context_settings=CONTEXT_SETTINGS, short_help="Show one tool whole, as it is served.")
@tool_name_argument("name")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help=(
        "text: for a person; json: the same as one JSON object; a client's dialect"
        f" ({', '.join(EXPORTS)}): the declaration that client is given, alone."
    ),
)
@version_option()
def command(name: str, fmt: str) -> None:
    """Show the tool NAME of the current project whole: where it comes from (and what it
    shadows), what the model is told (its description and parameters, as JSON Schema), what it
    runs and what it can do here (whether its programs run confined to the side effects it
    declares; for a kind that runs none, whether it can change anything and reach the network,
    which is what MCP clients are told of it), its risk and role, who
    may see it under the configured policy, the scopes a caller's access token needs to call it
    on a shared server (cogtools mcp --http --auth), whether it runs without confirmation in
    Gemini CLI, and the state of its pin (what cogtools sync recorded when a person allowed it).

    With --format and a client's dialect, only the declaration that client is given (the one
    cogtools-discover --format prints for it), with the notes of what that dialect loses on
    stderr."""

    catalog = project_catalog("cogtools show")
    tool = catalog.get(name)
    if fmt in EXPORTS:
        declarations, notes = export([tool], fmt)
        for note in notes:
            warn("cogtools show", note)
        write_text(json.dumps(declarations[0] if declarations else None, indent=2, ensure_ascii=False) + "\n")
        return
    shown = described(tool, catalog)
    if fmt == "json":
        write_text(json.dumps(shown, indent=2, ensure_ascii=False) + "\n")
        return
    write_text(as_text(shown))


def described(tool: Tool, catalog: Catalog) -> dict[str, t.Any]:
    """Everything ``show`` says of ``tool``, as JSON data."""

    project = catalog.project
    declaration = export([tool], "mcp")[0]
    schema = declaration[0]["inputSchema"] if declaration else {}
    held = confined(tool, project)
    policy = Policy.of(project)
    meta = tool.metadata
    return {
        "name": tool.name,
        "title": tool.title,
        "description": tool.description,
        "file": tool.origin.path,
        "source": tool.origin.source,
        "format": tool.origin.format,
        "shadows": [
            {"file": found.path, "source": found.source}
            for found in catalog.definitions(tool.name)
            if found.status == "shadowed"
        ],
        "parameters": schema,
        "output": dict(tool.result_schema() or {}) or None,
        "kind": tool.implementation.kind,
        "runs": shown_through_link(runner(tool.implementation.kind).outline(tool).runs, tool, project.root),
        "confinement": held.how,
        "environment": list(tool.environment),
        "secrets": list(tool.secrets()),
        "risk_level": risk(tool),
        "side_effects": list(meta.side_effects) if meta.side_effects is not None else None,
        "toolset": toolset(tool),
        "category": meta.category,
        "min_role": meta.min_role or "ai_agent",
        "discoverable": meta.discoverable,
        "scopes": scopes(tool, catalog),
        "visible": policy.visible(tool),
        "hidden": policy.hides(tool),
        "role": policy.role,
        "examples": len(tool.examples),
        "pin": pin_state(tool, catalog),
    }


def scopes(tool: Tool, catalog: Catalog) -> dict[str, t.Any]:
    """The scopes a caller's token needs to call ``tool`` on a shared server (``cogtools mcp
    --http --auth``): every one of ``all`` (or ``tool``), and ``role``'s when it needs a role,
    as the user's ``auth`` setting maps them."""
    setting = catalog.project.config.trusted.get("auth")
    config = setting.value if setting is not None else {}
    roles = {**ROLE_SCOPES, **{role: tuple(given) for role, given in (config.get("roles") or {}).items()}}
    role = tool.metadata.min_role or "ai_agent"
    return {
        "all": list(scopes_needed(tool, config.get("categories") or {})),
        "tool": tool_scope(tool.name),
        "role": list(roles.get(role, ())) if role != "ai_agent" else [],
    }


def pin_state(tool: Tool, catalog: Catalog) -> dict[str, t.Any]:
    """Whether ``tool`` runs without confirmation in Gemini CLI, whether a person pinned it, and
    whether a call by name would refuse it as it is now (and why)."""

    project = catalog.project
    pinned = pins.load(project).get(tool.name)
    refusal = pins.refusals([tool], project).get(tool.name)
    return {
        "pinned": pinned is not None,
        "pinned_file": pinned.get("path") if pinned else None,
        "pinned_sha256": pinned.get("sha256") if pinned else None,
        "refused": refusal.message if refusal is not None else None,
    }


def as_text(shown: t.Mapping[str, t.Any]) -> str:
    """``shown`` for a person: a line a fact, then the description and the parameters."""
    pin = shown["pin"]
    if pin["refused"]:
        pinned = f"refused: {pin['refused']}"
    elif pin["pinned"]:
        pinned = f"pinned (sha256 {pin['pinned_sha256'][:12]}..., {pin['pinned_file']}): runs without confirmation"
    else:
        pinned = "not pinned: Gemini CLI asks before it runs"
    facts = [
        ("name", shown["name"] + (f" ({shown['title']})" if shown["title"] else "")),
        ("file", f"{shown['file']} ({shown['source']}, {shown['format']})"),
        *[("shadows", f"{s['file']} ({s['source']})") for s in shown["shadows"]],
        ("runs", shown["runs"]),
        ("confinement", shown["confinement"]),
        ("risk", f"{shown['risk_level']}, side effects {_effects(shown['side_effects'])}, {shown['toolset']} tool"),
        ("role", f"{shown['min_role']} or above" + (f", category {shown['category']}" if shown["category"] else "")),
        ("offered", _offered(shown)),
        ("scopes", _scopes(shown["scopes"])),
        *([("environment", ", ".join(shown["environment"]))] if shown["environment"] else []),
        *([("secrets", ", ".join(shown["secrets"]))] if shown["secrets"] else []),
        ("pin", pinned),
        ("examples", str(shown["examples"])),
    ]
    width = max(len(key) for key, _ in facts)
    lines = [f"{key + ':':<{width + 1}} {value}" for key, value in facts]
    lines += ["", "description:", *[f"  {line}" if line else "" for line in shown["description"].splitlines()]]
    lines += [
        "",
        "parameters (JSON Schema):",
        *[f"  {line}" for line in json.dumps(shown["parameters"], indent=2).splitlines()],
    ]
    if shown["output"]:
        lines += [
            "",
            "output (JSON Schema):",
            *[f"  {line}" for line in json.dumps(shown["output"], indent=2).splitlines()],
        ]
    return "\n".join(lines) + "\n"


def _effects(effects: list[str] | None) -> str:
    if effects is None:
        return "not declared"
    return ", ".join(effects) if effects else "none"


def _scopes(scopes: t.Mapping[str, t.Any]) -> str:
    text = f"{' '.join(scopes['all'])} (or {scopes['tool']})"
    if scopes["role"]:
        text += f", and for its role one of {', '.join(scopes['role'])}"
    return text + ", with cogtools mcp --http --auth"


def _offered(shown: t.Mapping[str, t.Any]) -> str:
    if not shown["visible"]:
        return f"no: the configured policy hides it ({shown['hidden']}), and a call by name finds no such tool"
    if shown["discoverable"]:
        return "through cogtools_search and cogtools_call in discovery mode, else listed like any other"
    return f"yes, to the role {shown['role']}"
