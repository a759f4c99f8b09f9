"""The one error model of cogtools.

Every failure the core can report is a :class:`CogtoolsError` subclass. Each class carries a
stable ``code`` (part of the API: models and scripts match on it) and one fixed ``exit_status``.
The core raises these and never prints or exits; the CLI boundary turns them into the JSON error
object, a line for a person and the exit status, once.
"""

from __future__ import annotations

import typing as t


class CogtoolsError(Exception):
    """Base of every domain error.

    ``message`` is one sentence for a person; ``details`` is a JSON-compatible mapping for a
    program (which field, what was given, what is accepted). ``path``, ``line`` and
    ``key_path`` locate the error inside a definition or configuration file.
    """

    code: t.ClassVar[str] = "INTERNAL"
    exit_status: t.ClassVar[int] = 70

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
        self.message = message
        self.tool = tool
        self.details: dict[str, t.Any] = dict(details or {})
        self.path = path
        self.line = line
        self.key_path = tuple(key_path) if key_path is not None else None

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
    """No tool of that name is defined for this directory."""

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
