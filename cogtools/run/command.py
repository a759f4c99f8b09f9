"""The ``command`` implementation kind: a program and its arguments, never a shell.

.. code-block:: yaml

    implementation:
      kind: command
      argv: [git, log, --oneline, "--max-count={{ count }}", --, "{{ path }}"]
      stdin: "{{ text }}"        # optional: a template whose result is the program's input
      cwd: .                     # optional: relative to the project root (the default)
      timeout: 10                # optional: seconds (default: the configuration's limits)
      max_output_bytes: 65536    # optional
      stderr: drop               # or append: what becomes of stderr when the program succeeds
      success_exit_status: [1]   # optional: statuses besides 0 that mean success (grep's 1: no match)
      empty_result: Nothing found.  # optional: the result when the program prints nothing

Each element of ``argv`` is a template rendered on its own, so a value is always exactly one
argument, whatever it contains (``;``, ``$(...)``, quotes, newlines, a leading ``-``). The program
(``argv[0]``) is written literally: a call cannot choose what runs.
"""

from __future__ import annotations

import os
import typing as t
from pathlib import Path

from cogtools.core.fsutil import call_path, project_bins
from cogtools.run import Outline
from cogtools.run.keys import TypeSpec, check_keys, fail
from cogtools.run.process import child_environment
from cogtools.run.program import (
    ADVISED_ROOT,
    PROGRAM_SETTINGS,
    Planned,
    check_program_settings,
    checked_files,
    describe,
    reach,
    result,
)
from cogtools.run.templates import check_text, environment, may_lead_with_a_value, renderer

if t.TYPE_CHECKING:
    from cogtools.core.model import Tool
    from cogtools.run import Advice, Closure, Exposure, RunContext

SETTINGS: dict[str, TypeSpec] = {"stdin": str, "cwd": str, **PROGRAM_SETTINGS}

#: Whether a string argument may hold NUL: no, its arguments become a program's argv, which cannot.
TAKES_NUL = False
#: Whether it runs programs, which the tool's side effects confine (:mod:`cogtools.run.confine`).
RUNS_PROGRAMS = True


def check(tool: Tool) -> None:
    check_keys(tool, {"argv": list}, SETTINGS)
    check_program_settings(tool)
    spec = tool.implementation.spec
    argv = spec["argv"]
    if not argv or not all(isinstance(arg, str) for arg in argv):
        fail(tool, "`argv` is a list of strings, the program first", "argv")
    if not argv[0] or "{{" in argv[0] or "{%" in argv[0]:
        fail(tool, "the program (`argv[0]`) is written literally, not as a template", "argv", 0)
    for text, key in templates(spec):
        check_text(tool, text, ("implementation", *key), None)


def templates(spec: t.Mapping[str, t.Any]) -> list[tuple[str, tuple[str | int, ...]]]:
    """The template texts of the implementation, each with its key under ``implementation``."""
    out: list[tuple[str, tuple[str | int, ...]]] = [(arg, ("argv", index)) for index, arg in enumerate(spec["argv"])]
    if "stdin" in spec:
        out.append((spec["stdin"], ("stdin",)))
    return out


def plan(tool: Tool, arguments: t.Mapping[str, t.Any], context: RunContext) -> Planned:
    spec = tool.implementation.spec
    rendered = renderer(tool, arguments, context)
    argv = [spec["argv"][0], *(rendered(arg, "argv", i) for i, arg in enumerate(spec["argv"][1:], 1))]
    stdin = rendered(spec["stdin"], "stdin").encode("utf-8") if "stdin" in spec else b""
    base = context.cwd or Path.cwd()
    cwd = (base / spec["cwd"]) if "cwd" in spec else base
    env = child_environment(context.environment, context.environ)
    env["PATH"] = call_path(env.get("PATH"), base)  # the project's node_modules/.bin, last
    from cogtools.run.program_files import command_code, declared_code  # (lazily: a server starts without it)

    runs = command_code(spec["argv"], cwd, base).plus(declared_code(tool.metadata.code, base)).files
    # (what it runs that is there: the places named where no file is, thousands for a per-file
    # tool, are for its pin to notice a file written later, and nothing to show the program)
    there = tuple(str(path) for path in runs if os.path.lexists(path))
    return Planned(argv, stdin, str(cwd), env, checked_files(context.checked), there)


def run(tool: Tool, arguments: t.Mapping[str, t.Any], context: RunContext) -> str:
    planned = plan(tool, arguments, context)
    return result(tool, planned.argv[0], planned.run(tool, context), context)


def preview(tool: Tool, arguments: t.Mapping[str, t.Any], context: RunContext) -> dict[str, t.Any]:
    return describe(tool, plan(tool, arguments, context), context)


def exposure(spec: t.Mapping[str, t.Any], key: tuple[str | int, ...]) -> Exposure | None:
    """A secret in ``argv`` is in the program's arguments, which every user can list."""
    if key[:1] != ("argv",):
        return None
    return (
        "secret-exposed",
        "is in the program's arguments, which every user of this machine can list (ps)",
        "the program sees it in its environment already: read it there",
    )


def _project_program(program: str, called: str | None) -> str | None:
    """The project's own ``program`` (of its ``node_modules/.bin``, or its workspace root's) when a
    call runs another one (found first on the PATH), else None."""
    root = ADVISED_ROOT.get()
    if root is None or called is None or "/" in program:
        return None
    bins = project_bins(root)
    if os.path.dirname(called) in bins:
        return None
    return next((path for bin_ in bins if os.access(path := os.path.join(bin_, program), os.X_OK)), None)


def advise(tool: Tool, python_path: t.Sequence[str]) -> list[Advice]:
    """A program that is not on PATH, and an argument (before any ``--``) that may begin with a
    value a call chose, which the program could read as an option."""
    argv = tool.implementation.spec["argv"]
    found: list[Advice] = []
    here, called = reach(argv[0]) if "/" not in argv[0] else (argv[0], argv[0])
    if here is None and called is None:
        found.append(
            (
                "program-missing",
                f"{argv[0]!r} is not on PATH here, nor in the project's node_modules/.bin: every call of this"
                " command tool fails with EXECUTION_FAILED",
                "install it, or write its full path",
                ("implementation", "argv", 0),
            )
        )
    elif called is None:
        found.append(
            (
                "program-agent-path",
                f"{argv[0]!r} is found here only as {here}, through an entry of PATH that a package runner (npx,"
                " pnpm exec, npm run) put there: a call from Gemini CLI or an MCP client has no such entry, and"
                " fails with EXECUTION_FAILED",
                "install it where every call finds it: in the project (npm install --save-dev; the project's"
                " node_modules/.bin, and its workspace root's, end every call's PATH), or on the PATH your agent"
                " starts with; or write its path relative to the project",
                ("implementation", "argv", 0),
            )
        )
    shadowed = _project_program(argv[0], called)
    if shadowed is not None:
        found.append(
            (
                "program-shadowed",
                f"{argv[0]!r} is {called} for a call (PATH before the project's node_modules/.bin), not the"
                f" project's {shadowed}, which `npm run` would run: another version, which may not see the"
                " project's packages",
                f"write the project's: argv: [{os.path.relpath(shadowed, ADVISED_ROOT.get() or os.curdir)}, ...]"
                " (a file of the workspace: its tool runs unasked only once its package is in `code:`)",
                ("implementation", "argv", 0),
            )
        )
    for index, arg in enumerate(argv[1:], 1):
        if "--" in argv[1:index]:
            break
        if may_lead_with_a_value(tool, environment().parse(arg).body) is True:
            found.append(
                (
                    "option-injection",
                    f"argv[{index}] starts with a value, which the program could read as an option",
                    "put '--' before the first value, or a literal prefix such as --name={{ value }}, or map an enum to fixed options",
                    ("implementation", "argv", index),
                )
            )
    return found


def outline(tool: Tool) -> Outline:
    """The command line as written (templates and all), and what its program plainly does."""
    import shlex

    from cogtools.run.argv_rules import code_on_stdin, program_effects

    spec = tool.implementation.spec
    stdin = f" (input: {shlex.quote(spec['stdin'])})" if "stdin" in spec else ""
    cwd = f" (in {spec['cwd']})" if spec.get("cwd", ".") != "." else ""
    implies = program_effects(spec["argv"])
    reader = code_on_stdin(spec["argv"]) if "stdin" in spec else None
    if reader is not None:
        why = f"it feeds {reader} its code on stdin, from a template, which can do anything"
        implies = dict.fromkeys(("filesystem_write", "network", "process"), why)
    return Outline(f"command: {shlex.join(spec['argv'])}{cwd}{stdin}", implies)


def closure(tool: Tool, root: Path, python_path: t.Sequence[str]) -> Closure:
    """The code of the workspace the command line runs (:func:`~cogtools.run.program_files.command_code`:
    a program or script its words name and what each loads, what its program loads by
    convention, git's configuration), and the setting that chooses where it runs."""
    spec = tool.implementation.spec
    cwd = root / spec["cwd"] if "cwd" in spec else root
    # (the project's node_modules/.bin is on its PATH: a node put there runs each #!/usr/bin/env node)
    from cogtools.run.program_files import command_code, shadowing_places

    code = command_code(spec["argv"], cwd, root).plus(shadowing_places(project_bins(root)))
    return code, {"cwd": spec.get("cwd", ".")}


if t.TYPE_CHECKING:  # mypy holds this kind to the Runner protocol (cogtools.run.runner)
    from cogtools.run import Runner, command

    _RUNNER: Runner = command
