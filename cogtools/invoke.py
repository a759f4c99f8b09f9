"""A call, from the bytes on stdin to the result text: lookup, policy, parse, check, fill
defaults, run.

This is the one call path (DESIGN §11): :func:`run_named` (a tool found by name: ``cogtools-call``,
the ``cogtools_call`` meta-tool, and any server) and :func:`run_tool` (a tool in hand:
``cogtools-yaml``, ``cogtools test``) are the only ways a tool runs, and both check policy before
anything else. Reading the stream is the CLI's business; this module works on the bytes read.
"""

from __future__ import annotations

import copy
import typing as t

from cogtools.errors import InvalidInputError, SchemaViolationError
from cogtools.model import WAIT_FOR_PREVIOUS

if t.TYPE_CHECKING:
    from cogtools.catalog import Catalog
    from cogtools.model import Tool
    from cogtools.project import Project
    from cogtools.run import RunContext
    from cogtools.validate import Violation

#: The arguments of a call, or how to get them once the tool is known to be callable (so that a
#: call of a tool that does not exist says so before it complains about its input).
Arguments = t.Union[t.Mapping[str, t.Any], t.Callable[[], t.Mapping[str, t.Any]]]
#: Told the tool and its context just before it runs (``cogtools-call -v`` reports from it).
Observer = t.Callable[["Tool", "RunContext"], None]

#: The most stdin a call reads: 4 MiB. Larger input is INVALID_INPUT (after it is drained).
MAX_INPUT_BYTES = 4 * 1024 * 1024


def parse_arguments(
    data: bytes, *, as_yaml: bool = False, truncated: bool = False, tool: str | None = None
) -> dict[str, t.Any]:
    """The arguments object in ``data`` (JSON, or YAML when ``as_yaml``); empty input is ``{}``.

    ``truncated`` says the input went past :data:`MAX_INPUT_BYTES`; ``tool`` names the tool the
    input is meant for, in the error.
    """
    try:
        return _arguments(data, as_yaml, truncated)
    except InvalidInputError as e:
        e.tool = e.tool or tool
        raise


def _arguments(data: bytes, as_yaml: bool, truncated: bool) -> dict[str, t.Any]:
    if truncated:
        raise InvalidInputError(
            f"stdin is larger than the limit of {MAX_INPUT_BYTES} bytes",
            details={"limit_bytes": MAX_INPUT_BYTES},
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InvalidInputError(
            f"stdin is not UTF-8 (invalid byte at offset {e.start})", details={"offset": e.start}
        ) from e
    if not text.strip():
        return {}
    value = _parse_yaml(text) if as_yaml else _parse_json(text)
    if not isinstance(value, dict):
        from cogtools.validate import json_type

        raise InvalidInputError(
            f"the arguments must be an object, not {json_type(value)}",
            details={"given_type": json_type(value), "accepted": "a JSON object of named arguments"},
        )
    return value


def _parse_json(text: str) -> t.Any:
    from cogtools.jsondata import JsonProblem, parse_json

    try:
        return parse_json(text)
    except JsonProblem as e:
        from cogtools.errors import format_key_path

        where = f" at line {e.line} column {e.column}" if e.line is not None else ""
        field = format_key_path(e.key_path)
        details: dict[str, t.Any] = {"line": e.line, "column": e.column} if e.line is not None else {}
        if field:
            details["field"] = field
        raise InvalidInputError(
            f"stdin is not valid JSON: {(field + ': ') if field else ''}{e.message}{where}", details=details
        ) from e


def _parse_yaml(text: str) -> t.Any:
    import yaml

    from cogtools.jsondata import NotJsonData, json_data
    from cogtools.yamlio import load

    try:
        value = load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(e, "problem", None) or "cannot parse"
        raise InvalidInputError(f"stdin is not valid YAML: {problem}{where}") from e
    try:
        return json_data(value)
    except NotJsonData as e:
        from cogtools.errors import format_key_path

        where = format_key_path(e.key_path)
        raise InvalidInputError(f"{where + ': ' if where else ''}{e.message}") from e


def prepare(tool: Tool, arguments: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    """Check ``arguments`` against the tool's schema and fill in declared defaults.

    Gemini CLI's ``wait_for_previous`` is dropped unless the tool declares it.
    """
    from cogtools.validate import validate

    schema = tool.input_schema()
    args = dict(without_absent_nulls(schema, arguments))
    if WAIT_FOR_PREVIOUS in args and tool.parameter(WAIT_FOR_PREVIOUS) is None:
        del args[WAIT_FOR_PREVIOUS]
    violations = validate(schema, args)
    if not violations and not _takes_nul(tool):
        violations = nul_violations(args)
    if violations:
        count = len(violations)
        summary = "; ".join(str(v) for v in violations[:5]) + ("; ..." if count > 5 else "")
        raise SchemaViolationError(
            f"{count} problem{'s' if count > 1 else ''} with the arguments: {summary}",
            tool=tool.name,
            details={"violations": [v.to_json() for v in violations]},
        )
    for parameter in tool.parameters:
        if parameter.name not in args and "default" in parameter.schema:
            args[parameter.name] = copy.deepcopy(parameter.schema["default"])
    return t.cast("dict[str, t.Any]", as_integers(schema, args))


def as_integers(schema: t.Mapping[str, t.Any], value: t.Any) -> t.Any:
    """``value`` (valid against ``schema``) with every number an integer schema accepted written
    as an integer: JSON's ``1.0`` is the integer 1, and a program must see ``1``, not ``1.0``."""
    if isinstance(value, float) and value.is_integer() and schema.get("type") == "integer":
        return int(value)
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        return {
            key: as_integers(properties.get(key, extra if isinstance(extra, dict) else {}), item)
            for key, item in value.items()
        }
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [as_integers(schema["items"], item) for item in value]
    return value


def without_absent_nulls(schema: t.Mapping[str, t.Any], value: t.Any) -> t.Any:
    """``value`` without the nulls given for optional properties whose schema refuses null: such a
    null means "not given" (OpenAI's strict mode makes every property required and gives null for
    the ones it would leave out), so the default applies."""
    from cogtools.validate import is_valid

    properties = schema.get("properties")
    if isinstance(value, dict) and isinstance(properties, dict):
        required = set(schema.get("required", ()))
        out = {}
        for name, item in value.items():
            sub = properties.get(name)
            if sub is None:
                out[name] = item
            elif item is not None:
                out[name] = without_absent_nulls(sub, item)
            elif name in required or is_valid(sub, None):
                out[name] = item
        return out
    items = schema.get("items")
    if isinstance(value, list) and isinstance(items, dict):
        return [without_absent_nulls(items, item) for item in value]
    return dict(value) if isinstance(value, t.Mapping) else value


def _takes_nul(tool: Tool) -> bool:
    from cogtools.run import kind

    try:
        return kind(tool.implementation.kind).TAKES_NUL
    except LookupError:
        return True  # an unknown kind fails on its own, when it is run


def nul_violations(value: t.Any, path: tuple[str | int, ...] = ()) -> list[Violation]:
    """A violation for each string in ``value`` (keys too) that holds NUL, which no program can
    receive in its argv or environment."""
    from cogtools.validate import Violation

    accepted = "a string without NUL characters (U+0000)"
    message = "holds a NUL character (U+0000), which a program cannot receive"
    if isinstance(value, str):
        return [Violation(path, value, accepted, message)] if "\0" in value else []
    if isinstance(value, list):
        return [v for i, item in enumerate(value) for v in nul_violations(item, (*path, i))]
    if isinstance(value, dict):
        out = []
        for key, item in value.items():
            if "\0" in key:
                out.append(Violation((*path, key), item, accepted, "the name " + message))
            out.extend(nul_violations(item, (*path, key)))
        return out
    return []


def call(
    tool: Tool, arguments: t.Mapping[str, t.Any], context: RunContext | None = None, *, dry_run: bool = False
) -> str:
    """Run ``tool`` with ``arguments`` (already parsed) and return its result text; with
    ``dry_run``, return what it would run instead (:func:`dry_run_text`).

    ``context`` brings the values of the variables the tool declares (see
    :mod:`cogtools.environment`), the project root and the configured limits. The values of its
    secrets are masked in the result and in any error.
    """
    from cogtools.errors import CogtoolsError
    from cogtools.run import RunContext, kind

    context = context or RunContext()
    runner = kind(tool.implementation.kind)
    prepared = prepare(tool, arguments)
    secrets = context.secret_values()
    try:
        if dry_run:
            return dry_run_text(tool, runner.preview(tool, prepared, context), secrets)
        result = runner.run(tool, prepared, context)
    except CogtoolsError as e:
        if secrets:
            from cogtools.environment import scrub, scrub_value

            e.message = scrub(e.message, (), secrets=secrets)
            e.details = scrub_value(e.details, secrets)
        raise
    if secrets:
        from cogtools.environment import scrub

        result = scrub(result, (), secrets=secrets)
    return result


def dry_run_text(tool: Tool, preview: t.Mapping[str, t.Any], secrets: t.Collection[str]) -> str:
    """A dry run's answer: one JSON object (the tool, its kind, and what its kind would do),
    with the values of the secrets masked."""
    import json

    from cogtools.environment import scrub_value

    described = {"dry_run": True, "tool": tool.name, "kind": tool.implementation.kind, **preview}
    if tool.secrets():
        described["secrets"] = list(tool.secrets())
    return json.dumps(scrub_value(described, secrets), indent=2, ensure_ascii=False) + "\n"


def run_tool(
    tool: Tool,
    project: Project,
    arguments: Arguments,
    *,
    also: t.Sequence[Project] = (),
    system_env: bool = False,
    observe: Observer | None = None,
    dry_run: bool = False,
) -> str:
    """Run ``tool``, a tool in hand, for a caller in ``project``: the policy of ``project`` (and of
    every project in ``also``) first, then the arguments, the schema, and the implementation in
    ``project``'s context (with ``dry_run``, what the implementation would do)."""
    from cogtools.policy import enforce
    from cogtools.run import context_for

    for each in (project, *also):
        enforce(tool, each)
    given = arguments() if callable(arguments) else arguments
    context = context_for(tool, project, system_env=system_env)
    if observe is not None:
        observe(tool, context)
    return call(tool, given, context, dry_run=dry_run)


def run_named(
    catalog: Catalog,
    name: str,
    arguments: Arguments,
    *,
    system_env: bool = False,
    observe: Observer | None = None,
    dry_run: bool = False,
) -> str:
    """Run the tool called ``name`` in ``catalog`` (a discovery-mode meta-tool included): the
    lookup, the pin of a tool that runs without confirmation (:mod:`cogtools.pins`), then
    :func:`run_tool`. A tool called through ``cogtools_call`` comes back here, by the same path."""
    from cogtools.model import PROBLEMS_TOOL, RESERVED_NAMES

    if name in RESERVED_NAMES:
        from cogtools import discovery

        given = arguments() if callable(arguments) else arguments
        if name == PROBLEMS_TOOL:
            from cogtools.doctor import call_problems

            return call_problems(given, catalog.project.root)

        def inner(inner_name: str, inner_arguments: t.Mapping[str, t.Any]) -> str:
            if inner_name in RESERVED_NAMES:
                from cogtools.errors import ToolNotFoundError

                raise ToolNotFoundError(f"{inner_name} is a meta-tool; call it directly", tool=inner_name)
            return run_named(
                catalog, inner_name, inner_arguments, system_env=system_env, observe=observe, dry_run=dry_run
            )

        return discovery.run(catalog, name, given, inner)
    from cogtools import pins
    from cogtools.errors import CogtoolsError

    try:
        tool = catalog.get(name)
        pins.check(tool, catalog.project)
        return run_tool(tool, catalog.project, arguments, system_env=system_env, observe=observe, dry_run=dry_run)
    except CogtoolsError as e:
        e.tool = e.tool or name  # the error says which call it broke
        raise
