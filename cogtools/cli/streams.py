"""A plumbing command's stdin and stdout: stdin read whole (up to the input limit), a result
written byte for byte.

This module imports nothing costly: a call answered from its record (:mod:`cogtools.cli.warm`)
reads and writes with it, and so does every other command (through :mod:`cogtools.cli.boundary`).
"""

from __future__ import annotations

import sys


class OutputLost(Exception):
    """Stdout cannot be written (closed, full, a device error): the result cannot be delivered."""


def encode(text: str) -> bytes:
    """UTF-8; text that is not valid Unicode (a lone surrogate from a file name or the command
    line) as a ``\\udcxx`` escape, which inside a JSON string is the same character again."""
    return text.encode("utf-8", "backslashreplace")


def write_stdout(text: str) -> None:
    """Write ``text`` to stdout now; OutputLost when it cannot be (BrokenPipeError, the reader
    having gone, passes as it is)."""
    stream = sys.stdout
    if stream is None:
        raise OutputLost("stdout is closed")
    try:
        stream.buffer.write(encode(text))
        stream.buffer.flush()
    except BrokenPipeError:
        raise
    except (OSError, ValueError) as e:
        raise OutputLost(getattr(e, "strerror", None) or str(e)) from e


def write_result(text: str, media_type: str | None = None) -> None:
    """A tool's result on stdout: byte for byte to a pipe or a file (what Gemini CLI and a
    script receive), with a final newline added on a terminal, so the prompt is not glued to it.
    The result of a tool that prints bytes of a ``media_type`` (carried as base64) is those bytes
    to a pipe or a file, and stays base64 on a terminal, which would take them for commands."""
    stream = sys.stdout
    if media_type is not None and stream is not None and not stream.isatty():
        import base64

        try:
            stream.buffer.write(base64.b64decode(text))
            stream.buffer.flush()
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as e:
            raise OutputLost(getattr(e, "strerror", None) or str(e)) from e
        return
    if text and not text.endswith("\n") and stream is not None and stream.isatty():
        text += "\n"
    write_stdout(text)


def read_stdin() -> tuple[bytes, bool]:
    """All of stdin, up to the input limit, and whether it went past the limit.

    Everything is read, past the limit too, so that a writer (Gemini CLI) never meets a closed
    pipe; what is past the limit is discarded as it arrives.
    """
    from cogtools.core.limits import MAX_INPUT_BYTES

    if sys.stdin is None:
        return b"", False
    stream = sys.stdin.buffer
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = stream.read(65536)
        if not chunk:
            break
        if size <= MAX_INPUT_BYTES:
            chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks), size > MAX_INPUT_BYTES
