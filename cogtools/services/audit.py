"""The audit log: one JSON line per call, each chained to the line before it by hash (issue 44).

A line says who called (``sub``, the access token's subject where a caller has one, else null;
``client``, the MCP client's ``clientInfo`` or the command that called), when (``time``, RFC 3339,
UTC), which ``tool``, the arguments' ``args`` shape (keys and JSON types, nested, bounded:
:func:`shape`) and ``args_hmac``, HMAC-SHA256 of their canonical JSON under the user's audit key
(:func:`audit_key`, never a value: equal arguments show as equal, and only the key's holder can
test a guess), the ``decision`` (``allowed`` or ``denied``) and ``why`` (a denial's reason, never its
message, which may quote what was given), the ``status`` (``ok`` or the error code) and ``ms``
(the call's duration); and ``prev``, the SHA-256 of the line before it (its bytes without the
newline; the first line of a file names :data:`GENESIS`). A line removed or edited breaks the
chain at the line after it (:func:`verify`); a line cut off the end does not, which is why
``verify`` prints the last line's hash, the *head*, to keep elsewhere.

Appending (:class:`Log`): the file is opened ``O_APPEND``; each line is one ``write`` made under
an exclusive ``flock`` of the log's own open file, after reading the last line under that lock, so
that any number of processes (several servers, replicas on one host, ``cogtools-call``) append to
one chain. ``flock`` on the file itself rather than :mod:`filelock`'s lock file beside it: it needs
no second file in the log's directory (which may let a service append to its log and create
nothing), leaves nothing stale behind, and follows the log when it is renamed; cogtools runs on
POSIX only. A log renamed or truncated (log rotation) is noticed at the next line, which starts a
new chain at :data:`GENESIS`.

Auditing is on in a process when :func:`start` set :data:`cogtools.services.invoke.AUDIT`: every
call through :func:`cogtools.services.invoke.resolve` and :func:`cogtools.services.invoke.invoke`
is then written. Off, a call pays one test of that name and imports nothing of this module.

Reading (:func:`records`, :func:`verify`) streams the file a line at a time, each line at most
:data:`MAX_LINE` bytes (a longer one is hashed as it streams, and is a break), so a huge or
garbage file costs bounded memory.
"""

from __future__ import annotations

import contextvars
import hashlib
import json
import os
import threading
import time
import typing as t

from cogtools.core.errors import CogtoolsError, ConfigInvalidError, InvalidInputError, UsageError

if t.TYPE_CHECKING:
    from cogtools.services.invoke import Arguments, Target

#: What the first line of a log names as the line before it.
GENESIS = "0" * 64
#: The longest line read (a line written is far shorter: its shape is bounded).
MAX_LINE = 64 * 1024
#: The shape of the arguments: how deep, how many keys of an object, how many kinds of item of an
#: array, and how long a key is shown.
SHAPE_DEPTH = 6
SHAPE_KEYS = 32
SHAPE_ITEMS = 4
SHAPE_KEY_CHARS = 64
#: The most types and keys a shape shows in all (a line then stays far below :data:`MAX_LINE`).
SHAPE_NODES = 256
#: The longest tool name written whole (a name is at most 48 characters; a caller can send any).
TOOL_CHARS = 128
#: The setting that names the log, in the user's own configuration file only.
SETTING = "audit"
#: Where a log says it is standard output.
STDOUT = "-"

#: Who calls, as the caller's layer knows it (an MCP server sets it per request): the client
#: (``{"name", "version"}``) and the subject, when known.
CLIENT: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar("cogtools_audit_client", default=None)
SUB: contextvars.ContextVar[str | None] = contextvars.ContextVar("cogtools_audit_sub", default=None)


# -- what a line holds ------------------------------------------------------------------------------


def shape(value: t.Any) -> t.Any:
    """The shape of ``value``: a scalar's JSON type; an object's keys (at most
    :data:`SHAPE_KEYS`, each at most :data:`SHAPE_KEY_CHARS` characters, ``"…"`` counting the rest)
    with the shape of each value; an array's distinct item shapes (at most :data:`SHAPE_ITEMS`,
    among its first 64 items), as a list; below :data:`SHAPE_DEPTH`, ``"object"`` or ``"array"``;
    and past :data:`SHAPE_NODES` in all, ``"…"``, so that a line stays short whatever is sent.
    Never a value."""
    return _shape(value, 0, [SHAPE_NODES])


def _shape(value: t.Any, depth: int, budget: list[int]) -> t.Any:
    from cogtools.schema.validate import json_type

    kind = json_type(value)
    if budget[0] <= 0:
        return "…"
    budget[0] -= 1
    if kind not in ("object", "array") or depth >= SHAPE_DEPTH:
        return kind
    if kind == "object":
        out: dict[str, t.Any] = {}
        for number, (key, item) in enumerate(value.items()):
            if number >= SHAPE_KEYS or budget[0] <= 0:
                out["…"] = f"+{len(value) - number} keys"
                break
            name = str(key)
            out[name if len(name) <= SHAPE_KEY_CHARS else name[: SHAPE_KEY_CHARS - 1] + "…"] = _shape(
                item, depth + 1, budget
            )
        return out
    kinds: list[t.Any] = []
    for item in list(value[:64]):
        left = budget[0]
        found = _shape(item, depth + 1, budget)
        if found in kinds:
            budget[0] = left  # (a shape shown already costs the line nothing)
        else:
            kinds.append(found)
            if len(kinds) >= SHAPE_ITEMS:
                break
    return kinds


def keyed_hash(key: bytes, arguments: t.Any) -> str:
    """HMAC-SHA256 under ``key`` of the canonical JSON of ``arguments`` (keys sorted, no spaces)."""
    import hmac

    text = json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr)
    return hmac.new(key, text.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()


def audit_key(environ: t.Mapping[str, str]) -> bytes:
    """The user's audit key: 32 random bytes in ``$XDG_STATE_HOME/cogtools/audit/key`` (mode 0600
    in a 0700 directory, made on first use; a file another user could write is not believed).
    Replicas whose lines must hash alike share this file. CONFIG_INVALID when it cannot be had."""
    from cogtools.core.places import cache_key, state_dir

    directory = state_dir(environ)
    key = None
    for _ in range(50):
        if directory is None:
            break
        key = cache_key(directory / "audit")
        if key is not None or not (directory / "audit" / "key").exists():
            break
        time.sleep(0.01)  # (another process made the file first, and is writing it)
    if key is None:
        where = str(directory / "audit" / "key") if directory is not None else "the state directory (no HOME)"
        raise ConfigInvalidError(
            f"the audit log needs the user's audit key, and {where} cannot be made or is not the user's own"
            " (owned by them, writable by nobody else)",
            details={"key": where},
        )
    return key


def now() -> str:
    """The time, RFC 3339 in UTC with milliseconds."""
    seconds = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{int(seconds * 1000) % 1000:03d}Z"


def line_hash(line: bytes) -> str:
    """What the next line names as ``prev``: the SHA-256 of ``line`` (without its newline)."""
    return hashlib.sha256(line).hexdigest()


def _reason(error: CogtoolsError) -> str:
    """A denial's reason: its details' ``reason`` when it is a short word, else its code."""
    reason = (error.details or {}).get("reason")
    if isinstance(reason, str) and 0 < len(reason) <= 40 and reason.replace("_", "").replace("-", "").isalnum():
        return reason
    return error.code.lower()


# -- writing ----------------------------------------------------------------------------------------


class Log:
    """One audit log: a file appended to under a lock, or standard output (``-``)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._lock = threading.Lock()  # (flock is per open file: the threads of a process share one)
        self._fd: int | None = None
        self._last = GENESIS  # standard output's chain, kept in memory

    def open(self) -> None:
        """Open the log now, so that a log that cannot be written is said before anything runs
        (USAGE, naming it)."""
        if self.path != STDOUT:
            with self._lock:
                self._file()

    def _file(self) -> int:
        """The log's descriptor, opened again when the path names another file (rotated)."""
        fd = self._fd
        if fd is not None:
            try:
                now_at, held = os.stat(self.path), os.fstat(fd)
                if (now_at.st_ino, now_at.st_dev) == (held.st_ino, held.st_dev):
                    return fd
            except OSError:
                pass
            os.close(fd)
            self._fd = None
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
            import stat

            if not stat.S_ISREG(os.fstat(fd).st_mode):
                os.close(fd)
                raise UsageError(f"the audit log {self.path} is not a regular file", details={"audit_log": self.path})
        except OSError as e:
            raise UsageError(
                f"cannot append to the audit log {self.path}: {e.strerror}", details={"audit_log": self.path}
            ) from None
        self._fd = fd
        return fd

    def append(self, record: t.Mapping[str, t.Any]) -> None:
        """Write ``record`` as the next line of the chain."""
        with self._lock:
            if self.path == STDOUT:
                line = _encode(record, self._last)
                os.write(1, line + b"\n")
                self._last = line_hash(line)
                return
            import fcntl

            fd = self._file()
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                prev, torn = last_line_hash(fd)
                line = _encode(record, prev)
                data = (b"\n" if torn else b"") + line + b"\n"
                written = os.write(fd, data)
                if written != len(data):
                    raise OSError(f"wrote {written} of {len(data)} bytes")
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None


def _encode(record: t.Mapping[str, t.Any], prev: str) -> bytes:
    # (ASCII: a lone surrogate a caller sent in a key or a name is an escape, never bytes that are
    # not UTF-8, which would read as a break)
    return json.dumps({**record, "prev": prev}, separators=(",", ":")).encode("ascii")


def last_line_hash(fd: int) -> tuple[str, bool]:
    """The hash of the file's last line (:data:`GENESIS` for an empty file), and whether it lacks
    its newline (a torn write: the next line starts on a line of its own). Reads back at most
    :data:`MAX_LINE` + 1 bytes: a longer last line, which no writer here makes, is hashed by its
    tail, and ``verify`` reports it."""
    size = os.fstat(fd).st_size
    if size == 0:
        return GENESIS, False
    end = size
    tail = os.pread(fd, 1, size - 1)
    torn = tail != b"\n"
    if not torn:
        end -= 1
    chunks: list[bytes] = []
    position, gathered = end, 0
    while position > 0 and gathered <= MAX_LINE:
        step = min(8192, position)
        chunk = os.pread(fd, step, position - step)
        position -= step
        cut = chunk.rfind(b"\n")
        if cut >= 0:
            chunks.append(chunk[cut + 1 :])
            break
        chunks.append(chunk)
        gathered += step
    return line_hash(b"".join(reversed(chunks))), torn


class Auditor:
    """What a process writes its audit lines with: its logs, the user's key, the client of its
    calls when no request says otherwise (:data:`CLIENT`; None: unknown, as a server's client is
    until it says)."""

    def __init__(self, logs: t.Sequence[Log], key: bytes, client: dict[str, str] | None) -> None:
        self.logs = tuple(logs)
        self.key = key
        self.client = client

    def write(self, record: dict[str, t.Any]) -> None:
        """Append ``record`` to every log; CONFIG_INVALID when one cannot be written (a call that
        cannot be written down fails)."""
        for log in self.logs:
            try:
                log.append(record)
            except OSError as e:
                raise ConfigInvalidError(
                    f"cannot write the audit log {log.path}: {e}", details={"audit_log": log.path}
                ) from None

    def line(
        self,
        tool: str,
        arguments: t.Any,
        *,
        error: BaseException | None,
        denied: bool,
        started: float,
        dry_run: bool = False,
    ) -> dict[str, t.Any]:
        """The record of one call."""
        status = "ok"
        why = None
        if isinstance(error, CogtoolsError):
            status = error.code
            denied = denied or error.code == "POLICY_DENIED"
            why = _reason(error) if denied else None
        elif error is not None:
            status = "INTERRUPTED" if isinstance(error, (KeyboardInterrupt, SystemExit)) else "INTERNAL"
        record: dict[str, t.Any] = {
            "time": now(),
            "sub": SUB.get(),
            "client": CLIENT.get() or self.client,
            "tool": tool if len(tool) <= TOOL_CHARS else tool[: TOOL_CHARS - 1] + "…",
            "args": None if arguments is None else shape(arguments),
            "args_hmac": None if arguments is None else keyed_hash(self.key, arguments),
            "decision": "denied" if denied else "allowed",
            "why": why,
            "status": status,
            "ms": round((time.perf_counter() - started) * 1000, 3),
        }
        if dry_run:
            record["dry_run"] = True
        return record

    @staticmethod
    def clock() -> float:
        """When a call starts, for its ``ms``."""
        return time.perf_counter()

    def refused(self, name: str, error: CogtoolsError, started: float) -> None:
        """A call refused before its tool was settled (not found, its pin broken, no configuration)."""
        self.write(self.line(name, None, error=error, denied=True, started=started))

    def invoking(
        self,
        run: t.Callable[..., str],
        target: Target,
        arguments: Arguments,
        options: dict[str, t.Any],
    ) -> str:
        """``run(target, arguments, **options)`` (the call path's invoke), written down."""
        started = time.perf_counter()
        taken: list[t.Any] = []
        given: Arguments
        if callable(arguments):
            lazy = arguments

            def given() -> t.Mapping[str, t.Any]:
                value = lazy()
                taken.append(value)
                return value

        else:
            given = arguments
            taken.append(arguments)
        try:
            result = run(target, given, **options)
        except BaseException as e:
            if not _retried(e, options.get("time_limit")):
                self.write(self.line(target.tool.name, _first(taken), error=e, denied=False, started=started))
            raise
        self.write(
            self.line(
                target.tool.name,
                _first(taken),
                error=None,
                denied=False,
                started=started,
                dry_run=bool(options.get("dry_run")),
            )
        )
        return result


def _first(taken: list[t.Any]) -> t.Any:
    return taken[0] if taken else None


def _retried(error: BaseException, time_limit: float | None) -> bool:
    """Whether ``error`` is a server's try on its event loop running out of its short time, which
    the server tries again in a worker (:meth:`cogtools.mcp.listing.Listing.try_inline`): that
    call is written once, when it ends."""
    if time_limit is None or not isinstance(error, CogtoolsError) or error.code != "TIMEOUT":
        return False
    return bool((error.details or {}).get("timeout_seconds") == time_limit)


def configured(config_trusted: t.Mapping[str, t.Any]) -> str | None:
    """The log the user's own configuration names (``audit.log``), or None. A project's file,
    which the agent can write, can neither name one nor take the user's away: only the trusted
    settings are read."""
    setting = config_trusted.get(SETTING)
    value = getattr(setting, "value", None)
    log = value.get("log") if isinstance(value, dict) else None
    if log is None:
        return None
    return os.path.expanduser(str(log)) if log != STDOUT else STDOUT


def users_own(environ: t.Mapping[str, str]) -> dict[str, t.Any]:
    """The audit setting of the user's own file, as :func:`configured` reads it, for a caller
    whose project's configuration does not load (whose trusted settings are then unknown): a
    broken project file turns no one's log off."""
    from cogtools.load.config import Setting, user_settings

    path, settings = user_settings(environ)
    return {SETTING: Setting(settings[SETTING], str(path))} if settings and SETTING in settings else {}


def begin(
    trusted: t.Mapping[str, t.Any],
    option: str | None,
    client: dict[str, str] | None,
    environ: t.Mapping[str, str],
    stdout_taken: str | None = None,
) -> Auditor | None:
    """Turn auditing on for a command: to the log the user's configuration names (``trusted``,
    :func:`configured`) and to ``option``'s (``--audit-log``); None when neither names one.
    ``stdout_taken`` says why standard output cannot be a log for this command (USAGE for ``-``)."""
    named = configured(trusted)
    if stdout_taken is not None and STDOUT in (named, option):
        raise UsageError(f"{stdout_taken}: give the audit log a file, not -")
    return start([named, option], client, environ)


def start(paths: t.Iterable[str | None], client: dict[str, str] | None, environ: t.Mapping[str, str]) -> Auditor | None:
    """Turn auditing on for this process, writing to each distinct path of ``paths`` (``-``:
    standard output); None (and off) when there is none."""
    chosen: list[str] = []
    for path in paths:
        if path and path not in chosen:
            chosen.append(path)
    if not chosen:
        return None
    logs = [Log(path) for path in chosen]
    for log in logs:
        log.open()
    from cogtools.services import invoke

    auditor = Auditor(logs, audit_key(environ), client)
    invoke.AUDIT = auditor
    return auditor


def stop() -> None:
    """Turn auditing off in this process (its logs closed)."""
    from cogtools.services import invoke

    auditor, invoke.AUDIT = invoke.AUDIT, None
    if auditor is not None:
        for log in auditor.logs:
            log.close()


# -- reading ----------------------------------------------------------------------------------------


class Line(t.NamedTuple):
    """One line of a log as read: its number, its hash, its record (None: it is none), and why not."""

    number: int
    hash: str
    record: dict[str, t.Any] | None
    problem: str | None
    #: The hash this line must name as ``prev`` to be whole.
    expected: str


def lines(path: str) -> t.Iterator[Line]:
    """Each line of the log at ``path``, read a line at a time (bounded memory however large the
    file or its lines). USAGE when it cannot be read."""
    try:
        stream = open(path, "rb")  # noqa: SIM115 - closed below, as the generator ends
    except OSError as e:
        raise UsageError(f"cannot read the audit log {path}: {e.strerror}", details={"audit_log": path}) from None
    expected = GENESIS
    with stream:
        number = 0
        while True:
            chunk = stream.readline(MAX_LINE + 1)
            if not chunk:
                return
            number += 1
            if len(chunk) > MAX_LINE and not chunk.endswith(b"\n"):
                digest = hashlib.sha256(chunk)
                while True:  # the rest of the line, hashed as it streams
                    more = stream.readline(MAX_LINE)
                    if not more:
                        break
                    digest.update(more.rstrip(b"\n"))
                    if more.endswith(b"\n"):
                        break
                yield Line(number, digest.hexdigest(), None, f"longer than {MAX_LINE} bytes", expected)
                expected = digest.hexdigest()
                continue
            raw = chunk[:-1] if chunk.endswith(b"\n") else chunk
            found = line_hash(raw)
            record, problem = _record(raw)
            yield Line(number, found, record, problem, expected)
            expected = found


def _record(raw: bytes) -> tuple[dict[str, t.Any] | None, str | None]:
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None, "not a JSON line"
    if not isinstance(value, dict) or not isinstance(value.get("prev"), str) or not isinstance(value.get("tool"), str):
        return None, "not an audit record (no tool or prev)"
    return value, None


class Verdict(t.NamedTuple):
    """What :func:`verify` found: the lines read, the last one's hash, and each break."""

    lines: int
    head: str
    breaks: list[tuple[int, str]]
    #: How many breaks there were in all (only the first :data:`MAX_BREAKS` are kept).
    broken: int


MAX_BREAKS = 100


def verify(path: str) -> Verdict:
    """Check the chain of the log at ``path``, line by line."""
    breaks: list[tuple[int, str]] = []
    count, head, broken = 0, GENESIS, 0
    for line in lines(path):
        count, head = line.number, line.hash
        problem = line.problem
        if problem is None and line.record is not None and line.record["prev"] != line.expected:
            problem = (
                "the first line does not start the chain: lines were removed before it"
                if line.number == 1
                else f"does not follow line {line.number - 1}: a line was removed or edited there"
            )
        if problem is not None:
            broken += 1
            if len(breaks) < MAX_BREAKS:
                breaks.append((line.number, problem))
    return Verdict(count, head, breaks, broken)


class Filters(t.NamedTuple):
    """What ``cogtools audit`` keeps: a tool (a glob), a subject, a time from on, a status."""

    tool: str | None = None
    sub: str | None = None
    since: str | None = None
    status: str | None = None

    def keep(self, record: t.Mapping[str, t.Any]) -> bool:
        import fnmatch

        if self.tool is not None and not fnmatch.fnmatchcase(str(record.get("tool")), self.tool):
            return False
        if self.sub is not None and record.get("sub") != self.sub:
            return False
        if self.since is not None and not str(record.get("time", "")) >= self.since:
            return False
        return self.status is None or str(record.get("status", "")).lower() == self.status.lower()


def records(path: str, filters: Filters | None = None) -> t.Iterator[dict[str, t.Any]]:
    """The records of the log at ``path`` that ``filters`` keeps. INVALID_INPUT, naming the line,
    at the first line that is not an audit record (``cogtools audit verify`` says where every
    break is)."""
    for line in lines(path):
        if line.record is None:
            raise InvalidInputError(
                f"{path}: line {line.number} is {line.problem}: not an audit log, or a damaged one"
                " (cogtools audit verify says where it breaks)",
                details={"audit_log": path, "line": line.number, "reason": "not_an_audit_record"},
            )
        if filters is None or filters.keep(line.record):
            yield line.record


def since(text: str) -> str:
    """``--since``: an RFC 3339 time or a date (UTC unless it says otherwise), or an age (``90s``,
    ``30m``, ``2h``, ``7d``), as the time a record's must be at least (the form :func:`now`
    writes, which orders as text)."""
    import datetime as dt

    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    text = text.strip()
    if text[:-1].isdigit() and text[-1:] in units:
        moment = dt.datetime.now(dt.timezone.utc) - dt.timedelta(seconds=int(text[:-1]) * units[text[-1]])
    else:
        try:
            moment = dt.datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text)
        except ValueError:
            raise UsageError(
                f"--since takes a time (2026-11-28T16:00:00Z), a date (2026-11-28) or an age (30m, 2h, 7d); not {text!r}"
            ) from None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=dt.timezone.utc)
    moment = moment.astimezone(dt.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{moment.microsecond // 1000:03d}Z"
