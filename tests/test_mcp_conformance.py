"""``cogtools mcp --http`` against the official MCP conformance suite
(@modelcontextprotocol/conformance from npm, pinned), each of its server scenarios a test.

The suite is a client: it connects to the server, calls what each scenario names and judges the
answers. Its scenarios call reference tools by name (``test_simple_text``, ``test_error_handling``,
...); the project it is served (tests/fixtures/conformance) defines them, as far as cogtools can
express them. One server and one run of the whole suite (``--suite all``, pending scenarios
included) serve the module; the suite writes each scenario's checks to
``DIR/server-SCENARIO-TIMESTAMP/checks.json``, and a scenario passes when none of its checks is a
FAILURE (a WARNING is no failure, as in the suite's own exit code: server-sse-polling passes
with two, for no SSE priming event and no ``retry`` field on a POST stream, which its reference
tool ``test_reconnection`` would close mid-call and cogtools' stand-in does not).

A scenario in EXPECTED_FAILURES is an xfail (strict: one that starts passing fails, so that it is
taken off the list), and only with the failure it names: a scenario that fails otherwise, or one
not in the list that fails, fails its test and prints what the suite said.

The suite needs Node.js 22 (it imports ``fs.globSync``); a pinned Node.js of the npm registry's own
build runs it, whatever node the machine has (tests/npm_packages.py: installed once per version
under ``~/.cache/cogtools``, skipped without node and npm, failed under CI).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import typing as t
from pathlib import Path

import pytest

from .conftest import REPO
from .npm_packages import node_binary, npm_package, package_dir
from .test_mcp import start_http

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

CONFORMANCE = "@modelcontextprotocol/conformance"
CONFORMANCE_VERSION = "0.1.16"
NODE_VERSION = "22.23.3"
FIXTURE = REPO / "tests" / "fixtures" / "conformance"

#: The server scenarios of the suite, in its order (``conformance list --server``).
SCENARIOS = (
    "server-initialize",
    "logging-set-level",
    "ping",
    "completion-complete",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-with-logging",
    "tools-call-error",
    "tools-call-with-progress",
    "tools-call-sampling",
    "tools-call-elicitation",
    "json-schema-2020-12",
    "elicitation-sep1034-defaults",
    "server-sse-polling",
    "server-sse-multiple-streams",
    "elicitation-sep1330-enums",
    "resources-list",
    "resources-read-text",
    "resources-read-binary",
    "resources-templates-read",
    "resources-subscribe",
    "resources-unsubscribe",
    "prompts-list",
    "prompts-get-simple",
    "prompts-get-with-args",
    "prompts-get-embedded-resource",
    "prompts-get-with-image",
    "dns-rebinding-protection",
)


class Failure(t.NamedTuple):
    #: What the suite says (part of its failed checks' errorMessage).
    says: str
    #: Why cogtools fails it.
    why: str


NOT_FOUND = "MCP error -32601: Method not found"
NO_RESOURCES = "cogtools offers no resources (no resources capability)"
NO_PROMPTS = "cogtools offers no prompts (no prompts capability)"
NO_ELICITATION = "cogtools never sends elicitation/create (no elicitation)"

EXPECTED_FAILURES: dict[str, Failure] = {
    "completion-complete": Failure(
        NOT_FOUND, "no completion capability (no prompts or resource templates to complete)"
    ),
    "tools-call-sampling": Failure(
        "Server did not request sampling from client", "cogtools never sends sampling/createMessage (no sampling)"
    ),
    "tools-call-elicitation": Failure("Server did not request elicitation from client", NO_ELICITATION),
    "elicitation-sep1034-defaults": Failure("Server did not request elicitation from client", NO_ELICITATION),
    "elicitation-sep1330-enums": Failure("Server did not request elicitation from client", NO_ELICITATION),
    "resources-list": Failure(NOT_FOUND, NO_RESOURCES),
    "resources-read-text": Failure(NOT_FOUND, NO_RESOURCES),
    "resources-read-binary": Failure(NOT_FOUND, NO_RESOURCES),
    "resources-templates-read": Failure(NOT_FOUND, NO_RESOURCES),
    "resources-subscribe": Failure(NOT_FOUND, NO_RESOURCES),
    "resources-unsubscribe": Failure(NOT_FOUND, NO_RESOURCES),
    "prompts-list": Failure(NOT_FOUND, NO_PROMPTS),
    "prompts-get-simple": Failure(NOT_FOUND, NO_PROMPTS),
    "prompts-get-with-args": Failure(NOT_FOUND, NO_PROMPTS),
    "prompts-get-embedded-resource": Failure(NOT_FOUND, NO_PROMPTS),
    "prompts-get-with-image": Failure(NOT_FOUND, NO_PROMPTS),
}


class ExpectedFailure(AssertionError):
    """A scenario failed as EXPECTED_FAILURES says it does (the only exception its xfail takes)."""


class Run(t.NamedTuple):
    #: Each scenario's checks, as the suite wrote them.
    checks: dict[str, list[dict[str, t.Any]]]
    #: What the suite printed, and what the server wrote to standard error.
    output: str


@pytest.fixture(scope="module")
def suite() -> tuple[Path, Path]:
    """The pinned node and the suite's command-line script."""
    node = node_binary(NODE_VERSION, "COGTOOLS_NODE_DIR")
    directory = npm_package(
        CONFORMANCE,
        CONFORMANCE_VERSION,
        package_dir("mcp-conformance", CONFORMANCE_VERSION, "COGTOOLS_CONFORMANCE_DIR"),
    )
    manifest = json.loads((directory / "node_modules" / CONFORMANCE / "package.json").read_text())
    return node, directory / "node_modules" / CONFORMANCE / manifest["bin"]["conformance"]


def isolated_env(root: Path) -> dict[str, str]:
    return {
        "HOME": str(root / "home"),
        "XDG_CONFIG_HOME": str(root / "config"),
        "XDG_CACHE_HOME": str(root / "cache"),
        "XDG_DATA_HOME": str(root / "data"),
        "XDG_STATE_HOME": str(root / "state"),
        "NO_COLOR": "1",
    }


@pytest.fixture(scope="module")
def run(suite: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Run:
    """One server on a free loopback port, serving a copy of the fixture project, and one run of
    every server scenario against it."""
    node, script = suite
    root = tmp_path_factory.mktemp("conformance")
    project = root / "project"
    shutil.copytree(FIXTURE, project)
    env = isolated_env(root)
    for name in ("home", "config", "cache", "data", "state"):
        (root / name).mkdir()
    server = start_http(project, "--project", str(project), env=env)
    results = root / "results"
    try:
        assert server.proc.poll() is None, "the server did not start"
        proc = subprocess.run(
            [str(node), str(script), "server", "--url", server.url, "--suite", "all", "--output-dir", str(results)],
            capture_output=True,
            text=True,
            cwd=root,
            env={**os.environ, **env},
            timeout=600,
        )
    finally:
        if server.proc.poll() is None:
            _, stderr = server.stop()
        else:
            stderr = server.proc.communicate(timeout=20)[1].decode()
    checks: dict[str, list[dict[str, t.Any]]] = {}
    for found in sorted(results.glob("server-*/checks.json")):
        match = re.fullmatch(r"server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z", found.parent.name)
        assert match, found
        checks[match.group(1)] = json.loads(found.read_text())
    output = f"{proc.stdout}\n{proc.stderr}\n--- the server's standard error:\n{stderr}"
    return Run(checks, output)


def test_the_suite_has_the_scenarios_listed_here(suite: tuple[Path, Path], tmp_path: Path) -> None:
    """A new version of the suite that adds or drops a scenario is noticed, not run unjudged."""
    node, script = suite
    listed = subprocess.run(
        [str(node), str(script), "list", "--server"],
        capture_output=True,
        text=True,
        env={**os.environ, **isolated_env(tmp_path)},
        timeout=120,
    )
    assert listed.returncode == 0, listed.stderr
    names = re.findall(r"^\s+- (\S+) \[", listed.stdout.split("Client scenarios", 1)[0], re.MULTILINE)
    assert tuple(names) == SCENARIOS
    assert set(EXPECTED_FAILURES) <= set(SCENARIOS)


def describe(checks: list[dict[str, t.Any]]) -> str:
    return "\n".join(
        f"{c['status']} {c['id']}: {c.get('errorMessage') or c.get('description')}"
        for c in checks
        if c["status"] != "INFO"
    )


@pytest.mark.parametrize(
    "scenario",
    [
        pytest.param(
            name,
            marks=pytest.mark.xfail(
                reason=f"{EXPECTED_FAILURES[name].why} (the suite: {EXPECTED_FAILURES[name].says})",
                strict=True,
                raises=ExpectedFailure,
            ),
        )
        if name in EXPECTED_FAILURES
        else name
        for name in SCENARIOS
    ],
)
def test_scenario(run: Run, scenario: str) -> None:
    if scenario not in run.checks:
        pytest.fail(f"the suite wrote no checks for {scenario}:\n{run.output}")
    checks = run.checks[scenario]
    if not checks:
        pytest.fail(f"the suite judged nothing in {scenario}:\n{run.output}")
    failed = [c for c in checks if c["status"] == "FAILURE"]
    said = "; ".join(str(c.get("errorMessage")) for c in failed)
    expected = EXPECTED_FAILURES.get(scenario)
    if not failed:
        return  # (an expected failure that passes is an XPASS, strict: take it off the list)
    if expected is not None and expected.says in said:
        raise ExpectedFailure(said)
    pytest.fail(
        f"{scenario} failed{f' otherwise than expected ({expected.says!r})' if expected else ''}:\n"
        f"{describe(checks)}\n\n{run.output}"
    )
