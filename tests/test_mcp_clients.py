"""Every MCP client set up by ``cogtools init --mcp CLIENT`` and ``cogtools mcp --print-config
CLIENT``, each in its own file and format, and checked by ``cogtools doctor``. Where a client's own
package reads its configuration offline, that reader is the judge: Claude Code, Gemini CLI and
Qwen Code start the server from what init wrote (``mcp list``: Connected), Codex CLI and Copilot
CLI read it (``mcp list --json``), each pinned and installed from npm by the set-up (about 1.3 GB
with the Node.js that Qwen Code needs: Codex and Claude Code ship native binaries of ~400 MB each).
Cursor, VS Code, Claude Desktop and Windsurf are desktop applications, and Antigravity CLI's binary
is on no package registry (it installs from Google's own script, and needs an account to start):
their files are checked against each client's documented schema."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import typing as t
from pathlib import Path

import jsonschema
import pytest

from cogtools.cli import porcelain
from cogtools.clients.mcp_clients import CLIENTS, PROJECT, user_file
from cogtools.core import jsonc, tomlio
from cogtools.core.errors import ERROR_TABLE

from .conftest import BIN, Cli, write
from .npm_packages import node_binary, npm_package, package_dir

#: Each project-scoped client's project file, relative to the project.
PROJECT_FILES = {
    name: client.project_file for name, client in CLIENTS.items() if client.project_file and client.scope == PROJECT
}

CODEX_VERSION = "0.169.0"
QWEN_VERSION = "0.24.4"
CLAUDE_CODE_VERSION = "2.1.332"
COPILOT_VERSION = "1.0.102"
#: Qwen Code needs a newer node than the machine's (the one tests/test_mcp_conformance.py pins).
NODE_VERSION = "22.23.3"
INIT = ("init", "--non-interactive", "--defaults")
STATUS = {code: status for code, status, _ in ERROR_TABLE}


def _stdio_entry(required: list[str], **extra: t.Any) -> dict[str, t.Any]:
    properties: dict[str, t.Any] = {
        "command": {"type": "string", "minLength": 1},
        "args": {"type": "array", "items": {"type": "string"}},
        "env": {"type": "object", "additionalProperties": {"type": "string"}},
        **extra,
    }
    return {"type": "object", "required": required, "properties": properties, "additionalProperties": False}


#: Each client's stdio entry as its documentation gives it (the keys cogtools writes among them).
DOCUMENTED = {
    # antigravity.google/docs/cli/gcli-migration ("MCP config formatting changes"): mcpServers in
    # ~/.gemini/config/mcp_config.json or .agents/mcp_config.json; command, args, env; serverUrl
    "antigravity": _stdio_entry(["command"]),
    # code.claude.com/docs/en/mcp: .mcp.json, "type": "stdio", command, args, env
    "claude-code": _stdio_entry(["command"], type={"const": "stdio"}),
    # modelcontextprotocol.io quickstart: claude_desktop_config.json, command, args, env
    "claude-desktop": _stdio_entry(["command"]),
    # docs.github.com, Adding MCP servers for Copilot CLI: type local|stdio, command, args, env, tools
    "copilot": _stdio_entry(
        ["type", "command", "tools"],
        type={"enum": ["local", "stdio"]},
        tools={"type": "array", "items": {"type": "string"}},
    ),
    # cursor.com/docs/mcp: command, args, env (${workspaceFolder} interpolated)
    "cursor": _stdio_entry(["command"]),
    # Gemini CLI docs/tools/mcp-server.md: command, args, env, cwd, trust, includeTools...
    "gemini": _stdio_entry(["command"], cwd={"type": "string"}, trust={"type": "boolean"}),
    # Qwen Code docs/users/features/mcp.md: Gemini CLI's shape
    "qwen": _stdio_entry(["command"], cwd={"type": "string"}, trust={"type": "boolean"}),
    # code.visualstudio.com, MCP configuration reference: "servers", type stdio, command, args, env
    "vscode": _stdio_entry(["type", "command"], type={"const": "stdio"}),
    # docs.windsurf.com, Cascade MCP: ~/.codeium/windsurf/mcp_config.json, command, args, env
    "windsurf": _stdio_entry(["command"]),
    # developers.openai.com/codex/mcp: [mcp_servers.NAME] command, args, env, cwd
    "codex": _stdio_entry(["command"], cwd={"type": "string"}),
}


def read_document(client: str, path: Path) -> dict[str, t.Any]:
    text = path.read_text()
    if CLIENTS[client].syntax == "toml":
        return tomlio.loads(text)
    if CLIENTS[client].syntax == "json":
        return t.cast("dict[str, t.Any]", json.loads(text))  # no comments: the client reads plain JSON
    return t.cast("dict[str, t.Any]", jsonc.loads(text))


def words(entry: dict[str, t.Any]) -> list[str]:
    return [entry["command"], *entry.get("args", [])]


# -- what is written, and where ------------------------------------------------------------------


def test_print_config_prints_each_client_in_its_own_format(project: Path, cli: Cli) -> None:
    for client, spec in CLIENTS.items():
        result = cli(porcelain.main, "mcp", "--print-config", client)
        assert result.status == 0, result
        document = tomlio.loads(result.stdout) if spec.syntax == "toml" else json.loads(result.stdout)
        (name, entry), *others = document[spec.key].items()
        assert others == []
        jsonschema.validate(entry, DOCUMENTED[client])
        if spec.scope == PROJECT:
            assert name == "cogtools" and f"merge this into {PROJECT_FILES[client]} in the project" in result.stderr
            assert not any(word.startswith("/") or str(project) in word for word in words(entry)), entry
        else:
            assert name == f"cogtools-{project.name}" and str(user_file(client, os.environ)) in result.stderr
            assert words(entry) == [sys.executable, "-I", "-m", "cogtools", "mcp", "--project", str(project)]


def test_init_mcp_writes_that_clients_file_and_no_gemini_file(project: Path, cli: Cli) -> None:
    """Found by a user: `init --mcp claude-code` also wrote Gemini CLI's settings and pins, and
    the pins then refused an edited tool to the MCP client."""
    state = Path(os.environ["XDG_STATE_HOME"])
    result = cli(porcelain.main, *INIT, "--mcp", "claude-code")
    assert result.status == 0, result
    assert "created .mcp.json (MCP server 'cogtools' for Claude Code: cogtools on PATH)" in result.stdout
    made = sorted(p.relative_to(project).as_posix() for p in project.rglob("*") if p.is_file())
    assert made == [".cogtoolrc.yaml", ".mcp.json", "tools/hello.yaml"]
    assert not state.exists() or not any(state.rglob("*pin*"))
    # the tool can change, and the MCP client still gets it: nothing pinned it
    write(project / "tools" / "hello.yaml", (project / "tools" / "hello.yaml").read_text().replace("Hello", "Hi"))
    called = subprocess.run(
        [str(BIN / "cogtools-call"), "hello"], input=b'{"who": "Ada"}', capture_output=True, cwd=project
    )
    assert called.returncode == 0 and called.stdout == b"Hi, Ada!\n", called


def test_init_mcp_gemini_writes_the_mcp_server_alone(project: Path, cli: Cli) -> None:
    """Gemini CLI gets the tools one way: `--mcp gemini` writes mcpServers and not
    tools.discoveryCommand (which plain `init` writes), so no tool is listed twice."""
    result = cli(porcelain.main, *INIT, "--mcp", "gemini")
    assert result.status == 0, result
    settings = jsonc.loads((project / ".gemini" / "settings.json").read_text())
    assert settings == {"mcpServers": {"cogtools": {"command": "cogtools", "args": ["mcp"]}}}
    assert not (project / "GEMINI.md").exists()
    # where both are there (a plain init before), init says so
    plain = cli(porcelain.main, *INIT)
    assert plain.status == 0, plain
    again = cli(porcelain.main, *INIT, "--mcp", "gemini")
    assert "Gemini CLI lists every tool twice" in again.stdout
    doctor = cli(porcelain.main, "doctor", "--no-discovery")
    assert "warning  mcp: Gemini CLI gets the tools twice" in doctor.stdout, doctor


def test_every_project_client_gets_its_own_file_merged(project: Path, cli: Cli) -> None:
    write(project / ".mcp.json", '{"mcpServers": {"other": {"command": "other"}}, "mine": 1}\n')
    write(project / ".qwen" / "settings.json", '// mine\n{"model": {"name": "x"}}\n')
    write(project / ".codex" / "config.toml", '# mine\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "other"\n')
    argv = [*INIT]
    for client in PROJECT_FILES:
        argv += ["--mcp", client]
    result = cli(porcelain.main, *argv)
    assert result.status == 0, result
    for client, relative in PROJECT_FILES.items():
        spec = CLIENTS[client]
        document = read_document(client, project / relative)
        entry = document[spec.key]["cogtools"]
        jsonschema.validate(entry, DOCUMENTED[client])
        assert not any(word.startswith("/") for word in words(entry))
        if spec.workspace_folder:
            assert entry["args"][-2:] == ["--project", "${workspaceFolder}"]
    assert read_document("claude-code", project / ".mcp.json")["mcpServers"]["other"] == {"command": "other"}
    assert (project / ".qwen" / "settings.json").read_text().startswith("// mine\n")
    codex = (project / ".codex" / "config.toml").read_text()
    assert codex.startswith('# mine\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "other"\n')
    assert tomlio.loads(codex)["mcp_servers"]["other"] == {"command": "other"}
    again = cli(porcelain.main, *argv)
    assert [line for line in again.stdout.splitlines() if line.startswith(("created", "updated"))] == []


def test_user_clients_get_the_users_file_with_this_machines_paths(project: Path, cli: Cli) -> None:
    home = Path(os.environ["HOME"])
    desktop = write(home / ".config" / "Claude" / "claude_desktop_config.json", '{"theme": "dark"}\n')
    result = cli(porcelain.main, *INIT, "--mcp", "claude-desktop", "--mcp", "windsurf", "--mcp", "copilot")
    assert result.status == 0, result
    name = f"cogtools-{project.name}"
    for client, path in (
        ("claude-desktop", desktop),
        ("windsurf", home / ".codeium" / "windsurf" / "mcp_config.json"),
        ("copilot", home / ".copilot" / "mcp-config.json"),
    ):
        assert (
            user_file(client, os.environ) == path
            and f"created {path}" in result.stdout
            or f"updated {path}" in result.stdout
        )
        entry = read_document(client, path)["mcpServers"][name]
        jsonschema.validate(entry, DOCUMENTED[client])
        assert words(entry)[:2] == [sys.executable, "-I"] and entry["args"][-1] == str(project)
    assert json.loads(desktop.read_text())["theme"] == "dark"
    assert json.loads((home / ".copilot" / "mcp-config.json").read_text())["mcpServers"][name]["tools"] == ["*"]


def test_a_user_file_keeps_the_server_of_another_project_of_the_same_name(tmp_path: Path, cli: Cli) -> None:
    first, second = tmp_path / "a" / "app", tmp_path / "b" / "app"
    for root in (first, second):
        root.mkdir(parents=True)
        assert cli(porcelain.main, *INIT, str(root), "--mcp", "windsurf").status == 0
    servers = json.loads((Path(os.environ["HOME"]) / ".codeium" / "windsurf" / "mcp_config.json").read_text())
    ((one, entry_one), (two, entry_two)) = servers["mcpServers"].items()
    assert one == "cogtools-app" and entry_one["args"][-1] == str(first)
    assert two.startswith("cogtools-app-") and entry_two["args"][-1] == str(second)
    again = cli(porcelain.main, *INIT, str(second), "--mcp", "windsurf")
    assert f"unchanged {Path(os.environ['HOME'])}/.codeium/windsurf/mcp_config.json (MCP server '{two}'" in again.stdout


def test_antigravity_gets_its_documented_user_file(project: Path, cli: Cli) -> None:
    """Antigravity CLI reads the user's servers from ~/.gemini/config/mcp_config.json (plain JSON,
    `mcpServers`), as its migration guide from Gemini CLI documents; not the IDE's
    ~/.gemini/antigravity/mcp_config.json nor the CLI's settings directory ~/.gemini/antigravity-cli/."""
    home = Path(os.environ["HOME"])
    path = write(home / ".gemini" / "config" / "mcp_config.json", '{"mcpServers": {"other": {"command": "x"}}}\n')
    result = cli(porcelain.main, *INIT, "--mcp", "antigravity")
    assert result.status == 0, result
    name = f"cogtools-{project.name}"
    assert f"updated {path} (MCP server {name!r} for Antigravity CLI: this interpreter" in result.stdout, result
    document = json.loads(path.read_text())  # plain JSON
    assert document["mcpServers"]["other"] == {"command": "x"}
    entry = document["mcpServers"][name]
    jsonschema.validate(entry, DOCUMENTED["antigravity"])
    assert words(entry) == [sys.executable, "-I", "-m", "cogtools", "mcp", "--project", str(project)]
    assert not (home / ".gemini" / "antigravity").exists() and not (project / ".agents").exists()
    printed = cli(porcelain.main, "mcp", "--print-config", "antigravity")
    assert json.loads(printed.stdout) == {"mcpServers": {name: entry}} and str(path) in printed.stderr
    # doctor finds it there, and in the workspace's file, which Antigravity CLI reads too
    write(
        project / ".agents" / "mcp_config.json",
        json.dumps({"mcpServers": {"cogtools": {"command": "cogtools", "args": ["mcp"]}}}),
    )
    found = cli(porcelain.main, "doctor", "--no-discovery")
    assert f"ok       mcp: Antigravity CLI, {path}: server {name!r}" in found.stdout, found
    assert f"ok       mcp: Antigravity CLI, {project}/.agents/mcp_config.json: server 'cogtools'" in found.stdout


def test_gemini_md_tells_who_moved_to_antigravity_where_the_tools_are(project: Path, cli: Cli) -> None:
    """Antigravity CLI reads GEMINI.md too, and runs no discovery command: the table says how the
    tools reach it there."""
    assert cli(porcelain.main, *INIT).status == 0
    text = (project / "GEMINI.md").read_text()
    block = text[text.index("<!-- cogtools:tools:begin") : text.index("<!-- cogtools:tools:end -->")]
    assert "Antigravity CLI reads this file too, but runs no discovery command" in block
    assert "`cogtools init --mcp antigravity`" in block


def test_doctor_holds_antigravity_to_its_keys_and_says_what_it_runs_unasked(project: Path, cli: Cli) -> None:
    """An HTTP server's address is `serverUrl` to Antigravity CLI (`url` and `httpUrl` are Gemini
    CLI's, which it does not read); `toolPermission: always-proceed` runs every tool unasked."""
    home = Path(os.environ["HOME"])
    write(
        project / ".agents" / "mcp_config.json",
        json.dumps({"mcpServers": {"cogtools": {"url": "http://127.0.0.1:9/mcp"}}}),
    )
    write(home / ".gemini" / "antigravity-cli" / "settings.json", json.dumps({"toolPermission": "always-proceed"}))
    result = cli(porcelain.main, "doctor", "--no-discovery")
    assert result.status == 1
    assert "Antigravity CLI takes an HTTP server's address from serverUrl, not `url`" in result.stdout, result
    assert "rename `url` to `serverUrl`" in result.stdout
    assert (
        "warning  mcp: Antigravity CLI runs every tool without asking (toolPermission: always-proceed" in result.stdout
    )
    write(
        project / ".agents" / "mcp_config.json",
        json.dumps({"mcpServers": {"cogtools": {"serverUrl": "http://127.0.0.1:9/mcp"}}}),
    )
    write(home / ".gemini" / "antigravity-cli" / "settings.json", json.dumps({"toolPermission": "request-review"}))
    fixed = cli(porcelain.main, "doctor", "--no-discovery")
    assert fixed.status == 0 and "ok       mcp: Antigravity CLI" in fixed.stdout, fixed
    assert "without asking" not in fixed.stdout


def test_a_plain_json_file_with_comments_is_refused_untouched(project: Path, cli: Cli) -> None:
    """Claude Desktop reads plain JSON: a file with comments is one it cannot read, and init
    does not make it look mended."""
    path = write(Path(os.environ["HOME"]) / ".codeium" / "windsurf" / "mcp_config.json", "// mine\n{}\n")
    result = cli(porcelain.main, *INIT, "--mcp", "windsurf")
    assert result.status == STATUS["CONFIG_INVALID"] and "reads plain JSON, without comments" in result.stderr
    assert path.read_text() == "// mine\n{}\n"
    assert not (project / "tools" / "hello.yaml").exists()  # checked before the first write


def test_codex_entries_are_replaced_kept_or_refused(project: Path, cli: Cli) -> None:
    path = project / ".codex" / "config.toml"
    # an entry an older cogtools wrote (this machine's absolute paths): replaced without --force
    old = f'[mcp_servers.cogtools]\ncommand = "{sys.executable}"\nargs = ["-I", "-m", "cogtools", "mcp", "--project", "{project}"]\n\n[other]\nx = 1 # kept\n'
    write(path, old)
    result = cli(porcelain.main, *INIT, "--mcp", "codex")
    assert "updated .codex/config.toml" in result.stdout, result
    text = path.read_text()
    assert text.endswith("\n[other]\nx = 1 # kept\n") and sys.executable not in text
    assert tomlio.loads(text)["mcp_servers"]["cogtools"] == {"command": "cogtools", "args": ["mcp"]}
    # one a person wrote: kept, unless --force
    mine = '[mcp_servers.cogtools]\ncommand = "/opt/mine"\n\n[mcp_servers.cogtools.env]\nA = "b"\n'
    write(path, mine)
    kept = cli(porcelain.main, *INIT, "--mcp", "codex")
    assert "kept your cogtools server in .codex/config.toml" in kept.stdout and path.read_text() == mine
    forced = cli(porcelain.main, *INIT, "--mcp", "codex", "--force")
    assert forced.status == 0 and tomlio.loads(path.read_text())["mcp_servers"] == {
        "cogtools": {"command": "cogtools", "args": ["mcp"]}
    }
    # servers as an inline table cannot take a new table: refused, untouched
    inline = 'mcp_servers = { other = { command = "x" } }\n'
    write(path, inline)
    refused = cli(porcelain.main, *INIT, "--mcp", "codex")
    assert refused.status == STATUS["CONFIG_INVALID"] and "Write this by hand" in refused.stderr
    assert path.read_text() == inline
    write(path, "[broken\n")
    broken = cli(porcelain.main, *INIT, "--mcp", "codex")
    assert broken.status == STATUS["CONFIG_INVALID"] and "invalid TOML" in broken.stderr


def test_init_keeps_a_person_s_command_and_forces_it_only_when_told(project: Path, cli: Cli) -> None:
    mine = '{"mcpServers": {"cogtools": {"command": "/opt/my/cogtools", "args": ["mcp"]}}}\n'
    write(project / ".mcp.json", mine)
    result = cli(porcelain.main, *INIT, "--mcp", "claude-code")
    assert "kept your cogtools server in .mcp.json" in result.stdout and (project / ".mcp.json").read_text() == mine
    forced = cli(porcelain.main, *INIT, "--mcp", "claude-code", "--force")
    assert forced.status == 0 and "/opt/my/cogtools" not in (project / ".mcp.json").read_text()


@pytest.mark.slow
def test_a_users_entry_starts_a_working_server_from_anywhere(echo_project: Path) -> None:
    """A user's file (Claude Desktop starts its servers in /) names this interpreter and the
    project: it serves the project whatever the working directory and PATH."""
    from cogtools.clients.mcp_clients import server_entry
    from cogtools.clients.probe import handshake

    entry = server_entry("claude-desktop", echo_project)
    env = {"PATH": "/usr/bin:/bin", "HOME": os.environ["HOME"]}
    answer = handshake(words(entry), Path("/"), env, 60)
    assert answer.tools == 1 and answer.server_info["name"] == "cogtools", answer


# -- the portable command -----------------------------------------------------------------------


def project_venv(root: Path) -> Path:
    """A virtual environment in the project, ``.venv``, whose Python finds this checkout's
    cogtools and its dependencies (through a .pth file: nothing is installed)."""
    import sysconfig
    import venv

    venv.EnvBuilder(with_pip=False, symlinks=True).create(root / ".venv")
    python = root / ".venv" / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    here = sysconfig.get_paths()["purelib"]
    Path(purelib, "cogtools-tests.pth").write_text(f"import site; site.addsitedir({here!r})\n")
    return python


@pytest.mark.slow
def test_the_projects_own_environment_by_a_relative_path_runs_in_a_teammates_checkout(
    project: Path, tmp_path: Path
) -> None:
    """No path of this machine in the project's files: a copy of the project elsewhere (a
    teammate's checkout) starts its server; and a `cogtools/` package the agent wrote into the
    workspace is not what runs (the interpreter is isolated). The environment is the agent's to
    rewrite: init names it only when asked to (--project-launcher), and says so."""
    python = project_venv(project)
    refused = subprocess.run(
        [str(python), "-m", "cogtools", *INIT, "--mcp", "claude-code"], capture_output=True, text=True, cwd=project
    )
    assert refused.returncode == 2 and "cogtools runs from inside the project" in refused.stderr, refused
    done = subprocess.run(
        [str(python), "-m", "cogtools", *INIT, "--mcp", "claude-code", "--mcp", "vscode", "--project-launcher"],
        capture_output=True,
        text=True,
        cwd=project,
    )
    assert done.returncode == 0, done
    assert "the project's own environment, by a relative path (--project-launcher)" in done.stdout
    assert "which the agent can rewrite" in done.stdout
    claude = json.loads((project / ".mcp.json").read_text())["mcpServers"]["cogtools"]
    assert words(claude) == [".venv/bin/python", "-I", "-m", "cogtools", "mcp"]
    code = jsonc.loads((project / ".vscode" / "mcp.json").read_text())["servers"]["cogtools"]
    assert code["command"] == "${workspaceFolder}/.venv/bin/python"
    write(project / "cogtools" / "__init__.py", "")
    write(project / "cogtools" / "__main__.py", "import sys\nsys.stdout.write('PWNED')\n")
    checkout = tmp_path / "teammate" / "project"
    shutil.copytree(project, checkout, symlinks=True)
    doctor = subprocess.run([str(BIN / "cogtools"), "doctor"], capture_output=True, text=True, cwd=checkout)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert doctor.stdout.count("answered initialize (cogtools") == 2, doctor.stdout
    assert doctor.stdout.count("inside this project, which the agent can rewrite") == 2, doctor.stdout
    assert f"Claude Code, {checkout}/.mcp.json: started" in doctor.stdout
    assert f"VS Code, {checkout}/.vscode/mcp.json: started" in doctor.stdout
    assert "PWNED" not in doctor.stdout


@pytest.mark.slow
def test_a_javascript_project_gets_its_node_modules_command(project: Path, cli: Cli) -> None:
    """The npm package's bin, node_modules/.bin/cogtools (here a link to this installation's,
    as npm links a package's bin), by a path relative to the project, when asked for: it is a
    file of the workspace."""
    (project / "node_modules" / ".bin").mkdir(parents=True)
    (project / "node_modules" / ".bin" / "cogtools").symlink_to(BIN / "cogtools")
    result = cli(porcelain.main, *INIT, "--mcp", "claude-code", "--mcp", "cursor", "--project-launcher")
    assert (
        "(MCP server 'cogtools' for Claude Code: the project's node_modules/.bin/cogtools (--project-launcher))"
        in result.stdout
    )
    assert words(json.loads((project / ".mcp.json").read_text())["mcpServers"]["cogtools"]) == [
        "node_modules/.bin/cogtools",
        "mcp",
    ]
    cursor = jsonc.loads((project / ".cursor" / "mcp.json").read_text())["mcpServers"]["cogtools"]
    assert cursor["command"] == "${workspaceFolder}/node_modules/.bin/cogtools"
    doctor = cli(porcelain.main, "doctor")
    assert doctor.status == 0 and doctor.stdout.count("answered initialize (cogtools") == 2, doctor.stdout


# -- doctor ---------------------------------------------------------------------------------------


@pytest.mark.slow
def test_doctor_checks_the_mcp_client_and_not_gemini_cli(project: Path, cli: Cli) -> None:
    """Found by a user: an MCP user was told of Gemini CLI's folder trust and of a missing
    `gemini`, and not that the configured server could not start."""
    assert cli(porcelain.main, *INIT, "--mcp", "claude-code").status == 0
    result = cli(porcelain.main, "doctor")
    assert result.status == 0, result
    checks = {line.split()[1] for line in result.stdout.splitlines()[:-1] if line.strip() and not line.startswith(" ")}
    assert "mcp:" in checks and not checks & {"settings:", "trust:", "node:", "discovery:", "commands:"}, result.stdout
    assert "answered initialize (cogtools" in result.stdout and "listed 1 tool" in result.stdout


def test_doctor_without_any_client_still_checks_gemini_cli(project: Path, cli: Cli) -> None:
    result = cli(porcelain.main, "doctor", "--no-discovery")
    assert "settings: no" in result.stdout and "run `cogtools init`" in result.stdout


@pytest.mark.slow
def test_doctor_says_the_extra_is_missing_for_the_interpreter_the_entry_runs(project: Path, cli: Cli) -> None:
    shadow = project.parent / "shadow"
    write(shadow / "mcp" / "__init__.py", "raise ImportError('mcp is not installed')\n")
    write(
        project / ".mcp.json",
        json.dumps(
            {"mcpServers": {"cogtools": {"command": "cogtools", "args": ["mcp"], "env": {"PYTHONPATH": str(shadow)}}}}
        ),
    )
    result = cli(porcelain.main, "doctor")
    assert result.status == 1
    assert f"the `mcp` extra is not installed for {BIN / 'cogtools'}" in result.stdout, result.stdout
    assert "-m pip install '.[mcp]' in a clone of cogtools" in result.stdout


def test_doctor_finds_what_a_project_file_should_not_hold(project: Path, cli: Cli) -> None:
    write(project / ".cursor" / "mcp.json", '{"mcpServers": {"cogtools": ')
    write(
        project / ".mcp.json",
        json.dumps(
            {
                "mcpServers": {
                    "cogtools": {
                        "command": sys.executable,
                        "args": ["-I", "-m", "cogtools", "mcp", "--project", str(project)],
                        "env": {"COGTOOLS_ROLE": "admin"},
                    }
                }
            }
        ),
    )
    write(
        project / ".qwen" / "settings.json",
        json.dumps({"mcpServers": {"cogtools": {"command": "node_modules/.bin/cogtools", "args": ["mcp"]}}}),
    )
    result = cli(porcelain.main, "doctor", "--no-discovery")
    out = result.stdout
    assert result.status == 1
    assert f"problem  mcp: Cursor: {project}/.cursor/mcp.json:1: not JSON" in out, out
    assert f"names a path of this machine ({sys.executable})" in out and "--mcp claude-code --force" in out
    assert "sets COGTOOLS_ROLE for the server; cogtools mcp ignores it" in out
    assert "has the `mcp` extra (not started: --no-discovery)" in out
    assert "Qwen Code cannot start 'node_modules/.bin/cogtools'" in out
    assert "Qwen Code runs a tool without asking" in out


def test_doctor_says_gemini_cli_starts_no_server_in_an_untrusted_folder(project: Path, cli: Cli) -> None:
    assert cli(porcelain.main, *INIT, "--mcp", "gemini").status == 0
    untrusted = cli(porcelain.main, "doctor", "--no-discovery")
    assert untrusted.status == 1
    assert f"problem  trust: Gemini CLI does not trust {project}, and starts no MCP server" in untrusted.stdout
    assert "discovery:" not in untrusted.stdout and "node:" not in untrusted.stdout
    write(Path(os.environ["HOME"]) / ".gemini" / "trustedFolders.json", json.dumps({str(project): "TRUST_FOLDER"}))
    trusted = cli(porcelain.main, "doctor", "--no-discovery")
    assert trusted.status == 0 and f"ok       trust: Gemini CLI trusts {project}" in trusted.stdout, trusted


def test_doctor_finds_a_server_in_the_users_own_files(project: Path, cli: Cli) -> None:
    """Claude Code's ~/.claude.json, which holds a person's history too (often past a megabyte),
    with a server for this project (local scope) and one for another project (not this one's)."""
    other = {"command": sys.executable, "args": ["-I", "-m", "cogtools", "mcp", "--project", "/elsewhere"]}
    mine = {"type": "stdio", "command": "cogtools", "args": ["mcp"]}
    document = {
        "history": ["x" * 100] * 20_000,
        "mcpServers": {"cogtools-elsewhere": other},
        "projects": {str(project): {"mcpServers": {"cogtools": mine}}},
    }
    write(Path(os.environ["HOME"]) / ".claude.json", json.dumps(document))
    result = cli(porcelain.main, "doctor", "--no-discovery")
    assert f"ok       mcp: Claude Code, {os.environ['HOME']}/.claude.json: server 'cogtools'" in result.stdout, result
    assert "cogtools-elsewhere" not in result.stdout
    assert "settings: no" not in result.stdout  # an MCP client is set up: no Gemini CLI checks


@pytest.mark.slow
def test_a_role_set_by_a_workspace_file_is_ignored_by_the_server(echo_project: Path) -> None:
    write(echo_project / "tools" / "root_only.yaml", "description: Admins only.\nmin_role: admin\nimplementation: ok\n")
    write(
        echo_project / ".mcp.json",
        json.dumps(
            {"mcpServers": {"cogtools": {"command": "cogtools", "args": ["mcp"], "env": {"COGTOOLS_ROLE": "admin"}}}}
        ),
    )
    from cogtools.clients.probe import handshake

    env = {**os.environ, "COGTOOLS_ROLE": "admin"}  # as the client starts it, with the entry's env
    answer = handshake([str(BIN / "cogtools"), "mcp"], echo_project, env, 30)
    assert answer.tools == 1, answer  # echo; not root_only
    assert "ignored COGTOOLS_ROLE (set by the server's entry in" in answer.stderr
    # a client started in a subdirectory of the project: the same
    below = handshake([str(BIN / "cogtools"), "mcp"], echo_project / "tools", env, 30)
    assert below.tools == 1 and "ignored COGTOOLS_ROLE" in below.stderr, below
    write(echo_project / ".mcp.json", "{}")
    assert handshake([str(BIN / "cogtools"), "mcp"], echo_project, env, 30).tools == 2  # the user's own word


# -- the clients' own readers ------------------------------------------------------------------


@pytest.fixture(scope="module")
def codex() -> Path:
    directory = npm_package("@openai/codex", CODEX_VERSION, package_dir("codex", CODEX_VERSION, "COGTOOLS_CODEX_DIR"))
    return directory / "node_modules" / ".bin" / "codex"


@pytest.fixture(scope="module")
def claude() -> Path:
    directory = npm_package(
        "@anthropic-ai/claude-code",
        CLAUDE_CODE_VERSION,
        package_dir("claude-code", CLAUDE_CODE_VERSION, "COGTOOLS_CLAUDE_CODE_DIR"),
    )
    return directory / "node_modules" / ".bin" / "claude"


@pytest.fixture(scope="module")
def copilot() -> Path:
    directory = npm_package(
        "@github/copilot", COPILOT_VERSION, package_dir("copilot", COPILOT_VERSION, "COGTOOLS_COPILOT_DIR")
    )
    return directory / "node_modules" / ".bin" / "copilot"


@pytest.fixture(scope="module")
def qwen() -> list[str]:
    node = node_binary(NODE_VERSION, "COGTOOLS_NODE_DIR")
    directory = npm_package(
        "@qwen-code/qwen-code", QWEN_VERSION, package_dir("qwen-code", QWEN_VERSION, "COGTOOLS_QWEN_DIR")
    )
    package = directory / "node_modules" / "@qwen-code" / "qwen-code"
    manifest = json.loads((package / "package.json").read_text())
    script = manifest["bin"] if isinstance(manifest["bin"], str) else manifest["bin"]["qwen"]
    return [str(node), str(package / script)]


@pytest.fixture(scope="module")
def gemini() -> Path:
    from .test_gemini_binary import GEMINI_CLI_VERSION

    directory = package_dir("gemini-cli", GEMINI_CLI_VERSION, "COGTOOLS_GEMINI_CLI_DIR")
    return npm_package("@google/gemini-cli", GEMINI_CLI_VERSION, directory) / "node_modules" / ".bin" / "gemini"


@pytest.mark.e2e
@pytest.mark.slow
def test_codex_reads_the_project_file_only_in_a_trusted_project(project: Path, cli: Cli, codex: Path) -> None:
    assert cli(porcelain.main, *INIT, "--mcp", "codex").status == 0
    home = Path(os.environ["HOME"]) / "codex-home"  # not under /tmp, where Codex makes no helpers
    home.mkdir()
    env = {**os.environ, "CODEX_HOME": str(home)}

    def listed() -> t.Any:
        done = subprocess.run(
            [str(codex), "mcp", "list", "--json"], capture_output=True, text=True, cwd=project, env=env, timeout=120
        )
        assert done.returncode == 0, done
        return json.loads(done.stdout)

    assert listed() == []
    write(home / "config.toml", f'[projects."{project}"]\ntrust_level = "trusted"\n')
    (server,) = listed()
    assert server["name"] == "cogtools" and server["enabled"]
    assert server["transport"] | {"env_vars": []} == {
        "type": "stdio",
        "command": "cogtools",
        "args": ["mcp"],
        "env": None,
        "env_vars": [],
        "cwd": None,
    }


def qwen_approves(project: Path, entry: dict[str, t.Any], path: Path) -> Path:
    """Qwen Code's record that the person approved the project's server (bound to a hash of the
    entry, as packages/core/src/mcp/configHash.ts makes it: a changed entry is asked about again)."""
    stable = json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    digest = hashlib.sha256(stable.encode()).hexdigest()
    return write(path, json.dumps({str(project): {"cogtools": {"hash": digest, "status": "approved"}}}))


@pytest.mark.e2e
@pytest.mark.slow
def test_qwen_code_starts_the_server_init_set_up(project: Path, cli: Cli, qwen: list[str]) -> None:
    assert cli(porcelain.main, *INIT, "--mcp", "qwen").status == 0
    entry = jsonc.loads((project / ".qwen" / "settings.json").read_text())["mcpServers"]["cogtools"]
    approvals = Path(os.environ["HOME"]) / "approvals.json"
    env = {**os.environ, "QWEN_CODE_MCP_APPROVALS_PATH": str(approvals)}

    def listed(environ: dict[str, str]) -> str:
        done = subprocess.run(
            [*qwen, "mcp", "list"], capture_output=True, text=True, cwd=project, env=environ, timeout=120
        )
        assert done.returncode == 0, done
        return done.stdout

    assert "cogtools: cogtools mcp (stdio) - Pending approval" in listed(env)
    qwen_approves(project, entry, approvals)
    assert "cogtools: cogtools mcp (stdio) - Connected" in listed(env)
    without = {**env, "PATH": "/usr/bin:/bin"}  # the control: no cogtools on PATH, no server
    assert "cogtools: cogtools mcp (stdio) - Disconnected" in listed(without)


@pytest.mark.e2e
@pytest.mark.slow
def test_gemini_cli_starts_the_server_from_the_projects_environment(project: Path, gemini: Path) -> None:
    python = project_venv(project)
    done = subprocess.run(
        [str(python), "-m", "cogtools", *INIT, "--mcp", "gemini", "--project-launcher"],
        capture_output=True,
        text=True,
        cwd=project,
    )  # the project's own environment, asked for knowingly (a workspace file the agent can rewrite)
    assert done.returncode == 0, done
    write(Path(os.environ["HOME"]) / ".gemini" / "trustedFolders.json", json.dumps({str(project): "TRUST_FOLDER"}))
    env = {**os.environ, "PATH": "/usr/bin:/bin"}  # cogtools is not on PATH: the relative command finds it
    listed = subprocess.run(
        [str(gemini), "mcp", "list"], capture_output=True, text=True, cwd=project, env=env, timeout=120
    )
    assert listed.returncode == 0, listed
    assert "cogtools: .venv/bin/python -I -m cogtools mcp (stdio) - Connected" in listed.stdout + listed.stderr


@pytest.mark.e2e
@pytest.mark.slow
def test_claude_code_starts_the_server_init_set_up(project: Path, cli: Cli, claude: Path) -> None:
    assert cli(porcelain.main, *INIT, "--mcp", "claude-code").status == 0

    def listed(environ: dict[str, str]) -> str:
        done = subprocess.run(
            [str(claude), "mcp", "list"], capture_output=True, text=True, cwd=project, env=environ, timeout=120
        )
        assert done.returncode == 0, done
        return done.stdout

    assert "cogtools: cogtools mcp - ⏸ Pending approval" in listed(dict(os.environ))  # a project's server
    write(Path(os.environ["HOME"]) / ".claude" / "settings.json", json.dumps({"enabledMcpjsonServers": ["cogtools"]}))
    assert "cogtools: cogtools mcp - ✔ Connected" in listed(dict(os.environ))
    without = {**os.environ, "PATH": "/usr/bin:/bin"}  # the control: no cogtools on PATH, no server
    assert 'Executable not found in $PATH: "cogtools"' in listed(without)


@pytest.mark.e2e
@pytest.mark.slow
def test_copilot_cli_reads_the_users_file_and_a_trusted_projects_mcp_json(
    project: Path, cli: Cli, copilot: Path
) -> None:
    assert cli(porcelain.main, *INIT, "--mcp", "copilot", "--mcp", "claude-code").status == 0

    def listed() -> t.Any:
        done = subprocess.run(
            [str(copilot), "mcp", "list", "--json"], capture_output=True, text=True, cwd=project, timeout=120
        )
        assert done.returncode == 0, done
        return json.loads(done.stdout)["mcpServers"]

    mine = f"cogtools-{project.name}"
    servers = listed()
    assert set(servers) == {mine} and servers[mine]["source"] == "user" and servers[mine]["enabled"]
    assert servers[mine]["command"] == sys.executable and servers[mine]["args"][-1] == str(project)
    write(Path(os.environ["HOME"]) / ".copilot" / "config.json", json.dumps({"trusted_folders": [str(project)]}))
    workspace = listed()["cogtools"]
    assert workspace["source"] == "workspace" and workspace["sourcePath"] == str(project / ".mcp.json")
    assert [workspace["command"], *workspace["args"]] == ["cogtools", "mcp"]


def test_npm_variables_a_client_file_sets_are_found_in_any_case(project: Path) -> None:
    """npm reads its settings in any case; an entry's env setting one of the npm trust
    variables (where the global toolsets come from) is the workspace's word in any case too."""
    from cogtools.clients.mcp_clients import trust_variables_set

    planted = str(project / "planted")
    entry = {"command": "cogtools", "args": ["mcp"], "env": {"Npm_Config_Prefix": planted}}
    write(project / ".mcp.json", json.dumps({"mcpServers": {"cogtools": entry}}))
    found = trust_variables_set(project, {"NPM_CONFIG_PREFIX": planted, "HOME": str(project)})
    assert found == {"NPM_CONFIG_PREFIX": str(project / ".mcp.json")}
    assert trust_variables_set(project, {"NPM_CONFIG_PREFIX": "/elsewhere", "HOME": str(project)}) == {}


@pytest.mark.slow
def test_a_clients_usual_names_are_aliases_of_its_own(project: Path) -> None:
    """Found by a new user: `init --mcp claude` (the command's own name) was refused; the names
    people type for a client (its program, its product) are taken as the client's, and said in
    --help."""

    def cogtools(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(BIN / "cogtools"), *args], capture_output=True, text=True, cwd=project)

    result = cogtools(*INIT, "--mcp", "claude", "--mcp", "gemini-cli")
    assert result.returncode == 0, result
    assert "created .mcp.json (MCP server 'cogtools' for Claude Code" in result.stdout
    assert "MCP server 'cogtools' for Gemini CLI" in result.stdout
    printed = cogtools("mcp", "--print-config", "vs-code")
    assert printed.returncode == 0 and '"servers"' in printed.stdout, printed
    wrong = cogtools(*INIT, "--mcp", "claud")
    assert wrong.returncode == 2 and "Traceback" not in wrong.stderr, wrong
    helped = cogtools("init", "--help")
    assert "claude(claude-code)" in "".join(helped.stdout.split()), helped.stdout
