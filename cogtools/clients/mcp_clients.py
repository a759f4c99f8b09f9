"""What each MCP client's configuration needs to start ``cogtools mcp`` for a project, where the
client reads it, and how it is merged into that file (JSON, JSON with comments, or Codex's TOML).
Pure but for where files are: text in, text out; the caller reads and writes.

A project-scoped file (``.mcp.json``, ``.cursor/mcp.json``, ``.vscode/mcp.json``,
``.gemini/settings.json``, ``.qwen/settings.json``, ``.codex/config.toml``) is committed and read on
a teammate's machine, so its entry names no absolute path of this one (:func:`launch`). A
user-scoped file (Antigravity CLI, Claude Desktop, Windsurf, Copilot CLI) is this machine's alone:
its entry names this very interpreter, and the project, by absolute path."""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import shutil
import site
import sys
import typing as t
from pathlib import Path

import tomli_w

import cogtools
from cogtools.clients.gemini.settings import edit_settings
from cogtools.clients.launchers import (
    PROJECT_LAUNCHER,
    missing_launcher,
    own_install,
    refuse_own_install,
    workspace_file,
)
from cogtools.clients.launchers import project_launcher as project_launcher_of
from cogtools.core import jsonc, tomlio
from cogtools.core.environment import is_trust_variable, trust_value
from cogtools.core.errors import ConfigInvalidError
from cogtools.core.fsutil import read_config, without_runners
from cogtools.load.project import find_root
from cogtools.trust.clients import NOTHING, Client, Unasked

#: The name the server has in a project's files; in a user's file, one per project
#: (:func:`server_name`).
SERVER_NAME = "cogtools"

PROJECT, USER = "project", "user"


class UserFile(t.NamedTuple):
    """Where a client keeps the user's own file: ``path`` under a base directory, which is
    ``$variable`` when set, else ``default`` under the home directory (``config``: the user's
    configuration directory, ``$XDG_CONFIG_HOME`` or ``~/.config``; on macOS, Application
    Support)."""

    path: str
    default: str = ""
    variable: str | None = None

    def under(self, environ: t.Mapping[str, str]) -> Path:
        home = _home(environ)
        if self.variable and environ.get(self.variable):
            base = Path(environ[self.variable])
        elif self.default == "config":
            base = home / "Library" / "Application Support" if sys.platform == "darwin" else _config_home(environ)
        else:
            base = home / self.default
        return base / self.path


class McpClient(t.NamedTuple):
    """An MCP client, as far as its configuration goes; a :class:`cogtools.trust.clients.Client`."""

    name: str
    title: str
    #: Where ``cogtools init --mcp`` writes: the project's file, or the user's.
    scope: str
    #: "json", "jsonc" (comments read and kept) or "toml".
    syntax: str
    #: The key that holds the servers.
    key: str
    #: The user's own file.
    user: UserFile
    #: The project's file, relative to the project (None: the client reads none).
    project_file: str | None = None
    #: How it expands variables in an entry: "shell" (``$VAR``, ``${VAR}``, as Gemini CLI),
    #: "vscode" (``${workspaceFolder}``, ``${userHome}``, ``${env:NAME}``), or None (as written).
    variables: str | None = "shell"
    #: The client expands ``${workspaceFolder}`` in an entry (and starts it anywhere).
    workspace_folder: bool = False
    #: What a stdio entry has besides command and args.
    extra: tuple[tuple[str, t.Any], ...] = ()
    #: The keys of an entry that hold the address of an HTTP server, the ones the client reads.
    url_keys: tuple[str, ...] = ("url", "httpUrl", "serverUrl")

    def files(self, root: Path, environ: t.Mapping[str, str]) -> list[Path]:
        return list(dict.fromkeys(place.path for place in places(self.name, root, environ)))

    def unasked(self, root: Path, environ: t.Mapping[str, str], *, only: str | None = None) -> Unasked:
        """Nothing that cogtools can read: a client that approves a tool unasked does so on its
        MCP annotations (Codex, Copilot CLI), which are derived from what the tool declares, or
        on the ``trust`` of its server entry (Qwen Code), which ``cogtools doctor`` reports."""
        return NOTHING


CLIENTS: dict[str, McpClient] = {
    client.name: client
    for client in (
        # Antigravity CLI (agy), Gemini CLI's successor, documents ~/.gemini/config/mcp_config.json
        # (the user's servers) and .agents/mcp_config.json (a workspace's), mcpServers, serverUrl
        # for HTTP (antigravity.google/docs/cli/gcli-migration). init writes the user's: a
        # workspace's is reported ignored by some releases (google-antigravity/antigravity-cli#60),
        # and where agy starts a stdio server is not documented, which a project's entry (no path)
        # would rest on. Whether it expands variables in an entry is not documented either.
        McpClient(
            "antigravity",
            "Antigravity CLI",
            USER,
            "json",
            "mcpServers",
            UserFile("config/mcp_config.json", ".gemini"),
            project_file=".agents/mcp_config.json",
            variables=None,
            url_keys=("serverUrl",),
        ),
        McpClient(
            "claude-code",
            "Claude Code",
            PROJECT,
            "json",
            "mcpServers",
            UserFile(".claude.json"),
            project_file=".mcp.json",
            extra=(("type", "stdio"),),
        ),
        McpClient(
            "claude-desktop",
            "Claude Desktop",
            USER,
            "json",
            "mcpServers",
            UserFile("Claude/claude_desktop_config.json", "config"),
        ),
        McpClient(
            "codex",
            "Codex CLI",
            PROJECT,
            "toml",
            "mcp_servers",
            UserFile("config.toml", ".codex", "CODEX_HOME"),
            project_file=".codex/config.toml",
            variables=None,
        ),
        McpClient(
            "copilot",
            "GitHub Copilot CLI",
            USER,
            "json",
            "mcpServers",
            UserFile(".copilot/mcp-config.json"),
            extra=(("type", "local"), ("tools", ["*"])),
        ),
        McpClient(
            "cursor",
            "Cursor",
            PROJECT,
            "jsonc",
            "mcpServers",
            UserFile(".cursor/mcp.json"),
            project_file=".cursor/mcp.json",
            variables="vscode",
            workspace_folder=True,
        ),
        McpClient(
            "gemini",
            "Gemini CLI",
            PROJECT,
            "jsonc",
            "mcpServers",
            UserFile(".gemini/settings.json", "", "GEMINI_CLI_HOME"),
            project_file=".gemini/settings.json",
        ),
        McpClient(
            "qwen",
            "Qwen Code",
            PROJECT,
            "jsonc",
            "mcpServers",
            UserFile(".qwen/settings.json"),
            project_file=".qwen/settings.json",
        ),
        McpClient(
            "vscode",
            "VS Code",
            PROJECT,
            "jsonc",
            "servers",
            UserFile("Code/User/mcp.json", "config"),
            project_file=".vscode/mcp.json",
            variables="vscode",
            workspace_folder=True,
            extra=(("type", "stdio"),),
        ),
        McpClient("windsurf", "Windsurf", USER, "json", "mcpServers", UserFile(".codeium/windsurf/mcp_config.json")),
    )
}


#: The other names people type for a client: its program's (``claude``, ``agy``, ``code``) or its
#: product's (``gemini-cli``, ``qwen-code``, ``vs-code``), each the name of one client above.
ALIASES: dict[str, str] = {
    "agy": "antigravity",
    "claude": "claude-code",
    "code": "vscode",
    "codex-cli": "codex",
    "copilot-cli": "copilot",
    "gemini-cli": "gemini",
    "qwen-code": "qwen",
    "vs-code": "vscode",
}


def client_named(name: str) -> str | None:
    """The client that ``name`` (its own, or an alias, in any case) names, or None."""
    name = name.strip().lower()
    return name if name in CLIENTS else ALIASES.get(name)


if t.TYPE_CHECKING:  # mypy holds every record to the interface
    _EACH_IS_A_CLIENT: tuple[Client, ...] = tuple(CLIENTS.values())


class Place(t.NamedTuple):
    """A file a client reads servers from."""

    client: str
    path: Path
    scope: str
    #: The keys that lead to the servers' object in the file.
    servers_at: tuple[str, ...]


def _home(environ: t.Mapping[str, str]) -> Path:
    return Path(environ.get("HOME") or Path.home())


def _config_home(environ: t.Mapping[str, str]) -> Path:
    return Path(environ.get("XDG_CONFIG_HOME") or _home(environ) / ".config")


def user_file(client: str, environ: t.Mapping[str, str]) -> Path:
    """The user's own file of ``client``."""
    return CLIENTS[client].user.under(environ)


def places(client: str, root: Path, environ: t.Mapping[str, str]) -> list[Place]:
    """Every file ``client`` reads servers from for the project at ``root``: the project's, then
    the user's (Claude Code's user file holds the user's servers and, per project, the local
    ones)."""
    key = CLIENTS[client].key
    project = CLIENTS[client].project_file
    found = [] if project is None else [Place(client, root / project, PROJECT, (key,))]
    user = user_file(client, environ)
    found.append(Place(client, user, USER, (key,)))
    if client == "claude-code":
        found.append(Place(client, user, USER, ("projects", str(root), key)))
    return found


def target(client: str, root: Path, environ: t.Mapping[str, str]) -> Place:
    """The file ``cogtools init --mcp CLIENT`` writes: the first of the client's scope."""
    return next(place for place in places(client, root, environ) if place.scope == CLIENTS[client].scope)


def server_name(client: str, root: Path, servers: t.Mapping[str, t.Any] | None = None) -> str:
    """``cogtools`` in a project's file; ``cogtools-DIRECTORY`` in a user's, which holds the
    servers of every project, and ``cogtools-DIRECTORY-HASH`` where ``servers`` has that name
    serving another project (a directory of the same name elsewhere)."""
    if CLIENTS[client].scope == PROJECT:
        return SERVER_NAME

    name = user_server_name(root)
    taken = (servers or {}).get(name)
    if isinstance(taken, dict) and project_of(taken) not in (None, str(root)):
        name += "-" + hashlib.sha256(str(root).encode()).hexdigest()[:8]
    return name


def user_server_name(root: Path) -> str:
    """The name of the project's server in a user's file, ``cogtools-DIRECTORY`` (which
    :func:`server_name` may lengthen with a hash)."""
    slug = "".join(c if c.isalnum() or c in "-_" else "-" for c in root.name).strip("-") or "root"
    return f"{SERVER_NAME}-{slug}"


def project_of(entry: t.Mapping[str, t.Any]) -> str | None:
    """The ``--project`` an entry names, if any."""
    args = entry.get("args")
    if isinstance(args, list) and "--project" in args[:-1]:
        value = args[args.index("--project") + 1]
        return value if isinstance(value, str) else None
    return None


class Launch(t.NamedTuple):
    """How a client starts the server: the command and its arguments."""

    #: "environment" (the project's own virtual environment, by a relative path), "npm" (the
    #: project's node_modules/.bin/cogtools), "path" (cogtools on PATH) or "absolute".
    kind: str
    command: str
    args: list[str]
    #: Something the person should know ("" when nothing).
    note: str = ""


#: What the note of a launcher inside the project says.
AGENT_WRITABLE = (
    "a file of the workspace, which the agent can rewrite, and with it what the client runs (unasked calls"
    " included); `cogtools doctor` warns of it"
)


def launch(
    client: str, root: Path, environ: t.Mapping[str, str] | None = None, *, project_launcher: bool = False
) -> Launch:
    """The command that starts ``cogtools mcp`` for the project at ``root`` from ``client``: the
    cogtools that runs this, never a file of the workspace, which the agent can rewrite
    (:mod:`cogtools.clients.launchers`), unless ``project_launcher``.

    In a user's file: this interpreter and the project by absolute path, isolated (``-I``).

    In a project's file, no path of this machine: ``cogtools`` on PATH (pipx, uv tool, npm
    install -g). With ``project_launcher``, the project's own instead, by a path relative to the
    project (VS Code and Cursor are given ``${workspaceFolder}``; the other clients start a stdio
    server in the directory they were started in, the project's): a JavaScript project's
    ``node_modules/.bin/cogtools`` (the npm package), else the project's own environment that
    cogtools runs from (``.venv/bin/python -I -m cogtools``). The interpreter runs isolated, or
    the command is a console script, whose ``sys.path`` starts with its own directory: either
    way the working directory, the workspace, is not on ``sys.path``, so a ``cogtools/`` package
    the agent wrote there is not what runs.

    USAGE when cogtools runs from inside the project without ``project_launcher``, or when
    ``project_launcher`` finds no launcher of the project's."""

    environ = os.environ if environ is None else environ
    spec = CLIENTS[client]
    executable = Path(os.path.abspath(sys.executable))
    inside_project = own_install(root)
    if inside_project is not None and not project_launcher:
        raise refuse_own_install(inside_project, spec.title)
    if spec.scope == USER:
        if project_launcher and project_launcher_of(root, "cogtools") is not None:
            return Launch(
                "npm", str(root / "node_modules" / ".bin" / "cogtools"), ["mcp", "--project", str(root)], AGENT_WRITABLE
            )
        if project_launcher and inside_project is None:
            raise missing_launcher(["cogtools"])
        note = AGENT_WRITABLE if inside_project is not None else ""
        return Launch("absolute", sys.executable, [*_isolated(), "mcp", "--project", str(root)], note)
    base = "${workspaceFolder}/" if spec.workspace_folder else ""
    project = ["--project", "${workspaceFolder}"] if spec.workspace_folder else []
    if project_launcher:
        if project_launcher_of(root, "cogtools") is not None:
            return Launch("npm", base + "node_modules/.bin/cogtools", ["mcp", *project], AGENT_WRITABLE)
        if _within(executable, root) and _within(Path(sys.prefix).absolute(), root):
            relative = executable.relative_to(root).as_posix()
            return Launch("environment", base + relative, ["-I", "-m", "cogtools", "mcp", *project], AGENT_WRITABLE)
        raise missing_launcher(["cogtools"])
    return Launch("path", "cogtools", ["mcp", *project], _path_note(root, environ))


def _path_note(root: Path, environ: t.Mapping[str, str]) -> str:
    """What to know of ``cogtools`` on PATH as the command of a project's file."""

    # the PATH a client started by a person has: not the node_modules/.bin npx or pnpm put first
    found = shutil.which("cogtools", path=os.pathsep.join(without_runners(environ.get("PATH"), root)))
    if found is not None and not workspace_file(found, root):
        return ""
    where = (
        f"this PATH finds only {found}, a file of the workspace, which the agent can rewrite"
        if found is not None
        else "`cogtools` is not on this PATH"
    )
    return (
        f"{where}: the client will not find cogtools unless its own PATH does. Install it where every teammate's"
        f" PATH finds it (pipx install, uv tool install, npm install -g), or run this again with {PROJECT_LAUNCHER}"
        " for the project's own launcher (node_modules/.bin/cogtools, or the project's .venv), which the agent can"
        " rewrite"
    )


def _within(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return ".." not in path.relative_to(root).parts


def server_entry(
    client: str, root: Path, environ: t.Mapping[str, str] | None = None, *, project_launcher: bool = False
) -> dict[str, t.Any]:
    """The server's entry in ``client``'s file (:func:`launch`)."""
    how = launch(client, root, environ, project_launcher=project_launcher)
    extra = dict(CLIENTS[client].extra)
    return {
        **({"type": extra.pop("type")} if "type" in extra else {}),
        "command": how.command,
        "args": how.args,
        **extra,
    }


def _isolated() -> list[str]:
    """The interpreter's arguments that run ``cogtools`` with nothing of the working directory
    or the environment on ``sys.path``. Where cogtools is installed in the user's own
    site-packages, which ``-I`` leaves out, only the working directory is taken off the path."""

    user_site = site.getusersitepackages() if site.ENABLE_USER_SITE else None
    if user_site and Path(cogtools.__file__).resolve().is_relative_to(Path(user_site).resolve()):
        code = "import sys; sys.path[:] = [p for p in sys.path if p]; from cogtools.cli.entry import main; sys.exit(main())"
        return ["-c", code]
    return ["-I", "-m", "cogtools"]


def is_ours(entry: t.Any) -> bool:
    """Whether ``entry`` has a shape cogtools writes (any of its launches, from any machine), so
    that init may replace it without --force: nothing but a command that starts cogtools, the
    arguments ``mcp [--project DIR]``, and the keys the client's entry has."""
    if not isinstance(entry, dict) or not set(entry) <= {"type", "command", "args", "tools"}:
        return False
    command, args = entry.get("command"), entry.get("args", [])
    if not isinstance(command, str) or not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return False
    if "mcp" not in args:
        return False
    before, after = args[: args.index("mcp")], args[args.index("mcp") + 1 :]
    if not (after == [] or (len(after) == 2 and after[0] == "--project")):
        return False
    if command == "cogtools" or command.endswith("node_modules/.bin/cogtools"):
        return before == []
    return command.rsplit("/", 1)[-1].startswith("python") and (
        before == ["-I", "-m", "cogtools"] or (len(before) == 2 and before[0] == "-c")
    )


def starts_cogtools(entry: t.Any) -> bool:
    """Whether ``entry`` starts ``cogtools mcp``, however it was written (for doctor)."""
    if not isinstance(entry, dict):
        return False
    command, args = entry.get("command"), entry.get("args", [])
    if not isinstance(command, str) or not isinstance(args, list):
        return False
    words = [command.rsplit("/", 1)[-1], *(a for a in args if isinstance(a, str))]
    return "mcp" in words and any(w == "cogtools" or w.startswith("cogtools[") for w in words)


def client_config(
    client: str, root: Path, environ: t.Mapping[str, str] | None = None, *, project_launcher: bool = False
) -> dict[str, t.Any]:
    """The snippet ``client``'s configuration needs."""
    entry = server_entry(client, root, environ, project_launcher=project_launcher)
    return {CLIENTS[client].key: {server_name(client, root): entry}}


def snippet(
    client: str, root: Path, environ: t.Mapping[str, str] | None = None, *, project_launcher: bool = False
) -> str:
    """:func:`client_config` as the text of the client's file (TOML for Codex)."""

    config = client_config(client, root, environ, project_launcher=project_launcher)
    if CLIENTS[client].syntax == "toml":
        return tomli_w.dumps(config)
    return json.dumps(config, indent=2) + "\n"


class Merged(t.NamedTuple):
    text: str
    #: True when an entry a person wrote differently was kept (not forced).
    kept: bool
    #: The server's name in the file.
    name: str = SERVER_NAME


def parse(text: str | None, client: str, path: str, *, editing: bool = True) -> dict[str, t.Any]:
    """The client's file as a document ({} for none or an empty one); CONFIG_INVALID when it is
    not one the client reads (saying that it is left untouched, when ``editing``)."""
    untouched = "; left untouched" if editing else ""
    if text is None or not text.strip():
        return {}
    if CLIENTS[client].syntax == "toml":
        try:
            return tomlio.loads(text)
        except tomlio.TomlProblem as e:
            raise ConfigInvalidError(f"{e.message}{untouched}", path=path) from e

    try:  # plain JSON first: a user's file can be large (~/.claude.json), and most have no comment
        document = json.loads(text)
    except (ValueError, RecursionError):
        try:
            document = jsonc.loads(text)
        except jsonc.JsoncError as e:
            raise ConfigInvalidError(f"not JSON ({e.message}, line {e.line}){untouched}", path=path, line=e.line) from e
        if CLIENTS[client].syntax == "json":
            raise ConfigInvalidError(
                f"{CLIENTS[client].title} reads plain JSON, without comments{untouched}", path=path
            ) from None
    if not isinstance(document, dict):
        raise ConfigInvalidError(f"not a JSON object{untouched}", path=path)
    return document


def servers_in(document: t.Mapping[str, t.Any], at: t.Sequence[str], path: str) -> dict[str, t.Any]:
    """The servers' object at the keys ``at`` ({} when absent); CONFIG_INVALID when something
    there is not an object."""
    current: t.Any = document
    for key in at:
        current = current.get(key, {}) if isinstance(current, dict) else None
        if not isinstance(current, dict):
            raise ConfigInvalidError(f"`{'.'.join(at)}` is not an object; left untouched", path=path)
    return t.cast("dict[str, t.Any]", current)


def merge(
    old: str | None,
    client: str,
    root: Path,
    path: str,
    *,
    force: bool = False,
    environ: t.Mapping[str, str] | None = None,
    project_launcher: bool = False,
) -> Merged:
    """``old`` (the client's file, or None) with the server's entry added; every other byte stays,
    comments included. An entry of that name that differs is replaced when it has a shape
    cogtools writes (:func:`is_ours`), else kept unless ``force``. A file the client would not
    read, or an edit that would lose what a person wrote, is CONFIG_INVALID, left untouched."""
    document = parse(old, client, path)
    servers = servers_in(document, (CLIENTS[client].key,), path)
    name = server_name(client, root, servers)
    entry = server_entry(client, root, environ, project_launcher=project_launcher)
    if servers.get(name) == entry and old is not None:
        return Merged(old, False, name)
    if name in servers and not force and not is_ours(servers[name]):
        return Merged(old or "", True, name)
    if CLIENTS[client].syntax == "toml":
        return Merged(_merge_toml(old or "", document, name, entry, path), False, name)

    return Merged(edit_settings(old, path, [((CLIENTS[client].key, name), entry)]), False, name)


def _merge_toml(old: str, document: dict[str, t.Any], name: str, entry: dict[str, t.Any], path: str) -> str:
    """Codex's TOML with the table ``[mcp_servers.NAME]`` added, or put in place of the one there
    (and its sub-tables), every other line as it was; checked by reading the result back, which
    must be the old document with just that entry changed."""

    table = tomli_w.dumps({"mcp_servers": {name: entry}})
    lines = old.splitlines(keepends=True)
    span = _table_span(lines, ("mcp_servers", name))
    if span is not None:
        start, end = span
        text = "".join([*lines[:start], table, *(["\n"] if end < len(lines) else []), *lines[end:]])
    elif "mcp_servers" in document and name in document["mcp_servers"]:
        text = ""  # written otherwise (an inline table, dotted keys): not edited
    else:
        text = old + ("" if not old or old.endswith("\n") else "\n") + ("\n" if old.strip() else "") + table
    expected = copy.deepcopy(document)
    expected.setdefault("mcp_servers", {})[name] = entry
    try:
        ok = bool(text) and tomlio.loads(text) == expected
    except tomlio.TomlProblem:
        ok = False
    if not ok:
        raise ConfigInvalidError(
            f"cannot add the server without changing what a person wrote; left untouched. Write this by hand:\n{table}",
            path=path,
            details={"reason": "cannot_edit"},
        )
    return text


def _table_span(lines: t.Sequence[str], keys: tuple[str, ...]) -> tuple[int, int] | None:
    """The lines of the table ``[KEYS]`` and its sub-tables: from its header to the next header
    of another table (None when it has no header of its own)."""

    header = re.compile(r"[ \t]*\[\[?[ \t]*(.+?)[ \t]*\]\]?[ \t]*(?:#.*)?$")
    start = None
    for number, line in enumerate(lines):
        match = header.match(line.rstrip("\r\n"))
        if match is None:
            continue
        named = tuple(_toml_keys(match.group(1)))
        if start is None and named == keys:
            start = number
        elif start is not None and named[: len(keys)] != keys:
            return start, number
    return None if start is None else (start, len(lines))


def _toml_keys(dotted: str) -> list[str]:

    keys = []
    for match in re.finditer(r'"((?:[^"\\]|\\.)*)"|\'([^\']*)\'|([A-Za-z0-9_-]+)', dotted):
        keys.append(next(group for group in match.groups() if group is not None))
    return keys


def trust_variables_set(root: Path, environ: t.Mapping[str, str]) -> dict[str, str]:
    """Each variable that decides trust (:data:`cogtools.core.environment.TRUST_VARIABLES`) in
    ``environ`` that an entry starting cogtools in a project's client file sets (to the same
    value, or to one the client expands), with that file: a client starts a stdio server with
    the ``env`` of its entry, and the project's files can be written by the agent."""

    present = [name for name in environ if is_trust_variable(name) and environ.get(name)]
    found: dict[str, str] = {}
    if not present:
        return found
    for directory in dict.fromkeys([root, find_root(root, environ)[0]]):  # started in a subdirectory too
        for name, path in _trust_variables_in(directory, present, environ).items():
            found.setdefault(name, path)
    return found


def _trust_variables_in(root: Path, present: list[str], environ: t.Mapping[str, str]) -> dict[str, str]:
    """:func:`trust_variables_set`, for the client files of the directory ``root``."""

    found: dict[str, str] = {}
    for client, known in CLIENTS.items():
        if known.project_file is None:
            continue
        path = root / known.project_file
        try:
            servers = servers_in(parse(read_config(path), client, str(path)), (CLIENTS[client].key,), str(path))
        except ConfigInvalidError:
            continue
        for entry in servers.values():
            env = entry.get("env") if starts_cogtools(entry) else None
            if not isinstance(env, dict):
                continue
            for name in present:
                value = trust_value(env, name)
                if isinstance(value, str) and (value == environ[name] or "$" in value):
                    found.setdefault(name, str(path))
    return found
