"""What cogtools writes for Gemini CLI: the tool commands in ``.gemini/settings.json`` and the
table of tools in ``GEMINI.md``: functions from old text to new text (the caller writes), and
the commands to write, as Gemini CLI will find them on its PATH."""

from __future__ import annotations

import re
import typing as t
from pathlib import Path

from cogtools.errors import ConfigInvalidError

if t.TYPE_CHECKING:
    from cogtools.model import Tool

#: The commands cogtools writes when they are on PATH, and what an earlier init wrote.
DISCOVER = "cogtools-discover"
CALL = "cogtools-call"
#: The prefix Gemini CLI gives a discovered tool's name.
PREFIX = "discovered_tool_"

BEGIN = "<!-- cogtools:tools:begin (written by `cogtools sync`; edits inside are replaced) -->"
END = "<!-- cogtools:tools:end -->"
_BEGIN_MARK = "<!-- cogtools:tools:begin"


class Commands(t.NamedTuple):
    """``tools.discoveryCommand`` and ``tools.callCommand`` as Gemini CLI will spawn them."""

    discovery: str
    call: str
    #: Why a command is a full path rather than a bare name (or will not be found), a line each.
    notes: tuple[str, ...] = ()

    def settings(self) -> dict[str, str]:
        return {"discoveryCommand": self.discovery, "callCommand": self.call}


def spawnable_commands(search_path: str | None, scripts: t.Sequence[Path]) -> Commands:
    """The commands to write for Gemini CLI: the bare names where ``search_path`` (the PATH
    Gemini will have) finds this very installation's scripts, else their absolute paths (from
    the first of ``scripts`` that holds them). The discovery command is split like a shell
    would split it, so its path is quoted; the call command is spawned as it is, so it is not."""
    import shlex
    import shutil

    values = []
    notes = []
    for name in (DISCOVER, CALL):
        ours = next((directory / name for directory in scripts if (directory / name).is_file()), None)
        found = shutil.which(name, path=search_path)
        if ours is None or (found is not None and _same_file(found, ours)):
            if found is None:
                notes.append(f"{name}: neither PATH nor this installation has it; Gemini CLI will not find it")
            values.append(name)
            continue
        where = f"PATH finds another one, {found}" if found else "it is not on PATH"
        notes.append(f"{name}: {where}; wrote its full path, {ours}")
        values.append(shlex.quote(str(ours)) if name == DISCOVER else str(ours))
    return Commands(values[0], values[1], tuple(notes))


def _same_file(a: str | Path, b: str | Path) -> bool:
    import os

    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


class Merge(t.NamedTuple):
    text: str
    #: Keys whose existing value differs from cogtools' and was kept (empty when forced).
    kept: tuple[str, ...]


def read_settings(old: str | None, path: str) -> dict[str, t.Any]:
    """The settings in ``old`` ({} for none), read as Gemini CLI reads them (comments allowed,
    trailing commas not); CONFIG_INVALID, file untouched, when it is not an object whose
    ``tools`` is an object."""
    from cogtools import jsonc

    settings: t.Any = {}
    if old is not None and old.strip():
        try:
            settings = jsonc.loads(old)
        except jsonc.JsoncError as e:
            where = f" at line {e.line} column {e.column}" if e.line else ""
            raise ConfigInvalidError(
                f"not valid JSON ({e.message}{where}); Gemini CLI reads comments but nothing else that JSON lacks"
                " (no trailing commas), and stops at start-up on this file too; left untouched",
                path=path,
                line=e.line,
            ) from e
        if not isinstance(settings, dict):
            raise ConfigInvalidError("the settings are not a JSON object; left untouched", path=path)
    if not isinstance(settings.get("tools", {}), dict):
        raise ConfigInvalidError("`tools` is not an object; left untouched", path=path, key_path=("tools",))
    return t.cast("dict[str, t.Any]", settings)


def edit_settings(old: str | None, path: str, changes: t.Sequence[tuple[tuple[str, ...], t.Any]]) -> str:
    """``old`` with each ``(key path, value)`` of ``changes`` set, and every other byte as it was
    (comments included); a new file when ``old`` is empty. Where a change would lose a comment,
    CONFIG_INVALID naming the keys to add by hand, and nothing is changed."""
    import json

    from cogtools import jsonc

    if not changes:
        return old or ""
    if old is None or not old.strip():
        document: dict[str, t.Any] = {}
        for key_path, value in changes:
            target = document
            for key in key_path[:-1]:
                target = target.setdefault(key, {})
            target[key_path[-1]] = value
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    text = old
    try:
        for key_path, value in changes:
            text = jsonc.set_value(text, key_path, value)
    except jsonc.CannotEdit as e:
        wanted = {".".join(key_path): value for key_path, value in changes}
        raise ConfigInvalidError(
            f"cannot change it without losing what a person wrote ({e.reason}); left untouched."
            f" Set these keys by hand: {json.dumps(wanted, ensure_ascii=False)}",
            path=path,
            details={"reason": "cannot_edit", "set": wanted},
        ) from e
    return text


def merge_settings(old: str | None, path: str, commands: Commands, *, force: bool = False) -> Merge:
    """``settings.json`` with ``tools.discoveryCommand`` and ``tools.callCommand`` set; every key
    already there survives. A value a person set differently is kept unless ``force``; the bare
    names an earlier ``cogtools init`` wrote are cogtools' own, and replaced."""
    tools = read_settings(old, path).get("tools", {})
    kept = []
    changes = []
    for key, value in commands.settings().items():
        if key not in tools or tools[key] == value:
            if key not in tools:
                changes.append((("tools", key), value))
            continue
        if force or tools[key] == {"discoveryCommand": DISCOVER, "callCommand": CALL}[key]:
            changes.append((("tools", key), value))
        else:
            kept.append(f"tools.{key}")
    return Merge(edit_settings(old, path, changes), tuple(kept))


def merge_allowed(old: str | None, path: str, ours: t.Sequence[str], before: t.Sequence[str]) -> str:
    """``settings.json`` whose ``tools.allowed`` holds exactly ``ours`` among the entries cogtools
    manages (``before``: what it wrote last time), and every entry a person wrote."""
    tools = read_settings(old, path).get("tools", {})
    allowed = tools.get("allowed", [])
    if not isinstance(allowed, list) or not all(isinstance(e, str) for e in allowed):
        raise ConfigInvalidError(
            "`tools.allowed` is not a list of names; left untouched", path=path, key_path=("tools", "allowed")
        )
    kept = [entry for entry in allowed if entry not in before or entry in ours]
    merged = kept + [name for name in ours if name not in kept]
    if merged == allowed and ("allowed" in tools or not merged):
        return old or ""
    return edit_settings(old, path, [(("tools", "allowed"), merged)])


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
