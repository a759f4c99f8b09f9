"""What each entry point imports before it answers (issue 40): every ``cogtools-call`` and
``cogtools-discover`` is a fresh process, so their start-up paths keep lazy imports, and these
tests list what may be imported there. A module added to a start-up path must be added here on
purpose; one that leaves it is a saving. A warm call of a template tool answered from its record
(issue 42: :mod:`cogtools.cli.warm`) imports the fewest: :data:`ANSWERED`, and none of
:data:`COSTLY`."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cogtools.load.cache import RACY_SECONDS

from .conftest import write
from .package_source import child_statements, package_trees

#: Run an entry point's ``main`` in this process, then print what was imported.
PROBE = """
import sys
which, args = sys.argv[1], sys.argv[2:]
if which == "call":
    from cogtools.cli.call import main
    status = main(args)
elif which == "discover":
    from cogtools.cli.discover import main
    status = main(args)
else:
    from cogtools.cli.entry import main
    sys.argv = ["cogtools", *args]
    status = main()
print(repr([status, sorted(sys.modules)]), file=sys.stderr)
"""

#: What a warm call and a warm discovery both import: the configuration, the catalog and its
#: cache, the model and the argument checks.
STARTING = {
    "cogtools",
    "cogtools.cli",
    "cogtools.cli.boundary",
    "cogtools.cli.streams",
    "cogtools.core",
    "cogtools.core.environment",
    "cogtools.core.errors",
    "cogtools.core.model",
    "cogtools.core.places",
    "cogtools.load",
    "cogtools.load.cache",
    "cogtools.load.catalog",
    "cogtools.load.config",
    "cogtools.load.formats",
    "cogtools.load.project",
    "cogtools.schema",
    "cogtools.schema.patterns",
    "cogtools.schema.validate",
    "cogtools.services",
    "cogtools.trust",
    "cogtools.trust.policy",
}
#: The cogtools modules a warm call of a template tool may import.
CALL = STARTING | {
    "cogtools.cli.call",
    "cogtools.cli.plumbing",
    "cogtools.cli.recording",
    "cogtools.cli.warm",
    "cogtools.core.fsutil",
    "cogtools.core.jsondata",
    "cogtools.core.limits",
    "cogtools.core.plans",
    "cogtools.load.loading",
    "cogtools.run",
    "cogtools.run.template",
    "cogtools.run.templates",
    "cogtools.services.invoke",
    "cogtools.trust.clients",
    "cogtools.trust.pins",
}
#: Every module a warm call of a template tool answered from its record imports: cogtools' own, and
#: the interpreter's beyond those ``python -c pass`` has (``re`` and its own: the script pip writes
#: for an entry point imports it; ``_json``, json's scanner, for the record and the arguments;
#: ``_blake2`` for the record's MAC).
ANSWERED = {
    "cogtools",
    "cogtools.cli",
    "cogtools.cli.call",
    "cogtools.cli.streams",
    "cogtools.cli.warm",
    "cogtools.core",
    "cogtools.core.limits",
    "cogtools.core.places",
    "cogtools.core.plans",
}
ANSWERED_STDLIB = {"__future__", "_blake2", "_json"}
#: Never imported by a call answered from its record: the template engine, YAML, the schema
#: validators, click, and the costliest of the interpreter's own (an editable install's finder
#: imports pathlib and importlib.util as the interpreter starts: they are in ``python -c pass``).
COSTLY = {
    "jinja2",
    "yaml",
    "jsonschema",
    "jsonschema_rs",
    "re2",
    "click",
    "typing",
    "hashlib",
    "threading",
    "copy",
    "json",
}
#: What Gemini CLI's settings (a project set up for it) add to a call: the question of what it
#: runs unasked, and no more (no doctor, no MCP client, no export, no Policy Engine writer).
GEMINI = {
    "cogtools.clients",
    "cogtools.clients.gemini",
    "cogtools.clients.gemini.client",
    "cogtools.clients.gemini.rules",
    "cogtools.clients.gemini.settings",
    "cogtools.core.jsonc",
}
#: The cogtools modules a warm discovery may import.
DISCOVER = STARTING | {
    "cogtools.cli.common",
    "cogtools.cli.discover",
    "cogtools.clients",
    "cogtools.clients.export",
    "cogtools.schema.dialects",
    "cogtools.services.discovery",
}
#: What ``cogtools --version`` imports of cogtools.
VERSION = {"cogtools", "cogtools.cli", "cogtools.cli.entry"}
#: Never on a start-up path: the parts that only a person's command needs.
NEVER = ("cogtools.services.doctor", "cogtools.clients.doctor", "cogtools.clients.mcp_clients", "cogtools.mcp")


def imported(which: str, *args: str, cwd: Path, stdin: str = "", runs: int = 2) -> set[str]:
    """The modules the entry point ``which`` imported, run ``runs`` times (the second is warm; a
    call of a template tool leaves its record in the second, and the third is answered from it)."""
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-c", PROBE, which, *args], input=stdin, cwd=cwd, capture_output=True, text=True
        )
    status, modules = ast.literal_eval(done.stderr.strip().splitlines()[-1])
    assert (done.returncode, status) == (0, 0), done.stdout + done.stderr
    return set(modules)


def ours(modules: set[str]) -> set[str]:
    return {module for module in modules if module == "cogtools" or module.startswith("cogtools.")}


@pytest.fixture
def template_project(project: Path) -> Path:
    write(
        project / "tools" / "hi.json",
        json.dumps(
            {
                "description": "Hi.",
                "parameters": {"who": {"type": "string", "description": "Who."}},
                "implementation": "Hi, {{ who }}!",
            }
        ),
    )
    (project.parent / "home" / ".cache").mkdir()  # (where the first call makes the cache: home changes)
    time.sleep(RACY_SECONDS + 0.5)  # a file changed just now is read again by every call
    return project


@pytest.mark.slow
def test_a_warm_template_call_imports_no_client_doctor_or_jsonc(template_project: Path) -> None:
    modules = imported("call", "hi", cwd=template_project, stdin='{"who": "a"}')
    assert ours(modules) <= CALL, sorted(ours(modules) - CALL)
    assert not any(module.startswith(NEVER) for module in modules)
    assert not {"click", "jinja2", "cogtools.core.jsonc"} & modules


@pytest.mark.slow
def test_a_warm_command_call_renders_its_arguments_without_jinja(template_project: Path) -> None:
    """A command's argv and stdin are templates too: a plain one renders by its plan, and only
    one that needs Jinja (a filter) imports it."""
    implementation = {"kind": "command", "argv": ["tr", "a-z", "A-Z"], "stdin": "{{ who }}!"}
    shout = {
        "description": "Shout.",
        "parameters": {"who": {"type": "string", "description": "Who."}},
        "implementation": implementation,
    }
    write(template_project / "tools" / "shout.json", json.dumps(shout))
    filtered = {**shout, "implementation": {**implementation, "stdin": "{{ who | upper }}"}}
    write(template_project / "tools" / "shout_filtered.json", json.dumps(filtered))
    time.sleep(RACY_SECONDS + 0.5)
    assert "jinja2" not in imported("call", "shout", cwd=template_project, stdin='{"who": "a"}')
    assert "jinja2" in imported("call", "shout_filtered", cwd=template_project, stdin='{"who": "a"}')


@pytest.mark.slow
def test_a_warm_template_call_answered_from_its_record_imports_only_what_it_lists(template_project: Path) -> None:
    modules = imported("call", "hi", cwd=template_project, stdin='{"who": "a"}', runs=3)
    assert ours(modules) == ANSWERED, sorted(ours(modules) ^ ANSWERED)
    # the others: those of the interpreter's start (an editable install's finder imports pathlib
    # there) and of the `import re` of the script pip writes, and ANSWERED_STDLIB
    done = subprocess.run(
        [sys.executable, "-c", "import re, sys; print(sorted(sys.modules))"], capture_output=True, text=True, check=True
    )
    others = modules - ANSWERED - set(ast.literal_eval(done.stdout))
    assert others <= ANSWERED_STDLIB | {"__main__"}, sorted(others - ANSWERED_STDLIB)
    assert not modules & COSTLY


@pytest.mark.slow
def test_a_project_set_up_for_gemini_cli_adds_only_the_question_of_what_it_runs_unasked(
    template_project: Path,
) -> None:
    write(
        template_project / ".gemini" / "settings.json",
        '{"tools": {"discoveryCommand": "cogtools-discover", "callCommand": "cogtools-call"}}\n',
    )
    modules = imported("call", "hi", cwd=template_project, stdin='{"who": "a"}')
    assert GEMINI <= modules  # the client was asked
    assert ours(modules) <= CALL | GEMINI, sorted(ours(modules) - CALL - GEMINI)
    assert not any(module.startswith(NEVER) for module in modules)


@pytest.mark.slow
def test_a_warm_discovery_imports_what_it_lists(template_project: Path) -> None:
    modules = imported("discover", cwd=template_project)
    assert ours(modules) <= DISCOVER, sorted(ours(modules) - DISCOVER)
    assert not any(module.startswith(NEVER) for module in modules)
    assert not {"jinja2", "jsonschema", "cogtools.core.jsonc"} & modules


def test_version_imports_the_version_alone(isolated: Path) -> None:
    modules = imported("cogtools", "--version", cwd=isolated)
    assert ours(modules) == VERSION
    assert "click" not in modules


def test_most_imports_are_at_the_top_of_their_module() -> None:
    """An import inside a function hides an edge of the graph from a reader: they are kept for
    the start-up paths above and for costly or optional dependencies, and are fewer than half of
    the package's imports (issue 40: 744 of 1,421 were)."""
    counts = {True: 0, False: 0}  # inside a function: how many imports

    def count(node: ast.AST, in_function: bool) -> None:
        for child in child_statements(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue  # imports for the type checker alone
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                counts[in_function] += 1
            count(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)))

    for _, tree in package_trees():
        count(tree, in_function=False)
    inside, top = counts[True], counts[False]
    assert top > 500 and inside < top, (inside, top)


def test_tab_completion_imports_no_commands_work(isolated: Path) -> None:
    """``cogtools help <TAB>`` imports every command's module (for its short help): their
    costly dependencies are imported when a command runs, not by a shell's completion."""
    probe = (
        "import json, os, sys\n"
        "os.environ.update(_COGTOOLS_COMPLETE='bash_complete', COMP_WORDS='cogtools help ', COMP_CWORD='2')\n"
        "sys.argv = ['cogtools']\n"
        "from cogtools.cli.entry import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=isolated, capture_output=True, text=True)
    modules = set(json.loads(done.stderr.strip().splitlines()[-1]))
    assert "plain,call" in done.stdout.split()  # it completed
    costly = {"ssl", "jsonschema", "openapi_spec_validator", "jinja2", "mcp", "uvicorn", "cogtools.importers.openapi"}
    assert modules & costly == set()


@pytest.mark.slow
def test_the_mcp_server_answers_its_first_requests_without_reading_what_tools_run(project: Path) -> None:
    """The first second over MCP (headless Claude Code waits 2 s, Codex about 1 s): initialize and
    tools/list import none of the reading of a tool's code (program_files, 14 ms of patterns),
    which a call's pin needs, not a listing."""
    pytest.importorskip("mcp")
    write(
        project / "tools" / "cmd.yaml", "description: A command.\nimplementation: {kind: command, argv: [echo, hi]}\n"
    )
    from cogtools.clients.probe import INITIALIZE, INITIALIZED, TOOLS_LIST

    messages = [INITIALIZE, INITIALIZED, TOOLS_LIST]
    probe = (
        "import atexit, sys\n"
        "atexit.register(lambda: print(repr(sorted(sys.modules)), file=sys.stderr))\n"
        "sys.argv = ['cogtools', 'mcp']\n"
        "from cogtools.cli.entry import main\n"
        "main()\n"
    )
    stdin = "".join(json.dumps(message) + "\n" for message in messages)
    done = subprocess.run(
        [sys.executable, "-c", probe], input=stdin, cwd=project, capture_output=True, text=True, timeout=60
    )
    assert '"id":2' in done.stdout and '"cmd"' in done.stdout, done.stdout + done.stderr[-2000:]
    modules = set(ast.literal_eval(done.stderr.strip().splitlines()[-1]))
    assert "cogtools.run.program_files" not in modules and "cogtools.run.tool_configs" not in modules
