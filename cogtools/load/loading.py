"""A project as a caller loads it: its catalog, or the error that kept it from loading, and the
findings that say what is broken.

Every service starts here (a call, discovery, the MCP server, ``cogtools doctor``): what one of
them finds broken, the others find the same way. A load never fails for a broken definition or
configuration: the failure becomes a finding, and the built-in tool ``cogtools_problems``
(:mod:`cogtools.services.builtin`) carries the findings to the model.
"""

from __future__ import annotations

import functools
import os
import typing as t
from pathlib import Path

from cogtools.core.errors import CogtoolsError

if t.TYPE_CHECKING:
    from cogtools.load.catalog import Catalog

OK, PROBLEM, WARNING = "ok", "problem", "warning"


class Finding(t.NamedTuple):
    """One check of what stands between a project and its agent, with the fix."""

    #: Which link: "project", "tools" (and "definition": one broken definition), "settings",
    #: "commands", "trust", "allowed", "GEMINI.md", "node", "discovery", "examples".
    check: str
    #: :data:`OK`, :data:`PROBLEM` (a tool will not load, be seen or run) or :data:`WARNING`
    #: (it works, but not as the project says).
    status: str
    message: str
    #: What to do about it ("" when all is well).
    fix: str = ""

    def to_json(self) -> dict[str, str]:
        return {"check": self.check, "status": self.status, "message": self.message, "fix": self.fix}


class Loaded:
    """What a load gave: the catalog, or the error that kept it from loading; the findings are
    made when first asked for (a call of one tool never needs them)."""

    def __init__(self, catalog: Catalog | None, error: CogtoolsError | None = None, root: Path | None = None) -> None:
        #: The project's tools, or None when its configuration does not load.
        self.catalog = catalog
        #: What kept the catalog from loading at all (a broken configuration), else None.
        self.error = error
        #: The project root (found by its markers, even when its configuration does not load).
        self.root = catalog.project.root if catalog is not None else (root or Path.cwd())

    @functools.cached_property
    def findings(self) -> list[Finding]:
        """What the load found: problems and warnings with their fixes."""
        if self.catalog is not None:
            return catalog_findings(self.catalog)
        assert self.error is not None
        return [Finding("project", PROBLEM, str(self.error), fix_for(self.error))]

    @property
    def broken(self) -> bool:
        """Whether anything keeps a tool of the project from loading."""
        return any(finding.status == PROBLEM for finding in self.findings)


def load_project(
    cwd: Path | None = None, environ: t.Mapping[str, str] | None = None, *, only: str | None = None
) -> Loaded:
    """The project of ``cwd`` (default: the working directory) with ``environ`` (default: the
    process's): its root and configuration, then every source and tool. With ``only``, what a
    call of that one tool needs (see :func:`cogtools.load.catalog.load_catalog`); a built-in tool
    reads the whole catalog."""
    from cogtools.core.model import RESERVED_NAMES
    from cogtools.load.catalog import load_catalog

    environ = os.environ if environ is None else environ
    try:
        catalog = load_catalog(cwd, environ, only=None if only in RESERVED_NAMES else only)
    except CogtoolsError as e:
        from cogtools.load.project import find_root

        return Loaded(None, e, find_root((cwd or Path.cwd()).resolve(), environ)[0])
    return Loaded(catalog)


def catalog_findings(catalog: Catalog) -> list[Finding]:
    """The project's own checks: its root and configuration, every source and tool."""
    project = catalog.project
    files = ", ".join(project.config.files) or "none: the defaults"
    findings = [Finding("project", OK, f"root {project.root} (by {project.reason}); configuration: {files}")]
    broken = len(catalog.own_problems)
    summary = (
        f"{len(catalog.tools)} tool{'s' * (len(catalog.tools) != 1)} from {len(project.sources)}"
        f" source{'s' * (len(project.sources) != 1)}"
    )
    if broken:
        summary += f"; {broken} broken definition{'s' * (broken != 1)}"
    if catalog.shadowed:
        summary += f"; {len(catalog.shadowed)} shadowed"
    findings.append(Finding("tools", PROBLEM if broken else OK, summary, "see the problems below" if broken else ""))
    for problem in catalog.own_problems:
        findings.append(Finding("definition", PROBLEM, str(problem), fix_for(problem)))
    for problem in catalog.package_problems:
        findings.append(Finding("toolsets", WARNING, str(problem), package_fix(problem)))
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
    from cogtools.load.project import toolset_notes

    findings += [Finding("toolsets", WARNING if warn else OK, note) for warn, note in toolset_notes(project)]
    return findings


def package_fix(error: CogtoolsError) -> str:
    """What a person can do of an installed toolset's broken definition, which is not theirs."""
    package = error.details.get("package", "the package")
    return (
        f"{package}'s authors mend it (their `cogtools lint` shows why); its other tools are served:"
        " update it, pin a version that loads, or leave it"
    )


def package_notes(catalog: Catalog) -> list[str]:
    """A line for each installed toolset with broken definitions (what ``list``, ``lint`` and
    ``test`` say of them, failing nothing)."""
    counts: dict[str, int] = {}
    for problem in catalog.package_problems:
        broken = problem.details.get("broken")
        package = str(problem.details.get("package"))
        counts[package] = counts.get(package, 0) + (len(broken) if isinstance(broken, list) else 1)
    return [
        f"{count} tool definition{'s' * (count != 1)} of {package} {'do' if count != 1 else 'does'} not load"
        " (the package's to mend: `cogtools doctor` says why); its other tools are served"
        for package, count in counts.items()
    ]


def fix_for(error: CogtoolsError) -> str:
    """How a person mends what ``error`` says."""
    if error.code == "CONFIG_INVALID":
        return "correct the file as the message says; `cogtools config --show-origin` shows every setting and where it comes from"
    if error.code == "DEFINITION_INVALID":
        return "correct the definition; `cogtools lint` shows every mistake in it, with a hint"
    return f"see cogtools-call(1) for {error.code}"


#: At most this many lines of problems and warnings: Gemini CLI fails to start when a discovery
#: command writes more than 10 MiB to stderr, and a person reads the first ones anyway.
MAX_REPORT_LINES = 1000


def _more(problem: CogtoolsError) -> str:
    """What a skip line adds when the definition has more problems than the one it names (its
    ``details.problems``): how many, and where to see them all."""
    others = problem.details.get("problems")
    if not isinstance(others, list) or not others:
        return ""
    import shlex

    where = f" {shlex.quote(problem.path)}" if problem.path else ""
    return f" (and {len(others)} more: `cogtools lint{where}` shows them all)"


def catalog_report(catalog: Catalog) -> list[str]:
    """Broken definitions, load warnings and shadowed tools, a line each for a person (at most
    :data:`MAX_REPORT_LINES`, then a count of the rest). Not the installed toolsets' broken
    definitions, which are not the project's to mend (:func:`package_notes`)."""
    lines = [f"skipped: {problem.code}: {problem}{_more(problem)}" for problem in catalog.own_problems]
    lines += [f"warning: {message}" for message in catalog.warnings]
    lines += [
        f"warning: {entry.tool.name}: {entry.tool.origin.path} is shadowed by {entry.by.origin.path}"
        for entry in catalog.shadowed
    ]
    out = [line[:2000] for line in lines[:MAX_REPORT_LINES]]
    if len(lines) > MAX_REPORT_LINES:
        out.append(f"... and {len(lines) - MAX_REPORT_LINES} more problems and warnings")
    return out
