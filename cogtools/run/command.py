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

import typing as t
from pathlib import Path

from cogtools.errors import DefinitionInvalidError
from cogtools.run.process import Finished, child_environment, describe_failure, run_program
from cogtools.run.template import TypeSpec, check_keys, check_text, renderer

if t.TYPE_CHECKING:
    from cogtools.model import Tool
    from cogtools.run import RunContext

#: The settings of every kind that runs a program (``command`` and ``script``).
PROGRAM_SETTINGS: dict[str, TypeSpec] = {
    "timeout": (int, float),
    "max_output_bytes": int,
    "stderr": str,
    "success_exit_status": list,
    "empty_result": str,
}
SETTINGS: dict[str, TypeSpec] = {"stdin": str, "cwd": str, **PROGRAM_SETTINGS}
STDERR_CHOICES = ("drop", "append")


#: Whether a string argument may hold NUL: no, its arguments become a program's argv, which cannot.
TAKES_NUL = False


def _fail(tool: Tool, message: str, *key: str | int) -> t.NoReturn:
    raise DefinitionInvalidError(
        message, tool=tool.name, path=tool.origin.path, key_path=("implementation", *key), line=tool.implementation.line
    )


def check_program_settings(tool: Tool) -> None:
    """DEFINITION_INVALID for a value of :data:`PROGRAM_SETTINGS` out of its range (the types
    are :func:`check_keys`' business)."""
    spec = tool.implementation.spec
    if spec.get("stderr", "drop") not in STDERR_CHOICES:
        _fail(tool, f"`stderr` is one of {', '.join(STDERR_CHOICES)}", "stderr")
    for key in ("timeout", "max_output_bytes"):
        if key in spec and not spec[key] > 0:
            _fail(tool, f"`{key}` is a positive number", key)
    for index, status in enumerate(spec.get("success_exit_status", ())):
        if isinstance(status, bool) or not isinstance(status, int) or not 1 <= status <= 255:
            _fail(
                tool,
                f"`success_exit_status` lists exit statuses from 1 to 255 that mean success besides 0, not {status!r}",
                "success_exit_status",
                index,
            )


def check(tool: Tool) -> None:
    check_keys(tool, {"argv": list}, SETTINGS)
    check_program_settings(tool)
    spec = tool.implementation.spec
    argv = spec["argv"]
    if not argv or not all(isinstance(arg, str) for arg in argv):
        _fail(tool, "`argv` is a list of strings, the program first", "argv")
    if not argv[0] or "{{" in argv[0] or "{%" in argv[0]:
        _fail(tool, "the program (`argv[0]`) is written literally, not as a template", "argv", 0)
    templates: list[tuple[str, tuple[str | int, ...]]] = [
        (arg, ("implementation", "argv", index)) for index, arg in enumerate(argv)
    ]
    if "stdin" in spec:
        templates.append((spec["stdin"], ("implementation", "stdin")))
    for text, key_path in templates:
        check_text(tool, text, key_path, None)


class Planned(t.NamedTuple):
    """A program as a tool would run it: what ``run`` runs and ``preview`` shows."""

    argv: list[str]
    stdin: bytes
    cwd: str
    env: dict[str, str]


def plan(tool: Tool, arguments: t.Mapping[str, t.Any], context: RunContext) -> Planned:
    spec = tool.implementation.spec
    rendered = renderer(tool, arguments, context)
    argv = [spec["argv"][0], *(rendered(arg, "argv", i) for i, arg in enumerate(spec["argv"][1:], 1))]
    stdin = rendered(spec["stdin"], "stdin").encode("utf-8") if "stdin" in spec else b""
    base = context.cwd or Path.cwd()
    cwd = (base / spec["cwd"]) if "cwd" in spec else base
    return Planned(argv, stdin, str(cwd), child_environment(context.environment, context.environ))


def run(tool: Tool, arguments: t.Mapping[str, t.Any], context: RunContext) -> str:
    planned = plan(tool, arguments, context)
    finished = run_program(planned.argv, stdin=planned.stdin, cwd=planned.cwd, env=planned.env, **limits(tool, context))
    return result(tool, planned.argv[0], finished, context)


def preview(tool: Tool, arguments: t.Mapping[str, t.Any], context: RunContext) -> dict[str, t.Any]:
    return describe(tool, plan(tool, arguments, context), context)


def describe(tool: Tool, planned: Planned, context: RunContext) -> dict[str, t.Any]:
    """What a dry run shows of a program: its argv, input, directory, the names (never the
    values) of its environment, and its limits."""
    spec = tool.implementation.spec
    shown = limits(tool, context)
    out: dict[str, t.Any] = {"argv": planned.argv}
    if planned.stdin:
        out["stdin"] = planned.stdin.decode("utf-8", "replace")
    out.update(
        cwd=planned.cwd,
        environment=sorted(planned.env),
        limits={"timeout": shown["timeout"], "max_output_bytes": shown["max_output"]},
    )
    for key in ("stderr", "success_exit_status", "empty_result"):
        if key in spec:
            out[key] = spec[key]
    return out


def limits(tool: Tool, context: RunContext) -> dict[str, t.Any]:
    """The keyword arguments of :func:`run_program` that bound a tool's program."""
    spec = tool.implementation.spec
    return {
        "timeout": float(spec.get("timeout", context.limits["timeout"])),
        "max_output": int(spec.get("max_output_bytes", context.limits["max_output_bytes"])),
        "tool": tool.name,
    }


def result(tool: Tool, program: str, finished: Finished, context: RunContext) -> str:
    """The result of a finished program, or EXECUTION_FAILED when its exit status is not one
    that the tool counts as success."""
    from cogtools.environment import scrub

    spec = tool.implementation.spec
    if finished.status != 0 and finished.status not in spec.get("success_exit_status", ()):
        raise describe_failure(program, finished, tool.name, lambda text: scrub(text, context.environment.values()))
    return output(finished, append_stderr=spec.get("stderr", "drop") == "append", empty=spec.get("empty_result"))


def output(finished: Finished, *, append_stderr: bool, empty: str | None = None) -> str:
    """The result text: stdout (with a marker when it was cut), or ``empty`` when stdout holds
    nothing but white space; and stderr when asked for."""
    text = finished.stdout.decode("utf-8", "replace")
    if empty is not None and not text.strip() and not finished.dropped:
        text = empty
    if finished.dropped:
        if text and not text.endswith("\n"):
            text += "\n"
        text += f"[cogtools: output truncated: {finished.dropped} more bytes not shown]\n"
    if append_stderr and finished.stderr:
        text += "[stderr]\n" + finished.stderr.decode("utf-8", "replace")
    return text
