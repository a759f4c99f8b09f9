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
    tool of the current project) and report each finding with its rule id, severity, file, line,
    key path and a hint. The rules are listed in cogtools-lint(1) ('cogtools help lint').

    The exit status is 0 when there are no errors (and, with --strict, no warnings), 1 otherwise.
    """

    findings = _lint(paths)
    errors = sum(f.severity == ERROR for f in findings)
    warnings = sum(f.severity == WARNING for f in findings)
    if fmt == "json":
        document = {"findings": [f.to_json() for f in findings], "errors": errors, "warnings": warnings}
        write_stdout(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    else:
        write_text("".join(f"{finding}\n" for finding in findings), SEVERITY_MARKS)
        write_text(f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}\n")
    return EXIT_FINDINGS if errors or (strict and warnings) else 0


def _lint(paths: tuple[Path, ...]) -> list[Diagnostic]:

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
        tools, problems = list(catalog.tools.values()), list(catalog.problems)
        for entry in catalog.shadowed:
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
        tools += [entry.tool for entry in catalog.shadowed]
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
