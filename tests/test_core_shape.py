"""The shape of the core (issue 26): one call path, one offer, one declaration of each plumbing
command's options, errors that cannot leak a secret, and an import graph that flows one way.

Each test here failed before the reshaping: ``cogtools yaml --dry-run`` ran the tool, MCP clients
were not offered ``cogtools_problems``, a masked error kept the secret in ``repr`` and ``args``,
and ``invoke`` imported ``doctor`` and ``discovery``, which imported it back."""

from __future__ import annotations

import ast
import functools
import json
import os
import pickle
import subprocess
import sys
import typing as t
from pathlib import Path

import pytest

from cogtools.cli.plumbing import FLAGS, OPTIONS, VALUED, Options
from cogtools.core.errors import ExecutionFailedError, RenderFailedError, SchemaViolationError

from .conftest import BIN, REPO, run_script, write
from .package_source import package_trees, statements

# -- every entry point x every option ----------------------------------------------------------

#: Each way of reaching a plumbing command, as an argv prefix: its own executable, the porcelain,
#: and the package run as a module.
ENTRY_POINTS: dict[str, dict[str, list[str]]] = {
    "call": {
        "cogtools-call": [str(BIN / "cogtools-call")],
        "cogtools call": [str(BIN / "cogtools"), "call"],
        "python -m cogtools call": [sys.executable, "-m", "cogtools", "call"],
    },
    "yaml": {
        "cogtools-yaml": [str(BIN / "cogtools-yaml")],
        "cogtools yaml": [str(BIN / "cogtools"), "yaml"],
        "python -m cogtools yaml": [sys.executable, "-m", "cogtools", "yaml"],
    },
}

TOUCH = """\
    name: touch
    description: Make a file, and say what the variable it sees holds.
    environment: [GREETING]
    parameters:
      where: {type: string, description: The file to make.}
    implementation:
      kind: command
      argv: [sh, -c, 'touch "$1" && printf "%s" "$GREETING"', sh, "{{ where }}"]
    """


@pytest.fixture
def touch_project(project: Path) -> Path:
    write(project / "tools" / "touch.yaml", TOUCH)
    write(project / ".env", "GREETING=from-dotenv\n")
    return project


def _run(argv: list[str], stdin: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, input=stdin, capture_output=True, text=True, cwd=cwd, env=env, timeout=60)


@pytest.mark.slow
@pytest.mark.parametrize("option", [option.field for option in OPTIONS])
@pytest.mark.parametrize("command", sorted(ENTRY_POINTS))
def test_every_entry_point_takes_every_option_the_same_way(
    touch_project: Path, command: str, option: str, tmp_path: Path
) -> None:
    """Each option means the same whichever way the command is reached: the three ways give the
    same stdout, stderr and exit status, and what the option does is seen to happen."""
    declared = next(o for o in OPTIONS if o.field == option)
    # a valued option: its first choice, or the example of a free value
    flag = [declared.flags[-1], *declared.choices[:1], *([declared.example] if declared.example else [])]
    target = "touch" if command == "call" else str(touch_project / "tools" / "touch.yaml")
    env = {**os.environ, "GREETING": "from-environment"}
    stdin = "where: made\n" if option == "as_yaml" else '{"where": "made"}'
    seen = {}
    for way, prefix in ENTRY_POINTS[command].items():
        made = touch_project / "made"
        made.unlink(missing_ok=True)
        done = _run([*prefix, *flag, target], stdin, touch_project, env)
        seen[way] = (done.returncode, done.stdout, done.stderr, made.exists())
    assert len(set(seen.values())) == 1, seen  # every way alike
    status, stdout, stderr, made_it = next(iter(seen.values()))
    if option == "dry_run":  # a dry run never runs anything
        assert status == 0 and not made_it and json.loads(stdout)["dry_run"] is True
        return
    assert status == 0 and made_it, stderr
    if option == "system_env":
        assert stdout == "from-environment"
    else:
        assert stdout == "from-dotenv"
    if option == "verbose":
        assert "GREETING" in stderr
    else:
        assert stderr == ""


def test_the_options_are_declared_once() -> None:
    """The record of a plumbing command's options and their declaration agree field for field,
    and no flag is declared twice."""
    assert sorted(option.field for option in OPTIONS) == sorted(Options._fields)
    assert len(FLAGS) + len(VALUED) == sum(len(option.flags) for option in OPTIONS)


def test_the_reported_dry_run_no_longer_runs(project: Path) -> None:
    """The finding: ``echo '{}' | cogtools yaml --dry-run touch.yaml`` ran the tool."""
    write(project / "touch.yaml", "description: d\nimplementation: {kind: command, argv: [touch, touched]}\n")
    result = run_script("cogtools", "yaml", "--dry-run", "touch.yaml", stdin="{}", cwd=project)
    assert result.status == 0 and json.loads(result.stdout)["argv"] == ["touch", "touched"]
    assert not (project / "touched").exists()


def test_a_dry_run_through_cogtools_call_runs_nothing(touch_project: Path) -> None:
    """The built-in cogtools_call reaches its tool through the one call path, dry run included:
    the inner tool's plan is shown, and nothing runs."""
    stdin = json.dumps({"name": "touch", "arguments": {"where": "made"}})
    result = run_script("cogtools-call", "--dry-run", "cogtools_call", stdin=stdin, cwd=touch_project)
    assert result.status == 0, result
    shown = json.loads(result.stdout)
    assert shown["tool"] == "cogtools_call" and shown["calls"]["tool"] == "touch"
    assert shown["calls"]["argv"][-1] == "made" and not (touch_project / "made").exists()
    inner = run_script("cogtools-call", "cogtools_call", stdin=json.dumps({"name": "cogtools_call"}), cwd=touch_project)
    assert json.loads(inner.stdout)["error"]["code"] == "TOOL_NOT_FOUND"  # no meta-tool through a meta-tool


# -- one offer -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_gemini_cli_and_mcp_clients_are_offered_the_same_tools(echo_project: Path) -> None:
    """What cogtools-discover gives Gemini CLI and what cogtools mcp lists are one offer: the same
    tools, descriptions and schemas, cogtools_problems included when something is broken, the
    discovery-mode meta-tools included when it is on."""
    pytest.importorskip("mcp")
    from .test_mcp import session

    write(echo_project / "tools" / "broken.yaml", "description: [unclosed\n")
    write(
        echo_project / "tools" / "hidden.yaml", "description: Found by search.\ndiscoverable: true\nimplementation: x\n"
    )
    write(echo_project / ".cogtoolrc.yaml", "discovery_mode: true\n")

    async def body(client: t.Any) -> t.Any:
        return (await client.list_tools()).tools

    listed = {tool.name: (tool.description, tool.input_schema) for tool in session(echo_project, body)}
    discovered = json.loads(run_script("cogtools-discover", "--format", "mcp", cwd=echo_project).stdout)
    offered = {d["name"]: (d["description"], d["inputSchema"]) for d in discovered}
    assert listed == offered
    assert set(offered) == {"echo", "cogtools_search", "cogtools_call", "cogtools_problems"}
    assert "broken.yaml" in offered["cogtools_problems"][0]


@pytest.mark.slow
def test_a_configuration_that_does_not_load_offers_the_problems_tool_to_every_client(project: Path) -> None:
    pytest.importorskip("mcp")
    from .test_mcp import session

    write(project / ".cogtoolrc.yaml", "tool_sources: 3\n")

    async def body(client: t.Any) -> t.Any:
        tools = (await client.list_tools()).tools
        return tools, await client.call_tool("cogtools_problems", {})

    tools, result = session(project, body)
    discovered = json.loads(run_script("cogtools-discover", cwd=project).stdout)
    assert [tool.name for tool in tools] == [d["name"] for d in discovered] == ["cogtools_problems"]
    direct = run_script("cogtools-call", "cogtools_problems", stdin="{}", cwd=project)
    assert not result.is_error and json.loads(result.content[0].text) == json.loads(direct.stdout)
    assert "CONFIG_INVALID" not in direct.stdout and "tool_sources" in direct.stdout


@pytest.mark.slow
def test_a_definition_cannot_claim_the_builtin_kind(project: Path) -> None:
    write(project / "tools" / "fake.yaml", "description: d\nimplementation: {kind: builtin}\n")
    result = run_script("cogtools-call", "fake", stdin="{}", cwd=project)
    assert json.loads(result.stdout)["error"]["code"] == "DEFINITION_INVALID"
    assert "implementation.kind" in result.stdout


# -- errors are values ---------------------------------------------------------------------------

SECRET = "hunter2-s3cr3t"


def every_text_of(error: BaseException) -> list[str]:
    """Everything through which an error can reach a log: str, repr, args, the JSON, its pickle,
    and each of the same for whatever it carries as cause or context."""
    texts = [str(error), repr(error), repr(error.args), repr(pickle.dumps(error))]
    to_json = getattr(error, "to_json", None)
    if to_json is not None:
        texts.append(json.dumps(to_json()))
    for linked in (error.__cause__, error.__context__):
        if linked is not None:
            texts += every_text_of(linked)
    return texts


def test_a_masked_error_holds_the_secret_nowhere() -> None:
    error = ExecutionFailedError(f"token {SECRET} rejected", details={"stderr": f"bad {SECRET}"}, tool="t")
    masked = error.scrubbed(lambda value: json.loads(json.dumps(value).replace(SECRET, "***")))
    assert not any(SECRET in text for text in every_text_of(masked))
    assert str(masked) == "token *** rejected" and masked.args == ("token *** rejected",)
    assert masked.details == {"stderr": "bad ***"} and masked.tool == "t" and type(masked) is ExecutionFailedError
    assert SECRET in str(error)  # the original is left as it was: a new error, not a changed one


def test_an_error_cannot_be_changed_in_place() -> None:
    error = SchemaViolationError("bad", tool=None)
    with pytest.raises(AttributeError):
        error.message = "other"
    with pytest.raises(AttributeError):
        error.tool = "x"
    named = error.with_tool("echo")
    assert named.tool == "echo" and error.tool is None and named.with_tool("other") is named
    again = pickle.loads(pickle.dumps(named))
    assert (type(again), again.to_json()) == (SchemaViolationError, named.to_json())


def test_a_failing_call_leaks_its_secret_through_no_error(project: Path) -> None:
    """The real path: a tool whose program prints its secret and fails; the error raised out of
    invoke, and everything linked to it, hold no trace of the value."""
    from cogtools.load.loading import load_project
    from cogtools.services.invoke import invoke, resolve

    write(
        project / "tools" / "leak.yaml",
        """\
        description: Fails, saying its token.
        environment: [{name: TOKEN, secret: true}]
        implementation:
          kind: command
          argv: [sh, -c, 'echo "token $TOKEN rejected" >&2; exit 3']
        """,
    )
    write(project / ".env", f"TOKEN={SECRET}\n")
    with pytest.raises(ExecutionFailedError) as caught:
        invoke(resolve(load_project(), "leak"), {})
    assert caught.value.tool == "leak" and "***" in json.dumps(caught.value.to_json())
    assert not any(SECRET in text for text in every_text_of(caught.value))


def test_a_template_error_does_not_carry_an_environment_value() -> None:
    error = RenderFailedError("value long-environment-value broke")
    scrubbed = error.scrubbed(lambda v: v.replace("long-environment-value", "***") if isinstance(v, str) else v)
    assert "long-environment-value" not in repr(scrubbed) + repr(scrubbed.args)


# -- the import graph ------------------------------------------------------------------------------


def read_layers() -> tuple[tuple[str, ...], ...]:
    """The layers, lowest first, as CONTRIBUTING.md draws them (its one written picture): each a
    tuple of the package's sub-packages (folders) that share it."""
    text = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    block = text.split("## The layers", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    layers = []
    for line in block.splitlines():
        words = line.split()
        folders = tuple(word.rstrip("/") for word in words if word.endswith("/") and word[:-1].isidentifier())
        assert folders, f"CONTRIBUTING.md: a line of the layers names no folder: {line!r}"
        layers.append(folders)
    return tuple(reversed(layers))


#: DESIGN §10's layers, lowest first: a module may import its own layer and those below, never
#: one above. A sub-package not named here is a test failure, so that a new one is placed on purpose.
LAYERS = read_layers()
#: What the package root may hold besides its sub-packages.
ROOT_MODULES = {"cogtools", "cogtools.__main__"}


@functools.cache
def package_imports() -> dict[str, set[str]]:
    """Each module of the package and the modules of the package it imports (at any depth of
    its code: a lazy import is an import too; ``if TYPE_CHECKING`` ones are not)."""
    modules: dict[str, tuple[Path, ast.Module]] = {}
    for path, tree in package_trees():
        parts = path.relative_to(REPO).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path, tree
    graph: dict[str, set[str]] = {}
    for name, (path, tree) in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        typing_only = {
            id(node)
            for guard in statements(tree)
            if isinstance(guard, ast.If) and "TYPE_CHECKING" in ast.unparse(guard.test)
            for block in guard.body
            for node in (block, *statements(block))
        }
        found: set[str] = set()
        for node in statements(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    module = ".".join(base + ([node.module] if node.module else []))
                else:
                    module = node.module or ""
                targets = [module, *(f"{module}.{alias.name}" for alias in node.names)]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                continue
            found |= {target for target in targets if target in modules and target != name}
        graph[name] = found
    return graph


def layer_of(module: str) -> int:
    """The layer of ``module``: that of its folder (the root package's ``__init__`` is below
    everything, since every module may read its version; ``__main__`` above everything)."""
    if module == "cogtools":
        return -1
    if module == "cogtools.__main__":
        return len(LAYERS)
    folder = module.split(".")[1]
    for number, members in enumerate(LAYERS):
        if folder in members:
            return number
    raise AssertionError(f"{module}: its folder {folder}/ is in no layer of CONTRIBUTING.md: place it")


def test_the_folders_are_the_layers() -> None:
    """Every folder of the package is a layer's, every layer's folder exists, and the package
    root holds nothing but its ``__init__`` and ``__main__``."""
    root = REPO / "cogtools"
    folders = {path.parent.name for path in root.glob("*/__init__.py")}
    assert folders == {folder for layer in LAYERS for folder in layer}
    modules = {f"cogtools.{path.stem}" if path.stem != "__init__" else "cogtools" for path in root.glob("*.py")}
    assert modules == ROOT_MODULES


def test_contributing_names_every_folder_of_the_package() -> None:
    """CONTRIBUTING.md's map names each folder of the package, nested ones too (``load/formats/``)."""
    text = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    root = REPO / "cogtools"
    folders = sorted(str(path.parent.relative_to(root)) for path in root.rglob("__init__.py") if path.parent != root)
    unnamed = [folder for folder in folders if f"`{folder}/`" not in text and f"{folder}/ " not in text]
    assert unnamed == []


@pytest.mark.slow
def test_no_import_climbs_a_layer() -> None:
    graph = package_imports()
    climbing = sorted(
        f"{module} ({layer_of(module)}) imports {target} ({layer_of(target)})"
        for module, targets in graph.items()
        for target in targets
        if target != "cogtools" and layer_of(target) > layer_of(module)
    )
    assert climbing == []


def test_the_package_has_no_import_cycle() -> None:
    graph = package_imports()
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        path.append(module)
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                cycles.append(path[path.index(target) :] + [target])
            elif target not in state:
                visit(target)
        path.pop()
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)
    assert cycles == []


def test_the_graph_sees_lazy_imports_and_orders_the_layers() -> None:
    """The checks above can fail: an import inside a function (how invoke imported doctor and
    discovery) is an edge of the graph, and the layers are in DESIGN §10's order."""
    graph = package_imports()
    assert "cogtools.services.builtin" in graph["cogtools.services.invoke"]  # lazy imports are seen
    assert layer_of("cogtools.services.discovery") == layer_of("cogtools.services.invoke")
    assert layer_of("cogtools.cli.call") > layer_of("cogtools.services.invoke") > layer_of("cogtools.load.catalog")


def test_doctor_is_a_leaf_and_invoke_knows_no_service_above_it() -> None:
    """doctor is imported by its command alone; the call path imports neither doctor nor
    discovery (the five-module cycle there was)."""
    graph = package_imports()
    assert {module for module, targets in graph.items() if "cogtools.services.doctor" in targets} == {
        "cogtools.cli.doctor_cmd"
    }
    assert not graph["cogtools.services.invoke"] & {
        "cogtools.services.doctor",
        "cogtools.services.discovery",
        "cogtools.services.sync",
        "cogtools.services.testing",
    }


#: The parts of ``run/`` every kind may use; a kind imports no other kind.
SHARED_RUN = {
    "cogtools.run",
    "cogtools.run.keys",
    "cogtools.run.templates",
    "cogtools.run.program",
    "cogtools.run.argv_rules",
    "cogtools.run.program_files",
    "cogtools.run.tool_configs",
    "cogtools.run.process",
    "cogtools.run.reaper",
    "cogtools.run.reports",
    "cogtools.run.bind",
    "cogtools.run.confine",
    "cogtools.run.warm",
    "cogtools.run.deadline",
    "cogtools.run.sandbox",
    "cogtools.run.plan",
}


def test_a_kind_knows_only_the_shared_parts_of_run() -> None:
    from cogtools.run import KINDS

    graph = package_imports()
    kinds = set(KINDS.values())
    reaching = {kind: sorted(graph[kind] & kinds) for kind in kinds}
    assert reaching == {kind: [] for kind in kinds}
    assert all(
        graph[module] <= SHARED_RUN | {m for m in graph if not m.startswith("cogtools.run")} for module in SHARED_RUN
    )


def test_every_kind_is_held_to_the_runner_protocol_by_mypy() -> None:
    """``runner()`` imports a kind by name, which mypy cannot follow: each kind module assigns
    itself to a ``Runner`` under ``TYPE_CHECKING``, so that mypy checks it."""
    from cogtools.run import KINDS

    unheld = []
    for name, module in KINDS.items():
        tree = ast.parse((REPO / (module.replace(".", "/") + ".py")).read_text(encoding="utf-8"))
        held = any(
            isinstance(node, ast.AnnAssign)
            and ast.unparse(node.annotation) == "Runner"
            and ast.unparse(t.cast(ast.expr, node.value)) == module.rpartition(".")[2]
            for node in ast.walk(tree)
        )
        if not held:
            unheld.append(name)
    assert unheld == []


def test_lint_asks_each_kind_instead_of_naming_it() -> None:
    """A kind's own lint rules (a missing program or module, an option injection, where a secret
    shows) are the kind's: lint names no kind, so a new kind needs no change there."""
    from cogtools.run import KINDS, runner

    tree = ast.parse((REPO / "cogtools" / "services" / "lint.py").read_text(encoding="utf-8"))
    named = {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and node.value in KINDS}
    assert named == set()
    for name in KINDS:
        kind = runner(name)
        assert callable(kind.advise) and callable(kind.exposure) and callable(kind.templates)
