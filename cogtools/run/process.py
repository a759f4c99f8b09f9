"""Running a program for a tool: never through a shell, bounded in time and in output, and never
outliving its call.

The program starts in a session of its own, so that its whole process group (grandchildren
included) is killed when the time is up, when it exits, and when the call ends any other way (an
error, SIGINT, SIGTERM, SIGHUP: the boundary turns those into exceptions, and the runner's
``finally`` does the killing). A descendant that leaves the group is swept up after it where the
system allows (:mod:`cogtools.run.reaper`).

Output past the cap is read and thrown away (the program never blocks on a full pipe) and counted
for the truncation marker. Output that is not UTF-8 is decoded with replacement characters. A
program that does not read its stdin is fine.

A program run for a server's call whose client listens (:attr:`CallPrograms.reports`) is given a
channel of its own to report its progress on (:mod:`cogtools.run.reports`).
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import re
import signal
import subprocess
import sys
import threading
import time
import typing as t

from cogtools.core.errors import ExecutionFailedError, ToolTimeoutError
from cogtools.run.reaper import GATE, RUNNING, adopting, become_subreaper, kill_group, sweep_adopted

if t.TYPE_CHECKING:
    from cogtools.run.confine import Confinement
    from cogtools.run.reports import Channel, Report
    from cogtools.run.warm import Sandbox

#: The variables of cogtools' own environment that every program gets (besides those the tool
#: declares): enough to find programs and behave as in the user's locale.
PASSED_THROUGH = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "TERM", "SYSTEMROOT")

#: How much of stderr an EXECUTION_FAILED error quotes.
STDERR_TAIL = 2000
#: How much of the end of what a failed program printed on stdout its error shows.
STDOUT_TAIL = 4000


class Running(t.Protocol):
    """A started program as this module serves it: a ``subprocess.Popen``, or a program of a warm
    sandbox (:class:`cogtools.run.warm.Process`)."""

    @property
    def pid(self) -> int: ...
    @property
    def stdin(self) -> t.IO[bytes] | None: ...
    @property
    def stdout(self) -> t.IO[bytes] | None: ...
    @property
    def stderr(self) -> t.IO[bytes] | None: ...
    @property
    def returncode(self) -> t.Any: ...  # an int once it is waited for
    def poll(self) -> int | None: ...
    def wait(self, timeout: float | None = None) -> int: ...


class Finished(t.NamedTuple):
    status: int
    stdout: bytes
    stderr: bytes
    #: Bytes of stdout read past the cap and discarded.
    dropped: int


#: What every program is told besides, unless the tool declares otherwise: that what it prints
#: goes to a model, not a terminal (no colour sequences, which the model reads as noise:
#: ``NO_COLOR`` for picocolors and most, ``FORCE_COLOR=0`` for chalk).
PLAIN_OUTPUT = {"NO_COLOR": "1", "FORCE_COLOR": "0"}


def child_environment(declared: t.Mapping[str, str | None], environ: t.Mapping[str, str]) -> dict[str, str]:
    """The environment of a tool's program: the pass-through variables of the caller's
    ``environ``, :data:`PLAIN_OUTPUT`, and the declared ones."""
    env = {name: environ[name] for name in PASSED_THROUGH if name in environ}
    env.update(PLAIN_OUTPUT)
    env.update({name: value for name, value in declared.items() if value is not None})
    return env


def run_program(
    argv: t.Sequence[str],
    *,
    stdin: bytes,
    cwd: str | None,
    env: t.Mapping[str, str],
    timeout: float,
    max_output: int,
    tool: str,
    bound: t.Sequence[tuple[str, bytes]] = (),
    confine: Confinement | None = None,
    runs: t.Sequence[str] = (),
) -> Finished:
    """Run ``argv`` to its end; TIMEOUT when it outlives ``timeout`` (its group is killed),
    EXECUTION_FAILED when it cannot start. ``bound``: files (real path, bytes) the program must
    see as those bytes, whatever is written there after they were checked
    (:func:`cogtools.run.bind.wrap`). ``confine``: what the program may do
    (:mod:`cogtools.run.confine`), given the files it runs (``runs``)."""
    _check_nul(argv, env, tool)
    become_subreaper()
    program = argv[0]  # what errors name, whatever runs it (bubblewrap)
    held: list[int] = []
    owner = CALL_PROGRAMS.get()
    sandbox = missed = None
    # (a server imported cogtools.run.warm to keep sandboxes; a call has not, and never does)
    if confine is not None and not bound and "cogtools.run.warm" in sys.modules:
        from cogtools.run import warm

        sandbox, missed = warm.sandbox_for(argv, confine, runs, cwd)
    proc: Running | None = None
    ended = False
    pipes: _Pipes | None = None
    channel: Channel | None = None
    try:
        if sandbox is None and (bound or confine is not None):
            argv, held = _wrapped(argv, bound, confine, runs, cwd, tool)
        channel = _channel(owner, env)
        with _signals_held():
            if sandbox is not None:
                proc = _start_warm(sandbox, argv, cwd, env, channel, tool)
                if proc is None:  # the sandbox could not serve: bubblewrap of its own
                    argv, held = _wrapped(argv, bound, confine, runs, cwd, tool)
            if proc is None:
                proc = _start(argv, cwd, env, held, channel, tool)
            if owner is not None:
                owner.add(proc.pid)
        pipes = _Pipes(proc, stdin, max_output)
        if channel is not None:
            channel.thread.start()
        deadline = time.monotonic() + timeout
        in_time = pipes.serve(until=deadline, process=proc)
        _end(proc)  # killed when late; else whatever it left behind still holds our pipes
        ended = True
        # A descendant that escaped even the sweep may still hold the pipes: do not wait for it.
        pipes.serve(until=deadline + 1 if in_time else time.monotonic() + 2)
        if channel is not None:
            channel.drain()  # every line it wrote is reported before its call ends
        if not in_time:
            raise ToolTimeoutError(
                f"{program!r} ran past its time limit of {timeout:g} s and was killed (with its process group)",
                tool=tool,
                details={"timeout_seconds": timeout, "program": program},
            )
        if argv[0] != program and proc.returncode == 1:
            _check_started(program, pipes.err.data(), tool)
        return Finished(proc.returncode, pipes.out.data(), pipes.err.data(), pipes.out.dropped)
    finally:
        # Whatever ended the call (an error, a signal turned into an exception), nothing it
        # started survives it.
        if proc is not None:
            if not ended:
                _end(proc)
            _release(proc, pipes, channel, owner)
        if missed is not None:
            warm.POOL.missed_done(missed)  # (imported: it gave none)


#: The signals the boundary turns into exceptions (cogtools.cli.boundary.catch_signals).
_HELD = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


@contextlib.contextmanager
def _signals_held() -> t.Iterator[None]:
    """A signal whose handler raises (SIGINT, SIGTERM, SIGHUP at the boundary) waits while a
    program is started and registered, and is handled as the block ends, by its own handler.
    Raised in the middle of the start (in Popen once the child exists, or before the program is
    known to the ``finally`` that kills it), it left the program running past its call. Only the
    main thread runs Python's handlers: elsewhere there is nothing to hold."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    handlers = {number: signal.getsignal(number) for number in _HELD}
    held = {number: handler for number, handler in handlers.items() if callable(handler)}
    for number in held:
        signal.signal(number, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        for number, handler in held.items():
            signal.signal(number, handler)
        for number in caught:
            signal.raise_signal(number)  # its handler runs now, raising here


def _wrapped(
    argv: t.Sequence[str],
    bound: t.Sequence[tuple[str, bytes]],
    confine: Confinement | None,
    runs: t.Sequence[str],
    cwd: str | None,
    tool: str,
) -> tuple[t.Sequence[str], list[int]]:
    """``argv`` run so that it sees the checked bytes of the ``bound`` files and is held to
    ``confine`` where the system can hold it, and the descriptors that the program must inherit
    (:func:`cogtools.run.bind.wrap`)."""
    from cogtools.run.bind import wrap

    view: list[str] | None = None
    shows: t.Callable[[str], str | None] | None = None
    seccomp: bytes | None = None
    if confine is not None:
        from cogtools.run.confine import arguments, available, shows_as, unix_socket_filter

        if available():
            view = arguments(confine, runs=runs, cwd=os.path.abspath(cwd or "."), program=argv[0])
            shows = shows_as(confine, runs)
            seccomp = None if confine.network else unix_socket_filter()
    try:
        return wrap(argv, bound, view, shows, seccomp)
    except OSError as e:
        raise _cannot(f"hold the checked files of {argv[0]!r}", argv[0], e.strerror or str(e), tool) from e


def _start_warm(
    sandbox: Sandbox,
    argv: t.Sequence[str],
    cwd: str | None,
    env: t.Mapping[str, str],
    channel: Channel | None,
    tool: str,
) -> Running | None:
    """Start ``argv`` in a warm ``sandbox`` (:func:`cogtools.run.warm.start`), as :func:`_start`
    does outside one; None when the sandbox cannot serve (nothing was started, and the channel
    is still to lend)."""
    from cogtools.run import warm

    try:
        with GATE.alone() if channel is not None else GATE.shared(), _lent(channel) as (reporting, descriptors):
            proc = warm.start(sandbox, argv, cwd, {**env, **reporting}, descriptors)
    except (OSError, warm.Lost) as e:
        if channel is not None:
            channel.finish(0)
        raise _cannot(
            f"run {argv[0]!r}", argv[0], e.strerror or str(e) if isinstance(e, OSError) else str(e), tool
        ) from e
    if proc is not None and channel is not None:
        os.close(channel.write_end)  # the program has its own copy
    return proc


def _channel(owner: CallPrograms | None, env: t.Mapping[str, str]) -> Channel | None:
    """The channel a program of ``owner``'s call reports on, or None: the call's client listens
    to none, or no pipe could be had."""
    if owner is None or owner.reports is None or os.name != "posix":
        return None
    from cogtools.run.reports import Channel

    try:
        return Channel.open(owner.reports, _secret_values(env))
    except OSError:
        return None  # (out of descriptors: the program runs, without a channel to report on)


def _start(
    argv: t.Sequence[str],
    cwd: str | None,
    env: t.Mapping[str, str],
    held: list[int],
    channel: Channel | None,
    tool: str,
) -> subprocess.Popen[bytes]:
    """Start ``argv`` in a session of its own, given the ``held`` descriptors and the write end
    of its ``channel``, which this process closes once the program has its copies."""
    try:
        # Started and registered as one step: a sweep for adopted orphans (another call's, in a
        # server) must never take this program for one, kill it and reap it.
        # (a start that lends the program the one report slot goes alone, as a sweep does)
        with GATE.alone() if channel is not None else GATE.shared(), _lent(channel) as (reporting, descriptors):
            proc = subprocess.Popen(
                list(argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=cwd,
                env={**env, **reporting},
                start_new_session=True,
                pass_fds=(*held, *descriptors),
            )
            RUNNING.add(proc.pid)
    except OSError as e:
        if channel is not None:
            channel.finish(0)
        raise _cannot(f"run {argv[0]!r}", argv[0], e.strerror or str(e), tool) from e
    finally:
        for fd in (*held, *([] if channel is None else [channel.write_end])):
            os.close(fd)  # the program has its own copies of the descriptors
    return proc


def _lent(channel: Channel | None) -> t.ContextManager[tuple[dict[str, str], tuple[int, ...]]]:
    """The variables and descriptors a program started now is given for its ``channel``."""
    return contextlib.nullcontext(({}, ())) if channel is None else channel.lent()


def _release(proc: Running, pipes: _Pipes | None, channel: Channel | None, owner: CallPrograms | None) -> None:
    """Close what served ``proc`` (ended) and stop counting it among the programs running."""
    if pipes is not None:
        pipes.close()
    if channel is not None:
        channel.finish(0)
    RUNNING.discard(proc.pid)
    if owner is not None:  # (before a warm sandbox's zygote reaps it: its pid may be another's then)
        owner.discard(proc.pid)
    release = getattr(proc, "release", None)
    if release is not None:  # a program of a warm sandbox: the sandbox is given back, or ended
        release()


def _secret_values(env: t.Mapping[str, str]) -> t.Callable[[str], str]:
    """What masks, in what a program reports, the values of the variables its tool declared (as
    its error messages are masked): every variable of ``env`` but those passed through from
    cogtools' own environment and a script's arguments."""
    from cogtools.core.environment import scrub

    values = [v for k, v in env.items() if k not in PASSED_THROUGH and not k.startswith("COGTOOLS_ARG_")]
    return (lambda text: scrub(text, values)) if values else str


def _cannot(what: str, program: str, reason: str, tool: str) -> ExecutionFailedError:
    """EXECUTION_FAILED for a program that could not be started (``cannot WHAT: REASON``)."""
    return ExecutionFailedError(f"cannot {what}: {reason}", tool=tool, details={"program": program, "reason": reason})


def _check_started(program: str, stderr: bytes, tool: str) -> None:
    """EXECUTION_FAILED, as for a program that cannot start, when bubblewrap could not run it."""
    said = stderr.split(b"\n", 1)[0].decode("utf-8", "replace")
    if said.startswith("bwrap: execvp "):
        reason = said.rsplit(": ", 1)[-1]
        raise _cannot(f"run {program!r}", program, reason, tool)


def _check_nul(argv: t.Sequence[str], env: t.Mapping[str, str], tool: str) -> None:
    """EXECUTION_FAILED for an argument or variable holding NUL, which no program can receive (a
    C string ends there): say which one, rather than let the system call refuse it."""
    for index, arg in enumerate(argv):
        if "\0" in arg:
            raise ExecutionFailedError(
                f"argument {index} of {argv[0]!r} would contain a NUL character, which no program can receive",
                tool=tool,
                details={"program": argv[0], "argument": index, "reason": "NUL in an argument"},
            )
    for name, value in env.items():
        if "\0" in value or "\0" in name:
            raise ExecutionFailedError(
                f"the environment variable {name} would contain a NUL character, which no program can receive",
                tool=tool,
                details={"program": argv[0], "variable": name, "reason": "NUL in the environment"},
            )


def excerpt(text: str, limit: int) -> str:
    """``text``, or past ``limit`` characters its first lines and its last, cut at lines, with
    how many lines between were left out: a type checker prints its errors in file order, the
    first often the cause of the rest, and a test runner its summary last."""
    if len(text) <= limit:
        return text
    head = text[: limit // 4]
    head = head[: head.rfind("\n") + 1] if "\n" in head else head
    rest = text[len(head) :]
    tail = rest[-(limit - len(head)) :]
    if "\n" in tail[:-1]:
        tail = tail[tail.index("\n") + 1 :]
    left = rest[: len(rest) - len(tail)]
    lines = left.count("\n")
    said = f"{lines} line{'s' * (lines != 1)}" if lines else f"{len(left)} characters"
    return f"{head}[... {said} left out ...]\n{tail}"


def describe_failure(
    program: str, finished: Finished, tool: str, scrub: t.Callable[[str], str]
) -> ExecutionFailedError:
    """EXECUTION_FAILED for a program that exited non-zero or was killed by a signal: the line that
    says what went wrong in its message, from stderr, else from stdout (a type checker, a linter,
    a test runner print their findings there), and the tail of each in its details."""
    # Scrubbed whole, then cut: cutting first could leave the end of a secret that began before
    # the cut, which the scrubber would no longer recognise.
    tail = excerpt(scrub(finished.stderr.decode("utf-8", "replace")), STDERR_TAIL)
    printed = excerpt(scrub(finished.stdout.decode("utf-8", "replace")), STDOUT_TAIL)
    status = finished.status
    how = f"was killed by signal {-status}" if status < 0 else f"exited with status {status}"
    # (stderr's line, unless only stdout's reads as an error: a runner's warning on stderr, the
    # type checker's error on stdout)
    # (the message says it in words: a runner's colours, Berry's, are taken out of its line; the
    # tails in the details stay exact, as machine output does)
    last = _COLOURS.sub("", telling_line(tail, program))
    if not _reads_as_error(last, program):
        found = _COLOURS.sub("", telling_line(printed, program))
        if not last or _reads_as_error(found, program):
            last = found
        if _printed_help(finished.stdout[:512].decode("utf-8", "replace"), program):
            last = HELP_PRINTED
    details: dict[str, t.Any] = {"program": program, "exit_status": status, "stderr_tail": tail}
    if printed.strip():
        details["stdout_tail"] = printed
    return ExecutionFailedError(
        f"{program!r} {how}" + (f": {last.strip()}" if last else ""), tool=tool, details=details
    )


#: What a failed program that printed its help told, in words.
HELP_PRINTED = (
    "it printed its help, as a program does when it is given nothing it can work on"
    " (tsc: no tsconfig.json where it runs, and no files named)"
)
#: The start of a program's help: its usage, or its name and version (tsc's ``Version 5.6.2``).
_HELP_START = re.compile(r"\s*(?:usage:|version v?\d+\.\d+)", re.IGNORECASE)


def _printed_help(start: str, program: str) -> bool:
    """Whether what a program printed first (``start``) is its help."""
    first = start.lstrip().splitlines()[:2]
    name = os.path.basename(program)
    return any(_HELP_START.match(line) or line.startswith(f"{name}: ") and "Version" in line for line in first)


#: Lines that point at help rather than say what went wrong (GNU, BSD and Python conventions).
_NOT_TELLING = re.compile(
    r"^\s*(try [`'\"]?\S+ --help|usage:|for more information|see [`'\"]?\S+ --help|\u24d8?\s*get help\b)",
    re.IGNORECASE,
)
#: A line marked as a failure (commitlint's, listr's, many a linter's ``✖ ...``); its count of
#: problems (``✖ found 2 problems``) says less than the problems themselves.
_MARKED = re.compile(r"^\s*[\u2716\u2718\u2717\u274c\u00d7]\s")
_COUNT = re.compile(r"\b\d+ (?:problems?|errors?)\b", re.IGNORECASE)
#: Where a usage message begins: what follows it (its option lines) says nothing of what went wrong.
_USAGE = re.compile(r"^\s*usage:", re.IGNORECASE)
#: Words of a line that says what went wrong.
_ERROR_WORDS = re.compile(
    r"\b(error|fatal|unknown|unrecognized|invalid|illegal|cannot|can't|couldn't|could not|not found|no such"
    r"|denied|failed|refused|missing|exception)\b|\b[A-Z][A-Za-z]*Error\b",
    re.IGNORECASE,
)
#: Where in a source an error was thrown, as node heads its report (``node:events:502``).
_LOCATION = re.compile(r"[\w./-]+:\d+(?::\d+)?")
#: The line an uncaught exception is reported by, in node's words and Python's
#: (``Error: listen EPERM: ...``, ``TypeError [ERR_X]: ...``, ``ValueError: ...``).
_THROWN = re.compile(r"(?:[A-Z][A-Za-z]*)?(?:Error|Exception)(?: \[[\w-]+\])?: \S")
#: A banner, which says only that something failed (a test runner's ``⎯⎯⎯ Failed Tests 1 ⎯⎯⎯``).
_BANNER = re.compile(r"[\u23af\u2500\u2501\u2550=*#~_-]{3}")


#: A line that warns: whatever words it holds, it says nothing went wrong.
_WARNING = re.compile(r"\s*warn(ing)?\b", re.IGNORECASE)
#: A package manager's last word on a script that failed, which says only that it did (yarn's
#: ``error Command failed with exit code 2.``, pnpm's ``ELIFECYCLE``, npm's ``npm error ...``).
_TRAILER = re.compile(
    r"command failed with exit code \d+|^error command failed\.$|\bELIFECYCLE\b|^npm (?:ERR!|error)\s"
    r"|^info visit https://yarnpkg",
    re.IGNORECASE,
)
#: A terminal's colour and cursor sequences (ANSI CSI).
_COLOURS = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


def _reads_as_error(line: str, program: str) -> bool:
    """Whether ``line`` says what went wrong: it names the program, or has an error's words (not
    a warning's, nor a package manager's trailer)."""
    name = os.path.basename(program)
    if line.startswith(f"{name}:"):
        return True
    return bool(_ERROR_WORDS.search(line)) and not _WARNING.match(line) and not _TRAILER.search(line)


def telling_line(stderr: str, program: str) -> str:
    """The line of ``stderr`` that says what went wrong: the last one naming the program
    (``du: cannot access 'x': ...``, not node's ``node:events:502``); else the last that reports
    an uncaught exception (``Error: listen EPERM``); else, of the lines before a usage message, the last that
    reads as an error (``unknown option: --``, ``fatal: ...``, ``ValueError: ...``), else the last
    that is not a pointer to --help or usage."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    name = os.path.basename(program)
    for line in reversed(lines):
        rest = line[len(name) + 1 :]
        if line.startswith(f"{name}:") and not _NOT_TELLING.match(rest) and not _LOCATION.fullmatch(rest):
            return line
    flagged = _flagged(lines)
    if flagged is not None:
        return flagged
    usage = next((i for i, line in enumerate(lines) if _USAGE.match(line)), None)
    before = lines[:usage] if usage else lines
    for line in reversed(before):
        if (
            _ERROR_WORDS.search(line)
            and not _NOT_TELLING.match(line)
            and not _TRAILER.search(line)
            and not _BANNER.search(line)
        ):
            return line
    return next(
        (line for line in reversed(before) if not _NOT_TELLING.match(line) and not _TRAILER.search(line)),
        lines[-1] if lines else "",
    )


def _flagged(lines: t.Sequence[str]) -> str | None:
    """The last line that reports an uncaught exception, else the last marked as a failure (not
    a count of them); None if none is."""
    thrown = next((line for line in reversed(lines) if _THROWN.match(line)), None)
    if thrown is not None:
        return thrown
    return next((line for line in reversed(lines) if _MARKED.match(line) and not _COUNT.search(line)), None)


class _Kept:
    """What one pipe gave: its first ``limit`` bytes, and how many more were thrown away."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._chunks: list[bytes] = []
        self._kept = 0
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        room = self._limit - self._kept
        if room > 0:
            self._chunks.append(chunk[:room])
            self._kept += min(room, len(chunk))
        self.dropped += max(0, len(chunk) - max(room, 0))

    def data(self) -> bytes:
        return b"".join(self._chunks)


class _Pipes:
    """A program's standard input, output and error, served from the calling thread with one
    selector (no thread of their own, as a server's many calls would each start three): its
    input written as it reads it (a program that does not read it is fine), what it prints read
    as it comes, the first ``limit`` bytes of each kept and the rest counted, so that it never
    blocks on a full pipe. Its end is heard through a pidfd where Linux gives one (at once),
    else by looking every :data:`LOOK` seconds."""

    #: How often, in seconds, a program's end is looked for where no pidfd tells of it.
    LOOK = 0.02
    #: How much is read or written at once.
    CHUNK = 65536

    def __init__(self, proc: Running, stdin: bytes, limit: int) -> None:
        import selectors

        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        self._proc = proc
        self._selector = selectors.DefaultSelector()
        self.out, self.err = _Kept(limit), _Kept(limit)
        self._reading = {proc.stdout.fileno(): self.out, proc.stderr.fileno(): self.err}
        for fd in self._reading:
            self._selector.register(fd, selectors.EVENT_READ)
        self._input = memoryview(stdin)
        self._stdin: int | None = None
        if stdin:
            self._stdin = proc.stdin.fileno()
            os.set_blocking(self._stdin, False)
            self._selector.register(self._stdin, selectors.EVENT_WRITE)
        else:
            proc.stdin.close()
        self._pidfd: int | None = None

    def serve(self, until: float, process: Running | None = None) -> bool:
        """Serve the pipes until ``process`` ends (it is reaped), or, without one, until the
        program and whatever holds its pipes have closed them; False when ``until`` (a
        monotonic time) came first."""
        import selectors

        if process is not None and self._pidfd is None and hasattr(os, "pidfd_open"):
            try:
                self._pidfd = os.pidfd_open(process.pid)
                self._selector.register(self._pidfd, selectors.EVENT_READ)
            except OSError:
                self._pidfd = -1  # (none to be had: look instead)
        while True:
            if process is not None and self._pidfd in (None, -1) and process.poll() is not None:
                return True
            if process is None and not self._reading:
                return True
            left = until - time.monotonic()
            if left <= 0:
                return False
            if process is not None and self._pidfd in (None, -1):
                left = min(left, self.LOOK)
            for key, _ in self._selector.select(left) if self._selector.get_map() else _sleep(left):
                fd = key.fd
                if fd == self._pidfd:
                    self._selector.unregister(fd)
                    os.close(fd)
                    self._pidfd = None
                    if process is not None:
                        process.wait()  # it has ended: this reaps it at once
                        self._stop_input()
                        return True
                elif fd == self._stdin:
                    self._write()
                else:
                    self._read(fd)

    def _read(self, fd: int) -> None:
        try:
            chunk = os.read(fd, self.CHUNK)
        except OSError:
            chunk = b""
        if chunk:
            self._reading[fd].add(chunk)
        else:
            self._selector.unregister(fd)
            del self._reading[fd]

    def _write(self) -> None:
        try:
            written = os.write(t.cast(int, self._stdin), self._input[: self.CHUNK])
        except BlockingIOError:
            return
        except OSError:  # the program does not read its input: not an error
            written = len(self._input)
        self._input = self._input[written:]
        if not self._input:
            self._stop_input()

    def _stop_input(self) -> None:
        if self._stdin is not None:
            self._selector.unregister(self._stdin)
            self._stdin = None
        assert self._proc.stdin is not None
        try:
            self._proc.stdin.close()
        except OSError:
            pass

    def close(self) -> None:
        """Stop serving: close what is still open (a descendant that escaped the sweep and
        holds a pipe finds it closed)."""
        self._selector.close()
        if self._pidfd not in (None, -1):
            os.close(self._pidfd)
            self._pidfd = None
        for pipe in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass


def _sleep(seconds: float) -> list[t.Any]:
    """Nothing to select on: wait all the same (the program's end is looked for)."""
    time.sleep(seconds)
    return []


class CallPrograms:
    """The programs one call of a server started, so that cancelling the call ends them: a
    program that starts after the call was cancelled is ended as it starts. ``reports``: where
    what they report goes (:func:`~cogtools.run.reports.parse_report`, called on another thread; it must not raise),
    or None: the call's client listens to neither progress nor log messages, and its programs
    get no channel to report on."""

    def __init__(self, reports: t.Callable[[Report], None] | None = None) -> None:
        self._lock = threading.Lock()
        self._pids: set[int] = set()
        self.cancelled = False
        self.reports = reports

    def add(self, pid: int) -> None:
        with self._lock:
            self._pids.add(pid)
            if self.cancelled:
                kill_group(pid)

    def discard(self, pid: int) -> None:
        with self._lock:
            self._pids.discard(pid)

    def end(self) -> None:
        """Cancel the call: kill the process group of each of its programs, now and to come."""
        with self._lock:
            self.cancelled = True
            for pid in self._pids:
                kill_group(pid)


#: The programs of the call being made in this context (a server's call), or None.
CALL_PROGRAMS: contextvars.ContextVar[CallPrograms | None] = contextvars.ContextVar(
    "cogtools_call_programs", default=None
)


def end_all() -> None:
    """Kill every program this process is running, with its group, and every adopted orphan: a
    server that stops leaves nothing behind."""
    warm = sys.modules.get("cogtools.run.warm")
    if warm is not None:
        warm.POOL.close_all()
    for pid in list(RUNNING):
        kill_group(pid)
    if adopting():
        sweep_adopted()


def _end(proc: Running) -> None:
    """Kill ``proc``'s process group, reap it, then every orphan it left that was adopted."""
    kill_group(proc.pid)
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL is not ignored
        pass
    if adopting():
        sweep_adopted()
