"""The one boundary between the core and the outside: run a click command, turn every outcome
into output and an exit status.

Domain errors become one line on stderr (and, for the call commands, the JSON error object on
stdout) and the error's fixed exit status; click's usage errors become ``USAGE``; anything else is
a bug, reported as ``INTERNAL`` (with the traceback when ``COGTOOLS_DEBUG`` is set), never as a
bare traceback.
"""

from __future__ import annotations

import json
import os
import sys
import typing as t

import click

from cogtools import __version__
from cogtools.errors import CogtoolsError, InternalError, UsageError

#: 128 + SIGPIPE, what a shell reports for a reader that went away.
EXIT_BROKEN_PIPE = 141
EXIT_INTERRUPTED = 130

CONTEXT_SETTINGS: dict[str, t.Any] = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def version_option() -> t.Callable[[t.Callable[..., t.Any]], t.Callable[..., t.Any]]:
    return click.version_option(__version__, "-V", "--version", message="%(prog)s %(version)s")


def one_line(text: str) -> str:
    return " ".join(text.split())


def write_stdout(text: str) -> None:
    sys.stdout.buffer.write(text.encode("utf-8"))
    sys.stdout.buffer.flush()


def warn(prog: str, message: str) -> None:
    """One line for a person on stderr."""
    sys.stderr.write(f"{prog}: {one_line(message)}\n")


def report(prog: str, error: CogtoolsError, *, json_errors: bool) -> int:
    if json_errors:
        write_stdout(json.dumps(error.to_json(), ensure_ascii=False) + "\n")
    warn(prog, f"error: {error.code}: {error}")
    return error.exit_status


def run(
    command: click.Command,
    argv: t.Sequence[str] | None,
    prog: str,
    *,
    json_errors: bool = False,
    obj: t.Any = None,
) -> int:
    """Run ``command`` with ``argv`` (default: ``sys.argv[1:]``) and return the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        try:
            result = command.main(args=args, prog_name=prog, standalone_mode=False, obj=obj)
        except click.exceptions.NoArgsIsHelpError as e:
            click.echo(e.ctx.get_help(), err=True)
            return UsageError.exit_status
        except click.UsageError as e:
            hint = f" (try '{prog} --help')"
            raise UsageError(e.format_message() + hint) from e
        except click.ClickException as e:
            raise UsageError(e.format_message()) from e
        return result if isinstance(result, int) else 0
    except CogtoolsError as e:
        return _guard_pipe(lambda: report(prog, e, json_errors=json_errors))
    except (KeyboardInterrupt, click.Abort):
        sys.stderr.write("\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return _closed_stdout()
    except Exception as e:
        if os.environ.get("COGTOOLS_DEBUG"):
            import traceback

            traceback.print_exc()
        error = InternalError(f"{type(e).__name__}: {e} (a bug in cogtools; COGTOOLS_DEBUG=1 shows the traceback)")
        return _guard_pipe(lambda: report(prog, error, json_errors=json_errors))


def _guard_pipe(action: t.Callable[[], int]) -> int:
    try:
        return action()
    except BrokenPipeError:
        return _closed_stdout()


def _closed_stdout() -> int:
    # The reader has gone: point stdout at /dev/null so that the interpreter's final flush
    # does not complain, and exit as a shell would.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return EXIT_BROKEN_PIPE


def read_stdin() -> tuple[bytes, bool]:
    """All of stdin, up to the input limit, and whether it went past the limit.

    Everything is read, past the limit too, so that a writer (Gemini CLI) never meets a closed
    pipe; what is past the limit is discarded as it arrives.
    """
    from cogtools.invoke import MAX_INPUT_BYTES

    stream = sys.stdin.buffer if sys.stdin is not None else None
    if stream is None:
        return b"", False
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = stream.read1(65536) if hasattr(stream, "read1") else stream.read(65536)
        if not chunk:
            break
        if size <= MAX_INPUT_BYTES:
            chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)[: MAX_INPUT_BYTES + 1], size > MAX_INPUT_BYTES


def stdin_is_terminal() -> bool:
    return sys.stdin is None or sys.stdin.isatty()


class PreRead(t.NamedTuple):
    """Stdin as read before the command line was parsed (None: not read yet)."""

    data: bytes | None
    truncated: bool = False

    def get(self) -> tuple[bytes, bool]:
        if self.data is not None:
            return self.data, self.truncated
        if sys.stdin is None:
            return b"", False
        return read_stdin()


def pre_read_stdin() -> PreRead:
    """Drain stdin first when it is a pipe or a file (DESIGN §8: a caller must never meet a
    closed pipe, whatever fails later); leave a terminal alone until input is needed."""
    if stdin_is_terminal():
        return PreRead(None)
    return PreRead(*read_stdin())
