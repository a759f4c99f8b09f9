"""Serving a project's tools over the streamable HTTP transport: the SDK's app at ``/mcp``, with
the calls :mod:`cogtools.mcp.direct` answers in front of it, behind the checks of every request
(:func:`guard`: ``Host``, ``Origin``, the token; with ``--auth``, :func:`cogtools.mcp.auth.protect`:
an OAuth access token and the caller's rights), on a socket bound before anything is said to
be served (:func:`listen`), by uvicorn (with :mod:`cogtools.mcp.bounded_head`'s protocol)."""

from __future__ import annotations

import errno
import hmac
import ipaddress
import socket
import typing as t
from urllib.parse import urlsplit

import anyio
import uvicorn
from mcp.server.transport_security import TransportSecuritySettings

from cogtools.core.errors import UsageError
from cogtools.mcp.bounded_head import web_protocol
from cogtools.mcp.direct import answering
from cogtools.mcp.live import LiveCatalog
from cogtools.mcp.server import ToolServer, run_until_stopped
from cogtools.run.process import end_all

if t.TYPE_CHECKING:
    from cogtools.mcp.auth import Settings
    from cogtools.mcp.limits import Limits

#: The loopback names, which a server may bind without a token.
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

        names = {host.lower(), *(name.lower().strip("[]") for name in extra)}
        if host in LOOPBACK or host in EVERY_ADDRESS:
            names.update(LOOPBACK)
        if host in EVERY_ADDRESS:
            names.update({socket.gethostname().lower(), socket.getfqdn().lower()})
        return cls(frozenset(names - set(EVERY_ADDRESS)), host in EVERY_ADDRESS)

    def allows(self, name: str) -> bool:

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
    live: LiveCatalog,
    *,
    hosts: Hosts,
    token: str | None,
    stateless: bool,
    max_calls: int,
    auth: Settings | None = None,
    limits: Limits | None = None,
) -> tuple[ToolServer, t.Any]:
    """The server and its ASGI app: the streamable HTTP transport at ``/mcp``, with the calls
    :func:`cogtools.mcp.direct.answering` takes answered in front of it, behind :func:`guard`
    (and with ``auth``, behind :func:`cogtools.mcp.auth.protect`, the SDK's handlers behind the
    :class:`~cogtools.mcp.auth.Authorizer`'s middleware)."""
    server = ToolServer(live, max_calls=max_calls, stateless=stateless)
    # the guard checks Host and Origin, for every address served
    security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    app = answering(server.sdk.streamable_http_app(stateless_http=stateless, transport_security=security), server)
    if limits is not None and auth is None:
        from cogtools.mcp.limits import limited

        app = limited(app, limits, _refuse, None)
    if auth is not None:
        from cogtools.mcp.auth import CALLER_KEY, Authorizer, Verifier, protect  # (PyJWT: only for --auth)

        authorizer = Authorizer(server, auth)
        server.sdk.middleware.insert(0, authorizer.middleware)
        if limits is not None:  # (inside the checks of the token, which say who the caller is)
            from cogtools.mcp.limits import limited

            app = limited(app, limits, _refuse, CALLER_KEY)
        app = protect(app, Verifier(auth, _ceiling(live)), authorizer, _refuse)
    return server, guard(app, hosts, token)


def _ceiling(live: LiveCatalog) -> t.Callable[[], str]:
    """The server's own role as configured now, the most a caller's token may give it."""

    def role() -> str:
        catalog = live.loaded.catalog
        if catalog is None:
            return "ai_agent"
        from cogtools.trust.policy import Policy

        return Policy.of(catalog.project).role

    return role


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host``:``port`` and listening, or a :class:`UsageError` that says
    why not (the port in use, a privileged port, an address not the machine's)."""
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
        why = "the port is in use; choose another" if e.errno == errno.EADDRINUSE else (e.strerror or str(e))
        raise UsageError(f"cannot serve {host}:{port}: {why}") from e
    sock.set_inheritable(False)
    return sock


class _Web(uvicorn.Server):
    """uvicorn's server, ending the calls in flight when told to stop, so that the graceful
    shutdown does not wait for them."""

    def handle_exit(self, sig: int, frame: t.Any) -> None:
        end_all()
        super().handle_exit(sig, frame)


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
    auth: Settings | None = None,
    limits: Limits | None = None,
) -> None:
    """Serve the streamable HTTP transport until SIGINT or SIGTERM; the port is bound before
    the server says it serves."""
    sock = listen(host, port)
    server, app = http_app(
        live, hosts=hosts, token=token, stateless=stateless, max_calls=max_calls, auth=auth, limits=limits
    )
    config = uvicorn.Config(app, http=web_protocol(), log_level="warning", lifespan="on", timeout_graceful_shutdown=5)
    web = _Web(config)
    shown = f"[{host}]" if ":" in host else host

    async def main() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(server.follow, interval, report)
            report(f"serving {live.count()} tools at http://{shown}:{port}/mcp")
            if auth is not None:
                report(f"access tokens of {auth.issuer} for {auth.resource}")
            if limits is not None:
                report(
                    f"per caller: {limits.calls_per_minute or 'any'} calls a minute, {limits.concurrent or 'any'} at once"
                )
            await web.serve(sockets=[sock])
            group.cancel_scope.cancel()

    run_until_stopped(main)
