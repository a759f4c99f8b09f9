"""Serving a project's tools over MCP, on the official ``mcp`` SDK (the optional extra
``cogtools[mcp]``; nothing else in cogtools imports it).

- ``tools/list`` is what ``cogtools-discover`` offers (the configured role, toolset and discovery
  mode; a client never chooses its own role), in the ``mcp`` dialect of the export, with
  ``annotations`` from the metadata and the ``title``.
- ``tools/call`` is :func:`cogtools.services.invoke.resolve` and :func:`cogtools.services.invoke.invoke`: the
  lookup, the pins, the policy, the argument checks and the implementation of ``cogtools-call``, in a worker thread (at most
  ``max_calls`` at once); a template whose checks are cheap is tried on the event loop first
  (:data:`INLINE_SECONDS`, :func:`inline_safe`). Over HTTP, a call of the 2026-07-28 era is
  answered in front of the SDK when it may be (:mod:`cogtools.mcp.direct`). A call the client cancels (``notifications/cancelled``) kills the
  process groups of the programs it started. A failure is a tool result with ``isError: true`` whose text, and
  ``structuredContent``, is the JSON error object ``cogtools-call`` prints; a tool the server does not offer is
  a JSON-RPC error (-32602), with that object as its ``data``.
- While a call runs, its client is told what it asked to hear (:class:`Reporter`): with a
  ``progressToken``, ``notifications/progress`` (the seconds the call has run, or what its
  programs report on their channel, :mod:`cogtools.run.reports`); with a log level
  (``logging/setLevel`` for the connection, the request's ``_meta`` from 2026-07-28), the log
  messages its programs write there, as ``notifications/message``. Nothing is sent after the
  result.
- The catalog is live (:class:`LiveCatalog`): the directories it reads are watched (inotify,
  :mod:`cogtools.mcp.watching`; elsewhere the files are checked every ``interval`` seconds), a change
  is announced with ``notifications/tools/list_changed`` (on a
  ``subscriptions/listen`` stream to clients of protocol 2026-07-28, directly to those of the
  handshake era), and a tool whose file an edit broke keeps being served as it was until the
  file is mended.
"""

from __future__ import annotations

import collections
import json
import sys
import threading
import typing as t
from pathlib import Path

from cogtools.core.errors import CogtoolsError

if t.TYPE_CHECKING:
    from mcp.server.lowlevel import Server

    from cogtools.load.loading import Loaded
    from cogtools.run.reports import Report

#: How long a template call may take on the event loop before it is stopped and run again in a
#: worker thread, with its whole time limit (and from then on only there).
INLINE_SECONDS = 0.02
#: How much a call's arguments may weigh (:func:`weight`) to be tried on the event loop.
INLINE_WEIGHT = 16 * 1024
#: The most RE2's searches may cost the arguments of a call tried on the event loop (the
#: characters searched times the size of the pattern's program: some 5 ms here).
INLINE_PATTERN_WORK = 1_000_000
#: How many calls run at once, unless told otherwise.
DEFAULT_MAX_CALLS = 8
#: How often, in seconds, the files are checked for changes.
DEFAULT_INTERVAL = 1.0


class LiveCatalog:
    """The catalog of a project as its files are now; a tool an edit broke is served as it was
    last good (and the breakage reported), until its file is mended or removed.

    Whether anything changed is asked of the fast index first (:func:`cogtools.load.catalog.warm_state`:
    a stat of each file and directory, no file read); only when it says so is the catalog
    loaded again (through the cache: only the files that changed are read) and compared with
    what is served."""

    def __init__(self, cwd: Path, environ: t.Mapping[str, str]) -> None:
        self._cwd = cwd
        self._environ = environ
        self._lock = threading.Lock()
        #: How long the last check for a change took, in seconds.
        self.check_seconds = 0.0
        self.loaded, self._state, self.directories = self._load()
        self._signature = self._sign(self.loaded)

    def count(self) -> int:
        """How many of the project's tools are served."""
        return len(self.loaded.catalog.tools) if self.loaded.catalog is not None else 0

    def _load(self, previous: Loaded | None = None) -> tuple[Loaded, str | None, frozenset[str]]:
        """The catalog as the files are now (with what ``previous`` served of the tools an
        edit broke), the state the fast index gives it, and the directories whose changes
        change it."""
        from cogtools.load.catalog import Catalog, Entry
        from cogtools.load.loading import Loaded, load_project

        loaded = load_project(self._cwd, self._environ)
        fresh, old = loaded.catalog, previous.catalog if previous is not None else None
        if fresh is None:
            return loaded, None, self._config_directories(loaded.root)
        state = fresh.state[1] if fresh.state is not None else None
        directories = self._config_directories(fresh.project.root) | {
            *fresh.directories,
            *(str(source.directory) for source in fresh.project.sources),
        }
        if old is None:
            return loaded, state, directories
        broken = {problem.tool for problem in fresh.problems}
        kept = [tool.to_dict() for name, tool in old.tools.items() if name in broken and name not in fresh.names()]
        if not kept:
            return loaded, state, directories
        entries = [Entry.of(data) for data in [*[fresh.tools[name].to_dict() for name in fresh.names()], *kept]]
        merged = Loaded(Catalog(fresh.project, entries, fresh.problems, fresh.warnings, directories=fresh.directories))
        return merged, state, directories

    def _config_directories(self, root: Path | None) -> frozenset[str]:
        """The directories of the configuration files: the user's, the one
        ``COGTOOLS_CONFIG`` names, the project's (in its root)."""
        from cogtools.load.config import user_config_path

        named = self._environ.get("COGTOOLS_CONFIG")
        places = [user_config_path(self._environ), Path(named).expanduser() if named else None]
        found = {str(place.parent) for place in places if place is not None}
        return frozenset(found | ({str(root)} if root is not None else set()))

    @staticmethod
    def _sign(loaded: Loaded) -> str:
        catalog = loaded.catalog
        if catalog is None:
            return json.dumps({"error": str(loaded.error)})
        return json.dumps(
            {
                "tools": {name: tool.to_dict() for name, tool in catalog.tools.items()},
                "problems": [str(p) for p in catalog.problems],
                "config": {k: s.value for k, s in catalog.project.config.settings.items()},
            },
            sort_keys=True,
            default=str,
        )

    def refresh(self) -> list[str] | None:
        """Reload if anything changed; None when nothing did, else the problems of the new
        catalog (a line each)."""
        import time

        from cogtools.load.catalog import warm_state

        with self._lock:
            started = time.monotonic()
            warm = warm_state(self._cwd, self._environ)
            self.check_seconds = time.monotonic() - started
            if warm is not None and self._state is not None and warm[1] == self._state:
                return None
            loaded, self._state, self.directories = self._load(self.loaded)
            if loaded.catalog is None and self.loaded.catalog is not None:
                # a broken configuration: keep serving what was served
                assert loaded.error is not None
                return [f"{loaded.error.code}: {loaded.error}"]
            signature = self._sign(loaded)
            if signature == self._signature:
                return None
            self.loaded, self._signature = loaded, signature
            if loaded.catalog is None:
                assert loaded.error is not None
                return [f"{loaded.error.code}: {loaded.error}"]
            return [f"{p.code}: {p}" for p in loaded.catalog.problems]


def declarations(loaded: Loaded) -> list[dict[str, t.Any]]:
    """What ``tools/list`` answers: the offer (:func:`cogtools.services.discovery.offer`, what
    ``cogtools-discover`` gives Gemini CLI), in the MCP dialect."""
    from cogtools.clients.export import export
    from cogtools.services.discovery import offer

    tools = offer(loaded).tools
    found, _ = export(tools, "mcp")
    titles = {tool.name: tool.title for tool in tools}
    for declaration in found:
        if titles.get(declaration["name"]):
            declaration["title"] = titles[declaration["name"]]
    return found


class Called(t.NamedTuple):
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

    def result(self, tool: str) -> t.Any:
        """The ``CallToolResult`` of this call of ``tool``: its content; as
        ``structuredContent``, its JSON error object, or its result when the tool says what it
        prints."""
        import mcp_types as types

        return types.CallToolResult(
            content=content(self, tool),
            structured_content=self.error if self.error is not None else self.structured,
            is_error=self.error is not None,
        )


def call(loaded: Loaded, name: str, arguments: t.Mapping[str, t.Any] | None, time_limit: float | None = None) -> Called:
    """Run a call as ``cogtools-call`` would (:func:`cogtools.services.invoke.resolve`, then
    :func:`cogtools.services.invoke.invoke`); ``time_limit`` bounds its implementation's time below the
    configured limit."""
    from cogtools.core.printable import valid_unicode
    from cogtools.services.invoke import invoke, resolve

    try:
        target = resolve(loaded, name)
        text = valid_unicode(invoke(target, {} if arguments is None else arguments, time_limit=time_limit))
    except CogtoolsError as e:
        error = valid_unicode(e.to_json())  # MCP's encoder refuses a lone surrogate, and stops
        return Called(json.dumps(error, ensure_ascii=False), error)
    tool = target.tool
    structured = json.loads(text) if tool.output_schema is not None else None  # (invoke checked it)
    return Called(text, None, structured, tool.output_media_type)


def content(called: Called, tool: str) -> list[t.Any]:
    """The content of a call's result: the text; or, for a tool that prints bytes of a media
    type, an image, audio, or else an embedded resource of them; for ``multipart/mixed``, an
    item for each part."""
    import mcp_types as types

    from cogtools.run.program import MULTIPART, parts

    media = called.media_type
    if called.error is not None or media is None:
        return [types.TextContent(type="text", text=called.text)]
    if media == MULTIPART:  # a content item for each part (checked when the call returned)
        import base64

        pieces = parts(base64.b64decode(called.text))
        return [item(kind, data, f"cogtools://{tool}/result/{n}") for n, (kind, data) in enumerate(pieces, 1)]
    return [item(media, called.text, f"cogtools://{tool}/result")]


def item(media: str, data: str | bytes, uri: str) -> t.Any:
    """One content item of ``data`` (bytes, or already base64 text) of type ``media``: text for
    ``text/*`` (as UTF-8, what cannot be decoded replaced), an image, audio, or else an
    embedded resource at ``uri``."""
    import base64

    import mcp_types as types

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


def inline_safe(tool: t.Any) -> bool:
    """Whether a call of ``tool`` may be tried on the server's event loop, where it costs less
    than the hop to a worker thread: a template (it runs no program and changes nothing, so a
    call stopped at :data:`INLINE_SECONDS` may be run again) whose checks take a time that
    arguments of :data:`INLINE_WEIGHT` bound well below that: no ``uniqueItems`` (each item
    compared with every other), no format whose check backtracks
    (:data:`cogtools.schema.string_formats.SUPERLINEAR`), no pattern that RE2 cannot search for or whose
    program is large (RE2's time grows with the text times its program:
    :data:`INLINE_PATTERN_WORK`), and no pattern at all where its result is checked (a result
    may be as large as the tool's output limit). The time limit stops a template's rendering,
    not a check: the checks are what this bounds."""
    from cogtools.schema import patterns
    from cogtools.schema.string_formats import SUPERLINEAR

    if tool.implementation.kind != "template":
        return False

    def linear(schemas: list[t.Any], pattern_allowed: t.Callable[[str], bool]) -> bool:
        while schemas:
            node = schemas.pop()
            if isinstance(node, list):
                schemas.extend(node)
            elif isinstance(node, t.Mapping):
                pattern, fmt = node.get("pattern"), node.get("format")
                if isinstance(pattern, str) and not pattern_allowed(pattern):
                    return False
                if node.get("uniqueItems") is True or (isinstance(fmt, str) and fmt in SUPERLINEAR):
                    return False
                schemas.extend(node.values())
        return True

    def cheap(pattern: str) -> bool:
        work = patterns.linear_work(pattern)
        return work is not None and work * INLINE_WEIGHT <= INLINE_PATTERN_WORK

    definitions = dict(tool.definitions)
    arguments = [tool.input_schema(), definitions, tool.additional_parameters]
    return linear(arguments, cheap) and (
        tool.output_schema is None or linear([tool.output_schema, definitions], lambda pattern: False)
    )


def weight(value: t.Any, limit: int = INLINE_WEIGHT) -> int:
    """How much ``value`` weighs (the characters of its strings and names, one for any other
    value), counted only until it passes ``limit``: its cost is at most what it is allowed."""
    total, left = 0, [value]
    while left and total <= limit:
        item = left.pop()
        if isinstance(item, str):
            total += len(item)
        elif isinstance(item, t.Mapping):
            total += 1 + sum(len(key) for key in item if isinstance(key, str))
            left.extend(item.values())
        elif isinstance(item, (list, tuple)):
            total += 1
            left.extend(item)
        else:
            total += 1
    return total


class Offer:
    """What ``tools/list`` answers for one state of the catalog (:func:`declarations`, made once
    per state, not per request), each tool's input schema, for the SDK's check of
    ``Mcp-Param-*`` headers (which would otherwise list the tools for every call), and the tools
    whose calls are tried on the event loop first (:func:`inline_safe`)."""

    def __init__(self, loaded: Loaded) -> None:
        import mcp_types as types

        self.loaded = loaded
        found = declarations(loaded)
        self.tools = [types.Tool.model_validate(d) for d in found]
        self.schemas = {d["name"]: d["inputSchema"] for d in found}
        catalog = loaded.catalog
        #: Taken off when a call takes longer than INLINE_SECONDS there.
        tools = catalog.tools if catalog is not None else {}
        self.inline = {name for name in self.schemas if name in tools and inline_safe(tools[name])}

    def try_inline(self, name: str, arguments: t.Mapping[str, t.Any] | None) -> Called | None:
        """The call's outcome, when it may be tried on the event loop and ends in time there;
        else None (and a tool that took too long is not tried there again)."""
        if name not in self.inline or weight(arguments) > INLINE_WEIGHT:
            return None
        called = call(self.loaded, name, arguments, time_limit=INLINE_SECONDS)
        failed = called.error
        if failed is not None and (failed["error"].get("details") or {}).get("timeout_seconds") == INLINE_SECONDS:
            self.inline.discard(name)  # (its own limit is longer: a worker gives it that)
            return None
        return called


#: Where a connection of the handshake era keeps the level ``logging/setLevel`` set.
LOG_LEVEL_KEY = "cogtools.log_level"


def levels_from(level: str | None) -> frozenset[str]:
    """The log levels at ``level`` and above (none for None)."""
    from cogtools.run.reports import LOG_LEVELS

    if level not in LOG_LEVELS:
        return frozenset()
    return frozenset(LOG_LEVELS[LOG_LEVELS.index(level) :])


def wanted_levels(ctx: t.Any) -> frozenset[str]:
    """The levels of the log messages the client of request ``ctx`` wants to hear of it: from
    2026-07-28, those its ``_meta`` asks for (``io.modelcontextprotocol/logLevel``); before, those
    the connection's ``logging/setLevel`` allows, none until it set one."""
    from mcp.server.connection import allowed_log_levels
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return frozenset(allowed_log_levels(ctx.protocol_version, ctx.meta))
    connection = Audience.connection(ctx)
    return levels_from(None if connection is None else connection.state.get(LOG_LEVEL_KEY))


def progress_token(ctx: t.Any) -> str | int | None:
    """The ``progressToken`` of request ``ctx``'s ``_meta``, if it has one (as the SDK reads it
    to send progress)."""
    from mcp.shared.jsonrpc_dispatcher import progress_token_from_params

    return progress_token_from_params(ctx.params)


class Reporter:
    """What one call tells its client while it runs, as it asked (progress, and log messages at
    ``levels``): its programs' reports (:func:`cogtools.run.reports.parse_report`, put on any
    thread), and, while none reported progress, the seconds it has run (``running 3 s``, the
    progress a count of seconds) every :data:`BEAT` seconds. The event loop takes what is
    :meth:`due`.

    Progress only grows: a report that does not exceed the last one is dropped. At most
    :data:`RATE` notifications a second go out (a burst of as many, then one each 1/RATE s); of
    what must wait its turn, a run of progress reports is cut to its newest, and past
    :data:`WAITING` reports the oldest is dropped. When the call ends, what the rate allows is
    sent, and the newest progress besides: a program's last word on its progress is heard."""

    #: Notifications a second, at most (and the burst allowed).
    RATE = 10
    #: Seconds between two reports of how long the call has run.
    BEAT = 1.0
    #: Reports that may wait their turn.
    WAITING = 10

    def __init__(self, *, progress: bool, levels: frozenset[str], started: float) -> None:
        self.progress = progress
        self.levels = levels
        self._lock = threading.Lock()
        self._waiting: collections.deque[Report] = collections.deque()
        self._started = started
        self._tokens = float(self.RATE)
        self._refilled = started
        self._highest = -1.0  # the progress of the last report accepted (or sent)
        self._heard = False  # a program reported progress: the seconds are counted no more
        self._beats = 0
        self._closed = False

    @property
    def channel(self) -> bool:
        """Whether the call's programs get a channel to report on: its client listens."""
        return self.progress or bool(self.levels)

    def put(self, report: Report) -> None:
        """Take what a program reported (on any thread); drop what the client did not ask for,
        what does not advance, and the oldest of what waits when too much does."""
        from cogtools.run.reports import Progress

        with self._lock:
            if self._closed:
                return
            if isinstance(report, Progress):
                if not self.progress or report.progress <= self._highest:
                    return
                self._highest, self._heard = report.progress, True
            elif report.level not in self.levels:
                return
            self._waiting.append(report)
            if len(self._waiting) > self.WAITING:
                self._waiting.popleft()

    def _collapse(self) -> None:
        """Keep, of each run of progress reports waiting, only its newest."""
        from cogtools.run.reports import Progress

        kept: collections.deque[Report] = collections.deque()
        for report in self._waiting:
            if kept and isinstance(report, Progress) and isinstance(kept[-1], Progress):
                kept[-1] = report
            else:
                kept.append(report)
        self._waiting = kept

    def due(self, now: float, *, final: bool = False) -> list[Report]:
        """What to send now, in order; with ``final``, the last of it (nothing is taken after)."""
        from cogtools.run.reports import Progress

        with self._lock:
            if self._closed:
                return []
            self._tokens = min(float(self.RATE), self._tokens + (now - self._refilled) * self.RATE)
            self._refilled = now
            if len(self._waiting) > self._tokens:
                self._collapse()
            out: list[Report] = []
            while self._waiting and self._tokens >= 1:
                out.append(self._waiting.popleft())
                self._tokens -= 1
            if self.progress and not self._heard and not final:
                seconds = int((now - self._started) / self.BEAT)
                if seconds > self._beats and seconds > self._highest and self._tokens >= 1:
                    self._beats, self._highest = seconds, seconds
                    out.append(Progress(seconds, None, f"running {seconds} s"))
                    self._tokens -= 1
            if final:
                last = [report for report in self._waiting if isinstance(report, Progress)]
                out += last[-1:]
                self._waiting.clear()
                self._closed = True
            return out


#: How often, in seconds, a call's reporter looks for what to send.
REPORT_TICK = 0.1


async def send_report(ctx: t.Any, report: Report, tool: str) -> None:
    """Send ``report`` on the stream of request ``ctx`` (``notifications/progress`` against its
    token, or ``notifications/message`` from logger ``tool``)."""
    import mcp_types as types

    from cogtools.run.reports import Progress

    if isinstance(report, Progress):
        await ctx.session.report_progress(report.progress, report.total, report.message)
        return
    level = t.cast("types.LoggingLevel", report.level)
    params = types.LoggingMessageNotificationParams(level=level, data=report.message, logger=tool)
    await ctx.session.send_notification(
        types.LoggingMessageNotification(params=params), related_request_id=ctx.request_id
    )


async def keep_reporting(ctx: t.Any, reporter: Reporter, tool: str) -> None:
    """Send what ``reporter`` has due, every :data:`REPORT_TICK` seconds, until cancelled (or
    the client's stream fails: a report is advice, never the call's end)."""
    import time

    import anyio

    try:
        while True:
            await anyio.sleep(REPORT_TICK)
            for report in reporter.due(time.monotonic()):
                await send_report(ctx, report, tool)
    except Exception:  # noqa: BLE001 - the stream gone, or refusing: the call goes on, unreported
        return


async def last_reports(ctx: t.Any, reporter: Reporter, tool: str) -> None:
    """Send what ``reporter`` has left, once the call has its result (and before it is sent)."""
    import time

    import anyio

    with anyio.move_on_after(Audience.SEND_SECONDS):
        try:
            for report in reporter.due(time.monotonic(), final=True):
                await send_report(ctx, report, tool)
        except Exception:  # noqa: BLE001 - as in keep_reporting
            return


class Audience:
    """The connections to tell of a change, the handshake era's (a client of 2026-07-28 listens
    with ``subscriptions/listen``): each connection once, however many requests it made, and
    forgotten when it closes."""

    #: How long a connection may take to accept a notification before it is skipped.
    SEND_SECONDS = 5.0

    def __init__(self) -> None:
        self._connections: dict[int, t.Any] = {}

    def __len__(self) -> int:
        return len(self._connections)

    @staticmethod
    def connection(ctx: t.Any) -> t.Any:
        """The connection a request came on (the SDK gives a handler the request's session,
        which is made anew for each request, and keeps the connection inside it)."""
        return getattr(getattr(ctx, "session", None), "_connection", None)

    def join(self, ctx: t.Any) -> None:
        """Count the connection ``ctx`` came on, unless it is already counted or of an era that
        listens for itself."""
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        connection = self.connection(ctx)
        key = id(connection)
        if connection is None or key in self._connections or connection.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return
        self._connections[key] = connection
        connection.exit_stack.callback(self._connections.pop, key, None)

    async def tell(self, problems: list[str]) -> None:
        """Send each connection ``notifications/tools/list_changed`` and the problems, a
        warning each (unless its ``logging/setLevel`` asked for more severe messages only); a
        connection that does not take them in time is skipped."""
        import anyio

        for connection in list(self._connections.values()):
            with anyio.move_on_after(self.SEND_SECONDS):
                await connection.send_tool_list_changed()
                level = connection.state.get(LOG_LEVEL_KEY)
                if level is not None and "warning" not in levels_from(level):
                    continue
                for line in problems:
                    params = {"level": "warning", "logger": "cogtools", "data": line}
                    await connection.notify("notifications/message", params)


def build_server(live: LiveCatalog, *, max_calls: int = DEFAULT_MAX_CALLS, stateless: bool = False) -> Server[t.Any]:
    """The MCP server of ``live``'s project. A stateless one keeps no connection to notify (it
    sees a new one per request, which must not pile up)."""
    import anyio
    import mcp_types as types
    from mcp.server.lowlevel import Server

    from cogtools import __version__
    from cogtools.run.reports import reserve_report_slot

    reserve_report_slot()
    limiter = anyio.CapacityLimiter(max_calls)
    audience = Audience()

    offered: list[Offer] = []

    def offer() -> Offer:
        """The offer of the catalog as it is now, made again only when it changed."""
        loaded = live.loaded
        if not offered or offered[0].loaded is not loaded:
            offered[:] = [Offer(loaded)]
        return offered[0]

    async def list_tools(ctx: t.Any, params: t.Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=offer().tools)

    def input_schema(name: str) -> t.Mapping[str, t.Any] | None:
        return offer().schemas.get(name)

    async def in_worker(offered: Offer, name: str, arguments: t.Any, reports: t.Any = None) -> Called:
        """A call in a worker thread (at most ``max_calls`` at once), its programs' reports to
        ``reports``; cancelled (the client gone, or cancelling), its programs end with it."""
        from cogtools.run.process import CALL_PROGRAMS, CallPrograms

        programs = CallPrograms(reports=reports)

        def work() -> Called:
            CALL_PROGRAMS.set(programs)  # this worker thread's context: the call's own programs
            return call(offered.loaded, name, arguments)

        try:
            return await anyio.to_thread.run_sync(work, limiter=limiter, abandon_on_cancel=True)
        except anyio.get_cancelled_exc_class():
            # notifications/cancelled, or the client gone (stdin closed, the session deleted or
            # idle too long, the response stream closed): the call's programs end with it
            programs.end()
            raise

    async def call_tool(ctx: t.Any, params: t.Any) -> types.CallToolResult:
        import time

        offered = offer()
        reporter = Reporter(
            progress=progress_token(ctx) is not None, levels=wanted_levels(ctx), started=time.monotonic()
        )
        # a template runs no program and reports nothing: its reporter has nothing to send
        inline = offered.try_inline(params.name, params.arguments)
        if inline is not None:
            called = inline
        elif not reporter.channel:
            # a client that listens to nothing is told nothing, and the call's programs get no channel
            called = await in_worker(offered, params.name, params.arguments)
        else:
            failed: Exception | None = None
            async with anyio.create_task_group() as group:
                group.start_soon(keep_reporting, ctx, reporter, params.name)
                try:
                    called = await in_worker(offered, params.name, params.arguments, reporter.put)
                except Exception as e:  # noqa: BLE001 - raised below as itself, not in a group
                    failed = e
                group.cancel_scope.cancel()
            if failed is not None:
                raise failed
            await last_reports(ctx, reporter, params.name)
        error = called.error
        if error is not None and error["error"]["code"] == "TOOL_NOT_FOUND" and error["error"]["tool"] == params.name:
            from mcp.shared.exceptions import MCPError

            # a tool the server does not offer is protocol misuse, as the specification says
            raise MCPError(types.INVALID_PARAMS, error["error"]["message"], data=error)
        return t.cast("types.CallToolResult", called.result(params.name))

    async def set_level(ctx: t.Any, params: t.Any) -> types.EmptyResult:
        """``logging/setLevel`` (the handshake era's; 2026-07-28 has none): the connection hears
        log messages at that level and above from then on."""
        connection = Audience.connection(ctx)
        if connection is not None:
            connection.state[LOG_LEVEL_KEY] = params.level
        return types.EmptyResult()

    async def joining(ctx: t.Any, call_next: t.Any) -> t.Any:
        """Every message but ``initialize`` (whose era is settled only once it is answered)
        counts its connection among those to tell of a change."""
        if not stateless and ctx.method != "initialize":
            audience.join(ctx)
        return await call_next(ctx)

    from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler

    bus = InMemorySubscriptionBus()
    server: Server[t.Any] = Server(
        "cogtools",
        version=__version__,
        instructions="The tools of this project, served by cogtools.",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_subscriptions_listen=ListenHandler(bus),
        get_tool_input_schema=input_schema,
    )
    # (registered here rather than as on_set_logging_level, which warns of the logging
    # capability's deprecation in 2026-07-28 to whoever starts a server: a client of the
    # handshake era still asks for it)
    server.add_request_handler("logging/setLevel", types.SetLevelRequestParams, set_level)
    server.middleware.append(joining)
    server.cogtools_audience = audience  # type: ignore[attr-defined]
    server.cogtools_bus = bus  # type: ignore[attr-defined]
    from mcp.server.lowlevel import NotificationOptions

    plain = server.create_initialization_options

    def announcing(notification_options: t.Any = None, *args: t.Any, **kwargs: t.Any) -> t.Any:
        """The initialization options, saying that the tools list changes (it does, and is
        announced), over every transport: HTTP's session manager asks with no options."""
        return plain(notification_options or NotificationOptions(tools_changed=True), *args, **kwargs)

    server.create_initialization_options = announcing  # type: ignore[method-assign]
    server.cogtools_offer = offer  # type: ignore[attr-defined]
    server.cogtools_in_worker = in_worker  # type: ignore[attr-defined]
    return server


#: With the kernel telling of changes, the files are still checked this often (seconds), for
#: what it cannot tell: a directory that did not exist, a file system that does not report.
CHECK_ANYWAY = 30.0
#: How long to wait after a change before reading: a save is often several writes.
SETTLE = 0.05
#: Without the kernel's help, checking takes at most this share of the time, however large the
#: catalog (the interval grows with what a check costs).
CHECK_SHARE = 0.01
#: With it, checking takes at most this share of the time while the files keep changing.
BUSY_SHARE = 0.1


async def watch(server: Server[t.Any], live: LiveCatalog, interval: float, report: t.Callable[[str], None]) -> None:
    """Follow the files; on a change, tell every client. Where the kernel tells of changes
    (:class:`cogtools.mcp.watching.Watcher`), the catalog is checked when a directory it reads
    changes (and every :data:`CHECK_ANYWAY` seconds); else every ``interval`` seconds, or less
    often when a check costs more than :data:`CHECK_SHARE` of that."""
    import anyio

    from cogtools.mcp.watching import Watcher

    watcher = Watcher.start()
    told = watcher is not None and watcher.watch(live.directories)
    try:
        while True:
            if told:
                assert watcher is not None
                with anyio.move_on_after(CHECK_ANYWAY):
                    await anyio.wait_readable(watcher.fileno())
                    # a save is often several writes; and files that change without end (an agent
                    # writing in a loop) are checked at most BUSY_SHARE of the time
                    await anyio.sleep(max(SETTLE, live.check_seconds / BUSY_SHARE))
                watcher.drain()
            else:
                await anyio.sleep(max(interval, live.check_seconds / CHECK_SHARE))
            problems = await anyio.to_thread.run_sync(live.refresh)
            if told:
                assert watcher is not None
                told = watcher.watch(live.directories)
            if problems is None:
                continue
            report(f"the tools changed ({live.count()} tools)")
            for line in problems:
                report(f"skipped: {line}")
            from mcp.server.subscriptions import ToolsListChanged

            await server.cogtools_bus.publish(ToolsListChanged())  # type: ignore[attr-defined]  # 2026-07-28 clients
            await server.cogtools_audience.tell(problems)  # type: ignore[attr-defined]  # clients of the handshake era
    finally:
        if watcher is not None:
            watcher.close()


def serve_stdio(live: LiveCatalog, *, max_calls: int, interval: float, report: t.Callable[[str], None]) -> None:
    """Serve over stdin and stdout until the client closes them (or a signal stops it)."""
    import anyio
    from mcp.server.stdio import stdio_server

    server = build_server(live, max_calls=max_calls)

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            async with anyio.create_task_group() as group:
                group.start_soon(watch, server, live, interval, report)
                await server.run(read_stream, write_stream, server.create_initialization_options())
                group.cancel_scope.cancel()

    run_until_stopped(main)


LOOPBACK = ("127.0.0.1", "localhost", "::1")
#: The addresses that mean every interface of the machine.
EVERY_ADDRESS = ("0.0.0.0", "::", "")


class Hosts(t.NamedTuple):
    """The names a client may reach the server by, as its ``Host`` and ``Origin`` headers give
    them: a DNS name only when listed (DNS rebinding: an attacker's name made to point here);
    an address literal too when the server listens on every address (a literal names no
    attacker's domain, and a browser's origin is then the server itself)."""

    names: frozenset[str]
    any_address: bool

    @classmethod
    def serving(cls, host: str, extra: t.Iterable[str] = ()) -> Hosts:
        """Those of a server bound to ``host``, and the ``extra`` names it is told of (a reverse
        proxy's)."""
        import socket

        names = {host.lower(), *(name.lower().strip("[]") for name in extra)}
        if host in LOOPBACK or host in EVERY_ADDRESS:
            names.update(LOOPBACK)
        if host in EVERY_ADDRESS:
            names.update({socket.gethostname().lower(), socket.getfqdn().lower()})
        return cls(frozenset(names - set(EVERY_ADDRESS)), host in EVERY_ADDRESS)

    def allows(self, name: str) -> bool:
        import ipaddress

        name = name.lower()
        if name in self.names:
            return True
        try:
            ipaddress.ip_address(name)
        except ValueError:
            return False
        return self.any_address

    def allows_host(self, header: str | None) -> bool:
        """``Host: NAME[:PORT]`` (``[V6]:PORT``)."""
        from urllib.parse import urlsplit

        if not header:
            return False
        try:
            parts = urlsplit(f"//{header}")
            name, _ = parts.hostname, parts.port  # (a port that is not a number raises)
        except ValueError:
            return False
        return name is not None and self.allows(name)

    def allows_origin(self, header: str | None) -> bool:
        """``Origin: SCHEME://NAME[:PORT]``; none is a client that is not a browser."""
        from urllib.parse import urlsplit

        if header is None:
            return True
        try:
            parts = urlsplit(header)
            name, _ = parts.hostname, parts.port
        except ValueError:
            return False
        return parts.scheme in ("http", "https") and name is not None and self.allows(name)


async def _refuse(send: t.Any, status: int, body: bytes, *headers: tuple[bytes, bytes]) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *headers],
        }
    )
    await send({"type": "http.response.body", "body": body})


def guard(app: t.Any, hosts: Hosts, token: str | None) -> t.Any:
    """``app`` behind the checks of every HTTP request: the ``Host`` (421) and ``Origin`` (403)
    headers name the server (:class:`Hosts`), and ``token``, when given, is sent as a bearer
    token (401, compared in constant time). A ``Last-Event-ID`` is dropped: the server keeps no
    events to replay, so a client resuming a stream gets a new one."""
    import hmac

    expected = f"Bearer {token}".encode()

    async def guarded(scope: t.Any, receive: t.Any, send: t.Any) -> None:
        if scope["type"] == "http":
            headers = dict(scope.get("headers", ()))
            if not hosts.allows_host(headers.get(b"host", b"").decode("latin-1")):
                await _refuse(send, 421, b'{"error": "the Host header does not name this server"}')
                return
            origin = headers.get(b"origin")
            if not hosts.allows_origin(None if origin is None else origin.decode("latin-1")):
                await _refuse(send, 403, b'{"error": "requests from this Origin are refused"}')
                return
            if token is not None and not hmac.compare_digest(headers.get(b"authorization", b""), expected):
                body = b'{"error": "unauthorized: send the token as Authorization: Bearer TOKEN"}'
                await _refuse(send, 401, body, (b"www-authenticate", b'Bearer realm="cogtools"'))
                return
            if b"last-event-id" in headers:
                scope = {**scope, "headers": [(k, v) for k, v in scope["headers"] if k != b"last-event-id"]}
        await app(scope, receive, send)

    return guarded


def http_app(
    live: LiveCatalog, *, hosts: Hosts, token: str | None, stateless: bool, max_calls: int
) -> tuple[Server[t.Any], t.Any]:
    """The server and its ASGI app: the streamable HTTP transport at ``/mcp``, behind
    :func:`guard`."""
    from mcp.server.transport_security import TransportSecuritySettings

    server = build_server(live, max_calls=max_calls, stateless=stateless)
    # the guard checks Host and Origin, for every address served
    security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    app = server.streamable_http_app(stateless_http=stateless, transport_security=security)
    from cogtools.mcp.direct import answering

    return server, guard(answering(app, server), hosts, token)


def listen(host: str, port: int) -> t.Any:
    """A socket bound to ``host``:``port`` and listening, or a :class:`UsageError` that says
    why not (the port in use, a privileged port, an address not the machine's)."""
    import socket

    from cogtools.core.errors import UsageError

    try:
        # IPv4 unless the address is IPv6's, as uvicorn binds: "localhost" is 127.0.0.1, which
        # is what clients are told, though the resolver may give ::1 first
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        family, kind, proto, _, address = socket.getaddrinfo(
            host or None, port, family, socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        sock = socket.socket(family, kind, proto)
    except OSError as e:
        raise UsageError(f"cannot serve {host}:{port}: {e.strerror or e}") from e
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as e:
        sock.close()
        import errno

        why = "the port is in use; choose another" if e.errno == errno.EADDRINUSE else (e.strerror or str(e))
        raise UsageError(f"cannot serve {host}:{port}: {why}") from e
    sock.set_inheritable(False)
    return sock


#: The most bytes a request's head (request line and headers), or its trailers, may take, as
#: h11 holds them.
MAX_HEAD = 16 * 1024
#: The bytes a chunk's framing (its size line and the line end after it) may take, over and
#: above the head's.
CHUNK_FRAMING = 32


def web_protocol() -> t.Any:
    """The HTTP protocol uvicorn serves with: its httptools protocol (llhttp, a C parser: a sixth
    less of the server's instructions per call than h11) when httptools is installed, with what
    is not the body of a request (its head, a chunked body's trailers) held to :data:`MAX_HEAD`
    bytes, as h11 holds it; uvicorn's httptools protocol keeps a head whole, however long (a
    memory exhaustion, and the parser's joining of the pieces holds the event loop); else h11.

    The head is counted twice: as it arrives, the bytes of each write that the parser did not
    hand on as body (less the framing of the chunks it read), since the last request that
    ended (which bounds what a head kept before its end can take); and once whole, its
    request line and headers."""
    try:
        import httptools
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # (no httptools)
        return "h11"

    class BoundedHead(HttpToolsProtocol):
        unbodied = 0  # the bytes of the request being read that were not its body
        fed_body = 0  # of the write being parsed: the body, the chunks read, whether a request ended
        fed_chunks = 0
        ended = False

        def on_url(self, url: bytes) -> None:
            super().on_url(url)
            if len(self.url) > MAX_HEAD:
                raise httptools.HttpParserError("request head too large")

        def on_headers_complete(self) -> None:
            if len(self.url) + sum(len(name) + len(value) + 4 for name, value in self.headers) > MAX_HEAD:
                raise httptools.HttpParserError("request head too large")  # (uvicorn answers 400)
            super().on_headers_complete()

        def on_body(self, body: bytes) -> None:
            self.fed_body += len(body)
            super().on_body(body)

        def on_chunk_header(self) -> None:
            self.fed_chunks += 1

        def on_message_complete(self) -> None:
            self.ended = True
            super().on_message_complete()

        def data_received(self, data: bytes) -> None:
            self.fed_body = self.fed_chunks = 0
            self.ended = False
            super().data_received(data)
            if self.ended:  # (what of this write follows the request that ended is not counted)
                self.unbodied = 0
                return
            self.unbodied += max(0, len(data) - self.fed_body - CHUNK_FRAMING * self.fed_chunks)
            if self.unbodied > MAX_HEAD and not self.transport.is_closing():
                self.send_400_response("Request head too large")

    return BoundedHead


def serve_http(
    live: LiveCatalog,
    *,
    host: str,
    port: int,
    hosts: Hosts,
    token: str | None,
    stateless: bool,
    max_calls: int,
    interval: float,
    report: t.Callable[[str], None],
) -> None:
    """Serve the streamable HTTP transport until SIGINT or SIGTERM; the port is bound before
    the server says it serves."""
    import anyio
    import uvicorn

    from cogtools.run.process import end_all

    sock = listen(host, port)
    server, app = http_app(live, hosts=hosts, token=token, stateless=stateless, max_calls=max_calls)

    class Web(uvicorn.Server):
        def handle_exit(self, sig: int, frame: t.Any) -> None:
            end_all()  # calls in flight end now, so the graceful shutdown does not wait for them
            super().handle_exit(sig, frame)

    config = uvicorn.Config(app, http=web_protocol(), log_level="warning", lifespan="on", timeout_graceful_shutdown=5)
    web = Web(config)
    shown = f"[{host}]" if ":" in host else host

    async def main() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(watch, server, live, interval, report)
            report(f"serving {live.count()} tools at http://{shown}:{port}/mcp")
            await web.serve(sockets=[sock])
            group.cancel_scope.cancel()

    run_until_stopped(main)


def run_until_stopped(main: t.Callable[[], t.Awaitable[None]]) -> None:
    """Run the server's event loop; however it ends (the client gone, SIGINT, SIGTERM), kill every
    program a call still runs. A signal comes out as itself, not inside an exception group, so
    that the boundary reports it as it reports any interruption."""
    import anyio

    from cogtools.run.process import end_all

    try:
        anyio.run(main)
    except BaseException as e:
        raise _first(e) from None
    finally:
        end_all()


def _first(error: BaseException) -> BaseException:
    """The exception an exception group carries (the first, depth first), or ``error`` itself."""
    while isinstance(getattr(error, "exceptions", None), tuple) and error.exceptions:  # type: ignore[attr-defined]
        error = error.exceptions[0]  # type: ignore[attr-defined]
    return error


def stderr_report(message: str) -> None:
    from cogtools.core.printable import printable

    sys.stderr.write(f"cogtools mcp: {printable(message)}\n")
    sys.stderr.flush()
