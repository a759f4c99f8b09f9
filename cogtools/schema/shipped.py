"""The JSON Schemas the package ships (the tool format, the configuration) and the check of a
document against one of them.

:func:`schema_problem` names the one problem a person should fix first, with its key path, and
lists the others in its details; a misspelt key is named first, with the nearest known key.
"""

from __future__ import annotations

import functools
import json
import re
import typing as t

from cogtools.core.errors import close_names, did_you_mean, format_key_path

if t.TYPE_CHECKING:
    import jsonschema

KeyPath = t.Tuple[t.Union[str, int], ...]

#: Schema name -> file in this package.
SCHEMAS = {"tool": "tool.schema.json", "config": "config.schema.json"}

_UNEXPECTED_RE = re.compile(r"'((?:[^'\\]|\\.)*)'")


class Problem(t.NamedTuple):
    message: str
    key_path: KeyPath
    details: dict[str, t.Any]


@functools.lru_cache(maxsize=None)
def load_schema(name: str) -> dict[str, t.Any]:
    """The JSON Schema ``name`` (a key of :data:`SCHEMAS`), as shipped in the package."""
    from importlib.resources import files

    text = files("cogtools.schema").joinpath(SCHEMAS[name]).read_text(encoding="utf-8")
    return t.cast("dict[str, t.Any]", json.loads(text))


@functools.lru_cache(maxsize=None)
def _validator(name: str) -> jsonschema.protocols.Validator:
    import jsonschema

    from cogtools.schema import patterns

    # `format: regex` is a JSON Schema pattern: ECMA-262, which is what every check of a pattern
    # (ours at call time, ajv in Gemini CLI) compiles, not Python's `re`.
    checker = jsonschema.FormatChecker(())
    checker.checks("regex", raises=patterns.PatternError)(
        lambda value: not isinstance(value, str) or bool(patterns.compiled(value))
    )
    return jsonschema.Draft202012Validator(load_schema(name), format_checker=checker)


@functools.lru_cache(maxsize=None)
def _fast_validator(name: str) -> t.Any:
    """Schema ``name`` compiled by jsonschema-rs: a verdict in microseconds, where importing
    jsonschema alone takes longer than reading a definition. It is trusted only to say "valid"
    (tests hold that it never does where jsonschema would not); jsonschema decides the rest and
    names the problem."""
    import jsonschema_rs

    from cogtools.schema import patterns

    def regex(value: str) -> bool:
        try:
            return bool(patterns.compiled(value))
        except (patterns.PatternError, TypeError, ValueError):
            return False

    return jsonschema_rs.Draft202012Validator(load_schema(name), formats={"regex": regex}, validate_formats=True)


def schema_problem(data: t.Any, name: str) -> Problem | None:
    """The problem to report first when ``data`` does not match schema ``name``; None if it does."""
    try:
        if _fast_validator(name).is_valid(data):
            return None
    except (ValueError, TypeError, RecursionError):  # jsonschema-rs refused the data: jsonschema decides
        pass
    from jsonschema.exceptions import best_match

    errors = list(_validator(name).iter_errors(data))
    if not errors:
        return None
    # A misspelt key is the likeliest cause of everything else (a missing `description` is
    # usually a `descripton`), so it is named first.
    unknown = [e for e in errors if e.validator in ("additionalProperties", "unevaluatedProperties")]
    best = min(unknown, key=lambda e: len(e.absolute_path)) if unknown else best_match(errors)
    message, key_path = _described(best, name)
    others = [f"{format_key_path(e.absolute_path) or '(top)'}: {e.message}" for e in errors if e is not best]
    return Problem(message, key_path, {"other_errors": others[:10]} if others else {})


def schema_problems(data: t.Any, name: str) -> list[Problem]:
    """Every problem of ``data`` against schema ``name``, one for each error jsonschema finds (the
    likeliest alternative of one that has several): misspelt keys first, then in document order.
    A required key that a misspelt one nearby stands for (``descripton`` for ``description``) is
    not said again. Empty when it matches."""
    try:
        if _fast_validator(name).is_valid(data):
            return []
    except (ValueError, TypeError, RecursionError):
        pass
    from jsonschema.exceptions import best_match

    errors = list(_validator(name).iter_errors(data))
    if not errors:
        return []
    unknown = [e for e in errors if e.validator in ("additionalProperties", "unevaluatedProperties")]
    # For each mapping, the keys a misspelling there may stand for.
    meant: dict[tuple[t.Any, ...], set[str]] = {}
    for error in unknown:
        known = _known_keys(t.cast("t.Mapping[str, t.Any]", error.schema), name)
        for key in _UNEXPECTED_RE.findall(error.message.rsplit("(", 1)[-1]):
            meant.setdefault(tuple(error.absolute_path), set()).update(close_names(key, known))
    # The first is the one schema_problem names; the others in the order jsonschema found them.
    top = min(unknown, key=lambda e: len(e.absolute_path)) if unknown else best_match(errors)
    chosen = [top]
    for error in sorted(errors, key=lambda e: e not in unknown):
        if error is top or any(top is sub for sub in _descendants(error)):
            continue
        if error.validator == "required" and isinstance(error.validator_value, list):
            missing = [k for k in error.validator_value if isinstance(error.instance, dict) and k not in error.instance]
            if missing and set(missing) <= meant.get(tuple(error.absolute_path), set()):
                continue
        chosen.append(error if error in unknown else best_match([error]))
    out: list[Problem] = []
    seen: set[tuple[str, KeyPath]] = set()
    for best in chosen:
        message, key_path = _described(best, name)
        if (message, key_path) not in seen:
            seen.add((message, key_path))
            out.append(Problem(message, key_path, {}))
    return out


def _descendants(error: t.Any) -> t.Iterator[t.Any]:
    """The errors under ``error`` (the alternatives of an anyOf, oneOf), all the way down."""
    for sub in error.context or ():
        yield sub
        yield from _descendants(sub)


def _described(best: t.Any, name: str) -> tuple[str, KeyPath]:
    """What a person is told of one jsonschema error, and where."""
    key_path: KeyPath = tuple(best.absolute_path)
    message = best.message
    if best.validator == "format" and best.validator_value == "regex":
        message = (
            f"{best.instance!r} is {best.cause}; a JSON Schema pattern is ECMA-262"
            " (write (?<name>...) for (?P<name>...), $ for \\Z, and no inline flags such as (?i))"
        )
    if best.validator in ("additionalProperties", "unevaluatedProperties"):
        unexpected = _UNEXPECTED_RE.findall(message.rsplit("(", 1)[-1])
        if unexpected:
            known = _known_keys(t.cast("t.Mapping[str, t.Any]", best.schema), name)
            key_path = (*key_path, unexpected[0])
            hints = {u: close_names(u, known) for u in unexpected}
            if _split_by_a_comma(best.instance, unexpected[0]):
                message = (
                    f"unknown key {unexpected[0]!r}: a comma inside {{...}} ends a value in YAML, so text after it"
                    " became a key; quote the text that has the comma"
                )
            elif any(hints.values()):  # each misspelt key with its own suggestion
                said = [f"{u!r}" + (f" (did you mean {hints[u][0]!r}?)" if hints[u] else "") for u in unexpected]
                message = f"unknown key{'s' if len(unexpected) > 1 else ''} {', '.join(said)}"
            else:
                message = f"unknown key{'s' if len(unexpected) > 1 else ''} {', '.join(repr(u) for u in unexpected)}"
                if known:
                    message += f"; known keys: {', '.join(sorted(known))}"
    else:
        message = _teaching(best, key_path, name) or message
    return message, key_path


#: A pattern that spells a choice of words, case-insensitively: ``^(?i:low|medium|high)$``.
_CHOICE_RE = re.compile(r"\^\(\?i:([\w|]+)\)\$")
#: Keys of a Schema Object, which belong under a parameter, not beside the parameters.
_SCHEMA_KEYS = frozenset(
    {
        "type",
        "description",
        "default",
        "enum",
        "minimum",
        "maximum",
        "format",
        "items",
        "pattern",
        "optional",
        "nullable",
        "properties",
    }
)


def _teaching(error: t.Any, key_path: KeyPath, name: str) -> str | None:
    """A message that says how to write what was meant, for the mistakes people make most; None
    to keep jsonschema's own."""
    message = _length_taught(error, key_path, name) or _choice_taught(error) or _quote_taught(error)
    if message is None and name == "tool":
        instance = error.instance
        message = (
            _required_taught(instance, key_path)
            or _type_list_taught(instance, key_path)
            or _parameter_shape_taught(instance, key_path)
        )
    return message


def _quote_taught(error: t.Any) -> str | None:
    """A word YAML read as a number, a boolean or null where text is wanted (``-1``, ``yes``,
    ``1.0``, ``~``): how to write it as text."""
    instance = error.instance
    if error.validator != "type" or error.validator_value != "string" or isinstance(instance, (str, dict, list)):
        return None
    import json

    written = json.dumps(instance)
    if instance is None:
        return "it is empty (null), not text: write the text, quoted"
    kind = "a boolean" if isinstance(instance, bool) else "a number"
    return f"{written} is {kind} to YAML, not text: quote it ('{written}')"


def _length_taught(error: t.Any, key_path: KeyPath, name: str) -> str | None:
    """A text too long or too short, measured."""
    instance = error.instance
    if error.validator not in ("maxLength", "minLength") or not isinstance(instance, str):
        return None
    bound = "at most" if error.validator == "maxLength" else "at least"
    what = "a tool name" if key_path[-1:] == ("name",) and name == "tool" else "it"
    return f"{instance[:60]!r} has {len(instance)} characters; {what} has {bound} {error.validator_value}"


def _choice_taught(error: t.Any) -> str | None:
    """A word that is none of the choices (an ``enum``, or a pattern that spells one), with the
    choice nearest to it."""
    instance = error.instance
    choices: list[str] = []
    if error.validator == "enum":
        choices = [str(c) for c in error.validator_value]
    elif error.validator == "pattern" and (match := _CHOICE_RE.fullmatch(str(error.validator_value))):
        choices = match.group(1).split("|")
    if not choices or not isinstance(instance, (str, int, float)) or isinstance(instance, bool):
        return None
    near = close_names(str(instance).lower(), choices, cutoff=0.5)
    return f"{instance!r} is not one of {', '.join(choices)}" + (f" ({did_you_mean(near)})" if near else "")


def _required_taught(instance: t.Any, key_path: KeyPath) -> str | None:
    """A parameter's ``required: true`` or ``false`` (JSON Schema's word, not a tool's)."""
    if not (len(key_path) == 3 and key_path[0] == "parameters" and key_path[2] == "required"):
        return None
    if not isinstance(instance, bool):
        return None
    if instance:
        return "parameters are required unless they say otherwise: remove `required: true`"
    return "a parameter is required unless it says `optional: true`: write `optional: true` for `required: false`"


def _type_list_taught(instance: t.Any, key_path: KeyPath) -> str | None:
    """JSON Schema's list of types, as OpenAPI 3.0 says it."""
    if key_path[-1:] != ("type",) or not isinstance(instance, list):
        return None
    others = [str(x) for x in instance if x != "null"]
    if "null" in instance and len(others) == 1:
        return f"a list of types is JSON Schema; OpenAPI 3.0 writes `type: {others[0]}` with `nullable: true`"
    return "`type` is one type name; for one of several, use `anyOf` with a schema for each"


def _parameter_shape_taught(instance: t.Any, key_path: KeyPath) -> str | None:
    """A parameter with no schema (its keys not indented under it), or a schema's key beside the
    parameters (indented one level too few)."""
    if not (len(key_path) == 2 and key_path[0] == "parameters" and isinstance(key_path[1], str)):
        return None
    last = key_path[1]
    if instance is None:
        return f"the parameter {last!r} has no schema: indent its keys (type, description, ...) under it"
    if last in _SCHEMA_KEYS and not isinstance(instance, dict):
        return f"{last!r} is beside the parameters, not under one: indent it under the parameter it describes"
    return None


def _split_by_a_comma(instance: t.Any, key: str) -> bool:
    """Whether ``key`` looks like the tail of a text that a comma in a YAML flow mapping cut off
    (``{description: The file, relative to the root.}`` gives the key ``relative to the root.``
    with no value)."""
    return isinstance(instance, dict) and instance.get(key, "") is None and " " in key.strip()


def _known_keys(schema: t.Mapping[str, t.Any], name: str) -> list[str]:
    keys = list(schema.get("properties", {}))
    ref = schema.get("$ref")
    if ref:
        target = load_schema(name)
        for part in ref.lstrip("#/").split("/"):
            target = target[part]
        keys += list(target.get("properties", {}))
    return [k for k in keys if not k.startswith("$")]
