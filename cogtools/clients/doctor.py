"""The checks ``cogtools doctor`` makes of the MCP clients set up for a project: which clients
are (every file each one reads, the project's and the user's), and for each cogtools entry there:
the file parses, the command resolves, the server starts and answers ``initialize`` and
``tools/list`` (a real process, as the client would start it; an HTTP entry's server asked as the
client asks it), timed against how long the headless clients wait (:data:`PATIENCE`), all of them
at once within one bound; the ``mcp`` extra is installed for the interpreter it runs, and what the
client does without asking."""

from __future__ import annotations

import json
import re
import subprocess
import typing as t
from pathlib import Path

from cogtools.clients.gemini.settings import read_settings
from cogtools.clients.launchers import PROJECT_LAUNCHER, machine_path, workspace_file
from cogtools.clients.mcp_clients import (
    CLIENTS,
    PROJECT,
    SERVER_NAME,
    USER,
    Place,
    parse,
    places,
    servers_in,
    starts_cogtools,
    user_file,
    user_server_name,
)
from cogtools.clients.probe import Answer, Http, Probe, Stdio, handshake, probe_all
from cogtools.core import tomlio
from cogtools.core.environment import is_trust_variable
from cogtools.core.errors import ConfigInvalidError
from cogtools.core.fsutil import find_program, read_config
from cogtools.core.printable import printable
from cogtools.load.loading import OK, PROBLEM, WARNING, Finding

#: How long doctor waits for the servers it starts, all at once, to answer ``initialize`` and
#: ``tools/list``: longer than any client waits, and bounded.
START_TIMEOUT = 10.0
#: How long doctor waits for an interpreter to say whether it has the ``mcp`` extra.
IMPORT_TIMEOUT = 30.0
#: A server that lists its tools later than this after its start loses a headless client.
SLOW = 1.0


class Patience(t.NamedTuple):
    """How long a client, run headless, waits for its MCP servers before its first turn: a server
    that answers later is left out of that turn, and of a one-turn run, without a word."""

    title: str
    run: str
    seconds: float
    said: str
    #: What makes it wait ("" when nothing does); ``{name}`` is the server's name.
    waits: str


PATIENCE = (
    # openai/codex#38689: a server not marked required gets a grace of about a second
    Patience(
        "Codex",
        "codex exec",
        1.0,
        "about 1 s",
        "for Codex, `required = true` in [mcp_servers.{name}] of its config.toml makes it wait for the server"
        " (`startup_timeout_sec` does not)",
    ),
    # anthropics/claude-code#76239: since 2.1.144 the first turn waits about 2 s for pending servers
    Patience("Claude Code", "claude -p", 2.0, "2 s", ""),
)
#: The largest user's file doctor reads (Claude Code keeps its history in ~/.claude.json).
MAX_USER_FILE = 64 * 1024 * 1024
#: The check's name in doctor's findings.
CHECK = "mcp"


class Configured(t.NamedTuple):
    """An entry that starts ``cogtools mcp`` for the project, in a file a client reads."""

    place: Place
    name: str
    entry: dict[str, t.Any]

    @property
    def where(self) -> str:
        return f"{CLIENTS[self.place.client].title}, {self.place.path}"


def find_configured(root: Path, environ: t.Mapping[str, str]) -> tuple[list[Configured], list[Finding]]:
    """Every cogtools entry for the project at ``root`` in every client's files, and a finding for
    each file that a client cannot read (a problem for the project's files; a warning for the
    user's, which may hold nothing of cogtools)."""

    found: list[Configured] = []
    findings: list[Finding] = []
    for client in CLIENTS:
        for place in places(client, root, environ):
            try:
                text = read_config(place.path, None if place.scope == PROJECT else MAX_USER_FILE)
                if text is None:
                    continue
                document = parse(text, client, str(place.path), editing=False)
                servers = servers_in(document, place.servers_at, str(place.path))
            except ConfigInvalidError as e:
                status = PROBLEM if place.scope == PROJECT else WARNING
                findings.append(
                    Finding(
                        CHECK,
                        status,
                        f"{CLIENTS[client].title}: {e}",
                        f"{CLIENTS[client].title} cannot read it either; correct it",
                    )
                )
                continue
            for name, entry in servers.items():
                if starts_cogtools(entry) and _serves(entry, root, place, environ):
                    found.append(Configured(place, name, entry))
                elif isinstance(entry, dict) and _ours_by_name(name, root, place):
                    # over HTTP, or a command that does not start cogtools (a typo) under its name
                    found.append(Configured(place, name, entry))
    return found, findings


#: Every key that holds an HTTP server's address in some client's entry.
URL_KEYS = ("url", "httpUrl", "serverUrl")


def url_of(entry: t.Any) -> tuple[str, str] | None:
    """The key and the address of an HTTP server's entry (None for any other)."""
    if not isinstance(entry, dict) or "command" in entry:
        return None
    for key in URL_KEYS:
        if isinstance(entry.get(key), str):
            return key, entry[key]
    return None


def _ours_by_name(name: str, root: Path, place: Place) -> bool:
    """Whether an entry is cogtools' for the project by the names init and the docs give it:
    ``cogtools`` (or ``cogtools-...`` in a project's file), or the project's own name in a user's
    (an address says nothing of the project it serves, nor a command mistyped)."""
    if name == SERVER_NAME:
        return True
    if place.scope == PROJECT:
        return name.startswith(f"{SERVER_NAME}-")
    return name == user_server_name(root) or name.startswith(f"{user_server_name(root)}-")


def _serves(entry: dict[str, t.Any], root: Path, place: Place, environ: t.Mapping[str, str]) -> bool:
    """Whether ``entry`` serves the project at ``root``: any entry of the project's own file; in
    the user's, one whose ``--project`` is the project, or that has none (it serves the
    directory the client starts in)."""
    if place.scope == PROJECT:
        return True
    args = [expand(a, place.client, root, environ) for a in entry.get("args", []) if isinstance(a, str)]
    if "--project" not in args or args.index("--project") + 1 >= len(args):
        return True
    try:
        return Path(args[args.index("--project") + 1]).resolve() == root
    except (OSError, RuntimeError):
        return False


_VSCODE_VARIABLE = re.compile(r"\$\{(workspaceFolder|userHome|env:([A-Za-z_][A-Za-z0-9_]*))\}")


def expand(value: str, client: str, root: Path, environ: t.Mapping[str, str]) -> str:
    """``value`` as ``client`` expands it: ``${workspaceFolder}``, ``${userHome}`` and
    ``${env:NAME}`` for VS Code and Cursor; ``$VAR`` and ``${VAR}`` for the others that expand
    variables (Claude Code, Gemini CLI, Qwen Code, Windsurf...), as Gemini CLI does; Codex takes
    it as written."""
    style = CLIENTS[client].variables
    if style == "vscode":

        def one(match: re.Match[str]) -> str:
            if match.group(1) == "workspaceFolder":
                return str(root)
            if match.group(1) == "userHome":
                return environ.get("HOME", match.group(0))
            return environ.get(match.group(2) or "", "")

        return _VSCODE_VARIABLE.sub(one, value)
    if style is None:
        return value
    return _VARIABLE.sub(lambda m: environ.get(m.group(1) or m.group(2), m.group(0)), value)


#: ``$VAR`` and ``${VAR}``, as Gemini CLI (and Qwen Code, Claude Code) expand them; an unset one
#: is left as written.
_VARIABLE = re.compile(r"\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})")


def client_findings(root: Path, environ: t.Mapping[str, str], *, start: bool = True) -> tuple[list[Finding], set[str]]:
    """The findings of every client set up for the project, and which clients those are. Every
    server is started (or asked, over HTTP) at once, as a client starts its servers, and all are
    given up on together after :data:`START_TIMEOUT`; an entry in several files is started once."""
    configured, findings = find_configured(root, environ)
    probes: dict[t.Hashable, Probe] = {}
    if start:
        for item in configured:
            if url_of(item.entry) is None and not starts_cogtools(item.entry):
                continue  # not cogtools: named, not started
            probe = _probe_of(item, root, environ)
            if probe is not None:
                probes.setdefault(_key(probe), probe)
    answers = probe_all(probes, START_TIMEOUT)
    for item in configured:
        findings += entry_findings(item, root, environ, start=start, answers=answers)
    clients = {item.place.client for item in configured}
    if "gemini" in clients:
        findings += _gemini_twice(root, environ)
    if "codex" in {item.place.client for item in configured if item.place.scope == PROJECT}:
        findings += _codex_trust(root, environ)
    if "antigravity" in clients:
        findings += _antigravity_permission(environ)
    return findings, clients


def _key(probe: Probe) -> tuple[str, ...]:
    if isinstance(probe, Http):
        return ("http", probe.url, "\0", *sorted(f"{k}: {v}" for k, v in probe.headers.items()))
    return (*probe.argv, "\0", *sorted(f"{k}={v}" for k, v in probe.env.items()))


def _probe_of(item: Configured, root: Path, environ: t.Mapping[str, str]) -> Probe | None:
    """How the client of ``item`` would reach its server, as doctor reaches it (None: it cannot)."""
    if url_of(item.entry) is not None:
        return _http_probe(item, root, environ)
    argv = _argv(item, root, environ)
    if argv is None:
        return None
    program = find_program(argv[0], root, environ)
    if program is None:
        return None
    return Stdio([program, *argv[1:]], root, {**environ, **_entry_env(item, root, environ)})


def _argv(item: Configured, root: Path, environ: t.Mapping[str, str]) -> list[str] | None:
    command, args = item.entry.get("command"), item.entry.get("args", [])
    if not isinstance(command, str) or not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return None
    return [expand(word, item.place.client, root, environ) for word in (command, *args)]


def entry_findings(
    item: Configured,
    root: Path,
    environ: t.Mapping[str, str],
    *,
    start: bool = True,
    answers: t.Mapping[t.Hashable, Answer] | None = None,
) -> list[Finding]:
    """The checks of one entry: it parses (else it would not be here), the command resolves,
    the server starts and answers in time (or, without ``start``, the extra is there), what the
    file holds of this machine or of the role, and what the client runs without asking.
    ``answers``: the servers' answers by :func:`_key`, where they were asked at once; a server
    not there is started here."""
    client = item.place.client
    title = CLIENTS[client].title
    if url_of(item.entry) is not None:
        return _http_findings(item, root, environ, start=start, answers=answers or {})
    if not starts_cogtools(item.entry):
        return [_not_cogtools(item, root, environ)]
    findings = [Finding(CHECK, OK, f"{item.where}: server {item.name!r}")]
    argv = _argv(item, root, environ)
    if argv is None:
        return [
            Finding(
                CHECK,
                PROBLEM,
                f"{item.where}: server {item.name!r} has no command and list of arguments",
                f"cogtools init --mcp {client} --force",
            )
        ]
    if item.place.scope == PROJECT:
        findings += _portable_findings(item, argv)
    findings += _environment_findings(item)
    if client == "qwen":
        findings.append(
            Finding(
                CHECK,
                WARNING,
                "Qwen Code runs a tool without asking when the server has `trust: true` (and discovered tools"
                " always), and in its auto mode a model, not you, decides whether to ask before an MCP call:"
                " cogtools' own checks (the pins, the policy) are then all that stands before a tool",
                "keep a tool that must never run unasked out of reach: a min_role above the server's role, or"
                " its category in policy.denied_categories (docs/mcp.md, The server is the gate)",
            )
        )
    program = find_program(argv[0], root, environ)
    if program is None:
        findings.append(
            Finding(
                CHECK,
                PROBLEM,
                f"{title} cannot start {argv[0]!r}: not found from {root} on this PATH",
                f"install cogtools where it is found (pipx install, uv tool install, or the project's .venv), then `cogtools init --mcp {client} --force`",
            )
        )
        return findings
    argv[0] = program
    if workspace_file(program, root):  # the file, or a link on the way to it
        findings.append(
            Finding(
                CHECK,
                WARNING,
                f"{item.where}: {title} starts {program}, inside this project, which the agent can rewrite: what"
                " the server runs (unasked calls included) is then the agent's, and no pin holds it",
                "install cogtools outside the project (pipx install, uv tool install, npm install -g) and run"
                f" `cogtools init --mcp {client}` from there; keep the project's own only knowingly, as"
                f" `cogtools init --mcp {client} {PROJECT_LAUNCHER}` does",
            )
        )
    if not start:
        findings.append(_extra_finding(item, program))
        return findings
    probe = Stdio(argv, root, {**environ, **_entry_env(item, root, environ)})
    answer = (answers or {}).get(_key(probe)) or handshake(probe.argv, probe.cwd, probe.env, START_TIMEOUT)
    findings += _start_findings(item, argv, answer)
    return findings


def _not_cogtools(item: Configured, root: Path, environ: t.Mapping[str, str]) -> Finding:
    """A problem for an entry named as cogtools' whose command does not start ``cogtools mcp``
    (``cogtols``, ``cogtools-discover``...): the client starts something else, or nothing. It is
    not started: it is not cogtools."""
    import difflib

    client = item.place.client
    argv = _argv(item, root, environ) or [str(item.entry.get("command") or "")]
    shown = " ".join([argv[0], *argv[1:]]) or "no command"
    found = find_program(argv[0], root, environ) if argv[0] else None
    said = f"{argv[0]!r} is not found on this PATH" if found is None else f"it runs {found}"
    name = Path(argv[0]).name
    if name in ("cogtools-discover", "cogtools-call"):
        hint = f" ({name} is Gemini CLI's command; an MCP client starts `cogtools mcp`)"
    elif name != "cogtools" and difflib.get_close_matches(name, ["cogtools"], 1, 0.7):
        hint = " (did you mean 'cogtools'?)"
    else:
        hint = ""
    return Finding(
        CHECK,
        PROBLEM,
        f"{item.where}: server {item.name!r} does not start `cogtools mcp` ({shown}): {said}{hint}",
        f"`cogtools init --mcp {client} --force` writes its entry again",
    )


def _http_probe(item: Configured, root: Path, environ: t.Mapping[str, str]) -> Http | None:
    """The request the client of an HTTP entry would send, as far as doctor may send it: the
    variables of a user's file filled from the environment, as the client fills them; a project's
    file sent as written (the agent can write it, and with it where a token would go). None where
    the client reads no address there."""
    found = url_of(item.entry)
    if found is None or found[0] not in CLIENTS[item.place.client].url_keys:
        return None
    own = item.place.scope == USER

    def fill(value: str) -> str:
        return expand(value, item.place.client, root, environ) if own else value

    headers: dict[str, str] = {}
    for key in ("headers", "http_headers"):  # Codex's is http_headers
        given = item.entry.get(key)
        if isinstance(given, dict):
            headers.update({str(k): fill(v) for k, v in given.items() if isinstance(v, str)})
    variable = item.entry.get("bearer_token_env_var")  # Codex: the variable that holds the token
    if own and isinstance(variable, str) and environ.get(variable):
        headers["Authorization"] = f"Bearer {environ[variable]}"
    return Http(fill(found[1]), headers)


def _http_findings(
    item: Configured, root: Path, environ: t.Mapping[str, str], *, start: bool, answers: t.Mapping[t.Hashable, Answer]
) -> list[Finding]:
    """The checks of an HTTP entry: the client reads its address (Antigravity CLI only
    ``serverUrl``), and the server answers ``initialize`` and ``tools/list`` in time."""
    key, url = url_of(item.entry) or ("", "")
    spec = CLIENTS[item.place.client]
    findings = [Finding(CHECK, OK, f"{item.where}: server {item.name!r} at {url}")]
    if key not in spec.url_keys:
        findings.append(
            Finding(
                CHECK,
                PROBLEM,
                f"{item.where}: {spec.title} takes an HTTP server's address from {' or '.join(spec.url_keys)},"
                f" not `{key}`: it does not reach server {item.name!r}",
                f"rename `{key}` to `{spec.url_keys[0]}` in {item.place.path}",
            )
        )
        return findings
    probe = _http_probe(item, root, environ)
    if not start or probe is None:
        return findings
    answer = answers.get(_key(probe)) or probe_all({0: probe}, START_TIMEOUT)[0]
    unfilled = item.place.scope == PROJECT and any(_VARIABLE.search(v) for v in probe.headers.values())
    if answer.http_status in (401, 403) and unfilled:
        findings.append(
            Finding(
                CHECK,
                WARNING,
                f"{item.where}: {probe.url} refused doctor's request (HTTP {answer.http_status}): doctor does not"
                " fill the variables of a project's file into its headers (the agent can write the file, and with"
                " it where your token would go)",
                f"check it from {spec.title} itself",
            )
        )
        return findings
    return findings + _start_findings(item, [probe.url], answer)


def _start_findings(item: Configured, argv: list[str], answer: Answer) -> list[Finding]:
    """What the server's answers say: it started (or was reached) and listed its tools, timed, with
    a warning where a headless client gives up on it sooner; or why it did not answer."""

    http = url_of(item.entry) is not None
    # what cogtools mcp says without its extra (INSTALL_HINT): once it has answered its first
    # requests from the catalog, when the SDK it needs for the rest fails to import
    if "needs the optional extra mcp" in answer.stderr:
        return [
            Finding(
                CHECK,
                PROBLEM,
                f"{item.where}: the server cannot start: the `mcp` extra is not installed for {argv[0]}",
                _install_fix(argv[0]),
            )
        ]
    if answer.tools is not None:
        info = answer.server_info
        named = f"{info.get('name', '?')} {info.get('version', '')}".strip()
        reached = f"{argv[0]} answered" if http else "started, answered"
        timed = f"initialize ({named}) in {answer.initialized or 0:.2f} s"
        listed = f"listed {answer.tools} tool{'s' * (answer.tools != 1)} in {answer.seconds:.2f} s"
        since = "from the first request" if http else "from its start"
        if answer.seconds <= SLOW:
            return [Finding(CHECK, OK, f"{item.where}: {reached} {timed} and {listed} {since}")]
        return [_slow(item, f"the server answered {timed} and {listed} {since}", answer.seconds)]
    waits = ", ".join(f"`{p.run}` {p.said}" for p in PATIENCE)
    late = f"; no headless client waits that long ({waits})" if answer.timed_out else ""
    if http:
        fix = (
            "send the server's token: the entry's Authorization header, against the server's --token-file or"
            " COGTOOLS_MCP_TOKEN"
            if answer.http_status in (401, 403)
            else "start the server it names: cogtools mcp --http [HOST:]PORT (docs/mcp.md, Over HTTP)"
        )
        return [Finding(CHECK, PROBLEM, f"{item.where}: {answer.problem}{late}", fix)]
    tail = printable(answer.stderr.strip()[-600:]) or "nothing on standard error"
    return [
        Finding(
            CHECK,
            PROBLEM,
            f"{item.where}: the server did not answer: {answer.problem}{late} ({tail})",
            f"run it yourself: {' '.join(argv)}",
        )
    ]


def _slow(item: Configured, said: str, seconds: float) -> Finding:
    """The warning of a server slower than :data:`SLOW`: the headless clients that give up on it
    sooner, and what makes one wait."""

    sooner = [p for p in PATIENCE if p.seconds < seconds]
    named = " and ".join(f"`{p.run}` ({p.title}, {p.said})" for p in sooner)
    name = item.name if item.place.client == "codex" else SERVER_NAME
    waits = "; ".join(p.waits.format(name=name) for p in sooner if p.waits)
    none = [p.title for p in sooner if not p.waits]
    fix = (
        "make the server answer sooner: nothing slow before `cogtools mcp` (a wrapper, an install), a machine less"
        " busy"
        + (f"; {waits}" if waits else "")
        + (
            f"; {' and '.join(none)} {'documents' if len(none) == 1 else 'document'} no setting that waits"
            if none
            else ""
        )
        + " (docs/mcp.md, How long a client waits)"
    )
    return Finding(
        CHECK,
        WARNING,
        f"{item.where}: {said}, above {SLOW:g} s: {named} {'gives' if len(sooner) == 1 else 'give'} up on a server"
        " slower than that and run without its tools, saying nothing",
        fix,
    )


def _portable_findings(item: Configured, argv: list[str]) -> list[Finding]:
    """A problem when a project's file, which teammates share, names a path of this machine
    (:func:`~cogtools.clients.launchers.machine_path`): a teammate's checkout would not start
    it, nor this one after an upgrade where it names the npm package's environment of a version."""
    client = item.place.client
    raw = [str(item.entry.get("command", "")), *(a for a in item.entry.get("args", []) if isinstance(a, str))]
    mine = next(((word, why) for word in raw if (why := machine_path(word)) is not None), None)
    if mine is None:
        return []
    return [
        Finding(
            CHECK,
            PROBLEM,
            f"{item.where} names a path of this machine ({mine[0]}), {mine[1]}: the project's file is shared, and"
            " a teammate's checkout will not start it",
            f"`cogtools init --mcp {client} --force` writes a command every checkout resolves (cogtools on PATH:"
            f" pipx install or uv tool install of the Python package, npm install -g of the npm package; or {PROJECT_LAUNCHER})",
        )
    ]


def _entry_env(item: Configured, root: Path, environ: t.Mapping[str, str]) -> dict[str, str]:
    env = item.entry.get("env")
    if not isinstance(env, dict):
        return {}
    return {str(k): expand(v, item.place.client, root, environ) for k, v in env.items() if isinstance(v, str)}


def _environment_findings(item: Configured) -> list[Finding]:
    """A warning for each variable that decides trust which the entry's ``env`` sets in a file
    of the project: ``cogtools mcp`` ignores it."""

    env = item.entry.get("env")
    if item.place.scope != PROJECT or not isinstance(env, dict):
        return []
    names = sorted(name for name in env if isinstance(name, str) and is_trust_variable(name))
    if not names:
        return []
    return [
        Finding(
            CHECK,
            WARNING,
            f"{item.where} sets {', '.join(names)} for the server; cogtools mcp ignores it there (a file of the"
            " workspace is not the user's word on the role, the configuration or the pins)",
            "set it in your own shell or configuration, and remove it from the file",
        )
    ]


def interpreter(program: str) -> str | None:
    """The Python that ``program`` runs: itself when it is one, else its ``#!`` line's (a console
    script); None when neither."""
    if Path(program).name.startswith("python"):
        return program
    try:
        with open(program, "rb") as file:
            first = file.readline(4096)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode("utf-8", "replace").split()
    return words[0] if words and Path(words[0]).name.startswith("python") else None


def _install_fix(program: str) -> str:
    python = interpreter(program)
    if python is None:
        return "install the extra where cogtools is installed: pip install '.[mcp]' in a clone of cogtools"
    return f"{python} -m pip install '.[mcp]' in a clone of cogtools (the npm package has the extra)"


def _extra_finding(item: Configured, program: str) -> Finding:
    """Whether the interpreter the entry runs has the ``mcp`` extra (without starting the
    server: one import check)."""

    python = interpreter(program)
    if python is None:
        return Finding(CHECK, OK, f"{item.where}: starts {program} (not started: --no-discovery)")
    check = "import importlib.util, sys; sys.exit(importlib.util.find_spec('mcp') is None)"
    try:
        done = subprocess.run([python, "-I", "-c", check], capture_output=True, timeout=IMPORT_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as e:
        return Finding(CHECK, PROBLEM, f"{item.where}: {python} does not run: {e}", "install cogtools again")
    if done.returncode != 0:
        return Finding(
            CHECK, PROBLEM, f"{item.where}: the `mcp` extra is not installed for {python}", _install_fix(program)
        )
    return Finding(CHECK, OK, f"{item.where}: {python} has the `mcp` extra (not started: --no-discovery)")


def _gemini_twice(root: Path, environ: t.Mapping[str, str]) -> list[Finding]:
    """A warning when Gemini CLI gets the tools both through the discovery command and through
    an MCP entry (it would list each twice)."""

    path = root / ".gemini" / "settings.json"
    try:
        settings = read_settings(read_config(path), str(path))
    except ConfigInvalidError:
        return []
    tools = settings.get("tools")
    if not isinstance(tools, dict) or not tools.get("discoveryCommand"):
        return []
    return [
        Finding(
            CHECK,
            WARNING,
            "Gemini CLI gets the tools twice, from tools.discoveryCommand and from an MCP server (discovered_tool_NAME"
            " and mcp_cogtools_NAME): the model sees every tool twice",
            "keep one: remove tools.discoveryCommand and tools.callCommand from .gemini/settings.json, or the"
            " cogtools entry of mcpServers",
        )
    ]


def _codex_trust(root: Path, environ: t.Mapping[str, str]) -> list[Finding]:
    """A warning when the user's Codex configuration does not trust the project (or a directory
    above it), whose .codex/config.toml Codex then ignores."""

    path = user_file("codex", environ)
    assert path is not None
    try:
        document = tomlio.loads(read_config(path) or "")
    except (ConfigInvalidError, tomlio.TomlProblem):
        document = {}
    projects = document.get("projects")
    projects = projects if isinstance(projects, dict) else {}
    for directory in (root, *root.parents):
        rule = projects.get(str(directory))
        if isinstance(rule, dict) and "trust_level" in rule:
            if rule["trust_level"] == "trusted":
                return []
            break
    return [
        Finding(
            CHECK,
            WARNING,
            f"Codex reads {root / '.codex' / 'config.toml'} only in a project it trusts, and {path} does not trust {root}",
            f'trust it when Codex asks, or add [projects."{root}"] trust_level = "trusted" to {path}',
        )
    ]


#: Antigravity CLI's own settings (antigravity.google/docs/cli/settings), under the user's home.
ANTIGRAVITY_SETTINGS = ".gemini/antigravity-cli/settings.json"


def _antigravity_permission(environ: t.Mapping[str, str]) -> list[Finding]:
    """A warning when Antigravity CLI's settings run every tool without asking
    (``toolPermission: always-proceed``)."""

    path = Path(environ.get("HOME") or Path.home()) / ANTIGRAVITY_SETTINGS
    try:
        settings = json.loads(read_config(path) or "{}")
    except (ConfigInvalidError, ValueError, RecursionError):
        return []
    if not isinstance(settings, dict) or settings.get("toolPermission") != "always-proceed":
        return []
    return [
        Finding(
            CHECK,
            WARNING,
            f"Antigravity CLI runs every tool without asking (toolPermission: always-proceed in {path}): cogtools'"
            " own checks (the pins, the policy) are then all that stands before a tool",
            "set toolPermission to request-review or strict (/config), or keep a tool that must never run unasked"
            " out of reach: a min_role above the server's role (docs/mcp.md, The server is the gate)",
        )
    ]
