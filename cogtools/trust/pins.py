"""Pins: the definitions a person allowed to run without confirmation (DESIGN §11).

Gemini CLI runs a tool without asking anyone when a Policy Engine rule allows it (user-wide: a
rule written for one project lets a tool of that name through in every other) or
``tools.allowed`` lists it, and the tool files live in the workspace, which the agent can write.
So when a person runs
``cogtools sync`` (or ``cogtools init``), cogtools pins every allowed tool to the file that
defines it, by path and SHA-256 of its bytes (a script's body included), and to its closure:
the files of the project it executes or imports and the settings that choose them
(:func:`closure`). A call by name of a pinned tool whose definition or closure has changed, or
is now another file's (a new file shadowing it), is POLICY_DENIED until a person syncs again; one
that passes runs as built from the bytes that were checked, and its program sees the checked
bytes of its scripts and modules (:class:`Checked`, :mod:`cogtools.run.bind`). A tool that
Gemini CLI runs unasked but that was never pinned for the project is refused the same way; a
tool that is not allowed runs as before, since Gemini CLI asks the person first. ``cogtools
sync`` first shows a person what each new or changed tool runs (:func:`candidates`), and pins
exactly what it showed.

The pins live in the user's state directory (``$XDG_STATE_HOME/cogtools/pins/``, else
``~/.local/state/cogtools/pins/``), one file per project root, where the agent's file tools
(which work in the workspace) do not reach.
"""

from __future__ import annotations

import collections
import contextlib
import contextvars
import functools
import hashlib
import json
import os
import re
import stat
import typing as t
from pathlib import Path

from cogtools import __version__
from cogtools.core.environment import code_choosing_files
from cogtools.core.errors import ConfigInvalidError, PolicyDeniedError
from cogtools.core.fsutil import under, write_private
from cogtools.core.limits import (
    MAX_ABSENT_FILES,
    MAX_CODE_FILE_BYTES,
    MAX_CODE_FILES,
    MAX_CONFIG_BYTES,
    MAX_DEFINITION_BYTES,
    MAX_PINS_BYTES,
    open_regular,
    read_file,
)
from cogtools.core.places import is_private, project_key, state_dir
from cogtools.load.catalog import parse_definition
from cogtools.load.formats import FORMATS
from cogtools.run import python_path, read_closure, runner
from cogtools.trust import clients
from cogtools.trust.policy import unconfined

if t.TYPE_CHECKING:
    from cogtools.core.model import Tool
    from cogtools.load.project import Project
    from cogtools.run import Code
    from cogtools.trust.clients import Unasked


def pins_path(root: Path, environ: t.Mapping[str, str]) -> Path | None:

    base = state_dir(environ)
    if base is None:
        return None
    return base / "pins" / f"{project_key(root)}.json"


def definition_file(tool: Tool, root: Path) -> Path:
    path = Path(tool.origin.path)
    return path if path.is_absolute() else root / path


#: The largest file of a closure whose bytes are kept for the run, so that what runs is what was
#: hashed (a script, a module); a larger one (a program) is hashed only.
MAX_KEPT_BYTES = 4 * 1024 * 1024


def closure(tool: Tool, project: Project) -> dict[str, t.Any]:
    """What a pin covers besides the definition: every file of the project that a run of
    ``tool`` executes or loads (relative path -> SHA-256, None for one that cannot be read),
    and the settings that choose them (:meth:`~cogtools.run.Runner.closure`)."""
    return _closure(tool, project).summary


class Closed(t.NamedTuple):
    """A tool's code as a pin sees it now."""

    #: {"files": relative path -> SHA-256 or None, "settings": ...}: what the pin records
    summary: dict[str, t.Any]
    #: the bytes that were hashed (real path -> bytes) of each file of its code no larger than
    #: :data:`MAX_KEPT_BYTES`: what its program is shown, all of it and nothing else of the workspace
    kept: dict[str, bytes]
    #: why its code cannot be told, so that it cannot run unasked (empty: it can)
    open: tuple[str, ...] = ()
    #: what of its code cannot be told that its ``code:`` declaration closes by the person's word
    #: alone (no place it names): shown at review, so that the word is given knowingly
    vouched: tuple[str, ...] = ()


def _closure(tool: Tool, project: Project) -> Closed:
    """:func:`closure`, the bytes that were hashed, and why the code cannot be closed: what its
    program may load that cogtools cannot tell and the tool's ``code`` does not declare, or more
    files than :data:`~cogtools.core.limits.MAX_CODE_FILES`."""

    try:
        kind = runner(tool.implementation.kind)
    except LookupError:
        return Closed({"files": {}, "settings": {}}, {})

    code, settings = read_closure(kind, tool, project.root, python_path(project))
    declared = tool.metadata.code
    if declared:
        from cogtools.run.program_files import declared_code

        code = code.plus(declared_code(declared, project.root))
    choosing = code_choosing_files(tool.environment, tool.variables, project.root, project.environ)
    cover = _Cover(project, code)
    for path, is_code in [*((path, True) for path in code.files), *((path, False) for path in choosing)]:
        if cover.present() > MAX_CODE_FILES or cover.absent > MAX_ABSENT_FILES:
            break
        cover.add(path, is_code)
    for look, found in code.looks:
        cover.look(look, found)
    cover.environment([path for path, how in code.manifests if how == ENV_READ])
    cover.stamps.save()
    unclosed = cover.unclosed + [why for why, needs in code.open if not declares(declared, needs)]
    if cover.present() > MAX_CODE_FILES:
        present = [path for path, digest in cover.covered.items() if digest is not None and not path.startswith(LOOKS)]
        folders = collections.Counter(os.path.dirname(path) or "." for path in present)
        unclosed.append(f"its code is more than {MAX_CODE_FILES} files (most in {folders.most_common(1)[0][0]}/)")
    if cover.absent > MAX_ABSENT_FILES:
        unclosed.append(f"it looks for its code in more than {MAX_ABSENT_FILES} places where no file is")
    vouched = tuple(dict.fromkeys(why for why, needs in code.open if needs is None and declared))
    summary: dict[str, t.Any] = {"files": cover.covered, "settings": settings}
    if vouched:  # (pinned: one more taken on the person's word later is a change)
        summary["vouched"] = sorted(vouched)
    return Closed(summary, cover.kept, tuple(unclosed), vouched)


class _Cover:
    """What a pin covers of a tool's code, gathered file by file (:func:`_closure`): each file's
    digest (of what node reads to load code, for a package.json it reads so), each installed
    package's as one entry, the bytes the program is shown, and what cannot be pinned."""

    def __init__(self, project: Project, code: Code) -> None:
        from cogtools.core.fsutil import repository_above, workspace_root

        self.top = os.path.realpath(project.root)
        workspace = workspace_root(project.root)
        self.linked = os.path.realpath(workspace) if workspace is not None else self.top
        #: the .git of a repository above the project, whose configuration and hooks git runs
        self.repository = repository_above(self.top)
        self.covered: dict[str, str | None] = {}
        #: how many of :attr:`covered` are places where no file is (named so that one written
        #: later is a change), which do not count as code (:data:`MAX_ABSENT_FILES` bounds them)
        self.absent = 0
        self.looks = 0  # (how many are looks: :meth:`look`)
        self._directories: dict[str, str] = {}  # (each directory's real path, by path)
        self._listings: dict[str, frozenset[str] | None] = {}  # (the names in each, by real path)
        self.kept: dict[str, bytes] = {}
        self.unclosed: list[str] = []
        reads = manifest_reads((path, how) for path, how in code.manifests if how != ENV_READ)
        self.reads = {os.fspath(path): read for path, read in reads.items()}
        self.stamps = _Stamps(project)
        self.packages = [os.path.realpath(path) for path in code.files if os.path.isdir(path)]

    def _real(self, path: str) -> str:
        """``path``, its links followed: its directory's real path (found once for all the places
        named in it) and its name, unless the name itself is a link."""
        parent, name = os.path.split(path)
        if not name or name in (".", ".."):
            return os.path.realpath(path)
        if parent not in self._directories:
            self._directories[parent] = os.path.realpath(parent)
        real = os.path.join(self._directories[parent], name)
        return real if self._nothing(real) or not os.path.islink(path) else os.path.realpath(path)

    def _nothing(self, real: str) -> bool:
        """Whether nothing is at ``real`` (its directory's real path and a name), as its
        directory's listing, read once, says: no look-up of each of the thousands of places a
        per-file tool's pin names where no file is."""
        parent, name = os.path.split(real)
        if parent not in self._listings:
            try:
                # (folded: a name that differs only by case from one there, where the file system
                # folds case, is looked at by its name, as before listings)
                self._listings[parent] = frozenset(n.casefold() for n in os.listdir(parent))
            except (FileNotFoundError, NotADirectoryError):
                self._listings[parent] = frozenset()
            except OSError:  # (one that cannot be listed may still be searched: look by name)
                self._listings[parent] = None
        listing = self._listings[parent]
        return listing is not None and name.casefold() not in listing

    def present(self) -> int:
        """How many entries of :attr:`covered` are code that is there (or cannot be read)."""
        return len(self.covered) - self.absent - self.looks

    def look(self, look: str, found: t.Sequence[Path]) -> None:
        """A look for configuration files in many directories (:attr:`cogtools.run.Code.looks`):
        pinned as what it finds (the files' own entries pin their bytes), so that one found
        later, a link leading out of the workspace included, is a change."""
        key = LOOKS + look
        self.looks += key not in self.covered
        before = (self.covered.get(key) or "").split("\n")
        shown = (os.path.relpath(path, self.top) for path in found)
        self.covered[key] = "\n".join(sorted({*before, *shown} - {""}))

    def environment(self, paths: t.Sequence[Path]) -> None:
        """Environment files a program may load of itself (:data:`ENV_READ`), whose variables
        the programs it starts take, each pinned by the names it sets (:func:`environment_pin`):
        a variable added is a change, an edit of a value is not, unless one of the files sets
        a variable that may choose code (NODE_OPTIONS, NPM_CONFIG_*, GIT_CONFIG_*...), when
        each is pinned whole (a value one expands from another: ``NODE_OPTIONS=${A}``, with
        ``A`` in .env.local). One over 1 MiB cannot run unasked; nothing there, or nothing
        set, is an entry of nothing."""
        entries: dict[str, EnvironmentPin] = {}
        for path in paths:
            real = self._real(os.fspath(path))
            if not under(real, self.linked):
                continue
            key = real[len(self.top) + 1 :] if real.startswith(self.top + os.sep) else os.path.relpath(real, self.top)
            if not self._nothing(real) and _through_proc(os.fspath(path)):
                self.unclosed.append(f"{key} leads through /proc, which cogtools cannot follow as the tool would")
                continue
            pin = EnvironmentPin(None, False) if self._nothing(real) else environment_pin(real)
            if pin.why:
                self.unclosed.append(f"{key}: {pin.why}")
            entries[key + "#" + ENV_READ] = pin
        whole = any(pin.chooses for pin in entries.values())
        for key, pin in entries.items():
            pinned = pin.digest if whole else pin.names
            self.absent += pinned is None and key not in self.covered
            self.covered[key] = pinned

    def add(self, path: Path | str, is_code: bool) -> None:
        top = self.top
        # not an installed module or a system program: not the workspace's; but what node loads
        # from its workspace (pnpm's store, a package hoisted to the workspace root) is, under the
        # path a link leads to (a link moved is a change)
        real = self._real(os.fspath(path))  # (the places it is compared with are real already)
        if not under(real, self.linked) and not (self.repository and under(real, self.repository)):
            return
        if is_code and any(under(real, package) and real != package for package in self.packages):
            return  # a file of an installed package: its package's pin covers it
        nothing = self._nothing(real)
        if not nothing and _through_proc(os.fspath(path)):
            # (/proc/self/cwd, /proc/self/root: each process resolves them as itself, so what
            # cogtools reads there is not what the tool would)
            where = os.path.relpath(os.fspath(path), top)
            self.unclosed.append(f"{where} leads through /proc, which cogtools cannot follow as the tool would")
            return
        if is_code and not nothing and os.path.isdir(real):  # an installed package, pinned whole
            self._package(os.fspath(path), real)
            return
        read = self.reads.get(os.fspath(path))
        if read is not None and read[0] == "#data":
            return  # shown to the program, which reads it, and no code
        digest, data = (None, None) if nothing else self._read(os.fspath(path), real)
        # (thousands of places where no file is, for a per-file tool: each costs little)
        key = real[len(top) + 1 :] if real.startswith(top + os.sep) else os.path.relpath(real, top)
        if read is not None:  # a package.json: what node and the package manager read of it
            if data is not None:
                digest = manifest_digest(data, read[1])
            key += read[0]
        if digest is None and (nothing or not os.path.lexists(real)):
            self.absent += key not in self.covered
        self.covered[key] = digest
        if data is not None and is_code:  # what the program is shown; a .env is cogtools' to read
            self.kept[real] = data

    def _read(self, path: str, real: str) -> tuple[str | None, bytes | None]:
        """A file's digest and bytes (:func:`_digest`); one past :data:`MAX_CODE_FILE_BYTES` (a
        sparse file of gigabytes, which each call would read) is not read, and cannot run unasked."""
        size = _size(real)
        if size <= MAX_CODE_FILE_BYTES:
            return _digest(real)
        where = os.path.relpath(path, self.top)
        self.unclosed.append(f"{where} is over {MAX_CODE_FILE_BYTES // (1024 * 1024)} MiB, past what cogtools pins")
        return f"size:{size}", None

    def _package(self, path: str, real: str) -> None:
        """An installed package (at ``path``, its links leading to ``real``), pinned whole."""
        key = os.path.relpath(real, self.top) + "/"
        if key in self.covered:
            return
        # its checked bytes are shown the program file by file while they fit what bind may hold
        # (no gap between check and read); a larger one is read from disk
        room = len(self.kept) + MAX_KEPT_PACKAGE_FILES <= MAX_CODE_FILES  # (bind's bound)
        pin = package_pin(Path(real), self.stamps, self.kept if room else None)
        self.covered[key] = pin.pinned
        if pin.why:
            self.unclosed.append(f"{os.path.relpath(path, self.top)}: {pin.why}")
        self._imported(Path(real), pin.imports)

    def _imported(self, package: Path, names: t.Iterable[str]) -> None:
        """Each package that ``package`` imports, listed in its package.json or not (a phantom
        dependency), where node finds it from there in the workspace: pinned as a package too."""
        from cogtools.run.program_files import ENV_MARK, node_finds

        # (an environment file its code loads by name, from where the tool runs: the project's)
        self.environment([Path(self.top) / name.removeprefix(ENV_MARK) for name in names if name.startswith(ENV_MARK)])
        for name in sorted(name for name in names if not name.startswith(ENV_MARK)):
            if self.present() > MAX_CODE_FILES:
                return
            found = node_finds(package, name, Path(self.linked))
            if found is not None and (found / "package.json").is_file():
                self.packages.append(os.path.realpath(found))
                self.add(found, True)


#: How :attr:`cogtools.run.Code.manifests` names an environment file a program may load of itself
#: (dotenv's, node's ``process.loadEnvFile()``), pinned by its variables that choose code alone
#: (:meth:`_Cover.environment`), and the ending of its entry's key.
ENV_READ = "env"


#: The name of a variable that may choose the code a program runs, by what it is of (a program's
#: options, a path, a shell, a configuration, a hook...) or whose it is (node's, npm's, git's,
#: an interpreter's): its value is pinned, not its name alone (case folded; NODE_ENV is not).
CHOOSING_NAME = re.compile(
    r"(?:^|_)(?:PATH|PATHS|OPTIONS?|OPTS|ARGS|FLAGS|PRELOAD|LOADER|REQUIRE|IMPORT|SHELL|EXEC|COMMAND|CMD|CONFIG|CONF"
    r"|RC|HOOKS?|PLUGINS?|PROJECT|EDITOR|PAGER|VISUAL|HOME|DIR|PREFIX|REGISTRY|BIN|LIB|MODULES?|SCRIPTS?)(?:_|$)"
    r"|^(?:NODE|NPM|YARN|PNPM|BUN|DENO|TS_NODE|TSX|GIT|LD|DYLD|PYTHON|PERL|RUBY|JAVA|_JAVA|JDK|DOTNET|ELECTRON"
    r"|COREPACK|VOLTA|NVM|BASH|ZDOTDIR|ENV$|SSH)",
    re.IGNORECASE,
)
#: The largest environment file cogtools reads (dotenv reads it whole; one larger cannot run unasked).
MAX_ENVIRONMENT_BYTES = 1024 * 1024
#: The most names an environment file's pin lists (past it, the names' digest).
MAX_ENVIRONMENT_NAMES = 256


class EnvironmentPin(t.NamedTuple):
    """An environment file as its pin names it (:func:`environment_pin`)."""

    #: the names it sets, sorted, as the pin keeps them (None: none)
    names: str | None
    #: whether one may choose code, so that its values are pinned too
    chooses: bool
    #: why it cannot be pinned ("": it can)
    why: str = ""
    #: its bytes' SHA-256, pinned where its values are (None: it has none)
    digest: str | None = None


def environment_pin(path: str) -> EnvironmentPin:
    """What an environment file sets, by every way a loader may read a line (``KEY=value``,
    ``export KEY=value``, dotenv's ``KEY: value``; a line of a value that spans lines read as
    one too, so that no name any loader sees is missed): its names, and whether one may choose
    code (:data:`CHOOSING_NAME`; or a value is, dotenvx's ``$(...)``). Not a regular file, or one past
    :data:`MAX_ENVIRONMENT_BYTES`: why it cannot be pinned."""
    opened = open_regular(path)
    if opened is None:
        special = "(not a regular file)"  # (a FIFO would make dotenv wait for ever, a directory fail)
        return EnvironmentPin(special, True, "", special) if os.path.lexists(path) else EnvironmentPin(None, False)
    with opened as f:
        try:
            data = f.read(MAX_ENVIRONMENT_BYTES + 1)
        except OSError:
            return EnvironmentPin(None, True, "cogtools cannot read it")
    if len(data) > MAX_ENVIRONMENT_BYTES:
        why = f"an environment file over {MAX_ENVIRONMENT_BYTES // (1024 * 1024)} MiB, which cogtools does not read"
        return EnvironmentPin(None, True, why)
    names = set()
    for line in data.decode("utf-8", "replace").splitlines():
        line = line.strip().removeprefix("\ufeff")
        if line.startswith("export ") or line.startswith("export\t"):
            line = line[7:].lstrip()
        name = re.split(r"[=:]", line, maxsplit=1)[0].strip() if ("=" in line or ":" in line) else ""
        if name and not name.startswith("#"):
            names.add(name[:128])
    # (dotenvx runs a value's $(...) and `...`: such a value is code)
    substitutes = b"$(" in data or b"`" in data
    chooses = substitutes or any(CHOOSING_NAME.search(n) and n != "NODE_ENV" for n in names)
    listed, digest = sorted(names), hashlib.sha256(data).hexdigest()
    if len(listed) > MAX_ENVIRONMENT_NAMES:
        named = NAMES_DIGEST + hashlib.sha256("\n".join(listed).encode()).hexdigest()
        return EnvironmentPin(named, chooses, "", digest)
    return EnvironmentPin("names:" + "\n".join(listed) if listed else None, chooses, "", digest)


#: How an environment file's pin names what it sets past :data:`MAX_ENVIRONMENT_NAMES`: their digest.
NAMES_DIGEST = "names:sha256:"


#: What node reads of a package.json to load code (how it reads a module, where a package's
#: entry points are, what ``#name`` imports map to); a package's own pin adds its name and version.
LOAD_FIELDS = ("type", "main", "exports", "imports")
#: What a package manager reads of it to run a script besides the script (``npm run NAME``):
#: its name and ``config`` (the script's ``$npm_package_`` variables), and what chooses the
#: manager (``packageManager``, for corepack) and node (``devEngines.runtime``,
#: ``pnpm.executionEnv``, volta). Not its version, bumped at each release: a script that reads
#: ``$npm_package_version`` pins the whole file, and code that chooses what it loads by a
#: variable is open already.
RUN_FIELDS = ("name", "config", "packageManager", "devEngines", "pnpm", "volta")


#: What a package manager reads of the workspace root's package.json to run a script of one of
#: its packages: where the workspace's packages are, and what chooses the manager and node.
ROOT_FIELDS = ("workspaces", "packageManager", "devEngines", "pnpm", "volta")


def manifest_reads(manifests: t.Iterable[tuple[Path, str]]) -> dict[Path, tuple[str, tuple[str, ...] | None]]:
    """For each package.json (or other file a manager reads) of a tool's code
    (:attr:`cogtools.run.Code.manifests`), how its pin names it (``#load``, ``#run:lint,test``,
    ``#root``; whole: nothing; ``#data``: shown to the program, not pinned) and the fields it
    covers (``scripts.lint`` a script; None: its bytes, whole), by all the ways it is read."""
    hows: dict[Path, set[str]] = collections.defaultdict(set)
    for path, how in manifests:
        hows[path].add(how)
    reads: dict[Path, tuple[str, tuple[str, ...] | None]] = {}
    for path, ways in hows.items():
        if ways == {"data"}:  # (a lockfile the manager reads, which is no code)
            reads[path] = ("#data", ())
            continue
        ways.discard("data")
        names = sorted(how.partition(":")[2] for how in ways if how.startswith("run:"))
        configs = sorted(how.partition(":")[2] for how in ways if how.startswith("config:"))
        if not ways <= {"load", "root", *(f"run:{name}" for name in names), *(f"config:{c}" for c in configs)}:
            reads[path] = ("", None)
            continue
        fields: list[str] = [*LOAD_FIELDS] if names or "load" in ways else []
        if names:
            fields += [
                *RUN_FIELDS,
                *(f"scripts.{key}" for name in names for key in (f"pre{name}", name, f"post{name}")),
            ]
        key = "#run:" + ",".join(names) if names else "#load" if "load" in ways else ""
        if "root" in ways:
            fields += ROOT_FIELDS
            key = f"{key}+root" if key else "#root"
        if configs:  # (a tool's own key: "prettier", "eslintConfig")
            fields += configs
            key = f"{key}+config:{','.join(configs)}" if key else f"#config:{','.join(configs)}"
        reads[path] = (key, tuple(fields))
    return reads


def manifest_digest(data: bytes, fields: t.Sequence[str] | None = LOAD_FIELDS) -> str | None:
    """The SHA-256 of the canonical JSON of ``fields`` of a package.json (absent ones left out;
    ``scripts.NAME``: that member of ``scripts``), so that an edit of anything else (another
    script, dependencies, a tool's settings) leaves a pin as it is; of its bytes, when it is not a
    JSON object (node would refuse to load from it) or ``fields`` is None."""
    if fields is None:
        return hashlib.sha256(data).hexdigest()
    try:
        data_ = json.loads(data)
    except (ValueError, RecursionError):
        data_ = None
    if not isinstance(data_, dict):
        return "bytes:" + hashlib.sha256(data).hexdigest()
    chosen: dict[str, t.Any] = {}
    for field in fields:
        top, _, member = field.partition(".")
        value = data_.get(top)
        if not member and top in data_:
            chosen[top] = value
        elif member and isinstance(value, dict) and member in value:
            chosen.setdefault(top, {})[member] = value[member]
    canonical = json.dumps(chosen, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "load:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


#: The version of what :func:`~cogtools.run.program_files.package_imports` finds, kept with each
#: file's stamps: a file read by an older one is read again.
SCANNER = 5


class _Stamps:
    """The digests of the files of installed packages, each kept with its stat stamps (size,
    mtime_ns, inode, device, ctime_ns), in the user's state directory: a check reads again only
    a file whose stamps changed. ctime cannot be set back by a user, so a file rewritten and
    given its old mtime back still reads as changed."""

    def __init__(self, project: Project) -> None:
        path = pins_path(project.root, project.environ)
        self.path = None if path is None else path.with_name(path.stem + ".stamps.json")
        self.known: dict[str, list[t.Any]] = {}
        self.changed = False
        self.loaded = False

    def _load(self) -> None:
        self.loaded = True
        if self.path is None:
            return
        try:
            if is_private(self.path.stat()):
                data = json.loads(read_file(self.path, 64 * 1024 * 1024))
                self.known = data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            pass

    def digest(self, path: str, info: os.stat_result, scan: bool = False) -> tuple[str | None, list[str]]:
        """The SHA-256 of the file at ``path`` (whose stat is ``info``), and, with ``scan`` (a
        JavaScript file), the packages it imports by name (:func:`~cogtools.run.program_files.package_imports`)."""
        kept = self._kept(path, _stamp(info), scan)
        if kept is not None:
            return str(kept[5]), [str(name) for name in kept[6] or ()]
        digest, after, data = _file_digest(path, keep=scan)
        imports = sorted(_package_imports(data)) if data is not None else []
        if digest is not None and after is not None:
            self._keep(path, info, after, digest, imports if scan else None)
        return digest, imports

    def imports(self, path: str, info: os.stat_result, digest: str, data: bytes) -> list[str]:
        """What the JavaScript file at ``path`` imports (:meth:`digest`), of ``data``, its bytes
        just read (whose SHA-256 is ``digest``): kept with its stamps, and read from there while
        they and the digest are the same (a scan of a large module costs more than its read)."""
        kept = self._kept(path, _stamp(info), True)
        if kept is not None and kept[5] == digest:
            return [str(name) for name in kept[6]]
        imports = sorted(_package_imports(data))
        with contextlib.suppress(OSError):
            self._keep(path, info, os.lstat(path), digest, imports)
        return imports

    def _kept(self, path: str, stamp: list[int], scan: bool) -> list[t.Any] | None:
        """What is kept of the file at ``path`` while its stamps are ``stamp``: its digest, and what
        it imports when it was read for that (needed with ``scan``), by this version's scan."""
        if not self.loaded:
            self._load()
        kept = self.known.get(path)
        if not (isinstance(kept, list) and len(kept) == 8 and kept[:5] == stamp and kept[7] == SCANNER):
            return None
        return kept if isinstance(kept[6], list) or kept[6] is None and not scan else None

    def _keep(
        self, path: str, before: os.stat_result, after: os.stat_result, digest: str, imports: list[str] | None
    ) -> None:
        if _stamp(after) == _stamp(before):  # not changed while it was read: its stamps stand for these bytes
            self.known[path] = [*_stamp(before), digest, imports, SCANNER]
            self.changed = True

    def save(self) -> None:
        if self.changed and self.path is not None:
            with contextlib.suppress(OSError):
                write_private(self.path, json.dumps(self.known))
            self.changed = False


#: A JavaScript file of a package larger than this is not read for what it imports (a bundle
#: of this size imports little; typescript's largest file is 9 MB).
MAX_SCANNED_PACKAGE_FILE = 32 * 1024 * 1024
#: What node loads as JavaScript, among a package's files.
JAVASCRIPT_FILES = (".js", ".mjs", ".cjs")
#: What tsx loads of a package besides (not a declaration file, ``.d.ts``: types only).
TYPESCRIPT_FILES = (".ts", ".mts", ".cts", ".tsx")
#: A package's TypeScript that no program of it runs: declarations, and tests.
TS_NOT_RUN = re.compile(r"\.d\.[mc]?ts$|\.(?:test|spec)\.[mc]?tsx?$|/(?:tests?|__tests__|spec)/")
#: A package's JavaScript that no program of it runs: its tests and its build's own files
#: (esrecurse's gulpfile imports minimist, a devDependency: any package that brings minimist
#: would ask again for every eslint tool).
JS_NOT_RUN = re.compile(r"\.(?:test|spec)\.[mc]?jsx?$|/(?:tests?|__tests__|spec)/|/(?:gulpfile|Gruntfile)[^/]*$", re.I)


def scanned(path: str) -> bool:
    """Whether a file of a package is read for what it imports: what node loads as JavaScript by
    its suffix, and a file with none, which CommonJS loads as JavaScript (a package's ``bin``
    scripts are often such), and TypeScript, which tsx loads. A file of another suffix that a package requires by its whole name
    (``require('./x.txt')``) is not."""
    name = os.path.basename(path)
    if name.endswith(JAVASCRIPT_FILES) or "." not in name:
        return not JS_NOT_RUN.search(path.replace(os.sep, "/"))
    # a package's TypeScript source, but not its types nor its tests (zod ships tests that import
    # esbuild: pinned with every tool that imports zod, any update of esbuild would ask again)
    return name.endswith(TYPESCRIPT_FILES) and not TS_NOT_RUN.search(path.replace(os.sep, "/"))


def _stamp(info: os.stat_result) -> list[int]:
    """What a file's stat says of its bytes: size, mtime_ns, inode, device, ctime_ns."""
    return [info.st_size, info.st_mtime_ns, info.st_ino, info.st_dev, info.st_ctime_ns]


def _file_digest(path: str, keep: bool = False) -> tuple[str | None, os.stat_result | None, bytes | None]:
    """The SHA-256 of a regular file and its stat when read to the end, or (None, None), and with
    ``keep`` its bytes, while no larger than :data:`MAX_SCANNED_PACKAGE_FILE` (else None)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError:
        return None, None, None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None, None, None
        digest, chunks, size = hashlib.sha256(), [], 0
        while chunk := os.read(fd, 1024 * 1024):
            digest.update(chunk)
            size += len(chunk)
            if keep and size <= MAX_SCANNED_PACKAGE_FILE:
                chunks.append(chunk)
        kept = b"".join(chunks) if keep and size <= MAX_SCANNED_PACKAGE_FILE else None
        return digest.hexdigest(), os.fstat(fd), kept
    except OSError:
        return None, None, None
    finally:
        os.close(fd)


def _package_imports(data: bytes) -> set[str]:
    from cogtools.run.program_files import package_imports

    return package_imports(data.decode("utf-8", "replace"))


#: The start of a look's key among a pin's files (no path of the project starts so).
LOOKS = "/looks: "


#: What a refusal of a package past the bound says: no declaration closes it.
PAST_BOUND = "which cogtools does not pin, declared or not"


#: An installed package of at most this many files is shown its program as the bytes that were
#: checked, file by file (:mod:`cogtools.run.bind`); a larger one is read from disk just after its
#: check (docs/trust.md: the time-of-check gap).
MAX_KEPT_PACKAGE_FILES = 256


class _Tree:
    """The digest of an installed package's tree, entry by entry (:func:`package_pin`), and the
    bytes read on the way, while they are few enough to show the program (``keep``)."""

    def __init__(self, stamps: _Stamps, keep: bool) -> None:
        self.stamps, self.keep = stamps, keep
        self.hash = hashlib.sha256()
        self.files = self.size = 0
        self.found: dict[str, bytes] = {}
        #: the packages its JavaScript files import by name, listed in its package.json or not
        self.imports: set[str] = set()

    def past(self) -> bool:
        from cogtools.core.limits import MAX_PACKAGE_BYTES, MAX_PACKAGE_FILES

        return self.files > MAX_PACKAGE_FILES or self.size > MAX_PACKAGE_BYTES

    def kept(self) -> bool:
        return self.keep and self.files <= MAX_KEPT_PACKAGE_FILES and self.size <= MAX_KEPT_BYTES

    def add(self, full: str, relative: str) -> None:
        """Add the entry ``full`` (``relative`` to the package): its kind and content."""
        try:
            info = os.lstat(full)
        except OSError:
            self.hash.update(f"{relative}\0gone\n".encode())
            return
        self.files += 1
        if stat.S_ISLNK(info.st_mode):
            kind, digest = "link", os.readlink(full)
        elif stat.S_ISREG(info.st_mode):
            self.size += info.st_size
            if self.past():
                return
            kind = "exec" if info.st_mode & 0o111 else "file"
            scan = scanned(full)
            if self.kept():
                read, data = _digest(Path(full))  # read now: what is hashed is what the program is shown
                digest = read or "unreadable"
                if data is not None:
                    self.found[os.path.realpath(full)] = data
                    self.imports.update(self.stamps.imports(full, info, digest, data) if scan else ())
            else:
                found, imports = self.stamps.digest(full, info, scan)
                digest = found or "unreadable"
                self.imports.update(imports)
        else:
            kind, digest = "special", str(stat.S_IFMT(info.st_mode))
        self.hash.update(f"{relative}\0{kind}\0{digest}\n".encode("utf-8", "surrogateescape"))


class PackagePin(t.NamedTuple):
    #: ``NAME@VERSION sha256:DIGEST``, or None when it cannot be pinned
    pinned: str | None
    #: why it cannot be pinned, or None
    why: str | None
    #: the packages its JavaScript files import by name (:attr:`_Tree.imports`)
    imports: frozenset[str] = frozenset()


def package_pin(directory: Path, stamps: _Stamps, keep: dict[str, bytes] | None = None) -> PackagePin:
    """An installed npm package as one pin entry: ``NAME@VERSION sha256:DIGEST``, the digest of
    its installed tree (every entry's path, kind, executable bit and content: a file's SHA-256, a
    link's target; the packages of its own ``node_modules`` are packages of their own, pinned as
    node finds them), and why it cannot be pinned (None: it can): more than
    :data:`~cogtools.core.limits.MAX_PACKAGE_FILES` files or
    :data:`~cogtools.core.limits.MAX_PACKAGE_BYTES` bytes; and the packages it imports."""
    from cogtools.core.limits import MAX_PACKAGE_BYTES, MAX_PACKAGE_FILES

    try:
        manifest = json.loads(read_file(directory / "package.json", MAX_CONFIG_BYTES))
    except (OSError, ValueError, RecursionError):
        manifest = None
    manifest = manifest if isinstance(manifest, dict) else {}
    name, version = manifest.get("name"), manifest.get("version")
    tree = _Tree(stamps, keep is not None)
    for top, dirs, names in os.walk(directory):
        dirs.sort()
        if top == str(directory):
            dirs[:] = [d for d in dirs if d != "node_modules"]
        for entry in sorted([*names, *(d for d in dirs if os.path.islink(os.path.join(top, d)))]):
            full = os.path.join(top, entry)
            tree.add(full, os.path.relpath(full, directory))
            if tree.past():
                break
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(top, d))]
        if tree.past():
            label = f"{name}@{version}" if isinstance(name, str) else str(directory)
            return PackagePin(
                None,
                f"the package {label} is more than {MAX_PACKAGE_FILES} files or {MAX_PACKAGE_BYTES // (1024 * 1024)}"
                f" MB, {PAST_BOUND}",
            )
    if keep is not None and tree.kept():
        keep.update(tree.found)  # all of it or none: a package half shown its checked bytes is no better
    from cogtools.run.program_files import mapped_packages

    imports = frozenset((tree.imports | mapped_packages(manifest.get("imports"))) - {name})
    return PackagePin(f"{name}@{version} sha256:{tree.hash.hexdigest()}", None, imports)


def declares(declared: t.Sequence[str], needs: str | None) -> bool:
    """Whether the ``code`` a tool declares closes what cogtools could not tell of it: the
    project path ``needs`` (or anything, for None, which only the person can say)."""
    if needs is None:
        return bool(declared)
    entries = [os.path.normpath(entry) for entry in declared]
    return any(needs == entry or needs.startswith(entry + os.sep) for entry in entries)


#: The most links followed in telling whether a path leads through /proc (the kernel's own bound).
MAX_LINK_HOPS = 40


def _through_proc(path: str) -> bool:
    """Whether following ``path`` (absolute) passes through a link into /proc or /dev/fd, which
    each process resolves as itself (``/proc/self/cwd``): its links, component by component."""
    parts = [part for part in path.split(os.sep) if part]
    current, hops = os.sep, 0
    while parts:
        part = parts.pop(0)
        candidate = os.path.join(current, part)
        if candidate.startswith(("/proc/", "/dev/fd/")) or candidate in ("/proc", "/dev/fd"):
            return True
        try:
            target = os.readlink(candidate)
        except OSError:  # (no link, or nothing there)
            current = candidate
            continue
        hops += 1
        if hops > MAX_LINK_HOPS:
            return True
        parts = [p for p in target.split(os.sep) if p] + parts
        current = os.sep if target.startswith(os.sep) else current
    return False


def _size(path: str) -> int:
    """The size of what is at ``path`` (0: nothing there, or no regular file)."""
    try:
        found = os.stat(path)
    except OSError:
        return 0
    return found.st_size if stat.S_ISREG(found.st_mode) else 0


def _digest(path: Path | str) -> tuple[str | None, bytes | None]:
    """The SHA-256 of a regular file, and its bytes when it is no larger than
    :data:`MAX_KEPT_BYTES`; None for what is not one (a FIFO the agent put in place of a module
    would make a plain open wait for ever) or cannot be read."""

    opened = open_regular(path)  # (a directory put at its name: none, not an error)
    if opened is None:
        return None, None
    with opened as f:
        try:
            digest, chunks, size = hashlib.sha256(), [], 0
            while chunk := f.read(1024 * 1024):
                digest.update(chunk)
                size += len(chunk)
                if size <= MAX_KEPT_BYTES:
                    chunks.append(chunk)
            return digest.hexdigest(), b"".join(chunks) if size <= MAX_KEPT_BYTES else None
        except OSError:
            return None, None


#: The shape of the pins this cogtools writes and reads: 1, each place where no file is named;
#: 2, looks (:attr:`cogtools.run.Code.looks`). A pin of a later shape is a newer cogtools' own:
#: this one neither checks a call against it nor writes over it.
PIN_FORMAT = 2


def newer_pin(pin: t.Mapping[str, t.Any]) -> str | None:
    """Why ``pin`` is not this cogtools' to check or replace (a newer one wrote it), or None."""
    shape = pin.get("format", 1)
    if isinstance(shape, int) and shape <= PIN_FORMAT:
        return None
    return (
        f"it was pinned by a newer cogtools (pins of shape {shape}; this one, {__version__}, knows {PIN_FORMAT}):"
        " run that one (its `cogtools sync` and `cogtools-call`), or upgrade this one"
    )


def load(project: Project) -> dict[str, dict[str, str]]:
    """The pins of ``project`` (name -> {path, sha256}); {} when there are none or the file is not
    the user's own and private, or not what cogtools writes."""
    path = pins_path(project.root, project.environ)
    if path is None:
        return {}

    try:
        if not is_private(path.stat()):
            return {}
        data = json.loads(read_file(path, MAX_PINS_BYTES))
    except (OSError, ValueError):
        return {}
    pins = data.get("pins") if isinstance(data, dict) and data.get("root") == str(project.root) else None
    if not isinstance(pins, dict):
        return {}
    return {
        name: pin
        for name, pin in pins.items()
        if isinstance(pin, dict) and isinstance(pin.get("path"), str) and isinstance(pin.get("sha256"), str)
    }


def _closure_change(pinned: t.Any, now: dict[str, t.Any], root: Path | None = None) -> str | None:
    """What changed between the closure a person allowed and the one there is now, in words
    (paths relative to the project at ``root``)."""
    if not isinstance(pinned, dict):  # pinned by a cogtools that pinned the definition only
        if now["files"]:
            return f"what it runs ({', '.join(sorted(now['files']))}) was never reviewed (pinned by an older cogtools)"
        return None
    files = pinned.get("files")
    before_files: dict[str, t.Any] = files if isinstance(files, dict) else {}
    # (the most telling change first: a file it now runs, one written where none was, a
    # package.json newly read, a changed file, before a package.json read another way and what it
    # no longer runs because of it; a place named where nothing is, as a new directory
    # under what prettier formats gives, is no change: a file written there later is)
    paths = sorted(set(before_files) | set(now["files"]))
    changes = [change for path in paths if (change := _path_change(path, before_files, now, root))]
    if changes:
        return min(changes, key=lambda change: change[0])[1]
    given = set(pinned.get("vouched") or ()) if isinstance(pinned.get("vouched"), list) else set()
    taken = sorted(set(now.get("vouched") or ()) - given)
    if taken:
        return f"cogtools can no longer tell all the code it runs ({taken[0]}), and its code: declaration would close that on your word"
    if pinned.get("settings") != now["settings"]:
        changed = sorted(
            key
            for key in set(pinned.get("settings") or {}) | set(now["settings"])
            if (pinned.get("settings") or {}).get(key) != now["settings"].get(key)
        )
        return f"the setting that chooses what it runs changed ({', '.join(changed)})"
    return None


def _path_change(
    path: str, before_files: dict[str, t.Any], now: dict[str, t.Any], root: Path | None
) -> tuple[int, str] | None:
    """How the closure's entry ``path`` changed, ranked (:func:`_closure_change`), or None."""
    if path.startswith(LOOKS):
        return _look_change(path, before_files, now["files"].get(path))
    if path.endswith("#" + ENV_READ):
        file, now_ = path.removesuffix("#" + ENV_READ), now["files"].get(path)
        change = _environment_change(file, before_files.get(path), now_)
        if change is not None and path not in before_files:  # (a pin made before cogtools read it so)
            return change[
                0
            ], f"{file}, which it may load, is now pinned by the variables it sets (it sets {_names(now_)})"
        return change
    if path not in now["files"]:
        if before_files[path] is None and _nothing_at(root, path):
            return None  # (a place no longer looked at, where nothing was nor is: nothing runs from it)
        if before_files[path] is None:
            # (something is now where it looked, and is no longer looked at: a link leading out of
            # the workspace, or what the reading took another way because of it)
            return 1, f"something is now at {path}, where it looked for its code"
        there = root is not None and os.path.lexists(root / path.partition("#")[0])
        gone = f"it no longer runs {_said(path)} as it did: what leads to it changed" if there else None
        return 4, gone or f"{_said(path)}, which it ran, is gone"
    if path not in before_files and now["files"][path] is None and _nothing_at(root, path):
        return None  # (a place named now where nothing is: nothing more runs; one written there later is a change)
    if path not in before_files or before_files[path] is None and now["files"][path] is not None:
        # (a package.json read another way, as what a changed file names moved, after that file)
        read_before = "#" in path and any(p.partition("#")[0] == path.partition("#")[0] for p in before_files)
        # (a package, pinned whole, after a file that names it, new or changed: the .npmrc
        # before the workspace root's package its node-options preload a file of)
        rank = (3 if read_before else 1) if "#" in path else 3 if path.endswith("/") else 0
        return rank, _moved_package(path, before_files, now["files"]) or f"it now runs {_said(path)}"
    if before_files[path] != now["files"][path]:
        return 2, f"{_said(path)}, which it loads, changed"
    return None


def _environment_change(file: str, before: str | None, now: str | None) -> tuple[int, str] | None:
    """How an environment file a program may load of itself changed (:data:`ENV_READ`: the names
    it sets, or its digest where one may choose code; None: nothing set there), ranked
    (:func:`_closure_change`), or None: a variable removed is none (no code more runs for it)."""
    if before == now or now is None:
        return None
    if now.startswith("names:") and (before is None or before.startswith("names:")):
        if now.startswith(NAMES_DIGEST) or (before or "").startswith(NAMES_DIGEST):  # (past the names it lists)
            return 1, f"{file}, which it may load, now sets other variables"
        listed = set(now.removeprefix("names:").split("\n"))
        added = sorted(listed - set((before or "names:").removeprefix("names:").split("\n")) - {""})
        return (1, f"{file}, which it may load, now sets {', '.join(added[:3])}") if added else None
    if before is None or before.startswith("names:"):
        return 1, f"{file}, which it may load, now sets a variable that may choose the code it runs"
    return 2, f"{file}, which sets a variable that may choose the code it runs, changed"


def _names(pinned: str | None) -> str:
    """The variables an environment file's pin names, in words (a few)."""
    listed = (pinned or "").removeprefix("names:").split("\n") if (pinned or "").startswith("names:") else []
    if not listed or (pinned or "").startswith(NAMES_DIGEST):
        return "variables that may choose the code it runs" if pinned and not listed else "other variables"
    return ", ".join(listed[:3]) + (", ..." if len(listed) > 3 else "")


def _said(path: str) -> str:
    """A pin's entry in words: a package.json read one way (``x/package.json#config:eslintConfig``)
    as the file and what of it is read."""
    file, _, how = path.partition("#")
    if not how:
        return path
    parts = []
    for read in how.split("+"):
        kind, _, names = read.partition(":")
        listed = ", ".join(names.split(","))
        parts.append(
            {"load": "what node reads of it", "run": f"its scripts {listed}", "config": f"its {listed}"}.get(kind, read)
        )
    return f"{file} ({'; '.join(parts)})"


def _moved_package(path: str, before_files: dict[str, t.Any], now_files: dict[str, t.Any]) -> str | None:
    """How the installed package it now loads at ``path`` was loaded from another place before
    (an install moved it: npm put another version at the top and this one under its dependent),
    in words, or None."""
    name = path.rstrip("/")
    while "node_modules/" in name:
        name = name.partition("node_modules/")[2]
    if not path.endswith("/") or name == path.rstrip("/"):
        return None
    before = [key for key in before_files if key.endswith(f"node_modules/{name}/") and key not in now_files]
    if not before:
        return None
    version, was = (
        str(files.get(key) or "").partition(" ")[0] for files, key in ((now_files, path), (before_files, before[0]))
    )
    return (
        f"it now loads {name} from {path}{f' ({version})' if version else ''}, where it loaded"
        f" {before[0]}{f' ({was})' if was else ''}: an install moved it"
    )


def _look_change(key: str, before_files: dict[str, t.Any], now: t.Any) -> tuple[int, str] | None:
    """What a look (``key``) finds that it did not: a file where it looks for its configuration,
    which the pin did not hold before (as the look's, or as a file of the closure: a pin made
    before looks were); one no longer found is told by its own entry."""
    if not isinstance(now, str):
        return None
    pinned = before_files.get(key)
    known = (
        set(pinned.split("\n")) if isinstance(pinned, str) else {k for k, v in before_files.items() if v is not None}
    )
    new = sorted(set(now.split("\n")) - known - {""})
    if not new:
        return None
    return 1, f"something is now at {new[0]}, where {key.removeprefix(LOOKS)} looks for its configuration"


def _nothing_at(root: Path | None, path: str) -> bool:
    """Whether nothing at all is at the project path ``path`` (not a file cogtools cannot read:
    a FIFO, one of mode 0)."""
    return root is not None and not os.path.lexists(root / path.partition("#")[0])


class Candidate(t.NamedTuple):
    """A tool as it would be pinned now, read once: what a person reviews is what is pinned."""

    #: The tool built from the bytes that were hashed.
    tool: Tool
    #: The pin: the definition's path and SHA-256, and the closure.
    pin: dict[str, t.Any]
    #: None when it is pinned so already; else "new" or what changed since (in words).
    change: str | None
    #: Why it cannot be allowed to run unasked: what of its code cannot be told (empty: it can).
    open: tuple[str, ...] = ()
    #: What of its code cannot be told that its ``code:`` closes on the person's word (:attr:`Closed.vouched`).
    vouched: tuple[str, ...] = ()


def candidates(tools: t.Iterable[Tool], project: Project) -> list[Candidate]:
    """Each of ``tools`` as it would be pinned now, and what changed since its pin; a tool whose
    definition cannot be read (or no longer defines it) is left out: it cannot be pinned."""
    pins = load(project)
    out: list[Candidate] = []
    for tool in tools:
        data = _definition_bytes(tool, project.root)
        if data is None:
            continue
        try:
            verified = _verified(tool, data, project.root)
        except PolicyDeniedError:
            continue
        pin: dict[str, t.Any] = {"path": tool.origin.path, "sha256": hashlib.sha256(data).hexdigest()}
        newer = newer_pin(pins.get(tool.name) or {})
        if newer is not None:  # (neither allowed nor replaced by this one: its code is not read)
            out.append(Candidate(verified, pin, newer, (newer,)))
            continue
        closed = _closure(verified, project)
        pin["closure"] = closed.summary
        change = _change(pins.get(tool.name), pin, project.root)
        if closed.open and change is None:
            change = ("open", "what it runs can no longer be told")
        out.append(Candidate(verified, pin, None if change is None else change[1], closed.open, closed.vouched))
    return out


def record(project: Project, pinned: t.Mapping[str, dict[str, t.Any]]) -> int:
    """Pin exactly ``pinned`` (name -> :attr:`Candidate.pin`) for ``project``; how many were
    pinned. Written atomically, private to the user."""
    path = pins_path(project.root, project.environ)
    if path is None:
        return 0

    # (a newer cogtools' pins are kept as they are: neither allowed nor dropped by this one)
    kept = {name: pin for name, pin in load(project).items() if name not in pinned and newer_pin(pin)}
    pins = {**kept, **{name: {**pin, "format": PIN_FORMAT} for name, pin in pinned.items()}}
    text = json.dumps({"root": str(project.root), "pins": pins}, indent=2, sort_keys=True) + "\n"
    if len(text.encode("utf-8")) > MAX_PINS_BYTES:  # (one cogtools could not read back would pin nothing)
        raise ConfigInvalidError(
            f"the pins of {len(pins)} tools would be {len(text) // (1024 * 1024)} MiB, past the"
            f" {MAX_PINS_BYTES // (1024 * 1024)} MiB cogtools reads: let fewer tools run without confirmation"
        )
    write_private(path, text)
    return len(pinned)


class Checked(t.NamedTuple):
    """A tool as a person allowed it, and the bytes that were checked (real path -> bytes): its
    definition and the files of its closure, which a run uses instead of reading them again."""

    tool: Tool
    files: t.Mapping[str, bytes] = {}
    #: What the person running it must be told (it runs unconfined: ``sandbox.unconfined: warn``).
    warnings: tuple[str, ...] = ()


def check(tool: Tool, project: Project) -> Tool:
    """``tool`` as the person allowed it (:func:`verify`)."""
    return verify(tool, project).tool


#: Whether the call at hand came the way a client's own list lets a tool run unasked (Gemini
#: CLI's rules name the tools of its discovery command, ``discovered_tool_NAME``): a call over MCP
#: did not, and no rule of Gemini CLI's (user-wide: another project's included) concerns it.
_BY_NAME: contextvars.ContextVar[bool] = contextvars.ContextVar("cogtools_pins_by_name", default=True)


@contextlib.contextmanager
def over_mcp() -> t.Iterator[None]:
    """Calls made in this block come over MCP: the clients' lists of what runs unasked (Gemini
    CLI's, for its discovery command's tools) are not asked of them. An MCP client that approves
    on its own decides on the tool's annotations, which cogtools derives from what it declares
    and holds it to (:mod:`cogtools.run.confine`)."""
    token = _BY_NAME.set(False)
    try:
        yield
    finally:
        _BY_NAME.reset(token)


def verify(tool: Tool, project: Project) -> Checked:
    """``tool`` as the person allowed it: POLICY_DENIED when it may run without confirmation but
    is not the definition a person allowed (changed, moved, shadowed), or was never pinned, or
    what it runs of the workspace (its closure) changed. A pinned tool comes back built from
    the very bytes whose digest was checked (the cache's copy when it was built from bytes of
    that digest, else built again from them), never from a second read, which a writer could
    have changed in between; and with the checked bytes of its files, for the run."""
    return _check(
        tool,
        project,
        load(project).get(tool.name),
        lambda: clients.unasked(project.root, project.environ, only=tool.name) if _BY_NAME.get() else clients.NOTHING,
    )


def refusals(tools: t.Iterable[Tool], project: Project) -> dict[str, PolicyDeniedError]:
    """The tools of ``tools`` that a call by name would refuse (:func:`check`), each with its
    refusal: what ``cogtools test`` and ``cogtools-call -v`` warn of, since they run a tool as
    its author edits it."""

    pins = load(project)
    allowed = functools.cache(lambda: clients.unasked(project.root, project.environ))
    out: dict[str, PolicyDeniedError] = {}
    for tool in tools:
        try:
            _check(tool, project, pins.get(tool.name), allowed)
        except PolicyDeniedError as e:
            out[tool.name] = e
    return out


def _check(tool: Tool, project: Project, pin: dict[str, t.Any] | None, allowed: t.Callable[[], Unasked]) -> Checked:
    if pin is None:
        source = allowed().source(tool.name)
        if source is not None:
            unclosed = _closure(tool, project).open
            if unclosed:
                raise _open_refusal(tool, unclosed, f" {source},", _another_projects(source, project, tool.name))
            raise PolicyDeniedError(
                f"{tool.name} runs without confirmation {source} but you never reviewed it for"
                f" this project: run `cogtools sync` to review and allow it (once after cloning the"
                f" project or with a new home directory, since pins are yours, not the project's)"
                + _another_projects(source, project, tool.name),
                tool=tool.name,
                details={"reason": "not_pinned", "file": tool.origin.path, "change": "never reviewed"},
            )
        return Checked(tool)
    newer = newer_pin(pin)
    if newer is not None:
        raise PolicyDeniedError(
            f"{tool.name} runs without confirmation, but {newer}",
            tool=tool.name,
            details={"reason": "newer_pin", "file": tool.origin.path, "change": newer},
        )
    data = _definition_bytes(tool, project.root)
    digest = data and hashlib.sha256(data).hexdigest()
    change = _change(pin, {"path": tool.origin.path, "sha256": digest})
    verified, files = tool, t.cast("dict[str, bytes]", {})
    if change is None and data is not None:
        # built from these very bytes already (the cache keeps their digest), or built again now
        verified = tool if tool.origin.digest == digest else _verified(tool, data, project.root)
        closed = _closure(verified, project)
        files = closed.kept
        change = _change(pin, {**pin, "closure": closed.summary}, project.root)
        if change is None and closed.open:  # (what changed, when it did, says more than what is open now)
            raise _open_refusal(verified, closed.open)
    if change is not None:
        reason, words = change
        details = {"reason": reason, "file": tool.origin.path, "change": words}
        if reason == "shadowed":
            details["allowed_file"] = pin["path"]
        raise PolicyDeniedError(
            f"{tool.name} runs without confirmation, but {words} since it was allowed; a person must review"
            " it and run `cogtools sync` to allow it again",
            tool=tool.name,
            details=details,
        )

    held = unconfined(verified, project)  # it runs without confirmation: is it held to its claims?
    if held is not None and held.refused:
        raise PolicyDeniedError(held.message, tool=tool.name, details={"reason": "unconfined"})
    return Checked(verified, files, (held.message,) if held is not None else ())


#: The most reasons a message gives of the code cogtools cannot tell (a bundler's output has dozens).
MOST_REASONS = 3


def open_reasons(unclosed: t.Sequence[str]) -> str:
    """The reasons cogtools cannot tell a tool's code, in a message: the first
    :data:`MOST_REASONS`, and how many more (each package or file whose code is open is named
    by the first)."""
    said = "; ".join(unclosed[:MOST_REASONS])
    more = len(unclosed) - MOST_REASONS
    return said + (f"; and {more} more" if more > 0 else "")


def _another_projects(source: str, project: Project, name: str) -> str:
    """What to say when what lets the tool ``name`` run unasked is the Gemini CLI rules file
    ``cogtools sync`` wrote for another project (``source``: "... a rule in FILE"): Gemini CLI's rules
    are user-wide, and name tools, not projects; else ""."""
    import re

    found = re.search(r"a rule in (.+?\.toml)\)?$", source)
    if found is None:
        return ""
    path = Path(found.group(1))  # (cogtools sync's: cogtools-NAME-KEY.toml, KEY the project's)
    if not path.name.startswith("cogtools-") or path.name.endswith(f"-{project_key(project.root)[:12]}.toml"):
        return ""
    return (
        f". That rule is another project's ({path.name}): Gemini CLI's rules are user-wide and name tools, not"
        f" projects, so Gemini CLI runs any tool named {name} unasked, in this project too; rename one of the two"
        " tools to tell them apart"
    )


def closing(unclosed: t.Sequence[str]) -> str:
    """What can let a tool whose code is open (the reasons ``unclosed``) run unasked: ``"declare"``
    (a ``code:`` declaration), ``"install"`` (a package it imports installed in the project or its
    workspace), or ``""`` (nothing: it runs only when asked)."""
    from cogtools.run.program_files import NO_PIN, NOWHERE

    if any(all(mark not in why for mark in (PAST_BOUND, NO_PIN, NOWHERE)) for why in unclosed):
        return "declare"
    return "install" if any(NOWHERE in why for why in unclosed) else ""


#: How each of :func:`closing`'s answers is said to a person, after what it cannot tell.
CLOSE_BY = {
    "declare": "declare it in the tool's `code:` (files, and directories whole) and run `cogtools sync`, or let it"
    " run only when asked",
    "install": "install the package it imports in the project (or its workspace) and run `cogtools sync`, or let it"
    " run only when asked",
    "": "let it run only when asked (no `code:` declaration reaches what cogtools does not pin)",
}


def _open_refusal(tool: Tool, unclosed: t.Sequence[str], source: str = ",", note: str = "") -> PolicyDeniedError:
    """POLICY_DENIED for a tool that runs without confirmation (``source``: where that is
    allowed) but whose code cannot be told (:attr:`Closed.open`): what, and how to close it."""
    advice = CLOSE_BY[closing(unclosed)]
    return PolicyDeniedError(
        f"{tool.name} runs without confirmation{source} but cogtools cannot tell all the code it runs:"
        f" {open_reasons(unclosed)}; {advice}{note}",
        tool=tool.name,
        details={"reason": "open_code", "file": tool.origin.path, "change": "; ".join(unclosed)},
    )


def _change(pin: dict[str, t.Any] | None, now: dict[str, t.Any], root: Path | None = None) -> tuple[str, str] | None:
    """What changed between ``pin`` and the pin ``now`` would be: the reason (``new``,
    ``shadowed``, ``changed``, ``closure_changed``) and the change in words; its closure is
    compared only when ``now`` has one. None when nothing did."""
    if pin is None:
        return "new", "new"
    if pin["path"] != now["path"]:
        return "shadowed", f"it is now defined in {now['path']}, not {pin['path']}"
    if pin["sha256"] != now["sha256"]:
        return "changed", f"its definition ({now['path']}) changed"
    closure_change = _closure_change(pin.get("closure"), now["closure"], root) if "closure" in now else None
    return None if closure_change is None else ("closure_changed", closure_change)


def _definition_bytes(tool: Tool, root: Path) -> bytes | None:

    try:
        return read_file(definition_file(tool, root), MAX_DEFINITION_BYTES)
    except (OSError, ValueError):
        return None


def _verified(tool: Tool, data: bytes, root: Path) -> Tool:
    """``tool`` as ``data`` (the checked bytes of its definition) defines it."""

    if tool.origin.format not in FORMATS:
        return tool
    result = parse_definition(
        definition_file(tool, root),
        data,
        display_path=tool.origin.path,
        source=tool.origin.source,
        fmt=tool.origin.format,
    )
    for built in result.tools:
        if built.name == tool.name:
            return built
    raise PolicyDeniedError(
        f"{tool.name} is no longer defined in {tool.origin.path}",
        tool=tool.name,
        details={"reason": "changed", "change": f"it is no longer defined in {tool.origin.path}"},
    )
