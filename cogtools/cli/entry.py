"""The ``cogtools`` command's entry point: ``cogtools --version`` answers before click and the
porcelain are imported (they cost more than the interpreter's own start-up); anything else is
:func:`cogtools.cli.porcelain.main`."""

from __future__ import annotations

import sys


def main() -> int:
    if sys.argv[1:] in (["--version"], ["-V"]):
        from cogtools import __version__

        sys.stdout.write(f"cogtools {__version__}\n")
        return 0
    from cogtools.cli.porcelain import main as porcelain

    return porcelain()
