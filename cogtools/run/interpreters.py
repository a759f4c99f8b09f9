"""How a script tool is run when its first line names no interpreter: by its suffix."""

from __future__ import annotations

TYPESCRIPT = ["node", "--experimental-strip-types", "--disable-warning=ExperimentalWarning"]
#: How a script without a shebang is run, by its suffix; the script's path follows.
INTERPRETERS: dict[str, list[str]] = {
    ".ps1": ["pwsh", "-NoProfile", "-NonInteractive", "-File"],
    ".sh": ["sh"],
    ".bash": ["bash"],
    ".py": ["python3"],
    ".js": ["node"],
    ".mjs": ["node"],
    ".cjs": ["node"],
    # Node 22.6+ strips the types itself (23.6+ without the flag); the flag's warning would be
    # the tool's stderr.
    ".ts": TYPESCRIPT,
    ".mts": TYPESCRIPT,
    ".cts": TYPESCRIPT,
}
