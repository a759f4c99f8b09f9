"""From a parsed definition (a mapping, whatever format it came from) to the model.

The definition is first checked against the tool format's JSON Schema, which the package ships
(``cogtools/schema/tool.schema.json``); every error names the file, the line where the format can
tell it, and the key path.
"""

from __future__ import annotations

import re
import typing as t

from cogtools.core.errors import BY_CODE, DefinitionInvalidError, close_names, did_you_mean
from cogtools.core.jsondata import KeyPath, NotJsonData, json_data
from cogtools.core.model import (
    EXPECTATIONS,
    RESERVED_NAMES,
    RISK_ALIASES,
    Example,
    Implementation,
    Metadata,
    Notice,
    Origin,
    Parameter,
    Tool,
    Variable,
    name_problem,
)
from cogtools.run import runner
from cogtools.schema.dialects import Unreadable, check_definitions, from_gemini_api, read_input_schema
from cogtools.schema.shipped import schema_problems

if t.TYPE_CHECKING:
    import yaml

#: Finds the line of a key path in the file, or None. ``value=True`` asks for the line where the
#: key's value starts (the first content line of a block scalar).
Locate = t.Callable[..., t.Optional[int]]

#: Seed 003's parameter type shorthands (list form) -> OpenAPI types.
TYPE_SHORTHANDS = {
    "string": "string",
    "str": "string",
    "int": "integer",
    "integer": "integer",
    "float": "number",
    "number": "number",
    "bool": "boolean",
    "boolean": "boolean",
    "object": "object",
}

#: Names other languages give the types of :data:`TYPE_SHORTHANDS` (and ``array``): a parameter
#: of such a type is not read as a string (its arguments would be refused, or mean something
#: else), but refused with the type meant.
TYPE_ALIASES = {
    **dict.fromkeys(("dict", "map", "mapping", "hash", "hashmap", "struct", "record", "obj"), "object"),
    **dict.fromkeys(("list", "tuple", "set", "sequence", "seq", "slice", "vector", "arr"), "array"),
    **dict.fromkeys(("long", "short", "uint", "bigint", "int8", "int16", "int32", "int64"), "integer"),
    **dict.fromkeys(("uint8", "uint16", "uint32", "uint64", "i8", "i16", "i32", "i64"), "integer"),
    **dict.fromkeys(("u8", "u16", "u32", "u64"), "integer"),
    **dict.fromkeys(("double", "decimal", "real", "num", "float32", "float64", "f32", "f64"), "number"),
}

#: How close (difflib's ratio) a type must be to a known one to be its misspelling (``strin``,
#: ``intger``, ``flaot``: 0.8 and more) rather than a type of its own (``weird_type``, ``uuid``,
#: ``enum``: 0.6 and less), which seed 003 reads as a string.
NEAR_MISS = 0.75


def _no_locate(key_path: KeyPath, value: bool = False) -> int | None:
    return None


def build_tool(
    data: t.Any,
    *,
    display_path: str,
    fmt: str,
    source: str,
    stem: str,
    locate: Locate = _no_locate,
    key_prefix: KeyPath = (),
) -> tuple[Tool, list[str]]:
    """Validate ``data`` as one tool definition and build the :class:`Tool`.

    Besides seed 004's keys, a definition may give its parameters as seed 002's ``inputSchema``
    (JSON Schema) or in seed 000's ``tools.json`` dialect (upper-case type names); both are
    translated to OpenAPI 3.0 first. ``key_prefix`` locates the definition inside its file (the
    index of a tool in a list). Returns the tool and the warnings met (things accepted with a
    fallback).

    Every independent problem of the definition is found in one run: DEFINITION_INVALID names the
    first (the schema's likeliest, a misspelt key before all), each with its line and key path,
    and carries the others in ``details["problems"]`` (what ``cogtools lint`` shows one by one).
    A part of the definition the schema refused is read no further, and a problem under a key
    the schema already refused is not said again.
    """
    declared = (data.get("id") or data.get("name")) if isinstance(data, dict) else None
    # The name this file means to define, so that a call of that name reports this error.
    reader = _Reader(declared if isinstance(declared, str) else stem, display_path, locate, key_prefix)
    try:
        if not isinstance(data, dict):
            reader.fail(f"a tool definition is a mapping, not {_kind_of(data)}")
        try:
            data = json_data(data)
        except NotJsonData as e:
            reader.fail(e.message, e.key_path)
        data = _adapt_shapes(data, reader.fail)
    except _Stop:
        raise _collected(reader.problems) from None
    reader.check_schema(data)

    part, fail, note = reader.part, reader.fail, reader.note
    warnings: list[str] = []
    name, title = part(lambda: _naming(data, stem, fail), (reader.intended, None))
    spec = data.get("parameters", {})
    no_parameters: tuple[tuple[Parameter, ...], bool | dict[str, t.Any]] = ((), False)
    parameters, additional = part(lambda: _parameters(spec, fail, note, reader.notice), no_parameters)
    no_definitions: tuple[dict[str, t.Any], str | None] = ({}, None)
    definitions, dialect = part(lambda: _definitions(spec, parameters, data.get("output"), fail), no_definitions)
    implementation = part(lambda: _implementation(data["implementation"], locate), None)
    examples = data.get("examples", [])
    no_examples: tuple[Example, ...] = ()
    structured = part(lambda: _examples(examples, parameters, fail), no_examples)
    no_variables: tuple[Variable, ...] = ()
    variables = part(lambda: _variables(data.get("environment", ()), note), no_variables)
    metadata = part(lambda: _metadata(data), None)

    def assemble() -> Tool | None:
        if implementation is None or metadata is None:
            return None
        return Tool(
            name=name,
            title=title,
            description=data["description"] if not reader.shaky else str(data.get("description", "")),
            parameters=parameters,
            additional_parameters=additional,
            implementation=implementation,
            examples=structured,
            requests=tuple(e for e in examples if isinstance(e, str)),
            environment=tuple(v if isinstance(v, str) else v["name"] for v in data.get("environment", ())),
            variables=variables,
            metadata=metadata,
            lint_ignore=tuple(data.get("lint", {}).get("ignore", ())),
            origin=Origin(path=display_path, format=fmt, source=source),
            definitions=definitions,
            dialect=dialect,
            output_schema=data.get("output", {}).get("schema"),
            output_media_type=data.get("output", {}).get("media_type"),
            notices=tuple(reader.notices),
        )

    tool = part(assemble, None)
    if tool is not None:
        _check_combinations(tool, note)
        assembled = tool
        tool = part(lambda: _checked(assembled, fail), None)
    if reader.problems:
        _enum_misfits(data, parameters, definitions, note)
        raise _collected(reader.problems)
    assert tool is not None  # a part that gave none noted why
    return tool, warnings


def _enum_misfits(
    data: dict[str, t.Any],
    parameters: tuple[Parameter, ...],
    definitions: dict[str, t.Any],
    note: t.Callable[..., None],
) -> None:
    """Note, with the problems of a definition that does not load, the enum members of the
    parameters it could read that no call can give: lint's ``enum-type``, which it would report
    of the tool loaded, so that one run of lint tells every mistake of the file."""
    from cogtools.schema.enums import Misfit, misfits  # (only for a definition that does not load)

    said = data.get("lint")
    ignore = said.get("ignore") if isinstance(said, dict) else None
    if isinstance(ignore, list) and "enum-type" in ignore:
        return
    spec = data.get("parameters")
    found: list[Misfit] = []
    for parameter in parameters:
        if isinstance(spec, list):
            index = next(
                i for i, item in enumerate(spec) if isinstance(item, dict) and item.get("name") == parameter.name
            )
            found += misfits(parameter.schema, ("parameters", index))
        elif isinstance(spec, dict) and spec.get("type") == "object":
            found += misfits(parameter.schema, ("parameters", "properties", parameter.name))
        else:
            found += misfits(parameter.schema, ("parameters", parameter.name))
    for name, definition in definitions.items():
        found += misfits(definition, ("parameters", "$defs", name))
    for misfit in found:
        note(misfit.message, misfit.key_path, rule="enum-type", hint=misfit.hint)


_T = t.TypeVar("_T")


class _Stop(Exception):
    """One part of a definition cannot be read further (its problem is noted)."""


#: What reading a part of a definition raises when the schema refused its shape: a key or an
#: index that is missing (``data["implementation"]``), an operation on a value of another type
#: (``None.get``, ``len(1)``, a list as a key, ``sorted`` of a number and a string), a value that
#: does not convert (``dict()`` of a list of lists).
MISREAD = (KeyError, IndexError, TypeError, AttributeError, ValueError)


class _Reader:
    """The problems of one definition as they are met, so that every independent one is told:
    a part with a problem is read no further, and the parts after it are read."""

    def __init__(self, intended: str, display_path: str, locate: Locate, key_prefix: KeyPath) -> None:
        #: The name the file means to define, so that a call of that name reports its problems.
        self.intended = intended
        self.display_path = display_path
        self.locate = locate
        self.key_prefix = key_prefix
        self.problems: list[DefinitionInvalidError] = []
        #: What was accepted with a fallback (:class:`~cogtools.core.model.Notice`), for lint.
        self.notices: list[Notice] = []
        #: Where the schema found problems.
        self.refused: list[KeyPath] = []
        #: Whether the schema refused something: then the rest is read as far as it can be.
        self.shaky = False

    def note(self, message: str, key_path: KeyPath = (), **details: t.Any) -> None:
        full = (*self.key_prefix, *key_path)
        if any(full[: len(where)] == where for where in self.refused):
            return  # the schema's problem there comes first: this one may be only its consequence
        self.problems.append(
            DefinitionInvalidError(
                message,
                tool=self.intended,
                path=self.display_path,
                line=self.locate(full) if full else None,
                key_path=full or None,
                details=details,
            )
        )

    def notice(self, rule: str, message: str, hint: str, key_path: KeyPath) -> None:
        """Keep what was accepted with a fallback, for lint to report under ``rule``."""
        full = (*self.key_prefix, *key_path)
        self.notices.append(Notice(rule, message, hint, self.locate(full), tuple(full)))

    def fail(self, message: str, key_path: KeyPath = (), **details: t.Any) -> t.NoReturn:
        self.note(message, key_path, **details)
        raise _Stop

    def check_schema(self, data: dict[str, t.Any]) -> None:
        """Note what the tool format's schema finds in ``data``; the parts it refused are read
        no further."""
        for invalid in schema_problems(data, "tool"):
            self.note(invalid.message, invalid.key_path, **invalid.details)
        # (a problem of the whole definition, such as a missing key, hides nothing below it)
        prefix = len(self.key_prefix)
        self.refused.extend(p.key_path for p in self.problems if p.key_path and len(p.key_path) > prefix)
        self.shaky = bool(self.problems)

    def part(self, read: t.Callable[[], _T], otherwise: _T) -> _T:
        """What ``read`` gives, or ``otherwise`` when that part of the definition has a problem
        (noted), so that the parts after it are checked too."""
        try:
            return read()
        except _Stop:
            return otherwise
        except DefinitionInvalidError as e:  # a kind's own check
            self.problems.append(e.with_tool(self.intended))
            return otherwise
        except MISREAD:  # a part the schema already refused, read no further
            if self.shaky:
                return otherwise
            raise


def _naming(data: dict[str, t.Any], stem: str, fail: t.Callable[..., t.NoReturn]) -> tuple[t.Any, t.Any]:
    """The tool's name and title: seed 004's ``id`` and ``name``, else its ``name`` (or the file's
    stem) and ``title``; not a name built into cogtools."""
    if "id" in data:
        name, title = data["id"], data.get("name", data.get("title"))
    else:
        name, title = data.get("name", stem), data.get("title")
        if "name" not in data and (problem := name_problem(name)):
            fail(f"the file name gives the tool name {name!r}, but {problem}; set `name`")
    if name in RESERVED_NAMES:
        fail(
            f"the name {name!r} is reserved for a tool built into cogtools; choose another",
            next(((key,) for key in ("id", "name") if key in data), ()),
        )
    return name, title


def _metadata(data: dict[str, t.Any]) -> Metadata:
    return Metadata(
        category=data.get("category"),
        risk_level=_risk(data.get("risk_level")),
        side_effects=tuple(data["side_effects"]) if "side_effects" in data else None,
        requires_admin=data.get("requires_admin", False),
        min_role=data.get("min_role"),
        requires_user_notice=data.get("requires_user_notice", False),
        requires_idle_check=data.get("requires_idle_check", False),
        keywords=tuple(data.get("keywords", ())),
        discoverable=data.get("discoverable", False),
        sandbox_read=tuple(data.get("sandbox", {}).get("read", ())),
        sandbox_write=tuple(data.get("sandbox", {}).get("write", ())),
        code=tuple(data.get("code", ())),
    )


def _check_combinations(tool: Tool, note: t.Callable[..., None]) -> None:
    """Note what the tool's keys say together that none says alone."""
    if tool.output_media_type is not None and tool.implementation.kind not in MEDIA_KINDS:
        note(
            f"a {tool.implementation.kind} tool returns text: `output.media_type` is for a tool whose program"
            f" prints the bytes ({', '.join(MEDIA_KINDS)})",
            ("output", "media_type"),
        )
    if tool.environment and tool.parameter("env") is not None:
        note("a tool that declares `environment` sees it as `env`: rename the parameter `env`", ("parameters", "env"))


def _checked(tool: Tool, fail: t.Callable[..., t.NoReturn]) -> Tool:
    """``tool`` as its kind checked it (a plan made at load time kept)."""
    try:
        found = runner(tool.implementation.kind)
    except LookupError as e:
        fail(str(e), ("implementation", "kind"))
    plan = found.check(tool)
    if plan is None and not tool.environment:
        plan = _text_plans(tool, found.templates(tool.implementation.spec))
    if plan is not None:
        tool = tool._replace(implementation=tool.implementation._replace(plan=plan))
    return tool


def _text_plans(tool: Tool, texts: t.Iterable[tuple[str, tuple[str | int, ...]]]) -> dict[str, t.Any] | None:
    """The plans of the templates (an argv's, a request's) of a kind that renders several, by
    their text (:func:`cogtools.run.templates.renderer` renders each by its plan when it can,
    without importing Jinja); None when none has one."""
    from cogtools.run.plan import build
    from cogtools.run.templates import environment

    parameters = [p.name for p in tool.parameters]
    plans: dict[str, t.Any] = {}
    for text, _ in texts:
        if isinstance(text, str) and text not in plans:
            plan = build(environment().parse(text), parameters)  # (parsed, and checked, by the kind already)
            if plan is not None:
                plans[text] = plan
    return plans or None


def collected(errors: t.Sequence[DefinitionInvalidError]) -> DefinitionInvalidError:
    """One error for the errors of several definitions of one file (a JSON array of tools), each
    perhaps carrying others already: the first, with every other problem in its details."""
    flat: list[DefinitionInvalidError] = []
    for error in errors:
        others = error.details.get("problems")
        details = {k: v for k, v in error.details.items() if k != "problems"}
        flat.append(error.replace(details=details))
        for other in others if isinstance(others, list) else ():
            flat.append(
                DefinitionInvalidError(
                    other["message"],
                    tool=error.tool,
                    path=other.get("path"),
                    line=other.get("line"),
                    key_path=other.get("key_path") or None,
                    details={key: other[key] for key in CARRIED if key in other},
                )
            )
    return _collected(flat)


#: What of a problem's details its entry among the others (``details.problems``) keeps: why a
#: template name was refused (``reason``), and the lint rule and hint of a problem that is a lint
#: finding of a definition that does not load (``enum-type``).
CARRIED = ("reason", "rule", "hint")


def _collected(problems: list[DefinitionInvalidError]) -> DefinitionInvalidError:
    """One error for every problem of a definition: the first's message, line and key path, and
    the others in its details (``problems``: message, line and key path each), which lint shows
    one by one."""
    first = problems[0]
    if len(problems) == 1:
        return first
    others = [
        {
            "message": p.message,
            "line": p.line,
            "key_path": list(p.key_path or ()),
            "path": p.path,
            **{key: p.details[key] for key in CARRIED if key in p.details},
        }
        for p in problems[1:]
    ]
    return first.replace(details={**first.details, "problems": others})


#: The kinds whose result may be bytes of a declared media type: what their program prints.
MEDIA_KINDS = ("command", "script")


def _definitions(
    spec: t.Any, parameters: tuple[Parameter, ...], output: dict[str, t.Any] | None, fail: t.Callable[..., t.NoReturn]
) -> tuple[dict[str, t.Any], str | None]:
    """The definitions the parameters and the output schema refer to (``$defs`` of the one
    object schema of the parameters, and of ``output``), each reference checked, and the JSON
    Schema dialect the parameters' schema names."""
    definitions: dict[str, t.Any] = {}
    dialect: str | None = None
    if isinstance(spec, dict) and spec.get("type") == "object":
        definitions, dialect = dict(spec.get("$defs", {})), spec.get("$schema")
    schemas = {p.name: p.schema for p in parameters}
    if output is not None:
        for name, definition in output.get("$defs", {}).items():
            if definitions.get(name, definition) != definition:
                fail(f"{name!r} is defined otherwise for the parameters", ("output", "$defs", name))
            definitions[name] = definition
    try:
        check_definitions(schemas, definitions)
    except Unreadable as e:
        fail(e.message, ("parameters", *e.path))
    if output is not None and "schema" in output:
        try:
            check_definitions({"schema": output["schema"]}, definitions)
        except Unreadable as e:
            fail(e.message, ("output", *e.path[1:]))
    return definitions, dialect


def _variables(entries: list[t.Any], note: t.Callable[..., None]) -> tuple[Variable, ...]:
    """The entries of ``environment`` written as mappings; a name declared twice is refused."""
    seen: set[str] = set()
    out = []
    for index, entry in enumerate(entries):
        name = entry if isinstance(entry, str) else entry["name"]
        if name in seen:
            note(f"the variable {name!r} is declared twice", ("environment", index))
        seen.add(name)
        if isinstance(entry, dict):
            out.append(Variable(name, secret=entry.get("secret", False), file=entry.get("file")))
    return tuple(out)


def _examples(
    examples: list[t.Any], parameters: tuple[Parameter, ...], fail: t.Callable[..., t.NoReturn]
) -> tuple[Example, ...]:
    """Example calls: a mapping of arguments, or ``{arguments: {...}, expect: {...}}`` (unless
    the tool has a parameter called ``arguments``); each is checked, whatever the one before it."""
    structured = not any(p.name == "arguments" for p in parameters)
    out = []
    for index, example in enumerate(examples):
        if not isinstance(example, dict):
            continue
        try:
            out.append(_example(index, example, structured, fail))
        except _Stop:  # noted: the next example is checked too
            continue
    return tuple(out)


def _example(index: int, example: dict[str, t.Any], structured: bool, fail: t.Callable[..., t.NoReturn]) -> Example:
    if not (structured and "arguments" in example and set(example) <= {"arguments", "expect"}):
        return Example(example)
    where = ("examples", index)
    arguments, expect = example["arguments"], example.get("expect")
    if not isinstance(arguments, dict):
        fail("an example's `arguments` is a mapping of arguments", (*where, "arguments"))
    if expect is not None:
        if not isinstance(expect, dict) or len(expect) != 1 or next(iter(expect)) not in EXPECTATIONS:
            fail(f"`expect` is one of: {', '.join(f'{{{k}: ...}}' for k in EXPECTATIONS)}", (*where, "expect"))
        ((kind, value),) = expect.items()
        if not isinstance(value, str):
            fail(f"`expect.{kind}` is a string", (*where, "expect", kind))
        if kind == "error" and value not in BY_CODE:
            fail(f"{value!r} is not an error code (known: {', '.join(BY_CODE)})", (*where, "expect", kind))
        if kind == "matches":
            try:
                re.compile(value)
            except re.error as e:
                fail(f"not a regular expression: {e}", (*where, "expect", kind))
    return Example(arguments, expect)


def _adapt_shapes(data: dict[str, t.Any], fail: t.Callable[..., t.NoReturn]) -> dict[str, t.Any]:
    """Seed 002's ``inputSchema`` and seed 000's upper-case ``parameters`` as OpenAPI 3.0."""
    if "inputSchema" in data:
        data = dict(data)
        read, definitions, dialect = _json_schema(data, "inputSchema", "parameters", fail)
        read.setdefault("properties", {})
        if definitions:
            read["$defs"] = definitions
        if dialect is not None:
            read["$schema"] = dialect
        data["parameters"] = read
    if "outputSchema" in data:
        data = dict(data)
        read, definitions, _ = _json_schema(data, "outputSchema", "output", fail)
        data["output"] = {"schema": read, **({"$defs": definitions} if definitions else {})}
    output = data.get("output")
    if isinstance(output, dict) and ("schema" in output) == ("media_type" in output):
        what = "not both" if "schema" in output else "one of them"
        fail(f"`output` says what the tool prints with `schema` or `media_type`, {what}", ("output",))
    parameters = data.get("parameters")
    if isinstance(parameters, dict) and parameters.get("type") == "OBJECT":
        data = {**data, "parameters": from_gemini_api(parameters)}
    return data


def _json_schema(
    data: dict[str, t.Any], key: str, instead_of: str, fail: t.Callable[..., t.NoReturn]
) -> tuple[dict[str, t.Any], dict[str, t.Any], str | None]:
    """``data[key]`` taken out of ``data``: a JSON Schema of type object (seed 002's
    ``inputSchema`` or ``outputSchema``), read as OpenAPI 3.0 with its definitions and dialect
    (:func:`cogtools.schema.dialects.read_input_schema`); refused beside ``instead_of``."""
    if instead_of in data:
        fail(f"give `{instead_of}` or `{key}`, not both", (key,))
    schema = data.pop(key)
    if not isinstance(schema, dict) or schema.get("type") != "object":
        fail(f"`{key}` is a JSON Schema of type object", (key,))
    try:
        return read_input_schema(schema)
    except Unreadable as e:
        fail(e.message, (key, *e.path))


def _kind_of(value: t.Any) -> str:
    if value is None:
        return "empty"
    return {list: "a list", str: "a string", int: "a number", float: "a number", bool: "a boolean"}.get(
        type(value), type(value).__name__
    )


def _parameters(
    spec: t.Any,
    fail: t.Callable[..., t.NoReturn],
    note: t.Callable[..., None],
    notice: t.Callable[..., None],
) -> tuple[tuple[Parameter, ...], bool | dict[str, t.Any]]:
    if isinstance(spec, list):
        listed = []
        seen: set[str] = set()
        for i, item in enumerate(spec):
            try:
                parameter = _list_item(i, item, fail, note, notice)
            except _Stop:  # noted: the next parameter is checked too
                continue
            if parameter.name in seen:
                note(f"the parameter {parameter.name!r} is declared twice", ("parameters", i, "name"))
            seen.add(parameter.name)
            listed.append(parameter)
        return tuple(listed), False
    if spec.get("type") == "object":
        properties = spec.get("properties", {})
        required = spec.get("required", [])
        for name in required:
            if name not in properties:
                note(
                    f"{name!r} is required but not among the properties",
                    ("parameters", "required"),
                )
        params = tuple(Parameter(n, s, n in required) for n, s in properties.items())
        return params, spec.get("additionalProperties", False)
    mapped = []
    for name, schema in spec.items():
        schema = dict(schema)
        optional = schema.pop("optional", False)
        mapped.append(Parameter(name, schema, not optional))
    return tuple(mapped), False


def _list_item(
    index: int,
    item: dict[str, t.Any],
    fail: t.Callable[..., t.NoReturn],
    note: t.Callable[..., None],
    notice: t.Callable[..., None],
) -> Parameter:
    """A parameter of the list form, with seed 003's types: its shorthands, ``array:TYPE``, and
    any other type read as a string (noticed for lint), unless it is a near miss of a known type
    or another language's name for one (an error that says which was meant)."""
    schema = {k: v for k, v in item.items() if k not in ("name", "required")}
    written = schema["type"]
    element = None
    base = written.lower()
    if base.startswith("array:"):
        base, element = "array", base.split(":", 1)[1]
    key = ("parameters", index, "type")
    if base == "array":
        if element is not None:
            item_type = TYPE_SHORTHANDS.get(element)
            if item_type is None:  # read as a string: an error is noted, so what uses it is checked too
                item_type = "string"
                _unknown_type(written.split(":", 1)[1], "item type", key, note, notice)
            schema["items"] = {"type": item_type, **schema.get("items", {})}
        schema["type"] = "array"
        if "items" not in schema:
            fail("an array parameter says its item type (`array:string`) or has `items`", key)
    elif base in TYPE_SHORTHANDS:
        schema["type"] = TYPE_SHORTHANDS[base]
    else:
        schema["type"] = "string"
        _unknown_type(written, "type", key, note, notice)
    return Parameter(item["name"], schema, bool(item.get("required", False)))


def _unknown_type(
    written: str, what: str, key: KeyPath, note: t.Callable[..., None], notice: t.Callable[..., None]
) -> None:
    """A type a list-form parameter names that is none of seed 003's: a near miss of one, or
    another language's name for one, is an error (``unknown type 'strin' (did you mean
    'string'?)``); any other is read as a string, as seed 003 says, and noticed for lint."""
    known = sorted({*TYPE_SHORTHANDS, "array"})
    meant = TYPE_ALIASES.get(written.lower())
    near = [meant] if meant is not None else close_names(written.lower(), known, cutoff=NEAR_MISS)
    if near:
        note(f"unknown {what} {written!r} ({did_you_mean(near)})", key)
        return
    notice(
        "type-unknown",
        f"unknown {what} {written!r}, read as string (seed 003's rule); known: {', '.join(known)}, array:TYPE",
        "name a known type, or `string` if a string is meant",
        key,
    )


def _implementation(spec: str | dict[str, t.Any], locate: Locate) -> Implementation:
    if isinstance(spec, str):
        return Implementation("template", {"template": spec}, locate(("implementation",), value=True))
    settings = {k: v for k, v in spec.items() if k != "kind"}
    key = "template" if spec["kind"] == "template" else "kind"
    return Implementation(spec["kind"], settings, locate(("implementation", key), value=True))


def _risk(value: str | None) -> str | None:
    if value is None:
        return None
    value = value.lower()
    return RISK_ALIASES.get(value, value)


def decode(data: bytes, display_path: str) -> str:
    """The text of a definition file: UTF-8 (a byte order mark dropped), else DEFINITION_INVALID."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise DefinitionInvalidError(
            f"not UTF-8 (byte {e.start}: {data[e.start : e.start + 1]!r})", path=display_path
        ) from e


def yaml_error(e: yaml.YAMLError, display_path: str, text: str | None = None) -> DefinitionInvalidError:
    """A YAML error of a definition (a YAML file, a script's header) as DEFINITION_INVALID."""
    from cogtools.core.yamlio import describe_error  # (PyYAML's: not for a JSON or TOML file)

    message, line = describe_error(e, text)
    return DefinitionInvalidError(message, path=display_path, line=line)
