"""``cogtools config get|set|unset|add|remove|list``, at the project's and the user's level, and its
interactive walk through a pseudo-terminal."""

from __future__ import annotations

import os
import subprocess
import typing as t
from pathlib import Path

import pytest

from cogtools.cli import porcelain
from cogtools.core.errors import ERROR_TABLE

from .conftest import BIN, Cli, run_script, write

STATUS = {code: status for code, status, _ in ERROR_TABLE}

#: A project file as a person writes one: comments everywhere, blank lines, a flow list, an
#: order of keys that is not alphabetical.
COMMENTED = """\
# The settings of our project.
$schema: schema:agladysh-research.org,2025/cogtools:config

env_priority: project   # .env wins

tool_sources:           # earlier wins
  - local: ./tools      # ours
  - packages

policy:
  # nothing about money, for the agent
  denied_categories: [Billing]
  max_risk: high

limits:
  timeout: 20  # seconds
"""


def config(cli: Cli, *args: str) -> t.Any:
    return cli(porcelain.main, "config", *args)


def user_file() -> Path:
    return Path(os.environ["XDG_CONFIG_HOME"]) / "cogtools" / "config.yaml"


@pytest.mark.parametrize("level", ["project", "user"])
@pytest.mark.parametrize(
    ("key", "text", "shown"),
    [
        ("env_priority", "system", "system"),
        ("discovery_mode", "true", "true"),
        ("tool_sources", "[{local: ./more}, packages]", '[{"local": "./more"}, "packages"]'),
        ("python_path", "[lib]", '["lib"]'),
        ("policy.denied_categories", "[Billing, Payroll]", '["Billing", "Payroll"]'),
        ("policy.max_risk", "medium", "medium"),
        ("policy.idle_max_load", "0.5", "0.5"),
        ("policy.category", "Files", "Files"),
        ("limits.timeout", "5", "5"),
        ("limits", "{timeout: 7, max_output_bytes: 1000}", '{"timeout": 7, "max_output_bytes": 1000}'),
    ],
)
def test_set_get_unset_each_kind_of_key(project: Path, cli: Cli, level: str, key: str, text: str, shown: str) -> None:
    path = project / ".cogtoolrc.yaml" if level == "project" else user_file()
    before = path.read_text() if path.exists() else None
    assert config(cli, "set", f"--{level}", key, text).status == 0
    assert config(cli, "get", f"--{level}", key).stdout == shown + "\n"
    effective = config(cli, "get", key).stdout
    if key == "limits":
        assert effective == '{"timeout": 7, "max_output_bytes": 1000}\n'
    else:
        assert effective == shown + "\n"
    origin = config(cli, "get", "--show-origin", key).stdout
    assert origin.startswith(str(path)), origin
    assert config(cli, "unset", f"--{level}", key).status == 0
    assert config(cli, "get", f"--{level}", key).status == 1
    after = path.read_text()
    if before is not None:
        assert after == before  # set then unset: the file as it was
    else:
        assert after == "$schema: schema:agladysh-research.org,2025/cogtools:config\n"


def test_comments_order_and_format_survive(project: Path, cli: Cli) -> None:
    path = write(project / ".cogtoolrc.yaml", COMMENTED)
    assert config(cli, "set", "policy.max_risk", "medium").status == 0
    assert config(cli, "add", "policy.denied_categories", "Payroll").status == 0
    assert config(cli, "set", "discovery_mode", "true").status == 0
    assert config(cli, "add", "tool_sources", "{local: ./shared}").status == 0
    assert config(cli, "set", "limits.max_output_bytes", "4096").status == 0
    assert (
        path.read_text()
        == COMMENTED.replace("  max_risk: high", "  max_risk: medium")
        .replace("[Billing]", "[Billing, Payroll]")
        .replace("  - packages\n", "  - packages\n  - local: ./shared\n")
        .replace("  timeout: 20  # seconds\n", "  timeout: 20  # seconds\n  max_output_bytes: 4096\n")
        + "discovery_mode: true\n"
    )
    for args in (
        ("unset", "discovery_mode"),
        ("remove", "tool_sources", "{local: ./shared}"),
        ("unset", "limits.max_output_bytes"),
        ("remove", "policy.denied_categories", "Payroll"),
        ("set", "policy.max_risk", "high"),
    ):
        assert config(cli, *args).status == 0
    assert path.read_text() == COMMENTED


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["set", "polcy.role", "ai_agent"], "'polcy.role' is not a setting; did you mean 'policy.role'?"),
        (["set", "policy.role", "boss"], "policy.role: 'boss' is not one of ai_agent, human_agent, admin"),
        (["set", "limits.timeout", "soon"], "limits.timeout: 'soon' is not of type 'number'"),
        (["set", "discovery_mode", "[1, 2"], "is not YAML"),
        (["set", "tool_sources", "{lokal: ./x}"], "tool_sources"),
        (["add", "env_priority", "system"], "'env_priority' is not a list setting"),
        (["add", "tool_sources", "{local: ''}"], "tool_sources"),
        (["set", "env_priority", "&a [*a]"], "is not YAML: the alias *a is inside its own anchor"),
    ],
)
def test_a_bad_key_or_value_changes_nothing(project: Path, cli: Cli, args: list[str], message: str) -> None:
    path = write(project / ".cogtoolrc.yaml", COMMENTED)
    result = config(cli, *args)
    assert result.status == STATUS["USAGE"] and message in result.stderr, result
    assert path.read_text() == COMMENTED
    assert not user_file().exists()


def test_a_file_that_does_not_exist_is_created_only_by_a_good_change(isolated: Path, cli: Cli) -> None:
    assert config(cli, "set", "--user", "policy.role", "admin!").status == STATUS["USAGE"]
    assert not user_file().exists()
    assert config(cli, "set", "--user", "policy.role", "admin").status == 0
    assert (
        user_file().read_text()
        == "$schema: schema:agladysh-research.org,2025/cogtools:config\npolicy:\n  role: admin\n"
    )


def test_the_project_file_cannot_raise_the_role(project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(project / ".cogtoolrc.yaml", COMMENTED)
    result = config(cli, "set", "policy.role", "admin")
    assert result.status == STATUS["POLICY_DENIED"] and "a project's file can only narrow the policy" in result.stderr
    assert "set it with --user or COGTOOLS_ROLE" in result.stderr and path.read_text() == COMMENTED
    assert config(cli, "set", "policy", "{role: admin}").status == STATUS["POLICY_DENIED"]
    assert config(cli, "set", "policy.max_risk_without_confirmation", "high").status == STATUS["POLICY_DENIED"]
    assert config(cli, "set", "policy.idle_max_load", "5").status == STATUS["POLICY_DENIED"]
    assert path.read_text() == COMMENTED
    # Lowering is the project's to do; raising is the user's (their file, or the environment).
    assert config(cli, "set", "policy.max_risk_without_confirmation", "low").status == 0
    assert config(cli, "set", "--user", "policy.role", "human_agent").status == 0
    assert config(cli, "set", "policy.role", "human_agent").status == 0
    assert config(cli, "set", "policy.role", "admin").status == STATUS["POLICY_DENIED"]
    monkeypatch.setenv("COGTOOLS_ROLE", "admin")
    assert config(cli, "set", "policy.role", "admin").status == 0


def test_add_and_remove_say_when_there_is_nothing_to_do(project: Path, cli: Cli) -> None:
    write(project / ".cogtoolrc.yaml", COMMENTED)
    result = config(cli, "add", "policy.denied_categories", "Billing")
    assert result.status == 0 and "nothing to change: policy.denied_categories already lists Billing" in result.stderr
    result = config(cli, "remove", "tool_sources", "{local: ./nowhere}")
    assert result.status == 0 and "does not list" in result.stderr
    assert config(cli, "unset", "discovery_mode").stderr.endswith(
        "nothing to change: discovery_mode is not set there\n"
    )


def test_a_list_added_to_a_file_that_lacks_it_starts_from_the_default(project: Path, cli: Cli) -> None:
    path = write(project / ".cogtoolrc.yaml", "$schema: schema:agladysh-research.org,2025/cogtools:config\n")
    assert config(cli, "add", "tool_sources", "packages").status == 0
    assert config(cli, "get", "tool_sources").stdout == '[{"local": "./tools"}, "packages"]\n'
    assert "tool_sources:\n  - local: ./tools\n  - packages\n" in path.read_text()


def test_pyproject_settings_are_copied_not_lost(project: Path, cli: Cli) -> None:
    (project / ".cogtoolrc.yaml").unlink()
    write(
        project / "pyproject.toml", '[tool.cogtools]\npolicy = {denied_categories = ["Billing"], max_risk = "medium"}\n'
    )
    result = config(cli, "set", "policy.category", "Files")
    assert result.status == 0 and "copied policy from pyproject.toml" in result.stderr
    assert config(cli, "get", "policy.denied_categories").stdout == '["Billing"]\n'
    assert config(cli, "get", "policy.max_risk").stdout == "medium\n"


def test_a_broken_file_can_be_mended(project: Path, cli: Cli) -> None:
    path = write(project / ".cogtoolrc.yaml", "tool_sources: [{local: ./tools}]\npolcy: {role: ai_agent}\n")
    assert config(cli, "list").status == STATUS["CONFIG_INVALID"]
    result = config(cli, "set", "discovery_mode", "true")
    assert result.status == STATUS["CONFIG_INVALID"] and "unset polcy" in result.stderr
    assert config(cli, "unset", "polcy").status == 0
    assert (
        path.read_text() == "tool_sources: [local: ./tools]\n"
    )  # ruamel.yaml's way with a one-key mapping in a flow list
    write(project / ".cogtoolrc.yaml", "a: [\n")
    assert config(cli, "set", "discovery_mode", "true").status == STATUS["CONFIG_INVALID"]


def test_list_is_what_config_printed(project: Path, cli: Cli) -> None:
    listed = config(cli, "list", "--show-origin").stdout
    assert listed == config(cli, "--show-origin").stdout == config(cli, "--non-interactive", "--show-origin").stdout
    assert 'default\tpolicy.role: "ai_agent"\n' in listed


@pytest.mark.slow
def test_two_concurrent_sets_keep_both(project: Path) -> None:
    """Each pair of processes races to change the same file: the lock lets both changes land."""
    path = write(project / ".cogtoolrc.yaml", COMMENTED)
    for round_ in range(4):
        first = subprocess.Popen(
            [str(BIN / "cogtools"), "config", "set", "limits.timeout", str(10 + round_)],
            cwd=project,
            stderr=subprocess.PIPE,
        )
        second = subprocess.Popen(
            [str(BIN / "cogtools"), "config", "add", "policy.denied_categories", f"C{round_}"],
            cwd=project,
            stderr=subprocess.PIPE,
        )
        assert first.wait(timeout=60) == 0 and second.wait(timeout=60) == 0
    text = path.read_text()
    assert "timeout: 13  # seconds" in text and "denied_categories: [Billing, C0, C1, C2, C3]" in text
    assert run_script("cogtools", "config", "list", cwd=project).status == 0


def test_keys_complete(project: Path) -> None:
    env = {
        **os.environ,
        "COMP_WORDS": "cogtools config set policy.r",
        "COMP_CWORD": "3",
        "_COGTOOLS_COMPLETE": "bash_complete",
    }
    out = subprocess.run([str(BIN / "cogtools")], env=env, capture_output=True, text=True, cwd=project).stdout
    assert out.split() == ["plain,policy.role"] or "policy.role" in out
    env["COMP_WORDS"] = "cogtools config add "
    out = subprocess.run([str(BIN / "cogtools")], env=env, capture_output=True, text=True, cwd=project).stdout
    assert {line.split(",", 1)[1] for line in out.split()} == {
        "tool_sources",
        "python_path",
        "policy.denied_categories",
        "sandbox.read",
        "sandbox.write",
    }


def test_the_interactive_walk(project: Path) -> None:
    """Through a pseudo-terminal: Enter keeps, a bad answer is asked again, a project file that
    would raise the role is refused and asked again, and the changes are written once confirmed."""
    import pty

    path = write(project / ".cogtoolrc.yaml", COMMENTED)
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [str(BIN / "cogtools"), "config"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        cwd=project,
        env={**os.environ, "TERM": "dumb"},
    )
    os.close(slave)
    answers = [
        "\n",  # tool_sources: kept
        "system\n",  # env_priority
        "admin\n",  # policy.role: refused in a project file
        "ai_agent\n",  # kept as it is
        "[Billing, Payroll\n",  # not YAML: asked again
        "[Billing, Payroll]\n",  # policy.denied_categories
        "\n",  # discovery_mode: kept
        "y\n",  # write
    ]
    os.write(master, "".join(answers).encode())
    output = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
    assert proc.wait(timeout=60) == 0
    os.close(master)
    shown = output.decode(errors="replace")
    assert "policy.role (default)" in shown and "a project's file can only narrow the policy" in shown
    assert "is not YAML" in shown and "Write 2 changes to" in shown
    # The comment after the value keeps its column.
    assert path.read_text() == COMMENTED.replace("env_priority: project   #", "env_priority: system    #").replace(
        "[Billing]", "[Billing, Payroll]"
    )


def test_non_interactive_never_asks(project: Path) -> None:
    import pty

    master, slave = pty.openpty()
    proc = subprocess.run(
        [str(BIN / "cogtools"), "config", "--non-interactive"],
        stdin=slave,
        stdout=subprocess.PIPE,
        cwd=project,
        timeout=60,
    )
    os.close(slave)
    os.close(master)
    assert proc.returncode == 0 and b'policy.role: "ai_agent"' in proc.stdout


def test_a_hostile_file_is_refused_before_it_is_edited(project: Path, cli: Cli) -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(6)
    )
    path = write(project / ".cogtoolrc.yaml", bomb)
    result = config(cli, "set", "discovery_mode", "true")
    assert result.status == STATUS["CONFIG_INVALID"] and path.read_text() == bomb
    write(project / ".cogtoolrc.yaml", "x: " + "[" * 200 + "]" * 200 + "\n")
    assert config(cli, "set", "discovery_mode", "true").status == STATUS["CONFIG_INVALID"]


def test_nothing_is_left_beside_the_file(project: Path, cli: Cli) -> None:
    assert config(cli, "set", "discovery_mode", "true").status == 0
    assert sorted(p.name for p in project.iterdir()) == [".cogtoolrc.yaml", "tools"]
