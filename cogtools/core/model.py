"""The one in-memory model of a tool.

Every source format (YAML, TOML, JSON in seed 003's and seed 002's shapes, and script headers)
loads into these immutable records, and nothing downstream knows which format a tool came from;
the built-in tools (:mod:`cogtools.services.builtin`) are such records too. The schema mappings held
here are plain JSON-compatible dicts: treat them as read-only; code that changes a schema copies
it first.

The records are ``NamedTuple``s rather than frozen dataclasses: every ``cogtools-call`` is a new
process that imports this module, and a dataclass costs about six times as much to create.

``to_dict``/``from_dict`` give a JSON form of a tool, which is what the catalog cache stores, so
that a warm call never parses YAML.
"""

from __future__ import annotations

import re
import typing as t

#: A tool name: what Gemini CLI passes to the call command and shows the model (prefixed with
#: ``discovered_tool_``, whence the 48-character cap under the API's 64).
NAME_PATTERN = r"[A-Za-z_][A-Za-z0-9_.-]*"
NAME_MAX_LENGTH = 48
_NAME_RE = re.compile(NAME_PATTERN)
NAME_RULE = f"a name matching {NAME_PATTERN}, without '..', at most {NAME_MAX_LENGTH} characters"

#: The meta-tools of discovery mode (:mod:`cogtools.services.discovery`); no definition may take these names.
SEARCH_TOOL = "cogtools_search"
CALL_TOOL = "cogtools_call"
#: Offered by discovery when some tools could not be loaded (:mod:`cogtools.services.doctor`).
PROBLEMS_TOOL = "cogtools_problems"
RESERVED_NAMES = frozenset({SEARCH_TOOL, CALL_TOOL, PROBLEMS_TOOL})

#: The parameter Gemini CLI adds to every object schema it is given.
WAIT_FOR_PREVIOUS = "wait_for_previous"

#: Seed 001's risk levels on seed 000's scale (low, medium, high); the accepted values of every
#: metadata field are in the tool format's JSON Schema.
RISK_ALIASES = {"safe": "low", "caution": "medium", "elevated": "high"}


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a tool name, or None when it can."""
    if not _NAME_RE.fullmatch(name):
        return f"a tool name matches {NAME_PATTERN}"
    if ".." in name:
        return "a tool name does not contain '..'"
    if len(name) > NAME_MAX_LENGTH:
        return f"a tool name has at most {NAME_MAX_LENGTH} characters"
    return None


class Parameter(t.NamedTuple):
    """One named parameter: an OpenAPI 3.0 Schema Object, with the sugar already removed."""

    name: str
    schema: t.Mapping[str, t.Any]
    required: bool = True


class Example(t.NamedTuple):
    """An example call: arguments that must validate against the schema, and what the call is
    expected to give (None: it must simply succeed)."""

    arguments: t.Mapping[str, t.Any]
    #: One of ``{"output": TEXT}`` (exact), ``{"contains": TEXT}``, ``{"matches": REGEX}`` or
    #: ``{"error": CODE}``.
    expect: t.Mapping[str, t.Any] | None = None


#: The ways an example may say what it expects.
EXPECTATIONS = ("output", "contains", "matches", "error")


class Implementation(t.NamedTuple):
    """What runs when the tool is called: a ``kind`` (a key of :mod:`cogtools.run`'s registry)
    and that kind's own settings (for ``template``: ``{"template": SOURCE}``).

    ``line`` is where the implementation starts in its file, for error messages.
    """

    kind: str
    spec: t.Mapping[str, t.Any]
    line: int | None = None
    #: What loading made of the settings for a faster call, kept in the cache with the tool (a
    #: template's plan, :mod:`cogtools.run.plan`); None when there is nothing.
    plan: t.Any = None


class Variable(t.NamedTuple):
    """A declared environment variable written as a mapping: a secret, or one whose value may come
    from a file (``{name: TOKEN, secret: true, file: ~/.config/x/token}``)."""

    name: str
    #: Its value is never shown (masked as ``***`` wherever cogtools would print it, a result
    #: included), and the call fails, naming where it looked, when it is set nowhere.
    secret: bool = False
    #: Where the value is read when neither the project's .env nor the process environment sets
    #: it: a path relative to the project root, or absolute, or under ``~``.
    file: str | None = None


class Metadata(t.NamedTuple):
    """What a tool says about itself besides its interface (seeds 000, 001, 003).

    ``None`` means the definition does not say; policy decides what that implies.
    """

    category: str | None = None
    risk_level: str | None = None
    side_effects: tuple[str, ...] | None = None
    requires_admin: bool = False
    min_role: str | None = None
    requires_user_notice: bool = False
    requires_idle_check: bool = False
    keywords: tuple[str, ...] = ()
    discoverable: bool = False
    #: Paths its programs may read, and write, besides what ``side_effects`` gives (``sandbox``).
    sandbox_read: tuple[str, ...] = ()
    sandbox_write: tuple[str, ...] = ()
    #: The code of the workspace it runs beyond what cogtools infers (``code``): files, and
    #: directories whole, relative to the project root, which its pin covers.
    code: tuple[str, ...] = ()


class Origin(t.NamedTuple):
    """Where a tool was defined: the file, its format, and the source that found it."""

    path: str
    format: str
    source: str = "project"
    #: The SHA-256 of the bytes the tool was built from (None for a built-in tool): a pin that
    #: holds for those bytes holds for the tool as built, with no second parse.
    digest: str | None = None


class Notice(t.NamedTuple):
    """Something a definition said that loading accepted with a fallback (seed 003's unknown
    type, read as a string): the tool loads, and ``cogtools lint`` reports it under ``rule``."""

    rule: str
    message: str
    hint: str = ""
    line: int | None = None
    key_path: tuple[str | int, ...] = ()


#: Where the tools built into cogtools (the meta-tools, cogtools_problems) come from.
BUILT_IN_ORIGIN = Origin(path="(built in)", format="builtin", source="cogtools")


class Tool(t.NamedTuple):
    """A tool, whatever it was written in."""

    name: str
    description: str
    implementation: Implementation
    origin: Origin
    parameters: tuple[Parameter, ...] = ()
    #: OpenAPI ``additionalProperties`` of the arguments object: False rejects unknown arguments.
    additional_parameters: bool | t.Mapping[str, t.Any] = False
    #: Example calls (arguments, and optionally what they should give).
    examples: tuple[Example, ...] = ()
    #: Example requests in words (seed 000), for search and prompting.
    requests: tuple[str, ...] = ()
    #: A human title (seed 000's ``name`` when ``id`` is the identifier).
    title: str | None = None
    #: The environment variables the implementation may see (names only: values are read at
    #: call time and never stored).
    environment: tuple[str, ...] = ()
    metadata: Metadata = Metadata()
    #: The lint rules not reported for this tool (its ``lint: {ignore: [...]}``).
    lint_ignore: tuple[str, ...] = ()
    #: The entries of ``environment`` that say more than a name (secrets, files); their names are
    #: in ``environment`` too.
    variables: tuple[Variable, ...] = ()
    #: Schemas the parameters refer to (``{"$ref": "#/$defs/NAME"}``), by name: OpenAPI 3.0
    #: Schema Objects, as the parameters are (JSON Schema's ``$defs``).
    definitions: t.Mapping[str, t.Any] = {}
    #: The JSON Schema dialect the definition named for its parameters (``$schema``), when it is
    #: one whose keywords the exports write (2020-12, 2019-09): given back to MCP clients.
    dialect: str | None = None
    #: What the tool prints, when it says: an OpenAPI 3.0 Schema Object of type object (it may
    #: refer to :attr:`definitions`). Each result is checked against it.
    output_schema: t.Mapping[str, t.Any] | None = None
    #: The media type of the bytes the tool's program prints, when it says (``image/png``): its
    #: result is then those bytes, carried as base64 text through the call.
    output_media_type: str | None = None
    #: What loading accepted with a fallback, for lint (:class:`Notice`).
    notices: tuple[Notice, ...] = ()

    def secrets(self) -> tuple[str, ...]:
        """The names of the declared variables that are secret."""
        return tuple(v.name for v in self.variables if v.secret)

    def summary(self) -> str:
        """The first non-blank line of the description."""
        for line in self.description.splitlines():
            if line.strip():
                return line.strip()
        return ""

    def parameter(self, name: str) -> Parameter | None:
        for parameter in self.parameters:
            if parameter.name == name:
                return parameter
        return None

    def input_schema(self) -> dict[str, t.Any]:
        """The arguments object as one OpenAPI 3.0 Schema Object."""
        schema: dict[str, t.Any] = {
            "type": "object",
            "properties": {p.name: dict(p.schema) for p in self.parameters},
        }
        required = [p.name for p in self.parameters if p.required]
        if required:
            schema["required"] = required
        schema["additionalProperties"] = self.additional_parameters
        if self.definitions:
            schema["$defs"] = {name: dict(definition) for name, definition in self.definitions.items()}
        return schema

    def result_schema(self) -> dict[str, t.Any] | None:
        """The output schema as one OpenAPI 3.0 Schema Object, with the definitions it may
        refer to; None when the tool does not say what it prints."""
        if self.output_schema is None:
            return None
        schema = dict(self.output_schema)
        if self.definitions:
            schema["$defs"] = {name: dict(definition) for name, definition in self.definitions.items()}
        return schema

    def to_dict(self) -> dict[str, t.Any]:
        """A JSON-compatible form that :meth:`from_dict` reads back to an equal tool."""
        return t.cast("dict[str, t.Any]", _jsonable(self))

    @classmethod
    def from_dict(cls, data: t.Mapping[str, t.Any]) -> Tool:
        meta = dict(data["metadata"])
        for key in ("side_effects", "keywords", "sandbox_read", "sandbox_write", "code"):
            if meta.get(key) is not None:
                meta[key] = tuple(meta[key])
        return cls(
            name=data["name"],
            description=data["description"],
            implementation=Implementation(**data["implementation"]),
            origin=Origin(**data["origin"]),
            parameters=tuple(Parameter(**p) for p in data["parameters"]),
            additional_parameters=data["additional_parameters"],
            examples=tuple(Example(**example) for example in data["examples"]),
            requests=tuple(data["requests"]),
            title=data["title"],
            environment=tuple(data["environment"]),
            metadata=Metadata(**meta),
            lint_ignore=tuple(data["lint_ignore"]),
            variables=tuple(Variable(**v) for v in data["variables"]),
            definitions=data["definitions"],
            dialect=data["dialect"],
            output_schema=data["output_schema"],
            output_media_type=data["output_media_type"],
            notices=tuple(
                Notice(n["rule"], n["message"], n["hint"], n["line"], tuple(n["key_path"]))
                for n in data.get("notices", ())
            ),
        )


def _jsonable(value: t.Any) -> t.Any:
    if hasattr(value, "_asdict"):  # a record of this module
        return {k: _jsonable(v) for k, v in value._asdict().items()}
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value
