"""End to end against the real Gemini CLI core (@google/gemini-cli-core from npm, pinned).

The driver (tests/e2e/gemini_driver.mjs) runs the CLI's own start-up discovery through
``tools.discoveryCommand`` and calls tools through their own ``build(args).execute()``: ajv
validation, then the spawn of ``tools.callCommand``. No model is called.

The package is installed once per pinned version into a cache directory outside the clone
(``$COGTOOLS_GEMINI_CORE_DIR``, default ``~/.cache/cogtools/gemini-cli-core-VERSION``), under a
lock, in a scratch directory that is moved into place and marked complete only once npm has
succeeded (a half-finished install is repaired, not trusted). Without node and npm the test skips
with the reason; under CI (``CI`` set) it fails instead.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import typing as t
from pathlib import Path

import pytest

from cogtools.load.catalog import load_catalog
from cogtools.load.project import find_project
from cogtools.services.invoke import Target, invoke

from .conftest import BIN, EXAMPLES, REPO, write
from .npm_packages import npm_package, package_dir
from .test_gemini_policy import allowed_by_rules

pytestmark = pytest.mark.e2e

GEMINI_CORE_VERSION = "0.61.0"
DRIVER = REPO / "tests" / "e2e" / "gemini_driver.mjs"


@pytest.fixture(scope="session")
def gemini_core() -> Path:
    directory = package_dir("gemini-cli-core", GEMINI_CORE_VERSION, "COGTOOLS_GEMINI_CORE_DIR")
    return npm_package("@google/gemini-cli-core", GEMINI_CORE_VERSION, directory)


FAILING_TOOL = """\
description: Divide 100 by n.
parameters:
  n: {type: integer, description: The divisor.}
implementation: "{{ 100 // n }}"
"""


def gemini_env(root: Path) -> dict[str, str]:
    home = root / "home"
    (home / ".gemini").mkdir(parents=True, exist_ok=True)
    return {
        **os.environ,
        "PATH": os.pathsep.join([str(BIN), os.environ.get("PATH", "")]),
        "HOME": str(home),
        "GEMINI_CLI_HOME": str(home),
        "XDG_CACHE_HOME": str(root / "cache"),
        "XDG_CONFIG_HOME": str(root / "config"),
        "NO_COLOR": "1",
    }


def drive(
    core: Path,
    project: Path,
    env: dict[str, str],
    discovery: str,
    call_command: str,
    calls: list[dict[str, t.Any]],
    **options: t.Any,
) -> dict[str, t.Any]:
    """One run of the real core in ``project``; the driver's report. ``options``: the driver's
    ``settingsFile`` and ``interactive``."""
    report = project.parent / f"report-{project.name}.json"
    job = {
        "core": str(core),
        "report": str(report),
        "discoveryCommand": discovery,
        "callCommand": call_command,
        "calls": calls,
        **options,
    }
    proc = subprocess.run(
        ["node", str(DRIVER)], input=json.dumps(job), capture_output=True, text=True, cwd=project, env=env, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return t.cast("dict[str, t.Any]", json.loads(report.read_text()))


@pytest.fixture(scope="module")
def session(gemini_core: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, t.Any]:
    """One run of the real core over a copy of the examples plus a tool that fails at render."""
    root = tmp_path_factory.mktemp("gemini-project")
    project = root / "examples"
    shutil.copytree(EXAMPLES, project)
    write(project / "tools" / "divide.yaml", FAILING_TOOL)
    env = gemini_env(root)
    tools = load_catalog(project).tools
    calls = [
        {"name": f"discovered_tool_{name}", "args": dict(example.arguments), "tool": name}
        for name, tool in tools.items()
        for example in tool.examples
        if "error" not in (example.expect or {})
    ]
    facepalm_args = dict(tools["facepalm"].examples[0].arguments)
    calls += [
        {"name": "discovered_tool_facepalm", "args": {**facepalm_args, "wait_for_previous": True}, "tool": "facepalm"},
        {"name": "discovered_tool_divide", "args": {"n": 0}, "tool": "divide"},
        {"name": "discovered_tool_divide", "args": {"n": 4}, "tool": "divide"},
        {"name": "discovered_tool_http_status", "args": {"code": 99}, "tool": "http_status"},
        {"name": "discovered_tool_http_status", "args": {"code": 404, "colour": "red"}, "tool": "http_status"},
    ]
    report = drive(
        gemini_core,
        project,
        env,
        "cogtools-discover",
        "cogtools-call",
        [{"name": c["name"], "args": c["args"]} for c in calls],
    )
    discovered = subprocess.run([str(BIN / "cogtools-discover")], cwd=project, env=env, capture_output=True, text=True)
    return {
        "project": project,
        "tools": tools,
        "calls": list(zip(calls, report["calls"], strict=True)),
        "declarations": {d["name"]: d for d in report["declarations"]},
        "ours": {d["name"]: d for d in json.loads(discovered.stdout)},
    }


def test_discovery_shows_every_tool_with_its_full_schema(session: dict[str, t.Any]) -> None:
    declarations = session["declarations"]
    assert sorted(declarations) == sorted(f"discovered_tool_{name}" for name in session["ours"])
    for name, ours in session["ours"].items():
        seen = declarations[f"discovered_tool_{name}"]
        assert seen["description"].startswith(ours["description"])
        schema = json.loads(json.dumps(seen["parametersJsonSchema"]))
        added = schema["properties"].pop("wait_for_previous")
        assert added["type"] == "boolean"
        assert schema == ours["parametersJsonSchema"]


def test_example_calls_return_the_rendered_text(session: dict[str, t.Any]) -> None:
    checked = 0
    for request, result in session["calls"]:
        if request["tool"] == "divide" or request["args"].get("colour") or request["args"].get("code") == 99:
            continue
        assert result.get("error") is None and "buildError" not in result, result
        tool = session["tools"][request["tool"]]
        expected = invoke(Target(tool, find_project(Path(session["project"]))), request["args"])
        assert result["llmContent"] == expected
        checked += 1
    assert checked >= 10


def test_wait_for_previous_is_accepted(session: dict[str, t.Any]) -> None:
    (result,) = [r for q, r in session["calls"] if "wait_for_previous" in q["args"]]
    assert result["error"] is None and result["llmContent"].startswith("# Facepalm\n")


def test_a_failing_call_returns_the_json_error(session: dict[str, t.Any]) -> None:
    results = [r for q, r in session["calls"] if q["tool"] == "divide"]
    failed, fine = results
    assert fine["error"] is None and fine["llmContent"] == "25"
    content = failed["llmContent"]
    assert failed["error"]["type"] == "discovered_tool_execution_error"
    stdout = content.split("Stdout: ", 1)[1].split("\nStderr: ", 1)[0]
    error = json.loads(stdout)["error"]
    assert error["code"] == "RENDER_FAILED" and error["tool"] == "divide"
    assert "ZeroDivisionError" in error["message"]
    assert "Exit Code: 9" in content


def test_the_cli_itself_enforces_the_schema(session: dict[str, t.Any]) -> None:
    """ajv in the CLI refuses what the declared JSON Schema refuses, before cogtools is called."""
    out_of_range, unknown = [
        r
        for q, r in session["calls"]
        if q["tool"] == "http_status" and ("colour" in q["args"] or q["args"].get("code") == 99)
    ]
    assert "must be >= 100" in out_of_range["buildError"]
    assert "must NOT have additional properties" in unknown["buildError"]


def test_a_project_made_by_cogtools_init(gemini_core: Path, tmp_path: Path) -> None:
    """The commands come from the .gemini/settings.json that `cogtools init` wrote."""
    project = tmp_path / "fresh"
    project.mkdir()
    env = gemini_env(tmp_path)
    init = subprocess.run(
        [str(BIN / "cogtools"), "init", "--non-interactive", "--defaults"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
    )
    assert init.returncode == 0, init.stderr
    tools = json.loads((project / ".gemini" / "settings.json").read_text())["tools"]
    report = drive(
        gemini_core,
        project,
        env,
        tools["discoveryCommand"],
        tools["callCommand"],
        [{"name": "discovered_tool_hello", "args": {"who": "Gemini", "times": 2}}],
    )
    assert [d["name"] for d in report["declarations"]] == ["discovered_tool_hello"]
    (result,) = report["calls"]
    assert result["error"] is None and result["llmContent"] == "Hello, Gemini!\nHello, Gemini!\n"


def test_tools_allowed_from_sync_in_non_interactive_mode(gemini_core: Path, tmp_path: Path) -> None:
    """`cogtools init` then `cogtools sync` write tools.allowed from the metadata; the real core,
    non-interactive as under `gemini -p`, offers and runs the diagnostic tool and does not offer
    the action tool (nor the hidden one); discovery mode's search is offered, its call is not."""
    project = tmp_path / "policy"
    project.mkdir()
    env = gemini_env(tmp_path)
    init = subprocess.run(
        [str(BIN / "cogtools"), "init", "--non-interactive", "--defaults"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
    )
    assert init.returncode == 0, init.stderr
    (project / "tools" / "hello.yaml").unlink()
    write(
        project / "tools" / "uptime_report.yaml",
        "description: Report the uptime.\nrisk_level: SAFE\nside_effects: [filesystem_read]\nimplementation: up 3 days\n",
    )
    write(
        project / "tools" / "restart_service.yaml",
        "description: Restart a service.\nrisk_level: CAUTION\nside_effects: [process]\nimplementation: restarted\n",
    )
    write(
        project / "tools" / "hidden_probe.yaml",
        "description: Probe quietly.\nrisk_level: low\nside_effects: []\ndiscoverable: true\nimplementation: probed\n",
    )
    settings = project / ".gemini" / "settings.json"

    def run(**options: t.Any) -> dict[str, t.Any]:
        sync = subprocess.run(
            [str(BIN / "cogtools"), "sync", "--yes"], cwd=project, env=env, capture_output=True, text=True
        )
        assert sync.returncode == 0, sync.stderr
        tools = json.loads(settings.read_text())["tools"]
        calls = [{"name": f"discovered_tool_{name}", "args": {}} for name in ("uptime_report", "restart_service")]
        return drive(
            gemini_core,
            project,
            env,
            tools["discoveryCommand"],
            tools["callCommand"],
            calls,
            settingsFile=str(settings),
            **options,
        )

    report = run(interactive=False)
    # out of discovery mode the discoverable probe is offered like any other diagnostic tool
    diagnostic = ["discovered_tool_hidden_probe", "discovered_tool_uptime_report"]
    # and cogtools_problems, offered only when something is broken (nothing is, here)
    assert sorted(allowed_by_rules(project, env)) == ["discovered_tool_cogtools_problems", *diagnostic]
    assert "allowed" not in json.loads(settings.read_text())["tools"]  # Policy Engine rules, in GEMINI_CLI_HOME
    assert report["known"] == [
        "discovered_tool_hidden_probe",
        "discovered_tool_restart_service",
        "discovered_tool_uptime_report",
    ]
    assert [d["name"] for d in report["declarations"]] == diagnostic
    allowed, action = report["calls"]
    assert allowed["error"] is None and allowed["llmContent"] == "up 3 days"
    assert action == {"name": "discovered_tool_restart_service", "found": False}

    # an allowed tool whose file the agent changed is refused until a person syncs again
    uptime = project / "tools" / "uptime_report.yaml"
    uptime.write_text(uptime.read_text().replace("up 3 days", "rm -rf /"))
    tools = json.loads(settings.read_text())["tools"]
    changed = drive(
        gemini_core,
        project,
        env,
        tools["discoveryCommand"],
        tools["callCommand"],
        [{"name": "discovered_tool_uptime_report", "args": {}}],
        settingsFile=str(settings),
        interactive=False,
    )["calls"][0]
    assert changed["error"]["type"] == "discovered_tool_execution_error"
    assert '"code": "POLICY_DENIED"' in changed["llmContent"] and "cogtools sync" in changed["llmContent"]

    # interactively, the action tool is offered (Gemini asks before it runs)
    report = run(interactive=True)
    assert [d["name"] for d in report["declarations"]] == [
        "discovered_tool_hidden_probe",
        "discovered_tool_restart_service",
        "discovered_tool_uptime_report",
    ]

    write(project / ".cogtoolrc.yaml", (project / ".cogtoolrc.yaml").read_text() + "discovery_mode: true\n")
    report = run(interactive=False)
    assert [d["name"] for d in report["declarations"]] == [
        "discovered_tool_cogtools_search",
        "discovered_tool_uptime_report",
    ]


def test_a_catalog_larger_than_the_cli_reads_still_starts_it(gemini_core: Path, tmp_path: Path) -> None:
    """Past 10 MiB of discovery output the real core refuses to start; cogtools-discover prints
    what fits, and the core starts with those tools."""
    project = tmp_path / "large"
    (project / "tools").mkdir(parents=True)
    (project / ".cogtoolrc.yaml").write_text("")
    big = "x" * (1024 * 1024 - 200)
    for i in range(12):
        write(project / "tools" / f"big{i:02}.yaml", f"description: {big}\nimplementation: ok{i}\n")
    report = drive(
        gemini_core,
        project,
        gemini_env(tmp_path),
        "cogtools-discover",
        "cogtools-call",
        [{"name": "discovered_tool_big00", "args": {}}],
    )
    assert "discovered_tool_big00" in report["known"] and 5 < len(report["known"]) < 12
    assert report["calls"][0]["llmContent"] == "ok0"
