"""The checks ``cogtools doctor`` makes of the MCP clients set up for a project: which clients
are (every file each one reads, the project's and the user's), and for each cogtools entry there:
the file parses, the command resolves, the server starts and answers ``initialize`` and
``tools/list`` (a real process, as the client would start it, with a deadline), the ``mcp`` extra
is installed for the interpreter it runs, and what the client does without asking."""

from __future__ import annotations

import json
import os
import re
import selectors
import signal
import subprocess
import time
import typing as t
from pathlib import Path

from cogtools.clients.gemini.settings import read_settings
from cogtools.clients.launchers import PROJECT_LAUNCHER, workspace_file
from cogtools.clients.mcp_clients import CLIENTS, PROJECT, Place, parse, places, servers_in, starts_cogtools, user_file
from cogtools.core import tomlio
from cogtools.core.environment import is_trust_variable
from cogtools.core.errors import ConfigInvalidError
from cogtools.core.fsutil import find_program, read_config
from cogtools.core.printable import printable
from cogtools.load.loading import OK, PROBLEM, WARNING, Finding

#: How long doctor waits for a server to answer ``initialize`` and ``tools/list``.
START_TIMEOUT = 30.0
#: The most of a server's standard output and error doctor reads.
MAX_STDOUT = 64 * 1024 * 1024
MAX_STDERR = 64 * 1024
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
    return found, findings


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
    """The findings of every client set up for the project, and which clients those are."""
    configured, findings = find_configured(root, environ)
    answers: dict[tuple[str, ...], Answer] = {}  # an entry in several files is started once
    for item in configured:
        findings += entry_findings(item, root, environ, start=start, answers=answers)
    clients = {item.place.client for item in configured}
    if "gemini" in clients:
        findings += _gemini_twice(root, environ)
    if "codex" in {item.place.client for item in configured if item.place.scope == PROJECT}:
        findings += _codex_trust(root, environ)
    return findings, clients


def entry_findings(
    item: Configured,
    root: Path,
    environ: t.Mapping[str, str],
    *,
    start: bool = True,
    answers: dict[tuple[str, ...], Answer] | None = None,
) -> list[Finding]:
    """The checks of one entry: it parses (else it would not be here), the command resolves,
    the server starts and answers (or, without ``start``, the extra is there), what the file
    holds of this machine or of the role, and what the client runs without asking."""
    client = item.place.client
    title = CLIENTS[client].title
    findings = [Finding(CHECK, OK, f"{item.where}: server {item.name!r}")]
    command = item.entry.get("command")
    args = item.entry.get("args", [])
    if not isinstance(command, str) or not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return [
            Finding(
                CHECK,
                PROBLEM,
                f"{item.where}: server {item.name!r} has no command and list of arguments",
                f"cogtools init --mcp {client} --force",
            )
        ]
    argv = [expand(word, client, root, environ) for word in (command, *args)]
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
    env = {**environ, **_entry_env(item, root, environ)}
    if start:
        findings.append(_start_finding(item, argv, root, env, {} if answers is None else answers))
    else:
        findings.append(_extra_finding(item, program))
    return findings


def _portable_findings(item: Configured, argv: list[str]) -> list[Finding]:
    """A warning when a project's file names an absolute path (a teammate's checkout would not
    start it)."""
    client = item.place.client
    raw = [str(item.entry.get("command", "")), *(a for a in item.entry.get("args", []) if isinstance(a, str))]
    absolute = [word for word in raw if word.startswith("/")]
    if not absolute:
        return []
    return [
        Finding(
            CHECK,
            WARNING,
            f"{item.where} names a path of this machine ({absolute[0]}): a teammate's checkout will not start it",
            f"`cogtools init --mcp {client} --force` writes a command every checkout resolves",
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
        done = subprocess.run([python, "-I", "-c", check], capture_output=True, timeout=START_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as e:
        return Finding(CHECK, PROBLEM, f"{item.where}: {python} does not run: {e}", "install cogtools again")
    if done.returncode != 0:
        return Finding(
            CHECK, PROBLEM, f"{item.where}: the `mcp` extra is not installed for {python}", _install_fix(program)
        )
    return Finding(CHECK, OK, f"{item.where}: {python} has the `mcp` extra (not started: --no-discovery)")


def _start_finding(
    item: Configured, argv: list[str], root: Path, env: dict[str, str], answers: dict[tuple[str, ...], Answer]
) -> Finding:
    """Start the server as the client would (in the project root, the entry's environment) and
    ask it ``initialize`` and ``tools/list``."""

    key = (*argv, "\0", *sorted(f"{k}={v}" for k, v in env.items()))
    if key not in answers:
        answers[key] = handshake(argv, root, env, START_TIMEOUT)
    answer = answers[key]
    took = answer.seconds
    if answer.tools is not None:
        info = answer.server_info
        named = f"{info.get('name', '?')} {info.get('version', '')}".strip()
        return Finding(
            CHECK,
            OK,
            f"{item.where}: started, answered initialize ({named}) and listed {answer.tools}"
            f" tool{'s' * (answer.tools != 1)} in {took:.2f} s",
        )
    if "needs the optional extra mcp" in answer.stderr:  # what cogtools mcp says without its extra (INSTALL_HINT)
        return Finding(
            CHECK,
            PROBLEM,
            f"{item.where}: the server cannot start: the `mcp` extra is not installed for {argv[0]}",
            _install_fix(argv[0]),
        )

    tail = printable(answer.stderr.strip()[-600:]) or "nothing on standard error"
    return Finding(
        CHECK,
        PROBLEM,
        f"{item.where}: the server did not answer: {answer.problem} ({tail})",
        f"run it yourself: {' '.join(argv)}",
    )


class Answer(t.NamedTuple):
    #: The number of tools listed, None when the handshake failed.
    tools: int | None
    server_info: dict[str, t.Any]
    problem: str
    stderr: str
    #: How long it took.
    seconds: float = 0.0


def handshake(argv: list[str], cwd: Path, env: t.Mapping[str, str], timeout: float) -> Answer:
    """Start ``argv`` as an MCP client starts a stdio server and ask ``initialize`` and
    ``tools/list`` (JSON-RPC, a message a line), within ``timeout`` seconds; then close its
    input and end it (its whole process group, if it lingers)."""

    deadline = time.monotonic() + timeout
    try:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as e:
        return Answer(None, {}, f"cannot start it: {e.strerror}", "")
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    selector = selectors.DefaultSelector()
    selector.register(proc.stdout, selectors.EVENT_READ, "out")
    selector.register(proc.stderr, selectors.EVENT_READ, "err")
    out, err = bytearray(), bytearray()

    def send(message: dict[str, t.Any]) -> None:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()

    def receive(wanted: int) -> dict[str, t.Any] | str:
        """The response of id ``wanted``, or why there is none."""
        while True:
            while b"\n" in out:
                line, _, rest = bytes(out).partition(b"\n")
                out[:] = rest
                try:
                    message = json.loads(line)
                except ValueError:
                    return "it printed something that is not JSON-RPC on standard output"
                if isinstance(message, dict) and message.get("id") == wanted:
                    return message
            left = deadline - time.monotonic()
            if left <= 0:
                return f"no answer within {timeout:g} s"
            if not selector.get_map():
                return f"it exited (status {proc.wait()})"
            for key, _ in selector.select(left):
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    selector.unregister(key.fileobj)
                elif key.data == "out":
                    out.extend(chunk)
                    if len(out) > MAX_STDOUT:
                        return "it printed more than doctor reads"
                elif len(err) < MAX_STDERR:
                    err.extend(chunk)

    tools: int | None = None
    info: dict[str, t.Any] = {}
    problem = ""
    try:
        send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "cogtools-doctor", "version": "1"},
                },
            }
        )
        first = receive(1)
        if isinstance(first, str) or "result" not in first:
            problem = first if isinstance(first, str) else f"initialize failed: {json.dumps(first.get('error'))[:300]}"
        else:
            info = first["result"].get("serverInfo") or {}
            send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            send({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
            second = receive(2)
            if isinstance(second, str) or not isinstance(second.get("result", {}).get("tools"), list):
                problem = second if isinstance(second, str) else "tools/list failed"
            else:
                tools = len(second["result"]["tools"])
    except (BrokenPipeError, OSError):
        problem = f"it exited (status {proc.wait()})"
    finally:
        try:
            proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
            proc.wait()
        for key in list(selector.get_map().values()):
            if key.data == "err":
                try:
                    os.set_blocking(key.fd, False)
                    err.extend(os.read(key.fd, MAX_STDERR)[: max(0, MAX_STDERR - len(err))])
                except OSError:
                    pass
        selector.close()
        proc.stdout.close()
        proc.stderr.close()
    return Answer(tools, info, problem, err.decode("utf-8", "replace"), time.monotonic() - (deadline - timeout))


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
