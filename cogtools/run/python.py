"""The ``python`` implementation kind: a Python function, called in a child process.

.. code-block:: yaml

    implementation:
      kind: python
      callable: calendar:month      # MODULE:FUNCTION (the function may be an attribute path: mod:Class.method)
      timeout: 5                    # optional: seconds (default: the configuration's limits)
      max_output_bytes: 65536       # optional
      stderr: drop                  # or append: what the function wrote to stderr, after the result
      empty_result: Nothing found.  # optional: the result when the function gives nothing

The validated arguments (declared defaults filled in) are the function's keyword arguments; a tool
that declares ``environment`` passes one more, ``env``, the mapping of its variables. The module
is imported from the configuration's ``python_path`` (directories of the project) first, then from
the installed packages of cogtools' own interpreter.

The function runs in a child process of that interpreter (``python -I``, :mod:`cogtools.run.pychild`),
as a program does: under the tool's time limit (a function that never returns, ignores signals,
forks or starts threads is ended with its process group), confined to the tool's side effects
(:mod:`cogtools.run.confine`), and with nothing it does (an exception of any kind, ``sys.exit``,
a write to descriptor 1, a crash) reaching cogtools' own process, output or server.

The result is the return value: a ``str`` as it is, ``bytes`` decoded as UTF-8, ``None`` what the
function printed, anything else as JSON (a value JSON cannot hold is EXECUTION_FAILED). What the
function prints never reaches cogtools' own output. An exception is EXECUTION_FAILED with its type
and message (the traceback is in the error's details only when ``COGTOOLS_DEBUG`` is set).
"""

from __future__ import annotations

import functools
import importlib.machinery
import os
import re
import sys
import typing as t
from pathlib import Path

from cogtools.core.errors import DefinitionInvalidError, ExecutionFailedError, ToolTimeoutError
from cogtools.run import Code, Outline, no_exposure
from cogtools.run.keys import TypeSpec, check_keys
from cogtools.run.process import child_environment
from cogtools.run.program import Planned, check_program_settings, limits, output

if t.TYPE_CHECKING:
    from cogtools.core.model import Parameter, Tool
    from cogtools.run import Advice, Closure, RunContext
    from cogtools.run.process import Finished
    from cogtools.run.signatures import Param, Signature

SETTINGS: dict[str, TypeSpec] = {"timeout": (int, float), "max_output_bytes": int, "stderr": str, "empty_result": str}

#: ``MODULE:ATTRIBUTE``, each a dotted path of Python identifiers.
CALLABLE_PATTERN = r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$"
_CALLABLE_RE = re.compile(CALLABLE_PATTERN)

#: Whether a string argument may hold NUL: yes, a function takes any str.
TAKES_NUL = True
#: Whether it runs programs, which the tool's side effects confine (:mod:`cogtools.run.confine`):
#: its function runs in a child process.
RUNS_PROGRAMS = True


def templates(spec: t.Mapping[str, t.Any]) -> list[tuple[str, tuple[str | int, ...]]]:
    """None of this kind's settings is a template."""
    return []


def check(tool: Tool) -> None:
    check_keys(tool, {"callable": str}, SETTINGS)
    check_program_settings(tool)
    target = tool.implementation.spec["callable"]
    if not _CALLABLE_RE.match(target):
        raise DefinitionInvalidError(
            f"`callable` is MODULE:FUNCTION (for example calendar:month), not {target!r}",
            tool=tool.name,
            path=tool.origin.path,
            key_path=("implementation", "callable"),
            line=tool.implementation.line,
        )


def keyword_arguments(tool: Tool, arguments: t.Mapping[str, t.Any], context: RunContext) -> dict[str, t.Any]:
    """What the function is called with: the arguments, and ``env`` when the tool declares an
    environment."""
    kwargs = dict(arguments)
    if tool.environment:
        kwargs["env"] = {name: context.environment.get(name) for name in tool.environment}
    return kwargs


def preview(tool: Tool, arguments: t.Mapping[str, t.Any], context: RunContext) -> dict[str, t.Any]:
    shown = limits(tool, context)
    out: dict[str, t.Any] = {
        "callable": tool.implementation.spec["callable"],
        "arguments": dict(arguments),
        "python_path": list(context.python_path),
        "environment": list(tool.environment),
        "limits": {"timeout": shown["timeout"], "max_output_bytes": shown["max_output"]},
    }
    from cogtools.run.confine import describe

    out["confinement"] = describe(context.confinement)
    return out


def run(tool: Tool, arguments: t.Mapping[str, t.Any], context: RunContext) -> str:
    from cogtools.run.process import Finished, run_program

    target = tool.implementation.spec["callable"]
    bounds = limits(tool, context)
    cap = bounds["max_output"]
    planned = plan(tool, arguments, context)
    try:
        # The answer is the result as JSON: at most six bytes of it for each byte of the result.
        finished = run_program(
            planned.argv,
            stdin=planned.stdin,
            cwd=planned.cwd,
            env=planned.env,
            timeout=bounds["timeout"],
            max_output=6 * cap + 65536,
            tool=tool.name,
            confine=context.confinement,
            runs=planned.runs,
        )
    except ToolTimeoutError as e:
        seconds = bounds["timeout"]
        raise ToolTimeoutError(
            f"{target} ran past its time limit of {seconds:g} s and was stopped",
            tool=tool.name,
            details={"timeout_seconds": seconds, "callable": target},
        ) from e
    answer = _answer(finished.stdout)
    if answer is None:
        raise _ended(tool, target, finished, context)
    stderr = answer["stderr"].encode("utf-8", "replace") + finished.stderr
    if not answer["ok"]:
        raise _failure(tool, target, answer, context)
    result = Finished(0, answer["text"].encode("utf-8", "replace"), stderr, answer["dropped"])
    spec = tool.implementation.spec
    return output(result, append_stderr=spec.get("stderr", "drop") == "append", empty=spec.get("empty_result"))


def plan(tool: Tool, arguments: t.Mapping[str, t.Any], context: RunContext) -> Planned:
    """The child that calls the function: cogtools' own interpreter, isolated (``-I``: no
    PYTHONPATH, no user site, not the working directory) and given :mod:`cogtools.run.pychild`'s
    source, the request on stdin; it may read the project's ``python_path`` directories (and
    an interpreter kept in the project), whatever else the tool may read."""
    import base64
    import json

    from cogtools.core.fsutil import inside

    root = os.path.realpath(context.cwd or os.getcwd())
    request = {
        "callable": tool.implementation.spec["callable"],
        "kwargs": keyword_arguments(tool, arguments, context),
        "python_path": list(context.python_path),
        "checked": {  # every module of the project the pin check read (python_path's, and where its links lead)
            path: base64.b64encode(data).decode("ascii")
            for path, data in context.checked.items()
            if path.endswith(".py") and inside(path, root)
        },
        "root": root,
        "tool": tool.name,
        "max_output": limits(tool, context)["max_output"],
        "debug": bool(context.environ.get("COGTOOLS_DEBUG")),
    }
    stdin = json.dumps(request, ensure_ascii=False).encode("utf-8", "surrogatepass")
    from cogtools.run.confine import TOOLCHAIN

    # What it reads of the project: python_path, and the parts of an interpreter kept there that
    # run (a virtual environment's bin and lib, not its pip.conf).
    python_path = [os.path.realpath(entry) for entry in context.python_path]
    linked = [  # a checked module python_path links to elsewhere in the project: it must be found
        path for path in request["checked"] if not any(inside(path, entry) for entry in python_path)
    ]
    interpreters = (os.path.join(p, part) for p in (sys.prefix, sys.base_prefix) for part in TOOLCHAIN)
    runs = (*context.python_path, *linked[:MAX_LINKED], *interpreters)
    argv = [sys.executable, "-I", "-c", _child_source(), CHILD_MARK, tool.name]  # what ps shows after the source
    return Planned(argv, stdin, root, child_environment(context.environment, context.environ), (), runs)


#: At most this many checked modules that python_path links to elsewhere are shown to a child.
MAX_LINKED = 256
#: The first argument of a function's child process after its source (``sys.argv[1]``).
CHILD_MARK = "cogtools-python-child"


@functools.cache
def _child_source() -> str:
    return Path(__file__).with_name("pychild.py").read_text(encoding="utf-8")


#: What an answer holds, and of what type (a child that says otherwise said nothing).
_ANSWER = {"ok": bool, "text": str, "dropped": int, "stderr": str, "reason": str, "message": str, "exception": str}


def _answer(data: bytes) -> dict[str, t.Any] | None:
    """The child's answer (with ``text``, ``dropped`` and ``stderr`` filled in), or None when it
    is not one: not JSON, too deep, or a field of the wrong type (what a function that wrote to
    the answer's descriptor could make)."""
    import json

    try:
        answer = json.loads(data)
    except (ValueError, RecursionError):
        return None
    if not isinstance(answer, dict) or not isinstance(answer.get("ok"), bool):
        return None
    answer = {"text": "", "dropped": 0, "stderr": "", **answer}
    for key, kind in _ANSWER.items():
        value = answer.get(key)
        if key in answer and (not isinstance(value, kind) or (kind is int and isinstance(value, bool))):
            return None
    return answer if answer["dropped"] >= 0 else None


def _ended(tool: Tool, target: str, finished: Finished, context: RunContext) -> ExecutionFailedError:
    """EXECUTION_FAILED for a child that ended without an answer (a crash, ``os._exit``)."""
    from cogtools.core.environment import scrub
    from cogtools.run.process import STDERR_TAIL

    status = finished.status
    how = f"was killed by signal {-status}" if status < 0 else f"exited with status {status}"
    tail = scrub(
        finished.stderr.decode("utf-8", "replace"), context.environment.values(), secrets=context.secret_values()
    )
    return ExecutionFailedError(
        f"{target} ended its process without an answer: it {how}",
        tool=tool.name,
        details={"callable": target, "reason": "ended", "exit_status": status, "stderr_tail": tail[-STDERR_TAIL:]},
    )


def _failure(tool: Tool, target: str, answer: t.Mapping[str, t.Any], context: RunContext) -> ExecutionFailedError:
    """EXECUTION_FAILED for what the child said went wrong (an exception, sys.exit, an import),
    its message scrubbed of the environment's values; the traceback only when debugging."""
    from cogtools.core.environment import scrub

    def clean(text: t.Any) -> str:
        return scrub(str(text), context.environment.values(), secrets=context.secret_values())

    details: dict[str, t.Any] = {"callable": target}
    reason = str(answer.get("reason", "exception"))
    if reason in ("exception", "exit"):
        details["exception"] = clean(answer.get("exception", "SystemExit"))
    else:
        details["reason"] = reason
    if reason == "import":
        details["python_path"] = list(context.python_path)
    if "returned_type" in answer:
        details["returned_type"] = clean(answer["returned_type"])
    if "traceback" in answer:
        details["traceback"] = clean(answer["traceback"])
    return ExecutionFailedError(clean(answer.get("message", f"{target} failed")), tool=tool.name, details=details)


def advise(tool: Tool, python_path: t.Sequence[str]) -> list[Advice]:
    """The function's module, looked for without importing it (only its top-level package is
    looked for: finding a submodule would run the package's code); when it is there, the tool's
    parameters against the function's signature, read from its source."""

    from cogtools.run.signatures import child_path

    target = tool.implementation.spec["callable"]
    top = target.partition(":")[0].split(".")[0]
    if (
        top in sys.builtin_module_names
        or importlib.machinery.PathFinder.find_spec(top, [*python_path, *child_path()]) is not None
    ):
        return _signature_advice(tool, python_path)
    where = ", ".join(python_path) or "no python_path"
    return [
        (
            "callable-missing",
            f"the module {top!r} of {target} is neither on python_path ({where}) nor installed here: every call fails with EXECUTION_FAILED",
            "set python_path in .cogtoolrc.yaml to the directory that holds it, or install its package",
            ("implementation", "callable"),
        )
    ]


def _signature_advice(tool: Tool, python_path: t.Sequence[str]) -> list[Advice]:
    """The tool's parameters against its function's signature, read from the source
    (:mod:`cogtools.run.signatures`, nothing imported): a parameter the function does not take, an
    argument it requires that a call may lack, a type that disagrees. Nothing when the signature
    cannot be read (a C function, one made at run time); ``callable-missing`` when the module
    does not define the function at all."""
    from cogtools.core.model import Parameter
    from cogtools.run.signatures import Unreadable, read_signature

    target = tool.implementation.spec["callable"]
    try:
        signature = read_signature(target, python_path)
    except Unreadable as e:
        if not e.missing:
            return []
        return [
            (
                "callable-missing",
                f"{e.message}: every call fails with EXECUTION_FAILED",
                "fix `callable`",
                ("implementation", "callable"),
            )
        ]
    where = f"{target} ({signature.path}:{signature.line})"
    given = {parameter.name: parameter for parameter in tool.parameters}
    if tool.environment:  # the python kind passes the declared variables as env
        given.setdefault("env", Parameter("env", {"type": "object"}, True))
    return [
        *(found for name, parameter in given.items() if (found := _given(tool, name, parameter, signature, where))),
        *(found for param in signature.parameters if (found := _required(param, given.get(param.name), where))),
    ]


def _given(tool: Tool, name: str, parameter: Parameter, signature: Signature, where: str) -> Advice | None:
    """What is wrong with passing the function ``name``: it takes no such keyword argument
    (``callable-parameter``), or its annotation disagrees with the parameter's schema
    (``callable-type``); None when nothing is."""
    from cogtools.run.signatures import agrees

    taken = signature.keyword(name)
    key = ("environment",) if name == "env" and tool.parameter("env") is None else ("parameters", name)
    if taken is None and not signature.takes_any_keyword:
        positional = any(p.name == name for p in signature.parameters)
        why = "takes it positional-only" if positional else "takes no such argument"
        what = "declares environment, so it passes env" if key == ("environment",) else f"passes {name!r}"
        return (
            "callable-parameter",
            f"the tool {what}, but {where} {why}: a call that gives it fails with EXECUTION_FAILED"
            " (unexpected keyword argument)",
            "give the function a parameter env (or **kwargs)"
            if key == ("environment",)
            else _near(name, [p.name for p in signature.parameters if p.by_keyword])
            or "rename it to one the function takes, or remove it",
            key,
        )
    if taken is None or taken.schema is None:
        return None
    disagreement = agrees(parameter.schema, taken.schema)
    if disagreement is None:
        return None
    return (
        "callable-type",
        f"{name!r}: {disagreement} (annotated {_shortened(taken.annotation)} in {where})",
        "make the parameter's schema match the annotation",
        ("parameters", name, "type"),
    )


def _required(param: Param, declared: Parameter | None, where: str) -> Advice | None:
    """``callable-required`` when the function requires ``param`` and a call may not give it
    (the tool's parameter of that name, ``declared``, is missing, or optional with no default);
    None when every call gives it."""
    if param.has_default or param.kind in ("var-positional", "var-keyword"):
        return None
    if param.by_keyword and declared is not None and (declared.required or "default" in declared.schema):
        return None
    hint = "declare it, required (or with a default)"
    if not param.by_keyword:
        why, hint = (
            "positional-only, which a tool cannot give (it calls with keywords)",
            "make it a keyword parameter",
        )
    elif param.name == "env" and declared is None:
        why = "which a python tool passes only when it declares `environment`"
        hint = "declare the variables it reads under `environment`"
    elif declared is None:
        why = "which is not a parameter of the tool"
    else:
        why = "which the tool has optional, with no default"
    return (
        "callable-required",
        f"{where} requires {param.name!r}, {why}: a call without it fails with EXECUTION_FAILED",
        hint,
        ("parameters", param.name) if declared is not None else ("parameters",),
    )


def _shortened(text: str | None, limit: int = 80) -> str:
    """An annotation as a message shows it: at most ``limit`` characters of it."""
    text = text or ""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _near(name: str, names: list[str]) -> str:
    from cogtools.core.errors import close_names, did_you_mean

    return did_you_mean(close_names(name, names))


#: Callables of the standard library that run a command or code they are given: calling one is
#: running a shell. (Any other callable's effects cannot be told from its name.)
RUNS_CODE = re.compile(
    r"^(subprocess:.*|os:(system|popen|exec\w*|spawn\w*|posix_spawn\w*)|pty:spawn|builtins:(exec|eval|compile)"
    r"|code:.*|runpy:.*|importlib:import_module|pickle:loads?|marshal:loads?|shutil:rmtree)$"
)


def outline(tool: Tool) -> Outline:
    """The callable; one of the standard library that runs what it is given (``os:system``,
    ``subprocess:run``) can do anything."""
    target = tool.implementation.spec["callable"]
    if RUNS_CODE.match(target):
        why = f"it calls {target}, which runs what it is given"
        return Outline(f"python: {target}", dict.fromkeys(("filesystem_write", "network", "process"), why))
    return Outline(f"python: {target}")


def closure(tool: Tool, root: Path, python_path: t.Sequence[str]) -> Closure:
    """What a call can import of the workspace: every module each ``python_path`` directory
    makes importable, whole (:func:`~cogtools.run.program_files.python_tree`), the callable's
    own among them; and the setting that chooses them, ``python_path``. An installed module is
    not the workspace's. (A pinned call imports a module of the project only from what its pin
    check read, and refuses one the pin does not cover.)"""
    from cogtools.run.program_files import python_tree  # (lazily: a server starts without it)

    code = Code().plus(*(python_tree(Path(directory), root) for directory in python_path))
    return code, {
        "python_path": [
            str(Path(entry).relative_to(root)) if Path(entry).is_relative_to(root) else entry for entry in python_path
        ]
    }


# A python tool has no templates.
exposure = no_exposure

if t.TYPE_CHECKING:  # mypy holds this kind to the Runner protocol (cogtools.run.runner)
    from cogtools.run import Runner, python

    _RUNNER: Runner = python
