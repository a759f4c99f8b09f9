"""``cogtools mcp``: serve the project's tools over MCP."""

from __future__ import annotations

import os
import typing as t
from pathlib import Path

import click

from cogtools.cli.boundary import warn, write_stdout
from cogtools.cli.common import CONTEXT_SETTINGS, ClientChoice, client_aliases, version_option
from cogtools.cli.mcp_stdio import INSTALL_HINT, PROG, serve, start_audit, stderr_report
from cogtools.core.errors import ConfigInvalidError, UsageError
from cogtools.mcp import DEFAULT_INTERVAL, DEFAULT_MAX_CALLS

if t.TYPE_CHECKING:
    from cogtools.mcp.auth import Settings
    from cogtools.mcp.limits import Limits
    from cogtools.mcp.live import LiveCatalog

TOKEN_VARIABLE = "COGTOOLS_MCP_TOKEN"


def _print_config(client: str, root: Path, project_launcher: bool) -> None:
    from cogtools.clients.mcp_clients import PROJECT, launch, snippet, target

    place = target(client, root, os.environ)
    write_stdout(snippet(client, root, os.environ, project_launcher=project_launcher))
    where = f"{place.path.relative_to(root).as_posix()} in the project" if place.scope == PROJECT else str(place.path)
    warn(PROG, f"for {client}: merge this into {where}")
    note = launch(client, root, os.environ, project_launcher=project_launcher).note
    if note:
        warn(PROG, note)


def parse_address(text: str) -> tuple[str, int]:
    """``[HOST:]PORT`` (``[::1]:8000`` for IPv6); the host defaults to 127.0.0.1."""
    host, _, port = text.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise UsageError(f"--http takes [HOST:]PORT, with a port from 1 to 65535; not {text!r}")
    return host, int(port)


def read_token(token_file: Path | None, environ: t.Mapping[str, str]) -> str | None:
    if token_file is not None:
        try:
            token = token_file.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as e:
            raise ConfigInvalidError(f"cannot read the token: {e}", path=str(token_file)) from e
        if not token:
            raise ConfigInvalidError("the token file is empty", path=str(token_file))
        return token
    return environ.get(TOKEN_VARIABLE) or None


@click.command(
    "mcp", context_settings=CONTEXT_SETTINGS, short_help="Serve the project's tools over MCP (stdio or HTTP)."
)
@click.option(
    "--http",
    "address",
    metavar="[HOST:]PORT",
    help="Serve the streamable HTTP transport at http://HOST:PORT/mcp (HOST: 127.0.0.1) instead of stdio.",
)
@click.option(
    "--token-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help=f"With --http: require this bearer token (the file's content) on every request; else ${TOKEN_VARIABLE}. Required to bind anything but loopback.",
)
@click.option(
    "--auth",
    "issuer",
    metavar="ISSUER_URL",
    help="With --http: be an OAuth 2.1 resource server: require an access token (a JWT) that ISSUER_URL signed for this server, and give each caller the tools its scopes allow (docs/team.md); else the user's auth.issuer setting.",
)
@click.option(
    "--resource",
    metavar="URL",
    help="With --auth: this server's resource URI, which a token's audience must name (default: http://HOST:PORT/mcp; required on every address).",
)
@click.option(
    "--allow-host",
    "allowed_hosts",
    metavar="NAME",
    multiple=True,
    help="With --http: accept requests whose Host (and Origin) name NAME too, such as a reverse proxy's domain; repeatable.",
)
@click.option(
    "--stateless",
    is_flag=True,
    help="With --http: keep no session between requests, so that several replicas can serve one catalog behind a load balancer.",
)
@click.option(
    "--calls-per-minute",
    type=click.IntRange(min=1),
    metavar="N",
    help="With --http: let each caller (the access token's subject with --auth, else the client's address) send at most N requests a minute; more are a 429 with Retry-After (default: the user's auth.limits.calls_per_minute, else no limit).",
)
@click.option(
    "--concurrent-calls",
    type=click.IntRange(min=1),
    metavar="N",
    help="With --http: let each caller have at most N requests in flight at once; more are a 429 with Retry-After (default: the user's auth.limits.concurrent, else no limit).",
)
@click.option(
    "--project",
    "project",
    type=click.Path(file_okay=False, path_type=Path),
    help="Serve the project of this directory (default: the current one).",
)
@click.option(
    "--max-calls",
    type=click.IntRange(min=1),
    default=DEFAULT_MAX_CALLS,
    show_default=True,
    help="Run at most this many calls at once; more wait their turn.",
)
@click.option(
    "--interval",
    type=click.FloatRange(min=0.1),
    default=DEFAULT_INTERVAL,
    show_default=True,
    help="Where the kernel cannot tell of changes (no inotify), check the tool files this often, in seconds (less often when a check costs more than 1% of that).",
)
@click.option(
    "--print-config",
    "client",
    type=ClientChoice(),
    help="Print what CLIENT's configuration file needs to start this server for the project (in that file's format), and exit. Aliases: "
    + client_aliases()
    + ".",
)
@click.option(
    "--project-launcher",
    is_flag=True,
    help="With --print-config: the project's own launcher (node_modules/.bin/cogtools, or this cogtools where it runs from inside the project), which the agent can rewrite, instead of this installation.",
)
@click.option(
    "--audit-log",
    metavar="FILE",
    help="Append a line for every call to the audit log FILE (hash-chained JSON lines: cogtools audit); - for standard output, with --http. Besides the one your configuration's audit.log names.",
)
@version_option()
def command(
    address: str | None,
    token_file: Path | None,
    issuer: str | None,
    resource: str | None,
    allowed_hosts: tuple[str, ...],
    stateless: bool,
    calls_per_minute: int | None,
    concurrent_calls: int | None,
    project: Path | None,
    max_calls: int,
    interval: float,
    client: str | None,
    project_launcher: bool,
    audit_log: str | None,
) -> None:
    """Serve the tools of the project to MCP clients: over standard input and output (the client
    starts this command), or with --http over the streamable HTTP transport.

    tools/list answers what cogtools-discover offers: the tools the configured role may use, with
    their input schemas (the mcp dialect of the export), titles and annotations from the
    metadata; in discovery mode, the meta-tools cogtools_search and cogtools_call. tools/call
    goes through exactly what cogtools-call does: the lookup, the pins of tools that run without
    confirmation, the policy, the argument checks, the implementation and its limits. A failure
    is a tool result with isError set, whose text (and structuredContent) is the JSON error
    object cogtools-call prints; a tool it does not offer is a JSON-RPC error (-32602) with
    that object as its data. Calls run concurrently (at most --max-calls); a call the client
    cancels (from protocol 2026-07-28, by closing its response stream) kills its programs, and so
    does stopping the server (SIGINT, SIGTERM).

    While a call runs, its client hears what it asked for: with a progress token,
    notifications/progress (the seconds the call has run, or what its programs report on the
    descriptor COGTOOLS_PROGRESS_FD names, a line each: PROGRESS [TOTAL|-] [MESSAGE]); with a
    log level (logging/setLevel, or from protocol 2026-07-28 the request's own), the log
    messages its programs write there (LEVEL MESSAGE). At most 10 notifications a second, none
    after the result; a line that is malformed, too long or does not advance is dropped.

    The server follows the tool files and the configuration (on Linux the kernel tells it of a
    change, so an idle server costs nothing; elsewhere it checks every --interval seconds): a
    change is announced with notifications/tools/list_changed, once to each client; a tool whose file an edit broke is still served as it was
    until the file is mended, and the breakage is reported on standard error.

    Over HTTP it binds to 127.0.0.1 unless told otherwise, checks the Host and Origin headers
    against the address it serves (DNS rebinding: a name is accepted only when it is the address
    served, a loopback name, or given with --allow-host; bound to 0.0.0.0 or ::, the machine's
    own host name and any address literal too), and, given a token, requires it on every
    request; binding any other address requires a token (or --auth). With --auth ISSUER_URL it is
    an OAuth 2.1 resource server, as the MCP specification says: its metadata at
    /.well-known/oauth-protected-resource, a 401 with WWW-Authenticate without a valid access
    token (a JWT signed by a key of the issuer's JWKS, unexpired, for --resource), and each
    caller shown and let call only the tools its token's scopes allow (tools:read, tools:write,
    tools:network, tools:destructive, tool:NAME, role:ROLE; cogtools show NAME says which a tool
    needs): a call beyond them is a 403 with error="insufficient_scope". A port that cannot be
    bound is a usage error (exit status 2), said before anything is served. A request's head (its
    request line and headers) may take 16 KiB. A call of a 2026-07-28 client that asks to hear nothing
    while it runs is answered with JSON however long it runs (no keepalive comments).

    Over stdio, a variable that decides trust (COGTOOLS_ROLE, COGTOOLS_CONFIG, the XDG
    directories) is ignored when the env of the server's entry in one of the project's client
    files sets it: the agent can write those files.

    Needs the optional extra mcp: pip install '.[mcp]' in a clone (the npm package has it).
    """
    root = (project or Path.cwd()).resolve()
    if client is not None:
        _print_config(client, root, project_launcher)
        return
    if project_launcher:
        raise UsageError("--project-launcher goes with --print-config")
    limiting = calls_per_minute is not None or concurrent_calls is not None
    if (token_file is not None or stateless or allowed_hosts or issuer or resource or limiting) and address is None:
        raise UsageError(
            "--token-file, --auth, --resource, --allow-host, --stateless, --calls-per-minute and --concurrent-calls go with --http"
        )
    if resource and not issuer:
        raise UsageError("--resource goes with --auth")
    if address is None:
        serve(
            project, max_calls=max_calls, interval=interval, audit_log=audit_log
        )  # (also reached without click: cli.mcp_stdio)
        return
    import importlib.util

    if importlib.util.find_spec("mcp") is None:  # (found, not imported: the SDK comes with the HTTP modules)
        raise UsageError(INSTALL_HINT)
    from cogtools.mcp.live import LiveCatalog
    from cogtools.run.reports import reserve_report_slot

    reserve_report_slot()  # while the numbers below 10 are free: the programs' channel is at one
    live = LiveCatalog(root, os.environ)
    host, port = parse_address(address)
    start_audit(live, audit_log, stdio=False)
    token = read_token(token_file, os.environ)
    from cogtools.mcp.web import LOOPBACK, Hosts, serve_http

    auth = _auth_settings(live, issuer, resource, host, port)
    if auth is not None and token_file is not None:
        raise UsageError("--token-file and --auth are two ways to admit a caller: give one")
    if auth is not None:
        token = None  # (the access tokens admit callers; COGTOOLS_MCP_TOKEN is not asked for)
    if token is None and auth is None and host not in LOOPBACK:
        raise UsageError(f"serving {host} (not loopback) needs a token: --token-file FILE or ${TOKEN_VARIABLE}")
    serve_http(
        live,
        host=host,
        port=port,
        hosts=Hosts.serving(host, allowed_hosts),
        token=token,
        stateless=stateless,
        max_calls=max_calls,
        interval=interval,
        report=stderr_report,
        auth=auth,
        limits=_limits(live, calls_per_minute, concurrent_calls),
    )


def _limits(live: LiveCatalog, calls_per_minute: int | None, concurrent: int | None) -> Limits | None:
    """Each caller's limits (:class:`cogtools.mcp.limits.Limits`): the user's ``auth.limits``
    setting (never a project's), the options over it; None without any."""
    catalog = live.loaded.catalog
    setting = catalog.project.config.trusted.get("auth") if catalog is not None else None
    config = setting.value.get("limits") if setting is not None and isinstance(setting.value, dict) else None
    from cogtools.mcp.limits import Limits

    return Limits.of(config, calls_per_minute, concurrent)


def _auth_settings(
    live: LiveCatalog, issuer: str | None, resource: str | None, host: str, port: int
) -> Settings | None:
    """The resource server's settings (:class:`cogtools.mcp.auth.Settings`): the user's ``auth``
    setting (never a project's), ``--auth`` and ``--resource`` over it; None without an issuer."""
    catalog = live.loaded.catalog
    setting = catalog.project.config.trusted.get("auth") if catalog is not None else None
    config = dict(setting.value) if setting is not None else {}
    if not issuer and not config.get("issuer"):
        return None
    from cogtools.mcp.auth import Settings
    from cogtools.mcp.web import EVERY_ADDRESS

    if host in EVERY_ADDRESS and not (resource or config.get("resource")):
        raise UsageError("--auth on every address needs --resource URL: the URL clients reach this server by")
    shown = f"[{host}]" if ":" in host else host
    return Settings.of(config, issuer, resource, f"http://{shown}:{port}/mcp")
