"""``cogtools test [NAME...]``: run the example calls of the project's tools as tests."""

from __future__ import annotations

import os
import sys
import typing as t
from pathlib import Path

import click

from cogtools.cli.boundary import STATUS_MARKS, write_text
from cogtools.cli.common import CONTEXT_SETTINGS, project_catalog, version_option
from cogtools.cli.names import complete_tool_names
from cogtools.core.errors import UsageError
from cogtools.core.fsutil import write_atomic
from cogtools.load.catalog import load_catalog
from cogtools.services.testing import ExampleResult, junit_xml, run_example
from cogtools.trust.pins import refusals
from cogtools.trust.policy import ROLES

if t.TYPE_CHECKING:
    from cogtools.services.testing import ExampleResult

#: The exit status when a test failed (not an error code: the run itself went fine).
EXIT_FAILED = 1
#: From this many examples on, a terminal gets a progress bar.
PROGRESS_FROM = 20


@click.command("test", context_settings=CONTEXT_SETTINGS, short_help="Run the tools' example calls as tests.")
@click.argument("names", nargs=-1, metavar="[NAME]...", shell_complete=complete_tool_names)
@click.option(
    "--junit-xml",
    "junit",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write a JUnit XML report to this file.",
)
@click.option(
    "--dry-run",
    is_flag=True,
    help="Check every example (policy, arguments, secrets, a template's rendering) and run nothing.",
)
@click.option(
    "--role",
    type=click.Choice(ROLES),
    help="Run the examples as this role, as COGTOOLS_ROLE=ROLE would (default: the configured role).",
)
@version_option()
def command(names: tuple[str, ...], junit: Path | None, dry_run: bool, role: str | None) -> int:
    """Run every example call of the tools NAME (default: all of the project's tools) through
    validation and execution, and print a line per example and a closing summary.

    An example is a mapping of arguments, which must simply succeed, or
    {arguments: {...}, expect: {...}} with one of output (exact), contains, matches (a regular
    expression) or error (an error code). Broken definitions of the project's own count as
    failures when no NAME is given; those of an installed package are its authors' to mend, and
    are a note after the summary. The exit status is 0 when every test passed, 1 otherwise.

    The examples run the definitions as they are now, so that an author can try an edit. A tool
    that a call by name would refuse (it runs without confirmation, and it changed since a
    person allowed it, or was never reviewed) is named in a note after the summary.

    The examples run as the configured role, the one agents are given (policy.role, or
    COGTOOLS_ROLE); --role runs them as another. They run for every tool whatever the filters of
    what a caller is shown (policy.toolset, max_risk, category: a call by name finds no tool they
    hide), since this is the author trying the tools; an example of a tool the role may not see,
    or of a denied category, fails with POLICY_DENIED unless it expects it. With --dry-run,
    nothing runs: each example is
    checked as a call would be up to the point of running (an expected output, or an expected
    EXECUTION_FAILED or TIMEOUT, is then not checked).
    """

    environ = os.environ if role is None else {**os.environ, "COGTOOLS_ROLE": role}
    catalog = project_catalog("cogtools test", environ=environ) if not names else load_catalog(environ=environ)
    tools = [catalog.get(name) for name in names] if names else list(catalog.tools.values())
    outcomes: list[ExampleResult] = []
    if not names:
        outcomes += [ExampleResult(p.path or "?", False, f"{p.code}: {p}") for p in catalog.own_problems]
        for outcome in outcomes:
            _print(outcome)
    cases = [(tool, index, example) for tool in tools for index, example in enumerate(tool.examples)]
    with _progress(len(cases)) as bar:
        for tool, index, example in cases:
            outcome = run_example(tool, index, example, catalog.project, dry_run=dry_run)
            outcomes.append(outcome)
            _print(outcome)
            bar.update(1)
    failed = sum(not o.passed for o in outcomes)
    write_text(f"{len(outcomes) - failed} passed, {failed} failed\n")
    if not names:
        from cogtools.load.loading import package_notes

        write_text("".join(f"note: {note}\n" for note in package_notes(catalog)))

    for name, refusal in refusals(tools, catalog.project).items():
        write_text(
            f"note: a call of {name} by name is refused: {refusal.details.get('change')}; `cogtools sync` reviews it\n"
        )
    if junit is not None:
        try:
            write_atomic(junit, junit_xml(outcomes), within=None)  # a path the person named
        except OSError as e:
            raise UsageError(f"cannot write {junit}: {e.strerror}") from e
    return EXIT_FAILED if failed else 0


def _print(outcome: ExampleResult) -> None:
    if outcome.passed:
        write_text(f"PASS {outcome.name}\n", STATUS_MARKS)
        return
    write_text(f"FAIL {outcome.name}: {outcome.message}\n", STATUS_MARKS)
    if outcome.diff:
        write_text("".join(f"    {line}\n" for line in outcome.diff.splitlines()))


class _NoBar:
    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def update(self, steps: int) -> None:
        return None


def _progress(count: int) -> t.Any:
    if count >= PROGRESS_FROM and sys.stderr.isatty():
        return click.progressbar(length=count, label="testing", file=sys.stderr)
    return _NoBar()
