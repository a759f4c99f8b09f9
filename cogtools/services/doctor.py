"""What stands between a project and Gemini CLI, checked in the order a person would debug it.

The project's own checks (its configuration, every source and tool) are the load's findings
(:mod:`cogtools.load.loading`), which also reach a Gemini session through the built-in tool
``cogtools_problems``; here are the checks of the links to Gemini CLI: its settings files, the
commands, folder trust, the Policy Engine rules (or ``tools.allowed``) and the pins of what they
let through, GEMINI.md, node, and a discovery run as Gemini CLI makes it; and, on request,
every example call. Each gives a
:class:`~cogtools.load.loading.Finding` with the fix.

Nothing here prints; ``cogtools doctor`` (:mod:`cogtools.cli.doctor_cmd`) does. Nothing imports
this module but that command.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import time
import typing as t
from pathlib import Path

from cogtools.clients.gemini import PREFIX
from cogtools.clients.gemini.install import installed_gemini, mechanism
from cogtools.clients.gemini.memory import tools_table, update_gemini_md
from cogtools.clients.gemini.rules import policy_file, policy_sources, read_rules, unasked
from cogtools.clients.gemini.settings import allowed_in, effective, expand_variables, gemini_home, settings_layers
from cogtools.clients.launchers import PROJECT_LAUNCHER, machine_path, workspace_file
from cogtools.core import jsonc
from cogtools.core.errors import CogtoolsError, ExecutionFailedError, ToolTimeoutError
from cogtools.core.fsutil import find_program, inside, read_config
from cogtools.load.loading import OK, PROBLEM, WARNING, Finding, Loaded
from cogtools.run.bind import BWRAP_PATHS, bwrap
from cogtools.run.confine import CANNOT_CONFINE, UNFILTERED, available, declared, filtered, own_code, settings
from cogtools.run.process import run_program
from cogtools.services.discovery import GEMINI_OUTPUT_LIMIT, offer
from cogtools.services.sync import AllowedPlan, plan_allowed
from cogtools.services.testing import run_example
from cogtools.trust import pins
from cogtools.trust.policy import confined

if t.TYPE_CHECKING:
    from cogtools.clients.gemini.settings import Layer, Setting
    from cogtools.load.catalog import Catalog
    from cogtools.services.testing import ExampleResult

#: Gemini CLI's folder trust file, under its home (``$GEMINI_CLI_HOME``, else ``~``).
TRUSTED_FOLDERS = "trustedFolders.json"
#: How long doctor waits for the discovery command (Gemini CLI itself waits forever).
DISCOVERY_TIMEOUT = 60.0


# The links between the project and Gemini CLI.


def gemini_checks(
    catalog: Catalog | None, environ: t.Mapping[str, str], *, run_discovery: bool = True, root: Path | None = None
) -> list[Finding]:
    """Settings (the four files Gemini CLI merges, a value named with the file it comes from),
    commands, folder trust, what lets the tools run unasked (Policy Engine rules or
    tools.allowed) and their pins, GEMINI.md, node, and a discovery run as Gemini CLI would make
    it. Without a catalog (the project's configuration does not load: ``root`` is its root), all
    but what needs the tools."""

    if catalog is not None:
        root = catalog.project.root
    assert root is not None
    layers = settings_layers(root, environ)
    workspace = next(layer for layer in layers if layer.scope == "workspace")
    broken = [layer for layer in layers if layer.error is not None]
    if broken:
        fix = "Gemini CLI stops at start-up on this file too; correct it"
        return [Finding("settings", PROBLEM, f"{layer.path}: {layer.error}", fix) for layer in broken]
    discovery = effective(layers, "tools", "discoveryCommand")
    findings = _settings_findings(layers, workspace, discovery)
    commands = {key: effective(layers, "tools", key) for key in ("discoveryCommand", "callCommand")}
    findings += _overridden(layers, commands)
    found, discovery_resolves = _command_findings(
        {key: None if setting is None else setting.value for key, setting in commands.items()},
        root,
        environ,
        {key: setting.layer.path for key, setting in commands.items() if setting and setting.layer != workspace},
        workspace.path,
    )
    findings += found
    findings.append(_trust_finding(root, _trust_settings(layers), environ))
    if catalog is not None:
        findings += _in_step(catalog, workspace.text, str(workspace.path), layers, environ)
    findings.append(_node_finding(environ))
    if run_discovery and discovery_resolves and discovery is not None:  # an unresolved one has its problem
        findings.append(_discovery_finding(str(discovery.value), root, environ))
    return findings


def _settings_findings(layers: t.Sequence[Layer], workspace: Layer, discovery: Setting | None) -> list[Finding]:
    """The settings files: those Gemini CLI skips, the project's (or where the discovery command
    comes from instead), and the top-level keys it no longer reads."""
    findings = [
        Finding(
            "settings",
            WARNING,
            f"{layer.path} ({layer.scope} settings) is skipped by Gemini CLI: {layer.skipped}",
            "make it and every directory above it root's and writable by no one else, or remove it",
        )
        for layer in layers
        if layer.skipped is not None and layer.text is not None and layer.scope != "workspace"
    ]
    if workspace.text is not None:
        findings.append(Finding("settings", OK, str(workspace.path)))
    elif discovery is not None:
        said = f"no {workspace.path}; the discovery command comes from {discovery.layer.path}"
        findings.append(Finding("settings", OK, said))
    else:
        said = f"no {workspace.path}: Gemini CLI does not know these tools"
        findings.append(Finding("settings", PROBLEM, said, "run `cogtools init`"))
    if "toolDiscoveryCommand" in workspace.settings or "toolCallCommand" in workspace.settings:
        findings.append(
            Finding(
                "settings",
                WARNING,
                "toolDiscoveryCommand/toolCallCommand at the top level are ignored by Gemini CLI since 0.24",
                "move them into `tools` as discoveryCommand and callCommand (`cogtools init` does)",
            )
        )
    return findings


def _overridden(layers: t.Sequence[Layer], commands: t.Mapping[str, Setting | None]) -> list[Finding]:
    """A command the project sets that a later settings file (the system's) replaces."""
    workspace = next(layer for layer in layers if layer.scope == "workspace")
    tools = workspace.settings.get("tools")
    findings = []
    for key, setting in commands.items():
        mine = tools.get(key) if isinstance(tools, dict) else None
        if mine is not None and setting is not None and setting.layer != workspace and setting.value != mine:
            findings.append(
                Finding(
                    "settings",
                    WARNING,
                    f"tools.{key} {mine!r} of {workspace.path} is overridden by {setting.value!r} of {setting.layer.path}"
                    f" ({setting.layer.scope} settings, which Gemini CLI merges last)",
                    f"ask whoever keeps {setting.layer.path} to leave tools.{key} to projects, or use theirs",
                )
            )
    return findings


def _trust_settings(layers: t.Sequence[Layer]) -> dict[str, t.Any]:
    """What Gemini CLI decides folder trust by: the system-defaults, user and system settings
    (never the workspace's own)."""

    others = [layer for layer in layers if layer.scope != "workspace"]
    enabled = effective(others, "security", "folderTrust", "enabled")
    return {} if enabled is None else {"security": {"folderTrust": {"enabled": enabled.value}}}


def discovery_argv(command: str, environ: t.Mapping[str, str]) -> list[str]:
    """The discovery command as Gemini CLI spawns it: variables expanded, split as a shell
    would split it (no shell runs: no pipes, no redirections)."""

    return shlex.split(expand_variables(command, environ))


def _command_findings(
    commands: dict[str, t.Any],
    root: Path,
    environ: t.Mapping[str, str],
    sources: t.Mapping[str, Path] = {},
    shared: Path | None = None,
) -> tuple[list[Finding], bool]:
    """A finding for each command (``sources``: the settings file of one that is not the
    workspace's, ``shared``: the workspace's), and whether the discovery command resolves. A
    command of the workspace's settings, which teammates share, that names a path of this
    machine is a problem however well it runs here."""
    findings = []
    resolves = False
    for key, effect in (
        ("discoveryCommand", "Gemini CLI will not start (spawn ENOENT)"),
        ("callCommand", "every call of a tool fails"),
    ):
        value = commands[key]
        if not isinstance(value, str) or not value.strip():
            findings.append(
                Finding(
                    "commands",
                    PROBLEM,
                    f"tools.{key} is not set: Gemini CLI does not know these tools",
                    "run `cogtools init`",
                )
            )
            continue
        if key == "discoveryCommand":
            try:
                argv = discovery_argv(value, environ)
            except ValueError as e:
                findings.append(
                    Finding(
                        "commands", PROBLEM, f"tools.{key} {value!r} cannot be split: {e}", "quote it as a shell would"
                    )
                )
                continue
        else:
            argv = [expand_variables(value, environ)]  # spawned as it is, not split: one executable
        found = find_program(argv[0], root, environ) if argv else None
        mine = None if key in sources else _machine_word(value, key)
        if mine is not None:
            findings.append(_machine_finding(key, value, mine, shared))
            resolves = resolves or (key == "discoveryCommand" and found is not None)
        elif found is None:
            findings.append(
                Finding(
                    "commands",
                    PROBLEM,
                    f"tools.{key} {value!r}: {argv[0] if argv else value!r} is not found on PATH as Gemini CLI will"
                    f" spawn it (no shell); {effect}",
                    "install cogtools where PATH finds it (pipx install or uv tool install of the Python package,"
                    " npm install -g of the npm package's tarball), or add the bin directory of the environment where it is installed to PATH; then"
                    " `cogtools init`",
                )
            )
        else:
            source = f" (from {sources[key]})" if key in sources else ""

            if workspace_file(found, root):  # the file, or a link on the way to it
                findings.append(
                    Finding(
                        "commands",
                        WARNING,
                        f"tools.{key} {value!r}{source} runs {found}, inside this project, which the agent can"
                        " rewrite: what Gemini CLI runs (unasked, for the tools it lets through) is then the"
                        " agent's, and no pin holds it",
                        "install cogtools outside the project (pipx install, uv tool install, npm install -g) and run"
                        " `cogtools init` from there, which writes its commands (--force for a value you wrote);"
                        f" keep the project's own only knowingly, as `cogtools init {PROJECT_LAUNCHER}` does",
                    )
                )
            else:
                findings.append(Finding("commands", OK, f"tools.{key} {value!r}{source} runs {found}"))
            resolves = resolves or key == "discoveryCommand"
    return findings, resolves


def _machine_word(value: str, key: str) -> tuple[str, str] | None:
    """The first word of a command, as written, that names a path of this machine, and why
    (:func:`~cogtools.clients.launchers.machine_path`); None when it names none."""
    try:
        words = shlex.split(value) if key == "discoveryCommand" else [value]
    except ValueError:
        words = [value]
    return next(((word, why) for word in words if (why := machine_path(word)) is not None), None)


def _machine_finding(key: str, value: str, mine: tuple[str, str], shared: Path | None) -> Finding:
    word, why = mine
    upgrade = ", nor this one once cogtools is upgraded" if "version" in why else ""
    return Finding(
        "commands",
        PROBLEM,
        f"tools.{key} {value!r} of {shared or 'the project settings'} names a path of this machine ({word}), {why}:"
        f" the project's settings are shared, and a teammate's checkout cannot run it{upgrade}",
        "run `cogtools init` (it replaces what an earlier init wrote, --force for a value you wrote): it writes the"
        " commands' names, which PATH finds wherever cogtools is installed (pipx install or uv tool install of the"
        " Python package, npm install -g of the npm package's tarball); a path of your own goes in your user settings, ~/.gemini/settings.json",
    )


def trusted_folders_path(environ: t.Mapping[str, str]) -> Path:
    explicit = environ.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
    return Path(explicit) if explicit else gemini_home(environ) / ".gemini" / TRUSTED_FOLDERS


def _trust_finding(root: Path, settings: dict[str, t.Any], environ: t.Mapping[str, str]) -> Finding:
    """Whether Gemini CLI trusts ``root`` (as its checkPathTrust decides): untrusted, it ignores
    the workspace settings, so the discovery command never runs."""

    if environ.get("GEMINI_RESTRICTED_MODE") == "true" or environ.get("GEMINI_CLI_TRUST_WORKSPACE") == "false":
        return Finding(
            "trust", PROBLEM, "GEMINI_CLI_TRUST_WORKSPACE=false (or restricted mode): no folder is trusted", "unset it"
        )
    if environ.get("GEMINI_CLI_TRUST_WORKSPACE") == "true":
        return Finding("trust", OK, "trusted by GEMINI_CLI_TRUST_WORKSPACE=true")
    security = settings.get("security", {})
    folder_trust = security.get("folderTrust", {}) if isinstance(security, dict) else {}
    if isinstance(folder_trust, dict) and folder_trust.get("enabled") is False:
        return Finding(
            "trust", OK, "folder trust is off (security.folderTrust.enabled: false): every folder is trusted"
        )
    path = trusted_folders_path(environ)
    fix = (
        f'trust it: run `gemini` in {root} and accept the prompt, or add "{root}": "TRUST_FOLDER" to {path};'
        " untrusted, Gemini CLI ignores .gemini/settings.json (the discovery command never runs) and headless"
        " `gemini -p` refuses to start"
    )
    try:
        rules = jsonc.loads(read_config(path) or "{}")
    except (CogtoolsError, jsonc.JsoncError) as e:
        return Finding(
            "trust", PROBLEM, f"{path} cannot be read ({e}): Gemini CLI stops at start-up", "correct or remove the file"
        )
    if not isinstance(rules, dict):
        return Finding(
            "trust", PROBLEM, f"{path} is not a JSON object: Gemini CLI stops at start-up", "correct or remove the file"
        )
    verdict = is_path_trusted(root, rules)
    if verdict is True:
        return Finding("trust", OK, f"{root} is trusted ({path})")
    if verdict is False:
        return Finding("trust", PROBLEM, f"{root} is marked DO_NOT_TRUST in {path}", fix)
    return Finding("trust", PROBLEM, f"{root} is not a trusted folder (no rule in {path} covers it)", fix)


def is_path_trusted(location: Path, rules: t.Mapping[str, t.Any]) -> bool | None:
    """Gemini CLI's rule: the longest rule path that contains ``location`` decides (TRUST_PARENT
    applies to the rule's parent directory); None when no rule matches."""
    real = os.path.realpath(location)
    best, verdict = -1, None
    for rule, level in rules.items():
        if level not in ("TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST"):
            continue
        effective = os.path.dirname(rule) if level == "TRUST_PARENT" else rule
        effective = os.path.realpath(effective) if os.path.exists(effective) else effective
        inside = real == effective or real.startswith(effective.rstrip("/") + "/")
        if inside and len(rule) > best:
            best, verdict = len(rule), level != "DO_NOT_TRUST"
    return verdict


def _in_step(
    catalog: Catalog, settings: str | None, path: str, layers: t.Sequence[Layer], environ: t.Mapping[str, str]
) -> list[Finding]:
    """What lets the tools run unasked (Policy Engine rules or tools.allowed, as the installed
    Gemini CLI reads them), the pins of what it lets through, and GEMINI.md, against the
    catalog."""

    reads = mechanism(environ)
    step = _rules_findings if reads.policy_engine else _allowed_findings
    try:
        findings = step(catalog, settings, path, layers, environ)
    except CogtoolsError as e:
        return [Finding("allowed", PROBLEM, str(e), "correct tools.allowed")]
    findings += _refusal_findings(catalog, layers, environ)
    findings += _gemini_md_findings(catalog)
    return findings


def _allowed_findings(
    catalog: Catalog, settings: str | None, path: str, layers: t.Sequence[Layer], environ: t.Mapping[str, str]
) -> list[Finding]:
    """tools.allowed of the workspace's settings (a Gemini CLI before the Policy Engine)."""

    if settings is None:
        return []
    reads = mechanism(environ)
    plan = plan_allowed(catalog, settings, path, mechanism=reads)
    findings = [Finding("allowed", OK, f"tools.allowed of {path}: {reads.why}")]
    allowed = allowed_in(settings) or set()
    if plan.text == settings:
        findings.append(Finding("allowed", OK, plan.summary))
        return findings
    planned = allowed_in(plan.text) or set()
    said = _difference(sorted(planned - allowed), sorted(allowed - planned))
    findings.append(
        Finding(
            "allowed",
            WARNING,
            f"tools.allowed is not in step with the tools ({said}): headless `gemini -p` offers only those it lists",
            "run `cogtools sync`",
        )
    )
    return findings


def _difference(missing: t.Sequence[str], stale: t.Sequence[str]) -> str:
    return "; ".join(
        part
        for part in (
            f"missing {', '.join(missing)}" if missing else "",
            f"no longer allowed {', '.join(stale)}" if stale else "",
        )
        if part
    )


def _rules_findings(
    catalog: Catalog, settings: str | None, path: str, layers: t.Sequence[Layer], environ: t.Mapping[str, str]
) -> list[Finding]:
    """The project's Policy Engine rules file: which mechanism is in force, whether Gemini CLI
    reads the file (policyPaths replaces the user's directory), whether it is in step, and
    what is left in tools.allowed (for which Gemini CLI warns at each start)."""

    root = catalog.project.root
    reads = mechanism(environ)
    plan = plan_allowed(catalog, settings, path, mechanism=reads)
    rules_path = plan.rules_path
    assert rules_path is not None
    try:
        exists = rules_path.exists()
        written = [rule.tool for rule in read_rules(rules_path) if rule.decision == "allow"] if exists else []
    except CogtoolsError as e:
        return [Finding("allowed", PROBLEM, str(e), "run `cogtools sync`, which writes it again")]
    findings = [
        Finding(
            "allowed",
            OK,
            f"Policy Engine rules in {rules_path} ({reads.why}); they are user-wide: a tool of the same name in"
            " another project is let through by Gemini CLI there too, and refused by cogtools there until it is"
            " pinned for that project",
        )
        if exists
        else _no_rules_file(rules_path, reads.why, [name[len(PREFIX) :] for name in plan.ours])
    ]
    findings += _rules_read(rules_path, layers, root, environ)
    broken = unasked(root, environ, layers=layers).broken
    findings += [
        Finding("allowed", WARNING, f"{bad}: {why}; Gemini CLI skips the file", "correct it") for bad, why in broken
    ]
    in_step = _rules_in_step(plan, written if exists else list(plan.ours), settings, path, layers)
    # a missing file is said above; what is left of tools.allowed is still said
    return findings + [finding for finding in in_step if exists or finding.status != OK]


def _no_rules_file(rules_path: Path, why: str, ours: t.Sequence[str]) -> Finding:
    """The project's Policy Engine rules file is not there: a problem when a tool is to run
    unasked (Gemini CLI asks about each, and headless ``gemini -p`` offers none)."""
    if not ours:
        return Finding("allowed", OK, f"no Policy Engine rules file ({rules_path}; {why}): no tool runs unasked")
    return Finding(
        "allowed",
        PROBLEM,
        f"the Policy Engine rules file {rules_path} does not exist ({why}): Gemini CLI asks before each of"
        f" {', '.join(ours)}, which you allowed to run unasked, and headless `gemini -p` offers none of them",
        "run `cogtools sync`, which writes it",
    )


def _rules_read(rules_path: Path, layers: t.Sequence[Layer], root: Path, environ: t.Mapping[str, str]) -> list[Finding]:
    """Whether Gemini CLI reads the rules file (policyPaths replaces the user's directory), and
    the policy paths the workspace sets (rules the agent can write)."""
    findings = []
    sources = policy_sources(layers, root, environ)
    read = {os.path.realpath(source) for source, _ in sources.user}
    if not {os.path.realpath(rules_path), os.path.realpath(rules_path.parent)} & read:
        setters = sorted({str(layer.path) for _, layer in sources.user if layer is not None})
        findings.append(
            Finding(
                "allowed",
                PROBLEM,
                f"policyPaths (set in {', '.join(setters)}) replaces {sources.default_user}, so Gemini CLI does not"
                f" read {rules_path.name}: the tools it allows are asked about, and hidden from headless `gemini -p`",
                f"add {rules_path.parent} to policyPaths in your user settings",
            )
        )
    for key, tier in (("policyPaths", "user"), ("adminPolicyPaths", "admin")):
        named = [layer for layer in layers if layer.scope == "workspace" and layer.settings.get(key)]
        if named:
            findings.append(
                Finding(
                    "allowed",
                    WARNING,
                    f"{named[0].path} sets {key}: rules the agent can write there are read in the {tier} tier;"
                    " cogtools refuses what they let through unless you pinned it",
                    f"remove {key} from the workspace's settings",
                )
            )
    return findings


def _rules_in_step(
    plan: AllowedPlan, written: t.Sequence[str], settings: str | None, path: str, layers: t.Sequence[Layer]
) -> list[Finding]:
    """Whether the rules file allows exactly the tools that run unasked, and what is left in
    tools.allowed (for which Gemini CLI warns at each start)."""
    findings = []
    missing = sorted(name[len(PREFIX) :] for name in plan.ours if name not in written)
    stale = sorted(name[len(PREFIX) :] for name in written if name not in plan.ours)
    if settings is not None and plan.text != settings:
        findings.append(
            Finding(
                "allowed",
                WARNING,
                f"tools.allowed of {path} still holds entries cogtools wrote; Gemini CLI warns at each start that"
                " tools.allowed is deprecated",
                "run `cogtools sync`: it moves them to the rules file",
            )
        )
    elif missing or stale:
        findings.append(
            Finding(
                "allowed",
                WARNING,
                f"the rules are not in step with the tools ({_difference(missing, stale)}): headless `gemini -p`"
                " offers only the tools a rule allows",
                "run `cogtools sync`",
            )
        )
    else:
        findings.append(Finding("allowed", OK, plan.summary))
    allowed = effective(layers, "tools", "allowed")
    if allowed is not None and allowed.value and (settings is None or plan.text == settings):
        findings.append(
            Finding(
                "allowed",
                WARNING,
                f"tools.allowed is set in {allowed.layer.path}: Gemini CLI warns at each start that it is deprecated",
                "move its entries to allow rules in a file of ~/.gemini/policies/",
            )
        )
    return findings


def _refusal_findings(catalog: Catalog, layers: t.Sequence[Layer], environ: t.Mapping[str, str]) -> list[Finding]:
    """The tools Gemini CLI runs unasked that cogtools refuses: changed since pinned, or never
    pinned (one let through by a rule of another project's or the person's, rules being
    user-wide)."""

    root = catalog.project.root
    let_through = unasked(root, environ, layers=layers)
    names = sorted(name for name in catalog.tools if let_through.source(name))
    refused = pins.refusals([catalog.tools[name] for name in names], catalog.project)
    ours = (str(policy_file(root, environ)), str(root / ".gemini" / "settings.json"))
    findings = []
    for name, refusal in refused.items():
        source = let_through.source(name) or ""
        if refusal.details.get("reason") == "not_pinned" and not any(path in source for path in ours):
            findings.append(
                Finding(
                    "allowed",
                    PROBLEM,
                    f"{name}: Gemini CLI runs it unasked ({source}; rules are user-wide, so another project's or"
                    " your own rule lets this project's tool of that name through), and cogtools refuses it, since"
                    " you never pinned it for this project",
                    "review it and run `cogtools sync` here (it asks about it), or rename the tool",
                )
            )
        else:
            findings.append(
                Finding(
                    "allowed",
                    PROBLEM,
                    f"{name}: calls are refused: {refusal.message}",
                    "review the definition, then run `cogtools sync`",
                )
            )
    if names:
        findings.append(_bind_finding())
    return findings


def _gemini_md_findings(catalog: Catalog) -> list[Finding]:

    md_path = catalog.project.root / "GEMINI.md"
    try:
        old = read_config(md_path)
        if old is None:
            return [Finding("GEMINI.md", OK, "no GEMINI.md (optional: `cogtools sync` writes the table of tools)")]
        if update_gemini_md(old, tools_table(offer(Loaded(catalog)).lasting), str(md_path)) == old:
            return [Finding("GEMINI.md", OK, "its table of tools is in step")]
        return [
            Finding("GEMINI.md", WARNING, "its table of tools is not in step with the tools", "run `cogtools sync`")
        ]
    except CogtoolsError as e:
        return [Finding("GEMINI.md", PROBLEM, str(e), "mend the markers, then run `cogtools sync`")]


def _bind_finding() -> Finding:
    """Whether a pinned script runs from the bytes its pin check read (:mod:`cogtools.run.bind`)."""

    found = bwrap()
    if found is not None:
        return Finding("pins", OK, f"a pinned script runs from the bytes its pin check read ({found})")
    return Finding(
        "pins",
        WARNING,
        f"bubblewrap ({' or '.join(BWRAP_PATHS)}) is missing or cannot make a namespace here: a pinned script"
        " is read again by path just after its check, and a file flipped in between could run",
        "install bubblewrap (Debian, Ubuntu: apt install bubblewrap), and allow unprivileged user namespaces",
    )


def sandbox_findings(catalog: Catalog) -> list[Finding]:
    """How the programs of the project's tools are confined (:mod:`cogtools.run.confine`):
    how many run confined, which declare nothing and may do anything, and whether this system
    can confine at all (none when no tool runs code); and whether cogtools itself runs from the
    project, which the agent can write."""
    found = _sandbox_finding(catalog)
    return ([] if found is None else [found]) + _install_findings(catalog)


def _install_findings(catalog: Catalog) -> list[Finding]:

    root = catalog.project.root
    kept = [path for path in own_code() if inside(path, root)]
    if not kept:
        return []
    return [
        Finding(
            "install",
            WARNING,
            f"cogtools runs from {kept[0]}, inside this project, which the agent can write: a file written"
            " there (a .pth, a module) would run in cogtools itself, and in every python tool's process",
            "install cogtools outside the project (pipx install of the Python package, or a virtual environment elsewhere)",
        )
    ]


def _sandbox_finding(catalog: Catalog) -> Finding | None:
    """How the programs of the project's tools are confined (:mod:`cogtools.run.confine`):
    how many run confined, which declare nothing and may do anything, and whether this system
    can confine at all; None when no tool runs code."""

    held = {tool.name: confined(tool, catalog.project) for tool in catalog.tools.values()}
    running = {name: h for name, h in held.items() if h.runs_code}
    if not running:
        return None
    free = sorted(name for name, h in running.items() if not h.confined)
    claims = sorted(name for name in free if declared(catalog.tools[name]) is not None)
    if not available() and claims:
        refuse = settings(catalog.project).get("unconfined", "refuse") == "refuse"
        return Finding(
            "sandbox",
            WARNING,
            f"{CANNOT_CONFINE}: {', '.join(claims)} declare their side effects but would run unconfined"
            + ("; a pinned one is refused (sandbox.unconfined: refuse)" if refuse else " (sandbox.unconfined: warn)"),
            "install bubblewrap (Debian, Ubuntu: apt install bubblewrap), and allow unprivileged user namespaces",
        )
    said = f"{len(running) - len(free)} of {len(running)} tools that run code are confined to their side effects"
    if free:
        said += "; " + "; ".join(f"{name} is {running[name].how}" for name in free)
    offline = [name for name in running if name not in free and "network" not in (declared(catalog.tools[name]) or ())]
    if offline and not filtered():
        return Finding(
            "sandbox",
            WARNING,
            f"{said}; but {', '.join(offline)} declare no network and can still reach {UNFILTERED}:"
            " a socket file they see (in the project, with filesystem_read) is a way out",
            "keep no socket file where these tools can see it, or run them on x86_64 or aarch64",
        )
    return Finding("sandbox", OK, said)


def _node_finding(environ: t.Mapping[str, str]) -> Finding:
    """Whether node meets the ``engines.node`` of the Gemini CLI on PATH."""

    installed = installed_gemini(environ)
    if installed is None:
        return Finding("node", WARNING, "no `gemini` on PATH", "install Gemini CLI: npm install -g @google/gemini-cli")
    gemini, manifest = installed.path, installed.manifest
    wanted = str(manifest.get("engines", {}).get("node", "")) if manifest else ""
    node = shutil.which("node", path=environ.get("PATH", os.defpath))
    if node is None:
        return Finding(
            "node", PROBLEM, f"{gemini} needs node{f' {wanted}' if wanted else ''}, and PATH has none", "install node"
        )
    try:
        version = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError) as e:
        return Finding("node", PROBLEM, f"{node} --version failed: {e}", "repair the node installation")
    label = f"Gemini CLI {manifest.get('version', '?')}" if manifest else str(gemini)
    if wanted and not satisfies(version, wanted):
        return Finding("node", PROBLEM, f"{label} needs node {wanted}; {node} is {version}", f"install node {wanted}")
    return Finding("node", OK, f"{label} with node {version}" + (f" (needs {wanted})" if wanted else ""))


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3]) + (0,) * 3


def satisfies(version: str, wanted: str) -> bool:
    """Whether ``version`` ("v20.1.0") meets an npm range of comparators (">=20", ">=18 <23",
    "^20.3", "20.x", alternatives joined by ``||``); a range it cannot read counts as met."""
    have = _version(version)[:3]
    for alternative in wanted.split("||"):
        met = True
        for comparator in alternative.split():
            match = re.fullmatch(r"(>=|<=|>|<|=|\^|~)?v?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?", comparator)
            if match is None:
                return True
            op = match.group(1) or "="
            parts = [int(p) for p in match.groups()[1:] if p is not None and p.isdigit()]
            bound = tuple(parts) + (0,) * (3 - len(parts))
            if op == ">=":
                met &= have >= bound
            elif op == ">":
                met &= have > bound
            elif op == "<=":
                met &= have <= bound
            elif op == "<":
                met &= have < bound
            elif op == "=":  # "20", "20.x": the parts given must match
                met &= have[: len(parts)] == bound[: len(parts)]
            elif op == "^":
                met &= have >= bound and have[0] == bound[0]
            else:  # ~
                met &= have >= bound and have[:2] == bound[:2]
        if met:
            return True
    return False


def _discovery_finding(command: str, root: Path, environ: t.Mapping[str, str]) -> Finding:
    """Run the discovery command as Gemini CLI does (in the project root, no shell) and check
    what it prints: exit status 0 and a JSON array of declarations, within the CLI's limit."""

    try:
        argv = discovery_argv(command, environ)
    except ValueError:
        return Finding("discovery", PROBLEM, f"{command!r} cannot be split", "quote it as a shell would")
    started = time.perf_counter()
    try:  # in its own process group, killed with whatever it started; its output capped
        finished = run_program(
            argv,
            stdin=b"",
            cwd=str(root),
            env=environ,
            timeout=DISCOVERY_TIMEOUT,
            max_output=GEMINI_OUTPUT_LIMIT,
            tool="discovery",
        )
    except ToolTimeoutError:
        return Finding(
            "discovery",
            PROBLEM,
            f"{command} ran past {DISCOVERY_TIMEOUT:.0f} s; Gemini CLI would wait for it forever",
            "find what it waits for (`cogtools-discover` reads no input)",
        )
    except ExecutionFailedError as e:
        if isinstance(e.__cause__, FileNotFoundError):
            message = f"{argv[0]}: not found; Gemini CLI will not start"
        else:
            message = f"{command}: {e.details.get('reason', e.message)}; Gemini CLI will not start"
        return Finding("discovery", PROBLEM, message, "see the commands check above")
    seconds = time.perf_counter() - started
    if finished.dropped:
        size = len(finished.stdout) + finished.dropped
        return Finding(
            "discovery",
            PROBLEM,
            f"{command} printed {size} bytes, past Gemini CLI's limit of {GEMINI_OUTPUT_LIMIT}; Gemini CLI will not start",
            "mark tools discoverable and use discovery mode",
        )
    stdout, returncode = finished.stdout, finished.status
    stderr = finished.stderr[-4096:].decode("utf-8", "replace")
    if returncode != 0:
        last = stderr.strip().splitlines()[-1:] or [""]
        return Finding(
            "discovery",
            PROBLEM,
            f"{command} exited with status {returncode} ({last[0][:300]}); Gemini CLI will not start",
            "run it by hand in the project root",
        )
    problem = declarations_problem(stdout)
    if problem:
        return Finding(
            "discovery",
            PROBLEM,
            f"{command}: {problem}; Gemini CLI will not start",
            "run it by hand in the project root",
        )
    count = len(json.loads(stdout))
    return Finding("discovery", OK, f"{command} printed {count} declaration{'s' * (count != 1)} in {seconds:.2f} s")


def declarations_problem(stdout: bytes) -> str | None:
    """What keeps Gemini CLI from reading ``stdout`` as tool declarations, or None."""
    try:
        document = json.loads(stdout)
    except ValueError as e:
        return f"its output is not JSON ({e})"
    if not isinstance(document, list):
        return "its output is not a JSON array"
    for index, item in enumerate(document):
        declarations = item.get("functionDeclarations", [item]) if isinstance(item, dict) else [item]
        for declaration in declarations:
            if not isinstance(declaration, dict) or not isinstance(declaration.get("name"), str):
                return f"item {index} is not a declaration with a name"
            schema = declaration.get("parametersJsonSchema", {})
            if not isinstance(schema, dict):
                return f"{declaration['name']}: parametersJsonSchema is not an object"
    return None


def _example_fix(outcome: ExampleResult) -> str:
    """How a person mends a failed example, by what failed."""
    tool = outcome.name.rsplit("[", 1)[0]
    if outcome.code == "POLICY_DENIED":
        return (
            f"the examples run as the role agents are given (policy.role); `cogtools test --role ROLE {tool}` runs"
            " them as another, and an example that should be refused says expect: {error: POLICY_DENIED}"
        )
    if outcome.diff:
        return f"`cogtools test {tool}` shows the diff"
    if outcome.code:
        return f"`cogtools test {tool}` shows it again; see cogtools-call(1) for {outcome.code}"
    return f"correct the example or the tool; `cogtools test {tool}` runs it again"


def example_findings(catalog: Catalog) -> list[Finding]:
    """Every example call of every tool, run (``cogtools doctor --test``)."""

    outcomes = [
        run_example(tool, index, example, catalog.project)
        for tool in catalog.tools.values()
        for index, example in enumerate(tool.examples)
    ]
    failed = [outcome for outcome in outcomes if not outcome.passed]
    findings = [Finding("examples", PROBLEM, f"{o.name}: {o.message}", _example_fix(o)) for o in failed]
    return findings or [Finding("examples", OK, f"{len(outcomes)} example{'s' * (len(outcomes) != 1)} passed")]
