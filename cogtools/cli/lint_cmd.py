"""``cogtools lint [PATH...]``: check tool files for every mistake a model would otherwise meet."""

from __future__ import annotations

import json
import os
import typing as t
from pathlib import Path

import click

from cogtools.cli.boundary import SEVERITY_MARKS, write_stdout, write_text
from cogtools.cli.common import CONTEXT_SETTINGS, format_option, project_catalog, version_option
from cogtools.core.errors import CogtoolsError
from cogtools.core.limits import MAX_DEFINITION_BYTES, read_file
from cogtools.core.places import cache_dir
from cogtools.core.yamlio import Locator
from cogtools.load.cache import CatalogCache
from cogtools.load.catalog import parse_definition, read_definition, source_files
from cogtools.load.loading import package_notes
from cogtools.load.project import Source, find_project, find_root
from cogtools.run import python_path
from cogtools.services.lint import ERROR, WARNING, Diagnostic, from_problems, lint_tool, openapi_digest

if t.TYPE_CHECKING:
    from cogtools.core.model import Tool
    from cogtools.services.lint import Diagnostic

#: The exit status when errors were found (warnings too, with --strict).
EXIT_FINDINGS = 1


@click.command("lint", context_settings=CONTEXT_SETTINGS, short_help="Check tool files for mistakes.")
@click.argument("paths", nargs=-1, metavar="[PATH]...", type=click.Path(exists=True, path_type=Path))
@format_option("Findings for people, or one JSON document for programs.")
@click.option("--strict", is_flag=True, help="Treat warnings as errors.")
@version_option()
def command(paths: tuple[Path, ...], fmt: str, strict: bool) -> int:
    """Check the tool files at PATH (files, or directories searched recursively; default: every
    tool of the current project's own sources) and report each finding with its rule id,
    severity, file, line, key path and a hint. The rules are listed in cogtools-lint(1)
    ('cogtools help lint'). The tools of installed packages (npm packages and Python packages
    that ship tools) are their authors' to lint: without PATH they are left out, and a broken
    definition of theirs is a note after the summary, which changes no exit status.

    The exit status is 0 when there are no errors (and, with --strict, no warnings), 1 otherwise.
    """

    notes: list[str] = []
    findings = _lint(paths, notes)
    errors = sum(f.severity == ERROR for f in findings)
    warnings = sum(f.severity == WARNING for f in findings)
    if fmt == "json":
        document = {"findings": [f.to_json() for f in findings], "errors": errors, "warnings": warnings}
        write_stdout(
            json.dumps({**document, "notes": notes} if notes else document, indent=2, ensure_ascii=False) + "\n"
        )
    else:
        write_text("".join(f"{finding}\n" for finding in findings), SEVERITY_MARKS)
        write_text(f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}\n")
        write_text("".join(f"note: {note}\n" for note in notes))
    return EXIT_FINDINGS if errors or (strict and warnings) else 0


def _lint(paths: tuple[Path, ...], notes: list[str]) -> list[Diagnostic]:

    findings: list[Diagnostic] = []
    cache = None
    if paths:
        tools, problems = _load_paths(paths)

        root: Path | None = None
        try:
            project = find_project()
            searched, root = python_path(project), project.root
        except CogtoolsError:  # a broken configuration: the files named are linted all the same
            searched = ()
    else:
        catalog = project_catalog("cogtools lint")
        cache = catalog.cache
        searched, root = python_path(catalog.project), catalog.project.root
        # the project's own tools: an installed toolset's are its authors' to lint (and a
        # broken one of theirs is said in a note, failing nothing)
        packages = {source.name for source in catalog.project.sources if source.package}
        tools = [tool for tool in catalog.tools.values() if tool.origin.source not in packages]
        problems = catalog.own_problems
        notes += package_notes(catalog)
        others = len(catalog.tools) - len(tools)
        if others:
            notes.append(
                f"{others} tool{'s' * (others != 1)} of installed packages not linted"
                " (their authors' to lint; `cogtools lint PATH` lints one)"
            )
        shadowed = [entry for entry in catalog.shadowed if entry.tool.origin.source not in packages]
        for entry in shadowed:  # (a package's tool that the project's own overrides: as meant)
            if "name-duplicate" in entry.tool.lint_ignore:
                continue
            findings.append(
                Diagnostic(
                    "name-duplicate",
                    entry.tool.origin.path,
                    f"{entry.tool.name!r} is also defined in {entry.by.origin.path}, which wins",
                    "rename one of them, unless the override is meant",
                    tool=entry.tool.name,
                )
            )
        tools += [entry.tool for entry in shadowed]
    findings += [finding for problem in problems for finding in from_problems(problem)]
    cache = cache or _verdict_cache()
    verdicts = cache.memo("lint") if cache is not None else {}
    known = set(verdicts)
    for tool in tools:
        findings += _with_lines(tool.origin.path, lint_tool(tool, verdicts, python_path=searched, root=root))
    used = {openapi_digest(tool)[0] for tool in tools}
    if cache is not None and used != known:  # kept: the verdicts on the tools as they are now
        cache.put_memo("lint", {digest: verdict for digest, verdict in verdicts.items() if digest in used})
    return sorted(findings, key=lambda f: (f.path, f.line or 0, f.rule))


def _verdict_cache() -> t.Any:
    """Where lint keeps its verdicts when it read no catalog (files named on the command line):
    the current project's cache (None without one)."""

    directory = cache_dir(os.environ)
    if directory is None:
        return None
    return CatalogCache(directory, find_root(Path.cwd().resolve(), os.environ)[0])


def _load_paths(paths: tuple[Path, ...]) -> tuple[list[Tool], list[CogtoolsError]]:

    files: list[Path] = []
    for path in paths:
        files += source_files(Source("lint", path, recursive=True)).files if path.is_dir() else [path]
    tools: list[Tool] = []
    problems: list[CogtoolsError] = []
    for file in files:
        try:
            result = parse_definition(file, read_definition(file, str(file)), display_path=str(file), source="lint")
        except CogtoolsError as e:
            problems.append(e)
            continue
        tools += result.tools
    return tools, problems


def _with_lines(path: str, findings: list[Diagnostic]) -> list[Diagnostic]:
    """Lines for findings in YAML files, found from their key paths."""
    if not findings or not path.endswith((".yaml", ".yml")):
        return findings

    try:
        locate = Locator(read_file(path, MAX_DEFINITION_BYTES).decode("utf-8"))
    except (OSError, ValueError):
        return findings
    return [f._replace(line=locate(f.key_path)) if f.key_path and f.line is None else f for f in findings]
