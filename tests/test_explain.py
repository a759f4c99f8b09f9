"""Finding out why: ``cogtools which``, ``cogtools list --all``, ``cogtools config``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cogtools.cli import porcelain

from .conftest import Cli, write

SHEBANG = "#! /usr/bin/env cogtools-yaml\n"


@pytest.fixture
def shadowing(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write(project / ".cogtoolrc.yaml", "tool_sources:\n  - local: ./tools\n  - local: ./more\n")
    write(project / "greet.yaml", SHEBANG + "description: Root greeting.\nimplementation: root\n")
    write(project / "tools" / "greet.yaml", "description: Tools greeting.\nimplementation: tools\n")
    write(project / "tools" / "z" / "greet.yml", "name: greet\ndescription: Nested greeting.\nimplementation: z\n")
    write(project / "more" / "greet.yaml", "description: More greeting.\nimplementation: more\n")
    write(project / "more" / "other.yaml", "name: greet\ndescripton: typo\nimplementation: x\n")
    return project


def test_which_lists_every_candidate_in_order(shadowing: Path, cli: Cli) -> None:
    result = cli(porcelain.main, "which", "greet")
    assert result.status == 0
    rows = [line.split("\t") for line in result.stdout.splitlines()]
    assert [r[1] for r in rows] == [
        "greet.yaml",
        "tools/greet.yaml",
        "tools/z/greet.yml",
        "more/greet.yaml",
        "more/other.yaml",
    ]
    assert rows[0][3] == "used; runs no program; claims nothing: it declares no side_effects"
    assert (
        rows[1][3]
        == "shadowed: source project comes before source local:./tools (order: project, local:./tools, local:./more)"
    )
    assert rows[2][3] == rows[1][3]
    assert rows[3][3].startswith("shadowed: source project comes before source local:./more")
    assert rows[4][2] == "(broken)" and "unknown key 'descripton'" in rows[4][3]


def test_which_unknown(project: Path, cli: Cli) -> None:
    result = cli(porcelain.main, "which", "nothing")
    assert result.status == 3 and result.stdout == ""
    assert result.stderr == f"cogtools: error: TOOL_NOT_FOUND: no definition of 'nothing' in {project}\n"


def test_list_all_shows_the_shadowed(shadowing: Path, cli: Cli) -> None:
    plain = cli(porcelain.main, "list").stdout
    assert [line.split()[0] for line in plain.splitlines()] == ["greet"]
    full = cli(porcelain.main, "list", "--all").stdout
    lines = full.splitlines()
    assert len(lines) == 4
    assert lines[0].endswith("greet.yaml (project)")
    assert sum("shadowed by greet.yaml" in line for line in lines) == 3


def test_config_shows_values_and_origins(project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    write(project / ".cogtoolrc.yaml", "# mine\nenv_priority: system\n")
    monkeypatch.setenv("COGTOOLS_TOOL_PATH", "/opt/a" + os.pathsep + "/opt/b")
    plain = cli(porcelain.main, "config").stdout
    assert 'env_priority: "system"\n' in plain and 'tool_sources: [{"local": "./tools"}]\n' in plain
    shown = cli(porcelain.main, "config", "--show-origin").stdout
    assert f'{project / ".cogtoolrc.yaml"}:2\tenv_priority: "system"\n' in shown
    assert 'default\ttool_sources: [{"local": "./tools"}]\n' in shown
    assert 'environment COGTOOLS_TOOL_PATH\ttool_path: ["/opt/a", "/opt/b"]\n' in shown
    assert f'found by .cogtoolrc.yaml\tproject_root: "{project}"\n' in shown


def test_config_shows_the_effective_policy_and_limits(project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    user = write(
        Path(os.environ["XDG_CONFIG_HOME"]) / "cogtools" / "config.yaml",
        "policy:\n  role: human_agent\n  denied_categories: [Payroll]\n",
    )
    rc = write(
        project / ".cogtoolrc.yaml",
        "policy:\n  role: admin\n  denied_categories: [Billing]\n  max_risk: medium\nlimits: {timeout: 5}\n",
    )
    rows: dict[str, str] = {}
    for line in cli(porcelain.main, "config", "--show-origin").stdout.splitlines():
        origin, _, setting = line.partition("\t")
        rows[setting] = origin
    assert rows['policy.role: "human_agent"'].startswith(f"{user}:1 (the project's policy.role admin is ignored")
    assert rows['policy.denied_categories: ["Payroll", "Billing"]'] == f"{user}:1 + {rc}:1"
    assert rows['policy.max_risk: "medium"'] == f"{rc}:1"
    assert rows['policy.toolset: "all"'] == "default"
    assert rows["limits.timeout: 5"] == f"{rc}:5" and rows["limits.max_output_bytes: 1048576"] == "default"
    assert not any(row.startswith(("policy:", "limits:")) for row in rows)
    monkeypatch.setenv("COGTOOLS_ROLE", "admin")  # the environment may raise it; the project then asks for no more
    assert 'environment COGTOOLS_ROLE\tpolicy.role: "admin"\n' in cli(porcelain.main, "config", "--show-origin").stdout
    write(rc, "policy:\n  role: ai_agent\n")  # and it may lower it
    monkeypatch.delenv("COGTOOLS_ROLE")
    assert f'{rc}:1\tpolicy.role: "ai_agent"\n' in cli(porcelain.main, "config", "--show-origin").stdout


def test_which_explains_order_within_one_source(project: Path, cli: Cli) -> None:
    write(project / "tools" / "a.yaml", "name: dup\ndescription: A.\nimplementation: a\n")
    write(project / "tools" / "b.yaml", "name: dup\ndescription: B.\nimplementation: b\n")
    rows = [line.split("\t") for line in cli(porcelain.main, "which", "dup").stdout.splitlines()]
    assert rows[1] == [
        "dup",
        "tools/b.yaml",
        "(source local:./tools)",
        "shadowed: tools/a.yaml comes first in sorted order within source local:./tools",
    ]
