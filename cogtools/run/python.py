"""The ``python`` implementation kind: a Python function, called in the cogtools process.

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
the installed packages. No process is started, which makes this the fastest kind.

The result is the return value: a ``str`` as it is, ``bytes`` decoded as UTF-8, ``None`` what the
function printed, anything else as JSON (a value JSON cannot hold is EXECUTION_FAILED). What the
function prints never reaches cogtools' own output. An exception is EXECUTION_FAILED with its type
and message (the traceback is in the error's details only when ``COGTOOLS_DEBUG`` is set).

The time limit interrupts the function between two Python bytecodes (:mod:`cogtools.run.deadline`):
a signal in ``cogtools-call``, which also cuts a blocking system call such as ``time.sleep``
short; in a server's worker thread, an exception raised asynchronously, which waits for a call
into C code (a socket read without its own timeout) to return. A function that catches
``BaseException`` and goes on can outlast it.
"""

from __future__ import annotations

import contextlib
import contextvars
import importlib.machinery
import io
import os
import re
import sys
import threading
import typing as t
from pathlib import Path

from cogtools.errors import DefinitionInvalidError, ExecutionFailedError, ToolTimeoutError
from cogtools.run import Outline, no_exposure
from cogtools.run.keys import TypeSpec, check_keys
from cogtools.run.program import check_program_settings, limits, output

if t.TYPE_CHECKING:
    from cogtools.model import Tool
    from cogtools.run import Advice, Closure, RunContext

SETTINGS: dict[str, TypeSpec] = {"timeout": (int, float), "max_output_bytes": int, "stderr": str, "empty_result": str}

#: ``MODULE:ATTRIBUTE``, each a dotted path of Python identifiers.
CALLABLE_PATTERN = r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$"
_CALLABLE_RE = re.compile(CALLABLE_PATTERN)

#: Whether a string argument may hold NUL: yes, a function takes any str.
TAKES_NUL = True
#: Whether it runs programs, which the tool's side effects confine (:mod:`cogtools.run.confine`).
RUNS_PROGRAMS = False
#: Why its code is not confined to the tool's side effects.
UNCONFINED = "a python callable runs in cogtools' own process"


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
    return out


def run(tool: Tool, arguments: t.Mapping[str, t.Any], context: RunContext) -> str:
    from cogtools.run.deadline import Expired, deadline
    from cogtools.run.process import Finished

    target = tool.implementation.spec["callable"]
    bounds = limits(tool, context)
    seconds = bounds["timeout"]
    try:
        with _captured() as (stdout, stderr), deadline(seconds), _checked_imports(tool, context):
            function = _resolve(tool, target, context)
            value = function(**keyword_arguments(tool, arguments, context))
    except Expired:
        raise ToolTimeoutError(
            f"{target} ran past its time limit of {seconds:g} s and was stopped",
            tool=tool.name,
            details={"timeout_seconds": seconds},
        ) from None
    except ExecutionFailedError:
        raise
    except (Exception, SystemExit) as e:
        raise _failure(tool, target, e, context) from None
    data = _result_bytes(tool, target, value, stdout.getvalue())
    cap = bounds["max_output"]
    finished = Finished(0, data[:cap], stderr.getvalue().encode("utf-8", "replace"), max(len(data) - cap, 0))
    spec = tool.implementation.spec
    return output(finished, append_stderr=spec.get("stderr", "drop") == "append", empty=spec.get("empty_result"))


def _resolve(tool: Tool, target: str, context: RunContext) -> t.Callable[..., t.Any]:
    """The function ``target`` names, its module imported with ``python_path`` searched first."""
    import importlib

    module_name, _, attribute = target.partition(":")
    added = [entry for entry in context.python_path if entry not in sys.path]
    sys.path[:0] = added
    try:
        found: t.Any = importlib.import_module(module_name)
    except ImportError as e:
        where = ", ".join(context.python_path) or "no python_path"
        raise ExecutionFailedError(
            f"cannot import {module_name!r} for {target}: {e} (looked in {where}, then the installed packages)",
            tool=tool.name,
            details={"callable": target, "reason": "import", "python_path": list(context.python_path)},
        ) from None
    finally:
        for entry in added:
            with contextlib.suppress(ValueError):
                sys.path.remove(entry)
    for part in attribute.split("."):
        try:
            found = getattr(found, part)
        except AttributeError:
            raise ExecutionFailedError(
                f"{module_name!r} has no {attribute!r} (callable: {target})",
                tool=tool.name,
                details={"callable": target, "reason": "attribute"},
            ) from None
    if not callable(found):
        raise ExecutionFailedError(
            f"{target} is not a function but {type(found).__name__}",
            tool=tool.name,
            details={"callable": target, "reason": "attribute"},
        )
    return t.cast("t.Callable[..., t.Any]", found)


@contextlib.contextmanager
def _checked_imports(tool: Tool, context: RunContext) -> t.Iterator[None]:
    """While a pinned tool runs (its pin check read its modules: ``context.checked``), a module
    found in a ``python_path`` directory of the project is imported from the bytes the check
    read, never from the file again nor from a cached ``.pyc`` (which a writer could have put
    beside an unchanged source), and one the pin does not cover is refused: what runs is what a
    person allowed. (A module found elsewhere is an installed one, as for the closure: a
    virtual environment in the project is not python_path.)"""
    if not context.checked or context.cwd is None:
        yield
        return
    root = os.path.realpath(context.cwd)
    directories = [real for entry in context.python_path if _within(real := os.path.realpath(entry), root)]
    if not directories:
        yield
        return
    finder = _CheckedFinder(tool.name, root, directories, context.checked)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(finder)


class _CheckedFinder:
    """Finds a module as the path finder does; one in a ``python_path`` directory of the project
    comes with a loader of its checked bytes (:class:`_CheckedLoader`), or is refused when the
    pin did not cover it."""

    def __init__(self, tool: str, root: str, directories: t.Sequence[str], checked: t.Mapping[str, bytes]) -> None:
        self.tool, self.root, self.directories, self.checked = tool, root, directories, checked

    def find_spec(self, fullname: str, path: t.Any = None, target: t.Any = None) -> t.Any:
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not spec.origin or not spec.has_location:
            return None
        real = os.path.realpath(spec.origin)
        if not any(_within(real, directory) for directory in self.directories):
            return None  # not the project's python_path: installed, or the standard library
        data = self.checked.get(real)
        if data is None or not real.endswith(".py"):
            raise ImportError(
                f"{os.path.relpath(real, self.root)} is not among the files the pin of {self.tool} covers"
                " (what a person allowed); a package of python_path, with its __init__.py, is covered whole"
            )
        spec.loader = _CheckedLoader(fullname, spec.origin, data)
        return spec


def _within(path: str, directory: str) -> bool:
    return os.path.commonpath([path, directory]) == directory


class _CheckedLoader(importlib.machinery.SourceFileLoader):
    """A source loader that reads nothing: the checked bytes are the source, and there is no
    bytecode to read or write."""

    def __init__(self, fullname: str, path: str, data: bytes) -> None:
        super().__init__(fullname, path)
        self.data = data

    def get_data(self, path: str) -> bytes:
        if path != self.path:
            raise OSError(f"only the checked source of {self.path} is read")
        return self.data

    def path_stats(self, path: str) -> t.Mapping[str, t.Any]:
        raise OSError("no bytecode for a checked source")


def _failure(tool: Tool, target: str, error: BaseException, context: RunContext) -> ExecutionFailedError:
    """EXECUTION_FAILED for an exception the function raised (or SystemExit), its message scrubbed
    of the environment's values; the traceback only when debugging."""
    from cogtools.environment import scrub

    def clean(text: str) -> str:
        return scrub(text, context.environment.values(), secrets=context.secret_values())

    if isinstance(error, SystemExit):
        message = f"{target} called sys.exit({error.code!r})"
    else:
        message = f"{target} raised {type(error).__name__}" + (f": {error}" if str(error) else "")
    details: dict[str, t.Any] = {"callable": target, "exception": type(error).__name__}
    if context.environ.get("COGTOOLS_DEBUG"):
        import traceback

        details["traceback"] = clean("".join(traceback.format_exception(error)))
    return ExecutionFailedError(clean(message), tool=tool.name, details=details)


def _result_bytes(tool: Tool, target: str, value: t.Any, printed: str) -> bytes:
    if value is None:
        return printed.encode("utf-8", "replace")
    if isinstance(value, str):
        return value.encode("utf-8", "replace")
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    import json

    try:
        return (json.dumps(value, ensure_ascii=False, indent=2, allow_nan=False) + "\n").encode("utf-8", "replace")
    except (TypeError, ValueError, RecursionError) as e:
        raise ExecutionFailedError(
            f"{target} returned {type(value).__name__}, which is not JSON ({e}); return a str, or data JSON can hold",
            tool=tool.name,
            details={"callable": target, "reason": "result", "returned_type": type(value).__name__},
        ) from None


#: The buffers of the call running in this context (thread), if any: what a function prints
#: lands there, never on cogtools' own output (a server's protocol stream among them).
_CAPTURE: contextvars.ContextVar[tuple[io.StringIO, io.StringIO] | None] = contextvars.ContextVar(
    "cogtools_capture", default=None
)


class _Router:
    """Stands for sys.stdout (or sys.stderr): writes go to the running call's buffer, else to the
    stream it replaced, which answers everything else (``buffer``, ``isatty``, ``fileno``...)."""

    def __init__(self, fallback: t.TextIO, index: int) -> None:
        self._fallback = fallback
        self._index = index

    def write(self, text: str) -> int:
        buffers = _CAPTURE.get()
        if buffers is not None:
            return buffers[self._index].write(text)
        return self._fallback.write(text)

    def flush(self) -> None:
        if _CAPTURE.get() is None:
            self._fallback.flush()

    def __getattr__(self, name: str) -> t.Any:
        return getattr(self._fallback, name)


#: How many calls are capturing, and the streams the routers stand for while any is.
_ROUTING = {"calls": 0}
_SAVED: dict[str, t.Any] = {}
_ROUTING_LOCK = threading.Lock()


@contextlib.contextmanager
def _captured() -> t.Iterator[tuple[io.StringIO, io.StringIO]]:
    """Route sys.stdout and sys.stderr to buffers of this call while it runs; the streams are
    put back when the last call running (in any thread) ends."""
    with _ROUTING_LOCK:
        if _ROUTING["calls"] == 0:
            for index, name in enumerate(("stdout", "stderr")):
                stream = getattr(sys, name)
                if stream is not None:
                    _SAVED[name] = stream
                    setattr(sys, name, _Router(stream, index))
        _ROUTING["calls"] += 1
    buffers = (io.StringIO(), io.StringIO())
    token = _CAPTURE.set(buffers)
    try:
        yield buffers
    finally:
        _CAPTURE.reset(token)
        with _ROUTING_LOCK:
            _ROUTING["calls"] -= 1
            if _ROUTING["calls"] == 0:
                for name, stream in _SAVED.items():
                    if isinstance(getattr(sys, name), _Router):
                        setattr(sys, name, stream)
                _SAVED.clear()


def advise(tool: Tool, python_path: t.Sequence[str]) -> list[Advice]:
    """The function's module, looked for without importing it (only its top-level package is
    looked for: finding a submodule would run the package's code)."""
    import importlib.machinery

    target = tool.implementation.spec["callable"]
    top = target.partition(":")[0].split(".")[0]
    if (
        top in sys.builtin_module_names
        or importlib.machinery.PathFinder.find_spec(top, [*python_path, *sys.path]) is not None
    ):
        return []
    where = ", ".join(python_path) or "no python_path"
    return [
        (
            "callable-missing",
            f"the module {top!r} of {target} is neither on python_path ({where}) nor installed here: every call fails with EXECUTION_FAILED",
            "set python_path in .cogtoolrc.yaml to the directory that holds it, or install its package",
            ("implementation", "callable"),
        )
    ]


#: At most this many files of a project's Python package are covered by a pin (past it, the pin
#: covers the first ones, by name, and says so by the count it records).
MAX_CLOSURE_FILES = 2000


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
    """What a call imports of the workspace: the module the callable names, when ``python_path``
    finds it (the whole package, every ``.py`` file under it, when it is one), and the modules
    and packages (whole) at the top of each ``python_path`` directory, which it may import in
    turn; and the setting that chooses them, ``python_path``. An installed module is not the
    workspace's. (A pinned call imports a module of the project only from what its pin
    check read, and refuses one the pin does not cover.)"""
    top = tool.implementation.spec["callable"].partition(":")[0].split(".")[0]
    found: list[Path] = []
    spec = importlib.machinery.PathFinder.find_spec(top, list(python_path)) if python_path else None
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            found += sorted(Path(location).rglob("*.py"))[:MAX_CLOSURE_FILES]
    elif spec is not None and spec.origin:
        found.append(Path(spec.origin))
    for directory in python_path:
        found += sorted(Path(directory).glob("*.py"))[:MAX_CLOSURE_FILES]
        for package in sorted(Path(directory).glob("*/__init__.py")):  # and each package, whole
            found += sorted(package.parent.rglob("*.py"))[:MAX_CLOSURE_FILES]
    return sorted(set(found))[: MAX_CLOSURE_FILES * 2], {
        "python_path": [
            str(Path(entry).relative_to(root)) if Path(entry).is_relative_to(root) else entry for entry in python_path
        ]
    }


# A python tool has no templates.
exposure = no_exposure
