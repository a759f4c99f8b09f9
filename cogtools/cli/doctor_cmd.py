"""``cogtools doctor``: find every broken link between the project and its clients (Gemini CLI's
discovery and call commands, and each MCP client set up for it)."""

from __future__ import annotations

import json
import os
import typing as t

import click

from cogtools.cli.boundary import STATUS_MARKS, workspace_env_note, write_stdout, write_text
from cogtools.cli.common import CONTEXT_SETTINGS, format_option, version_option
from cogtools.clients import doctor as client_doctor
from cogtools.clients.gemini.settings import read_settings
from cogtools.clients.mcp_clients import user_file
from cogtools.core import jsonc
from cogtools.core.errors import CogtoolsError
from cogtools.core.fsutil import read_config
from cogtools.load.loading import OK, PROBLEM, WARNING, Finding, load_project
from cogtools.services import doctor
from cogtools.services.doctor import is_path_trusted, trusted_folders_path

if t.TYPE_CHECKING:
    from pathlib import Path

    from cogtools.load.loading import Finding

#: The exit status when a problem was found (a warning too, with --strict).
EXIT_PROBLEMS = 1


@click.command(
    "doctor",
    context_settings=CONTEXT_SETTINGS,
    short_help="Find what keeps Gemini CLI or an MCP client from using the project's tools.",
)
@format_option("Findings for people, or one JSON document for programs.")
@click.option("--test", "run_examples", is_flag=True, help="Also run every example call of every tool.")
@click.option(
    "--no-discovery",
    "skip_discovery",
    is_flag=True,
    help="Do not run the discovery command, nor start the MCP servers the clients are set up with.",
)
@click.option("--strict", is_flag=True, help="Fail on warnings too.")
@version_option()
def command(fmt: str, run_examples: bool, skip_discovery: bool, strict: bool) -> int:
    """Check, in the order a person would debug it, everything between this directory's project
    and its clients, and say for each link whether it is ok and, if not, how to mend it:

    \b
    - the project root and its configuration;
    - what the workspace's .env sets of the role, the configuration file and the
      user's directories (Gemini CLI passes it on; cogtools ignores it);
    - every source and tool loads (with counts);
    - .gemini/settings.json: tools.discoveryCommand and tools.callCommand resolve
      the way Gemini CLI spawns them (no shell, this PATH), to no file of the
      project (the agent can rewrite those, and with them what runs unasked), and
      the project's name no path of this machine (teammates share the file);
    - the programs of tools that declare their side effects run confined to them,
      and cogtools itself runs from outside the project;
    - the folder is trusted (untrusted, Gemini CLI ignores the workspace settings);
    - what lets the tools run unasked (Policy Engine rules, whose file exists, or
      tools.allowed for an older Gemini CLI), the pins of what it lets through, and
      GEMINI.md are in step;
    - node meets the requirement of the Gemini CLI on PATH;
    - the discovery command runs, exits 0 and prints valid declarations (timed);
    - each MCP client set up for the project (every file each one reads, the project's
      and the user's, that has an entry starting cogtools mcp, or one named as cogtools'
      (an HTTP server's, or one whose command does not start cogtools mcp: a typo, said
      and not started)): the file parses, the command resolves (to no file of the project), the
      server starts and answers initialize and tools/list (an HTTP entry's server is asked
      them), every server at once and within 10 s, each answer timed: a server that lists
      its tools later than 1 s after its start is named with the headless clients that give
      up on it sooner (codex exec about 1 s, claude -p 2 s) and what makes one wait;
      the mcp extra is installed for its interpreter, a project's file names no path of
      this machine and sets no role; for Qwen Code, what it runs without asking;
      for Antigravity CLI, that an HTTP server's address is serverUrl, and whether its
      toolPermission runs every tool without asking;
      for Gemini CLI's MCP server, that the folder is trusted;
    - with --test, every example call passes.

    The Gemini CLI checks (settings to discovery) are made when the project's or the user's
    Gemini settings name a discovery or call command, or when no MCP client is set up.

    The exit status is 0 when nothing is a problem (and, with --strict, nothing is a warning),
    1 otherwise.
    """

    loaded = load_project()
    findings = [*loaded.findings, *_environment_findings()]
    # Every independent check is made, a configuration that does not load notwithstanding: only
    # what needs the tools waits for it.
    root = loaded.root
    if loaded.catalog is not None:
        findings += doctor.sandbox_findings(loaded.catalog)
    mcp_findings, clients = client_doctor.client_findings(root, os.environ, start=not skip_discovery)
    if not clients or _gemini_discovery_set_up(root, os.environ):
        findings += doctor.gemini_checks(loaded.catalog, os.environ, run_discovery=not skip_discovery, root=root)
    elif "gemini" in clients:
        findings.append(_gemini_mcp_trust(root, os.environ))
    findings += mcp_findings
    if run_examples and loaded.catalog is not None:
        findings += doctor.example_findings(loaded.catalog)
    problems = sum(f.status == PROBLEM for f in findings)
    warnings = sum(f.status == WARNING for f in findings)
    if fmt == "json":
        document = {"findings": [f.to_json() for f in findings], "problems": problems, "warnings": warnings}
        write_stdout(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    else:
        write_text("".join(_line(finding) for finding in findings), STATUS_MARKS)
        write_text(f"{problems} problem{'s' * (problems != 1)}, {warnings} warning{'s' * (warnings != 1)}\n")
    return EXIT_PROBLEMS if problems or (strict and warnings) else 0


def _gemini_discovery_set_up(root: Path, environ: t.Mapping[str, str]) -> bool:
    """Whether the project's or the user's Gemini CLI settings name a discovery or call command
    (one that cannot be read counts: the Gemini checks say what is wrong with it)."""

    for path in (root / ".gemini" / "settings.json", user_file("gemini", environ)):
        if path is None:
            continue
        try:
            tools = read_settings(read_config(path), str(path)).get("tools")
        except CogtoolsError:
            return True
        if isinstance(tools, dict) and (tools.get("discoveryCommand") or tools.get("callCommand")):
            return True
    return False


def _gemini_mcp_trust(root: Path, environ: t.Mapping[str, str]) -> Finding:
    """Whether Gemini CLI trusts the project's folder: untrusted, it starts no MCP server at all,
    not even the user's (0.61: `gemini mcp list` says "Disabled")."""

    if environ.get("GEMINI_CLI_TRUST_WORKSPACE") == "true":
        return Finding("trust", OK, "Gemini CLI trusts the folder (GEMINI_CLI_TRUST_WORKSPACE=true)")
    for path in (user_file("gemini", environ), root / ".gemini" / "settings.json"):
        try:
            security = read_settings(read_config(path), str(path)).get("security") if path else None
        except CogtoolsError:
            continue
        trust = security.get("folderTrust") if isinstance(security, dict) else None
        if isinstance(trust, dict) and trust.get("enabled") is False:
            return Finding("trust", OK, f"Gemini CLI's folder trust is off ({path}): it starts the MCP server")
    rules_path = trusted_folders_path(environ)
    try:
        rules = jsonc.loads(read_config(rules_path) or "{}")
    except (CogtoolsError, jsonc.JsoncError):
        rules = None
    if isinstance(rules, dict) and is_path_trusted(root, rules) is True:
        return Finding("trust", OK, f"Gemini CLI trusts {root} ({rules_path}): it starts the MCP server")
    return Finding(
        "trust",
        PROBLEM,
        f"Gemini CLI does not trust {root}, and starts no MCP server in a folder it does not trust",
        f'trust it: run `gemini` in {root} and accept the prompt, or add "{root}": "TRUST_FOLDER" to {rules_path}',
    )


def _environment_findings() -> list[Finding]:

    note = workspace_env_note()
    if not note:
        return []
    return [
        Finding(
            "environment", WARNING, note, "set them in your own shell or configuration, and remove them from the file"
        )
    ]


def _line(finding: Finding) -> str:
    line = f"{finding.status:<8} {finding.check}: {finding.message}\n"
    return line + (f"{'':<8} fix: {finding.fix}\n" if finding.fix else "")
