"""The check every implementation kind makes of its own settings (the keys under
``implementation``): which it has, which it may have, and of which type each is."""

from __future__ import annotations

import typing as t

from cogtools.core.errors import DefinitionInvalidError

if t.TYPE_CHECKING:
    from cogtools.core.model import Tool

TypeSpec = t.Union[type, t.Tuple[type, ...]]


def _type_name(kind: TypeSpec) -> str:
    names = {str: "a string", list: "a list", int: "a number", float: "a number", bool: "true or false"}
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return names.get(kinds[0], kinds[0].__name__)


def _is_a(value: t.Any, kind: TypeSpec) -> bool:
    """isinstance, except that true and false are not numbers (``timeout: true`` is a mistake,
    not one second)."""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        return False
    return isinstance(value, kinds)


def check_keys(tool: Tool, required: t.Mapping[str, TypeSpec], optional: t.Mapping[str, TypeSpec] = {}) -> None:
    """DEFINITION_INVALID unless the implementation's settings are exactly ``required`` plus some
    of ``optional``, each of its type."""
    impl = tool.implementation
    known = {**required, **optional}
    problems = [f"unknown key {key!r}" for key in sorted(set(impl.spec) - set(known))]
    problems += [f"`{key}` is required" for key in required if key not in impl.spec]
    problems += [
        f"`{key}` must be {_type_name(kind)}"
        for key, kind in known.items()
        if key in impl.spec and not _is_a(impl.spec[key], kind)
    ]
    if problems:
        raise DefinitionInvalidError(
            f"a {impl.kind} implementation has {', '.join(['kind', *map(repr, known)])}: {problems[0]}",
            tool=tool.name,
            path=tool.origin.path,
            key_path=("implementation",),
            line=impl.line,
        )


def fail(tool: Tool, message: str, *key: str | int) -> t.NoReturn:
    """DEFINITION_INVALID at the implementation's key ``key``."""
    raise DefinitionInvalidError(
        message, tool=tool.name, path=tool.origin.path, key_path=("implementation", *key), line=tool.implementation.line
    )
