"""The user guide in docs/: every example in it runs, and shows what the commands print."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cogtools.schema.shipped import load_schema

from .conftest import BIN, REPO
from .doc_examples import Command, DocError, environment, matches, run, steps

DOCS = sorted((REPO / "docs").glob("*.md"))
#: Pages whose examples run: the guide and the README.
RUN = [*DOCS, REPO / "README.md"]


@pytest.mark.slow
@pytest.mark.parametrize("path", RUN, ids=lambda p: str(p.relative_to(REPO)))
def test_document_examples_run(path: Path, tmp_path: Path) -> None:
    """On a failure, `python -m tests.doc_examples docs/NAME.md` shows the difference as a diff
    of the document (review it before committing)."""
    all_steps = steps(path.read_text(encoding="utf-8"), path.name)
    assert (
        any(isinstance(step, Command) for step in all_steps) or path.parent.name == "docs" and path.name == "README.md"
    )
    work = tmp_path / "doc"
    work.mkdir()
    failures = []
    for outcome in run(all_steps, work, environment(tmp_path / "home", BIN)):
        step = outcome.step
        if not isinstance(step, Command):
            continue
        if outcome.status != 0:
            failures.append(
                f"{path.name}:{step.line}: `{step.text}` exited {outcome.status}:\n" + "\n".join(outcome.output)
            )
        elif not matches(step.expected, outcome.output):
            failures.append(
                f"{path.name}:{step.line}: `{step.text}` printed\n"
                + "\n".join(outcome.output)
                + "\ninstead of\n"
                + "\n".join(step.expected)
            )
    assert not failures, "\n\n".join(failures)


def test_every_page_is_in_the_index_and_the_readme_points_there() -> None:
    index = (REPO / "docs" / "README.md").read_text(encoding="utf-8")
    for path in DOCS:
        if path.name != "README.md":
            assert f"]({path.name})" in index, path.name
    assert "docs/README.md" in (REPO / "README.md").read_text(encoding="utf-8")


def test_links_between_pages_resolve() -> None:
    for path in DOCS:
        for target in re.findall(r"\]\(([\w-]+\.md)(?:#[\w-]+)?\)", path.read_text(encoding="utf-8")):
            assert (path.parent / target).is_file(), f"{path.name} links to {target}"


@pytest.mark.parametrize(
    ("expected", "actual", "verdict"),
    [
        (["a", "b"], ["a", "b"], True),
        (["a", "b"], ["a", "c"], False),
        (["a"], ["a", "b"], False),
        (["a", "..."], ["a", "b", "c"], True),
        (["...", "c"], ["a", "b", "c"], True),
        (["...", "d"], ["a", "b", "c"], False),
        (["a  ", ""], ["a"], True),
        ([], [], True),
        ([], ["x"], False),
    ],
)
def test_output_matching(expected: list[str], actual: list[str], verdict: bool) -> None:
    assert matches(expected, actual) is verdict


def test_a_block_nothing_runs_is_an_error() -> None:
    with pytest.raises(DocError, match="nothing runs"):
        steps("Text\n\n```yaml\na: 1\n```\n")
    with pytest.raises(DocError, match="say why"):
        steps("<!-- not run: -->\n```yaml\na: 1\n```\n")
    assert steps("<!-- not run: a sketch -->\n```yaml\na: 1\n```\n") == []


def test_files_and_commands_run_in_order(tmp_path: Path) -> None:
    document = (
        "<!-- file: sub/x.txt -->\n```text\nhello\n```\n\n```console\n$ cd sub\n$ cat x.txt\nhello\n$ false\n```\n"
    )
    outcomes = run(steps(document), tmp_path, environment(tmp_path, BIN))
    assert [(o.output, o.status) for o in outcomes] == [([], 0), ([], 0), (["hello"], 0), ([], 1)]


def test_error_page_lists_every_code() -> None:
    from cogtools.core.errors import ERROR_TABLE

    text = (REPO / "docs" / "errors.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([A-Z_]+)` \| (\d+) \| ([^|]+) \|", text, re.MULTILINE)
    assert [(code, int(status), meaning.strip()) for code, status, meaning in rows] == list(ERROR_TABLE)


def test_formats_page_has_a_row_for_every_key() -> None:
    text = (REPO / "docs" / "formats.md").read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| `([^`]+)` \|", text, re.MULTILINE))
    assert set(load_schema("tool")["properties"]) | {"inputSchema"} <= rows


def test_configuration_page_has_a_row_for_every_key() -> None:
    text = (REPO / "docs" / "configuration.md").read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| `([^`]+)` \|", text, re.MULTILINE))
    wanted = set()
    for key, spec in load_schema("config")["properties"].items():
        if key == "$schema":
            continue
        nested = spec.get("properties")
        wanted |= {f"{key}.{sub}" for sub in nested} if isinstance(nested, dict) else {key}
    assert wanted <= rows, wanted - rows


def test_ci_runs_the_readme_test_command_from_a_fresh_venv() -> None:
    """The README's test command is what .ci/run runs, verbatim, after removing any old venv."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    command = re.findall(r"```sh\n(.+?)\n```", readme)[1]
    assert "pip install '.[test]'" in command and "pytest" in command
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert command in ci
    assert ci.index("rm -rf .venv") < ci.index(command)


@pytest.mark.slow
def test_collecting_the_suite_touches_no_home(tmp_path: Path) -> None:
    """Module-level catalogs are built at collection time: they must not read or write the
    developer's HOME (conftest isolates the process as it is imported)."""
    import os
    import subprocess
    import sys

    home = tmp_path / "fresh-home"
    home.mkdir()
    # (and none of this run's pytest options: .ci/run's -n, say, or the xdist worker's own)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "COGTOOLS_", "PYTEST_"))}
    env["HOME"] = str(home)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", str(REPO / "tests")],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert [p for p in home.rglob("*")] == [], "collection wrote under HOME"
