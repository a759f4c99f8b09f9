"""The child process in which a ``python`` tool's function runs (:mod:`cogtools.run.python`).

This file is not imported by the child: its source is given to the interpreter whole
(``python -I -c SOURCE``), so the child needs nothing of cogtools' installation, and imports
nothing but the standard library and the tool's own module. It reads one request, a JSON object
on stdin::

    {"callable": "MODULE:ATTRIBUTE", "kwargs": {...}, "python_path": [...],
     "checked": {"/real/path.py": "base64 of the checked bytes", ...}, "root": "/project",
     "tool": "name", "max_output": 1048576, "debug": false}

and writes one answer, a JSON object on the descriptor that was its stdout (what the function
writes to descriptor 1 goes to stderr instead, and ``print`` to a buffer)::

    {"ok": true, "text": "...", "dropped": 0, "stderr": "..."}
    {"ok": false, "reason": "exception|exit|import|attribute|result",
     "message": "...", "exception": "TypeName", "traceback": "..."}

then leaves at once (``os._exit``), whatever threads the function left running. Any exception
(``BaseException`` included, and one whose ``str`` raises) is an answer; a child that dies
without one (a crash, ``os._exit``) is told apart by the parent.
"""

from __future__ import annotations

import base64
import importlib
import importlib.machinery
import io
import json
import os
import sys
import typing as t


def main() -> None:
    answer = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # a write to descriptor 1 is the function's stderr, never the answer
    request = json.loads(sys.stdin.buffer.read())
    sys.stdin = open(os.devnull)
    printed, errors = io.StringIO(), io.StringIO()
    sys.stdout, sys.stderr = printed, errors
    try:
        reply = call(request, printed)
    except BaseException as e:  # noqa: B036 - whatever the function raised is an answer
        reply = failure(request, e)
    reply["stderr"] = said(errors.getvalue)[: request["max_output"]]  # the answer must fit its cap
    answer.write(json.dumps(reply))
    answer.flush()
    os._exit(0)


def call(request: dict[str, t.Any], printed: io.StringIO) -> dict[str, t.Any]:
    target = request["callable"]
    module_name, _, attribute = target.partition(":")
    sys.path[:0] = request["python_path"]
    checked = {path: base64.b64decode(data) for path, data in request["checked"].items()}
    if checked:
        sys.meta_path.insert(0, CheckedFinder(request["tool"], request["root"], checked))
    try:
        found = importlib.import_module(module_name)
    except ImportError as e:
        why = said(e.__str__)
        where = ", ".join(request["python_path"]) or "no python_path"
        message = f"cannot import {module_name!r} for {target}: {why}"
        return {
            "ok": False,
            "reason": "import",
            "message": f"{message} (looked in {where}, then the installed packages)",
        }
    for part in attribute.split("."):
        try:
            found = getattr(found, part)
        except AttributeError:
            return {
                "ok": False,
                "reason": "attribute",
                "message": f"{module_name!r} has no {attribute!r} (callable: {target})",
            }
    if not callable(found):
        return {
            "ok": False,
            "reason": "attribute",
            "message": f"{target} is not a function but {type(found).__name__}",
        }
    value = found(**request["kwargs"])
    data = result(value, printed.getvalue())
    if data is None:
        message = f"{target} returned {type(value).__name__}, which is not JSON; return a str, or data JSON can hold"
        return {"ok": False, "reason": "result", "message": message, "returned_type": type(value).__name__}
    cap = request["max_output"]
    return {"ok": True, "text": data[:cap].decode("utf-8", "replace"), "dropped": max(len(data) - cap, 0)}


def result(value: t.Any, printed: str) -> bytes | None:
    """The bytes of the result: a str as it is, bytes, what was printed for None, else JSON (None
    when it cannot be)."""
    if value is None:
        return printed.encode("utf-8", "replace")
    if isinstance(value, str):
        return value.encode("utf-8", "replace")
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    try:
        return (json.dumps(value, ensure_ascii=False, indent=2, allow_nan=False) + "\n").encode("utf-8", "replace")
    except (TypeError, ValueError, RecursionError):
        return None


def failure(request: dict[str, t.Any], error: BaseException) -> dict[str, t.Any]:
    """The answer for what the function raised, said without trusting the exception."""
    target = request["callable"]
    kind = said(lambda: type(error).__name__)
    if isinstance(error, SystemExit):
        reason, message = "exit", f"{target} called sys.exit({said(lambda: repr(error.code))})"
    else:
        text = said(lambda: str(error))
        reason, message = "exception", f"{target} raised {kind}" + (f": {text}" if text else "")
    reply = {"ok": False, "reason": reason, "message": message, "exception": kind}
    if request.get("debug"):
        import traceback

        reply["traceback"] = said(lambda: "".join(traceback.format_exception(error)))
    return reply


def said(how: t.Callable[[], t.Any]) -> str:
    """What ``how()`` says, or a note when saying it raises (an exception whose ``str`` raises)."""
    try:
        text = how()
        return text if isinstance(text, str) else "(not text)"
    except BaseException:  # noqa: B036
        return "(it cannot be shown)"


class CheckedFinder:
    """Finds a module as the path finder does; one of the project (where it is found, or where
    its links lead, lies in the project root; the interpreter's own installed packages aside)
    comes from the bytes the pin check read (never the file again, nor a ``.pyc`` a writer put
    beside an unchanged source), and one the pin did not cover is refused: a module reached
    through an editable install, or a link flipped since the check, is no way around the pin."""

    def __init__(self, tool: str, root: str, checked: dict[str, bytes]) -> None:
        self.tool, self.root, self.checked = tool, os.path.realpath(root), checked
        self.installed = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}

    def find_spec(self, fullname: str, path: t.Any = None, target: t.Any = None) -> t.Any:
        spec = None
        for finder in sys.meta_path:  # as the import system would (an editable install adds one)
            find = getattr(finder, "find_spec", None)
            if finder is not self and find is not None:
                spec = find(fullname, path, target)
                if spec is not None:
                    break
        if spec is None or not spec.origin or not spec.has_location:
            return spec  # none, or built in, frozen, a namespace: what its modules are is asked again
        found, real = os.path.abspath(spec.origin), os.path.realpath(spec.origin)
        if not any(self.project(where) for where in (found, real)):
            return None  # installed, or the standard library
        data = self.checked.get(real)
        if data is None or not real.endswith(".py"):
            raise ImportError(
                f"{os.path.relpath(found, self.root)} is not among the files the pin of {self.tool} covers"
                " (what a person allowed): a module of the project is imported from python_path, where a"
                " package, with its __init__.py, is covered whole"
            )
        spec.loader = CheckedLoader(fullname, spec.origin, data)
        return spec

    def project(self, path: str) -> bool:
        return within(path, self.root) and not any(within(path, prefix) for prefix in self.installed)


def within(path: str, directory: str) -> bool:
    return os.path.commonpath([path, directory]) == directory


class CheckedLoader(importlib.machinery.SourceFileLoader):
    """A source loader that reads nothing: the checked bytes are the source, with no bytecode."""

    def __init__(self, fullname: str, path: str, data: bytes) -> None:
        super().__init__(fullname, path)
        self.data = data

    def get_data(self, path: str) -> bytes:
        if path != self.path:
            raise OSError(f"only the checked source of {self.path} is read")
        return self.data

    def path_stats(self, path: str) -> t.Mapping[str, t.Any]:
        raise OSError("no bytecode for a checked source")


if __name__ == "__main__":
    main()
