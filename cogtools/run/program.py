"""What every implementation kind that runs a program shares (``command``, ``script``,
``python``, ``http``'s limits): its settings and their checks, the limits it runs under, what a
dry run shows of it, and the result made of what it printed."""

from __future__ import annotations

import typing as t
from pathlib import Path

from cogtools.run.keys import TypeSpec, fail
from cogtools.run.process import Finished, describe_failure

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
#: What becomes of stderr when the program succeeds.
STDERR_CHOICES = ("drop", "append")


def check_program_settings(tool: Tool) -> None:
    """DEFINITION_INVALID for a value of :data:`PROGRAM_SETTINGS` out of its range (the types
    are :func:`check_keys`' business)."""
    spec = tool.implementation.spec
    if spec.get("stderr", "drop") not in STDERR_CHOICES:
        fail(tool, f"`stderr` is one of {', '.join(STDERR_CHOICES)}", "stderr")
    for key in ("timeout", "max_output_bytes"):
        if key in spec and not spec[key] > 0:
            fail(tool, f"`{key}` is a positive number", key)
    for index, status in enumerate(spec.get("success_exit_status", ())):
        if isinstance(status, bool) or not isinstance(status, int) or not 1 <= status <= 255:
            fail(
                tool,
                f"`success_exit_status` lists exit statuses from 1 to 255 that mean success besides 0, not {status!r}",
                "success_exit_status",
                index,
            )


class Planned(t.NamedTuple):
    """A program as a tool would run it: what ``run`` runs and ``preview`` shows."""

    argv: list[str]
    stdin: bytes
    cwd: str
    env: dict[str, str]


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


def named_files(words: t.Iterable[str], cwd: Path) -> list[Path]:
    """The files the literal words of a command line name, relative to ``cwd`` (where the program
    runs): a path (``./bin/tool``, ``scripts/count.sh``) or a name with a suffix (``count.sh``)
    that is a regular file there. A template or an option names none."""
    found = []
    for word in words:
        if not word or "{{" in word or "{%" in word or word.startswith("-"):
            continue
        path = Path(word) if Path(word).is_absolute() else cwd / word
        if ("/" in word or path.suffix) and path.is_file():
            found.append(path)
    return found
