"""Metadata that acts: toolsets, roles, privileges, idleness, and what discovery shows."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cogtools.cli import call, discover, porcelain, yaml_cmd
from cogtools.core.errors import ERROR_TABLE, PolicyDeniedError
from cogtools.load.catalog import load_catalog
from cogtools.trust.policy import ROLES, Policy, mcp_annotations, toolset

from .conftest import Cli, write

STATUS = {code: status for code, status, _ in ERROR_TABLE}


def tool_file(project: Path, name: str, **meta: object) -> Path:
    lines = [f"description: The {name} tool.", "implementation: ran"]
    lines += [f"{key}: {json.dumps(value)}" for key, value in meta.items()]
    return write(project / "tools" / f"{name}.yaml", "\n".join(lines) + "\n")


@pytest.mark.parametrize(
    ("risk", "notice", "idle", "expected"),
    [
        ("SAFE", False, False, "diagnostic"),
        ("SAFE", True, False, "action"),
        ("SAFE", True, True, "action"),
        ("SAFE", False, True, "action"),
        ("CAUTION", False, False, "action"),
        ("CAUTION", True, True, "action"),
        ("ELEVATED", False, False, "action"),
        ("ELEVATED", True, False, "action"),
        ("low", False, False, "diagnostic"),
        ("medium", False, False, "action"),
        ("high", False, False, "action"),
    ],
)
def test_seed_001_classification_matrix(project: Path, risk: str, notice: bool, idle: bool, expected: str) -> None:
    tool_file(
        project,
        "t",
        risk_level=risk,
        side_effects=["filesystem_read"],
        requires_user_notice=notice,
        requires_idle_check=idle,
    )
    assert toolset(load_catalog().get("t")) == expected


def test_both_risk_spellings_are_one_scale(project: Path) -> None:
    for spelled, normal in (("SAFE", "low"), ("caution", "medium"), ("Elevated", "high"), ("low", "low")):
        tool_file(project, "t", risk_level=spelled)
        assert load_catalog().get("t").metadata.risk_level == normal


def test_side_effects_beyond_reading_make_an_action(project: Path) -> None:
    tool_file(project, "w", risk_level="low", side_effects=["filesystem_write"])
    tool_file(project, "r", risk_level="low", side_effects=[])
    catalog = load_catalog()
    assert (toolset(catalog.get("w")), toolset(catalog.get("r"))) == ("action", "diagnostic")


def test_cautious_defaults(project: Path) -> None:
    tool_file(project, "plain")
    tool = load_catalog().get("plain")
    assert toolset(tool) == "action"
    assert mcp_annotations(tool) == {
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": False,
        "openWorldHint": True,
    }
    assert Policy().visible(tool)  # min_role defaults to ai_agent: usable


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("min_role", ROLES)
def test_each_role_against_each_min_role(
    project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch, role: str, min_role: str
) -> None:
    tool_file(project, "guarded", min_role=min_role)
    monkeypatch.setenv("COGTOOLS_ROLE", role)
    allowed = ROLES.index(role) >= ROLES.index(min_role)
    shown = [d["name"] for d in cli(discover.main).json()]
    assert shown == (["guarded"] if allowed else [])
    result = cli(call.main, "guarded")
    if allowed:
        assert result == (0, "ran", "")
    else:  # hidden from this role: not there for it, as a name no tool has
        error = json.loads(result.stdout)["error"]
        assert result.status == STATUS["TOOL_NOT_FOUND"] and error["code"] == "TOOL_NOT_FOUND"
        assert error["details"] == {"available": []}


def test_denied_by_name_through_cogtools_yaml_too(project: Path, cli: Cli) -> None:
    path = tool_file(project, "admin_only", min_role="admin")
    result = cli(yaml_cmd.main, str(path))
    assert result.status == STATUS["POLICY_DENIED"] and "needs admin or above" in result.stderr


def test_role_from_the_users_configuration_and_the_flag(project: Path, cli: Cli) -> None:
    tool_file(project, "human", min_role="human_agent")
    assert cli(discover.main).json() == []
    assert [d["name"] for d in cli(discover.main, "--role", "human_agent").json()] == ["human"]
    write(Path(os.environ["XDG_CONFIG_HOME"]) / "cogtools" / "config.yaml", "policy:\n  role: human_agent\n")
    assert cli(call.main, "human") == (0, "ran", "")


def test_a_project_file_cannot_raise_the_role(project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    # The agent can write .cogtoolrc.yaml and pyproject.toml: from them a role is only lowered.
    tool_file(project, "human", min_role="human_agent")
    write(project / ".cogtoolrc.yaml", "policy:\n  role: admin\n")
    result = cli(call.main, "human")
    assert result.status == STATUS["TOOL_NOT_FOUND"]  # hidden from the role it has
    assert "the project's policy.role admin is ignored" in cli(call.main, "-v", "human").stderr  # told the person
    assert cli(discover.main).json() == []
    (project / ".cogtoolrc.yaml").unlink()
    (project / ".git").mkdir()
    write(project / "pyproject.toml", "[tool.cogtools.policy]\nrole = 'admin'\n")
    assert cli(call.main, "human").status == STATUS["TOOL_NOT_FOUND"]
    monkeypatch.setenv("COGTOOLS_ROLE", "admin")
    write(project / "pyproject.toml", "[tool.cogtools.policy]\nrole = 'ai_agent'\n")  # lowering works
    assert cli(call.main, "human").status == STATUS["TOOL_NOT_FOUND"]
    write(project / "pyproject.toml", "[tool.cogtools]\n")
    assert cli(call.main, "human") == (0, "ran", "")


def test_a_project_file_only_narrows_the_other_limits(project: Path) -> None:
    from cogtools.trust.policy import Policy

    user = {"denied_categories": ["Billing"], "max_risk_without_confirmation": "medium", "idle_max_load": 2.0}
    narrowed = Policy.from_settings(
        user, {}, project={"denied_categories": ["HR"], "max_risk_without_confirmation": "high", "idle_max_load": 0.5}
    )
    assert narrowed.denied_categories == ("billing", "hr")
    assert narrowed.max_risk_without_confirmation == "medium" and narrowed.idle_max_load == 0.5
    widened = Policy.from_settings(user, {}, project={"denied_categories": [], "idle_max_load": 9.0})
    assert widened.denied_categories == ("billing",) and widened.idle_max_load == 2.0


def test_filters_and_their_configured_defaults(project: Path, cli: Cli) -> None:
    tool_file(project, "look", risk_level="low", side_effects=["filesystem_read"], category="SystemCheck")
    tool_file(project, "fix", risk_level="medium", side_effects=["process"], category="Repair")

    def names(*args: str) -> list[str]:
        return [d["name"] for d in cli(discover.main, *args).json()]

    assert names() == ["fix", "look"]
    assert names("--toolset", "diagnostic") == ["look"]
    assert names("--toolset", "action") == ["fix"]
    assert names("--category", "Repair") == ["fix"]
    assert names("--max-risk", "low") == ["look"]
    write(project / ".cogtoolrc.yaml", "policy:\n  toolset: diagnostic\n")
    assert names() == ["look"]
    assert names("--toolset", "all") == ["fix", "look"]
    listed = cli(porcelain.main, "list", "--toolset", "action").stdout
    assert listed.startswith("fix ") and "look" not in listed


def test_denied_categories_ignore_case(project: Path, cli: Cli) -> None:
    tool_file(project, "bill", category="billing")
    write(project / ".cogtoolrc.yaml", "policy:\n  denied_categories: [Billing]\n")
    assert cli(call.main, "bill").status == STATUS["TOOL_NOT_FOUND"]
    assert cli(discover.main).json() == []


def test_denied_categories_are_hidden_and_refused(project: Path, cli: Cli) -> None:
    path = tool_file(project, "net", category="Network")
    write(project / ".cogtoolrc.yaml", "policy:\n  denied_categories: [Network]\n")
    assert cli(discover.main).json() == []
    assert cli(call.main, "net").status == STATUS["TOOL_NOT_FOUND"]
    result = cli(yaml_cmd.main, str(path))  # a definition handed over whole: refused, saying why
    assert result.status == STATUS["POLICY_DENIED"] and "category Network is denied" in result.stderr


def test_requires_admin_is_checked_against_the_process(project: Path) -> None:
    tool_file(project, "root_only", requires_admin=True)
    tool = load_catalog().get("root_only")
    Policy().check_call(tool, euid=0)
    with pytest.raises(PolicyDeniedError, match="this process runs as uid 1000"):
        Policy().check_call(tool, euid=1000)


def test_requires_idle_check_measures_the_load(project: Path) -> None:
    tool_file(project, "heavy", requires_idle_check=True)
    tool = load_catalog().get("heavy")
    Policy(idle_max_load=1.0).check_call(tool, load=0.5)
    with pytest.raises(PolicyDeniedError) as info:
        Policy(idle_max_load=1.0).check_call(tool, load=3.25)
    assert "the 1-minute load average is 3.25, above policy.idle_max_load 1" in info.value.message
    assert info.value.details == {"load_average": 3.25, "idle_max_load": 1.0}


def test_idle_limit_from_configuration(project: Path, cli: Cli) -> None:
    tool_file(project, "heavy", requires_idle_check=True)
    write(Path(os.environ["XDG_CONFIG_HOME"]) / "cogtools" / "config.yaml", "policy:\n  idle_max_load: 100000\n")
    assert cli(call.main, "heavy") == (0, "ran", "")
    write(project / ".cogtoolrc.yaml", "policy:\n  idle_max_load: 0\n")  # a project can lower it
    if os.getloadavg()[0] > 0:
        assert cli(call.main, "heavy").status == STATUS["POLICY_DENIED"]


def test_mcp_annotations_follow_the_metadata(project: Path, cli: Cli) -> None:
    tool_file(project, "reader", title="Read", risk_level="low", side_effects=["filesystem_read"])
    tool_file(project, "fetcher", risk_level="medium", side_effects=["network"])
    declarations = {d["name"]: d for d in cli(discover.main, "--format", "mcp").json()}
    assert declarations["reader"]["annotations"] == {
        "title": "Read",
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    }
    # what may reach the network may change what is there: nothing it is held to says additive
    assert declarations["fetcher"]["annotations"] == {
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": False,
        "openWorldHint": True,
    }


def test_bad_role_setting(project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    tool_file(project, "t")
    monkeypatch.setenv("COGTOOLS_ROLE", "root")
    result = cli(call.main, "t")
    assert result.status == STATUS["CONFIG_INVALID"] and "'root' is not a role" in result.stderr
    monkeypatch.delenv("COGTOOLS_ROLE")
    write(project / ".cogtoolrc.yaml", "policy:\n  role: root\n")
    assert cli(call.main, "t").status == STATUS["CONFIG_INVALID"]


def test_a_read_only_tool_is_hinted_so_only_where_it_is_held_to_it(
    project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Clients approve a read-only tool without asking: a program or a function that nothing here
    can confine is not hinted read-only."""
    write(
        project / "tools" / "lister.yaml",
        "description: List.\nrisk_level: low\nside_effects: [filesystem_read]\n"
        "implementation: {kind: command, argv: [ls]}\n",
    )
    write(
        project / "tools" / "mean.yaml",
        "description: Mean.\nrisk_level: low\nside_effects: []\nparameters: {data: {type: array, items: {type: number}}}\n"
        "implementation: {kind: python, callable: 'statistics:mean'}\n",
    )

    def hints() -> dict[str, bool]:
        declarations = cli(discover.main, "--format", "mcp").json()
        return {d["name"]: d["annotations"]["readOnlyHint"] for d in declarations}

    from cogtools.run import bind, confine

    assert hints() == {"lister": confine.available(), "mean": confine.available()}
    monkeypatch.setattr(bind, "bwrap", lambda: None)
    monkeypatch.setattr(confine, "available", lambda: False)
    assert hints() == {"lister": False, "mean": False}
