"""npm packages as toolsets (``tool_sources: [node_modules]``): a package installed in the project,
or globally, that declares its tools in its ``package.json`` ("cogtools": {"tools": "tools/"}).

Commands run in process (``cli``) where only their answer matters; the real processes kept:
``cogtools-call`` (``test_a_package_in_node_modules_serves_its_tools``), ``cogtools-discover`` with a
``PYTHONPATH`` (``test_a_configuration_that_meant_python_toolsets_by_node_modules_is_told``) and with a
bad npmrc (``test_a_nul_in_an_npmrc_prefix_is_no_crash``), ``cogtools SUB`` that runs a command of
node_modules/.bin (``test_cogtools_sub_finds_a_command_in_the_projects_node_modules_bin``)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cogtools.cli import discover, porcelain
from cogtools.load import npm
from cogtools.load.catalog import load_catalog
from cogtools.load.project import find_project

from .conftest import BIN, Cli, run_script, write
from .npm_packages import unavailable

UPTIME = "description: How long the machine has been up.\nside_effects: []\nrisk_level: low\nimplementation: 'up {{ how }}'\nparameters:\n  how: {type: string, description: how to say it}\n"


def package(
    directory: Path, name: str, manifest: dict[str, object] | None = None, tools: dict[str, str] | None = None
) -> Path:
    """An npm package's directory: its package.json (``manifest`` merged in) and its tool files."""
    write(directory / "package.json", json.dumps({"name": name, "version": "1.0.0", **(manifest or {})}))
    for file, text in (tools or {}).items():
        write(directory / "tools" / file, text)
    return directory


def installed(root: Path, name: str, tools: dict[str, str], manifest: dict[str, object] | None = None) -> Path:
    """A package as npm leaves it in ``root/node_modules``, without npm."""
    return package(root / "node_modules" / name, name, {"cogtools": {"tools": "tools/"}, **(manifest or {})}, tools)


def use_node_modules(project: Path, first: str = "node_modules", second: str = "local: ./tools") -> None:
    write(project / ".cogtoolrc.yaml", f"tool_sources:\n  - {first}\n  - {second}\n")


@pytest.fixture
def no_global(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No global packages: npm's prefix is an empty directory."""
    prefix = project.parent / "npm-prefix"
    prefix.mkdir()
    monkeypatch.setenv("npm_config_prefix", str(prefix))
    return prefix


def test_a_package_in_node_modules_serves_its_tools(project: Path, no_global: Path, cli: Cli) -> None:
    use_node_modules(project)
    installed(project, "@acme/ops-tools", {"uptime.yaml": UPTIME})
    package(project / "node_modules" / "left-pad", "left-pad")  # most packages declare nothing
    write(project / "node_modules" / "left-pad" / "index.yaml", "not: a tool\n")
    catalog = load_catalog()
    assert list(catalog.tools) == ["uptime"] and catalog.problems == []
    assert catalog.get("uptime").origin.source == "npm:@acme/ops-tools"
    called = run_script("cogtools-call", "uptime", stdin='{"how": "long"}', cwd=project)
    assert (called.status, called.stdout, called.stderr) == (0, "up long", "")
    listing = cli(porcelain.main, "list").stdout
    assert "node_modules/@acme/ops-tools/tools/uptime.yaml (npm:@acme/ops-tools)" in listing
    which = cli(porcelain.main, "which", "uptime").stdout
    assert "(source npm:@acme/ops-tools)" in which


def test_sync_says_a_toolsets_program_is_found_nowhere(project: Path, no_global: Path, cli: Cli) -> None:
    """(issue 43, found by a new user: a toolset's `tsc` tool in a project without typescript was
    allowed by sync, and lint, which leaves a dependency's tools alone, said nothing: every call
    then failed)"""
    use_node_modules(project)
    checker = "description: Type-check.\nside_effects: [filesystem_read]\nrisk_level: low\nimplementation: {kind: command, argv: [cogtools-test-no-tsc, --noEmit]}\n"
    installed(project, "@acme/ts-tools", {"typecheck.yaml": checker})
    write(project / ".gemini" / "settings.json", json.dumps({"tools": {"allowed": ["discovered_tool_typecheck"]}}))
    synced = cli(porcelain.main, "sync", "--yes")
    assert synced.status == 0, synced
    assert "but: cannot run here: 'cogtools-test-no-tsc' is not on PATH here" in synced.stdout, synced


def test_sources_keep_their_configured_order(project: Path, no_global: Path) -> None:
    installed(project, "ops", {"uptime.yaml": UPTIME})
    write(project / "tools" / "uptime.yaml", UPTIME.replace("up {{ how }}", "local {{ how }}"))
    use_node_modules(project)
    assert load_catalog().get("uptime").origin.source == "npm:ops"
    use_node_modules(project, "local: ./tools", "node_modules")
    catalog = load_catalog()
    assert catalog.get("uptime").origin.source == "local:./tools"
    assert [(s.tool.origin.source, s.by.origin.source) for s in catalog.shadowed] == [("npm:ops", "local:./tools")]


def test_node_modules_is_read_only_when_configured(project: Path, no_global: Path) -> None:
    installed(project, "ops", {"uptime.yaml": UPTIME})
    assert list(load_catalog().tools) == []


def test_a_package_may_declare_several_directories(project: Path, no_global: Path) -> None:
    use_node_modules(project)
    root = installed(project, "ops", {"uptime.yaml": UPTIME}, {"cogtools": {"tools": ["tools", "more/"]}})
    write(root / "more" / "down.yaml", UPTIME.replace("up {{", "down {{"))
    assert list(load_catalog().tools) == ["down", "uptime"]


@pytest.mark.parametrize(
    ("declared", "said"),
    [
        ({"tools": "../.."}, "'../..' leads outside the package"),
        ({"tools": "/etc"}, "'/etc' is not a path relative to the package"),
        ({"tools": 3}, '"tools" is a directory, or a list of 1 to 16 of them'),
        ({"tools": []}, '"tools" is a directory, or a list of 1 to 16 of them'),
        ("tools/", '"cogtools" is an object whose "tools" names its directory of tool files'),
        ({"dir": "tools"}, '"cogtools" is an object whose "tools" names its directory of tool files'),
    ],
)
def test_a_package_that_declares_its_tools_wrongly_is_its_own_problem(
    project: Path, no_global: Path, declared: object, said: str
) -> None:
    use_node_modules(project)
    installed(project, "bad", {"uptime.yaml": UPTIME}, {"cogtools": declared})
    installed(project, "good", {"fine.yaml": UPTIME})
    catalog = load_catalog()
    assert list(catalog.tools) == ["fine"]  # the good package's tool
    (problem,) = catalog.problems
    assert problem.code == "CONFIG_INVALID"
    assert problem.message == f"the npm package bad declares its cogtools tools wrongly: {said}"
    assert problem.path == str(project / "node_modules" / "bad" / "package.json")


def test_a_manifest_that_is_not_json_is_that_packages_problem(project: Path, no_global: Path) -> None:
    use_node_modules(project)
    write(project / "node_modules" / "bad" / "package.json", '{"cogtools": {"tools": "t"}, oops')
    (problem,) = load_catalog().problems
    assert "the npm package bad declares its cogtools tools wrongly: its package.json is not JSON" in problem.message


@pytest.mark.slow
def test_a_packages_broken_tools_are_reported_once(project: Path, no_global: Path, cli: Cli) -> None:
    use_node_modules(project)
    installed(project, "ops", {**{f"b{n}.yaml": "descripton: typo\n" for n in range(5)}, "uptime.yaml": UPTIME})
    catalog = load_catalog()
    assert list(catalog.tools) == ["uptime"]
    (problem,) = catalog.problems
    assert problem.message.startswith("5 tool definitions of npm:ops do not load; the first: unknown key 'descripton'")
    assert problem.details["broken"] == [f"node_modules/ops/tools/b{n}.yaml" for n in range(5)]
    # the package's to mend, not the project's: no cogtools_problems offered to the model, no
    # line on discovery's stderr; doctor warns of it, once
    discovered = cli(discover.main)
    assert [d["name"] for d in json.loads(discovered.stdout)] == ["uptime"]
    assert discovered.stderr == ""
    doctor = cli(porcelain.main, "doctor", "--no-discovery").stdout
    assert [line for line in doctor.splitlines() if "descripton" in line] == [f"warning  toolsets: {problem}"]


def test_the_scan_sees_a_package_installed_or_changed_later(project: Path, no_global: Path) -> None:
    use_node_modules(project)
    installed(project, "ops", {"uptime.yaml": UPTIME})
    assert list(load_catalog().tools) == ["uptime"]
    installed(project, "@acme/more", {"down.yaml": UPTIME})  # a new scope directory
    assert list(load_catalog().tools) == ["down", "uptime"]
    installed(project, "@acme/other", {"side.yaml": UPTIME})  # a new package in that scope
    assert list(load_catalog().tools) == ["down", "side", "uptime"]
    write(project / "node_modules" / "ops" / "package.json", json.dumps({"name": "ops"}))  # no longer a toolset
    assert list(load_catalog().tools) == ["down", "side"]


def test_the_scan_sees_a_workspace_package_that_declares_tools_later(project: Path, no_global: Path) -> None:
    """(a newcomer's m10: a workspace's own package, linked into node_modules, gained its
    "cogtools" key after a scan; its package.json is edited in place, node_modules untouched)"""
    use_node_modules(project)
    source = package(project.parent / "packages" / "dev-tools", "dev-tools", tools={"uptime.yaml": UPTIME})
    (project / "node_modules").mkdir()
    os.symlink(source, project / "node_modules" / "dev-tools")
    old = os.stat(project / "node_modules").st_mtime_ns - 10**10  # out of the racy window
    for path in (project / "node_modules", source / "package.json"):
        os.utime(path, ns=(old, old))
    assert list(load_catalog().tools) == []
    package(source, "dev-tools", {"cogtools": {"tools": "tools/"}})
    assert list(load_catalog().tools) == ["uptime"]


def test_a_scan_is_kept_while_nothing_changes(project: Path, no_global: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use_node_modules(project)
    installed(project, "ops", {"uptime.yaml": UPTIME})
    for n in range(50):
        package(project / "node_modules" / f"dep{n}", f"dep{n}")
    old = os.stat(project / "node_modules").st_mtime_ns - 10**10  # out of the racy window
    for path in [project / "node_modules", *(project / "node_modules").iterdir()]:
        os.utime(path, ns=(old, old))
    os.utime(project / "node_modules" / "ops" / "package.json", ns=(old, old))
    assert list(load_catalog().tools) == ["uptime"]
    read: list[str] = []
    original = npm._declared

    def declared(package: str, directory: str, manifest: str) -> npm.Toolset | None:
        read.append(package)
        return original(package, directory, manifest)

    monkeypatch.setattr(npm, "_declared", declared)
    assert list(load_catalog().tools) == ["uptime"]
    assert read == []


def test_global_packages_come_after_the_projects(project: Path, no_global: Path) -> None:
    use_node_modules(project)
    installed(no_global / "lib", "ops", {"uptime.yaml": UPTIME.replace("up {{", "global {{")})
    installed(no_global / "lib", "gtools", {"gone.yaml": UPTIME})
    installed(project, "ops", {"uptime.yaml": UPTIME})
    catalog = load_catalog()
    assert {name: catalog.get(name).origin.source for name in catalog.tools} == {
        "gone": "npm-global:gtools",
        "uptime": "npm:ops",
    }
    assert [s.tool.origin.source for s in catalog.shadowed] == ["npm-global:ops"]


def test_doctor_says_which_toolsets_it_found_and_when_none(project: Path, no_global: Path, cli: Cli) -> None:
    use_node_modules(project)
    doctor = cli(porcelain.main, "doctor", "--no-discovery").stdout
    assert "warning  toolsets: tool source node_modules: no npm package installed in the project or globally" in doctor
    installed(project, "ops", {"uptime.yaml": UPTIME})
    doctor = cli(porcelain.main, "doctor", "--no-discovery").stdout
    assert "ok       toolsets: tool source node_modules: the npm toolsets npm:ops" in doctor


def test_a_configuration_that_meant_python_toolsets_by_node_modules_is_told(
    project: Path, no_global: Path, tmp_path: Path, cli: Cli
) -> None:
    site = tmp_path / "site"
    dist = site / "acme_ops-1.0.dist-info"
    write(dist / "METADATA", "Metadata-Version: 2.1\nName: acme-ops\nVersion: 1.0\n")
    write(dist / "entry_points.txt", "[cogtools.toolsets]\nops = acme_ops.tools\n")
    write(site / "acme_ops" / "__init__.py", "")
    write(site / "acme_ops" / "tools" / "__init__.py", "")
    write(site / "acme_ops" / "tools" / "disk.yaml", "description: Disk.\nimplementation: disk\n")
    env = {**os.environ, "PYTHONPATH": str(site)}
    use_node_modules(project)
    discovered = run_script("cogtools-discover", cwd=project, env=env)
    assert [d["name"] for d in json.loads(discovered.stdout)] == []
    note = (
        "warning: tool source node_modules means npm packages: the installed Python toolsets (acme-ops:ops) are"
        " read only with `packages` in tool_sources"
    )
    assert note in discovered.stderr
    assert "cogtools config add tool_sources packages" in discovered.stderr
    assert cli(porcelain.main, "config", "add", "tool_sources", "packages").status == 0
    discovered = run_script("cogtools-discover", cwd=project, env=env)
    assert [d["name"] for d in json.loads(discovered.stdout)] == [
        "disk"
    ] and "means npm packages" not in discovered.stderr


# The global root, found as npm finds it; npm itself is the judge.


def npm_root_g(env: dict[str, str]) -> str:
    if shutil.which("npm") is None:
        unavailable("npm is not installed")
    done = subprocess.run(["npm", "root", "-g"], capture_output=True, text=True, env=env, timeout=120, check=True)
    return done.stdout.strip()


@pytest.mark.slow
@pytest.mark.parametrize("how", ["default", "environment", "user npmrc", "userconfig", "variable in npmrc"])
def test_the_global_root_is_where_npm_says(isolated: Path, how: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.lower().startswith("npm_config_")}
    home = Path(env["HOME"])
    if how == "environment":
        env["NPM_CONFIG_PREFIX"] = str(isolated / "from-env")
    elif how == "user npmrc":
        write(home / ".npmrc", "; a comment\nprefix = " + str(isolated / "from-npmrc") + "\n")
    elif how == "userconfig":
        write(isolated / "elsewhere.npmrc", f"prefix={isolated / 'from-userconfig'}\n")
        env["npm_config_userconfig"] = str(isolated / "elsewhere.npmrc")
    elif how == "variable in npmrc":
        env["MY_PREFIX"] = str(isolated / "from-variable")
        write(home / ".npmrc", "prefix=${MY_PREFIX}/npm\n")
    assert str(npm.global_root(env)) == npm_root_g(env)


@pytest.mark.slow
def test_a_real_npm_install_in_a_javascript_project(project: Path, tmp_path: Path) -> None:
    """The package packed and installed by npm itself, into the project and globally (offline:
    a local tarball with no dependencies)."""
    if shutil.which("npm") is None:
        unavailable("npm is not installed")
    source = package(
        tmp_path / "src",
        "@acme/ops-tools",
        {"cogtools": {"tools": "tools/"}, "files": ["tools/"]},
        {"uptime.yaml": UPTIME},
    )
    env = {**os.environ, "npm_config_prefix": str(tmp_path / "prefix"), "npm_config_cache": str(tmp_path / "cache")}
    packed = subprocess.run(
        ["npm", "pack", "--silent", "--pack-destination", str(tmp_path)],
        cwd=source,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    tarball = tmp_path / packed.stdout.strip().splitlines()[-1]
    write(project / "package.json", json.dumps({"name": "app", "private": True}))
    use_node_modules(project)
    npm_install = ["npm", "install", "--offline", "--no-audit", "--no-fund", "--silent"]
    subprocess.run([*npm_install, "--save-dev", str(tarball)], cwd=project, env=env, timeout=120, check=True)
    assert "@acme/ops-tools" in json.loads((project / "package.json").read_text())["devDependencies"]
    project_tools = find_project(project, env).sources
    assert [s.name for s in project_tools if s.package] == ["npm:@acme/ops-tools"]
    called = run_script("cogtools-call", "uptime", stdin='{"how": "long"}', cwd=project, env=env)
    assert (called.status, called.stdout) == (0, "up long")
    subprocess.run(["npm", "uninstall", "--silent", "@acme/ops-tools"], cwd=project, env=env, timeout=120, check=True)
    subprocess.run([*npm_install, "--global", str(tarball)], cwd=project, env=env, timeout=120, check=True)
    listing = run_script("cogtools", "list", cwd=project, env=env).stdout
    assert "(npm-global:@acme/ops-tools)" in listing, listing


# Porcelain from node_modules/.bin (seed 004: "Porcelain commands are dynamically resolved from
# installed node_modules").


def test_cogtools_sub_finds_a_command_in_the_projects_node_modules_bin(project: Path, tmp_path: Path) -> None:
    bin_dir = project / "node_modules" / ".bin"
    write(bin_dir / "cogtools-hello", '#!/bin/sh\necho "hello from npm: $*"; exit 3\n', mode=0o755)
    (project / "sub").mkdir()
    result = run_script("cogtools", "hello", "--a", "b c", cwd=project / "sub")
    assert (result.status, result.stdout) == (3, "hello from npm: --a b c\n")
    listed = run_script("cogtools", "help", cwd=project).stdout
    assert any(line.split()[:3] == ["hello", "External", "command:"] for line in listed.splitlines()), listed
    # a command the person installed is never replaced by one in the workspace
    mine = tmp_path / "mine"
    write(mine / "cogtools-hello", "#!/bin/sh\necho mine\n", mode=0o755)
    env = {**os.environ, "PATH": f"{mine}{os.pathsep}{os.environ['PATH']}"}
    assert run_script("cogtools", "hello", cwd=project, env=env).stdout == "mine\n"
    # nor a built-in
    write(bin_dir / "cogtools-list", "#!/bin/sh\necho planted\n", mode=0o755)
    assert "planted" not in run_script("cogtools", "list", cwd=project).stdout


@pytest.mark.slow
def test_a_porcelain_command_installed_by_npm(project: Path, tmp_path: Path) -> None:
    if shutil.which("npm") is None:
        unavailable("npm is not installed")
    source = package(tmp_path / "src", "cogtools-stats", {"bin": {"cogtools-stats": "bin/stats.js"}})
    write(source / "bin" / "stats.js", '#!/usr/bin/env node\nconsole.log("stats", process.argv.slice(2).join(" "));\n')
    env = {**os.environ, "npm_config_cache": str(tmp_path / "cache")}
    write(project / "package.json", json.dumps({"name": "app", "private": True}))
    npm_install = ["npm", "install", "--offline", "--no-audit", "--no-fund", "--silent", "--save-dev"]
    subprocess.run([*npm_install, str(source)], cwd=project, env=env, timeout=120, check=True)
    result = run_script("cogtools", "stats", "--all", cwd=project, env=env)
    assert (result.status, result.stdout) == (0, "stats --all\n")
    listed = run_script("cogtools", "help", cwd=project, env=env).stdout.splitlines()
    assert any(line.split()[:3] == ["stats", "External", "command:"] for line in listed)


# The whole of it, as a JavaScript project's person meets it.

JAVASCRIPT = Path(__file__).parent / "fixtures" / "javascript"


@pytest.mark.slow
def test_a_javascript_project_through_the_real_commands(isolated: Path, tmp_path: Path) -> None:
    """tests/fixtures/javascript: settings in package.json, a .mjs tool, an npm toolset and a
    subcommand package, both installed by npm from tarballs it packed (offline)."""
    if shutil.which("npm") is None:
        unavailable("npm is not installed")
    env = {**os.environ, "npm_config_cache": str(tmp_path / "npm-cache"), "npm_config_prefix": str(tmp_path / "g")}
    app = isolated / "webapp"
    shutil.copytree(JAVASCRIPT / "app", app)
    (app / ".git").mkdir()
    tarballs = []
    for name in ("ops-tools", "cogtools-stats"):
        packed = subprocess.run(
            ["npm", "pack", "--silent", "--pack-destination", str(tmp_path)],
            cwd=JAVASCRIPT / "packages" / name,
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=True,
        )
        tarballs.append(str(tmp_path / packed.stdout.strip().splitlines()[-1]))
    install = ["npm", "install", "--offline", "--no-audit", "--no-fund", "--silent", "--save-dev", *tarballs]
    subprocess.run(install, cwd=app, env=env, timeout=120, check=True)

    def run(*argv: str, stdin: str = "") -> tuple[int, str, str]:
        done = run_script(argv[0], *argv[1:], stdin=stdin, cwd=app, env=env)
        return done.status, done.stdout, done.stderr

    manifest = json.loads((app / "package.json").read_text())  # npm added the dev dependencies
    assert sorted(manifest["devDependencies"]) == ["@acme/ops-tools", "cogtools-stats"]
    shown = {v: k for k, v in (line.split("\t") for line in run("cogtools", "config", "--show-origin")[1].splitlines())}
    assert shown['tool_sources: [{"local": "./tools"}, "node_modules"]'].startswith(f"{app / 'package.json'}:")
    assert shown["limits.timeout: 20"].startswith(f"{app / 'package.json'}:")
    status, listing, _ = run("cogtools", "list")
    assert [re.split(r"\s{2,}", line) for line in listing.splitlines()] == [
        [
            "count_deps",
            "Count the dependencies and dev dependencies package.json declares.",
            "tools/count_deps.mjs (local:./tools, confined)",
        ],
        [
            "greet",
            "Greet someone, the Acme way.",
            "node_modules/@acme/ops-tools/tools/greet.yaml (npm:@acme/ops-tools)",
        ],
    ]
    assert run("cogtools-call", "count_deps", stdin="{}") == (0, "0 dependencies, 2 dev dependencies\n", "")
    assert run("cogtools-call", "greet", stdin='{"who": "Ada"}') == (0, "Greetings from Acme, Ada!", "")
    assert run("cogtools", "stats", "--all") == (0, "stats of webapp: --all\n", "")
    status, doctor, _ = run("cogtools", "doctor", "--no-discovery")
    assert "ok       toolsets: tool source node_modules: the npm toolsets npm:@acme/ops-tools" in doctor
    status, lint, _ = run("cogtools", "lint", "--strict")
    assert (status, lint.splitlines()[0]) == (0, "0 errors, 0 warnings")
    assert "note: 1 tool of installed packages not linted" in lint  # greet: @acme/ops-tools' own
    status, tested, _ = run("cogtools", "test")
    assert status == 0 and tested.endswith("2 passed, 0 failed\n")
    declarations = json.loads(run("cogtools-discover")[1])
    assert sorted(d["name"] for d in declarations) == ["count_deps", "greet"]


@pytest.mark.slow
def test_a_global_prefix_set_by_the_workspace_env_brings_no_tools(project: Path, tmp_path: Path) -> None:
    """Gemini CLI loads the workspace's .env (which the agent can write) into every command it
    runs: npm's prefix from there would choose where "global" tools come from."""
    planted = project / "planted"
    installed(planted / "lib", "evil", {"backdoor.yaml": UPTIME})
    use_node_modules(project)
    for name in ("npm_config_prefix", "NPM_CONFIG_PREFIX"):
        (project / ".env").write_text(f"{name}={planted}\n")
        env = {**{k: v for k, v in os.environ.items() if not k.lower().startswith("npm_config_")}, name: str(planted)}
        listing = run_script("cogtools", "list", cwd=project, env=env)
        assert "backdoor" not in listing.stdout, listing
        doctor = run_script("cogtools", "doctor", "--no-discovery", cwd=project, env=env).stdout
        assert name in doctor and str(project / ".env") in doctor
    (project / ".env").write_text("OTHER=1\n")  # the person's own shell is their word
    assert "backdoor" in run_script("cogtools", "list", cwd=project, env=env).stdout


def test_init_names_the_projects_own_commands_only_when_asked(project: Path, cli: Cli) -> None:
    """A JavaScript project that has cogtools as a dev dependency: Gemini CLI is given
    node_modules/.bin's commands, relative, which every teammate's checkout has, only when a
    person asks for them, and is told that they are files of the workspace; otherwise this
    installation's (tests/test_launchers.py runs init itself)."""
    bin_dir = project / "node_modules" / ".bin"
    bin_dir.mkdir(parents=True)
    for name in ("cogtools-discover", "cogtools-call"):
        write(
            project / "node_modules" / "cogtools" / "bin" / name, f'#!/bin/sh\nexec "{BIN / name}" "$@"\n', mode=0o755
        )
        (bin_dir / name).symlink_to(f"../cogtools/bin/{name}")  # as npm links them
    from cogtools.clients.gemini.commands import spawnable_commands

    commands = spawnable_commands("/nowhere", [BIN], project, project_launcher=True)
    assert (commands.discovery, commands.call) == (
        "node_modules/.bin/cogtools-discover",
        "node_modules/.bin/cogtools-call",
    )
    assert all("files of the workspace, which the agent can rewrite" in note for note in commands.notes)
    assert spawnable_commands("/nowhere", [BIN], project).call == "cogtools-call"  # no path of this machine
    # doctor says what running the project's own commands means
    settings = {"tools": {"discoveryCommand": commands.discovery, "callCommand": commands.call}}
    write(project / ".gemini" / "settings.json", json.dumps(settings))
    doctor = cli(porcelain.main, "doctor", "--no-discovery").stdout
    assert "inside this project, which the agent can rewrite" in doctor


def test_a_tools_directory_swapped_for_a_link_out_is_refused_from_the_cache_too(
    project: Path, no_global: Path, tmp_path: Path, cli: Cli
) -> None:
    """The attacker's pass: the scan is kept while node_modules, its scopes and the manifests are
    unchanged; a tools directory that becomes a link leading out of the package changes none of
    them, and must still be refused (and what it leads to never quoted)."""
    use_node_modules(project)
    root = installed(project, "pkg", {"ok.yaml": UPTIME})
    outside = tmp_path / "private"
    write(outside / "other.yaml", "description: x\nimplementation: {kind: command, argv: gho_SECRET}\n")
    old = os.stat(project / "node_modules").st_mtime_ns - 10**10
    for path in (project / "node_modules", root / "package.json"):
        os.utime(path, ns=(old, old))
    assert list(load_catalog().tools) == ["ok"]
    assert list(load_catalog().tools) == ["ok"]  # from the cache
    (root / "tools").rename(root / "tools.old")
    (root / "tools").symlink_to(outside)
    catalog = load_catalog()
    assert list(catalog.tools) == []
    assert [p.message for p in catalog.problems] == [
        "the npm package pkg declares its cogtools tools wrongly: 'tools/' leads outside the package"
    ]
    assert "gho_SECRET" not in cli(discover.main).stdout


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_a_manifest_with_what_json_has_not_is_refused(project: Path, no_global: Path, constant: str) -> None:
    use_node_modules(project)
    write(project / "node_modules" / "odd" / "package.json", f'{{"x": {constant}, "cogtools": {{"tools": "t"}}}}')
    (problem,) = load_catalog().problems
    assert f"its package.json is not JSON ({constant} is not JSON)" in problem.message


def test_a_package_cannot_name_itself_its_tools_directory(project: Path, no_global: Path) -> None:
    use_node_modules(project)
    installed(project, "self", {"x.yaml": UPTIME}, {"cogtools": {"tools": "."}})
    (problem,) = load_catalog().problems
    assert problem.message == "the npm package self declares its cogtools tools wrongly: '.' names the package itself"


@pytest.mark.parametrize("name", ["Npm_Config_Prefix", "NPM_config_prefix"])
def test_the_workspace_env_cannot_bring_global_tools_in_any_case(
    project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """npm reads its settings from the environment in any case; so are they ignored."""
    planted = project / "planted"
    installed(planted / "lib", "evil", {"backdoor.yaml": UPTIME})
    use_node_modules(project)
    (project / ".env").write_text(f"{name}={planted}\n")
    for key in [k for k in os.environ if k.lower().startswith("npm_config_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv(name, str(planted))
    assert "backdoor" not in cli(porcelain.main, "list").stdout


def test_a_nul_in_an_npmrc_prefix_is_no_crash(project: Path, tmp_path: Path) -> None:
    use_node_modules(project)
    write(tmp_path / "bad.npmrc", "prefix=/tmp/a\0b\n")
    env = {**{k: v for k, v in os.environ.items() if not k.lower().startswith("npm_config_")}}
    env["npm_config_userconfig"] = str(tmp_path / "bad.npmrc")
    done = run_script("cogtools-discover", cwd=project, env=env)
    assert done.status == 0 and json.loads(done.stdout) == []
