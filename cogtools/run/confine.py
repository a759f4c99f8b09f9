"""Confining a tool's program to the side effects it declares (DESIGN §11: a tool can do only
what it declares).

A tool that declares ``side_effects`` makes a claim that policy, ``tools.allowed`` and MCP
clients' auto-approval rely on; on Linux, its programs run under bubblewrap (``bwrap``, from the
distribution, in a user namespace: nothing privileged) in a file system view made from that
claim (:func:`arguments`):

- the system's directories (``/usr``, ``/etc``, ``/opt``, ``/var``...) read-only; ``/dev`` a
  minimal one; ``/tmp`` and the home directory private and empty (a tmpfs, lost when the program
  ends); ``/run``, ``/home``, ``/root``, ``/mnt``, ``/media``, ``/srv`` and whatever else is not
  a system directory absent;
- the directories of the programs it may run read-only (each ``PATH`` entry and the program's own
  prefix, ``~/.pyenv`` or ``.venv`` say), but the credentials files found there;
- the files it runs itself (its script, the scripts its command names) read-only;
- ``filesystem_read``: the project root, read-only, and the user's ``sandbox.read`` paths;
- ``filesystem_write``: the project root writable, and the user's ``sandbox.write`` paths;
- without ``network``: a network namespace of its own, with only a loopback of its own (no TCP,
  no UDP, no abstract socket, nothing listening on the host's 127.0.0.1 is reachable);
- without ``process``: a PID namespace of its own, so that no process outside the call can be
  seen, signalled or traced.

Every capability is dropped, so a program running as root cannot undo the view. A tool that
declares no ``side_effects`` makes no claim (it may do anything) and runs as it always did.

Where bubblewrap is missing or cannot make its namespaces (macOS, a container that forbids user
namespaces), the user's ``sandbox.unconfined`` decides what happens to a tool that runs without
confirmation (``refuse``, the default, or ``warn``); a project's configuration cannot.
"""

from __future__ import annotations

import os
import typing as t

if t.TYPE_CHECKING:
    from cogtools.model import Tool
    from cogtools.project import Project

#: The system's directories a confined program sees, read-only (each one that exists; a link,
#: such as ``/bin`` to ``usr/bin``, is made again as a link).
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/var", "/nix", "/sys")
#: Files that hold credentials, hidden even inside a program's prefix that is shown (a toolchain
#: under the home directory keeps its registry tokens there: ``~/.cargo/credentials.toml``).
CREDENTIALS = (
    "credentials",
    "credentials.toml",
    ".credentials.json",
    ".netrc",
    ".npmrc",
    ".pypirc",
    "auth.json",
    ".git-credentials",
)
#: The names of PATH entries whose parent is a program's prefix (``~/.pyenv/shims``: the shim
#: runs ``~/.pyenv/libexec/pyenv``, which runs ``~/.pyenv/versions/...``).
PREFIX_CHILDREN = ("bin", "sbin", "shims")
#: The size of a confined program's private ``/tmp`` and home directory unless the user's
#: ``sandbox.tmp_size`` says otherwise (each is held in memory).
TMP_SIZE = 1024 * 1024 * 1024
#: The side effects confinement enforces (``registry`` is Windows').
ENFORCED = ("filesystem_read", "filesystem_write", "network", "process")


class Confinement(t.NamedTuple):
    """What a tool's program may do, from what it declares and the user's ``sandbox`` paths."""

    #: Paths it may read besides the system's and its own files (real paths).
    read: tuple[str, ...]
    #: Paths it may write (real paths).
    write: tuple[str, ...]
    network: bool
    process: bool
    #: The size of its private /tmp and home, in bytes.
    tmp_size: int = TMP_SIZE

    def summary(self) -> str:
        """In words, for ``list``, ``which``, ``--dry-run`` and ``doctor``: ``writes the project;
        no network; no other processes``."""
        writes = "writes nothing outside a private /tmp" if not self.write else "writes the project only"
        reads = "reads the project" if self.read or self.write else "reads nothing of the project"
        return "; ".join(
            [
                reads,
                writes,
                "network" if self.network else "no network",
                "sees other processes" if self.process else "sees no other process",
            ]
        )


def settings(project: Project) -> dict[str, t.Any]:
    """The user's ``sandbox`` settings (a project's file cannot set them: they are read from
    what the defaults and the user's own file make)."""
    setting = project.config.trusted.get("sandbox")
    return dict(setting.value) if setting is not None else {}


def declared(tool: Tool) -> frozenset[str] | None:
    """The side effects ``tool`` declares, or None when it declares none (no claim to enforce)."""
    effects = tool.metadata.side_effects
    return None if effects is None else frozenset(effects)


def confinement(tool: Tool, project: Project) -> Confinement | None:
    """How ``tool``'s programs are confined in ``project``; None when the tool makes no claim (it
    declares no ``side_effects``). Whether the system can is :func:`available`'s question."""
    effects = declared(tool)
    if effects is None:
        return None
    user = settings(project)
    home = project.environ.get("HOME", "")
    root = os.path.realpath(project.root)

    def paths(key: str) -> tuple[str, ...]:
        return tuple(os.path.realpath(_expand(entry, home)) for entry in user.get(key, ()))

    write = (root, *paths("write")) if "filesystem_write" in effects else ()
    read = (root, *paths("read")) if "filesystem_read" in effects else ()
    return Confinement(read, write, "network" in effects, "process" in effects, int(user.get("tmp_size", TMP_SIZE)))


def _expand(entry: str, home: str) -> str:
    if entry == "~" or entry.startswith("~/"):
        return home + entry[1:] if home else entry
    return entry


#: Why a system cannot confine a program, in words.
CANNOT_CONFINE = "this system cannot confine programs (that needs Linux, bubblewrap and user namespaces)"


def describe(rules: Confinement | None) -> str:
    """How a program runs, in words: ``confined: ...`` (:meth:`Confinement.summary`), or why not."""
    if rules is None:
        return "not confined: it declares no side_effects, so it may do anything"
    if not available():
        return f"not confined: {CANNOT_CONFINE}"
    return "confined: " + rules.summary()


def available() -> bool:
    """Whether programs can be confined here (Linux, with a bubblewrap that can make namespaces)."""
    from cogtools.run.bind import bwrap

    return bwrap() is not None


def arguments(
    rules: Confinement, *, runs: t.Sequence[str], cwd: str, environ: t.Mapping[str, str], program: str
) -> list[str]:
    """bubblewrap's arguments that make the view ``rules`` allow (see the module's text) for a
    program ``program`` that runs the files ``runs`` in ``cwd``, with ``environ`` its
    environment; before bubblewrap's own ``--``."""
    home = environ.get("HOME", "")
    shown = [*rules.write, *rules.read]
    steps: list[tuple[str, list[str]]] = []  # (the path it makes, bubblewrap's words)
    for path in SYSTEM:
        if os.path.islink(path):
            steps.append((path, ["--symlink", os.readlink(path), path]))
        elif os.path.isdir(path):
            steps.append((path, ["--ro-bind", path, path]))
    size = ["--size", str(rules.tmp_size)]
    steps += [("/dev", ["--dev", "/dev"]), ("/tmp", [*size, "--tmpfs", "/tmp"])]
    steps.append(("/proc", ["--proc", "/proc"] if not rules.process else ["--ro-bind", "/proc", "/proc"]))
    if os.path.isabs(home) and not _covered(home, SYSTEM) and home not in ("/", "/tmp"):
        steps.append((home, [*size, "--tmpfs", home]))
    for prefix in _prefixes(environ.get("PATH", ""), program, runs, home):
        if not _covered(prefix, [*SYSTEM, *shown]):
            steps.append((prefix, ["--ro-bind", prefix, prefix]))
            steps += [(secret, ["--ro-bind", "/dev/null", secret]) for secret in _credentials(prefix)]
    for path in rules.read:
        if os.path.exists(path) and path not in rules.write:
            steps.append((path, ["--ro-bind", path, path]))
    for path in rules.write:
        if os.path.exists(path):
            steps.append((path, ["--bind", path, path]))
    for path in runs:
        real = os.path.realpath(path)
        if os.path.exists(real) and not _covered(real, [*SYSTEM, *shown]):
            steps.append((real, ["--ro-bind", real, real]))
    if not _covered(cwd, [*SYSTEM, *shown]):
        steps.append((cwd, ["--dir", cwd]))  # an empty one: what it is in is not the tool's to read
    steps.sort(key=lambda step: _depth(step[0]))  # a directory is made before what is inside it
    out = [word for _, words in steps for word in words]
    out += ["--remount-ro", "/"]  # the root bubblewrap made holds nothing to write to
    if not rules.network:
        out.append("--unshare-net")
    if not rules.process:
        out += ["--unshare-pid", "--unshare-ipc"]
    return [*out, "--cap-drop", "ALL", "--setenv", "TMPDIR", "/tmp", "--chdir", cwd]


def _depth(path: str) -> int:
    return path.rstrip(os.sep).count(os.sep)


def _covered(path: str, by: t.Iterable[str]) -> bool:
    """Whether ``path`` is one of ``by`` or inside one."""
    return any(path == top or path.startswith(top.rstrip(os.sep) + os.sep) for top in by)


def _prefixes(search_path: str, program: str, runs: t.Sequence[str], home: str) -> list[str]:
    """The directories a program needs to start that are not the system's: each PATH entry's
    prefix, the prefix of ``program`` (found on PATH, its links followed) and of the interpreter
    a file it runs names in its ``#!`` line."""
    import shutil

    found: list[str] = []
    entries = [entry for entry in search_path.split(os.pathsep) if os.path.isabs(entry)]
    named = [program, *runs]
    located = [shutil.which(program, path=search_path) if os.sep not in program else program]
    for file in named[1:] + [p for p in located if p]:
        interpreter = _shebang(file)
        if interpreter:
            located.append(interpreter)
    for path in located:
        if path:
            entries += [os.path.dirname(os.path.abspath(path)), os.path.dirname(os.path.realpath(path))]
    for entry in entries:
        entry = os.path.normpath(entry)
        if not os.path.isdir(entry):
            continue
        prefix = os.path.dirname(entry) if os.path.basename(entry) in PREFIX_CHILDREN else entry
        if prefix in ("/", home) or prefix == os.path.join(home, ".local"):
            prefix = entry  # ~/bin, ~/.local/bin: the directory itself, not the home around it
        real = os.path.realpath(prefix)
        for each in dict.fromkeys((prefix, real)):
            if each not in found and each != home:
                found.append(each)
    return found


def _shebang(path: str) -> str | None:
    """The interpreter a file's ``#!`` line names, when it is an absolute path."""
    try:
        with open(path, "rb") as f:
            line = f.readline(256)
    except OSError:
        return None
    if not line.startswith(b"#!"):
        return None
    words = line[2:].split()
    return os.fsdecode(words[0]) if words and words[0].startswith(b"/") else None


def _credentials(prefix: str) -> list[str]:
    """The credentials files directly in ``prefix`` (hidden from a program that sees it)."""
    return [path for name in CREDENTIALS if os.path.isfile(path := os.path.join(prefix, name))]
