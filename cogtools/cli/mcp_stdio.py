"""``cogtools mcp`` serving stdio, without click: what the command does to serve stdio
(:func:`serve`, which :mod:`cogtools.cli.mcp_cmd` calls too), and the plain reading of the
command lines that MCP clients' entries start it with (:func:`parse_plain`).

A stdio server must answer its first requests within a client's patience (DESIGN §8), and click
is a fifth of that time; so :func:`cogtools.cli.entry.main` hands ``cogtools mcp`` with at most
``--project DIR``, ``--max-calls N``, ``--interval SECONDS`` and ``--audit-log FILE`` (each once, as ``--opt VALUE`` or
``--opt=VALUE``, values click would read alike) to :func:`main`, and anything else to click, which
answers help, the version and every usage error. ``tests/test_mcp_first.py`` holds the two
readings equal."""

from __future__ import annotations

import os
import re
import signal
import sys
import typing as t
from pathlib import Path

from cogtools.cli.boundary import guard, warn
from cogtools.core.errors import UsageError
from cogtools.core.printable import printable
from cogtools.mcp import DEFAULT_INTERVAL, DEFAULT_MAX_CALLS

if t.TYPE_CHECKING:
    from cogtools.mcp.live import LiveCatalog

PROG = "cogtools mcp"
INSTALL_HINT = (
    "the MCP server needs the optional extra mcp: pip install '.[mcp]' in a clone of cogtools (the npm package has it)"
)


class Plain(t.NamedTuple):
    """The options of ``cogtools mcp`` that serve stdio, as click's parameters name them."""

    project: Path | None = None
    max_calls: int = DEFAULT_MAX_CALLS
    interval: float = DEFAULT_INTERVAL
    audit_log: str | None = None


_NUMBER = re.compile(r"[0-9]{1,6}(?:\.[0-9]{1,6})?")


def _project(value: str) -> Path | None:
    # (click.Path(file_okay=False): a file is refused; an empty or option-like value is click's to say)
    return Path(value) if value and not value.startswith("-") and not os.path.isfile(value) else None


def _max_calls(value: str) -> int | None:
    return int(value) if value.isascii() and value.isdigit() and len(value) <= 6 and int(value) >= 1 else None


def _interval(value: str) -> float | None:
    return float(value) if _NUMBER.fullmatch(value) and float(value) >= 0.1 else None


def _audit_log(value: str) -> str | None:
    return value if value and (value == "-" or not value.startswith("-")) else None


_READERS: dict[str, tuple[str, t.Callable[[str], t.Any]]] = {
    "--project": ("project", _project),
    "--max-calls": ("max_calls", _max_calls),
    "--interval": ("interval", _interval),
    "--audit-log": ("audit_log", _audit_log),
}


def parse_plain(args: t.Sequence[str]) -> Plain | None:
    """The options of ``cogtools mcp ARGS`` when they are only those that serve stdio, each given
    once with a value click reads alike; else None (click reads them)."""
    found: dict[str, t.Any] = {}
    rest = list(args)
    while rest:
        flag, equals, value = rest.pop(0).partition("=")
        if flag not in _READERS or (not equals and not rest):
            return None
        field, read = _READERS[flag]
        parsed = read(value if equals else rest.pop(0))
        if parsed is None or field in found:
            return None
        found[field] = parsed
    return Plain(**found)


def main(args: t.Sequence[str]) -> int | None:
    """Serve stdio for ``cogtools mcp ARGS`` read plainly; None when click is to read them."""
    plain = parse_plain(args)
    if plain is None:
        return None
    return guard(
        lambda: serve(plain.project, max_calls=plain.max_calls, interval=plain.interval, audit_log=plain.audit_log),
        PROG,
    )


def serve(project: Path | None, *, max_calls: int, interval: float, audit_log: str | None = None) -> None:
    """Serve the project's tools over stdin and stdout until the client closes them: the first
    answers before the SDK is imported (:mod:`cogtools.mcp.first`)."""
    import importlib.util

    if importlib.util.find_spec("mcp") is None:  # (found, not imported: that takes a second or two)
        raise UsageError(INSTALL_HINT)
    root = (project or Path.cwd()).resolve()
    from cogtools.mcp.first import Unavailable, serve_stdio
    from cogtools.mcp.live import LiveCatalog
    from cogtools.run.reports import reserve_report_slot

    reserve_report_slot()  # while the numbers below 10 are free: the programs' channel is at one
    ignore_entry_environment(root)
    live = LiveCatalog(root, os.environ)
    start_audit(live, audit_log, stdio=True)
    _stop_on_signals()
    try:
        serve_stdio(live, max_calls=max_calls, interval=interval, report=stderr_report)
    except Unavailable as e:
        raise UsageError(INSTALL_HINT) from e


def start_audit(live: LiveCatalog, audit_log: str | None, *, stdio: bool) -> None:
    """Turn auditing on for the server when the user's configuration (``audit.log``, never a
    project's) or ``--audit-log`` names a log (:func:`cogtools.services.audit.begin`)."""
    catalog = live.loaded.catalog
    if catalog is not None:
        trusted: t.Mapping[str, t.Any] = catalog.project.config.trusted
    else:  # (the project's configuration does not load yet: the user's own file still says)
        from cogtools.services.audit import users_own

        trusted = users_own(os.environ)
    if "audit" not in trusted and audit_log is None:
        return
    from cogtools.services import audit

    taken = "over stdio, standard output carries the protocol" if stdio else None
    audit.begin(trusted, audit_log, None, os.environ, taken)  # (each call's client says who it is)


def stderr_report(message: str) -> None:
    """Say ``message`` on standard error, as the server's own line."""
    sys.stderr.write(f"{PROG}: {printable(message)}\n")
    sys.stderr.flush()


def ignore_entry_environment(root: Path) -> None:
    """Drop each variable that decides trust (the role, the configuration file, the user's
    directories) which the ``env`` of a cogtools entry in a project's client file sets: the
    client starts this server with it, and the agent can write those files."""
    from cogtools.clients.mcp_clients import trust_variables_set

    for name, path in sorted(trust_variables_set(root, os.environ).items()):
        os.environ.pop(name, None)
        warn(
            PROG,
            f"ignored {name} (set by the server's entry in {path}): a file of the workspace is not the user's"
            " word; set it in your own shell or configuration",
        )


def _stop_on_signals() -> None:
    """SIGINT, SIGTERM or SIGHUP stop a stdio server at once: its calls' programs are ended, it
    says so, and it leaves with the signal's status. Not by unwinding: the thread that reads
    stdin blocks until the client closes it, the interpreter would wait for it on its way out,
    and the event loop swallows or takes over what a handler raises."""

    def stop(signum: int, frame: object) -> None:
        from cogtools.cli.boundary import interrupted
        from cogtools.run.process import end_all

        try:
            end_all()
            interrupted("cogtools", signum, json_errors=False)
            sys.stderr.flush()
        finally:  # (a write the signal cut into may refuse another: leave all the same)
            os._exit(128 + signum)

    for number in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if number is not None and signal.getsignal(number) is not signal.SIG_IGN:  # nohup stays nohup
            signal.signal(number, stop)
