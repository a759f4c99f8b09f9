"""One call, as ``cogtools-call`` runs it (:func:`run_call`: :func:`cogtools.services.invoke.resolve`,
then :func:`cogtools.services.invoke.invoke`), and its :class:`Outcome` as MCP sends it: a failure
is a result with ``isError: true`` whose text, and ``structuredContent``, is the JSON error object
``cogtools-call`` prints; a tool that says what it prints gives ``structuredContent``; one that
prints bytes of a media type gives text, an image, audio or an embedded resource (an item for
each part of ``multipart/mixed``)."""

from __future__ import annotations

import base64
import json
import typing as t

import mcp_types as types

from cogtools.core.errors import CogtoolsError
from cogtools.core.printable import valid_unicode
from cogtools.load.loading import Loaded
from cogtools.run.program import MULTIPART, parts
from cogtools.services.invoke import invoke, resolve

#: Where an HTTP request's scope carries its caller (:data:`cogtools.mcp.auth.CALLER_KEY`, which
#: imports this module).
CALLER_KEY = "cogtools.caller"


class Outcome(t.NamedTuple):
    """A call's outcome, as MCP sends it."""

    #: The result text (the base64 of the bytes, for a tool that prints a media type), or the
    #: JSON error object's text.
    text: str
    #: The JSON error object, when the call failed.
    error: dict[str, t.Any] | None = None
    #: The result as JSON, for a tool that says what it prints (``output.schema``).
    structured: dict[str, t.Any] | None = None
    #: The media type of the result's bytes (``output.media_type``).
    media_type: str | None = None

    def result(self, tool: str) -> types.CallToolResult:
        """The ``CallToolResult`` of this call of ``tool``: its content; as
        ``structuredContent``, its JSON error object, or its result when the tool says what it
        prints."""
        return types.CallToolResult(
            content=content(self, tool),
            structured_content=self.error if self.error is not None else self.structured,
            is_error=self.error is not None,
        )

    def tool_not_found(self, name: str) -> bool:
        """Whether the call of ``name`` failed because ``name`` is not a tool (a call of
        ``cogtools_call`` that finds no tool of the name it is given is that call's result, not
        this)."""
        error = self.error
        return error is not None and error["error"]["code"] == "TOOL_NOT_FOUND" and error["error"].get("tool") == name


def run_call(
    loaded: Loaded, name: str, arguments: t.Mapping[str, t.Any] | None, time_limit: float | None = None
) -> Outcome:
    """Run a call as ``cogtools-call`` would (:func:`cogtools.services.invoke.resolve`, then
    :func:`cogtools.services.invoke.invoke`); ``time_limit`` bounds its implementation's time below the
    configured limit."""
    from cogtools.core.fsutil import one_look
    from cogtools.trust.pins import over_mcp

    try:
        with over_mcp(), one_look():  # (resolving and running it ask the same of the project)
            target = resolve(loaded, name)
            text = valid_unicode(invoke(target, {} if arguments is None else arguments, time_limit=time_limit))
    except CogtoolsError as e:
        error = valid_unicode(e.to_json())  # MCP's encoder refuses a lone surrogate, and stops
        return Outcome(json.dumps(error, ensure_ascii=False), error)
    tool = target.tool
    structured = json.loads(text) if tool.output_schema is not None else None  # (invoke checked it)
    if structured is None and tool.output_media_type is None:
        structured = wrapped_json(text)
    return Outcome(text, None, structured, tool.output_media_type)


#: How a JSON text that is no object begins (an array, a number, a string, true, false, null).
_JSON_START = frozenset('[-0123456789"tfn')


def wrapped_json(text: str) -> dict[str, t.Any] | None:
    """``{"result": VALUE}`` for a result whose text is JSON but no object (a list, a number):
    Gemini CLI (0.61) takes a text that parses as JSON for ``structuredContent`` when a result
    has none, and its SDK then refuses the whole result, since that must be an object; None for
    any other text, which no client takes so."""
    start = text.lstrip()[:1]
    if start not in _JSON_START:
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return None if isinstance(value, dict) else {"result": value}


def note_caller(client: t.Any, scope: t.Any = None) -> None:
    """Who makes the calls of the task at hand, for the audit log (nothing, when auditing is
    off): the MCP client's ``clientInfo`` (its name and version), and the access token's subject
    from the HTTP request's ``scope`` (``--auth``)."""
    from cogtools.services import invoke as call_path

    if call_path.AUDIT is None:
        return
    from cogtools.services.audit import CLIENT, SUB

    found = (
        client
        if isinstance(client, dict)
        else {"name": getattr(client, "name", None), "version": getattr(client, "version", None)}
    )
    name, version = found.get("name"), found.get("version")
    if isinstance(name, str):
        CLIENT.set({"name": name[:100], **({"version": version[:100]} if isinstance(version, str) else {})})
    caller = scope.get(CALLER_KEY) if isinstance(scope, dict) else None  # (--auth's caller)
    subject = getattr(caller, "subject", None)
    SUB.set(subject if isinstance(subject, str) else None)


def refused(name: str, arguments: t.Any, reason: str, client: t.Any = None, scope: t.Any = None) -> None:
    """A call refused in front of the call path (``--auth``'s ``403``, its middleware's
    ``POLICY_DENIED``), written to the audit log as denied for ``reason`` (nothing, when auditing
    is off)."""
    from cogtools.services import invoke as call_path

    auditor = call_path.AUDIT
    if auditor is None:
        return
    from cogtools.core.errors import PolicyDeniedError

    note_caller(client, scope)
    denial = PolicyDeniedError(reason, tool=name, details={"reason": reason})
    given = arguments if isinstance(arguments, dict) else None
    auditor.write(auditor.line(name, given, error=denial, denied=True, started=auditor.clock()))


def refused_body(body: bytes, reason: str, scope: t.Any) -> None:
    """:func:`refused`, of the ``tools/call`` whose JSON-RPC message is ``body`` (read whole)."""
    from cogtools.services import invoke as call_path

    if call_path.AUDIT is None:
        return
    try:
        params = json.loads(body)["params"]
        meta = params.get("_meta")
        client = meta.get("io.modelcontextprotocol/clientInfo") if isinstance(meta, dict) else None
        refused(str(params["name"]), params.get("arguments"), reason, client, scope)
    except (ValueError, RecursionError, LookupError, TypeError, AttributeError):
        return  # (the HTTP layer took it for a call: it is one)


def content(outcome: Outcome, tool: str) -> list[types.ContentBlock]:
    """The content of a call's result: the text; or, for a tool that prints bytes of a media
    type, an image, audio, or else an embedded resource of them; for ``multipart/mixed``, an
    item for each part."""
    media = outcome.media_type
    if outcome.error is not None or media is None:
        return [types.TextContent(type="text", text=outcome.text)]
    if media == MULTIPART:  # a content item for each part (checked when the call returned)
        pieces = parts(base64.b64decode(outcome.text))
        return [item(kind, data, f"cogtools://{tool}/result/{n}") for n, (kind, data) in enumerate(pieces, 1)]
    return [item(media, outcome.text, f"cogtools://{tool}/result")]


def item(media: str, data: str | bytes, uri: str) -> types.ContentBlock:
    """One content item of ``data`` (bytes, or already base64 text) of type ``media``: text for
    ``text/*`` (as UTF-8, what cannot be decoded replaced), an image, audio, or else an
    embedded resource at ``uri``."""
    if media.startswith("text/"):
        raw = data if isinstance(data, bytes) else base64.b64decode(data)
        return types.TextContent(type="text", text=raw.decode("utf-8", "replace"))
    text = data if isinstance(data, str) else base64.b64encode(data).decode("ascii")
    if media.startswith("image/"):
        return types.ImageContent(type="image", data=text, mime_type=media)
    if media.startswith("audio/"):
        return types.AudioContent(type="audio", data=text, mime_type=media)
    blob = types.BlobResourceContents(uri=uri, mime_type=media, blob=text)
    return types.EmbeddedResource(type="resource", resource=blob)
