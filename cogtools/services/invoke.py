"""A call, from the arguments to the result text: the one call path (DESIGN §11).

Two steps serve every way a tool is run (``cogtools-call``, ``cogtools-yaml``, the built-in
``cogtools_call``, ``cogtools test``, the MCP server):

- :func:`resolve` finds the tool a name means in what a load found (a built-in tool, or the
  catalog's winner of that name), and checks the pin of a tool that runs without confirmation;
  :func:`resolve_file` takes the tool a file defines, for ``cogtools-yaml``;
- :func:`invoke` runs a :class:`Target`: the policy of its project first, then the arguments
  (their limits, the schema, the defaults), then the implementation, with the values of the
  tool's secrets masked in whatever comes back, result or error.

Reading the stream is the CLI's business; :func:`parse_arguments` works on the bytes read.
"""

from __future__ import annotations

import copy
import json
import typing as t
from pathlib import Path

from cogtools.core.errors import CogtoolsError, InvalidInputError, SchemaViolationError
from cogtools.core.fsutil import one_look
from cogtools.core.limits import MAX_INPUT_BYTES
from cogtools.core.model import WAIT_FOR_PREVIOUS

if t.TYPE_CHECKING:
    from cogtools.core.model import Tool
    from cogtools.load.loading import Loaded
    from cogtools.load.project import Project
    from cogtools.run import Caller, RunContext
    from cogtools.schema.validate import Violation
    from cogtools.services.audit import Auditor
    from cogtools.trust.policy import Policy

#: The arguments of a call, or how to get them once the tool is known to be callable (so that a
#: call of a tool that does not exist says so before it complains about its input).
Arguments = t.Union[t.Mapping[str, t.Any], t.Callable[[], t.Mapping[str, t.Any]]]
#: Told the tool and its context just before it runs (``cogtools-call -v`` reports from it).
Observer = t.Callable[["Tool", "RunContext"], None]
#: The audit log's writer while auditing is on (:func:`cogtools.services.audit.start`): every call
#: that :func:`resolve` refuses or :func:`invoke` runs is written down. Off, a call pays one test.
AUDIT: Auditor | None = None


class Target(t.NamedTuple):
    """A tool resolved for a call, and where it runs."""

    tool: Tool
    #: The project whose policy, environment and root the call has (None: no configuration
    #: loads, and only the built-in ``cogtools_problems`` can run).
    project: Project | None
    #: Other projects whose policy the call must pass too (``cogtools-yaml`` run from another
    #: project: a copy of a denied tool, or a link to one, is no way around policy).
    also: tuple[Project, ...] = ()
    #: What the load found, which a built-in tool reads.
    loaded: Loaded | None = None
    #: The bytes a pin check read (real path -> bytes): a run uses them instead of reading the
    #: files again (:attr:`cogtools.run.RunContext.checked`).
    files: t.Mapping[str, bytes] = {}
    #: What the person calling must be told before it runs (the caller shows them).
    warnings: tuple[str, ...] = ()


def resolve(loaded: Loaded, name: str) -> Target:
    """The tool ``name`` means in ``loaded`` to this caller: a built-in tool, else the catalog's
    winner of that name, whose pin must hold when it runs without confirmation
    (:mod:`cogtools.trust.pins`). TOOL_NOT_FOUND, DEFINITION_INVALID or POLICY_DENIED, naming
    ``name``, when it cannot run; the configuration's own error when none loads (but for
    ``cogtools_problems``, which says why). A tool the caller's policy hides (its role, a denied
    category, the filters of what it is shown) is not found, as a name no tool has: every way of
    calling by name comes here (``cogtools-call``, ``cogtools_call``, MCP's ``tools/call``). A
    tool that discovery mode leaves out of the list, for the meta-tools to find, is not hidden."""
    if AUDIT is None:
        with one_look():
            return _resolve(loaded, name)
    started = AUDIT.clock()
    try:
        with one_look():
            return _resolve(loaded, name)
    except CogtoolsError as e:
        AUDIT.refused(name, e, started)
        raise


def _resolve(loaded: Loaded, name: str) -> Target:
    from cogtools.core.model import PROBLEMS_TOOL, RESERVED_NAMES

    catalog = loaded.catalog
    if catalog is None and name != PROBLEMS_TOOL:
        assert loaded.error is not None
        raise loaded.error.with_tool(name)
    project = catalog.project if catalog is not None else None
    if name in RESERVED_NAMES:
        from cogtools.services import builtin

        tool = builtin.tool(name, loaded)
        if name != PROBLEMS_TOOL:  # (offered whatever the policy, when something is broken)
            assert catalog is not None and project is not None
            if not _policy(project).visible(tool):
                raise catalog.not_found(name)
        return Target(tool, project, loaded=loaded)
    assert catalog is not None and project is not None
    from cogtools.trust import pins

    try:
        checked = pins.verify(catalog.get(name, _policy(project)), project)
    except CogtoolsError as e:
        raise e.with_tool(name) from e.__cause__  # the error says which call it broke
    return Target(checked.tool, project, loaded=loaded, files=checked.files, warnings=checked.warnings)


def _policy(project: Project) -> Policy:
    from cogtools.trust.policy import Policy

    return Policy.of(project)


def resolve_file(path: Path, environ: t.Mapping[str, str] | None = None) -> Target:
    """The tool defined in the file at ``path`` (YAML, whatever its name: what ``cogtools-yaml``
    runs), in its own project (its .env, its root), under the policy of that project and of the
    caller's (the working directory's). A definition handed over whole is no name to hide: one
    that either policy hides from the caller is POLICY_DENIED, saying why."""
    from cogtools.core.errors import PolicyDeniedError
    from cogtools.load.catalog import load_tool_file
    from cogtools.load.project import find_project

    tool = load_tool_file(path)
    home = find_project(path.resolve().parent, environ)
    caller = find_project(environ=environ)
    for project in (home,) if caller.root == home.root else (home, caller):
        why = _policy(project).hides(tool)
        if why is not None:
            raise PolicyDeniedError(
                f"the policy of {project.root} hides {tool.name} from this caller ({why}): it does not run",
                tool=tool.name,
                details={"reason": "hidden", "project": str(project.root)},
            )
    return Target(tool, home, () if caller.root == home.root else (caller,))


def invoke(
    target: Target,
    arguments: Arguments,
    *,
    system_env: bool = False,
    observe: Observer | None = None,
    dry_run: bool = False,
    time_limit: float | None = None,
) -> str:
    """Run ``target`` with ``arguments`` and return its result text; with ``dry_run``, what it
    would run instead (:func:`dry_run_text`). In order: the policy of the target's projects, the
    arguments (taken now when given as a function; their limits, the schema, the defaults), the
    implementation in the project's context (the values of the variables the tool declares, the
    root, the limits). Every error names the tool, and the values of its secrets are masked in
    the result and in any error. ``time_limit`` bounds the implementation's time below the
    configured limit. With auditing on, the call is written down (:data:`AUDIT`)."""
    options: dict[str, t.Any] = {
        "system_env": system_env,
        "observe": observe,
        "dry_run": dry_run,
        "time_limit": time_limit,
    }
    with one_look():
        if AUDIT is not None:
            return AUDIT.invoking(_invoke, target, arguments, options)
        return _invoke(target, arguments, **options)


def _invoke(
    target: Target,
    arguments: Arguments,
    *,
    system_env: bool,
    observe: Observer | None,
    dry_run: bool,
    time_limit: float | None,
) -> str:
    from cogtools.run import RunContext, context_for, runner

    tool, project = target.tool, target.project
    failure: CogtoolsError | None = None
    secrets: list[str] = []
    try:
        if project is not None:
            from cogtools.trust.policy import enforce

            for each in (project, *target.also):
                enforce(tool, each)
        given = check_arguments(arguments() if callable(arguments) else arguments)
        context = (
            context_for(tool, project, system_env=system_env, checked=target.files)
            if project is not None
            else RunContext()
        )
        if time_limit is not None:  # (a server trying a template on its event loop first)
            context = context._replace(limits={**context.limits, "timeout": min(time_limit, context.limits["timeout"])})
        secrets = context.secret_values()
        if tool.implementation.kind == "builtin":
            context = context._replace(loaded=target.loaded, call=_call_by_name(target, system_env, observe, dry_run))
        if observe is not None:
            observe(tool, context)
        run_kind = runner(tool.implementation.kind)
        prepared = prepare(tool, given)
        if dry_run:
            return dry_run_text(tool, run_kind.preview(tool, prepared, context), secrets)
        result = run_kind.run(tool, prepared, context)
        if tool.output_schema is not None:
            structured(tool, result)
    except CogtoolsError as e:
        failure = e.with_tool(tool.name)
        if secrets:
            from cogtools.core.environment import scrub_value

            failure = failure.scrubbed(lambda value: scrub_value(value, secrets))
    if failure is not None:  # raised out here: the error carries nothing of what it replaced
        raise failure
    if secrets:
        from cogtools.core.environment import scrub

        result = scrub(result, (), secrets=secrets)
    return result


def structured(tool: Tool, result: str) -> dict[str, t.Any]:
    """The JSON object ``result`` is, checked against the output schema of ``tool``:
    EXECUTION_FAILED when it is not JSON, or not what the tool declares it prints."""
    from cogtools.core.errors import ExecutionFailedError
    from cogtools.core.jsondata import NotJsonData, json_data
    from cogtools.core.limits import depth_problem
    from cogtools.schema.validate import validate

    schema = tool.result_schema()
    assert schema is not None
    try:
        value = json.loads(result)
        json_data(value)
    except (ValueError, NotJsonData) as e:
        raise ExecutionFailedError(
            f"the tool declares that it prints JSON (output.schema), and printed something else: {e}",
            details={"output": result[:200]},
        ) from None
    problem = depth_problem(value)
    if problem is not None:
        raise ExecutionFailedError(f"the result: {problem}")
    violations = validate(schema, value)
    if violations:
        raise ExecutionFailedError(
            f"the result is not what the tool declares it prints (output.schema): {violations[0]}"
            + (f" (and {len(violations) - 1} more)" if len(violations) > 1 else ""),
            details={"violations": [v.to_json() for v in violations[:20]]},
        )
    return t.cast("dict[str, t.Any]", value)


def _call_by_name(target: Target, system_env: bool, observe: Observer | None, dry_run: bool) -> Caller:
    """The call path for a tool by name, for ``cogtools_call``: the same lookup, pins, policy
    and checks as a direct call, in the same load."""

    def call(name: str, arguments: t.Mapping[str, t.Any]) -> str:
        from cogtools.core.model import RESERVED_NAMES

        if name in RESERVED_NAMES:
            from cogtools.core.errors import ToolNotFoundError

            raise ToolNotFoundError(f"{name} is a meta-tool; call it directly", tool=name)
        assert target.loaded is not None
        return invoke(resolve(target.loaded, name), arguments, system_env=system_env, observe=observe, dry_run=dry_run)

    return call


def check_arguments(arguments: t.Any) -> t.Mapping[str, t.Any]:
    """The limits of stdin, for arguments however they came (parsed from stdin, over MCP, from an
    example): an object, of JSON data (no lone surrogate, no non-finite number), nesting no
    deeper than the limit."""
    from cogtools.core.jsondata import NotJsonData, json_data
    from cogtools.core.limits import depth_problem

    if not isinstance(arguments, t.Mapping):
        from cogtools.schema.validate import json_type

        raise InvalidInputError(
            f"the arguments must be an object, not {json_type(arguments)}",
            details={"given_type": json_type(arguments), "accepted": "a JSON object of named arguments"},
        )
    problem = depth_problem(arguments)
    if problem is not None:
        raise InvalidInputError(f"the arguments: {problem}")
    try:
        json_data(arguments)  # no lone surrogate, no NaN or infinity
    except NotJsonData as e:
        raise InvalidInputError(f"the arguments: {e.message}") from e
    return arguments


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
        raise e.with_tool(tool) from e.__cause__


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
        from cogtools.schema.validate import json_type

        raise InvalidInputError(
            f"the arguments must be an object, not {json_type(value)}",
            details={"given_type": json_type(value), "accepted": "a JSON object of named arguments"},
        )
    return value


def _parse_json(text: str) -> t.Any:
    from cogtools.core.jsondata import JsonProblem, parse_json

    try:
        return parse_json(text)
    except JsonProblem as e:
        from cogtools.core.errors import format_key_path

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

    from cogtools.core.jsondata import NotJsonData, json_data
    from cogtools.core.yamlio import load

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
        from cogtools.core.errors import format_key_path

        where = format_key_path(e.key_path)
        raise InvalidInputError(f"{where + ': ' if where else ''}{e.message}") from e


def prepare(tool: Tool, arguments: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    """Check ``arguments`` against the tool's schema and fill in declared defaults.

    Gemini CLI's ``wait_for_previous`` is dropped unless the tool declares it.
    """
    from cogtools.schema.validate import validate

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
    from cogtools.schema.validate import is_valid

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
    from cogtools.run import runner

    try:
        return runner(tool.implementation.kind).TAKES_NUL
    except LookupError:
        return True  # an unknown kind fails on its own, when it is run


def nul_violations(value: t.Any, path: tuple[str | int, ...] = ()) -> list[Violation]:
    """A violation for each string in ``value`` (keys too) that holds NUL, which no program can
    receive in its argv or environment."""
    from cogtools.schema.validate import Violation

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


def dry_run_text(tool: Tool, preview: t.Mapping[str, t.Any], secrets: t.Collection[str]) -> str:
    """A dry run's answer: one JSON object (the tool, its kind, and what its kind would do),
    with the values of the secrets masked."""
    import json

    from cogtools.core.environment import scrub_value

    described = {"dry_run": True, "tool": tool.name, "kind": tool.implementation.kind, **preview}
    if tool.secrets():
        described["secrets"] = list(tool.secrets())
    return json.dumps(scrub_value(described, secrets), indent=2, ensure_ascii=False) + "\n"
