"""``cogtools doctor``: find every broken link between the project and Gemini CLI."""

from __future__ import annotations

import json
import os
import typing as t

import click

from cogtools.cli.boundary import write_stdout, write_text
from cogtools.cli.common import CONTEXT_SETTINGS, format_option, version_option

if t.TYPE_CHECKING:
    from cogtools.loading import Finding

#: The exit status when a problem was found (a warning too, with --strict).
EXIT_PROBLEMS = 1


@click.command(
    "doctor", context_settings=CONTEXT_SETTINGS, short_help="Find what keeps Gemini CLI from using the project's tools."
)
@format_option("Findings for people, or one JSON document for programs.")
@click.option("--test", "run_examples", is_flag=True, help="Also run every example call of every tool.")
@click.option("--no-discovery", "skip_discovery", is_flag=True, help="Do not run the discovery command.")
@click.option("--strict", is_flag=True, help="Fail on warnings too.")
@version_option()
def command(fmt: str, run_examples: bool, skip_discovery: bool, strict: bool) -> int:
    """Check, in the order a person would debug it, everything between this directory's project
    and Gemini CLI, and say for each link whether it is ok and, if not, how to mend it:

    \b
    - the project root and its configuration;
    - what the workspace's .env sets of the role, the configuration file and the
      user's directories (Gemini CLI passes it on; cogtools ignores it);
    - every source and tool loads (with counts);
    - .gemini/settings.json: tools.discoveryCommand and tools.callCommand resolve
      the way Gemini CLI spawns them (no shell, this PATH);
    - the programs of tools that declare their side effects run confined to them,
      and cogtools itself runs from outside the project;
    - the folder is trusted (untrusted, Gemini CLI ignores the workspace settings);
    - tools.allowed, the pins of the tools it allows, and GEMINI.md are in step;
    - node meets the requirement of the Gemini CLI on PATH;
    - the discovery command runs, exits 0 and prints valid declarations (timed);
    - with --test, every example call passes.

    The exit status is 0 when nothing is a problem (and, with --strict, nothing is a warning),
    1 otherwise.
    """
    from cogtools import doctor
    from cogtools.loading import PROBLEM, WARNING, load_project

    loaded = load_project()
    findings = [*loaded.findings, *_environment_findings()]
    if loaded.catalog is not None:
        findings += doctor.sandbox_findings(loaded.catalog)
        findings += doctor.gemini_checks(loaded.catalog, os.environ, run_discovery=not skip_discovery)
        if run_examples:
            findings += doctor.example_findings(loaded.catalog)
    problems = sum(f.status == PROBLEM for f in findings)
    warnings = sum(f.status == WARNING for f in findings)
    if fmt == "json":
        document = {"findings": [f.to_json() for f in findings], "problems": problems, "warnings": warnings}
        write_stdout(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    else:
        write_text("".join(_line(finding) for finding in findings))
        write_text(f"{problems} problem{'s' * (problems != 1)}, {warnings} warning{'s' * (warnings != 1)}\n")
    return EXIT_PROBLEMS if problems or (strict and warnings) else 0


def _environment_findings() -> list[Finding]:
    from cogtools.cli.boundary import workspace_env_note
    from cogtools.loading import WARNING, Finding

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
