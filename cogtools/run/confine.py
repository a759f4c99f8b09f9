"""Confining a tool's program to the side effects it declares (DESIGN §11: a tool can do only
what it declares).

A tool that declares ``side_effects`` makes a claim that policy, ``tools.allowed`` and MCP
clients' auto-approval rely on; on Linux, its programs (and a python tool's function, in its
child process) run under bubblewrap (``bwrap``, from the distribution, in a user namespace:
nothing privileged) in a file system view made from that claim (:func:`arguments`):

- the system's directories (``/usr``, ``/etc``, ``/opt``, ``/var``...) read-only; ``/dev`` a
  minimal one, read-only; ``/tmp``, ``/dev/shm`` and the home directory private and empty (a
  sized tmpfs, lost when the program ends); ``/run``, ``/home``, ``/root``, ``/mnt``,
  ``/media``, ``/srv`` and whatever else is not a system directory absent;
- the directories of the programs it may run read-only, from the person's PATH (each entry's
  prefix and the program's own, ``/opt/tool`` or ``.venv`` say; under the home directory only
  the parts that run, :data:`TOOLCHAIN`), but the credentials files found there;
- the files it runs itself (its script, the scripts its command names, its python_path)
  read-only, when they lie in the project;
- ``filesystem_read``: the project root, read-only, and the user's ``sandbox.read`` paths;
- ``filesystem_write``: the project root writable (but cogtools' own interpreter and package,
  should they lie there), and the user's ``sandbox.write`` paths;
- the tool's own ``sandbox`` paths, read or written; one in the home directory only where the
  user's settings allow it;
- without ``network``: a network namespace of its own, with only a loopback of its own (no TCP,
  no UDP, no abstract socket, nothing listening on the host's 127.0.0.1 is reachable), and a
  seccomp program that lets it make only the sockets of that namespace and pairs of connected
  unix sockets, so that no socket file it sees is reachable either (:func:`unix_socket_filter`;
  on a machine it is not made and tested for, none, which ``which`` and ``doctor`` say);
- without ``process``: a PID namespace of its own, so that no process outside the call can be
  seen, signalled or traced.

Every capability is dropped, so a program running as root cannot undo the view. A tool that
declares no ``side_effects`` makes no claim (it may do anything) and runs as it always did.

Where bubblewrap is missing or cannot make its namespaces (macOS, a container that forbids user
namespaces), the user's ``sandbox.unconfined`` decides what happens to a tool that runs without
confirmation (``refuse``, the default, or ``warn``); a project's configuration cannot.
"""

from __future__ import annotations

import functools
import os
import typing as t

from cogtools.core.fsutil import parents, repository_above, under
from cogtools.core.limits import open_regular

if t.TYPE_CHECKING:
    from cogtools.core.model import Tool
    from cogtools.load.project import Project

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
    "pip.conf",
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
    #: The project root (a real path), hidden unless read or written.
    root: str = "/nonexistent"
    #: The person's PATH (cogtools' own, never a value a tool declares): the directories of
    #: the programs a tool may run are shown from it.
    path: str = ""
    #: The person's home directory (a real path; "" when unknown), hidden.
    home: str = ""
    #: The size of its private /tmp, /dev/shm and home, in bytes.
    tmp_size: int = TMP_SIZE
    #: The root of the npm, pnpm or yarn workspace the project is a package of (a real path), else
    #: the project root: what node resolves for a JavaScript program is shown from there only
    #: (:func:`node_view`).
    workspace: str = ""
    #: The ``.git`` of the repository above the project (a workspace's package), shown read-only to
    #: a program that may read the project; "" when there is none or it lies in the project.
    repository: str = ""
    #: Whether the tool is an npm package's (a toolset's): node is shown the packages it needs
    #: wherever they are installed, the project's ``node_modules`` included (:func:`node_view`).
    package: bool = False

    def summary(self, *, sockets_filtered: bool = True) -> str:
        """In words, for ``list``, ``which``, ``--dry-run`` and ``doctor``: ``writes the project;
        no network; no other processes`` (``sockets_filtered``: whether a program without network
        runs under the socket filter, :func:`filtered`)."""
        writes = "writes nothing outside a private /tmp"
        if self.write:
            writes = "writes " + ", ".join("the project" if path == self.root else path for path in self.write)
        reads = "reads nothing of the project"
        if self.root in self.read or self.root in self.write:
            reads = "reads the project"
        also = [path for path in self.read if path != self.root and path not in self.write]
        if self.repository and (self.root in self.read or self.root in self.write):
            reads += " and its repository (read-only)"
        if also:
            reads += (" and " if reads == "reads the project" else " but ") + ", ".join(also)
        return "; ".join(
            [
                reads,
                writes,
                "network" if self.network else "no network" if sockets_filtered else f"no network but {UNFILTERED}",
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
    from cogtools.core.fsutil import call_path, workspace_root

    effects = declared(tool)
    if effects is None:
        return None
    user = settings(project)
    home = project.environ.get("HOME", "")
    root = os.path.realpath(project.root)

    def paths(entries: t.Iterable[str]) -> tuple[str, ...]:
        found = (os.path.realpath(os.path.join(root, _expand(entry, home))) for entry in entries)
        return tuple(path for path in found if path != os.sep)  # the whole system is no path to add

    users_read, users_write = paths(user.get("read", ())), paths(user.get("write", ()))
    # A path the tool declares (its `sandbox`): in the project, or outside the home directory,
    # or where the user's own settings allow; never the rest of the home directory.
    allowed = [root, *users_read, *users_write]
    owner = os.path.realpath(home) if os.path.isabs(home) else None

    def its_own(entries: t.Iterable[str]) -> tuple[str, ...]:
        return tuple(
            path for path in paths(entries) if owner is None or not _covered(path, [owner]) or _covered(path, allowed)
        )

    meta = tool.metadata
    write = ((root, *users_write) if "filesystem_write" in effects else ()) + its_own(meta.sandbox_write)
    read = ((root, *users_read) if "filesystem_read" in effects else ()) + its_own(meta.sandbox_read)
    workspace = workspace_root(project.root)
    reads_project = bool({"filesystem_read", "filesystem_write"} & effects)
    return Confinement(
        read,
        write,
        "network" in effects,
        "process" in effects,
        root,
        call_path(project.environ.get("PATH", ""), project.root),  # the PATH the call's program has
        os.path.realpath(home) if os.path.isabs(home) else "",
        int(user.get("tmp_size", TMP_SIZE)),
        os.path.realpath(workspace) if workspace is not None else root,
        repository_above(root) if reads_project else "",
        tool.origin.source.startswith("npm"),
    )


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
    return "confined: " + rules.summary(sockets_filtered=filtered())


@functools.cache
def available() -> bool:
    """Whether programs can be confined here: Linux, with a bubblewrap that can make every
    namespace a confined program runs in (:func:`cogtools.run.bind.works`: tried once, and kept)."""
    from cogtools.run.bind import bwrap, works

    path = bwrap()
    probe = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-net", "--unshare-pid"]
    return path is not None and works(path, [*probe, *NAMESPACES, "--cap-drop", "ALL"])


#: A step of the view a confined program sees: the path it makes, and bubblewrap's words for it.
_Step = tuple[str, list[str]]


def arguments(rules: Confinement, *, runs: t.Sequence[str], cwd: str, program: str) -> list[str]:
    """bubblewrap's arguments that make the view ``rules`` allow (see the module's text) for a
    program ``program`` (``argv[0]``) that runs the files ``runs`` in ``cwd``; before
    bubblewrap's own ``--``."""
    visible = [*SYSTEM, *rules.write, *rules.read]
    node = node_view(rules, runs)
    steps = [
        *_system_steps(),
        *_private_steps(rules),
        *_program_steps(rules, program, cwd, visible),
        *_granted_steps(rules),
        *_run_steps(rules, runs, visible),
        *_node_steps(node, visible),
    ]
    settings: list[str] = []
    if rules.repository and not _covered(rules.repository, visible):
        steps.append((rules.repository, ["--ro-bind", rules.repository, rules.repository]))
        # git stops looking for its repository where a mount starts (the project is one)
        settings = ["--setenv", "GIT_DISCOVERY_ACROSS_FILESYSTEM", "1"]
    if not _covered(cwd, visible):
        steps.append((cwd, ["--dir", cwd]))  # an empty one: what it is in is not the tool's to read
    steps.sort(key=lambda step: _depth(step[0]))  # a directory is made before what is inside it
    out = [word for _, words in steps for word in words]
    out += ["--remount-ro", "/dev", "--remount-ro", "/"]  # nothing to write there but /dev/shm
    if not rules.network:
        out.append("--unshare-net")
    if not rules.process:
        out += ["--unshare-pid", "--unshare-ipc"]
    return [
        *out,
        *NAMESPACES,
        "--cap-drop",
        "ALL",
        *settings,
        "--setenv",
        "TMPDIR",
        "/tmp",
        "--chdir",
        cwd,
    ]


def _system_steps() -> list[_Step]:
    """The system's directories, read-only (and the links among them, as links)."""
    steps: list[_Step] = []
    for path in SYSTEM:
        if os.path.islink(path):
            steps.append((path, ["--symlink", os.readlink(path), path]))
        elif os.path.isdir(path):
            steps.append((path, ["--ro-bind", path, path]))
    return steps


def _private_steps(rules: Confinement) -> list[_Step]:
    """Devices, the program's own /dev/shm and /tmp (of ``tmp_size``), /proc (its own unless it
    may see other processes), and a private home; a project under a system directory, hidden."""
    size = ["--size", str(rules.tmp_size)]
    steps: list[_Step] = [
        ("/dev", ["--dev", "/dev"]),
        ("/dev/shm", [*size, "--tmpfs", "/dev/shm"]),
        ("/tmp", [*size, "--tmpfs", "/tmp"]),
        ("/proc", ["--proc", "/proc"] if not rules.process else ["--ro-bind", "/proc", "/proc"]),
    ]
    if rules.home and rules.home not in UNHIDEABLE and rules.home not in SYSTEM:
        steps.append((rules.home, [*size, "--tmpfs", rules.home]))  # private, even inside /var
    shown = [*rules.write, *rules.read]
    if rules.root not in shown and rules.root not in UNHIDEABLE and _covered(rules.root, SYSTEM):
        steps.append((rules.root, ["--tmpfs", rules.root]))  # a project under /var or /opt, hidden
    return steps


def _program_steps(rules: Confinement, program: str, cwd: str, visible: list[str]) -> list[_Step]:
    """The directories of the program and what it needs that are not visible already, read-only,
    with the credentials in them hidden."""
    steps: list[_Step] = []
    shown: list[str] = []
    for path in sorted(_program_paths(rules, program, cwd, [rules.home, rules.root, "/tmp"]), key=_depth):
        if _covered(path, visible):
            continue
        if not _covered(path, shown):  # (one inside another shown already is shown with it)
            shown.append(path)
            steps.append((path, ["--ro-bind", path, path]))
        if os.path.isdir(path):  # (its credentials hidden all the same)
            steps += [(secret, ["--ro-bind", "/dev/null", secret]) for secret in _credentials(path)]
    return steps


def _granted_steps(rules: Confinement) -> list[_Step]:
    """What the tool may read (read-only) and write; cogtools' own code inside what it may write,
    read-only all the same."""
    steps: list[_Step] = [
        (path, ["--ro-bind", path, path]) for path in rules.read if os.path.exists(path) and path not in rules.write
    ]
    steps += [(path, ["--bind", path, path]) for path in rules.write if os.path.exists(path)]
    for path in own_code():  # cogtools' interpreter and itself, kept in a project it may write: not to be changed
        if _covered(path, rules.write) and path not in rules.write:
            steps.append((path, ["--ro-bind", path, path]))
    return steps


def _run_steps(rules: Confinement, runs: t.Sequence[str], visible: list[str]) -> list[_Step]:
    """The files of the project the program runs (its script), read-only, when not visible
    already."""
    steps: list[_Step] = []
    for path in runs:
        real = os.path.realpath(path)
        # a link in the project leads anywhere: only what lies in the project (or, for a package
        # of a workspace, in the workspace: a package it links to) is the tool's own
        top = [rules.root, rules.workspace or rules.root]
        if _covered(real, top) and os.path.exists(real) and not _covered(real, visible):
            steps.append((real, ["--ro-bind", real, real]))
    return steps


#: The suffixes of the files node runs (a file under ``node_modules`` is a package's, run by node too).
JAVASCRIPT = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".json")
#: The most directories node's view of one program adds (node_modules directories and packages).
MAX_NODE_PATHS = 256
#: The most entries of one node_modules directory looked at for the packages it links to.
MAX_NODE_ENTRIES = 4096


class NodeView(t.NamedTuple):
    """What node resolves for a JavaScript program beyond what its confinement shows already:
    directories shown read-only (``node_modules`` directories and the packages they link to, as
    real paths), and links of the hidden project made again (path, what it points at)."""

    shown: tuple[str, ...] = ()
    links: tuple[tuple[str, str], ...] = ()


def node_view(rules: Confinement, runs: t.Sequence[str]) -> NodeView:
    """What node resolves for the JavaScript files among ``runs`` (its script, the modules it
    imports, a package's program of ``node_modules/.bin``), as it resolves it, read-only: the
    ``node_modules`` directories along node's path from each file (its own directory and every
    one above, as written and as its real path, up to the workspace root: pnpm's ``.pnpm`` store,
    a workspace root's hoisted packages), the packages each of those links to (a workspace's
    package, pnpm's store) and, in turn, what node resolves from them; and the package of a file
    run from outside the project (a toolset in pnpm's store). Only what lies in the workspace (the
    project, for a project of its own) is ever shown, never the workspace itself nor what holds
    the project: a link in ``node_modules`` to ``~/.ssh`` or to ``/`` shows nothing. A
    ``node_modules`` of the project is shown only to a program that may read the project or is a
    package's own (an npm toolset's: :attr:`Confinement.package`); to a tool of the
    project's own, ``code:`` declares a package, whose link is made again here."""
    top = rules.workspace or rules.root
    scripts = [os.path.abspath(path) for path in runs if _node_runs(path)]
    if not scripts:
        return NodeView()
    # a package's own program (a toolset's script, run from node_modules) is shown the packages
    # it needs, as node finds them, wherever they are installed; a tool of the project's own only
    # where it may read the project
    readable = _covered(rules.root, [*rules.read, *rules.write]) or rules.package

    def allowed(path: str) -> bool:
        return (
            _covered(path, [top])
            and not _covered(top, [path])
            and not _covered(rules.root, [path])
            and (readable or not _covered(path, [rules.root]))
        )

    shown: list[str] = []
    links: list[tuple[str, str]] = []
    todo: list[str] = []
    for script in scripts:
        real = os.path.realpath(script)
        todo += [os.path.dirname(script), os.path.dirname(real)]
        if not _covered(real, [rules.root]):  # run from outside the project: its package, whole
            package = _package_of(real, top)
            if package is not None and allowed(package):
                shown.append(package)
        elif not readable:
            links += _links_to(script, rules.root, allowed)
    if not readable:  # a package the tool declares (pinned whole: its directory, no module of it)
        for path in runs:
            if "node_modules" in path.split(os.sep) and os.path.isdir(path):
                links += _links_to(os.path.join(os.path.abspath(path), "package.json"), rules.root, allowed)
    shown += [os.path.realpath(os.path.join(os.path.dirname(link), target)) for link, target in links]
    shown = _resolved(todo + shown, shown, top, allowed)
    outermost = [path for path in shown if not _covered(path, [other for other in shown if other != path])]
    return NodeView(tuple(outermost), tuple(dict.fromkeys(links)))


def _resolved(todo: list[str], shown: list[str], top: str, allowed: t.Callable[[str], bool]) -> list[str]:
    """``shown`` and what node resolves from each directory of ``todo`` (and from each package
    found, in turn): the ``node_modules`` of the directory and of every one above it in ``top``,
    and the packages they link to, as ``allowed`` allows; at most :data:`MAX_NODE_PATHS`."""
    seen: set[str] = set()
    while todo and len(shown) < MAX_NODE_PATHS:
        start = todo.pop(0)
        if start in seen:
            continue
        seen.add(start)
        for directory in (start, *parents(start)):
            if not _covered(directory, [top]):
                break
            modules = os.path.realpath(os.path.join(directory, "node_modules"))
            if modules in shown or not allowed(modules) or not os.path.isdir(modules):
                continue
            shown.append(modules)
            for target in _linked_packages(modules):
                if allowed(target) and target not in shown and not _covered(target, shown):
                    shown.append(target)
                    todo.append(target)
    return list(dict.fromkeys(shown[:MAX_NODE_PATHS]))


def _node_runs(path: str) -> bool:
    """Whether node runs or resolves ``path``: a JavaScript or TypeScript file, or a package's."""
    return path.endswith(JAVASCRIPT) or "node_modules" in path.split(os.sep)


def _package_of(path: str, top: str) -> str | None:
    """The package ``path`` is a file of: the nearest directory above it with a package.json, in ``top``."""
    for directory in parents(path):
        if not _covered(directory, [top]):
            return None
        if os.path.isfile(os.path.join(directory, "package.json")):
            return directory
    return None


def _links_to(path: str, root: str, allowed: t.Callable[[str], bool]) -> list[tuple[str, str]]:
    """The first link on the way from ``root`` to ``path`` (a package of pnpm's ``node_modules``,
    which ``code:`` declares), with what it points at, when what it leads to is ``allowed``; none
    for a path outside the project (a dependency in pnpm's store: the store's directory is shown
    whole, its links with it, and bubblewrap cannot make one again where one is)."""
    relative = os.path.relpath(path, root).split(os.sep)
    if relative[0] == os.pardir:
        return []
    here = root
    for part in relative[:-1]:
        here = os.path.join(here, part)
        if os.path.islink(here):
            return [(here, os.readlink(here))] if allowed(os.path.realpath(here)) else []
    return []


def _linked_packages(modules: str) -> list[str]:
    """The real paths of the packages a ``node_modules`` directory links to (``NAME`` and
    ``@SCOPE/NAME`` entries that are links to a directory holding a package.json)."""
    found: list[str] = []
    for name in _entries(modules):
        path = os.path.join(modules, name)
        inner = (
            [os.path.join(path, n) for n in _entries(path)]
            if name.startswith("@") and not os.path.islink(path)
            else [path]
        )
        for entry in inner:
            if os.path.islink(entry):
                target = os.path.realpath(entry)
                if os.path.isfile(os.path.join(target, "package.json")):
                    found.append(target)
    return found


def _entries(directory: str) -> list[str]:
    import itertools

    try:
        with os.scandir(directory) as listing:
            return [
                entry.name for entry in itertools.islice(listing, MAX_NODE_ENTRIES) if not entry.name.startswith(".")
            ]
    except OSError:
        return []


def _node_steps(node: NodeView, visible: list[str]) -> list[_Step]:
    """:func:`node_view`'s directories read-only, and its links made again."""
    steps: list[_Step] = [(path, ["--ro-bind", path, path]) for path in node.shown if not _covered(path, visible)]
    steps += [(link, ["--symlink", target, link]) for link, target in node.links]
    return steps


def shows_as(rules: Confinement, runs: t.Sequence[str]) -> t.Callable[[str], str | None]:
    """How a confined program sees a path: ``"rw"`` inside what it may write, ``"ro"`` inside what
    it may read or among the files it runs, else None (not at all): for the entries of a
    directory made private (:func:`cogtools.run.bind.wrap`)."""
    own = {os.path.realpath(path) for path in runs}
    node = node_view(rules, runs)

    def shows(path: str) -> str | None:
        if _covered(path, rules.write):
            return "rw"
        if _covered(path, rules.read) or path in own or _covered(path, node.shown):
            return "ro"
        if rules.repository and _covered(path, [rules.repository]):  # (the .git above a package)
            return "ro"
        return None

    return shows


# -- without network, only the sockets a program may make ------------------------------------------
#
# The filter is an allow-list, assembled here (a few dozen classic BPF instructions, for
# bubblewrap's --seccomp) and decoded by tests/test_confine.py for every architecture it is made
# for; libseccomp was weighed and not taken: its Python bindings are not on PyPI (pyseccomp, a
# ctypes shim from 2021, costs a call 26 ms to import), its rules on an argument compare all 64
# bits where the kernel reads an int (a refusal of family 1 lets 1 + 2**32 through), and on i386
# it compares socketcall's pointer as if it were the socket's type.

#: seccomp's return values, and the error a refused system call gets.
_SECCOMP_RET_ALLOW = 0x7FFF0000
_SECCOMP_RET_ERRNO = 0x00050000
_EPERM = 1
_DENY = _SECCOMP_RET_ERRNO | _EPERM
#: The families socket(2) may make without ``network``: what they reach is in the program's own
#: network namespace (its own loopback, its own routes; netlink is how the C library lists
#: interfaces). Every other one is refused: AF_UNIX reaches any socket file the program sees,
#: AF_VSOCK a virtual machine's host, and the rest nothing a tool needs.
SOCKET_FAMILIES = {"AF_INET": 2, "AF_INET6": 10, "AF_NETLINK": 16}
#: The types socketpair(2) may make, in AF_UNIX only: two ends connected to each other for good
#: (a pipe between a program's own processes). A datagram end (SOCK_DGRAM, or SOCK_RAW, which
#: the kernel makes one) can be given any address, and is refused.
PAIR_TYPES = {"SOCK_STREAM": 1, "SOCK_SEQPACKET": 5}
_AF_UNIX = 1
#: SOCK_NONBLOCK | SOCK_CLOEXEC: the flags a type may carry (the same on x86 and arm64).
_SOCK_FLAGS = 0o4000 | 0o2000000
#: socketcall(2)'s calls that make a socket (its arguments are in memory, out of a filter's reach).
_SYS_SOCKET, _SYS_SOCKETPAIR = 1, 8
#: On x86_64, an x32 system call's number carries this bit.
_X32_BIT = 0x40000000


class _Arch(t.NamedTuple):
    """One architecture's system calls as a filter sees them (``seccomp_data.arch``, ``nr``)."""

    name: str
    audit: int
    socket: int
    socketpair: int
    #: io_uring can make a socket without socket(2): refused whole.
    io_uring_setup: int
    #: i386's multiplexer of the socket calls.
    socketcall: int | None = None
    #: x86_64's x32 calls: refused whole.
    x32: bool = False


X86_64 = _Arch("x86_64", 0xC000003E, 41, 53, 425, x32=True)
I386 = _Arch("i386", 0x40000003, 359, 360, 425, socketcall=102)
AARCH64 = _Arch("aarch64", 0xC00000B7, 198, 199, 425)
#: Per machine (``uname -m``), the architectures whose system calls its kernel runs, each one
#: filtered; a call of any other (32-bit ARM on aarch64) is refused. A machine missing here gets
#: no filter, and ``doctor`` says so: these are the ones the tests decode.
FILTERED: dict[str, tuple[_Arch, ...]] = {"x86_64": (X86_64, I386), "aarch64": (AARCH64,)}

#: An instruction before assembly: an operation, its constant, and where it jumps when true and
#: when false (a label; None: the next instruction).
_Instruction = tuple[str, int, "str | None", "str | None"]


#: What a program without network can still do on a machine without the filter, in words.
UNFILTERED = "unix sockets (no socket filter for this machine: one is made and tested for x86_64 and aarch64)"


def filtered(machine: str | None = None) -> bool:
    """Whether a program without ``network`` runs under the socket filter on ``machine`` (this
    one by default)."""
    return (machine or os.uname().machine) in FILTERED


def unix_socket_filter(machine: str | None = None) -> bytes | None:
    """The seccomp program (classic BPF, as bubblewrap's ``--seccomp`` reads it) that a program
    without ``network`` runs under on ``machine`` (this one by default), or None on a machine it
    is not made for (:data:`FILTERED`). It refuses with EPERM: socket(2) but for the
    :data:`SOCKET_FAMILIES`; socketpair(2) but for AF_UNIX of the :data:`PAIR_TYPES` (flags
    allowed); i386's socketcall(2) making a socket or a pair; io_uring; x32's calls; and every
    call of an architecture the machine's filter does not know. Everything else is allowed."""
    arches = FILTERED.get(machine or os.uname().machine)
    if arches is None:
        return None
    ld_arch, ld_nr = 4, 0  # offsets in seccomp_data: arch, nr; args[i] at 16 + 8 i (its low half)
    steps: list[_Instruction] = [("ld", ld_arch, None, None)]
    steps += [("jeq", arch.audit, arch.name, None) for arch in arches]
    steps.append(("ret", _DENY, None, None))
    for arch in arches:
        steps += [("label", 0, arch.name, None), ("ld", ld_nr, None, None)]
        if arch.x32:
            steps.append(("jge", _X32_BIT, "deny", None))
        steps += [("jeq", arch.socket, "socket", None), ("jeq", arch.socketpair, "pair", None)]
        if arch.socketcall is not None:
            steps.append(("jeq", arch.socketcall, "socketcall", None))
        steps += [("jeq", arch.io_uring_setup, "deny", "allow")]
    steps += [("label", 0, "socket", None), ("ld", 16, None, None)]
    steps += [("jeq", family, "allow", None) for family in SOCKET_FAMILIES.values()]
    steps += [("ret", _DENY, None, None), ("label", 0, "pair", None), ("ld", 16, None, None)]
    steps += [("jeq", _AF_UNIX, None, "deny"), ("ld", 24, None, None), ("and", ~_SOCK_FLAGS & 0xFFFFFFFF, None, None)]
    steps += [("jeq", kind, "allow", None) for kind in PAIR_TYPES.values()]
    steps.append(("ret", _DENY, None, None))
    if any(arch.socketcall is not None for arch in arches):
        steps += [("label", 0, "socketcall", None), ("ld", 16, None, None)]
        steps += [("jeq", _SYS_SOCKET, "deny", None), ("jeq", _SYS_SOCKETPAIR, "deny", "allow")]
    steps += [("label", 0, "deny", None), ("ret", _DENY, None, None)]
    steps += [("label", 0, "allow", None), ("ret", _SECCOMP_RET_ALLOW, None, None)]
    return _assemble(steps)


#: Classic BPF's codes of the operations the filter uses: ld = BPF_LD|BPF_W|BPF_ABS,
#: and = BPF_ALU|BPF_AND|BPF_K, jeq and jge = BPF_JMP|BPF_JEQ (BPF_JGE)|BPF_K, ret = BPF_RET|BPF_K.
_CODES = {"ld": 0x20, "and": 0x54, "jeq": 0x15, "jge": 0x35, "ret": 0x06}


def _assemble(instructions: t.Sequence[_Instruction]) -> bytes:
    """``instructions`` as classic BPF (``struct sock_filter``), their labels made jumps (forward
    and within 255 instructions, or struct.error: jt and jf are bytes)."""
    import struct

    where: dict[str | None, int] = {}
    at = 0
    for op, _, label, _ in instructions:
        if op == "label":
            where[label] = at
        else:
            at += 1
    out: list[bytes] = []
    for op, k, true, false in (step for step in instructions if step[0] != "label"):
        jt, jf = (where[true] - len(out) - 1 if true else 0, where[false] - len(out) - 1 if false else 0)
        out.append(struct.pack("=HBBI", _CODES[op], jt, jf, k))
    return b"".join(out)


#: The namespaces of every confined program: a user namespace of its own, in which it may make
#: no other (a nested one is a kernel's attack surface, and nothing a tool needs).
NAMESPACES = ("--unshare-user", "--disable-userns")
#: Directories that are never made private (a home directory set to one of them is not hidden).
UNHIDEABLE = ("/", "/proc", "/dev", "/sys", "/tmp", "/run")
#: What of a program's prefix under the home directory is shown: what runs, not what it keeps
#: (``~/.cargo/credentials.toml``, ``~/.docker/config.json`` stay hidden).
TOOLCHAIN = ("bin", "sbin", "shims", "lib", "lib64", "libexec", "versions", "plugins", "include", "version")


def own_code() -> list[str]:
    """Where the code cogtools itself runs lies: its interpreter's prefixes and its package (a
    file a tool wrote there, a ``.pth`` say, would run in cogtools unconfined)."""
    import sys

    import cogtools

    places = (sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(cogtools.__file__))
    return list(dict.fromkeys(os.path.realpath(place) for place in places if os.path.exists(place)))


def _depth(path: str) -> int:
    return path.rstrip(os.sep).count(os.sep)


def _covered(path: str, by: t.Iterable[str]) -> bool:
    """Whether ``path`` is one of ``by`` or inside one."""
    return any(under(path, top) for top in by)


def _program_paths(rules: Confinement, program: str, cwd: str, keep_out: t.Sequence[str]) -> list[str]:
    """What a program needs to start that is not the system's, from the person's PATH: each
    entry's prefix (``~/.pyenv`` for ``~/.pyenv/shims``: a shim runs ``~/.pyenv/libexec/pyenv``),
    and the prefixes of ``program`` (found there, or named by its absolute path) and of the
    interpreter its ``#!`` line names, links followed; under the home directory, only the parts
    of a prefix that run (:data:`TOOLCHAIN`). A prefix that is or holds the home directory, the
    project or /tmp, or lies in the project, is not shown (a PATH entry there is shown alone)."""
    import shutil

    entries = [os.path.normpath(entry) for entry in rules.path.split(os.pathsep) if os.path.isabs(entry)]
    found = shutil.which(program, path=rules.path) if os.sep not in program else None
    located = found or (program if os.path.isabs(program) else None)
    interpreter = _shebang(located or os.path.join(cwd, program))
    for path in (located, interpreter):
        if path is not None:
            entries += [os.path.dirname(path), os.path.dirname(os.path.realpath(path))]
    out: list[str] = []

    def kept_out(path: str) -> bool:
        return any(_covered(kept, [path]) for kept in keep_out if kept) or _covered(path, [rules.root])

    for entry in entries:
        prefix = os.path.realpath(os.path.dirname(entry) if os.path.basename(entry) in PREFIX_CHILDREN else entry)
        if not kept_out(prefix):
            home = bool(rules.home) and _covered(prefix, [rules.home])
            parts = [os.path.join(prefix, part) for part in TOOLCHAIN] if home else [prefix]
        elif not kept_out(os.path.realpath(entry)):
            parts = [os.path.realpath(entry)]  # ~/bin, ~/.local/bin: the directory, not what holds it
        else:
            continue
        out += [part for part in parts if os.path.exists(part) and part not in out]
    return out


def _shebang(path: str) -> str | None:
    """The interpreter that the ``#!`` line of the executable regular file at ``path`` names
    (absolute), when that is an executable regular file too."""
    import stat

    def runnable(candidate: str) -> bool:
        try:
            info = os.stat(candidate)
        except OSError:
            return False
        return stat.S_ISREG(info.st_mode) and os.access(candidate, os.X_OK)

    if not path or not runnable(path):
        return None
    opened = open_regular(path)  # (a FIFO swapped in would block an open; a directory, refuse one)
    if opened is None:
        return None
    with opened as f:
        try:
            line = f.readline(256)
        except OSError:
            return None
    words = line[2:].split() if line.startswith(b"#!") else []
    if not words or not words[0].startswith(b"/"):
        return None
    interpreter = os.path.normpath(os.fsdecode(words[0]))
    return interpreter if runnable(interpreter) else None


def _credentials(prefix: str) -> list[str]:
    """The credentials files directly in ``prefix`` (hidden from a program that sees it)."""
    return [path for name in CREDENTIALS if os.path.isfile(path := os.path.join(prefix, name))]
