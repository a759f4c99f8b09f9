"""What every implementation kind that runs a program shares (``command``, ``script``,
``python``, ``http``'s limits): its settings and their checks, the limits it runs under, what a
dry run shows of it, and the result made of what it printed. What a command line plainly does
is read in :mod:`cogtools.run.argv_rules`; the files a program runs besides its definition are
found by :mod:`cogtools.run.program_files`."""

from __future__ import annotations

import contextlib
import contextvars
import os
import re
import typing as t
from pathlib import Path

from cogtools.core.errors import ExecutionFailedError
from cogtools.core.fsutil import call_path
from cogtools.run.keys import TypeSpec, fail
from cogtools.run.process import Finished, describe_failure, run_program

if t.TYPE_CHECKING:
    from cogtools.core.model import Tool
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


#: The project whose calls lint advises on (:func:`advised_in`): where a kind's advice looks for a
#: program as a call will (:func:`reach`). None: as this process's PATH finds it.
ADVISED_ROOT: contextvars.ContextVar[Path | None] = contextvars.ContextVar("advised_root", default=None)


@contextlib.contextmanager
def advised_in(root: Path) -> t.Iterator[None]:
    """Lint's advice on the tools of the project at ``root``: a program is looked for as a call
    there will look for it (:func:`reach`)."""
    token = ADVISED_ROOT.set(root)
    try:
        yield
    finally:
        ADVISED_ROOT.reset(token)


def reach(program: str) -> tuple[str | None, str | None]:
    """Where this process's PATH finds ``program``, and where a call's does (:func:`call_path`:
    npx's ``node_modules/.bin`` left out, the project's last), for lint's advice."""
    import shutil

    here = shutil.which(program)
    root = ADVISED_ROOT.get()
    return here, here if root is None else shutil.which(program, path=call_path(os.environ.get("PATH"), root))


class Planned(t.NamedTuple):
    """A program as a tool would run it: what ``run`` runs and ``preview`` shows."""

    argv: list[str]
    stdin: bytes
    cwd: str
    env: dict[str, str]
    #: The files it runs whose bytes a pin check read (real path, bytes): the program sees those
    #: bytes at those paths, whatever is written there since (:func:`checked_files`).
    bound: tuple[tuple[str, bytes], ...] = ()
    #: The files of the workspace it runs (its script, the scripts its command names), which it
    #: may read even when it may read nothing else of the project (:mod:`cogtools.run.confine`).
    runs: tuple[str, ...] = ()

    def run(self, tool: Tool, context: RunContext) -> Finished:
        """Run it, under the tool's limits and in the confinement of its context."""
        return run_program(
            self.argv,
            stdin=self.stdin,
            cwd=self.cwd,
            env=self.env,
            bound=self.bound,
            confine=context.confinement,
            runs=self.runs,
            **limits(tool, context),
        )


def describe(tool: Tool, planned: Planned, context: RunContext) -> dict[str, t.Any]:
    """What a dry run shows of a program: its argv, input, directory, the names (never the
    values) of its environment, and its limits."""
    spec = tool.implementation.spec
    shown = limits(tool, context)
    out: dict[str, t.Any] = {"argv": planned.argv}
    if planned.bound:  # it sees these as the pin check read them (cogtools.run.bind)
        out["checked"] = [path for path, _ in planned.bound]
    if planned.stdin:
        out["stdin"] = planned.stdin.decode("utf-8", "replace")
    if context.confinement is not None or tool.metadata.side_effects is None:
        from cogtools.run.confine import describe as confinement

        out["confinement"] = confinement(context.confinement)
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


#: What a confined program that was refused a write says (errno EROFS, in C's words and node's;
#: node's recursive mkdir, as vite makes its cache, says ENOENT instead).
_READ_ONLY = re.compile(r"Read-only file system|\bEROFS\b|\bENOENT\b[^\n]{0,80}\bmkdir\b")
#: Why, and what to do.
READ_ONLY_HINT = (
    "the tool runs confined: it writes nothing of the project unless its side_effects declare"
    " filesystem_write; a program that keeps a cache there fails so, as vite and vitest do with"
    " node_modules/.vite-temp (`vitest run --configLoader runner` writes none)"
)


#: What a confined program that was refused a socket says (node's ``listen EPERM``, C's).
_NO_SOCKET = re.compile(r"\b(?:listen|bind|connect) EPERM\b|socket: Operation not permitted")
SOCKET_HINT = (
    "the tool runs confined: it opens no socket unless its side_effects declare network; tsx's"
    " command listens on one to talk to its child (`node --import tsx FILE` runs the same file without)"
)
#: Why a confined program failed, by what it said, and what to do.
CONFINED_HINTS = ((_READ_ONLY, READ_ONLY_HINT), (_NO_SOCKET, SOCKET_HINT))


def result(tool: Tool, program: str, finished: Finished, context: RunContext) -> str:
    """The result of a finished program, or EXECUTION_FAILED when its exit status is not one
    that the tool counts as success."""
    from cogtools.core.environment import scrub

    spec = tool.implementation.spec
    if finished.status != 0 and finished.status not in spec.get("success_exit_status", ()):
        failure = describe_failure(program, finished, tool.name, lambda text: scrub(text, context.environment.values()))
        said = f"{failure.message}\n{failure.details.get('stderr_tail', '')}\n{failure.details.get('stdout_tail', '')}"
        hint = next((hint for refused, hint in CONFINED_HINTS if refused.search(said)), None)
        if context.confinement is not None and hint is not None:
            failure = failure.replace(message=f"{failure.message} ({hint})", details={**failure.details, "hint": hint})
        raise failure
    if tool.output_media_type is not None:
        return media(tool, program, finished)
    return output(finished, append_stderr=spec.get("stderr", "drop") == "append", empty=spec.get("empty_result"))


def media(tool: Tool, program: str, finished: Finished) -> str:
    """The bytes a program printed for a tool that declares their media type, as base64 text
    (how a result travels); EXECUTION_FAILED when they were cut at the output limit (an image
    cut short is no image)."""
    import base64

    if finished.dropped:
        raise ExecutionFailedError(
            f"{program!r} printed more than the output limit allows ({len(finished.stdout) + finished.dropped} bytes"
            f" of {tool.output_media_type}); raise max_output_bytes",
            tool=tool.name,
            details={"program": program, "media_type": tool.output_media_type},
        )
    if tool.output_media_type == MULTIPART:
        try:
            parts(finished.stdout)
        except ValueError as e:
            raise ExecutionFailedError(
                f"{program!r} printed no multipart/mixed entity that cogtools can read: {e}",
                tool=tool.name,
                details={"program": program, "media_type": MULTIPART},
            ) from None
    return base64.b64encode(finished.stdout).decode("ascii")


#: The media type of a result of several parts: a MIME entity (RFC 2046) the program prints.
MULTIPART = "multipart/mixed"
#: The most parts such a result may have.
MAX_PARTS = 64


def parts(data: bytes) -> list[tuple[str, bytes]]:
    """The parts of a ``multipart/mixed`` entity (its ``Content-Type`` header with the boundary,
    a blank line, then the parts, each with its own headers): each part's media type and bytes
    (decoded from base64 or quoted-printable, as its ``Content-Transfer-Encoding`` says). Raises
    ValueError for what is not such an entity, a part that is multipart itself, or more than
    :data:`MAX_PARTS` parts."""
    import email
    import email.policy

    message = email.message_from_bytes(data, policy=email.policy.compat32)
    if message.get_content_type() != MULTIPART:
        raise ValueError(f"its Content-Type is {message.get_content_type()}, not {MULTIPART}")
    found = message.get_payload()
    if not message.is_multipart() or not isinstance(found, list) or not found:
        raise ValueError("it has no part (no boundary in its Content-Type, or no line --BOUNDARY)")
    if len(found) > MAX_PARTS:
        raise ValueError(f"more than {MAX_PARTS} parts")
    out = []
    for number, part in enumerate(found, 1):
        if part.is_multipart():
            raise ValueError(f"part {number} is multipart itself")
        payload = part.get_payload(decode=True)
        out.append((part.get_content_type(), payload if isinstance(payload, bytes) else b""))
    if message.defects:
        raise ValueError(f"{type(message.defects[0]).__name__}")
    return out


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


def checked_files(checked: t.Mapping[str, bytes]) -> tuple[tuple[str, bytes], ...]:
    """Every file whose bytes a pin check read (real path, bytes), sorted: what
    :func:`~cogtools.run.process.run_program` shows the program in their place. All of them, not
    only those the run names: what a pinned program may load of the workspace is what its pin
    covers, by construction (DESIGN §11)."""
    return tuple(sorted(checked.items()))
