"""What cogtools writes for Gemini CLI: the tool commands in ``.gemini/settings.json`` and the
table of tools in ``GEMINI.md``. Pure functions from old text to new text; the caller writes."""

from __future__ import annotations

import json
import re
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


def _parse_settings(old: str | None, path: str) -> dict[str, t.Any]:
    """The settings object in ``old`` ({} for none); CONFIG_INVALID, file untouched, when it is
    not a JSON object whose ``tools`` is an object."""
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
    if not isinstance(settings.get("tools", {}), dict):
        raise ConfigInvalidError("`tools` is not an object; left untouched", path=path, key_path=("tools",))
    return settings


def _dump(old: str | None, settings: dict[str, t.Any]) -> str:
    """The new text of settings.json; the old text itself when nothing changed."""
    if old is not None and old.strip() and json.loads(old) == settings:
        return old
    return json.dumps(settings, indent=2, ensure_ascii=False) + "\n"


def merge_settings(old: str | None, path: str, *, force: bool = False) -> Merge:
    """``settings.json`` with ``tools.discoveryCommand`` and ``tools.callCommand`` set; every key
    already there survives. A value a person set differently is kept unless ``force``."""
    settings = _parse_settings(old, path)
    tools = settings.setdefault("tools", {})
    kept = []
    for key, value in SETTINGS.items():
        if key in tools and tools[key] != value and not force:
            kept.append(f"tools.{key}")
        else:
            tools[key] = value
    return Merge(_dump(old, settings), tuple(kept))


def merge_allowed(old: str | None, path: str, ours: t.Sequence[str], before: t.Sequence[str]) -> str:
    """``settings.json`` whose ``tools.allowed`` holds exactly ``ours`` among the entries cogtools
    manages (``before``: what it wrote last time), and every entry a person wrote."""
    settings = _parse_settings(old, path)
    tools = settings.get("tools", {})
    allowed = tools.get("allowed", [])
    if not isinstance(allowed, list) or not all(isinstance(e, str) for e in allowed):
        raise ConfigInvalidError("`tools.allowed` is not a list of names; left untouched", path=path, key_path=("tools", "allowed"))
    kept = [entry for entry in allowed if entry not in before or entry in ours]
    merged = kept + [name for name in ours if name not in kept]
    if merged or "allowed" in tools:
        settings.setdefault("tools", {})["allowed"] = merged
    return _dump(old, settings)


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
