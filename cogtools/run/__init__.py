"""Implementation kinds: how a tool runs once its arguments are valid.

Each kind is a module (a plugin: :data:`KINDS` names it), imported only when a tool of that kind
is loaded or run, that satisfies :class:`Runner` (:func:`runner` imports it by name, which mypy
cannot follow: so each kind module ends by assigning itself to a ``Runner`` under ``if
t.TYPE_CHECKING``, and a kind that lacks a member, or has one of another signature, fails the
type check):

- ``TAKES_NUL``: whether a string argument may hold NUL (a program's argv cannot);
- ``RUNS_PROGRAMS``: whether it runs programs, which run confined to the tool's declared side
  effects (:mod:`cogtools.run.confine`);
- ``templates(spec)``: which of its settings are templates, each with its key under
  ``implementation`` (what lint reads them from);
- ``exposure(spec, key)``: where a secret that the template at ``key`` reads is seen by others
  (a program's arguments, a URL), for lint; None where it is not;
- ``advise(tool, python_path)``: lint's findings that only the kind can make (a program or a
  module that is not there, an argument a program could read as an option);
- ``closure(tool, root, python_path)``: the code of the workspace a run executes or loads
  besides the definition (:class:`~cogtools.run.program_files.Code`: a script a command names
  and what it sources or imports, a project's Python module, a Makefile), with what cannot be
  told of it, and the settings that choose it (``python_path``), which the pin of a tool
  allowed to run without confirmation covers;
- ``check(tool)``: at load time, raise :class:`~cogtools.core.errors.DefinitionInvalidError` for an
  implementation that can never run (a template syntax error, a missing key); what it returns,
  when not None, is kept as the implementation's ``plan`` (JSON), for a faster call;
- ``run(tool, arguments, context)``: produce the result text, or raise a domain error
  (``RENDER_FAILED``, ``EXECUTION_FAILED``, ``TIMEOUT``). ``context.environment`` holds the
  variables the tool declares, and nothing else; their values must not appear in an error
  message (the call path masks the secrets' values in results and errors besides);
- ``preview(tool, arguments, context)``: what ``run`` would do, as JSON-compatible data, without
  doing it (``cogtools-call --dry-run``): the rendered argv or request, the names of the
  environment, the working directory, the limits.

A kind knows only the shared parts of ``run/``, never another kind's internals: ``keys`` (the
check of a kind's settings), ``templates`` (the limited Jinja2 environment, checking and
rendering a template text), ``program`` (the settings, limits and result of a program),
``process`` (running one in its own process group), ``reports`` (the channel it reports its
progress on), ``reaper`` (the sweep of the orphans it leaves), ``bind`` (a program shown the
checked bytes of the files it runs), ``confine`` (a program held to the tool's side effects), ``deadline`` and
``sandbox``.
"""

from __future__ import annotations

import importlib
import os
import typing as t
from pathlib import Path

if t.TYPE_CHECKING:
    from cogtools.core.model import Tool
    from cogtools.load.loading import Loaded
    from cogtools.load.project import Project
    from cogtools.run.confine import Confinement

    #: The call path for a tool by name: its result (``cogtools_call`` goes through it).
    Caller = t.Callable[[str, t.Mapping[str, t.Any]], str]
    #: What lint reports of a tool: rule, message, hint, and the key it is about (from the
    #: definition's root).
    Advice = tuple[str, str, str, tuple[str | int, ...]]
    #: Where a secret that a template reads is seen: rule, the rest of the sentence that begins
    #: "the secret NAME", hint.
    Exposure = tuple[str, str, str]
    #: The code a run executes or loads besides the definition (files absolute; the caller keeps
    #: those in the project) and the settings that choose it, which a pin covers.
    Closure = tuple["Code", dict[str, t.Any]]


class Outline(t.NamedTuple):
    """What a run of a tool does, for a person deciding whether to allow it."""

    #: What it runs, in a line: ``command: git log ...``, ``python: statistics:mean``.
    runs: str
    #: The side effects that plainly follow from what it runs (effect -> the reason, a phrase
    #: such as "it runs shell code (sh -c)"); a run may have others that cannot be told. A kind
    #: that runs no program (``RUNS_PROGRAMS`` false), which nothing confines, says them all:
    #: what cogtools claims of its tools (:func:`cogtools.trust.policy.reach`) rests on it.
    implies: t.Mapping[str, str] = {}
    #: What a run may change beyond the machine whatever the tool declares, in words ("" when
    #: nothing): a request that carries a body. Said, like ``implies``, by a kind that runs no
    #: program.
    changes: str = ""


#: The limits of a program a tool runs, unless the configuration's ``limits`` or the tool's own
#: implementation settings say otherwise.
DEFAULT_LIMITS: dict[str, t.Any] = {"timeout": 30.0, "max_output_bytes": 1024 * 1024}


class RunContext(t.NamedTuple):
    """What a call brings besides its arguments."""

    #: The values of the variables the tool declares (None: set nowhere).
    environment: t.Mapping[str, str | None] = {}
    #: Where programs run unless the tool says otherwise: the project root.
    cwd: Path | None = None
    #: ``timeout`` (seconds) and ``max_output_bytes``, from the configuration.
    limits: t.Mapping[str, t.Any] = DEFAULT_LIMITS
    #: Which won for the environment: "project" (.env) or "system".
    env_priority: str = "project"
    #: The environment of the caller, from which a program gets PATH, HOME, the locale...
    environ: t.Mapping[str, str] = {}
    #: The names of the declared variables that are secret (their values are in ``environment``).
    secrets: tuple[str, ...] = ()
    #: Directories searched first for a ``python`` tool's module (the configuration's
    #: ``python_path``, absolute).
    python_path: tuple[str, ...] = ()
    #: For a built-in tool: what the load found (its catalog, or why there is none).
    loaded: Loaded | None = None
    #: For a built-in tool: the call path for a tool by name.
    call: Caller | None = None
    #: The bytes of the workspace's files that a pin check read (real path -> bytes): a kind
    #: runs a script or module from these, not from a second read of the file, which a writer
    #: could have changed since.
    checked: t.Mapping[str, bytes] = {}
    #: What the tool's programs may do (None: it declares no side effects, or runs no program).
    confinement: Confinement | None = None

    def secret_values(self) -> list[str]:
        """The values of the secrets: what no output may show."""
        return [value for name in self.secrets if (value := self.environment.get(name))]


def context_for(
    tool: Tool, project: Project, *, system_env: bool = False, checked: t.Mapping[str, bytes] = {}
) -> RunContext:
    """The context of a call of ``tool`` in ``project``: the values of the variables it declares
    (the project's .env first, unless ``system_env`` or ``env_priority: system``), the project
    root, and the configured limits. ``checked``: the bytes a pin check read (real path ->
    bytes), used for the .env and value files instead of reading them again, and kept for the
    run (:attr:`RunContext.checked`)."""
    limits = {**DEFAULT_LIMITS, **project.config.value("limits")}
    priority = "system" if system_env else project.config.value("env_priority")
    environment: t.Mapping[str, str | None] = {}
    if tool.environment:
        from cogtools.core.environment import tool_environment

        environment = tool_environment(
            tool.environment,
            project.root,
            priority=priority,
            environ=project.environ,
            variables=tool.variables,
            checked=checked,
        )
    confinement = None
    if runner(tool.implementation.kind).RUNS_PROGRAMS:
        from cogtools.run.confine import confinement as confinement_of

        confinement = confinement_of(tool, project)
    return RunContext(
        environment,
        project.root,
        limits,
        priority,
        project.environ,
        tool.secrets(),
        python_path(project),
        checked=checked,
        confinement=confinement,
    )


def python_path(project: Project) -> tuple[str, ...]:
    """The project's ``python_path``, each directory absolute."""
    return tuple(str(project.root / entry) for entry in project.config.value("python_path"))


class Code(t.NamedTuple):
    """The code of the workspace a program runs or loads (:mod:`cogtools.run.program_files`): the files (each one a pin covers), and
    why what it may load cannot be told, each as (why, the project path whose declaration would
    close it, or None where any ``code:`` declaration does)."""

    files: tuple[Path, ...] = ()
    open: tuple[tuple[str, str | None], ...] = ()
    #: How each package.json of ``files`` that node or a package manager reads is read, each
    #: pinned by what is read of it: ``"load"`` (node: the fields that choose the code),
    #: ``"run:NAME"`` (``npm run NAME``: those, its scripts NAME, preNAME and postNAME, and the
    #: fields that choose the manager and node or set the script's environment), ``"config:KEY"``
    #: (a JavaScript tool's own key, ``prettier``: its configuration), or ``"bytes"``
    #: (all of it); one read several ways, by all they read. And ``"env"``: an environment file
    #: a program may load of itself (``.env``), not one of ``files``, whose variables the programs
    #: it starts take: pinned by the names it sets, whole where one may choose code
    #: (:meth:`cogtools.trust.pins._Cover.environment`).
    manifests: tuple[tuple[Path, str], ...] = ()
    #: Where a tool looks for its configuration in many directories (a per-file tool, in each
    #: directory under what it reads): each look as a key that names it (the tool and where it
    #: starts) and the files it finds there now, by the directories' listings. A pin records what
    #: each finds, not each place where nothing is: one written later, or a directory added
    #: with one, is a change; a directory added without one is not.
    looks: tuple[tuple[str, tuple[Path, ...]], ...] = ()

    def plus(self, *others: Code) -> Code:
        files, open_ = list(self.files), list(self.open)
        manifests, looks = list(self.manifests), list(self.looks)
        for other in others:
            files += other.files
            open_ += other.open
            manifests += other.manifests
            looks += other.looks
        return Code(
            tuple(dict.fromkeys(files)),
            tuple(dict.fromkeys(open_)),
            tuple(dict.fromkeys(manifests)),
            tuple(dict.fromkeys(looks)),
        )


class Runner(t.Protocol):
    #: Whether a string argument may hold NUL (a program's argv and environment cannot).
    TAKES_NUL: bool
    #: Whether it runs programs (confined to the tool's declared side effects).
    RUNS_PROGRAMS: bool

    def check(self, tool: Tool) -> t.Any: ...

    def templates(self, spec: t.Mapping[str, t.Any]) -> t.Iterable[tuple[str, tuple[str | int, ...]]]: ...

    def exposure(self, spec: t.Mapping[str, t.Any], key: tuple[str | int, ...]) -> Exposure | None: ...

    def advise(self, tool: Tool, python_path: t.Sequence[str]) -> t.Iterable[Advice]: ...

    def closure(self, tool: Tool, root: Path, python_path: t.Sequence[str]) -> Closure: ...

    def outline(self, tool: Tool) -> Outline: ...

    def run(self, tool: Tool, arguments: t.Mapping[str, t.Any], context: RunContext) -> str: ...

    def preview(self, tool: Tool, arguments: t.Mapping[str, t.Any], context: RunContext) -> dict[str, t.Any]: ...


def no_exposure(spec: t.Mapping[str, t.Any], key: tuple[str | int, ...]) -> Exposure | None:
    """``exposure`` of a kind whose templates show nothing to others (a result is masked)."""
    return None


def no_advice(tool: Tool, python_path: t.Sequence[str]) -> list[Advice]:
    """``advise`` of a kind with no lint rules of its own."""
    return []


def read_closure(kind: Runner, tool: Tool, root: Path, python_path: t.Sequence[str]) -> Closure:
    """``kind.closure``; where the workspace cannot be read as cogtools reads it (a directory
    deeper than the system's bound on a path's length, which the agent can make), what it runs
    is open, and no declaration closes it (its ``needs`` is outside the project)."""
    try:
        return kind.closure(tool, root, python_path)
    except OSError as error:
        why = f"cogtools cannot read what it runs ({error.strerror or type(error).__name__}), which no pin covers"
        return Code(open=((why, os.path.join(os.pardir, "(unreadable)")),)), {}


def no_closure(tool: Tool, root: Path, python_path: t.Sequence[str]) -> Closure:
    """``closure`` of a kind that runs nothing of the workspace but its definition."""
    return Code(), {}


#: kind name -> module implementing :class:`Runner`.
KINDS: dict[str, str] = {
    "template": "cogtools.run.template",
    "command": "cogtools.run.command",
    "script": "cogtools.run.script",
    "http": "cogtools.run.http",
    "python": "cogtools.run.python",
    "builtin": "cogtools.services.builtin",
}


def runner(name: str) -> Runner:
    """The runner of implementation kind ``name``; LookupError names the kinds there are."""
    module = KINDS.get(name)
    if module is None:
        known = ", ".join(sorted(KINDS))
        raise LookupError(f"unknown implementation kind {name!r} (known: {known})")
    # (each kind module is held to Runner by mypy at its own end)
    return t.cast(Runner, importlib.import_module(module))
