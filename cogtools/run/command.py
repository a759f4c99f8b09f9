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

Each element of ``argv`` is a template rendered on its own, so a value is always exactly one
argument, whatever it contains (``;``, ``$(...)``, quotes, newlines, a leading ``-``). The program
(``argv[0]``) is written literally: a call cannot choose what runs.
"""

from __future__ import annotations

import typing as t
from pathlib import Path

from cogtools.errors import DefinitionInvalidError
from cogtools.invoke import MAX_INPUT_BYTES
from cogtools.run.process import Finished, child_environment, describe_failure, run_program
from cogtools.run.template import TypeSpec, check_keys, check_names, compile_text, render, variables

if t.TYPE_CHECKING:
    from cogtools.model import Tool
    from cogtools.run import RunContext

SETTINGS: dict[str, TypeSpec] = {
    "stdin": str,
    "cwd": str,
    "timeout": (int, float),
    "max_output_bytes": int,
    "stderr": str,
}
STDERR_CHOICES = ("drop", "append")


#: Whether a string argument may hold NUL: no, its arguments become a program's argv, which cannot.
TAKES_NUL = False


def check(tool: Tool) -> None:
    check_keys(tool, {"argv": list}, SETTINGS)
    spec = tool.implementation.spec
    argv = spec["argv"]

    def fail(message: str, *key: str | int) -> t.NoReturn:
        raise DefinitionInvalidError(
            message, tool=tool.name, path=tool.origin.path, key_path=("implementation", *key), line=tool.implementation.line
        )

    if not argv or not all(isinstance(arg, str) for arg in argv):
        fail("`argv` is a list of strings, the program first", "argv")
    if not argv[0] or "{{" in argv[0] or "{%" in argv[0]:
        fail("the program (`argv[0]`) is written literally, not as a template", "argv", 0)
    if spec.get("stderr", "drop") not in STDERR_CHOICES:
        fail(f"`stderr` is one of {', '.join(STDERR_CHOICES)}", "stderr")
    for key in ("timeout", "max_output_bytes"):
        if key in spec and not spec[key] > 0:
            fail(f"`{key}` is a positive number", key)
    templates: list[tuple[str, tuple[str | int, ...]]] = [(arg, ("implementation", "argv", index)) for index, arg in enumerate(argv)]
    if "stdin" in spec:
        templates.append((spec["stdin"], ("implementation", "stdin")))
    for text, key_path in templates:
        compile_text(tool, text, key_path, None)
        check_names(tool, text, key_path, None)


def run(tool: Tool, arguments: t.Mapping[str, t.Any], context: RunContext) -> str:
    from cogtools.environment import scrub

    spec = tool.implementation.spec
    names = variables(tool, arguments, context)

    # The program's arguments and input are input, not output: any argument a call may carry
    # passes through them whatever the output limit.
    size = max(int(context.limits["max_output_bytes"]), MAX_INPUT_BYTES)

    def rendered(text: str, *key: str | int) -> str:
        return render(tool, compile_text(tool, text, ("implementation", *key), None), names, context, max_size=size)

    argv = [spec["argv"][0], *(rendered(arg, "argv", i) for i, arg in enumerate(spec["argv"][1:], 1))]
    stdin = rendered(spec["stdin"], "stdin").encode("utf-8") if "stdin" in spec else b""
    base = context.cwd or Path.cwd()
    cwd = (base / spec["cwd"]) if "cwd" in spec else base
    finished = run_program(
        argv,
        stdin=stdin,
        cwd=str(cwd),
        env=child_environment(context.environment, context.environ),
        timeout=float(spec.get("timeout", context.limits["timeout"])),
        max_output=int(spec.get("max_output_bytes", context.limits["max_output_bytes"])),
        tool=tool.name,
    )
    if finished.status != 0:
        raise describe_failure(argv[0], finished, tool.name, lambda text: scrub(text, context.environment.values()))
    return output(finished, append_stderr=spec.get("stderr", "drop") == "append")


def output(finished: Finished, *, append_stderr: bool) -> str:
    """The result text: stdout (with a marker when it was cut), and stderr when asked for."""
    text = finished.stdout.decode("utf-8", "replace")
    if finished.dropped:
        if text and not text.endswith("\n"):
            text += "\n"
        text += f"[cogtools: output truncated: {finished.dropped} more bytes not shown]\n"
    if append_stderr and finished.stderr:
        text += "[stderr]\n" + finished.stderr.decode("utf-8", "replace")
    return text
