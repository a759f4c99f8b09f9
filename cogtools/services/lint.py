"""``cogtools lint``: every mistake in a tool file that a model would otherwise find first.

Each check has a stable rule id and a severity; a finding says where (file, line when known,
key path), what is wrong, and how to fix it.
"""

from __future__ import annotations

import hashlib
import json
import re
import typing as t

from cogtools.clients.export import EXPORTS, NOT_STRICT
from cogtools.core.errors import CogtoolsError, SchemaViolationError, format_key_path
from cogtools.run import runner
from cogtools.run.templates import environment
from cogtools.schema.enums import misfits, subschemas
from cogtools.schema.patterns import MATCH_SECONDS, backtracks
from cogtools.schema.validate import validate
from cogtools.services.invoke import prepare

if t.TYPE_CHECKING:
    from pathlib import Path

    from cogtools.core.model import Tool
    from cogtools.run import Runner

ERROR, WARNING = "error", "warning"

#: rule id -> (severity, what it checks). The ids are stable: scripts and CI match on them.
RULES: dict[str, tuple[str, str]] = {
    "definition": (ERROR, "the definition matches the tool format's JSON Schema and loads"),
    "openapi": (ERROR, "every parameter schema is a valid OpenAPI 3.0 Schema Object"),
    "dialect-loss": (WARNING, "nothing in the schema is lost when exported to a client's dialect"),
    "name-duplicate": (WARNING, "a tool name is defined once across the project's sources"),
    "description-missing": (WARNING, "every parameter has a description"),
    "description-copies-name": (WARNING, "a description says more than the name"),
    "type-unknown": (
        WARNING,
        "a list-form parameter names a known type (seed 003 reads any other as a string)",
    ),
    "enum-type": (ERROR, "every enum member is of the schema's type, so a call can give it"),
    "bounds-empty": (ERROR, "a schema's lower bounds are no higher than its upper ones, so some value fits it"),
    "default-invalid": (ERROR, "a parameter's default matches its own schema"),
    "example-invalid": (ERROR, "every example call matches the parameter schema"),
    "example-coverage": (WARNING, "every required parameter appears in some example call"),
    "examples-missing": (WARNING, "a tool has examples: calls, which `cogtools test` runs, or requests in words"),
    "template-undeclared": (
        ERROR,
        "a template uses only declared parameters and environment (a load error too: the tool is not served)",
    ),
    "parameter-unused": (WARNING, "every declared parameter is used by the implementation"),
    "option-injection": (WARNING, "a command value cannot be read as an option (`--` before it, or a fixed choice)"),
    "program-missing": (
        WARNING,
        "a command tool's program is on PATH here or in the project's node_modules/.bin (else every call fails)",
    ),
    "program-agent-path": (
        WARNING,
        "a command tool's program is found as an agent's call finds it (its caller's PATH, without the"
        " node_modules/.bin that npx or pnpm exec put first, then the project's), not only as lint is run",
    ),
    "program-shadowed": (
        WARNING,
        "a command tool's bare program is the project's own (its node_modules/.bin) when the project has one,"
        " not another found before it on PATH",
    ),
    "typescript-unsupported": (
        WARNING,
        "a TypeScript script runs here: Node.js 22.6 or newer strips its types, or the project has tsx",
    ),
    "package-hidden": (
        WARNING,
        "a script whose side_effects keep it from reading the project declares as its code the packages of"
        " node_modules it imports (else node cannot find them)",
    ),
    "callable-missing": (WARNING, "a python tool's module (python_path or installed) defines its function"),
    "callable-parameter": (ERROR, "every parameter of a python tool is a keyword argument its function takes"),
    "callable-required": (ERROR, "every argument a python tool's function requires is one each call gives"),
    "callable-type": (WARNING, "a python tool's parameter types agree with its function's annotations"),
    "secret-exposed": (
        WARNING,
        "a secret is not put where others can read it: a program's argv (ps), or a URL (server and proxy logs)",
    ),
    "secret-cleartext": (WARNING, "a secret travels only over https (or to this machine)"),
    "effects-undeclared": (
        WARNING,
        "side_effects names what the implementation plainly does (a shell given code, a program that writes, a request)",
    ),
    "pattern-backtracks": (
        WARNING,
        "a pattern is searched in linear time (no back-reference, look-around or Unicode property)",
    ),
    "code-open": (
        WARNING,
        "cogtools can tell all the code of the workspace a tool runs, or the tool declares it (`code:`), so that"
        " it can run without confirmation",
    ),
    "unconfined": (
        WARNING,
        "a tool that runs code (a program, a function) declares its side_effects, so that it runs confined to them",
    ),
}

#: The rules a tool may not silence (``lint: {ignore: [...]}``): the tool does not load.
LOAD_RULES = ("definition", "template-undeclared")


class Diagnostic(t.NamedTuple):
    rule: str
    path: str
    message: str
    hint: str = ""
    line: int | None = None
    key_path: tuple[str | int, ...] = ()
    tool: str | None = None

    @property
    def severity(self) -> str:
        return RULES[self.rule][0]

    def to_json(self) -> dict[str, t.Any]:

        return {
            "rule": self.rule,
            "severity": self.severity,
            "file": self.path,
            "line": self.line,
            "key": format_key_path(self.key_path) or None,
            "tool": self.tool,
            "message": self.message,
            "hint": self.hint,
        }

    def __str__(self) -> str:

        where = self.path if self.line is None else f"{self.path}:{self.line}"
        key = format_key_path(self.key_path)
        hint = f" (hint: {self.hint})" if self.hint else ""
        return f"{where}: {self.severity}[{self.rule}] {key + ': ' if key else ''}{self.message}{hint}"


def from_problems(problem: CogtoolsError) -> list[Diagnostic]:
    """A finding for each problem of a definition that does not load: the error's own, and each
    of the others it carries (``details.problems``, :func:`cogtools.load.formats.build.build_tool`)."""
    found = [from_problem(problem)]
    others = problem.details.get("problems")
    for other in others if isinstance(others, list) else ():
        if isinstance(other, dict) and isinstance(other.get("message"), str):
            line = other.get("line")
            key_path = [k for k in other.get("key_path") or () if isinstance(k, (str, int))]
            details = {"reason": other["reason"]} if "reason" in other else {}
            rule = other.get("rule")
            if rule in RULES and rule not in LOAD_RULES:  # a finding of lint's own (enum-type)
                where = other.get("path") or problem.path or "?"
                found.append(
                    Diagnostic(
                        rule,
                        where,
                        other["message"],
                        str(other.get("hint", "")),
                        line if isinstance(line, int) else None,
                        tuple(key_path),
                        problem.tool,
                    )
                )
                continue
            found.append(
                from_problem(
                    type(problem)(
                        other["message"],
                        tool=problem.tool,
                        path=other.get("path") or problem.path,
                        line=line if isinstance(line, int) else None,
                        key_path=key_path,
                        details=details,
                    )
                )
            )
    return found


def from_problem(problem: CogtoolsError) -> Diagnostic:
    if problem.details.get("reason") in ("undeclared", "undeclared_environment"):  # found at load time
        rule, hint = "template-undeclared", "declare it, or fix the name"
    else:
        rule, hint = "definition", "see the tool format: man 5 cogtools-tool (or cogtools help tool)"
    return Diagnostic(
        rule, problem.path or "?", problem.message, hint, problem.line, tuple(problem.key_path or ()), problem.tool
    )


def lint_tool(
    tool: Tool,
    verdicts: dict[str, t.Any] | None = None,
    *,
    python_path: t.Sequence[str] = (),
    root: Path | None = None,
) -> list[Diagnostic]:
    """Every finding about one loaded tool. ``verdicts`` keeps the OpenAPI validator's findings
    by a digest of the schemas it judged, so that a later run need not import it (it costs more
    than the rest of lint): pass the same mapping again, and keep it. ``python_path``: where the
    project's python tools find their modules first; ``root``: the project's root (None: what
    needs it is not checked)."""
    findings: list[Diagnostic] = []

    def add(rule: str, message: str, hint: str = "", *key: str | int) -> None:
        findings.append(Diagnostic(rule, tool.origin.path, message, hint, None, key, tool.name))

    findings += [
        Diagnostic(n.rule, tool.origin.path, n.message, n.hint, n.line, n.key_path, tool.name) for n in tool.notices
    ]
    _openapi(tool, add, {} if verdicts is None else verdicts)
    _enums(tool, add)
    _bounds(tool, add)
    _patterns(tool, add)
    _dialects(tool, add)
    _descriptions(tool, add)
    _defaults_and_examples(tool, add)
    _implementation(tool, add)
    _secrets(tool, add)
    if root is None:
        _kind_advice(tool, add, python_path)
    else:
        from cogtools.run.program import advised_in

        with advised_in(root):  # a program is looked for as a call in the project looks for it
            _kind_advice(tool, add, python_path)
    _effects(tool, add)
    _confined(tool, add)
    if root is not None:
        _code(tool, add, root, python_path)
    return [finding for finding in findings if finding.rule not in tool.lint_ignore]


def _openapi(tool: Tool, add: t.Callable[..., None], verdicts: dict[str, t.Any]) -> None:
    """Each parameter schema, checked by openapi-spec-validator as a component of a document (or
    its verdict on the same schemas, kept in ``verdicts``)."""
    digest, schemas = openapi_digest(tool)
    found = verdicts.get(digest)
    if not isinstance(found, list):
        found = verdicts[digest] = _openapi_findings(tool.name, schemas)
    for message, key in found:
        if isinstance(key[0], str) and key[0].startswith(DEFINITION_KEY):
            key = ["$defs", key[0][len(DEFINITION_KEY) :], *key[1:]]
        add("openapi", message, "see the OpenAPI 3.0 Schema Object", "parameters", *key)


#: How a definition of the parameters (``$defs``) is named among the OpenAPI document's
#: components, and the references to it written as OpenAPI's own.
DEFINITION_KEY = "defs."


def openapi_digest(tool: Tool) -> tuple[str, dict[str, t.Any]]:
    """The schemas the OpenAPI validator judges of ``tool``, and the key of its verdict on them:
    their structure, without the values in them (``default``, ``example``), which it would match
    against a ``pattern`` with a backtracking engine, unbounded; ``default-invalid`` checks a
    default, under the bounded search of :mod:`cogtools.schema.patterns`."""

    schemas = {p.name: json.loads(json.dumps(p.schema)) for p in tool.parameters}
    if isinstance(tool.additional_parameters, dict):
        schemas["(additionalProperties)"] = json.loads(json.dumps(tool.additional_parameters))
    for name, definition in tool.definitions.items():
        schemas[f"{DEFINITION_KEY}{name}"] = json.loads(json.dumps(definition))
    for name, schema in schemas.items():
        for sub, _ in subschemas(schema, (name,)):
            for word in ("default", "example"):
                t.cast("dict[str, t.Any]", sub).pop(word, None)
            reference = sub.get("$ref")
            if isinstance(reference, str) and reference.startswith("#/$defs/"):
                pointer = f"{DEFINITION_KEY}{reference[len('#/$defs/') :]}".replace("~", "~0").replace("/", "~1")
                t.cast("dict[str, t.Any]", sub)["$ref"] = f"#/components/schemas/{pointer}"
    return hashlib.sha256(json.dumps(schemas, sort_keys=True).encode()).hexdigest(), schemas


def _openapi_findings(name: str, schemas: dict[str, t.Any]) -> list[tuple[str, list[str | int]]]:
    from openapi_spec_validator import OpenAPIV30SpecValidator  # costly, and only for a schema with $ref

    document = {
        "openapi": "3.0.3",
        "info": {"title": name, "version": "0"},
        "paths": {},
        "components": {"schemas": schemas},
    }
    out: list[tuple[str, list[str | int]]] = []
    seen = set()
    for error in OpenAPIV30SpecValidator(document).iter_errors():
        path = list(error.absolute_path)
        if path[:2] != ["components", "schemas"] or len(path) < 3:
            continue
        leaves = [e for e in (error.context or []) if e.path] or [error]
        best = min(leaves, key=lambda e: len(e.path))
        key = (path[2], *[p for p in best.path if p not in path[2:3]])
        if key in seen:
            continue
        seen.add(key)
        out.append((f"not an OpenAPI 3.0 Schema Object: {best.message}", list(key)))
    return out


def _tool_subschemas(tool: Tool) -> t.Iterator[tuple[t.Mapping[str, t.Any], tuple[str | int, ...]]]:
    """Every schema of ``tool``'s parameters and of their definitions, each with its key path."""
    for parameter in tool.parameters:
        yield from subschemas(parameter.schema, ("parameters", parameter.name))
    for name, definition in tool.definitions.items():
        yield from subschemas(definition, ("parameters", "$defs", name))


def _enums(tool: Tool, add: t.Callable[..., None]) -> None:
    """An enum member no call can give (:mod:`cogtools.schema.enums`)."""

    for parameter in tool.parameters:
        for misfit in misfits(parameter.schema, ("parameters", parameter.name)):
            add("enum-type", misfit.message, misfit.hint, *misfit.key_path)
    for name, definition in tool.definitions.items():
        for misfit in misfits(definition, ("parameters", "$defs", name)):
            add("enum-type", misfit.message, misfit.hint, *misfit.key_path)


#: Each pair of a lower and an upper bound on a size (of a string, an array, an object).
SIZE_BOUNDS = (("minLength", "maxLength"), ("minItems", "maxItems"), ("minProperties", "maxProperties"))


def _bounds(tool: Tool, add: t.Callable[..., None]) -> None:
    """A schema no value fits: a lower bound above its upper bound (``minimum: 10, maximum: 1``;
    equal, with either exclusive, in OpenAPI 3.0's boolean form or JSON Schema's number form), a
    ``minLength`` above its ``maxLength``; every call is then refused."""

    def number(value: t.Any) -> t.TypeGuard[float]:
        return isinstance(value, (int, float)) and not isinstance(value, bool)

    for schema, where in _tool_subschemas(tool):
        edges = []
        for bound, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
            found = [(schema[bound], schema.get(exclusive) is True)] if number(schema.get(bound)) else []
            found += [(schema[exclusive], True)] if number(schema.get(exclusive)) else []
            edges.append(found)
        for low, low_open in edges[0]:
            for high, high_open in edges[1]:
                if low > high or low == high and (low_open or high_open):
                    add(
                        "bounds-empty",
                        f"no number is at least {low} and at most {high}"
                        + (" (one of them exclusive)" if low == high else ""),
                        "swap or mend the bounds: as written, every call is refused",
                        *where,
                    )
        for least, most in SIZE_BOUNDS:
            low, high = schema.get(least), schema.get(most)
            if number(low) and number(high) and low > high:
                add(
                    "bounds-empty",
                    f"{least} {low} is more than {most} {high}",
                    "swap or mend the bounds",
                    *where,
                    least,
                )


def _patterns(tool: Tool, add: t.Callable[..., None]) -> None:
    """A pattern that needs the backtracking engine: a search for it is cut after
    :data:`~cogtools.schema.patterns.MATCH_SECONDS` and the argument refused."""

    for schema, key in _tool_subschemas(tool):
        pattern = schema.get("pattern")
        why = backtracks(pattern) if isinstance(pattern, str) else None
        if why is not None:
            add(
                "pattern-backtracks",
                f"the pattern {pattern!r} needs a backtracking search ({why}): a search that takes more"
                f" than {MATCH_SECONDS:g} s is cut, and the argument refused",
                "write it without back-references, look-arounds, Unicode properties and repetitions past 1000",
                *key,
                "pattern",
            )


def _dialects(tool: Tool, add: t.Callable[..., None]) -> None:

    seen = set()
    for fmt, exporter in EXPORTS.items():
        for note in exporter(tool)[1]:
            if note not in seen and not note.startswith(NOT_STRICT):
                seen.add(note)
                add("dialect-loss", f"{fmt}: {note}", "express it another way, or accept the loss for that client")


def _words(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _descriptions(tool: Tool, add: t.Callable[..., None]) -> None:
    if _words(tool.description) == _words(tool.name):
        add(
            "description-copies-name",
            "the tool's description only repeats its name",
            "say what it does and when to use it",
            "description",
        )
    for parameter in tool.parameters:
        description = str(parameter.schema.get("description", "")).strip()
        if not description:
            add(
                "description-missing",
                f"parameter {parameter.name!r} has no description",
                "tell the model what to put there",
                "parameters",
                parameter.name,
            )
        elif _words(description) == _words(parameter.name):
            add(
                "description-copies-name",
                f"the description of {parameter.name!r} only repeats its name",
                "say what it means and which values fit",
                "parameters",
                parameter.name,
                "description",
            )


def _defaults_and_examples(tool: Tool, add: t.Callable[..., None]) -> None:

    for parameter in tool.parameters:
        if "default" in parameter.schema:
            for violation in validate({**parameter.schema, "$defs": tool.definitions}, parameter.schema["default"]):
                add(
                    "default-invalid",
                    f"the default of {parameter.name!r} does not match its schema: {violation.message}",
                    f"a default must be {violation.accepted}",
                    "parameters",
                    parameter.name,
                    "default",
                )
    covered: set[str] = set()
    for index, example in enumerate(tool.examples):
        covered.update(example.arguments)
        if (example.expect or {}).get("error") == SchemaViolationError.code:
            continue
        try:
            prepare(tool, example.arguments)
        except SchemaViolationError as e:
            for violation in e.details.get("violations", []):
                add(
                    "example-invalid",
                    f"example {index}: {violation['field']}: {violation['message']}",
                    f"give {violation['accepted']}",
                    "examples",
                    index,
                )
    if not tool.examples and not tool.requests:
        add(
            "examples-missing",
            "the tool has no examples",
            "add a call under `examples:`, such as {"
            + ", ".join(f"{p.name}: ..." for p in tool.parameters if p.required)
            + "}",
            "examples",
        )
    if tool.examples:
        for parameter in tool.parameters:
            if parameter.required and parameter.name not in covered:
                add(
                    "example-coverage",
                    f"the required parameter {parameter.name!r} is in no example call",
                    "add it to an example",
                    "examples",
                )


def _templates(tool: Tool) -> list[tuple[str, tuple[str | int, ...]]]:
    """The template texts of the implementation and where each is."""
    found = _kind(tool)
    if found is None:
        return []
    return [(text, ("implementation", *key)) for text, key in found.templates(tool.implementation.spec)]


def _secrets(tool: Tool, add: t.Callable[..., None]) -> None:
    """A secret in a program's argv or in a URL, where others read it; or sent in clear text."""
    from jinja2 import nodes  # Jinja is imported only where a template is parsed

    secrets = set(tool.secrets())
    if not secrets:
        return
    found = _kind(tool)
    if found is None:
        return
    for text, key in _templates(tool):
        read = {
            node.attr
            for node in environment().parse(text).find_all(nodes.Getattr)
            if isinstance(node.node, nodes.Name) and node.node.name == "env" and node.attr in secrets
        }
        if read and (exposure := found.exposure(tool.implementation.spec, key[1:])) is not None:
            rule, where, hint = exposure
            add(rule, f"the secret {sorted(read)[0]} {where}", hint, *key)


def _kind(tool: Tool) -> Runner | None:
    """The runner of ``tool``'s kind (None for a kind there is not)."""

    try:
        return runner(tool.implementation.kind)
    except LookupError:
        return None


def _kind_advice(tool: Tool, add: t.Callable[..., None], python_path: t.Sequence[str]) -> None:
    """What the kind itself finds: a program or module that is not there, an argument that a
    program could read as an option."""
    found = _kind(tool)
    for rule, message, hint, key in found.advise(tool, python_path) if found is not None else ():
        add(rule, message, hint, *key)


def _effects(tool: Tool, add: t.Callable[..., None]) -> None:
    """The side effects the implementation plainly has (its kind's outline) that the tool does
    not declare: policy, tools.allowed and the clients that approve a read-only tool without
    asking all trust the declaration."""
    found = _kind(tool)
    undeclared = undeclared_effects(tool, found.outline(tool).implies) if found is not None else {}
    if undeclared:
        why = undeclared[next(iter(undeclared))]
        declared = ", ".join(tool.metadata.side_effects or ()) or "none"
        add(
            "effects-undeclared",
            f"{why}, but side_effects does not say {', '.join(undeclared)} (declared: {declared})",
            f"declare {', '.join(undeclared)} (an action tool, which asks before it runs), or run a program that does only what it declares",
            "side_effects",
        )


def _confined(tool: Tool, add: t.Callable[..., None]) -> None:
    """A tool that runs code (a program, a function) and declares no side effects: it runs with the
    person's every right, where a declaration would confine it (:mod:`cogtools.run.confine`)."""
    found = _kind(tool)
    if tool.metadata.side_effects is None and found is not None and found.RUNS_PROGRAMS:
        add(
            "unconfined",
            "it runs code (a program or a function) but declares no side_effects: it may do anything the person"
            " running it may",
            "declare what it does (side_effects: [] for nothing, or filesystem_read, filesystem_write, network,"
            " process): it then runs confined to that",
            "implementation",
        )


def _code(tool: Tool, add: t.Callable[..., None], root: Path, python_path: t.Sequence[str]) -> None:
    """What of the code the tool runs cogtools cannot tell (a package of node_modules, a script
    that moves sys.path), and its ``code`` does not declare: it cannot run without confirmation
    (:mod:`cogtools.trust.pins`); the declaration that closes it."""
    from cogtools.trust.pins import CLOSE_BY, closing, declares, open_reasons

    found = _kind(tool)
    if found is None:
        return
    from cogtools.run import read_closure

    code, _ = read_closure(found, tool, root, python_path)
    unclosed = [(why, needs) for why, needs in code.open if not declares(tool.metadata.code, needs)]
    if unclosed:
        # a path outside the project (a workspace root's package) is no declaration `code:` takes
        paths = sorted({needs + "/" for _, needs in unclosed if needs is not None and not needs.startswith("..")})
        suggestion = f"code: [{', '.join(paths)}]" if paths else "code: [the files and directories it loads]"
        how = closing([why for why, _ in unclosed])
        hint = (
            f"declare it ({suggestion}; files, and directories whole), and review it with `cogtools sync`"
            if how == "declare"
            else CLOSE_BY[how]
        )
        told = [m.group(1) for why, _ in unclosed if (m := re.search(r"\(give it ([^)]+)\)", why))]
        if told and how == "declare":  # (a directory declared whole asks again at each edit of a file there)
            hint = f"give it {told[0]}, which makes it look for no other; or {hint} (then any edit there asks again)"
        add(
            "code-open",
            f"cogtools cannot tell all the code it runs: {open_reasons([why for why, _ in unclosed])}; so it cannot run"
            " without confirmation",
            hint,
        )


def undeclared_effects(tool: Tool, implies: t.Mapping[str, str]) -> dict[str, str]:
    """The effects of ``implies`` (effect -> why) that ``tool`` does not declare; none when it
    declares no ``side_effects`` at all, which makes no claim (an action tool)."""
    if tool.metadata.side_effects is None:
        return {}
    declared = set(tool.metadata.side_effects)
    return {effect: why for effect, why in implies.items() if effect not in declared}


def _implementation(tool: Tool, add: t.Callable[..., None]) -> None:
    """Parameters the templates never use. (A name a
    template uses but the tool does not declare cannot reach here: loading refuses it, and
    :func:`from_problem` reports it as ``template-undeclared``.)"""
    from jinja2 import meta

    templates = _templates(tool)
    if not templates:
        return
    used: set[str] = set()
    for text, _ in templates:
        used |= meta.find_undeclared_variables(environment().parse(text))
    for parameter in tool.parameters:
        if parameter.name not in used:
            add(
                "parameter-unused",
                f"the parameter {parameter.name!r} is not used by the implementation",
                "use it, or remove it",
                "parameters",
                parameter.name,
            )
