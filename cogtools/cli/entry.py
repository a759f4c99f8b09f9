"""The ``cogtools`` command's entry point: ``cogtools --version`` and ``cogtools --help`` answer
before click and the porcelain are imported (they cost more than the interpreter's own start-up),
and so does a stdio MCP server started as clients start it (:mod:`cogtools.cli.mcp_stdio`: its
first answers are awaited); anything else is :func:`cogtools.cli.porcelain.main`."""

from __future__ import annotations

import sys


def main() -> int:
    args = sys.argv[1:]
    if args in (["--version"], ["-V"]):
        from cogtools import __version__

        return _write(f"cogtools {__version__}\n")
    if args in (["--help"], ["-h"]):
        from cogtools.cli.commands import top_level_help

        return _write(top_level_help())
    if args[:1] == ["mcp"]:
        from cogtools.cli import mcp_stdio

        status = mcp_stdio.main(args[1:])
        if status is not None:
            return status
    from cogtools.cli.porcelain import main as porcelain

    return porcelain()


def _write(text: str) -> int:
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader has gone (``cogtools --help | head -1``): not an error
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0
