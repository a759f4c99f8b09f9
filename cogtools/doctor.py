"""What stands between a project and Gemini CLI, checked in the order a person would debug it.

Each check gives a :class:`Finding`: ``ok``, ``problem`` (Gemini CLI will not start, not see a
tool, or not run it) or ``warning`` (it works, but not as the project says), with the fix. The
same findings reach a Gemini session: when the project's own checks fail, discovery offers the
built-in tool ``cogtools_problems``, whose description names the problems and whose call
returns them all (:func:`problems_tool`, :func:`problems_report`).

Nothing here prints; ``cogtools doctor`` (:mod:`cogtools.cli.doctor_cmd`) does.
"""

from __future__ import annotations

import json
import os
import typing as t
from pathlib import Path

from cogtools.errors import CogtoolsError
from cogtools.model import PROBLEMS_TOOL

if t.TYPE_CHECKING:
    from cogtools.catalog import Catalog
    from cogtools.model import Tool

OK, PROBLEM, WARNING = "ok", "problem", "warning"
#: Gemini CLI's folder trust file, under its home (``$GEMINI_CLI_HOME``, else ``~``).
TRUSTED_FOLDERS = "trustedFolders.json"
#: How long doctor waits for the discovery command (Gemini CLI itself waits forever).
DISCOVERY_TIMEOUT = 60.0


class Finding(t.NamedTuple):
    #: Which link: "project", "tools" (and "definition", one broken one), "settings", "commands", "trust", "allowed", "GEMINI.md",
    #: "node", "discovery", "examples".
    check: str
    status: str
    message: str
    #: What to do about it ("" when all is well).
    fix: str = ""

    def to_json(self) -> dict[str, str]:
        return {"check": self.check, "status": self.status, "message": self.message, "fix": self.fix}


class Loaded(t.NamedTuple):
    catalog: Catalog | None
    findings: list[Finding]
    #: What kept the catalog from loading at all (a broken configuration), else None.
    error: CogtoolsError | None = None


def load_project(cwd: Path | None = None, environ: t.Mapping[str, str] | None = None) -> Loaded:
    """The project's own checks: its root and configuration, then every source and tool."""
    from cogtools.catalog import load_catalog

    environ = os.environ if environ is None else environ
    try:
        catalog = load_catalog(cwd, environ)
    except CogtoolsError as e:
        return Loaded(None, [Finding("project", PROBLEM, str(e), _fix_for(e))], e)
    project = catalog.project
    files = ", ".join(project.config.files) or "none: the defaults"
    findings = [Finding("project", OK, f"root {project.root} (by {project.reason}); configuration: {files}")]
    broken = len(catalog.problems)
    summary = (
        f"{len(catalog.tools)} tool{'s' * (len(catalog.tools) != 1)} from {len(project.sources)}"
        f" source{'s' * (len(project.sources) != 1)}"
    )
    if broken:
        summary += f"; {broken} broken definition{'s' * (broken != 1)}"
    if catalog.shadowed:
        summary += f"; {len(catalog.shadowed)} shadowed"
    findings.append(Finding("tools", PROBLEM if broken else OK, summary, "see the problems below" if broken else ""))
    for problem in catalog.problems:
        findings.append(Finding("definition", PROBLEM, str(problem), _fix_for(problem)))
    for entry in catalog.shadowed:
        findings.append(
            Finding(
                "tools",
                WARNING,
                f"{entry.tool.name}: {entry.tool.origin.path} is shadowed by {entry.by.origin.path}",
                f"rename one of them, unless the override is meant (`cogtools which {entry.tool.name}`)",
            )
        )
    findings += [Finding("tools", WARNING, message) for message in catalog.warnings]
    return Loaded(catalog, findings)


def _fix_for(error: CogtoolsError) -> str:
    if error.code == "CONFIG_INVALID":
        return "correct the file as the message says; `cogtools config --show-origin` shows every setting and where it comes from"
    if error.code == "DEFINITION_INVALID":
        return "correct the definition; `cogtools lint` shows every mistake in it, with a hint"
    return f"see cogtools-call(1) for {error.code}"


# The built-in tool that carries the problems into a Gemini session.

#: At most this many problems are named in the tool's description; the call returns them all.
DESCRIBED_PROBLEMS = 5


def problems_tool(findings: t.Sequence[Finding], root: Path | str) -> Tool:
    """``cogtools_problems``: a tool whose description tells the model (and, through it, the
    person) that some tools could not be loaded, and why."""
    from cogtools.model import Implementation, Metadata, Origin, Tool

    problems = [finding for finding in findings if finding.status == PROBLEM and finding.check != "tools"]
    lines = [f"- {finding.message[:300]}" for finding in problems[:DESCRIBED_PROBLEMS]]
    if len(problems) > DESCRIBED_PROBLEMS:
        lines.append(f"- ... and {len(problems) - DESCRIBED_PROBLEMS} more")
    description = (
        "cogtools could not load every tool of this project, so some tools are missing. Tell the user, who can"
        f" fix it: running `cogtools doctor` in {root} shows each problem with its fix. Call this tool for the"
        f" full report. The problems:\n" + "\n".join(lines)
    )
    return Tool(
        name=PROBLEMS_TOOL,
        title="What keeps cogtools' tools from loading",
        description=description,
        implementation=Implementation("builtin", {}),
        origin=Origin(path="(built in)", format="builtin", source="cogtools"),
        parameters=(),
        metadata=Metadata(category="diagnostic", risk_level="low", side_effects=("filesystem_read",)),
    )


def has_problems(findings: t.Sequence[Finding]) -> bool:
    return any(finding.status == PROBLEM for finding in findings)


def problems_report(findings: t.Sequence[Finding]) -> str:
    """What a call of ``cogtools_problems`` returns: every problem and warning with its fix, as
    JSON."""
    listed = [finding.to_json() for finding in findings if finding.status != OK]
    return json.dumps({"problems": listed, "see": "cogtools doctor"}, indent=2, ensure_ascii=False) + "\n"


def call_problems(arguments: t.Mapping[str, t.Any], cwd: Path | None = None, environ: t.Mapping[str, str] | None = None) -> str:
    """A call of ``cogtools_problems``: its (empty) arguments checked like any tool's, then the
    report of the project of ``cwd``. It needs no configuration that loads, and reads only."""
    from cogtools.invoke import prepare

    loaded = load_project(cwd, environ)
    root = loaded.catalog.project.root if loaded.catalog is not None else (cwd or Path.cwd())
    prepare(problems_tool(loaded.findings, root), arguments)
    return problems_report(loaded.findings)
