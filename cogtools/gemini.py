"""What cogtools writes for Gemini CLI: the tool commands in ``.gemini/settings.json`` and the
table of tools in ``GEMINI.md``. Pure functions from old text to new text; the caller writes."""

from __future__ import annotations

import json
import typing as t

from cogtools.errors import ConfigInvalidError

if t.TYPE_CHECKING:
    from cogtools.model import Tool

SETTINGS = {"discoveryCommand": "cogtools-discover", "callCommand": "cogtools-call"}
#: The prefix Gemini CLI gives a discovered tool's name.
PREFIX = "discovered_tool_"

BEGIN = "<!-- cogtools:tools:begin (written by `cogtools sync`; edits inside are replaced) -->"
END = "<!-- cogtools:tools:end -->"
_BEGIN_MARK = "<!-- cogtools:tools:begin"


class Merge(t.NamedTuple):
    text: str
    #: Keys whose existing value differs from cogtools' and was kept (empty when forced).
    kept: tuple[str, ...]


def merge_settings(old: str | None, path: str, *, force: bool = False) -> Merge:
    """``settings.json`` with ``tools.discoveryCommand`` and ``tools.callCommand`` set; every key
    already there survives. A value a person set differently is kept unless ``force``."""
    settings: dict[str, t.Any] = {}
    if old is not None and old.strip():
        try:
            settings = json.loads(old)
        except json.JSONDecodeError as e:
            raise ConfigInvalidError(
                f"not valid JSON ({e.msg} at line {e.lineno} column {e.colno}); left untouched"
                " (cogtools does not rewrite settings that carry comments)",
                path=path,
                line=e.lineno,
            ) from e
        if not isinstance(settings, dict):
            raise ConfigInvalidError("the settings are not a JSON object; left untouched", path=path)
    tools = settings.setdefault("tools", {})
    if not isinstance(tools, dict):
        raise ConfigInvalidError("`tools` is not an object; left untouched", path=path, key_path=("tools",))
    kept = []
    for key, value in SETTINGS.items():
        if key in tools and tools[key] != value and not force:
            kept.append(f"tools.{key}")
        else:
            tools[key] = value
    text = json.dumps(settings, indent=2, ensure_ascii=False) + "\n"
    if old is not None and not kept and json.loads(old or "{}") == settings:
        text = old  # already right: not even reformatted
    return Merge(text, tuple(kept))


def tools_table(tools: t.Iterable[Tool]) -> str:
    """The block of GEMINI.md that lists the tools, markers included."""
    rows = [
        f"| `{PREFIX}{tool.name}` | {_cell(tool.summary())} | {tool.metadata.risk_level or 'not stated'} |"
        for tool in tools
    ]
    body = "\n".join(rows) if rows else "| (none) | | |"
    return (
        f"{BEGIN}\n"
        "## Tools\n\n"
        "The tools of this project, served by cogtools (`cogtools list` shows where each is defined):\n\n"
        "| tool | what it does | risk |\n"
        "|---|---|---|\n"
        f"{body}\n"
        f"{END}\n"
    )


def update_gemini_md(old: str | None, block: str, path: str) -> str:
    """``GEMINI.md`` with the block between the markers replaced (or appended); every other line
    stays as it was."""
    if old is None or not old.strip():
        return block
    begin = old.find(_BEGIN_MARK)
    end = old.find(END)
    if begin == -1 and end == -1:
        return old + ("" if old.endswith("\n") else "\n") + "\n" + block
    if begin == -1 or end == -1 or end < begin or old.find(_BEGIN_MARK, begin + 1) != -1:
        raise ConfigInvalidError(
            "the cogtools markers are broken (one without the other, or twice); left untouched", path=path
        )
    after = end + len(END)
    if old[after : after + 1] == "\n":
        after += 1
    return old[:begin] + block + old[after:]


def _cell(text: str) -> str:
    return text.replace("|", "\\|")
