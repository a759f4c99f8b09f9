"""The OpenAPI validator, run by :mod:`cogtools.importers.openapi` in a child process it can kill.

``openapi-spec-validator`` is the check a document gets before its operations are read; this
module runs it with three changes, so that what a hostile document can make of it is bounded:

- **it reads nothing and fetches nothing**: every reference it would retrieve (``file:``,
  ``http(s):``, a relative path, any scheme) is refused, whatever the document says (the importer
  refuses a document with a reference outside itself before this runs; this is the second wall);
- **its registries are sets**: it keeps the schemas it visited and the operationIds it saw in
  lists, so that a document of 20,000 operations took minutes (each new one compared with all
  before it); here a membership test is a set's;
- **what an ``allOf`` collects is remembered per schema**: its walk of the properties an
  ``allOf`` has was exponential in the nesting of ``allOf``, ``anyOf`` and ``oneOf`` through
  references (two references to the next of 40 schemas: 2**40 visits).

What it cannot bound itself (a validation that backtracks, memory), the parent bounds: it runs
this as ``python -I -m cogtools.importers.spec_check`` (``-I``: nothing of the working directory
or of ``PYTHON*`` variables is imported) with a time limit, and kills it past that.

Reads ``{"version": "3.0" | "3.1", "document": {...}}`` (JSON) on stdin; writes one JSON object
on stdout: ``{"valid": true}``, ``{"message": ..., "path": [...]}`` (the validator's first
finding), ``{"outside": URI}`` (a reference it would have retrieved), ``{"loop": true}`` (its
recursion ran out: references that loop, or nest too deeply) or ``{"failure": ...}``.
"""

from __future__ import annotations

import json
import sys
import typing as t

#: The longest message of a finding that is passed on.
MESSAGE_MAX = 300


class Outside(Exception):
    """A reference the validator tried to retrieve: refused."""

    def __init__(self, uri: str) -> None:
        super().__init__(f"{uri!r} is outside the document: only references within it are followed")
        self.uri = uri


def _refuse(uri: str) -> t.NoReturn:
    raise Outside(uri)


class _Nowhere(dict[str, t.Any]):
    """The validator's retrieval handlers, by URI scheme: a refusal for every scheme (one it has
    no handler for would otherwise be opened with ``urllib``)."""

    def __contains__(self, scheme: object) -> bool:
        return True

    def __missing__(self, scheme: str) -> t.Callable[[str], t.NoReturn]:
        return _refuse


class _Seen(list[t.Any]):
    """A list (as the validator keeps its registries) whose membership test is a set's."""

    def __init__(self) -> None:
        super().__init__()
        self._set: set[t.Any] = set()

    def append(self, item: t.Any) -> None:
        super().append(item)
        try:
            self._set.add(item)
        except TypeError:  # unhashable: found by the list's own scan
            pass

    def __contains__(self, item: object) -> bool:
        try:
            return item in self._set
        except TypeError:
            return list.__contains__(self, item)


def _linear(base: type[t.Any]) -> type[t.Any]:
    """``base`` (a keyword validator) with its list registries made :class:`_Seen`, and, for a
    schema validator, what ``_collect_properties`` found remembered per schema."""

    class Linear(base):  # type: ignore[misc]
        def __init__(self, registry: t.Any) -> None:
            super().__init__(registry)
            for name in ("operation_ids_registry", "visited_schema_ids", "meta_checked_schema_ids"):
                if isinstance(getattr(self, name, None), list):
                    setattr(self, name, _Seen())
            self._collected: dict[int, set[str]] = {}

        def _collect_properties(self, schema: t.Any) -> set[str]:
            key = id(schema.read_value())
            if key not in self._collected:
                self._collected[key] = set()  # a loop back to it adds nothing more
                self._collected[key] = super()._collect_properties(schema)
            return self._collected[key]

    Linear.__name__ = Linear.__qualname__ = f"Linear{base.__name__}"
    return Linear


def validator(version: str, document: dict[str, t.Any]) -> t.Any:
    """The validator of OpenAPI ``version`` (3.0 or 3.1) for ``document``, changed as above."""
    from openapi_spec_validator import OpenAPIV30SpecValidator, OpenAPIV31SpecValidator
    from openapi_spec_validator.validation import keywords

    base = OpenAPIV31SpecValidator if version == "3.1" else OpenAPIV30SpecValidator
    changed = dict(base.keyword_validators)
    for keyword, cls in base.keyword_validators.items():
        if issubclass(cls, (keywords.OperationValidator, keywords.SchemaValidator)):
            changed[keyword] = _linear(cls)
    bounded = type(f"Bounded{base.__name__}", (base,), {"resolver_handlers": _Nowhere(), "keyword_validators": changed})
    return bounded(document)


def first_finding(version: str, document: dict[str, t.Any]) -> dict[str, t.Any]:
    """What the validator says of ``document`` first, as this module writes it."""
    try:
        error = next(iter(validator(version, document).iter_errors()), None)
    except RecursionError:
        return {"loop": True}
    except Exception as e:  # noqa: BLE001 (the validator's own failures: a reference it cannot resolve...)
        outside = _outside(e)
        if outside is not None:
            return {"outside": outside.uri}
        return {"failure": _one_line(str(e))[:MESSAGE_MAX] or type(e).__name__}
    if error is None:
        return {"valid": True}
    path = [p if isinstance(p, (str, int)) else str(p) for p in (getattr(error, "absolute_path", ()) or ())]
    leaves = [e for e in (getattr(error, "context", None) or []) if e.path]
    best = min(leaves, key=lambda e: len(e.path)) if leaves else error
    message = _one_line(str(getattr(best, "message", best))).split(" Failed validating", 1)[0][:MESSAGE_MAX]
    return {"message": message, "path": path}


def _outside(error: BaseException) -> Outside | None:
    """The refused retrieval at the root of ``error``, if it is one."""
    seen: set[int] = set()
    stack: list[BaseException | None] = [error]
    while stack:
        item = stack.pop()
        if item is None or id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, Outside):
            return item
        stack += [item.__cause__, item.__context__]
    return None


def _one_line(text: str) -> str:
    return " ".join(text.split())


def main() -> int:
    request = json.loads(sys.stdin.buffer.read())
    json.dump(first_finding(str(request["version"]), request["document"]), sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
