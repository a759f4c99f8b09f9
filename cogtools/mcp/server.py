"""The MCP server of a project: :class:`ToolServer` holds its state and serves with the SDK's
``Server``, which it composes.

- ``tools/list`` is what ``cogtools-discover`` offers (the configured role, toolset and discovery
  mode; a client never chooses its own role), in the ``mcp`` dialect of the export, with
  ``annotations`` from the metadata and the ``title`` (:class:`cogtools.mcp.listing.Listing`).
- ``tools/call`` is the call of ``cogtools-call`` (:func:`cogtools.mcp.calls.run_call`), in a
  worker thread (at most ``max_calls`` at once); a template whose checks are cheap is tried on the
  event loop first (:meth:`cogtools.mcp.listing.Listing.try_inline`). Over HTTP, a call of the
  2026-07-28 era is answered in front of the SDK when it may be (:mod:`cogtools.mcp.direct`). A
  call the client cancels (``notifications/cancelled``) kills the process groups of the programs
  it started. A failure is a tool result with ``isError: true`` whose text, and
  ``structuredContent``, is the JSON error object ``cogtools-call`` prints; a tool the server does
  not offer is a JSON-RPC error (-32602), with that object as its ``data``.
- While a call runs, its client is told what it asked to hear (:mod:`cogtools.mcp.reporting`).
- The catalog is live (:mod:`cogtools.mcp.live`): a change is announced with
  ``notifications/tools/list_changed`` (on a ``subscriptions/listen`` stream to clients of
  protocol 2026-07-28, directly to those of the handshake era, :mod:`cogtools.mcp.audience`).
"""

from __future__ import annotations

import time
import typing as t

import anyio
import mcp_types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp.shared.exceptions import MCPError

from cogtools import __version__
from cogtools.mcp import DEFAULT_MAX_CALLS, INSTRUCTIONS, SERVER_NAME
from cogtools.mcp.audience import Audience
from cogtools.mcp.calls import Outcome, note_caller, run_call
from cogtools.mcp.listing import Listing
from cogtools.mcp.live import LiveCatalog, follow
from cogtools.mcp.reporting import (
    LOG_LEVEL_KEY,
    Reporter,
    connection_of,
    keep_reporting,
    last_reports,
    progress_token,
    wanted_levels,
)
from cogtools.run import warm
from cogtools.run.process import CALL_PROGRAMS, CallPrograms, end_all
from cogtools.run.reports import Report, reserve_report_slot


class _ToolsChanging(Server[t.Any]):
    """The SDK's server, whose initialization options say that the tools list changes (it does,
    and it is announced), over every transport: HTTP's session manager asks for them with no
    options."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, t.Any]] | None = None,
        extensions: dict[str, dict[str, t.Any]] | None = None,
    ) -> InitializationOptions:
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True), experimental_capabilities, extensions
        )


class ToolServer:
    """The MCP server of ``live``'s project: the live catalog and its current
    :class:`~cogtools.mcp.listing.Listing`, the limit on calls at once, who to tell of a change,
    and :attr:`sdk`, the SDK's ``Server`` whose handlers are this object's. A stateless one keeps
    no connection to notify (it sees a new one per request, which must not pile up)."""

    def __init__(self, live: LiveCatalog, *, max_calls: int = DEFAULT_MAX_CALLS, stateless: bool = False) -> None:
        reserve_report_slot()
        warm.enable()  # a server calls its tools again and again: their sandboxes are kept
        self.live = live
        self._stateless = stateless
        self._limiter = anyio.CapacityLimiter(max_calls)
        self._audience = Audience()
        self._bus = InMemorySubscriptionBus()
        self._listing: Listing | None = None
        #: The SDK's server, serving with this object's handlers.
        self.sdk: Server[t.Any] = _ToolsChanging(
            SERVER_NAME,
            version=__version__,
            instructions=INSTRUCTIONS,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_subscriptions_listen=ListenHandler(self._bus),
            get_tool_input_schema=self._input_schema,
        )
        # (registered here rather than as on_set_logging_level, which warns of the logging
        # capability's deprecation in 2026-07-28 to whoever starts a server: a client of the
        # handshake era still asks for it)
        self.sdk.add_request_handler("logging/setLevel", types.SetLevelRequestParams, self._set_level)
        self.sdk.middleware.append(self._joining)

    def listing(self) -> Listing:
        """The listing of the catalog as it is now, made again only when it changed."""
        loaded = self.live.loaded
        if self._listing is None or self._listing.loaded is not loaded:
            self._listing = Listing(loaded)
        return self._listing

    async def run_in_worker(
        self,
        listing: Listing,
        name: str,
        arguments: t.Mapping[str, t.Any] | None,
        reports: t.Callable[[Report], None] | None = None,
    ) -> Outcome:
        """A call in a worker thread (at most ``max_calls`` at once), its programs' reports to
        ``reports``; cancelled (the client gone, or cancelling), its programs end with it."""
        programs = CallPrograms(reports=reports)

        def work() -> Outcome:
            CALL_PROGRAMS.set(programs)  # this worker thread's context: the call's own programs
            return run_call(listing.loaded, name, arguments)

        try:
            return await anyio.to_thread.run_sync(work, limiter=self._limiter, abandon_on_cancel=True)
        except anyio.get_cancelled_exc_class():
            # notifications/cancelled, or the client gone (stdin closed, the session deleted or
            # idle too long, the response stream closed): the call's programs end with it
            programs.end()
            raise

    async def announce(self, problems: list[str]) -> None:
        """Tell every client that the tools changed: on the ``subscriptions/listen`` streams of
        2026-07-28, and to each connection of the handshake era, with ``problems``."""
        await self._bus.publish(ToolsListChanged())
        await self._audience.tell(problems)

    async def follow(self, interval: float, report: t.Callable[[str], None], *, at_once: bool = False) -> None:
        """Follow the project's files, announcing each change (:func:`cogtools.mcp.live.follow`)."""
        await follow(self.live, interval, report, self.announce, at_once=at_once)

    def _input_schema(self, name: str) -> t.Mapping[str, t.Any] | None:
        return self.listing().schemas.get(name)

    async def _list_tools(self, ctx: t.Any, params: t.Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self.listing().tools)

    async def _call_tool(self, ctx: t.Any, params: t.Any) -> types.CallToolResult:
        listing = self.listing()
        client = getattr(getattr(connection_of(ctx), "client_params", None), "client_info", None)
        note_caller(client, getattr(getattr(ctx, "request", None), "scope", None))  # (the audit log's)
        reporter = Reporter(
            progress=progress_token(ctx) is not None, levels=wanted_levels(ctx), started=time.monotonic()
        )
        # a template runs no program and reports nothing: its reporter has nothing to send
        outcome = listing.try_inline(params.name, params.arguments)
        if outcome is None and not reporter.channel:
            # a client that listens to nothing is told nothing, and the call's programs get no channel
            outcome = await self.run_in_worker(listing, params.name, params.arguments)
        elif outcome is None:
            outcome = await self._run_reporting(ctx, listing, params, reporter)
        if outcome.tool_not_found(params.name):
            # a tool the server does not offer is protocol misuse, as the specification says
            error = t.cast("dict[str, t.Any]", outcome.error)
            raise MCPError(types.INVALID_PARAMS, error["error"]["message"], data=error)
        return outcome.result(params.name)

    async def _run_reporting(self, ctx: t.Any, listing: Listing, params: t.Any, reporter: Reporter) -> Outcome:
        """A call in a worker thread whose client hears what ``reporter`` has due while it runs,
        and what it has left before the result."""
        failed: Exception | None = None
        async with anyio.create_task_group() as group:
            group.start_soon(keep_reporting, ctx, reporter, params.name)
            try:
                outcome = await self.run_in_worker(listing, params.name, params.arguments, reporter.put)
            except Exception as e:  # noqa: BLE001 - raised below as itself, not in a group
                failed = e
            group.cancel_scope.cancel()
        if failed is not None:
            raise failed
        await last_reports(ctx, reporter, params.name)
        return outcome

    async def _set_level(self, ctx: t.Any, params: t.Any) -> types.EmptyResult:
        """``logging/setLevel`` (the handshake era's; 2026-07-28 has none): the connection hears
        log messages at that level and above from then on."""
        connection = connection_of(ctx)
        if connection is not None:
            connection.state[LOG_LEVEL_KEY] = params.level
        return types.EmptyResult()

    async def _joining(self, ctx: t.Any, call_next: t.Any) -> t.Any:
        """Every message but ``initialize`` (whose era is settled only once it is answered)
        counts its connection among those to tell of a change."""
        if not self._stateless and ctx.method != "initialize":
            self._audience.join(ctx)
        return await call_next(ctx)


def run_until_stopped(main: t.Callable[[], t.Awaitable[None]]) -> None:
    """Run the server's event loop; however it ends (the client gone, SIGINT, SIGTERM), kill every
    program a call still runs. A signal comes out as itself, not inside an exception group, so
    that the boundary reports it as it reports any interruption."""
    try:
        anyio.run(main)
    except BaseException as e:
        raise _first(e) from None
    finally:
        end_all()


def _first(error: BaseException) -> BaseException:
    """The exception an exception group carries (the first, depth first), or ``error`` itself."""
    inner = getattr(error, "exceptions", None)
    while isinstance(inner, tuple) and inner:
        error = inner[0]
        inner = getattr(error, "exceptions", None)
    return error
