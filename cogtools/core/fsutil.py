"""Reading and writing the files cogtools maintains.

Writing never leaves half a file: the text goes to a temporary file beside the target, is
flushed to disk, and is renamed over the target. A symbolic link is written through (its target
is replaced, the link stays: ``GEMINI.md -> AGENTS.md`` is common), but only to a target inside
the directory the write is ``within`` (the project root): the workspace is the agent's to write,
links included, and a link it planted must not make a person's ``cogtools sync`` replace a file
elsewhere. The directory that receives the file is opened without following any link on the
way, so a link swapped in after the check refuses the write instead of redirecting it. A file
keeps its mode, and a new one gets the umask's; a read-only file is refused, not replaced. A
file cogtools owns in the user's directories (:func:`write_private`) is never written through a
link: the link is replaced.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import re
import stat
import typing as t
from pathlib import Path


class ReadOnly(PermissionError):
    """The target is read-only: cogtools does not override a person's decision."""


class LeavesRoot(PermissionError):
    """A symbolic link on the way to the file leads outside the directory the write is within;
    ``filename`` is the path as given (the link), never what it points to."""


def write_atomic(path: Path, text: str, *, within: Path | None, mode: int | None = None) -> None:
    """Replace the file at ``path`` (through symbolic links) with ``text`` (UTF-8) in one step.

    ``within``: the directory (the project root) the file must really be in, whatever links lead
    to it; LeavesRoot when it is not, and nothing is written. None for a path a person named.
    The file keeps its mode; a new file gets ``mode``, else the umask's (0666 less the umask).
    Raises OSError (ReadOnly for a file without write permission); the target is then as it was.
    """
    target = Path(os.path.realpath(path))
    if within is not None:
        check_within(path, within)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        info = target.stat()
    except FileNotFoundError:
        final = _umask_mode() if mode is None else mode
    else:
        final = stat.S_IMODE(info.st_mode)
        if not final & 0o222:
            raise ReadOnly(13, "the file is read-only; left untouched", str(path))
    if within is None:
        replace_file(target, text.encode("utf-8"), final, durable=True)
        return
    try:
        directory = _open_directory(target.parent)
    except OSError as e:  # a link swapped in since the check
        raise LeavesRoot(e.errno or 40, "a link was swapped in on the way; nothing was written", str(path)) from e
    try:
        _replace_in(directory, target.name, text.encode("utf-8"), final, durable=True)
    finally:
        os.close(directory)


def under(path: str, top: str) -> bool:
    """Whether ``path`` is ``top`` or below it, as written (both absolute and normalised: real
    paths, where links matter; :func:`inside` follows them, at a look-up per component)."""
    return path == top or path.startswith(top.rstrip(os.sep) + os.sep)


def inside(path: Path | str, root: Path | str) -> bool:
    """Whether ``path``, its links followed, is ``root`` or below it (``root`` followed too: a
    project reached through a link is still the project)."""
    top = os.path.realpath(root)
    return os.path.commonpath([os.path.realpath(path), top]) == top


def check_within(path: Path, within: Path) -> None:
    """LeavesRoot unless ``path``, its links followed, is :func:`inside` ``within``."""
    if not inside(path, within):
        raise LeavesRoot(1, "nothing was written", str(path))


def _open_directory(path: Path) -> int:
    """A descriptor of the directory ``path`` (absolute, links resolved), opened one component at
    a time without following a link: OSError if one has become a link since."""
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open("/", flags)
    try:
        for part in path.parts[1:]:
            inner = os.open(part, flags, dir_fd=fd)
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def replace_file(path: Path, data: bytes, mode: int = 0o600, *, durable: bool = False) -> None:
    """The one atomic write: ``data`` goes to a new temporary file beside ``path`` (of ``mode``),
    which is renamed over ``path``, so a reader sees the old file or the new one, whole, and two
    writers each leave a whole file (the last one wins). ``path`` itself is replaced, never a
    file a link there points to. ``durable``: flushed to disk before the rename (what a person's
    file deserves; a cache does without). Raises OSError, ``path`` then as it was."""
    directory = os.open(path.parent, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        _replace_in(directory, path.name, data, mode, durable=durable)
    finally:
        os.close(directory)


def _replace_in(directory: int, name: str, data: bytes, mode: int, *, durable: bool) -> None:
    """:func:`replace_file` of the entry ``name`` of the open ``directory``."""
    for _ in range(100):
        tmp = f".{name}.{os.urandom(4).hex()}.tmp"
        try:
            fd = os.open(
                tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600, dir_fd=directory
            )
            break
        except FileExistsError:
            continue
    else:  # pragma: no cover - a hundred names taken
        raise FileExistsError(17, "no free temporary name", name)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            if durable:
                f.flush()
                os.fsync(f.fileno())
            os.fchmod(f.fileno(), mode)
        os.replace(tmp, name, src_dir_fd=directory, dst_dir_fd=directory)
    except BaseException:
        try:
            os.unlink(tmp, dir_fd=directory)
        except OSError:
            pass
        raise


def write_private(path: Path, text: str) -> bool:
    """:func:`write_atomic` for a file cogtools owns in the user's own directories (the pins,
    Gemini CLI's rules file): a new directory 0700, a new file 0600, a file there keeps its mode.
    Never through a symbolic link: the entry itself is renamed over, so a link there is replaced
    by the file and what it led to is left as it was (a reader such as Gemini CLI does not load
    a linked file at all, and a link's target can be any file of the user's). True when a link
    was replaced. Raises OSError (ReadOnly for a read-only file); the file is then as it was."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    entry = Path(os.path.realpath(path.parent)) / path.name
    try:
        info = os.lstat(entry)
    except FileNotFoundError:
        info = None
    linked = info is not None and stat.S_ISLNK(info.st_mode)
    mode = 0o600 if info is None or linked else stat.S_IMODE(info.st_mode)
    if not mode & 0o222:
        raise ReadOnly(13, "the file is read-only; left untouched", str(path))
    replace_file(entry, text.encode("utf-8"), mode, durable=True)
    return linked


def _umask_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def read_config(path: Path, limit: int | None = None) -> str | None:
    """The text of a configuration file (settings, GEMINI.md, .env, .cogtoolrc.yaml, a secret's
    file), a byte order mark included (a file rewritten keeps it): None when it does not exist;
    CONFIG_INVALID when it cannot be read, is not UTF-8, is not a regular file or is past ``limit``
    bytes (default :data:`~cogtools.core.limits.MAX_CONFIG_BYTES`). The content is never quoted."""
    from cogtools.core.errors import ConfigInvalidError
    from cogtools.core.limits import MAX_CONFIG_BYTES, FileRefused, read_file

    try:
        return read_file(path, MAX_CONFIG_BYTES if limit is None else limit).decode("utf-8")
    except FileNotFoundError:
        return None
    except FileRefused as e:
        raise ConfigInvalidError(e.message, path=str(path)) from e
    except UnicodeDecodeError as e:
        raise ConfigInvalidError(f"not UTF-8 (byte {e.start})", path=str(path)) from e
    except OSError as e:
        raise ConfigInvalidError(f"cannot read: {e.strerror}", path=str(path)) from e


def write_config(path: Path, text: str, *, within: Path | None, mode: int | None = None) -> None:
    """:func:`write_atomic`, with a failure as CONFIG_INVALID (the file is then as it was)."""
    from cogtools.core.errors import ConfigInvalidError

    try:
        write_atomic(path, text, within=within, mode=mode)
    except LeavesRoot as e:
        raise _leaves(path, e) from e
    except OSError as e:
        raise ConfigInvalidError(f"cannot write: {e.strerror}", path=str(path), details={"reason": "unwritable"}) from e


def config_within(path: Path, within: Path) -> None:
    """CONFIG_INVALID, as :func:`write_config` would raise it, unless ``path`` is really inside
    ``within``: for a command that checks every file it will write before the first."""
    try:
        check_within(path, within)
    except LeavesRoot as e:
        raise _leaves(path, e) from e


def _leaves(path: Path, e: LeavesRoot) -> Exception:
    from cogtools.core.errors import ConfigInvalidError

    return ConfigInvalidError(
        f"{path} is reached through a symbolic link that leads outside the project: {e.strerror}"
        " (replace the link with a file of its own to let cogtools write it)",
        path=str(path),
        details={"reason": "link_leaves_project"},
    )


def find_program(program: str, root: Path, environ: t.Mapping[str, str]) -> str | None:
    """Where ``program`` is when a client started in ``root`` spawns it with ``environ``'s PATH
    (a path with a slash is relative to ``root``), or None. A client started by a person has no
    package runner's directories on its PATH (:func:`without_runners`): ``npx cogtools doctor``
    judges the commands as Gemini CLI will run them, not as npx would."""
    import shutil  # fsutil is on every call's path; this is not

    if "/" in program:
        candidate = root / program
        return str(candidate) if os.access(candidate, os.X_OK) and candidate.is_file() else None
    return shutil.which(program, path=os.pathsep.join(without_runners(environ.get("PATH", os.defpath), root)))


#: The largest package.json read to tell whether it declares a workspace.
MAX_MANIFEST = 1 << 20


def project_bins(root: Path) -> list[str]:
    """The project's ``node_modules/.bin`` directories that exist, as Node's package runners
    put them on PATH: the project's own, then, in a workspace (the project is one of its
    packages), the workspace root's: the nearest directory above the project with a
    ``pnpm-workspace.yaml`` or a ``package.json`` that declares ``workspaces``, no higher than
    the repository (a ``.git``)."""

    found = [os.path.join(root, "node_modules", ".bin")]
    workspace = workspace_root(root)
    if workspace is not None:
        found.append(os.path.join(workspace, "node_modules", ".bin"))
    return [path for path in found if os.path.isdir(path)]


def repository_above(root: str) -> str:
    """The ``.git`` directory of the repository the project lies in when it lies above the project
    (a package of a workspace: git finds it upwards), as a real path; "" when there is none, it is
    the project's own, or it is no plain directory (a worktree's ``.git`` file leads anywhere)."""
    for directory in (root, *parents(root)):
        dotgit = os.path.join(directory, ".git")
        if os.path.lexists(dotgit):
            if directory == root or os.path.islink(dotgit) or not os.path.isdir(dotgit):
                return ""
            return os.path.realpath(dotgit)
    return ""


def workspace_root(root: Path) -> Path | None:
    """The root of the npm, pnpm or yarn workspace the project at ``root`` is a package of: the
    nearest directory above it with a ``pnpm-workspace.yaml`` or a ``package.json`` that declares
    ``workspaces``, no higher than the repository (a ``.git``); None when it is none's."""
    looked = _LOOKED.get()
    key = os.fspath(root)
    if looked is not None and key in looked:
        return looked[key]
    found = _workspace_root(root)
    if looked is not None:
        looked[key] = found
    return found


#: Within :func:`one_look`, the workspace roots looked for (directory -> root, or None).
_LOOKED: contextvars.ContextVar[dict[str, Path | None] | None] = contextvars.ContextVar("looked", default=None)


@contextlib.contextmanager
def one_look() -> t.Iterator[None]:
    """Within, the workspace root of a project is looked for once (:func:`workspace_root`): a
    call asks it of the same project for its PATH, its confinement and its pin, which must agree."""
    if _LOOKED.get() is not None:
        yield
        return
    token = _LOOKED.set({})
    try:
        yield
    finally:
        _LOOKED.reset(token)


def _workspace_root(root: Path) -> Path | None:
    # (strings, not paths: pathlib costs more than the system calls)
    if os.path.exists(os.path.join(root, ".git")):
        return None
    for directory in parents(root):
        if os.path.isfile(os.path.join(directory, "pnpm-workspace.yaml")) or _declares_workspaces(
            os.path.join(directory, "package.json")
        ):
            return Path(directory)
        if os.path.exists(os.path.join(directory, ".git")):
            return None
    return None


def parents(root: Path | str) -> list[str]:
    """The directories above ``root``, nearest first (as ``Path.parents`` gives them)."""
    path = os.fspath(root)
    if not os.path.isabs(path):
        return [str(parent) for parent in Path(path).parents]
    out = []
    while (parent := os.path.dirname(path)) != path:
        out.append(parent)
        path = parent
    return out


def _declares_workspaces(path: str) -> bool:
    import json

    try:
        with open(path, "rb") as file:
            data = json.loads(file.read(MAX_MANIFEST + 1)[:MAX_MANIFEST])
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(data, dict) and "workspaces" in data


def without_runners(path: str | None, root: Path) -> list[str]:
    """The entries of ``path`` but those a package runner adds for a project at ``root``: the
    ``node_modules/.bin`` of the directory it runs in and of each one above it (npx, ``npm run``,
    yarn; pnpm's own as ``./node_modules/.bin``, relative to where it runs, which may be below
    ``root``), and yarn's directory of ``node`` and ``yarn`` shims (``/tmp/yarn--N-N``, Berry's
    ``/tmp/xfs-HEX``): the PATH of whoever started the runner, as a client started by a person
    has it."""
    top = os.path.abspath(root)
    added = {os.path.join(directory, "node_modules", ".bin") for directory in (top, *parents(top))}

    def runners(entry: str) -> bool:
        full = os.path.abspath(entry)  # (relative: to where the runner runs, this process's directory)
        if full in added or _RUNNER_SHIMS.fullmatch(os.path.basename(full)):
            return True
        holder, bin_ = os.path.split(full)
        return bin_ == ".bin" and os.path.basename(holder) == "node_modules" and inside(holder, top)

    return [entry for entry in (path or "").split(os.pathsep) if entry and not runners(entry)]


#: The directories of shims yarn puts first on PATH for what it runs (classic: ``yarn--`` and two
#: numbers; Berry: ``xfs-`` and hex).
_RUNNER_SHIMS = re.compile(r"yarn--\d+-[\d.]+|xfs-[0-9a-f]+")


def call_path(path: str | None, root: Path) -> str:
    """The PATH a tool's program gets in the project at ``root``: the caller's (``path``, the
    system's default where it has none) without a package runner's ``node_modules/.bin``
    (:func:`without_runners`), then the project's (:func:`project_bins`) last, so that a
    program of the workspace, which the agent can write, never shadows one the person
    installed. The same whoever calls: npx, Gemini CLI, an MCP client."""

    entries = without_runners(os.defpath if path is None else path, root)
    return os.pathsep.join([*entries, *(bin_ for bin_ in project_bins(root) if bin_ not in entries)])
