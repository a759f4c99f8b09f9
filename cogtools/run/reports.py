"""The channel a program reports on: a program run for a server's call whose client listens
(:attr:`cogtools.run.process.CallPrograms.reports`) is given a pipe of its own, named by
``COGTOOLS_PROGRESS_FD`` in its environment: each line it writes there is a progress report
(``PROGRESS [TOTAL|-] [MESSAGE]``) or a log message (``LEVEL[:] MESSAGE``), parsed by
:func:`parse_report` on a thread of its own, so that neither the client nor the server can make
the program wait; what is too long, malformed or more than the call can use is dropped. A program
that never writes there is fine.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import select
import threading
import time
import typing as t

from cogtools.core.printable import printable

#: The variable that names, to a program, the descriptor it may report its progress on.
PROGRESS_VARIABLE = "COGTOOLS_PROGRESS_FD"
#: The longest line a program may write there, in bytes (its newline aside); a longer one is
#: dropped whole.
MAX_REPORT_LINE = 1024
#: Of the lines one read of the channel brings, only the last this many are parsed: a program
#: that writes faster than the call reports (:class:`cogtools.mcp.reporting.Reporter`) loses the
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
#: Once told to stop, the reads of what the pipe holds still, at most (a descendant that escaped
#: may write on).
FINAL_READS = 4
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
    text = (text or "").strip()
    return printable(scrub(text)) or None


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
def _report_slot(write_end: int) -> t.Iterator[int]:
    """The number at which a program started now sees ``write_end``: the reserved one
    (:func:`reserve_report_slot`) made a copy of it for the moment of the start (held by a start
    that goes alone through the gate of starting programs, so no two starts share it), else its
    own."""
    if not _slot:
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


class Channel:
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
    def open(cls, sink: t.Callable[[Report], None], scrub: t.Callable[[str], str]) -> Channel:
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

    @contextlib.contextmanager
    def lent(self) -> t.Iterator[tuple[dict[str, str], tuple[int, ...]]]:
        """What a program started now is given to report on: the variable that names the
        descriptor, and the descriptor (its write end, at the reserved number where there is one)."""
        with _report_slot(self.write_end) as number:
            yield {PROGRESS_VARIABLE: str(number)}, (number,)

    def drain(self) -> None:
        """Let the lines the program wrote before it ended be read (up to :data:`REPORTS_GRACE`),
        then stop reading."""
        self.finish(REPORTS_GRACE)

    def finish(self, seconds: float) -> None:
        """Wait up to ``seconds`` for the lines the program wrote to be read, then stop reading."""
        if not self.thread.is_alive() and self.thread.ident is None:  # never started
            os.close(self._read_end)
            return
        self.thread.join(seconds)
        self._stop.set()
        if seconds:  # what the pipe holds still is read before the thread ends (a busy machine
            self.thread.join(seconds)  # may not have let it run at all)

    def _read(self) -> None:
        last_reads = FINAL_READS
        try:
            while last_reads:
                stopping = self._stop.is_set()
                last_reads -= stopping
                # (woken now and then, to stop reading what a descendant that escaped holds open;
                # once stopped, what the pipe holds now is read, and no more)
                if not select.select([self._read_end], [], [], 0 if stopping else 0.5)[0]:
                    if stopping:
                        return
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
