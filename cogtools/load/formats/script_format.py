"""Tool metadata in a header inside a script: the script is the tool's implementation.

Two header conventions, both YAML with the keys of any tool file:

- PowerShell (seed 000): the first ``<# ... #>`` comment block. Its PowerShell help sections
  (``.SYNOPSIS`` and the like, and their indented text) come first and stay valid help; the YAML
  starts at the first unindented ``key:`` line and runs to ``#>``. In seed 000's header ``id`` is
  the identifier and ``name`` a human title.
- Shell, Python and other ``#``-comment languages: a comment line that is exactly
  ``# cogtools-tool`` starts the header; the ``#`` comment lines that follow, with ``# `` (or
  ``#``) taken off, are the YAML; the first line that is not a comment, or a bare ``#`` line,
  ends it (so that prose comments may follow after a bare ``#``).
- JavaScript and TypeScript (``.js``, ``.mjs``, ``.cjs``, ``.ts``, ``.mts``, ``.cts``): the same
  with ``//`` line comments: ``// cogtools-tool``, then ``// `` lines. They run with ``node``;
  TypeScript with Node's own type stripping (Node 22.6 or newer: ``cogtools lint`` says when the
  ``node`` on the PATH is older).

A script without a header is not a tool and is skipped quietly. The implementation is the script
itself (kind ``script``); a header may still say ``implementation: {kind: script, timeout: ...}``.
"""

from __future__ import annotations

import re
import shlex
import typing as t
from pathlib import Path

import yaml

from cogtools.core.yamlio import load_located
from cogtools.load.formats import LoadResult
from cogtools.load.formats.build import build_tool, decode, yaml_error
from cogtools.run.interpreters import INTERPRETERS

_YAML_START = re.compile(r"[A-Za-z_$][A-Za-z0-9_$-]*:(\s|$)")

#: The suffixes whose comments are ``//`` lines.
SLASH_COMMENTS = frozenset((".js", ".mjs", ".cjs", ".ts", ".mts", ".cts"))


class Header(t.NamedTuple):
    text: str
    #: The line of the file where the YAML starts (1-based).
    first_line: int


def find_header(text: str, suffix: str) -> Header | None:
    lines = text.splitlines()
    if suffix == ".ps1":
        return _powershell_header(lines)
    return _comment_header(lines, "//" if suffix in SLASH_COMMENTS else "#")


def _powershell_header(lines: list[str]) -> Header | None:
    start = next((i for i, line in enumerate(lines) if line.strip().startswith("<#")), None)
    if start is None:
        return None
    end = next((i for i in range(start, len(lines)) if "#>" in lines[i]), None)
    if end is None:
        return None
    body = lines[start + 1 : end]
    first = next((i for i, line in enumerate(body) if _YAML_START.match(line)), None)
    if first is None:
        return None
    return Header("\n".join(body[first:]) + "\n", start + 2 + first)


def _comment_header(lines: list[str], mark: str) -> Header | None:
    """The header that a ``MARK cogtools-tool`` line starts, in ``MARK`` line comments."""
    start = next((i for i, line in enumerate(lines) if line.rstrip() == f"{mark} cogtools-tool"), None)
    if start is None:
        return None
    body = []
    width = len(mark)
    for line in lines[start + 1 :]:
        if not line.startswith(mark) or not line[width:].strip():
            break
        body.append(line[width + 1 :] if line.startswith(mark + " ") else line[width:])
    return Header("\n".join(body) + "\n", start + 2)


def interpreter(text: str, suffix: str) -> list[str] | None:
    """The command that runs the script: its shebang, else the one for its suffix."""
    first = text.split("\n", 1)[0]
    if first.startswith("#!"):
        return shlex.split(first[2:].strip())
    return INTERPRETERS.get(suffix)


def load(path: Path, data: bytes, *, display_path: str, source: str) -> LoadResult:
    text = decode(data, display_path)
    header = find_header(text, path.suffix.lower())
    if header is None:
        return LoadResult(())
    try:
        parsed, locate = load_located(header.text)
    except yaml.YAMLError as e:
        error = yaml_error(e, display_path, header.text)
        line = error.line + header.first_line - 1 if error.line is not None else None
        raise error.replace(line=line, tool=path.stem) from e
    if isinstance(parsed, dict):
        implementation = parsed.get("implementation", {"kind": "script"})
        if isinstance(implementation, dict) and implementation.get("kind") == "script":
            parsed = {
                **parsed,
                "implementation": {
                    **implementation,
                    "path": str(path.resolve()),
                    "interpreter": interpreter(text, path.suffix.lower()),
                },
            }
    tool, warnings = build_tool(
        parsed,
        display_path=display_path,
        fmt="script",
        source=source,
        stem=path.stem,
        locate=lambda key_path, value=False: _shift(locate(key_path, value), header.first_line),
    )
    return LoadResult((tool,), tuple(warnings))


def _shift(line: int | None, first_line: int) -> int | None:
    return None if line is None else line + first_line - 1
