"""The ``script`` implementation kind: the script that carries the tool's header runs itself.

It runs with the interpreter of its shebang, or by its suffix (``.ps1`` with ``pwsh
-NoProfile -NonInteractive -File``, ``.sh`` with ``sh``, ``.py`` with ``python3``, ``.js``,
``.mjs`` and ``.cjs`` with ``node``, ``.ts``, ``.mts`` and ``.cts`` with ``node`` stripping the
types, or the project's ``tsx`` where that node is older than 22.6: :mod:`cogtools.run.interpreters`), in the project
root, with the same limits and settings as a command (``timeout``, ``max_output_bytes``, ``stderr``,
``success_exit_status``, ``empty_result`` may be set in the header's ``implementation``). The arguments reach it three ways:

- the whole JSON object on stdin, always;
- for PowerShell, as named parameters: ``-ProgramName chrome`` (booleans as ``-Name:$true``,
  other non-strings as JSON text), so that a ``param(...)`` block binds them;
- for every other script, as environment variables ``COGTOOLS_ARG_<NAME>`` (the name upper-cased,
  anything but letters, digits and ``_`` turned into ``_``): strings as they are, anything else
  as JSON text. Nothing is put on its command line, so no value can be read as an option.
"""

from __future__ import annotations

import json
import os
import re
import typing as t
from pathlib import Path

from cogtools.core.errors import DefinitionInvalidError, ExecutionFailedError
from cogtools.core.fsutil import call_path
from cogtools.run import Code, Outline, no_exposure
from cogtools.run.interpreters import (
    INTERPRETERS,
    NEEDS,
    TYPESCRIPT,
    Unsupported,
    packages,
    runnable,
    typescript,
)
from cogtools.run.keys import TypeSpec, check_keys
from cogtools.run.process import child_environment
from cogtools.run.program import (
    PROGRAM_SETTINGS,
    Planned,
    check_program_settings,
    checked_files,
    describe,
    result,
)

if t.TYPE_CHECKING:
    from cogtools.core.model import Tool
    from cogtools.run import Advice, Closure, RunContext

SETTINGS: dict[str, TypeSpec] = {**PROGRAM_SETTINGS, "interpreter": (list, type(None))}


#: Whether a string argument may hold NUL: no, its arguments become a program's environment and argv, which cannot.
TAKES_NUL = False
#: Whether it runs programs, which the tool's side effects confine (:mod:`cogtools.run.confine`).
RUNS_PROGRAMS = True


def templates(spec: t.Mapping[str, t.Any]) -> list[tuple[str, tuple[str | int, ...]]]:
    """None of this kind's settings is a template."""
    return []


def check(tool: Tool) -> None:
    check_keys(tool, {"path": str}, SETTINGS)
    check_program_settings(tool)
    if not tool.implementation.spec.get("interpreter"):
        raise DefinitionInvalidError(
            "cannot tell how to run this script: give it a shebang line (#!...) or a known suffix"
            f" ({', '.join(INTERPRETERS)})",
            tool=tool.name,
            path=tool.origin.path,
        )


def _text(value: t.Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def powershell_arguments(arguments: t.Mapping[str, t.Any]) -> list[str]:
    out: list[str] = []
    for name, value in arguments.items():
        if value is None:
            continue
        if isinstance(value, bool):
            out.append(f"-{name}:${'true' if value else 'false'}")
        else:
            out += [f"-{name}", _text(value)]
    return out


def environment_name(name: str) -> str:
    return "COGTOOLS_ARG_" + re.sub(r"[^A-Za-z0-9_]", "_", name).upper()


def plan(tool: Tool, arguments: t.Mapping[str, t.Any], context: RunContext) -> Planned:
    spec = tool.implementation.spec
    is_powershell = spec["path"].lower().endswith(".ps1")
    env = child_environment(context.environment, context.environ)
    if not is_powershell:
        env.update({environment_name(name): _text(value) for name, value in arguments.items() if value is not None})
    stdin = json.dumps(dict(arguments), ensure_ascii=False).encode("utf-8")
    cwd = str(context.cwd or os.getcwd())
    env["PATH"] = call_path(env.get("PATH"), Path(cwd))  # the project's node_modules/.bin, last
    try:  # TypeScript: node stripping the types, or the project's tsx, or what it needs
        interpreter = runnable(spec["interpreter"], Path(cwd) / spec["path"], Path(cwd), env["PATH"])
    except ExecutionFailedError as e:
        raise e.with_tool(tool.name) from None
    argv = [*interpreter, spec["path"], *(powershell_arguments(arguments) if is_powershell else [])]
    from cogtools.run.program_files import declared_code  # (lazily: a server starts without it)

    files = [*_code(tool, Path(cwd), interpreter).plus(declared_code(tool.metadata.code, Path(cwd))).files]
    if interpreter != spec["interpreter"] and interpreter[1:2] and interpreter[1].startswith("--import="):
        files += packages(Path(interpreter[1].partition("=")[2]))  # tsx and what it needs: what runs the script
    return Planned(argv, stdin, cwd, env, checked_files(context.checked), tuple(map(str, files)))


def run(tool: Tool, arguments: t.Mapping[str, t.Any], context: RunContext) -> str:
    planned = plan(tool, arguments, context)
    try:
        return result(tool, os.path.basename(tool.implementation.spec["path"]), planned.run(tool, context), context)
    except ExecutionFailedError as e:
        raise hidden_package(e, tool, Path(planned.cwd)) from None


#: What node says of a package it cannot find (ESM, then CommonJS).
_NOT_FOUND = re.compile(r"Cannot find (?:package|module) '((?:@[^/'\s]+/)?[^./'\s][^/'\s]*)[^']*'")


def hidden_package(error: ExecutionFailedError, tool: Tool, root: Path) -> ExecutionFailedError:
    """``error``, saying why node found no package the tool imports when the package is in the
    project's ``node_modules`` but the tool's ``side_effects`` confine it from reading the
    project (nothing shows it node_modules but its ``code``), and the declaration that shows
    it: ``code: [node_modules/PACKAGE/]`` (read-only, pinned with the tool)."""
    effects = tool.metadata.side_effects
    tail = str(error.details.get("stderr_tail", ""))
    found = _NOT_FOUND.search(tail)
    if effects is None or {"filesystem_read", "filesystem_write"} & set(effects) or found is None:
        return error
    package = found.group(1)
    if not (root / "node_modules" / package).is_dir():
        return error
    declaration = f"code: [node_modules/{package}/]"
    hint = (
        f"{package} is in node_modules, which side_effects: [{', '.join(effects)}] keeps the tool from reading:"
        f" declare it as the tool's code ({declaration}; read-only, and pinned with the tool), or declare"
        " filesystem_read"
    )
    return error.replace(message=f"{error.message} ({hint})", details={**error.details, "hint": hint})


def preview(tool: Tool, arguments: t.Mapping[str, t.Any], context: RunContext) -> dict[str, t.Any]:
    return describe(tool, plan(tool, arguments, context), context)


def closure(tool: Tool, root: Path, python_path: t.Sequence[str]) -> Closure:
    """The script (the definition, shown to its program from the pin's bytes like the rest), an
    interpreter of the project's (``interpreter: [.venv/bin/python]``) with what it loads, and
    what the script loads in turn (:func:`~cogtools.run.program_files.script_code`); for
    TypeScript, what runs it here (the project's tsx, when node cannot)."""
    spec = tool.implementation.spec
    found = _typescript_here(spec, root)
    return _code(tool, root, found if isinstance(found, list) else None), {}


def _typescript_here(spec: t.Mapping[str, t.Any], root: Path) -> list[str] | Unsupported | None:
    """What runs a TypeScript script of the project at ``root`` as a call there would
    (:func:`~cogtools.run.interpreters.typescript`), or why nothing can; None for another script."""
    if spec.get("interpreter") != TYPESCRIPT:
        return None
    return typescript(root / spec["path"], root, call_path(os.environ.get("PATH"), root))


def _code(tool: Tool, root: Path, interpreter: t.Sequence[str] | None = None) -> Code:
    """The script's code, run by ``interpreter`` (the one it names, unless a call found another),
    read where the tool was found (an npm toolset's through the project's ``node_modules``, not
    the real path its link leads to in pnpm's store: so its pin covers what the link leads to)."""
    spec = tool.implementation.spec
    interpreter = interpreter if interpreter is not None else spec.get("interpreter") or []
    script = root / spec["path"]
    found = root / tool.origin.path
    if found != script and os.path.realpath(found) == os.path.realpath(script):
        script = Path(os.path.normpath(found))
    # (what it runs may load the project's .env of itself: its programs take its NODE_OPTIONS)
    from cogtools.run.program_files import (
        JAVASCRIPT,
        TS_SUFFIXES,
        command_code,
        environment_files,
        script_code,
        through_tsx,
        tsx_code,
    )

    code = Code((script,)).plus(command_code(interpreter, root, root), environment_files(root, root))
    tsx = interpreter and through_tsx(os.path.basename(interpreter[0]), interpreter)
    if script.suffix in TS_SUFFIXES or tsx and script.suffix in JAVASCRIPT:
        return code.plus(tsx_code(script, root, root))  # (its tsconfig.json, and imports found as tsx finds them)
    return code.plus(script_code(script, interpreter, root, root))


def outline(tool: Tool) -> Outline:
    """A script is code of its own: what it does cannot be told from how it is started."""
    import shlex

    spec = tool.implementation.spec
    interpreter = spec.get("interpreter") or []
    here = _typescript_here(spec, Path.cwd())  # (what a call here runs it with: tsx where node cannot)
    if isinstance(here, list):  # (tsx's loader by its path in the project, as the person knows it)
        interpreter = [_relative_flag(word, Path.cwd()) for word in here]
    return Outline(f"script: {shlex.join([*interpreter, spec['path']])}")


def _relative_flag(word: str, root: Path) -> str:
    """``--import=PATH`` with ``PATH`` relative to ``root``, through the ``node_modules/tsx``
    where node finds it (not the path its link leads to in pnpm's store)."""
    flag, equals, path = word.partition("=")
    if not equals or not os.path.isabs(path):
        return word
    for directory in (root, *root.parents):
        link = directory / "node_modules" / "tsx"
        real = os.path.realpath(link)
        if path.startswith(real + os.sep) and os.path.isdir(link):
            path = str(link) + path[len(real) :]
            break
    return f"{flag}={os.path.relpath(path, root)}"


# Arguments reach a script in its environment and on stdin, where no other user reads them.
exposure = no_exposure


def advise(tool: Tool, python_path: t.Sequence[str]) -> list[Advice]:
    """A TypeScript tool that nothing here can run: a ``node`` on PATH older than 22.6 and no
    ``tsx`` in the project. (An interpreter that is not installed is not reported: a PowerShell
    tool is written for machines this one need not be.)"""
    from cogtools.run.program import ADVISED_ROOT

    root = ADVISED_ROOT.get()
    advice: list[Advice] = []
    problem = cannot_run(tool, root)
    if problem is not None:
        advice.append(
            (
                "typescript-unsupported",
                f"{problem}: every call fails with EXECUTION_FAILED",
                f"install {NEEDS}, or write the tool in JavaScript (.mjs)",
                ("implementation",),
            )
        )
    hidden = hidden_packages(tool, root if root is not None else Path.cwd())
    if hidden:
        effects = ", ".join(tool.metadata.side_effects or ())
        advice.append(
            (
                "package-hidden",
                f"it imports {', '.join(hidden)}, which side_effects: [{effects}] keeps it from reading: every call"
                " fails with ERR_MODULE_NOT_FOUND",
                f"declare {'them' if len(hidden) > 1 else 'it'} as the tool's code (code: [{', '.join(h + '/' for h in hidden)}];"
                " read-only, and pinned with the tool), or declare filesystem_read",
                ("side_effects",),
            )
        )
    return advice


def hidden_packages(tool: Tool, root: Path) -> list[str]:
    """The packages of node_modules (``node_modules/NAME``, relative to ``root``) that the script
    imports and its confinement hides: it declares side effects without reading the project, and
    its ``code`` does not declare them (the packages of tsx, which runs a TypeScript script where
    node cannot, are shown to it already)."""
    effects = tool.metadata.side_effects
    if effects is None or {"filesystem_read", "filesystem_write"} & set(effects):
        return []
    spec = tool.implementation.spec
    found = _typescript_here(spec, root)
    interpreter = found if isinstance(found, list) else None
    shown = (
        [str(p) for p in packages(Path(interpreter[1][len("--import=") :]))]
        if interpreter and found != TYPESCRIPT
        else []
    )
    declared = [entry.rstrip("/") for entry in tool.metadata.code]
    hidden: list[str] = []
    for _, needs in _code(tool, root, interpreter).open:
        if needs is None or "node_modules/" not in needs + "/" or needs in hidden:
            continue
        if any(needs == d or needs.startswith(d + "/") for d in declared):
            continue
        if any(str((root / needs).resolve()) == p for p in shown):
            continue
        hidden.append(needs)
    return hidden


def cannot_run(tool: Tool, root: Path | None = None) -> str | None:
    """Why nothing on this machine can run ``tool`` (a TypeScript script, a node too old and no
    tsx), or None. ``root``: the project's (the working directory, as a call runs it)."""
    found = _typescript_here(tool.implementation.spec, root if root is not None else Path.cwd())
    return found.message(needs=False) if isinstance(found, Unsupported) else None


if t.TYPE_CHECKING:  # mypy holds this kind to the Runner protocol (cogtools.run.runner)
    from cogtools.run import Runner, script

    _RUNNER: Runner = script
