"""The one error model of cogtools.

Every failure the core can report is a :class:`CogtoolsError` subclass. Each class carries a
stable ``code`` (part of the API: models and scripts match on it) and one fixed ``exit_status``.
The core raises these and never prints or exits; the CLI boundary turns them into the JSON error
object, a line for a person and the exit status, once.
"""

from __future__ import annotations

import typing as t

if t.TYPE_CHECKING:
    import typing_extensions as te


class CogtoolsError(Exception):
    """Base of every domain error.

    ``message`` is one sentence for a person; ``details`` is a JSON-compatible mapping for a
    program (which field, what was given, what is accepted). ``path``, ``line`` and
    ``key_path`` locate the error inside a definition or configuration file.
    """

    code: t.ClassVar[str] = "INTERNAL"
    exit_status: t.ClassVar[int] = 70

    #: The fields of an error; set once, when it is made (see :meth:`replace`).
    FIELDS: t.ClassVar[tuple[str, ...]] = ("message", "tool", "details", "path", "line", "key_path")

    def __init__(
        self,
        message: str,
        *,
        tool: str | None = None,
        details: t.Mapping[str, t.Any] | None = None,
        path: str | None = None,
        line: int | None = None,
        key_path: t.Sequence[str | int] | None = None,
    ) -> None:
        super().__init__(message)
        set_field = super().__setattr__
        set_field("message", message)
        set_field("tool", tool)
        set_field("details", dict(details or {}))
        set_field("path", path)
        set_field("line", line)
        set_field("key_path", tuple(key_path) if key_path is not None else None)

    # Errors are values: what an error says is fixed when it is made, so that ``str``, ``repr``,
    # ``args`` and the JSON can never disagree (a secret masked in one but kept in another).
    message: str
    tool: str | None
    details: dict[str, t.Any]
    path: str | None
    line: int | None
    key_path: tuple[str | int, ...] | None

    def __setattr__(self, name: str, value: t.Any) -> None:
        if name in self.FIELDS:
            raise AttributeError(f"{type(self).__name__}.{name} is fixed; make a new error with replace()")
        super().__setattr__(name, value)

    def __reduce__(self) -> tuple[t.Any, ...]:
        return _rebuild, (type(self), {name: getattr(self, name) for name in self.FIELDS})

    def replace(self, **changes: t.Any) -> te.Self:
        """A new error of the same class with ``changes`` to its fields, caused by what caused
        this one."""
        fields = {name: getattr(self, name) for name in self.FIELDS}
        fields.update(changes)
        new = type(self)(fields.pop("message"), **fields)
        new.__cause__ = self.__cause__  # and no context: the new error stands for this one
        return new

    def with_tool(self, tool: str | None) -> te.Self:
        """This error, naming ``tool`` as the one whose call it broke unless it names one already."""
        return self if self.tool is not None or tool is None else self.replace(tool=tool)

    def scrubbed(self, scrub: t.Callable[[t.Any], t.Any]) -> te.Self:
        """A new error whose message and details went through ``scrub`` (which masks secrets), with
        no cause or context: nothing of the original, which may hold a secret, stays attached."""
        new = self.replace(message=scrub(self.message), details=scrub(self.details))
        new.__cause__ = None
        return new

    def location(self) -> str:
        """``file:line: key.path`` for the parts that are known, or an empty string."""
        parts = []
        if self.path is not None:
            parts.append(self.path if self.line is None else f"{self.path}:{self.line}")
        if self.key_path:
            parts.append(format_key_path(self.key_path))
        return ": ".join(parts)

    def __str__(self) -> str:
        where = self.location()
        return f"{where}: {self.message}" if where else self.message

    def to_json(self) -> dict[str, t.Any]:
        """The error object that ``cogtools-call`` prints on stdout."""
        details = dict(self.details)
        if self.path is not None:
            details.setdefault("file", self.path)
        if self.line is not None:
            details.setdefault("line", self.line)
        if self.key_path:
            details.setdefault("key", format_key_path(self.key_path))
        return {
            "error": {
                "code": self.code,
                "message": str(self),
                "tool": self.tool,
                "details": details,
            }
        }


def format_key_path(key_path: t.Iterable[str | int]) -> str:
    """``("parameters", "count", "minimum")`` -> ``parameters.count.minimum``; list items as ``[0]``,
    and ``"[]"`` (every item of an array, in a schema) as ``[]``."""
    out = ""
    for key in key_path:
        if isinstance(key, int):
            out += f"[{key}]"
        elif key == "[]":
            out += key
        else:
            out += f".{key}" if out else str(key)
    return out


class UsageError(CogtoolsError):
    """The command line is wrong (unknown option, missing argument), or stdout cannot be written."""

    code, exit_status = "USAGE", 2


class ToolNotFoundError(CogtoolsError):
    """No tool of that name is defined for this directory, or none the policy shows this caller."""

    code, exit_status = "TOOL_NOT_FOUND", 3


class InvalidInputError(CogtoolsError):
    """Stdin is not a JSON (or YAML) object, not UTF-8, or too large."""

    code, exit_status = "INVALID_INPUT", 4


class SchemaViolationError(CogtoolsError):
    """The arguments do not match the tool's parameter schema."""

    code, exit_status = "SCHEMA_VIOLATION", 5


class DefinitionInvalidError(CogtoolsError):
    """The tool's definition file is broken."""

    code, exit_status = "DEFINITION_INVALID", 6


class ConfigInvalidError(CogtoolsError):
    """A configuration file is broken."""

    code, exit_status = "CONFIG_INVALID", 7


class PolicyDeniedError(CogtoolsError):
    """Policy does not allow this caller to run this tool."""

    code, exit_status = "POLICY_DENIED", 8


class RenderFailedError(CogtoolsError):
    """The tool's template failed while rendering."""

    code, exit_status = "RENDER_FAILED", 9


class ExecutionFailedError(CogtoolsError):
    """The tool's program could not run or exited non-zero."""

    code, exit_status = "EXECUTION_FAILED", 10


class ToolTimeoutError(CogtoolsError):
    """The tool's program ran past its time limit and was killed."""

    code, exit_status = "TIMEOUT", 11


class InternalError(CogtoolsError):
    """A bug in cogtools."""

    code, exit_status = "INTERNAL", 70


_ALL: tuple[type[CogtoolsError], ...] = (
    UsageError,
    ToolNotFoundError,
    InvalidInputError,
    SchemaViolationError,
    DefinitionInvalidError,
    ConfigInvalidError,
    PolicyDeniedError,
    RenderFailedError,
    ExecutionFailedError,
    ToolTimeoutError,
    InternalError,
)


def _meaning(cls: type[CogtoolsError]) -> str:
    """The class's one-sentence docstring as a phrase: "A bug in cogtools." -> "a bug in cogtools"."""
    doc = (cls.__doc__ or "").strip().rstrip(".")
    return doc[:1].lower() + doc[1:]


#: (code, exit status, meaning) of every error code, in the order they are documented.
ERROR_TABLE: tuple[tuple[str, int, str], ...] = tuple((cls.code, cls.exit_status, _meaning(cls)) for cls in _ALL)

#: code -> class, for code that has a code in hand (the cache, tests).
BY_CODE: dict[str, type[CogtoolsError]] = {cls.code: cls for cls in _ALL}


def _rebuild(cls: type[CogtoolsError], fields: dict[str, t.Any]) -> CogtoolsError:
    return cls(fields.pop("message"), **fields)


def close_names(name: str, known: t.Iterable[str], n: int = 1, cutoff: float = 0.6) -> list[str]:
    """The (at most ``n``) names of ``known`` closest to ``name``, closest first: what a message
    suggests for a misspelling."""
    import difflib

    return difflib.get_close_matches(name, list(known), n=n, cutoff=cutoff)


def did_you_mean(near: t.Sequence[str]) -> str:
    """``did you mean 'a' or 'b'?`` for the names in ``near`` ("" when there are none)."""
    return f"did you mean {' or '.join(repr(name) for name in near)}?" if near else ""
