"""``cogtools init``: make a directory a cogtools project that Gemini CLI uses."""

from __future__ import annotations

import hashlib
import os
import typing as t
from pathlib import Path

import click

from cogtools.cli.boundary import write_text
from cogtools.cli.common import CONTEXT_SETTINGS, ClientChoice, client_aliases, version_option
from cogtools.cli.review import Reviewer, interactive, review_lines, yes_option
from cogtools.clients.gemini import PREFIX
from cogtools.clients.gemini.commands import merge_allowed, merge_settings, overridden, spawnable_commands
from cogtools.clients.gemini.install import mechanism
from cogtools.clients.gemini.memory import tools_table, update_gemini_md
from cogtools.clients.gemini.rules import check_policy_file, policy_file, store_policy, stored_notes
from cogtools.clients.launchers import PROJECT_LAUNCHER, scripts_directories
from cogtools.clients.mcp_clients import CLIENTS, PROJECT, launch, merge, target
from cogtools.core import jsonc
from cogtools.core.errors import CogtoolsError, ConfigInvalidError
from cogtools.core.fsutil import config_within, read_config, write_config
from cogtools.core.model import PROBLEMS_TOOL
from cogtools.load.catalog import load_catalog
from cogtools.load.config import CONFIG_NAME
from cogtools.services.config_edit import YAML_HOME, init_manifest, settings_home
from cogtools.services.sync import (
    MANAGED,
    allow_none,
    allowed_names,
    policy_text,
    review_allowed,
    store_record,
    sync_gemini_md,
)
from cogtools.trust import pins

if t.TYPE_CHECKING:
    from cogtools.clients.gemini.commands import Commands, Merge
    from cogtools.clients.gemini.install import Mechanism
    from cogtools.clients.mcp_clients import Merged, Place
    from cogtools.services.config_edit import Edit
    from cogtools.services.sync import Decide, Review

CONFIG_TEMPLATE = """\
# cogtools project configuration (see cogtools(1) and `cogtools config --show-origin`).
$schema: schema:agladysh-research.org,2025/cogtools:config
tool_sources:
  - local: ./{tools_dir}
env_priority: project
"""

STARTER_TOOL = """\
#! /usr/bin/env cogtools-yaml
$schema: schema:agladysh-research.org,2025/cogtools:tool

name: hello

description: |
  Greet someone by name.
  A starter tool: copy it, change it, and see what the model sees with `cogtools-discover --yaml`.

parameters:
  who:
    type: string
    description: Whom to greet.
  times:
    type: integer
    minimum: 1
    maximum: 3
    default: 1
    optional: true
    description: How many times to say it.

examples:
  - who: world
  - who: Ada
    times: 2

category: Example
risk_level: low
side_effects: []

implementation: "{% for _ in range(times) %}Hello, {{ who }}!\\n{% endfor %}"
"""


class Answers(t.NamedTuple):
    tools_dir: str = "tools"
    starter: bool = True
    gemini: bool = True
    gemini_md: bool = True


@click.command(
    "init", context_settings=CONTEXT_SETTINGS, short_help="Make this directory a cogtools project for Gemini CLI."
)
@click.argument("directory", required=False, default=".", type=click.Path(file_okay=False, path_type=Path))
@click.option("--non-interactive", is_flag=True, help="Ask nothing; use the defaults.")
@click.option("--defaults", is_flag=True, help="Take the default answer to every question without asking.")
@click.option(
    "--force", is_flag=True, help="Replace files and settings cogtools wrote before but a person changed since."
)
@click.option(
    "--mcp",
    "mcp_clients",
    multiple=True,
    type=ClientChoice(),
    help="Set this MCP client up to start `cogtools mcp` for the project (its own configuration file, merged), instead of Gemini CLI's discovery and call commands. Repeatable. Aliases: "
    + client_aliases()
    + ".",
)
@click.option(
    PROJECT_LAUNCHER,
    "project_launcher",
    is_flag=True,
    help="Have Gemini CLI (or the MCP clients) run the project's own launcher, node_modules/.bin's (or this cogtools"
    " where it runs from inside the project), which every checkout has: a file of the workspace, which the agent can"
    " rewrite, and with it what runs unasked.",
)
@click.option(
    "--config-file",
    is_flag=True,
    help="Keep the settings in .cogtoolrc.yaml, even where package.json or pyproject.toml keeps them (it then"
    " replaces their settings, key by key).",
)
@yes_option()
@version_option()
def command(
    directory: Path,
    non_interactive: bool,
    defaults: bool,
    force: bool,
    mcp_clients: tuple[str, ...],
    project_launcher: bool,
    config_file: bool,
    yes: bool,
) -> None:
    """Make DIRECTORY (default: the current one) a cogtools project that Gemini CLI uses.

    Creates .cogtoolrc.yaml, a tools directory with a starter tool, and .gemini/settings.json with
    tools.discoveryCommand and tools.callCommand, and writes the table of tools into GEMINI.md.
    Where the project has a package.json, the settings go in its "cogtools" key instead (Node's own
    model of a project: the nearest package.json with that key marks it), added or changed in
    place, every other byte of the file as it was; where it has none but a pyproject.toml with
    [tool.cogtools], there. A .cogtoolrc.yaml, which would replace their settings, is written only
    where one exists or with --config-file. An
    existing settings.json is merged: every key in it survives, and so does every comment (it is
    read as Gemini CLI reads it: comments, but no trailing commas). Where a change would lose a
    comment, nothing is written and the keys to set by hand are printed. Nothing a person wrote
    is replaced without --force, and running init again changes nothing. Everything is checked
    before the first write. On a terminal, without --non-interactive or --defaults, init asks its
    questions with the defaults filled in.

    The commands are written by their bare names, which Gemini CLI finds on its PATH: the
    project's settings are shared, so they name no path of this machine (a virtual environment
    that is not activated, npx's environment in ~/.cache/cogtools/npm), and init says when PATH
    finds no cogtools, or another one than the cogtools that runs init. Never a file of the
    workspace, which the agent can rewrite, and with it what Gemini CLI runs unasked: a launcher
    the project has (node_modules/.bin/cogtools-call) is written only with --project-launcher,
    and init says that the agent can rewrite it. A cogtools that runs from inside the project (its
    .venv) is refused without that flag, and with it written by its path relative to the project.

    The tools that are to run without confirmation are pinned and allowed as cogtools sync does
    it: by Gemini CLI Policy Engine rules in a file of yours (~/.gemini/policies/), or, for a
    Gemini CLI before 0.30, in tools.allowed. Init's own starter tool is allowed as written; any
    other tool already in the directory is first shown (what it runs, what it declares) and, on
    a terminal, asked about; otherwise it is not allowed unless --yes is given.

    With --mcp CLIENT, init sets that MCP client up instead of Gemini CLI's commands: the
    configuration and the starter tool, and the server's entry merged into the client's own file
    (claude-code .mcp.json, codex .codex/config.toml, cursor .cursor/mcp.json, gemini
    .gemini/settings.json, qwen .qwen/settings.json, vscode .vscode/mcp.json; antigravity
    (Antigravity CLI, agy) ~/.gemini/config/mcp_config.json, claude-desktop, copilot and windsurf
    the user's file, never through a symbolic link), and nothing else: no discovery command,
    GEMINI.md or pins. A project's file names no path of this machine: cogtools
    on PATH; with --project-launcher, node_modules/.bin/cogtools, or the project's own virtual
    environment by a relative path when cogtools runs from one. An entry a person changed is
    kept unless --force.
    """

    answers = Answers(gemini=not mcp_clients, gemini_md=not mcp_clients)  # --mcp: that client's file alone
    asking = not (non_interactive or defaults) and interactive()
    if asking and mcp_clients:
        answers = Answers(
            tools_dir=click.prompt("Directory for tool definitions", default=answers.tools_dir),
            starter=click.confirm("Create a starter tool?", default=answers.starter),
            gemini=False,
            gemini_md=False,
        )
    elif asking:
        answers = Answers(
            tools_dir=click.prompt("Directory for tool definitions", default=answers.tools_dir),
            starter=click.confirm("Create a starter tool?", default=answers.starter),
            gemini=click.confirm("Configure Gemini CLI (.gemini/settings.json)?", default=answers.gemini),
            gemini_md=click.confirm("Write the table of tools into GEMINI.md?", default=answers.gemini_md),
        )
    reviewer = Reviewer(yes=yes, ask=asking)
    lines = init_project(
        directory,
        answers,
        force=force,
        mcp_clients=mcp_clients,
        decide=reviewer,
        shown=reviewer.shown,
        project_launcher=project_launcher,
        config_file=config_file,
    )
    for line in lines:
        write_text(line + "\n")


def _check_settings(
    root: Path,
    answers: Answers,
    commands: Commands | None,
    settings_old: str | None,
    force: bool,
    kept_config: bool,
    gemini_reads: Mechanism,
) -> Merge | None:
    """The edit of .gemini/settings.json that init would write (None without Gemini CLI), tried
    before anything is written: its commands, tools.allowed (an older Gemini CLI), the rules file
    (the Policy Engine); or, with no settings to write, a kept configuration that must load."""
    settings_path = root / ".gemini" / "settings.json"
    if commands is None:
        if kept_config:
            load_catalog(root)  # a configuration that is kept must be one that loads
        return None
    merged = merge_settings(settings_old, str(settings_path), commands, force=force)
    expected = _expected_allowed(root, answers, strict=kept_config)
    merge_allowed(merged.text, str(settings_path), [] if gemini_reads.policy_engine else expected, [])
    if gemini_reads.policy_engine:
        check_policy_file(policy_file(root, os.environ), root)
    return merged


def init_project(
    directory: Path,
    answers: Answers,
    *,
    force: bool,
    mcp_clients: t.Sequence[str] = (),
    decide: Decide = allow_none,
    shown: t.Collection[str] = (),
    project_launcher: bool = False,
    config_file: bool = False,
) -> list[str]:
    """Create or update the project's files; returns one line per file, saying what was done.
    The starter tool, as init writes it, runs without confirmation; ``decide`` decides whether
    any other tool that is to does (:func:`cogtools.services.sync.review_allowed`). The commands
    the clients are given are this cogtools', or with ``project_launcher`` the project's own
    (:mod:`cogtools.clients.launchers`).

    Everything that can be refused is checked before the first write (settings and MCP files
    that cannot be read or edited, GEMINI.md's markers, a configuration that is kept but broken),
    so that a refusal leaves the directory as it was, never half a project. The settings go
    where the project keeps them (:func:`cogtools.services.config_edit.settings_home`): a
    ``.cogtoolrc.yaml`` only where one is, or ``config_file`` asks for it."""

    root = directory.resolve()
    tools_dir = answers.tools_dir.strip("/") or "tools"
    files, manifest = _settings(root, tools_dir, config_file)
    if answers.starter:
        files.append((root / tools_dir / "hello.yaml", STARTER_TOOL, 0o755))
    settings_path = root / ".gemini" / "settings.json"
    search_path = os.environ.get("PATH")
    commands = (
        spawnable_commands(
            search_path, scripts_directories(), root, project_launcher=project_launcher, environ=os.environ
        )
        if answers.gemini
        else None
    )
    # Check: every file read, every edit tried on it, before anything is written.
    for path in [*(path for path, _, _ in files), settings_path, root / MANAGED, root / "GEMINI.md", root / tools_dir]:
        config_within(path, root)
    olds = {path: read_config(path) for path, _, _ in files}
    kept_config = manifest is None and olds[root / CONFIG_NAME] not in (None, files[0][1]) and not force
    gemini_reads = mechanism(os.environ)  # Policy Engine rules, or tools.allowed for an older Gemini CLI
    settings_old = read_config(settings_path) if answers.gemini else None
    merged = _check_settings(root, answers, commands, settings_old, force, kept_config, gemini_reads)
    if answers.gemini_md:
        update_gemini_md(read_config(root / "GEMINI.md"), tools_table([]), str(root / "GEMINI.md"))
    for client in mcp_clients:
        _mcp_client(root, client, force, os.environ, project_launcher)
    # Write.
    report = _write_manifest(manifest, root)
    report += [_write_file(path, text, olds[path], force, root, mode) for path, text, mode in files]
    _make_dir(root / tools_dir)
    catalog = load_catalog(root)
    if merged is not None:
        plan, decision = review_allowed(
            catalog, merged.text, str(settings_path), _starter_allowed(decide), gemini_reads
        )
        notes = [plan.summary]
        if merged.kept:
            notes.append(f"kept your {', '.join(merged.kept)}; --force to replace")
        report.append(f"{_store(settings_path, settings_old, plan.text, root)} ({'; '.join(notes)})")
        assert commands is not None
        report.extend(f"note: {note}" for note in commands.notes if not merged.kept)
        report.extend(f"note: {note}" for note in overridden(root, os.environ, commands))
        store_record(catalog, plan.record)
        pins.record(catalog.project, decision.pins)
        if plan.rules_path is not None:
            done = store_policy(plan.rules_path, policy_text(catalog, plan), root)
            report.append(f"{done} {plan.rules_path} (Policy Engine rules, user-wide; {gemini_reads.why})")
            report.extend(stored_notes(done, plan.rules_path))
        report.extend(review_lines(decision, shown))
    if answers.gemini_md:
        report.append(f"{sync_gemini_md(catalog)} GEMINI.md")
    for client in mcp_clients:  # again: settings.json may have changed
        report.extend(_set_mcp_client_up(root, client, force, os.environ, project_launcher))
    return report


def _settings(root: Path, tools_dir: str, config_file: bool) -> tuple[list[tuple[Path, str, int | None]], Edit | None]:
    """Where the settings go (:func:`cogtools.services.config_edit.settings_home`): the
    ``.cogtoolrc.yaml`` to write, or the change of the ``package.json`` or ``pyproject.toml``
    that keeps them, checked, nothing written."""
    home, kind = settings_home(root, config_file=config_file)
    config_within(home, root)
    if kind == YAML_HOME:
        return [(root / CONFIG_NAME, CONFIG_TEMPLATE.format(tools_dir=tools_dir), None)], None
    return [], init_manifest(home, kind, tools_dir, root, os.environ)


def _write_manifest(manifest: Edit | None, root: Path) -> list[str]:
    """Write the change of the manifest that keeps the settings; what was done."""
    if manifest is None:
        return []
    if manifest.text is not None:
        write_config(manifest.path, manifest.text, within=root)
    return [manifest.done, *(f"note: {note}" for note in manifest.notes)]


def _starter_allowed(decide: Decide) -> Decide:
    """``decide``, but for init's own starter tool, byte for byte as init writes it, which is
    allowed without asking."""

    starter = hashlib.sha256(STARTER_TOOL.encode("utf-8")).hexdigest()

    def decide_others(reviews: t.Sequence[Review]) -> set[str]:
        ours = {review.name for review in reviews if review.sha256 == starter}
        others = [review for review in reviews if review.name not in ours]
        return ours | (set(decide(others)) if others else set())

    return decide_others


def _expected_allowed(root: Path, answers: Answers, *, strict: bool) -> list[str]:
    """What tools.allowed will hold, as well as it can be told before the first write: the
    diagnostic tools of the project as it is, and the starter tool. With ``strict`` (the
    configuration is kept as it is) a configuration that does not load stops init here."""

    try:
        names = allowed_names(load_catalog(root))
    except CogtoolsError:
        if strict:
            raise
        names = [PREFIX + PROBLEMS_TOOL]
    if answers.starter and PREFIX + "hello" not in names:
        names.insert(-1, PREFIX + "hello")  # before cogtools_problems, which comes last
    return names


def _mcp_client(
    root: Path, client: str, force: bool, environ: t.Mapping[str, str], project_launcher: bool
) -> tuple[Place, str | None, Merged]:
    """The MCP server's entry merged into ``client``'s configuration file: where it is, its old
    text and the merge (nothing is written). A project's file must be inside the project."""

    place = target(client, root, environ)
    if place.scope == PROJECT:
        config_within(place.path, root)
    elif place.path.is_symlink():  # a file of the person's, outside the project: never through a link
        raise ConfigInvalidError(
            f"{place.path} is a symbolic link: outside the project, cogtools writes a file of yours only where it is"
            " a file of its own, never through a link, and does not replace your link; replace it with the file"
            f" it leads to, or merge the entry by hand (`cogtools mcp --print-config {client}` prints it)",
            path=str(place.path),
            details={"reason": "symbolic_link"},
        )
    old = read_config(place.path)
    merged = merge(old, client, root, str(place.path), force=force, environ=environ, project_launcher=project_launcher)
    return place, old, merged


def _set_mcp_client_up(
    root: Path, client: str, force: bool, environ: t.Mapping[str, str], project_launcher: bool
) -> list[str]:
    """Write ``client``'s file; the lines that say what was done, and what to know."""

    place, old, merged = _mcp_client(root, client, force, environ, project_launcher)
    spec = CLIENTS[client]
    shown = place.path.relative_to(root).as_posix() if place.scope == PROJECT else str(place.path)
    name = merged.name
    if merged.kept:
        return [f"kept your {name} server in {shown} (it differs; --force to replace)"]
    if old == merged.text:
        done = f"unchanged {shown}"
    else:
        write_config(place.path, merged.text, within=root if place.scope == PROJECT else None)
        done = f"{'created' if old is None else 'updated'} {shown}"
    how = launch(client, root, environ, project_launcher=project_launcher)
    started = {
        "environment": f"the project's own environment, by a relative path ({PROJECT_LAUNCHER})",
        "npm": f"the project's node_modules/.bin/cogtools ({PROJECT_LAUNCHER})",
        "path": "cogtools on PATH",
        "absolute": "this interpreter, by its absolute path",
    }[how.kind]
    lines = [f"{done} (MCP server {name!r} for {spec.title}: {started})"]
    if how.note:
        lines.append(f"note: {how.note}")
    lines.extend(f"note: {note}" for note in _client_notes(client, merged.text))
    return lines


def _client_notes(client: str, text: str) -> list[str]:
    """What a person should know of ``client`` once it is set up."""
    if client == "codex":
        return [
            'Codex reads .codex/config.toml only in a project you trust (trust_level = "trusted" for it in'
            " ~/.codex/config.toml; Codex asks the first time it starts there)"
        ]
    if client == "qwen":
        return [
            "Qwen Code may run the server's tools without asking (trust: true, or its auto mode, where a model"
            " decides): cogtools' own checks are the only gate; see `cogtools doctor`"
        ]
    if client == "gemini":
        try:
            tools = jsonc.loads(text).get("tools", {})
        except (jsonc.JsoncError, AttributeError):
            return []
        if isinstance(tools, dict) and tools.get("discoveryCommand"):
            return [
                "tools.discoveryCommand is set in .gemini/settings.json too, so Gemini CLI lists every tool"
                " twice (discovered_tool_NAME and mcp_cogtools_NAME): remove tools.discoveryCommand and"
                " tools.callCommand, or the cogtools entry of mcpServers"
            ]
    return []


def _make_dir(path: Path) -> None:

    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ConfigInvalidError(f"cannot create the directory: {e.strerror}", path=str(path)) from e


def _write_file(path: Path, text: str, old: str | None, force: bool, root: Path, mode: int | None = None) -> str:
    if old is not None and old != text and not force:
        return f"kept {path.relative_to(root)} (it differs from the default; --force to replace)"
    return _store(path, old, text, root, mode)


def _store(path: Path, old: str | None, text: str, root: Path, mode: int | None = None) -> str:

    shown = path.relative_to(root)
    if old == text:
        return f"unchanged {shown}"
    write_config(path, text, within=root, mode=mode)
    return f"{'created' if old is None else 'updated'} {shown}"
