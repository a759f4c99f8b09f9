"""``cogtools new NAME``: write a new tool file that lints clean and whose example passes."""

from __future__ import annotations

import json
import os
import re
import sys
import typing as t
from pathlib import Path

import click
import tomli_w

from cogtools.cli.boundary import write_text
from cogtools.cli.common import CONTEXT_SETTINGS, version_option
from cogtools.core.errors import CogtoolsError, UsageError
from cogtools.core.fsutil import LeavesRoot, write_atomic
from cogtools.core.model import name_problem
from cogtools.load.catalog import parse_definition
from cogtools.load.project import find_project, find_root
from cogtools.run import python_path
from cogtools.run.python import _CALLABLE_RE
from cogtools.run.signatures import Unreadable, read_signature, tool_parameters

TYPES = ("string", "integer", "number", "boolean")
SAMPLES: dict[str, t.Any] = {"string": "example", "integer": 1, "number": 1.5, "boolean": True}
#: The kinds ``cogtools new`` writes (``node``: a JavaScript or TypeScript script with its header).
KINDS = ("template", "command", "http", "python", "node")
#: The suffixes of a node tool, which a NAME that ends in one chooses (``--kind node`` alone: ``.mjs``).
NODE_SUFFIXES = (".mjs", ".js", ".cjs", ".ts", ".mts", ".cts")
#: The TypeScript type of each parameter type.
TS_TYPES = {"string": "string", "integer": "number", "number": "number", "boolean": "boolean"}


class Param(t.NamedTuple):
    name: str
    type: str
    description: str


def parameter_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a parameter a template names, or None."""
    if not (name.isidentifier() and name.isascii()):
        return f"{name!r} is not a parameter name (ASCII letters, digits and _, not first a digit)"
    return None


def parse_param(text: str) -> Param:
    """``NAME[:TYPE[:DESCRIPTION]]``."""
    name, _, rest = text.partition(":")
    kind, _, description = rest.partition(":")
    kind = kind or "string"
    if problem := parameter_name_problem(name):
        raise UsageError(f"--param {text!r}: {problem}")
    if kind not in TYPES:
        raise UsageError(f"--param {text!r}: the type is one of {', '.join(TYPES)}")
    return Param(name, kind, description or f"The {name.replace('_', ' ')} to use.")


@click.command("new", context_settings=CONTEXT_SETTINGS, short_help="Write a new tool file.")
@click.argument("name")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["yaml", "toml", "json"]),
    help="The file format (default: yaml; a node tool is its script, its header the definition).",
)
@click.option(
    "--kind",
    type=click.Choice(KINDS),
    help="How the tool runs: a Jinja template (the default), a program, an HTTP request, a Python function, or"
    " a JavaScript script run by node (NAME.mjs; NAME.js, NAME.cjs or NAME.ts choose the file's suffix).",
)
@click.option("--description", help="What the tool does, for the model.")
@click.option(
    "--param",
    "params",
    multiple=True,
    metavar="NAME[:TYPE[:DESCRIPTION]]",
    help="A parameter (repeat for more); TYPE is string (default), integer, number or boolean.",
)
@click.option("--program", default="echo", show_default=True, help="The program a command tool runs.")
@click.option(
    "--end-of-options",
    is_flag=True,
    help="Put '--' before a command tool's values, for a program that reads it as the end of its options"
    " (so that no value can be read as one); without it the values follow the program as they are.",
)
@click.option(
    "--url",
    help="The URL an http tool requests; a parameter its URL names ({{ id }}) goes in the path, the others in"
    " the query.",
)
@click.option(
    "--callable",
    "target",
    metavar="MODULE:FUNCTION",
    help="The function a python tool calls; its parameters and description are read from the function's"
    " signature and docstring (its source parsed, nothing imported).",
)
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where to write it (default: the project's first tool directory).",
)
@click.option("--non-interactive", is_flag=True, help="Ask nothing; use the flags and the defaults.")
@click.option("--force", is_flag=True, help="Replace an existing file.")
@version_option()
def command(
    name: str,
    fmt: str | None,
    kind: str | None,
    description: str | None,
    params: tuple[str, ...],
    program: str,
    end_of_options: bool,
    url: str | None,
    target: str | None,
    directory: Path | None,
    non_interactive: bool,
    force: bool,
) -> None:
    """Write a new tool NAME: a definition with its parameters, one example call and an
    implementation that uses every parameter, ready for `cogtools lint` and `cogtools test`.
    On a terminal, without --non-interactive, what the flags do not say is asked."""
    name, suffix, kind = _node_name(name, kind, fmt)
    fmt = fmt or "yaml"
    problem = name_problem(name)
    if problem:
        raise UsageError(f"{name!r} cannot be a tool name: {problem}")
    parsed = [parse_param(p) for p in params]
    interactive = not non_interactive and sys.stdin.isatty()
    if kind == "python":
        target = _asked_unless_given(
            target,
            interactive,
            "The function to call (MODULE:FUNCTION)",
            "--kind python needs --callable MODULE:FUNCTION",
        )
    read: dict[str, dict[str, t.Any]] | None = None  # the function's parameters, when its signature was read
    notes: list[str] = []
    if kind == "python" and target is not None:
        read, said, notes = _from_signature(target)
        description = description or said
    if interactive:
        description = description or click.prompt("What does the tool do (for the model)?")
        parsed += _asked_parameters(known=bool(parsed) or read is not None)
    if kind == "http":
        url = _asked_unless_given(url, interactive, "The URL to request (https://...)", "--kind http needs --url URL")
    description = description or f"Describe what {name} does and when to use it."
    path = (directory or _tools_directory()) / f"{name}{suffix or '.' + fmt}"
    if path.exists() and not force:
        raise UsageError(f"{path} exists (--force replaces it)")
    program_or_url = program if kind != "http" else url or ""
    text = (
        node_script(description, parsed, path.suffix, module=_is_module(path))
        if suffix is not None
        else render(definition(name, kind, description, parsed, program_or_url, target, read, end_of_options), fmt)
    )
    _check_loads(path, text)
    _write(path, text, named=directory is not None)
    write_text(f"created {path}\n")
    if read is not None:
        write_text(
            f"its parameters are {target}'s: {', '.join(read) or 'none'} (`cogtools lint` checks them against it)\n"
        )
    steps = [
        f"next: `cogtools lint {os.path.relpath(path)}` and `cogtools test {name}`, then `cogtools sync`, which"
        " lists it in GEMINI.md and, if you allow it, lets Gemini CLI run it unasked"
    ]
    steps += [f"note: {note}" for note in notes]
    steps += _kind_notes(kind, program, url, target, parsed, end_of_options)
    steps += _typescript_notes(path)
    write_text("".join(step + "\n" for step in steps))


def _node_name(name: str, kind: str | None, fmt: str | None) -> tuple[str, str | None, str]:
    """NAME's stem, the suffix of a node tool (None for a tool of another kind) and the kind: a
    NAME that ends in a script's suffix is a node tool, as ``--kind node`` is (``.mjs``); USAGE
    for another kind or a definition format given with one."""
    stem, suffix = os.path.splitext(name)
    if suffix.lower() in NODE_SUFFIXES:
        if kind not in (None, "node"):
            raise UsageError(f"{name!r} is a node tool (by its suffix), not a {kind} tool")
        name, suffix = stem, suffix.lower()
    elif kind == "node":
        suffix = ".mjs"
    else:
        return name, None, kind or "template"
    if fmt is not None:
        raise UsageError(
            f"--format is a definition file's: a node tool is its script ({name}{suffix}), whose header"
            " is the definition"
        )
    return name, suffix, "node"


def _is_module(path: Path) -> bool:
    """Whether node reads the script at ``path`` as an ES module: ``.mjs``, ``.mts``; ``.js`` and
    ``.ts`` where the nearest package.json says ``"type": "module"`` (``.ts`` also where none says
    ``commonjs``: node and tsx take its ``import`` for one)."""
    suffix = path.suffix
    if suffix in (".mjs", ".mts", ".cjs", ".cts"):
        return suffix in (".mjs", ".mts")
    for directory in path.absolute().parents:
        manifest = directory / "package.json"
        if manifest.is_file():
            try:
                declared = json.loads(manifest.read_text(encoding="utf-8")).get("type")
            except (OSError, ValueError, AttributeError):
                declared = None
            return declared == "module" or (suffix == ".ts" and declared != "commonjs")
    return suffix == ".ts"


def node_script(description: str, params: list[Param], suffix: str, *, module: bool) -> str:
    """A node tool: its header (the definition: ``side_effects: []``, so it runs confined, and one
    example call), then code that reads the arguments from stdin and prints them, each used."""
    from cogtools.core.yamlio import dump_for_people  # PyYAML: tab completion imports this module

    header: dict[str, t.Any] = {"description": description}
    if params:
        header["parameters"] = {p.name: {"type": p.type, "description": p.description} for p in params}
    header["examples"] = [{p.name: SAMPLES[p.type] for p in params}]
    header["side_effects"] = []
    lines = ["// cogtools-tool", *("// " + line for line in dump_for_people(header).splitlines())]
    lines += [
        "//",
        "// The arguments come as JSON on stdin (and as COGTOOLS_ARG_<NAME> variables); what it prints is the",
        "// result. side_effects: [] runs it confined, reading none of the project's files: to import a",
        "// package of node_modules, declare it (code: [node_modules/PACKAGE/]).",
        'import { readFileSync } from "node:fs";' if module else 'const { readFileSync } = require("node:fs");',
        "",
    ]
    if not params:
        return "\n".join([*lines, 'console.log("done");', ""])
    typed = suffix in (".ts", ".mts", ".cts")
    shape = ": { " + "; ".join(f"{p.name}: {TS_TYPES[p.type]}" for p in params) + " }" if typed else ""
    shown = " ".join(f"{p.name}=${{args.{p.name}}}" for p in params)
    lines += [f'const args{shape} = JSON.parse(readFileSync(0, "utf8"));', f"console.log(`{shown}`);", ""]
    return "\n".join(lines)


def _asked_unless_given(value: str | None, interactive: bool, question: str, needed: str) -> str:
    """``value``, else asked on a terminal, else USAGE saying ``needed``."""
    if value is None and interactive:
        value = click.prompt(question)
    if value is None:
        raise UsageError(needed)
    return value


def _asked_parameters(*, known: bool) -> list[Param]:
    """The parameters asked for on a terminal: at least one unless some are ``known`` (a
    function of no parameters needs none asked)."""
    asked: list[Param] = []
    while not known or click.confirm("Add a parameter?", default=not known):
        known = True
        asked.append(
            Param(
                click.prompt("Parameter name", value_proc=_parameter_name),
                click.prompt("Type", type=click.Choice(TYPES), default="string"),
                click.prompt("What it means"),
            )
        )
        if not click.confirm("Another parameter?", default=False):
            break
    return asked


def _write(path: Path, text: str, *, named: bool) -> None:
    """The new file written whole, or USAGE saying why not.

    The project's tool directory (which the project's configuration names) and a directory
    named inside the project hold the new file only inside the project, whatever links lead
    there; a directory a person named (``named``) elsewhere is written as named."""
    root, _ = find_root(Path.cwd().resolve(), os.environ)
    inside = not named or root in path.absolute().parents
    try:
        write_atomic(path, text, within=root if inside else None, mode=0o755 if path.suffix == ".yaml" else None)
    except LeavesRoot as e:
        raise UsageError(
            f"cannot write {path}: it is reached through a symbolic link that leads outside the project"
        ) from e
    except OSError as e:
        raise UsageError(f"cannot write {path}: {e.strerror}") from e


def _kind_notes(
    kind: str, program: str, url: str | None, target: str | None, parsed: list[Param], end_of_options: bool
) -> list[str]:
    """What a person should know of the new tool of ``kind``: the example left out, the values
    a program could read as options, the confinement of a command, the action tool."""
    notes = []
    if not _has_example(kind, program):
        what = {"command": program, "http": url, "python": target}[kind]
        notes.append(f"note: the example call was left out: write one that {what} accepts under `examples`")
    if kind == "command" and not end_of_options and any(may_be_an_option(p) for p in parsed):
        notes.append(
            f"note: a value first among {program}'s arguments could be read as an option (`cogtools lint` says which):"
            f" put '--' before them (`--end-of-options`) if {program} takes it, or a fixed prefix such as"
            " --name={{ value }}"
        )
    if kind == "node":
        notes.append(
            "note: it declares `side_effects: []`, so node runs it confined (no file of the project, no network):"
            " declare `code: [node_modules/PACKAGE/]` for a package it imports, and filesystem_read, network or"
            " process if it does more"
        )
    if kind == "command":
        notes.append(
            "note: it declares `side_effects: [filesystem_read]`, so its program runs confined to reading the"
            " project: declare filesystem_write, network or process if it does more"
        )
    notes.append(
        "note: without `risk_level: low` and side effects that only read (`side_effects: []` or"
        " `[filesystem_read]`) it is an action tool, which headless Gemini CLI (gemini -p) does not offer; an"
        " interactive session asks before it runs"
    )
    return notes


def _typescript_notes(path: Path) -> list[str]:
    """What runs the TypeScript tool at ``path`` here, when node cannot strip its types: the
    project's tsx, or nothing yet (none for any other tool)."""
    from cogtools.core.fsutil import call_path
    from cogtools.run.interpreters import TYPESCRIPT, Unsupported, typescript

    if path.suffix not in (".ts", ".mts", ".cts"):
        return []
    root, _ = find_root(Path.cwd().resolve(), os.environ)
    found = typescript(path.absolute(), root, call_path(os.environ.get("PATH"), root))
    if isinstance(found, Unsupported):
        return [f"note: {found.message()}; until then `cogtools lint` warns and every call fails saying so"]
    if found != TYPESCRIPT:
        return [
            "note: the node here cannot strip TypeScript's types, so cogtools runs it through the project's tsx,"
            " whose packages its pin covers as it covers any package a tool imports"
        ]
    return []


def _from_signature(target: str) -> tuple[dict[str, dict[str, t.Any]] | None, str | None, list[str]]:
    """The parameters (map form), description and notes that the function ``target`` gives, read
    from its source without importing it (:mod:`cogtools.run.signatures`), found through the
    project's ``python_path`` as a call finds it; none, and a note saying why, when it cannot be
    read."""
    if not _CALLABLE_RE.match(target):
        raise UsageError(f"the new tool would not load: `callable` is MODULE:FUNCTION, not {target!r}")
    try:
        searched = python_path(find_project())
    except CogtoolsError:  # a broken configuration: the installed packages only
        searched = ()
    try:
        signature = read_signature(target, searched)
    except Unreadable as e:
        return None, None, [f"its parameters could not be read from {target}: {e.message}; give them with --param"]
    parameters, notes = tool_parameters(signature)
    return parameters, signature.description, notes


def _check_loads(path: Path, text: str) -> None:
    """USAGE, saying why, when the file would not load (a URL or a callable that cannot be), so
    that nothing is written."""
    try:
        parse_definition(path, text.encode("utf-8"), display_path=str(path), source="new")
    except CogtoolsError as e:
        raise UsageError(f"the new tool would not load: {e.message}") from e


def _parameter_name(text: str) -> str:
    """For the prompt: the same rule as --param (click asks again on a BadParameter)."""
    if problem := parameter_name_problem(text.strip()):
        raise click.BadParameter(problem)
    return text.strip()


def _tools_directory() -> Path:
    project = find_project()
    for source in project.sources:
        if source.name.startswith("local:"):
            return source.directory
    return project.root / "tools"


def _has_example(kind: str, program: str) -> bool:
    """Whether the new tool gets an example call: only when it is known to pass (what another
    program, a web service or a function accepts cannot be guessed)."""
    return kind in ("template", "node") or (kind == "command" and program == "echo")


def may_be_an_option(param: Param) -> bool:
    """Whether a value of ``param`` could begin with ``-`` (a string, or a number below 0)."""
    return param.type in ("string", "integer", "number")


def definition(
    name: str,
    kind: str,
    description: str,
    params: list[Param],
    program: str,
    target: str | None = None,
    read: t.Mapping[str, dict[str, t.Any]] | None = None,
    end_of_options: bool = False,
) -> dict[str, t.Any]:
    """The new tool: ``program`` is the program of a command tool (whose values follow it as
    they are, or after ``--`` with ``end_of_options``) or the URL of an http tool (a parameter
    the URL names is in its path, the others in its query), ``target`` the callable of a python
    tool, ``read`` the parameters read from its signature (those of ``params`` given too replace
    them)."""
    parameters = {**(read or {}), **{p.name: {"type": p.type, "description": p.description} for p in params}}
    if kind == "command":
        values = [f"{{{{ {p.name} }}}}" for p in params]
        implementation: t.Any = {"kind": "command", "argv": [program, *(["--"] if end_of_options else []), *values]}
    elif kind == "http":
        implementation = {"kind": "http", "method": "GET", "url": program}
        in_path = {p.name for p in params if re.search(r"\{\{-?\s*" + re.escape(p.name) + r"\s*-?\}\}", program)}
        query = {p.name: f"{{{{ {p.name} }}}}" for p in params if p.name not in in_path}
        if query:
            implementation["query"] = query
    elif kind == "python":
        implementation = {"kind": "python", "callable": target}
    else:
        lines = [f"{name}:"] + [f"- {p.name}: {{{{ {p.name} }}}}" for p in params]
        implementation = "\n".join(lines) + "\n"
    data: dict[str, t.Any] = {
        "$schema": "schema:agladysh-research.org,2025/cogtools:tool",
        "name": name,
        "description": description,
    }
    if parameters:
        data["parameters"] = parameters
    if _has_example(kind, program):
        data["examples"] = [{p.name: SAMPLES[p.type] for p in params}]
    if kind == "command":  # its program runs confined to reading the project until it says more
        data["side_effects"] = ["filesystem_read"]
    data["implementation"] = implementation
    return data


def render(data: dict[str, t.Any], fmt: str) -> str:
    """The tool ``data`` (:func:`definition`) as a file of ``fmt``."""
    if fmt == "json":
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if fmt == "toml":
        return _toml(data)
    from cogtools.core.yamlio import dump_for_people  # PyYAML: tab completion imports this module

    return "#! /usr/bin/env cogtools-yaml\n" + dump_for_people(data)


def _toml(data: dict[str, t.Any]) -> str:
    """TOML, which has no null: an enum's null is left out (``nullable: true`` says it)."""

    def without_null(value: t.Any) -> t.Any:
        if isinstance(value, dict):
            return {
                k: [m for m in v if m is not None] if k == "enum" and isinstance(v, list) else without_null(v)
                for k, v in value.items()
                if v is not None
            }
        if isinstance(value, list):
            return [without_null(v) for v in value]
        return value

    return tomli_w.dumps(without_null(data))
