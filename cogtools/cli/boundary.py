"""The one boundary between the core and the outside, without click.

:func:`guard` runs a command body and turns every outcome into output and an exit status: a
domain error becomes one line on stderr (and, for the call commands, the JSON error object on
stdout) and the error's fixed exit status; anything else is a bug, reported as ``INTERNAL`` (with
the traceback when ``COGTOOLS_DEBUG`` is set), never as a bare traceback.

This module does not import click: ``cogtools-call`` and ``cogtools-yaml`` run a plain command
line without it (:mod:`cogtools.cli.plumbing`), which is a fifth of a call's time.
"""

from __future__ import annotations

import json
import os
import re
import sys
import typing as t

from cogtools.cli.streams import OutputLost as OutputLost
from cogtools.cli.streams import encode
from cogtools.cli.streams import read_stdin as read_stdin
from cogtools.cli.streams import write_stdout as write_stdout
from cogtools.core.errors import CogtoolsError, InternalError, UsageError

#: 128 + SIGPIPE, what a shell reports for a reader that went away.
EXIT_BROKEN_PIPE = 141


def one_line(text: str) -> str:
    return " ".join(text.split())


#: The colour of each word a report marks (its status), as SGR parameters.
COLOURS = {"ok": "32", "PASS": "32", "warning": "33", "problem": "1;31", "FAIL": "1;31", "error": "1;31"}


def colour_on(stream: t.Any) -> bool:
    """Whether to colour what goes to ``stream``: a terminal, unless ``NO_COLOR`` is set (to
    anything: no-color.org) or the terminal is ``dumb``."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return bool(stream is not None and stream.isatty())
    except (OSError, ValueError):
        return False


def write_text(text: str, marks: re.Pattern[str] | None = None) -> None:
    """Lines for a person on stdout (a table, a report): every control character but newline and
    tab written as a visible escape (:mod:`cogtools.core.printable`), so that no description, file name
    or program output can move the cursor, retitle the window or write the clipboard. On a
    terminal, the words ``marks`` matches (its group 1: a status of :data:`COLOURS`) are coloured
    (after the escaping: only cogtools' own colours reach the terminal)."""
    from cogtools.core.printable import printable

    shown = printable(text, "\n\t")
    if marks is not None and colour_on(sys.stdout):
        shown = marks.sub(_painted, shown)
    write_stdout(shown)


def _painted(match: re.Match[str]) -> str:
    word = match.group(1)
    colour = COLOURS.get(word)
    if colour is None:
        return match.group(0)
    start, end = match.span(1)
    whole = match.group(0)
    offset = match.start(0)
    return f"{whole[: start - offset]}\033[{colour}m{word}\033[0m{whole[end - offset :]}"


def warn(prog: str, message: str) -> None:
    """One line for a person on stderr; nothing when stderr cannot be written (the exit status
    and stdout say the same to a program)."""
    stream = sys.stderr
    if stream is None:
        return
    from cogtools.core.printable import printable

    line = printable(one_line(message))
    if line.startswith(("error: ", "warning: ")) and colour_on(stream):
        line = _STATUS.sub(_painted, line, count=1)
    try:
        stream.buffer.write(encode(f"{prog}: {line}\n"))
        stream.buffer.flush()
    except (OSError, ValueError, AttributeError):
        pass


#: A line's leading status word.
_STATUS = re.compile(r"^(\w+)\b")
#: The status at the start of each line of a report (doctor's, test's).
STATUS_MARKS = re.compile(r"^(ok|problem|warning|PASS|FAIL)\b", re.MULTILINE)
#: The severity of each line of lint's report (``PATH:LINE: error[RULE] ...``).
SEVERITY_MARKS = re.compile(r": (error|warning)\[[a-z-]+\]")


def report(prog: str, error: CogtoolsError, *, json_errors: bool) -> int:
    if json_errors:
        try:
            write_stdout(json.dumps(error.to_json(), ensure_ascii=False) + "\n")
        except (OutputLost, BrokenPipeError):
            _silence_stdout()
    warn(prog, f"error: {error.code}: {error}")
    return error.exit_status


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's final flush of what could not be
    written neither complains nor changes the exit status."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
        if sys.stdout is not None:
            try:
                sys.stdout.buffer.flush()
            except (OSError, ValueError):
                pass
    except OSError:
        pass


class Interrupted(BaseException):
    """A signal asked cogtools to stop (SIGTERM, SIGHUP; SIGINT is Python's KeyboardInterrupt)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise_interrupted(signum: int, frame: object) -> None:
    raise Interrupted(signum)


def catch_signals() -> None:
    """Turn SIGTERM and SIGHUP (what Gemini CLI and a closing terminal send) into
    :class:`Interrupted`, so that a call unwinds, and the runner's cleanup kills what the tool
    started, instead of the interpreter dying with the tool still running."""
    import signal

    for name in ("SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) is not signal.SIG_IGN:  # nohup stays nohup
            try:
                signal.signal(number, _raise_interrupted)
            except ValueError:  # not the main thread: its caller owns the signals
                return


def interrupted(prog: str, signum: int, *, json_errors: bool) -> int:
    """Report an interruption; the exit status is a shell's for death by that signal."""
    import signal

    from cogtools.core.errors import ExecutionFailedError

    name = signal.Signals(signum).name
    error = ExecutionFailedError(f"interrupted by {name}; the tool's processes were stopped", details={"signal": name})
    if json_errors:
        report(prog, error, json_errors=True)
    else:
        warn(prog, "interrupted")
    return 128 + signum


#: The variables that decide trust which this process ignores, each with the workspace file that
#: set it (:func:`ignore_workspace_environment`).
IGNORED: dict[str, str] = {}


def ignore_workspace_environment() -> None:
    """Drop from this process's environment (and so from every program it runs) each variable
    that decides trust (the role, the configuration file, the user's directories) which the
    workspace's ``.env`` set: Gemini CLI loads that file, which the agent can write, into its own
    environment, and that is what a command it runs inherits."""
    from pathlib import Path

    from cogtools.core.environment import set_by_workspace

    IGNORED.clear()
    try:
        found = set_by_workspace(Path.cwd(), os.environ)
    except OSError:  # no working directory: nothing can be looked for
        return
    for name, path in found.items():
        os.environ.pop(name, None)
        IGNORED[name] = path


def ignored_note() -> str:
    """What :func:`ignore_workspace_environment` ignored, in words ("" when nothing)."""
    if not IGNORED:
        return ""
    names = ", ".join(f"{name} (set by {path})" for name, path in sorted(IGNORED.items()))
    return (
        f"ignored {names}: a variable the workspace's .env sets is not the user's word; set it in your own"
        " shell or configuration"
    )


def workspace_env_note() -> str:
    """What the workspace's .env sets (or, in this process, did set) of what decides trust, in
    words ("" when nothing): for doctor and config, which a person runs in a shell where Gemini
    CLI has not loaded the file."""
    from pathlib import Path

    from cogtools.core.environment import workspace_env

    try:
        found = workspace_env(Path.cwd(), os.environ.get("HOME"))
    except OSError:
        found = None
    names = sorted({*IGNORED, *(found[1] if found is not None else ())})
    if not names:
        return ""
    where = str(found[0]) if found is not None else ", ".join(sorted(set(IGNORED.values())))
    return (
        f"{where} sets {', '.join(names)}, which Gemini CLI passes on to the commands it runs; cogtools ignores"
        " them there (a file of the workspace is not the user's word on the role, the configuration or the pins)"
    )


def guard(body: t.Callable[[], int | None], prog: str, *, json_errors: bool = False) -> int:
    """Run ``body`` and return the exit status it earned."""
    catch_signals()
    ignore_workspace_environment()
    try:
        result = body()
    except BaseException as e:
        return failed(prog, e, json_errors=json_errors)
    return result if isinstance(result, int) else 0


def failed(prog: str, e: BaseException, *, json_errors: bool = False) -> int:
    """Report ``e``, raised by a command's body, and return the exit status it earned (a
    :class:`SystemExit` and the like pass as they are)."""
    import signal

    try:
        if isinstance(e, CogtoolsError):
            if IGNORED and e.code in ("POLICY_DENIED", "TOOL_NOT_FOUND"):
                e = e.replace(message=f"{e.message}; note: {ignored_note()}")
            return report(prog, e, json_errors=json_errors)
        if isinstance(e, Interrupted):
            return interrupted(prog, e.signum, json_errors=json_errors)
        if isinstance(e, OutputLost):
            _silence_stdout()
            lost = UsageError(f"cannot write the output to stdout: {e}")
            warn(prog, f"error: {lost.code}: {lost}")
            return lost.exit_status
        if isinstance(e, KeyboardInterrupt):
            return interrupted(prog, signal.SIGINT, json_errors=json_errors)
        if isinstance(e, BrokenPipeError) or not isinstance(e, Exception):
            raise e
        if os.environ.get("COGTOOLS_DEBUG"):
            import traceback

            traceback.print_exception(e)
        error = InternalError(f"{type(e).__name__}: {e} (a bug in cogtools; COGTOOLS_DEBUG=1 shows the traceback)")
        return report(prog, error, json_errors=json_errors)
    except BrokenPipeError:
        # The reader has gone: exit as a shell would.
        _silence_stdout()
        return EXIT_BROKEN_PIPE


class PreRead(t.NamedTuple):
    """Stdin as read before the command line was parsed (None: not read yet)."""

    data: bytes | None
    truncated: bool = False

    def get(self) -> tuple[bytes, bool]:
        if self.data is not None:
            return self.data, self.truncated
        if sys.stdin is not None and sys.stdin.isatty() and sys.stderr is not None and sys.stderr.isatty():
            prog = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "cogtools"
            warn(prog, "reading the arguments (a JSON object) from the terminal; end with Ctrl-D, or pipe them in")
        return read_stdin()


def pre_read_stdin() -> PreRead:
    """Drain stdin first when it is a pipe or a file (DESIGN §8: a caller must never meet a
    closed pipe, whatever fails later); leave a terminal alone until input is needed."""
    if sys.stdin is None:
        return PreRead(b"")
    if sys.stdin.isatty():
        return PreRead(None)
    return PreRead(*read_stdin())
