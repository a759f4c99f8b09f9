"""A warm call answered from its record: ``cogtools-call NAME`` of a template tool at the speed of
the interpreter (issue 42).

Every Gemini CLI tool call is a fresh ``cogtools-call``, and the imports of a whole call (the
configuration, the catalog and its cache, the policy, the pins, the model, the argument checks)
cost several times the interpreter's own start, where the work itself is a millisecond. So a call
that went the whole way leaves a *record* of what its answer was made of, and the next call in
the same situation answers from it, importing nothing but this module and the small ones it
names:

- the situation: the working directory, the whole environment, the user and effective user, the
  interpreter and this installation of cogtools (the record's file is named by them, and holds
  them);
- what the call read, each as it was when read: every file and directory it looked at, by
  :func:`os.stat`, :func:`os.lstat`, :func:`os.open`, :func:`open`, :func:`os.listdir`,
  :func:`os.access` and :func:`os.readlink` (what a load, the policy, the pins and Gemini CLI's
  settings look at), and cogtools' own modules. A record holds only while every one of them is
  as it was: a file changed, added or removed where the call looked makes the next call go the
  whole way (and leave a new record);
- the one part that depends on the arguments, which this module does itself: the arguments
  parsed as :func:`cogtools.core.jsondata.parse_json` parses them, checked against the tool's
  schema by a subset of :mod:`cogtools.schema.validate` that only ever says "valid" where the
  validator does, the declared defaults, and the template's plan (:mod:`cogtools.core.plans`).

A record is only ever an answer the whole way would give, or no answer: whatever this module is
not sure of (arguments it cannot tell valid, a template the plan cannot render, anything that
fails) goes the whole way, which answers, errors included, as always. No record is left by a call
that ran anything, wrote anything, reached the network, read the load average, listed a directory
with :func:`os.scandir` (whose entries are read past :mod:`os`), printed anything on stderr or
failed; nor for a tool that is not a template with a plan, declares environment variables or an
output, or takes a schema this module does not check; nor while a file it read is too new for its
stat to vouch for it. Records are files of the cache (``call-*``), written and checked as the
catalog cache's are (a MAC under the user's key), and ``COGTOOLS_NO_CACHE`` turns them off.

This module imports only :mod:`os` and :mod:`sys` at its top: ``tests/test_start_paths.py``
lists what an answered call imports. :mod:`cogtools.cli.recording` keeps the records.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import typing as t


#: Bump when what a record holds, or what it means, changes.
FORMAT = 1
#: The largest record read.
MAX_RECORD_BYTES = 8 * 1024 * 1024
#: The deepest arguments this module checks (the whole way takes deeper ones, up to its limit).
MAX_DEPTH = 32


def answer(prog: str, argv: t.Sequence[str]) -> tuple[int | None, bytes | None, bool]:
    """Answer the call ``argv`` from its record: ``(status, None, False)`` when it was answered;
    else ``(None, stdin, truncated)``, with what was read of stdin (None: nothing was), for the
    whole way to go on with."""
    if len(argv) != 1 or argv[0].startswith("-") or sys.stdin is None or sys.stdout is None:
        return None, None, False
    try:
        record = _record(argv[0]) if not sys.stdin.isatty() else None
    except Exception:  # a record is only an optimisation: whatever fails, the whole way answers
        record = None
    if record is None:
        return None, None, False
    from cogtools.cli.streams import read_stdin, write_result

    data, truncated = read_stdin()
    try:
        text = None if truncated else rendered(record, data)
    except Exception:
        text = None
    if text is None:
        return None, data, truncated
    try:
        write_result(text)
    except BaseException as e:  # as the whole way reports it
        from cogtools.cli.boundary import failed

        return failed(prog, e, json_errors=True), None, False
    return 0, None, False


def situation(name: str, environ: t.Mapping[str, str]) -> str:
    """What a record is for, in a line: what made it (:func:`made`), the tool, the working
    directory, the users, the whole environment."""
    items = "\0".join(f"{key}={value}" for key, value in sorted(environ.items()))
    return f"{made()}\0{name}\0{os.getcwd()}\0{os.getuid()}\0{os.geteuid()}\0{items}"


def made() -> list[t.Any]:
    """What made a record: its format, the interpreter, this installation of cogtools."""
    import cogtools

    return [FORMAT, sys.executable, sys.version, cogtools.__version__, os.path.dirname(cogtools.__file__)]


def record_file(directory: str, text: str) -> str:
    """The record of the situation ``text`` (:func:`situation`) in the cache ``directory``."""
    from cogtools.core.places import digest

    return os.path.join(directory, f"call-{digest(text.encode('utf-8', 'surrogateescape'))}")


def _record(name: str) -> dict[str, t.Any] | None:
    """The record of a call of ``name`` in this situation, when there is one and everything it was
    made of is as it was; else None."""
    from cogtools.core.places import authentic, cache_path, read_private

    directory = cache_path(os.environ)
    if directory is None:
        return None
    key = read_private(os.path.join(directory, "key"), 64)
    text = situation(name, os.environ)
    data = read_private(record_file(directory, text), MAX_RECORD_BYTES)
    if key is None or len(key) != 32 or data is None:
        return None
    signature, _, payload = data.partition(b"\n")
    if not authentic(key, signature, payload):
        return None
    record: dict[str, t.Any] = loads(payload.decode("utf-8", "surrogateescape"))
    if record.get("situation") != text:
        return None
    return record if holds(record["read"]) else None


def identity(kind: str, path: str, directory: int | None = None) -> str:
    """What a record keeps of ``path`` (relative to the ``directory`` descriptor, if given) as
    ``kind`` looked at it: ``s`` (stat: inode, size, modification and change times), ``l``
    (lstat: type and permissions, inode, owner), ``r`` (readlink: the target), ``a`` + mode
    (access: yes or no); an error as its number."""
    try:
        if kind == "s":
            st = os.stat(path, dir_fd=directory)
            return f"{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}"
        if kind == "l":
            st = os.lstat(path, dir_fd=directory)
            return f"{st.st_mode}:{st.st_ino}:{st.st_uid}"
        if kind == "r":
            return os.readlink(path, dir_fd=directory)
        return "1" if os.access(path, int(kind[1:]), dir_fd=directory) else "0"
    except OSError as e:
        return f"-{e.errno}"


#: From how many names a directory's are looked up through its descriptor (a catalog's thousands
#: of files), rather than each by its whole path.
THROUGH_DIRECTORY = 16


def holds(read: t.Mapping[str, t.Any]) -> bool:
    """Whether every file and directory a record read is as it was. ``read`` holds ``dirs``, each
    a directory and a text ``KIND/NAME/IDENTITY/KIND/NAME/IDENTITY...`` of the names read in it
    (no name, kind or identity holds ``/``), and ``links``, each a path and what it led to."""
    for directory, text in read["dirs"]:
        fields = text.split("/")
        fd = None
        if len(fields) >= 3 * THROUGH_DIRECTORY:
            try:
                fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
            except OSError:
                fd = None
        try:
            for i in range(0, len(fields), 3):
                kind, name, was = fields[i : i + 3]
                path = name if fd is not None else os.path.join(directory, name)
                if identity(kind, path, fd) != was:
                    return False
        finally:
            if fd is not None:
                os.close(fd)
    return all(identity("r", path) == was for path, was in read["links"])


# The part that depends on the arguments.


def rendered(record: t.Mapping[str, t.Any], data: bytes) -> str | None:
    """The text the call with stdin ``data`` answers, or None when the whole way must decide: the
    arguments parsed, checked and completed as :func:`cogtools.services.invoke.invoke` does for a
    template, then the plan rendered."""
    try:  # (as utf-8-sig reads it, without importing that codec)
        text = (data[3:] if data.startswith(b"\xef\xbb\xbf") else data).decode("utf-8")
    except UnicodeDecodeError:
        return None
    arguments = _parse(text) if text.strip() else {}
    from cogtools.core.limits import depth_problem

    if not isinstance(arguments, dict) or depth_problem(arguments) is not None:
        return None
    for name in record["drop"]:  # (Gemini CLI's wait_for_previous, unless the tool declares it)
        arguments.pop(name, None)
    if not surely_valid(record["schema"], arguments):
        return None
    from cogtools.core.plans import render

    names = dict(record["names"])
    names.update(arguments)
    return render(record["plan"], names, record["limit"])


class _Unsure(Exception):
    pass


def _pairs(pairs: list[tuple[str, t.Any]]) -> dict[str, t.Any]:
    out = dict(pairs)
    if len(out) != len(pairs):  # a key given twice: the whole way says so
        raise _Unsure
    return out


def _constant(name: str) -> t.NoReturn:
    raise _Unsure


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise _Unsure
    return value


class _Plain:
    """How :func:`loads` reads: as :func:`json.loads` does by default, but NaN and Infinity."""

    strict = True
    object_hook = None
    object_pairs_hook: t.Callable[..., t.Any] | None = None
    parse_float: t.Callable[[str], t.Any] = float
    parse_int = int
    parse_constant = staticmethod(_constant)


class _Arguments(_Plain):
    """How :func:`_parse` reads: a key given twice, NaN, Infinity or a number too large for a
    float is not read (:func:`cogtools.core.jsondata.parse_json` refuses them)."""

    object_pairs_hook = staticmethod(_pairs)
    parse_float = staticmethod(_finite)


def loads(text: str, how: type[_Plain] = _Plain) -> t.Any:
    """:func:`json.loads` of ``text`` (``how`` has its options), read by the C scanner it reads
    with, without importing :mod:`json`, which costs a call answered from its record a fifteenth of
    its time. ValueError (or what a hook raises) where it raises one; :mod:`json` itself where the
    scanner is not there as 3.11 has it."""
    try:
        from _json import make_scanner

        scan = make_scanner(how)  # type: ignore[arg-type]  # (any object with the options)
    except Exception:  # pragma: no cover (an interpreter without it)
        import json

        return json.loads(
            text,
            object_pairs_hook=how.object_pairs_hook,
            parse_float=how.parse_float,
            parse_constant=how.parse_constant,
        )
    if text.startswith("\ufeff"):
        raise ValueError("a byte order mark")  # (as json.loads)
    try:
        value, end = scan(text, _blank(text, 0))
    except StopIteration:
        raise ValueError("expecting a value") from None
    except SystemError:  # (the scanner's syntax error, while json.decoder is not imported)
        raise ValueError("not JSON") from None
    if _blank(text, end) != len(text):
        raise ValueError("extra data")
    return value


def _blank(text: str, at: int) -> int:
    """Where the JSON whitespace from ``at`` ends."""
    while at < len(text) and text[at] in " \t\n\r":
        at += 1
    return at


def _parse(text: str) -> t.Any:
    """JSON text as :func:`cogtools.core.jsondata.parse_json` reads it, or None for whatever it
    would refuse or treat apart (its errors are the whole way's to give)."""
    try:
        value = loads(text, _Arguments)
    except (ValueError, RecursionError, _Unsure):
        return None
    if "\\u" in text and not _unicode(value):
        return None
    return value


def _unicode(value: t.Any) -> bool:
    """Whether every text in ``value`` is valid Unicode (no lone surrogate)."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return False
        return True
    if isinstance(value, dict):
        return all(_unicode(key) and _unicode(item) for key, item in value.items())
    if isinstance(value, list):
        return all(_unicode(item) for item in value)
    return True


#: What :func:`surely_valid` takes: the keywords it checks as the validator does, and the ones that
#: say nothing of a value.
KEYWORDS = frozenset(
    {
        "type",
        "nullable",
        "enum",
        "format",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "minProperties",
        "maxProperties",
        "items",
        "properties",
        "required",
        "additionalProperties",
        "title",
        "description",
        "default",
        "example",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "externalDocs",
        "xml",
    }
)
_TYPES = {"string": str, "boolean": bool, "array": list, "object": dict}


def surely_valid(schema: t.Mapping[str, t.Any], value: t.Any, depth: int = 0) -> bool:
    """True only when :func:`cogtools.schema.validate.validate` finds ``value`` valid against
    ``schema`` and :func:`cogtools.services.invoke.prepare` would pass it on as it is; False when it
    may not (a violation, a keyword not checked here, a null, a number :func:`~cogtools.services.
    invoke.as_integers` would write otherwise, a format whose check may take long)."""
    if depth > MAX_DEPTH or value is None or not isinstance(schema, dict):
        return False
    if any(key not in KEYWORDS and not key.startswith("x-") for key in schema):
        return False
    kind = schema.get("type")
    if kind is not None and not _typed(kind, value):
        return False
    if "enum" in schema and not any(_same(value, option) for option in schema["enum"]):
        return False
    if "format" in schema and not _formatted(schema["format"], value):
        return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return _number(schema, value)
    if isinstance(value, str):
        return bool(schema.get("minLength", 0) <= len(value) <= schema.get("maxLength", len(value)))
    if isinstance(value, list):
        items = schema.get("items")
        return schema.get("minItems", 0) <= len(value) <= schema.get("maxItems", len(value)) and (
            items is None or all(surely_valid(items, item, depth + 1) for item in value)
        )
    if isinstance(value, dict):
        return _object(schema, value, depth)
    return True


def _typed(kind: t.Any, value: t.Any) -> bool:
    if kind == "integer":  # (an integral float would be written as an integer: the whole way does that)
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return kind in _TYPES and isinstance(value, _TYPES[kind])


def _same(value: t.Any, option: t.Any) -> bool:
    """Whether ``value`` is ``option`` as JSON means it (true is not 1), for a value that is no
    collection."""
    if isinstance(value, (list, dict)):
        return False
    if isinstance(value, bool) or isinstance(option, bool):
        return value is option
    if isinstance(value, (int, float)) and isinstance(option, (int, float)):
        return value == option
    return type(value) is type(option) and value == option


def _formatted(fmt: t.Any, value: t.Any) -> bool:
    if not isinstance(value, str) or not isinstance(fmt, str):
        return False
    from cogtools.schema.string_formats import SUPERLINEAR, check_string_format

    return fmt not in SUPERLINEAR and check_string_format(fmt, value) is None


def _number(schema: t.Mapping[str, t.Any], value: float) -> bool:
    if isinstance(value, float) and schema.get("type") != "number":  # (as_integers: nowhere but a number)
        return False
    if "minimum" in schema:
        low = schema["minimum"]
        if value < low or (schema.get("exclusiveMinimum", False) and value <= low):
            return False
    if "maximum" in schema:
        high = schema["maximum"]
        if value > high or (schema.get("exclusiveMaximum", False) and value >= high):
            return False
    return True


def _object(schema: t.Mapping[str, t.Any], value: dict[str, t.Any], depth: int) -> bool:
    properties = schema.get("properties", {})
    additional = schema.get("additionalProperties", True)
    if not all(name in value for name in schema.get("required", ())):
        return False
    if not schema.get("minProperties", 0) <= len(value) <= schema.get("maxProperties", len(value)):
        return False
    for name, item in value.items():
        if name in properties:
            if not surely_valid(properties[name], item, depth + 1):
                return False
        elif additional is False or (additional is not True and not surely_valid(additional, item, depth + 1)):
            return False
    return True
