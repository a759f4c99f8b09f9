"""The table of the project's tools in ``GEMINI.md``, between markers that ``cogtools sync``
rewrites: functions from old text to new text (the caller writes)."""

from __future__ import annotations

import re
import typing as t

from cogtools.clients.gemini import PREFIX
from cogtools.trust.policy import reach

if t.TYPE_CHECKING:
    from cogtools.core.model import Tool
from cogtools.core.errors import ConfigInvalidError

BEGIN = "<!-- cogtools:tools:begin (written by `cogtools sync`; edits inside are replaced) -->"
END = "<!-- cogtools:tools:end -->"
_BEGIN_MARK = "<!-- cogtools:tools:begin"
#: For those who moved to Antigravity CLI, which reads GEMINI.md too but runs no discovery command.
ANTIGRAVITY_NOTE = (
    "Antigravity CLI reads this file too, but runs no discovery command: there these tools come from"
    " cogtools' MCP server, under the names Antigravity CLI gives them (`cogtools init --mcp antigravity`"
    " sets it up)."
)


def tools_table(tools: t.Iterable[Tool]) -> str:
    """The block of GEMINI.md that lists the tools, markers included: each with its summary, the
    risk it declares, and what it can do on this machine (:func:`cogtools.trust.policy.reach`:
    what it declares where cogtools holds it to that, never only what it says); and, for a
    person who moved to Antigravity CLI, how the tools reach it."""
    rows = [
        f"| `{PREFIX}{tool.name}` | {_cell(tool.summary())} | {tool.metadata.risk_level or 'not stated'}"
        f" | {reach(tool).short()} |"
        for tool in tools
    ]
    body = "\n".join(rows) if rows else "| (none) | | | |"
    return (
        f"{BEGIN}\n"
        "## Tools\n\n"
        "The tools of this project, served by cogtools (`cogtools list` shows where each is defined;"
        " `cogtools show TOOL`, what it can do and why):\n\n"
        "| tool | what it does | risk | can |\n"
        "|---|---|---|---|\n"
        f"{body}\n\n"
        f"{ANTIGRAVITY_NOTE}\n"
        f"{END}\n"
    )


_BEGIN_LINE = re.compile(r"^" + re.escape(_BEGIN_MARK) + r".*?\r?$", re.MULTILINE)
_END_LINE = re.compile(r"^" + re.escape(END) + r"[ \t]*\r?$", re.MULTILINE)


def update_gemini_md(old: str | None, block: str, path: str) -> str:
    """``GEMINI.md`` with the block between the markers replaced (or appended); every other line
    stays as it was. A marker counts only on a line of its own (one quoted in prose is text), and
    a file written with CRLF line endings keeps them."""
    if old is None or not old.strip():
        return block
    if "\r\n" in old:
        block = block.replace("\n", "\r\n")
    begins = list(_BEGIN_LINE.finditer(old))
    ends = list(_END_LINE.finditer(old))
    if not begins and not ends:
        newline = "\r\n" if "\r\n" in old else "\n"
        return old + ("" if old.endswith("\n") else newline) + newline + block
    if len(begins) != 1 or len(ends) != 1 or ends[0].start() < begins[0].start():
        raise ConfigInvalidError(
            "the cogtools markers are broken (one without the other, or twice); left untouched", path=path
        )
    after = ends[0].end()
    if old[after : after + 1] == "\n":
        after += 1
    return old[: begins[0].start()] + block + old[after:]


def _cell(text: str) -> str:
    return text.replace("|", "\\|")
