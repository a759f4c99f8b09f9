"""Running a program for a tool: never through a shell, bounded in time and in output, and never
outliving its call.

The program starts in a session of its own, so that its whole process group (grandchildren
included) is killed when the time is up, when it exits, and when the call ends any other way (an
error, SIGINT, SIGTERM, SIGHUP: the boundary turns those into exceptions, and the runner's
``finally`` does the killing). A descendant that leaves the group (``setsid``: a tool that starts
a daemon) is caught too on Linux, where cogtools makes itself a *child subreaper*
(``PR_SET_CHILD_SUBREAPER``): orphaned descendants are re-parented to it instead of to init, and
after every program it ends every such adopted process and its group. Elsewhere only the process
group is ended, and a descendant that left it may survive.

Output past the cap is read and thrown away (the program never blocks on a full pipe) and counted
for the truncation marker. Output that is not UTF-8 is decoded with replacement characters. A
program that does not read its stdin is fine.

A program run for a server's call whose client listens (:attr:`CallPrograms.reports`) is given a
pipe of its own to report on, named by ``COGTOOLS_PROGRESS_FD`` in its environment: each line it
writes there is a progress report (``PROGRESS [TOTAL|-] [MESSAGE]``) or a log message (``LEVEL[:]
MESSAGE``), parsed by :func:`parse_report` on a thread of its own, so that neither the client nor
the server can make the program wait; what is too long, malformed or more than the call can use
is dropped. A program that never writes there is fine.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import math
import os
import re
import signal
import subprocess
import threading
import time
import typing as t

from cogtools.core.errors import ExecutionFailedError, ToolTimeoutError

if t.TYPE_CHECKING:
    from cogtools.run.confine import Confinement

#: The variables of cogtools' own environment that every program gets (besides those the tool
#: declares): enough to find programs and behave as in the user's locale.
PASSED_THROUGH = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "TERM", "SYSTEMROOT")

#: How much of stderr an EXECUTION_FAILED error quotes.
STDERR_TAIL = 2000


class Finished(t.NamedTuple):
    status: int
    stdout: bytes
    stderr: bytes
    #: Bytes of stdout read past the cap and discarded.
    dropped: int


def child_environment(declared: t.Mapping[str, str | None], environ: t.Mapping[str, str]) -> dict[str, str]:
    """The environment of a tool's program: the pass-through variables of the caller's
    ``environ``, and the declared ones."""
    env = {name: environ[name] for name in PASSED_THROUGH if name in environ}
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
    if bound or confine is not None:
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
            argv, held = wrap(argv, bound, view, shows, seccomp)
        except OSError as e:
            raise _cannot(f"hold the checked files of {argv[0]!r}", argv[0], e.strerror or str(e), tool) from e
    owner = CALL_PROGRAMS.get()
    reader: _Reports | None = None
    if owner is not None and owner.reports is not None and os.name == "posix":
        try:
            reader = _Reports.open(owner.reports, _secret_values(env))
        except OSError:
            reader = None  # (out of descriptors: the program runs, without a channel to report on)
    try:
        # Started and registered as one step: a sweep for adopted orphans (another call's, in a
        # server) must never take this program for one, kill it and reap it.
        # (a start that lends the program the one report slot goes alone, as a sweep does)
        with (
            _GATE.alone() if reader is not None else _GATE.shared(),
            _report_slot(None if reader is None else reader.write_end) as slot,
        ):
            proc = subprocess.Popen(
                list(argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=cwd,
                env=dict(env) if slot is None else {**env, PROGRESS_VARIABLE: str(slot)},
                start_new_session=True,
                pass_fds=tuple(held) if slot is None else (*held, slot),
            )
            _RUNNING.add(proc.pid)
    except OSError as e:
        if reader is not None:
            reader.finish(0)
        raise _cannot(f"run {argv[0]!r}", argv[0], e.strerror or str(e), tool) from e
    finally:
        for fd in (*held, *([] if reader is None else [reader.write_end])):
            os.close(fd)  # the program has its own copies of the descriptors
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    if owner is not None:
        owner.add(proc.pid)
    ended = False
    pipes: _Pipes | None = None
    try:
        pipes = _Pipes(proc, stdin, max_output)
        if reader is not None:
            reader.thread.start()
        deadline = time.monotonic() + timeout
        if not pipes.serve(until=deadline, process=proc):
            _end(proc)
            ended = True
            # A descendant that escaped even the sweep may still hold the pipes: do not wait for it.
            pipes.serve(until=time.monotonic() + 2)
            if reader is not None:
                reader.finish(REPORTS_GRACE)
            raise ToolTimeoutError(
                f"{program!r} ran past its time limit of {timeout:g} s and was killed (with its process group)",
                tool=tool,
                details={"timeout_seconds": timeout, "program": program},
            )
        _end(proc)  # whatever it left behind still holds our pipes
        ended = True
        pipes.serve(until=deadline + 1)
        if reader is not None:
            reader.finish(REPORTS_GRACE)  # every line it wrote is reported before its call ends
        if argv[0] != program and proc.returncode == 1:
            _check_started(program, pipes.err.data(), tool)
        return Finished(proc.returncode, pipes.out.data(), pipes.err.data(), pipes.out.dropped)
    finally:
        # Whatever ended the call (an error, a signal turned into an exception), nothing it
        # started survives it.
        if not ended:
            _end(proc)
        if pipes is not None:
            pipes.close()
        if reader is not None:
            reader.finish(0)
        _RUNNING.discard(proc.pid)
        if owner is not None:
            owner.discard(proc.pid)


#: The variable that names, to a program, the descriptor it may report its progress on.
PROGRESS_VARIABLE = "COGTOOLS_PROGRESS_FD"
#: The longest line a program may write there, in bytes (its newline aside); a longer one is
#: dropped whole.
MAX_REPORT_LINE = 1024
#: Of the lines one read of the channel brings, only the last this many are parsed: a program
#: that writes faster than the call reports (:class:`cogtools.mcp.server.Reporter`) loses the
#: older ones anyway, and must not keep a thread of the server busy parsing them.
REPORTS_PER_READ = 20
#: How much of the channel one read takes, at most.
READ_SIZE = 65536
#: A read of this many bytes or more is a flood (a program reports a line now and then): this
#: thread pauses for :data:`FLOOD_PAUSE` seconds after it, so that a program writing more than
#: FLOOD_PAUSE allows (READ_SIZE / FLOOD_PAUSE bytes a second) waits on a full pipe instead of
#: keeping the server busy.
FLOOD = 4096
FLOOD_PAUSE = 0.01
#: How long, in seconds, the lines a program wrote before it ended may take to be read (the
#: pipe holds them: a moment; longer only when a descendant that escaped the sweep holds it).
REPORTS_GRACE = 1.0
#: The levels of a log message, least severe first (RFC 5424's, as MCP names them).
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


class Progress(t.NamedTuple):
    """``PROGRESS [TOTAL|-] [MESSAGE]``: how far the program is (a number that only grows), of
    how much when it knows, and what it is doing."""

    progress: float
    total: float | None = None
    message: str | None = None


class Log(t.NamedTuple):
    """``LEVEL[:] MESSAGE``: a log message at one of :data:`LOG_LEVELS`."""

    level: str
    message: str


Report: t.TypeAlias = t.Union[Progress, Log]

_NUMBER = r"[0-9]+(?:\.[0-9]+)?"
_PROGRESS_LINE = re.compile(
    rf"(?P<progress>{_NUMBER})(?:[ \t]+(?P<total>{_NUMBER}|-)(?=[ \t]|\Z))?(?:[ \t]+(?P<message>.*))?\Z",
    re.ASCII | re.DOTALL,
)
_LOG_LINE = re.compile(r"(?P<level>[A-Za-z]+):?[ \t]+(?P<message>.*)\Z", re.ASCII | re.DOTALL)


def parse_report(line: bytes, scrub: t.Callable[[str], str] = str) -> Report | None:
    """What a line a program wrote on its channel reports (without its newline), or None when it
    is not a report:

    - ``PROGRESS [TOTAL|-] [MESSAGE]``: numbers of decimal digits with an optional fraction
      (``3``, ``2.5``); TOTAL, when given, at least PROGRESS and above 0; ``-`` for no total
      before a MESSAGE that begins with a number; a second field that is neither is where the
      MESSAGE begins (``3 copying`` is progress 3, message ``copying``).
    - ``LEVEL[:] MESSAGE``: a level of :data:`LOG_LEVELS` (in any case), then the message.

    Fields are separated by spaces or tabs; space around the line (and a carriage return) is
    ignored. Text that is not UTF-8 is decoded with replacement characters; the message goes
    through ``scrub`` (which masks secrets), and its control characters are escaped."""
    if len(line) > MAX_REPORT_LINE:
        return None
    text = line.decode("utf-8", "replace").strip(" \t\r\n\v\f")
    found = _PROGRESS_LINE.match(text)
    if found is not None:
        progress = float(found["progress"])
        total = None if found["total"] in (None, "-") else float(found["total"])
        if not math.isfinite(progress) or (
            total is not None and not (math.isfinite(total) and total >= progress and total > 0)
        ):
            return None
        return Progress(_plain(progress), None if total is None else _plain(total), _message(found["message"], scrub))
    found = _LOG_LINE.match(text)
    if found is not None and found["level"].lower() in LOG_LEVELS:
        message = _message(found["message"], scrub)
        return Log(found["level"].lower(), message) if message else None
    return None


def _plain(number: float) -> float:
    """``number``, as an int when it is a whole one that a double holds exactly (``3``, not
    ``3.0``, in JSON)."""
    return int(number) if number.is_integer() and number < 2**53 else number


def _message(text: str | None, scrub: t.Callable[[str], str]) -> str | None:
    from cogtools.core.printable import printable

    text = (text or "").strip()
    return printable(scrub(text)) or None


def _secret_values(env: t.Mapping[str, str]) -> t.Callable[[str], str]:
    """What masks, in what a program reports, the values of the variables its tool declared (as
    its error messages are masked): every variable of ``env`` but those passed through from
    cogtools' own environment and a script's arguments."""
    from cogtools.core.environment import scrub

    values = [v for k, v in env.items() if k not in PASSED_THROUGH and not k.startswith("COGTOOLS_ARG_")]
    return (lambda text: scrub(text, values)) if values else str


#: A descriptor of this process kept for the channel, at a number below 10 where it could be
#: had (``sh`` that is dash reads one digit in ``>&N``), and /dev/null to put back in it.
_slot: list[tuple[int, int]] = []


def reserve_report_slot() -> None:
    """Keep a low descriptor number for the channel a program reports on (once; best done
    early, before the server has opened much): each program sees its channel at that number."""
    if _slot or os.name != "posix":
        return
    import fcntl

    try:
        placeholder = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        number = fcntl.fcntl(placeholder, fcntl.F_DUPFD_CLOEXEC, 3)
    except OSError:
        os.close(placeholder)
        return
    _slot.append((number, placeholder))


@contextlib.contextmanager
def _report_slot(write_end: int | None) -> t.Iterator[int | None]:
    """The number at which a program started now sees ``write_end`` (None: it has none): the
    reserved one (:func:`reserve_report_slot`) made a copy of it for the moment of the start (held
    by a start that goes alone through the gate of starting programs, so no two starts share it), else its own."""
    if write_end is None or not _slot:
        yield write_end
        return
    number, placeholder = _slot[0]
    try:
        os.dup2(write_end, number, inheritable=False)
    except OSError:
        yield write_end
        return
    try:
        yield number
    finally:
        os.dup2(placeholder, number, inheritable=False)  # the program has its copy; ours goes


class _Reports:
    """The channel a program reports on: a pipe whose write end it is given, read to its end on a
    thread, each line parsed (:func:`parse_report`) and what it reports given to ``sink``."""

    def __init__(
        self, read_end: int, write_end: int, sink: t.Callable[[Report], None], scrub: t.Callable[[str], str]
    ) -> None:
        self._read_end = read_end
        self.write_end = write_end
        self._sink = sink
        self._scrub = scrub
        self._partial = b""
        self._skipping = False  # the rest of a line too long to report
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)

    @classmethod
    def open(cls, sink: t.Callable[[Report], None], scrub: t.Callable[[str], str]) -> _Reports:
        read_end, write_end = os.pipe()
        if write_end < 3:  # (a server started without stdin): not a descriptor the program's stdio takes
            import fcntl

            try:
                moved = fcntl.fcntl(write_end, fcntl.F_DUPFD_CLOEXEC, 3)
            except OSError:
                os.close(read_end)
                raise
            finally:
                os.close(write_end)
            write_end = moved
        return cls(read_end, write_end, sink, scrub)

    def finish(self, seconds: float) -> None:
        """Wait up to ``seconds`` for the lines the program wrote to be read, then stop reading."""
        if not self.thread.is_alive() and self.thread.ident is None:  # never started
            os.close(self._read_end)
            return
        self.thread.join(seconds)
        self._stop.set()

    def _read(self) -> None:
        import select

        try:
            while not self._stop.is_set():
                # (woken now and then, to stop reading what a descendant that escaped holds open)
                if not select.select([self._read_end], [], [], 0.5)[0]:
                    continue
                chunk = os.read(self._read_end, READ_SIZE)
                if not chunk:
                    return
                flooded = len(chunk) >= FLOOD
                # (of a flood, only the newest line is worth the parsing)
                for line in self._lines(chunk, 1 if flooded else REPORTS_PER_READ):
                    report = parse_report(line, self._scrub)
                    if report is not None:
                        self._sink(report)
                if flooded:  # far more than any call reports: read it at a pace that costs little
                    time.sleep(FLOOD_PAUSE)
        except Exception:  # noqa: BLE001 - a report is advice: whatever goes wrong, the call goes on
            return
        finally:
            os.close(self._read_end)

    def _lines(self, chunk: bytes, keep: int = REPORTS_PER_READ) -> list[bytes]:
        """The last ``keep`` whole lines that ``chunk`` ends (one too long is left out whole),
        found from its end: a flood costs no more to read than a line."""
        end = chunk.rfind(b"\n")
        if end < 0:  # the line goes on
            if not self._skipping:
                self._partial += chunk
                if len(self._partial) > MAX_REPORT_LINE:
                    self._partial, self._skipping = b"", True
            return []
        lines = chunk[:end].rsplit(b"\n", keep)
        if len(lines) > keep:
            del lines[0]  # older lines, not to be reported
        elif self._skipping:
            del lines[0]  # the end of a line too long
        else:
            lines[0] = self._partial + lines[0]
        rest = chunk[end + 1 :]
        self._skipping = len(rest) > MAX_REPORT_LINE
        self._partial = b"" if self._skipping else rest
        return [line for line in lines if len(line) <= MAX_REPORT_LINE]


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


def describe_failure(
    program: str, finished: Finished, tool: str, scrub: t.Callable[[str], str]
) -> ExecutionFailedError:
    """EXECUTION_FAILED for a program that exited non-zero or was killed by a signal."""
    # Scrubbed whole, then cut: cutting first could leave the end of a secret that began before
    # the cut, which the scrubber would no longer recognise.
    tail = scrub(finished.stderr.decode("utf-8", "replace"))[-STDERR_TAIL:]
    status = finished.status
    how = f"was killed by signal {-status}" if status < 0 else f"exited with status {status}"
    last = telling_line(tail, program)
    return ExecutionFailedError(
        f"{program!r} {how}" + (f": {last.strip()}" if last else ""),
        tool=tool,
        details={"program": program, "exit_status": status, "stderr_tail": tail},
    )


#: Lines that point at help rather than say what went wrong (GNU, BSD and Python conventions).
_NOT_TELLING = re.compile(
    r"^\s*(try [`'\"]?\S+ --help|usage:|for more information|see [`'\"]?\S+ --help)", re.IGNORECASE
)
#: Where a usage message begins: what follows it (its option lines) says nothing of what went wrong.
_USAGE = re.compile(r"^\s*usage:", re.IGNORECASE)
#: Words of a line that says what went wrong.
_ERROR_WORDS = re.compile(
    r"\b(error|fatal|unknown|unrecognized|invalid|illegal|cannot|can't|couldn't|could not|not found|no such"
    r"|denied|failed|refused|missing|exception)\b",
    re.IGNORECASE,
)


def telling_line(stderr: str, program: str) -> str:
    """The line of ``stderr`` that says what went wrong: the last one naming the program
    (``du: cannot access 'x': ...``); else, of the lines before a usage message, the last that
    reads as an error (``unknown option: --``, ``fatal: ...``, ``ValueError: ...``), else the last
    that is not a pointer to --help or usage."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    name = os.path.basename(program)
    for line in reversed(lines):
        if line.startswith(f"{name}:") and not _NOT_TELLING.match(line[len(name) + 1 :]):
            return line
    usage = next((i for i, line in enumerate(lines) if _USAGE.match(line)), None)
    before = lines[:usage] if usage else lines
    for line in reversed(before):
        if _ERROR_WORDS.search(line) and not _NOT_TELLING.match(line):
            return line
    return next((line for line in reversed(before) if not _NOT_TELLING.match(line)), lines[-1] if lines else "")


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

    def __init__(self, proc: subprocess.Popen[bytes], stdin: bytes, limit: int) -> None:
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

    def serve(self, until: float, process: subprocess.Popen[bytes] | None = None) -> bool:
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


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class _Gate:
    """Starting programs, and telling adopted orphans from them: a program is started and added
    to :data:`_RUNNING` in one step, which a sweep must never see half done, or it would take the
    program for an orphan. Starts may overlap one another (:meth:`shared`); a sweep goes alone
    (:meth:`alone`), and once one waits, no new start goes before it."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._starting = 0
        self._alone = False
        self._waiting = 0

    @contextlib.contextmanager
    def shared(self) -> t.Iterator[None]:
        with self._condition:
            while self._alone or self._waiting:
                self._condition.wait()
            self._starting += 1
        try:
            yield
        finally:
            with self._condition:
                self._starting -= 1
                if not self._starting:
                    self._condition.notify_all()

    @contextlib.contextmanager
    def alone(self) -> t.Iterator[None]:
        with self._condition:
            self._waiting += 1
            try:
                while self._alone or self._starting:
                    self._condition.wait()
            finally:
                self._waiting -= 1
            self._alone = True
        try:
            yield
        finally:
            with self._condition:
                self._alone = False
                self._condition.notify_all()


#: The programs this process is running now (its own children, not adopted ones), and the gate
#: through which one is started and added, and the adopted are told from them.
_RUNNING: set[int] = set()
_GATE = _Gate()
#: Whether this process adopts orphaned descendants (decided once, on the first program).
_subreaper: list[bool] = []


class CallPrograms:
    """The programs one call of a server started, so that cancelling the call ends them: a
    program that starts after the call was cancelled is ended as it starts. ``reports``: where
    what they report goes (:func:`parse_report`, called on another thread; it must not raise),
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
                _kill_group(pid)

    def discard(self, pid: int) -> None:
        with self._lock:
            self._pids.discard(pid)

    def end(self) -> None:
        """Cancel the call: kill the process group of each of its programs, now and to come."""
        with self._lock:
            self.cancelled = True
            for pid in self._pids:
                _kill_group(pid)


#: The programs of the call being made in this context (a server's call), or None.
CALL_PROGRAMS: contextvars.ContextVar[CallPrograms | None] = contextvars.ContextVar(
    "cogtools_call_programs", default=None
)


def end_all() -> None:
    """Kill every program this process is running, with its group, and every adopted orphan: a
    server that stops leaves nothing behind."""
    for pid in list(_RUNNING):
        _kill_group(pid)
    if _subreaper and _subreaper[0]:
        sweep_adopted()


def become_subreaper() -> bool:
    """Ask Linux to re-parent this process's orphaned descendants to it (once); whether it did."""
    if not _subreaper:
        _subreaper.append(_prctl_subreaper())
    return _subreaper[0]


def _prctl_subreaper() -> bool:
    if not os.path.exists("/proc/self/stat"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(36, 1, 0, 0, 0) == 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


def _end(proc: subprocess.Popen[bytes]) -> None:
    """Kill ``proc``'s process group, reap it, then every orphan it left that was adopted."""
    _kill_group(proc.pid)
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL is not ignored
        pass
    if _subreaper and _subreaper[0]:
        sweep_adopted()


def sweep_adopted() -> None:
    """Kill and reap every child of this process that it did not start itself (adopted orphans),
    with their process groups, until none is left. Killing one can orphan its own children: they
    are adopted before it can be reaped (Linux re-parents a process's children as it exits), so
    the next look, after the reaping, finds them. A look that finds none ends it: no sleeping,
    and one read of this process's own children, not a scan of every process. Only a look that
    finds a child not known to be running takes the gate (and looks again behind it: the child
    may be a program that is being started); the usual one lets the other calls start theirs."""
    while True:
        if all(pid in _RUNNING for pid in _children()):
            return
        with _GATE.alone():
            adopted = [pid for pid in _children() if pid not in _RUNNING]
            for pid in adopted:
                _kill_group(pid)
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        if not adopted:
            return
        for pid in adopted:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


def _children() -> list[int]:
    """The children of this process that may be adopted orphans: those listed under its main
    thread (``/proc/self/task/PID/children``), where Linux puts every process it re-parents to a
    subreaper (to the first live thread of its group, the main one while it runs), and where
    the programs started by the main thread are too (those of a server's calls are under the
    worker threads that started them, and need not be read). Where the kernel keeps no such
    file, a scan of /proc finds every child."""
    if not _children_files():
        return _children_by_scan(os.getpid())
    try:
        with open(f"/proc/self/task/{os.getpid()}/children", "rb") as f:
            return [int(pid) for pid in f.read().split()]
    except OSError:
        return _children_by_scan(os.getpid())


@functools.cache
def _children_files() -> bool:
    """Whether the kernel lists each thread's children (``CONFIG_PROC_CHILDREN``)."""
    return os.path.exists(f"/proc/self/task/{os.getpid()}/children")


def _children_by_scan(parent: int) -> list[int]:
    """The processes whose parent is ``parent``, from /proc."""
    found = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces and parentheses, so split after the last ')'
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 1 and int(fields[1]) == parent:
            found.append(int(entry))
    return found
