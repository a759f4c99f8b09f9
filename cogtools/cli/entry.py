"""The ``cogtools`` command's entry point: ``cogtools --version`` and ``cogtools --help`` answer
before click and the porcelain are imported (they cost more than the interpreter's own start-up);
anything else is :func:`cogtools.cli.porcelain.main`."""

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
