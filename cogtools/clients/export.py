"""Tool declarations in the shapes clients read (DESIGN §4), from the one model.

Each exporter takes a tool and returns its declaration, or None when the target cannot take the
tool at all, together with notes on what the target could not express. Nothing is lost silently:
the commands print the notes on stderr.
"""

from __future__ import annotations

import re
import typing as t

from cogtools.schema.dialects import Notes, Unreadable, inline, to_gemini_api, to_json_schema

if t.TYPE_CHECKING:
    from cogtools.core.model import Tool

Declaration = t.Dict[str, t.Any]
Exporter = t.Callable[["Tool"], t.Tuple[t.Optional[Declaration], Notes]]

#: How a note begins that says why a tool is offered without OpenAI's strict mode: nothing is
#: lost (the declaration is exact), so it is no lint finding.
NOT_STRICT = "not strict: "

#: OpenAI and Anthropic accept fewer characters in a name than cogtools and Gemini do.
_STRICT_NAME_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")


def _json_parameters(tool: Tool) -> tuple[dict[str, t.Any], Notes]:
    return to_json_schema(tool.input_schema())


def _inlined(tool: Tool, target: str) -> tuple[dict[str, t.Any] | None, Notes]:
    """The arguments object with its references written out, for a target that reads none; None
    (and why) when they cannot be: a definition that refers to itself."""
    try:
        return inline(tool.input_schema()), []
    except Unreadable as e:
        where = "/".join(str(part) for part in e.path)
        return None, [f"left out: {target} takes no references, and {e.message} ({where})"]


def gemini_cli(tool: Tool) -> tuple[Declaration | None, Notes]:
    inlined, refused = _inlined(tool, "gemini-cli")
    if inlined is None:
        return None, refused
    schema, notes = to_json_schema(inlined)
    return {"name": tool.name, "description": tool.description, "parametersJsonSchema": schema}, notes


def gemini_api(tool: Tool) -> tuple[Declaration | None, Notes]:
    inlined, refused = _inlined(tool, "the Gemini API")
    if inlined is None:
        return None, refused
    schema, notes = to_gemini_api(inlined)
    declaration: Declaration = {"name": tool.name, "description": tool.description, "parameters": schema}
    returned = tool.result_schema()
    if returned is not None:
        try:
            declaration["response"], more = to_gemini_api(inline(returned), ("(result)",))
            notes += more
        except Unreadable as e:
            notes.append(f"(result): left out: {e.message}")
    return declaration, notes


def mcp(tool: Tool) -> tuple[Declaration | None, Notes]:
    schema, notes = _json_parameters(tool)
    if tool.dialect is not None:
        schema = {"$schema": tool.dialect, **schema}
    declaration: Declaration = {"name": tool.name}
    if tool.title:
        declaration["title"] = tool.title
    from cogtools.trust.policy import mcp_annotations

    declaration.update(description=tool.description, inputSchema=schema)
    returned = tool.result_schema()
    if returned is not None:
        output, more = to_json_schema(returned, ("(result)",))
        declaration["outputSchema"] = output
        notes += more
    declaration["annotations"] = mcp_annotations(tool)
    return declaration, notes


def _strict_name(tool: Tool, target: str) -> Notes:
    if _STRICT_NAME_RE.fullmatch(tool.name):
        return []
    return [f"left out: {target} names allow only letters, digits, '_' and '-'"]


def _openai_parameters(tool: Tool) -> tuple[dict[str, t.Any], bool, Notes]:
    """The parameters in OpenAI's strict mode when it can carry them exactly, and whether it can."""
    from cogtools.schema.strict import NotStrict, to_openai_strict

    schema, notes = _json_parameters(tool)
    try:
        return to_openai_strict(schema), True, notes
    except NotStrict as e:
        return schema, False, [*notes, f"{NOT_STRICT}{e}"]


def openai(tool: Tool) -> tuple[Declaration | None, Notes]:
    """OpenAI Chat Completions ``tools[]``: ``{"type": "function", "function": {...}}``."""
    refused = _strict_name(tool, "OpenAI")
    if refused:
        return None, refused
    schema, strict, notes = _openai_parameters(tool)
    function = {"name": tool.name, "description": tool.description, "parameters": schema, "strict": strict}
    return {"type": "function", "function": function}, notes


def openai_responses(tool: Tool) -> tuple[Declaration | None, Notes]:
    """OpenAI Responses API ``tools[]``: flat, ``{"type": "function", "name", ...}``."""
    refused = _strict_name(tool, "OpenAI")
    if refused:
        return None, refused
    schema, strict, notes = _openai_parameters(tool)
    return {
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": schema,
        "strict": strict,
    }, notes


def anthropic(tool: Tool) -> tuple[Declaration | None, Notes]:
    refused = _strict_name(tool, "Anthropic")
    if refused:
        return None, refused
    schema, notes = _json_parameters(tool)
    return {"name": tool.name, "description": tool.description, "input_schema": schema}, notes


#: ``--format`` name -> exporter; the first is the default.
EXPORTS: dict[str, Exporter] = {
    "gemini-cli": gemini_cli,
    "gemini-api": gemini_api,
    "mcp": mcp,
    "openai": openai,
    "openai-responses": openai_responses,
    "anthropic": anthropic,
}


def export(tools: t.Iterable[Tool], fmt: str) -> tuple[list[Declaration], list[str]]:
    """Declarations of ``tools`` in format ``fmt``, and the notes, each prefixed by the tool."""
    exporter = EXPORTS[fmt]
    declarations: list[Declaration] = []
    notes: list[str] = []
    for tool in tools:
        declaration, tool_notes = exporter(tool)
        if declaration is not None:
            declarations.append(declaration)
        notes.extend(f"{tool.name}: {note}" for note in tool_notes)
    return declarations, notes
