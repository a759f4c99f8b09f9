"""A JavaScript project's ``package.json`` as configuration: its ``"cogtools"`` key carries the
settings ``[tool.cogtools]`` and ``.cogtoolrc.yaml`` do, with its place in the precedence, its
origin shown, and ``cogtools config`` changing it in place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cogtools.cli import porcelain
from cogtools.core.errors import ConfigInvalidError
from cogtools.load.project import find_project

from .conftest import Cli, write

MANIFEST = """\
{
    "name": "webapp",
    "version": "1.2.3",
    "scripts": {"test": "vitest"},
    "cogtools": {
        "tool_sources": [{"local": "./agent-tools"}],
        "env_priority": "system",
        "tools": "agent-tools/"
    },
    "devDependencies": {"vitest": "^2.0.0"}
}
"""


@pytest.fixture
def webapp(project: Path) -> Path:
    (project / ".cogtoolrc.yaml").unlink()
    (project / ".git").mkdir()
    write(project / "package.json", MANIFEST)
    return project


def test_its_settings_are_read_with_their_origin(webapp: Path, cli: Cli) -> None:
    config = find_project(webapp).config
    assert config.value("tool_sources") == [{"local": "./agent-tools"}]
    assert config.value("env_priority") == "system"
    assert "tools" not in config.settings  # what the package ships, not a setting
    shown = cli(porcelain.main, "config", "--show-origin").stdout.splitlines()
    assert f'{webapp / "package.json"}:6\ttool_sources: [{{"local": "./agent-tools"}}]' in shown
    assert f'{webapp / "package.json"}:7\tenv_priority: "system"' in shown


def test_its_place_in_the_precedence(webapp: Path) -> None:
    write(webapp / "pyproject.toml", '[tool.cogtools]\nenv_priority = "project"\ndiscovery_mode = true\n')
    config = find_project(webapp).config
    assert (config.value("env_priority"), config.value("discovery_mode")) == ("system", True)
    write(webapp / ".cogtoolrc.yaml", "env_priority: project\n")
    assert find_project(webapp).config.value("env_priority") == "project"


def test_a_manifest_without_the_key_is_none_of_cogtools_business(webapp: Path) -> None:
    write(webapp / "package.json", '{"name": "webapp", "oops": ')  # npm's problem, not ours
    assert find_project(webapp).config.files == ()


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"cogtools": {"env_priority": "sometimes"}}', "'sometimes' is not one of"),
        ('{"cogtools": {"tool_source": []}}', "tool_source"),
        ('{"cogtools": 3}', '"cogtools" is an object of settings'),
        ('{"cogtools": {}, oops}', "not JSON"),
        ('{"weird": NaN, "cogtools": {}}', "not JSON: NaN is not JSON"),
        (
            '{"cogtools": {"env_priority": "project", "env_priority": "system"}}',
            "the key cogtools.env_priority is given twice",
        ),
        ('{"cogtools": {"limits": {"timeout": 1, "timeout": 2}}}', "the key cogtools.limits.timeout is given twice"),
        ('{"cogtools": {}, "cogtools": {"env_priority": "system"}}', "the key cogtools is given twice"),
        # (an attacker's pass: a package's tools named outside it, where the workspace writes)
        ('{"cogtools": {"tools": "../x"}}', "'../x' leads outside the package"),
        ('{"cogtools": {"tools": ["tools", "a/../../x"]}}', "'a/../../x' leads outside the package"),
    ],
)
def test_a_bad_key_is_config_invalid_naming_the_file(webapp: Path, text: str, said: str) -> None:
    write(webapp / "package.json", text)
    with pytest.raises(ConfigInvalidError) as raised:
        find_project(webapp)
    assert said in raised.value.message and raised.value.path == str(webapp / "package.json")


def test_it_can_only_narrow_the_policy(webapp: Path) -> None:
    write(webapp / "package.json", '{"cogtools": {"policy": {"role": "admin", "denied_categories": ["Billing"]}}}')
    from cogtools.trust.policy import Policy

    policy = Policy.of(find_project(webapp, {}))
    assert policy.role == "ai_agent" and policy.denied_categories == ("billing",)


def test_config_set_writes_it_in_place(webapp: Path, cli: Cli) -> None:
    assert cli(porcelain.main, "config", "set", "discovery_mode", "true").status == 0
    assert cli(porcelain.main, "config", "add", "policy.denied_categories", "Billing").status == 0
    assert cli(porcelain.main, "config", "unset", "env_priority").status == 0
    text = (webapp / "package.json").read_text()
    assert not (webapp / ".cogtoolrc.yaml").exists()
    expected = MANIFEST.replace('        "env_priority": "system",\n', "").replace(
        '        "tools": "agent-tools/"\n',
        '        "tools": "agent-tools/",\n        "discovery_mode": true,\n'
        '        "policy": {\n            "denied_categories": [\n                "Billing"\n            ]\n        }\n',
    )
    assert text == expected
    assert json.loads(text)["cogtools"]["tools"] == "agent-tools/"
    shown = cli(porcelain.main, "config", "get", "--show-origin", "discovery_mode").stdout
    assert shown == f"{webapp / 'package.json'}:8\ttrue\n"


def test_a_refused_change_leaves_it_as_it_was(webapp: Path, cli: Cli) -> None:
    assert cli(porcelain.main, "config", "set", "env_priority", "banana").status == 2
    assert cli(porcelain.main, "config", "set", "policy.role", "admin").status != 0
    assert (webapp / "package.json").read_text() == MANIFEST


def test_with_a_cogtoolrc_the_change_goes_there_copying_what_it_replaces(webapp: Path, cli: Cli) -> None:
    write(webapp / ".cogtoolrc.yaml", "# ours\n")
    result = cli(porcelain.main, "config", "add", "tool_sources", "node_modules")
    assert result.status == 0
    assert 'copied tool_sources from package.json "cogtools"' in result.stderr
    assert find_project(webapp).config.value("tool_sources") == [{"local": "./agent-tools"}, "node_modules"]
    assert (webapp / "package.json").read_text() == MANIFEST


def test_a_manifest_without_settings_is_given_the_key(webapp: Path, cli: Cli) -> None:
    write(webapp / "package.json", '{"name": "webapp"}\n')
    assert cli(porcelain.main, "config", "set", "env_priority", "system").status == 0
    assert (webapp / "package.json").read_text() == '{"name": "webapp", "cogtools": {"env_priority": "system"}}\n'
    assert not (webapp / ".cogtoolrc.yaml").exists()


def test_config_file_writes_the_cogtoolrc_where_the_person_chooses_it(webapp: Path, cli: Cli) -> None:
    assert cli(porcelain.main, "config", "set", "--config-file", "discovery_mode", "true").status == 0
    assert (webapp / "package.json").read_text() == MANIFEST
    assert "discovery_mode: true" in (webapp / ".cogtoolrc.yaml").read_text()
    shown = cli(porcelain.main, "config", "get", "--config-file", "discovery_mode").stdout
    assert shown == "true\n"


def test_a_manifest_cogtools_cannot_read_is_not_written(webapp: Path, cli: Cli) -> None:
    write(webapp / "package.json", '{"name": "webapp", oops\n')
    assert cli(porcelain.main, "config", "set", "env_priority", "system").status == 0
    assert (webapp / "package.json").read_text() == '{"name": "webapp", oops\n'
    assert "env_priority: system" in (webapp / ".cogtoolrc.yaml").read_text()


@pytest.mark.parametrize("how", ["huge", "not utf-8", "a directory"])
def test_a_manifest_cogtools_cannot_read_is_npms_business(webapp: Path, how: str) -> None:
    path = webapp / "package.json"
    path.unlink()
    if how == "huge":
        path.write_text('{"name": "x", "description": "' + "x" * (2 * 1024 * 1024) + '"}')
    elif how == "not utf-8":
        path.write_bytes(b'{"name": "\xff\xfe"}')
    else:
        path.mkdir()
    assert find_project(webapp).config.files == ()


def test_config_set_keeps_a_byte_order_mark(webapp: Path, cli: Cli) -> None:
    (webapp / "package.json").write_text("\ufeff" + MANIFEST, encoding="utf-8")
    assert cli(porcelain.main, "config", "set", "discovery_mode", "true").status == 0
    text = (webapp / "package.json").read_text(encoding="utf-8")
    assert text.startswith("\ufeff{") and json.loads(text.removeprefix("\ufeff"))["cogtools"]["discovery_mode"] is True
