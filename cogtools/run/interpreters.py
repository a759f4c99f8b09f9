"""How a script tool is run when its first line names no interpreter: by its suffix; and how a
TypeScript script runs on the node the call finds (:func:`typescript`)."""

from __future__ import annotations

import functools
import os
import re
import typing as t
from pathlib import Path

from cogtools.core.errors import ExecutionFailedError

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
    # Node 22.6+ strips the types itself (23.6+ and 22.18+ without the flag, which they still
    # take); the flag's warning would be the tool's stderr.
    ".ts": TYPESCRIPT,
    ".mts": TYPESCRIPT,
    ".cts": TYPESCRIPT,
}

#: The first Node.js that strips TypeScript's types itself.
NODE_STRIPS_TYPES = (22, 6)
#: What runs a TypeScript script where node cannot: the project's own tsx.
TSX = Path("node_modules") / ".bin" / "tsx"
#: What a TypeScript tool needs, said by lint, sync and a call alike.
NEEDS = "Node.js 22.6 or newer, or tsx in the project (npm install --save-dev tsx)"


class Unsupported(t.NamedTuple):
    """Why a TypeScript script cannot run here: the node found and its version."""

    node: str
    version: tuple[int, ...]

    def message(self, *, needs: bool = True) -> str:
        found = (
            f"the node on PATH is {'.'.join(map(str, self.version))}, which cannot run TypeScript,"
            f" and the project has no {TSX}"
        )
        return f"{found}: a TypeScript tool needs {NEEDS}" if needs else found


def typescript(script: Path, root: Path, path: str | None) -> list[str] | Unsupported:
    """The command that runs the TypeScript ``script`` of the project at ``root`` with ``path``
    (the call's PATH): node stripping the types where it can (22.6 or newer, or a node that does
    not say its version, which then says what it lacks), else the tsx nearest the script in the
    project (``node_modules/.bin/tsx``), else :class:`Unsupported`."""
    import shutil

    node = shutil.which("node", path=path if path is not None else os.defpath)
    version = node_version(node) if node is not None else None
    if node is None or version is None or version >= NODE_STRIPS_TYPES:
        return TYPESCRIPT
    from cogtools.core.fsutil import workspace_root

    top = workspace_root(root) or root  # (a workspace hoists tsx to its root)
    for directory in (script.parent, *script.parent.parents):
        loader = _tsx_loader(directory / "node_modules" / "tsx")
        if loader is not None:
            return ["node", f"--import={loader}"]
        if directory == top or top not in directory.parents:
            break
    return Unsupported(node, version)


def _tsx_loader(installed: Path) -> Path | None:
    """The module of the tsx package installed at ``installed`` (``node_modules/tsx``, where node
    finds it: pnpm's link to its store, a workspace root's hoisted one) which teaches node
    TypeScript (its export ``"."``), or None. Node loads it with ``--import``: tsx's own command
    starts a server on a socket, which a confined tool may not."""
    import json

    try:
        package = Path(os.path.realpath(installed))
        manifest = json.loads((package / "package.json").read_text(encoding="utf-8"))
        exported = manifest.get("exports", {}).get(".", "./dist/loader.mjs")
    except (OSError, ValueError, AttributeError):
        return None
    if isinstance(exported, dict):
        exported = exported.get("import", exported.get("default"))
    loader = package / exported if isinstance(exported, str) and manifest.get("name") == "tsx" else None
    return loader if loader is not None and loader.is_file() and package in loader.resolve().parents else None


#: The most packages of tsx's dependencies :func:`packages` follows.
MAX_PACKAGES = 64


def packages(loader: Path) -> list[Path]:
    """The directories of the package whose module ``loader`` is, and of the packages it needs
    (``dependencies`` and ``optionalDependencies`` installed, found as node finds them: in the
    ``node_modules`` of each directory above), which a confined tool run through tsx is shown
    read-only, as the rest of the program that runs it; bounded by :data:`MAX_PACKAGES`."""
    import json

    package = next((d for d in loader.parents if (d / "package.json").is_file()), None)
    found: list[Path] = []
    todo = [package] if package is not None else []
    while todo and len(found) < MAX_PACKAGES:
        directory = todo.pop()
        if directory in found:
            continue
        found.append(directory)
        try:
            manifest = json.loads((directory / "package.json").read_text(encoding="utf-8"))
            needs = [*manifest.get("dependencies", {}), *manifest.get("optionalDependencies", {})]
        except (OSError, ValueError, AttributeError, TypeError):
            continue
        for name in needs:
            where = next(
                (d / "node_modules" / name for d in directory.parents if (d / "node_modules" / name).is_dir()), None
            )
            if where is not None:
                todo.append(where.resolve())
    return found


def runnable(interpreter: t.Sequence[str], script: Path, root: Path, path: str | None) -> list[str]:
    """The command that runs ``script`` by ``interpreter`` (its suffix's, or its shebang's):
    TypeScript's as :func:`typescript` finds it; EXECUTION_FAILED saying what is needed when
    nothing here can run it."""
    if list(interpreter) != TYPESCRIPT:
        return list(interpreter)
    found = typescript(script, root, path)
    if isinstance(found, Unsupported):
        raise ExecutionFailedError(
            f"cannot run {script.name}: {found.message()}",
            details={"needs": NEEDS, "node": found.node, "node_version": ".".join(map(str, found.version))},
        )
    return found


def node_version(node: str) -> tuple[int, ...] | None:
    """The version of the Node.js at ``node`` (None when it does not say), asked once for each
    binary as it is (its real path, size and time: an upgrade asks again)."""
    try:
        real = os.path.realpath(node)
        info = os.stat(real)
    except OSError:
        return None
    return _asked(real, info.st_size, info.st_mtime_ns, info.st_ino)


@functools.lru_cache(maxsize=16)
def _asked(node: str, size: int, mtime: int, inode: int) -> tuple[int, ...] | None:
    import subprocess

    try:
        done = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.fullmatch(r"v(\d+)\.(\d+)\.(\d+)\s*", done.stdout)
    return tuple(int(part) for part in match.groups()) if match else None
