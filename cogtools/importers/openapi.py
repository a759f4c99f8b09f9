"""An OpenAPI 3.0 or 3.1 document in, one ``http`` tool definition per operation out.

The document is read under the limits every hostile file gets (:mod:`cogtools.core.limits`: a size
cap, YAML's depth and alias limits, JSON data only), and under its own: **only references inside
the document are followed**, so one that leads outside it (a file, a URL) refuses the document
before anything reads it, the validator included; it has at most ``--max-operations`` operations
(and as many path items). Then it is checked with ``openapi-spec-validator`` (the validator lint
already uses: a document that is not OpenAPI 3.0 or 3.1 is refused with the validator's own
finding, and where), in a child process with a time limit, changed so that it retrieves nothing
and its work grows linearly (:mod:`cogtools.importers.spec_check`), and then read operation by
operation:

- **the name** from the ``operationId`` (or the method and the path), sanitised to the tool name
  rule and at most 48 characters; names that would collide (ignoring case, as a file system
  may) get ``_2``, ``_3``...;
- **the parameters**: path parameters (always required), query and header parameters, and the
  JSON or form body's properties (or one ``body`` parameter when the body is not an object with
  properties), each under a template-safe identifier; a name given in two places keeps it for
  the first (path, query, header, body) and gets its place as a prefix in the others
  (``query_id``);
- **the schemas** with every local ``$ref`` followed: written out in full when that is small,
  else (a recursive schema, a large one) kept as the tool's ``$defs``; OpenAPI 3.1's JSON Schema
  is translated to the OpenAPI 3.0 form tool files use (:func:`cogtools.schema.dialects.from_json_schema`);
- **the request**: ``servers[0]`` (the operation's or path's own first, with the variables'
  defaults), or the ``server`` given; the query, headers and body as the http kind describes
  them, so that no argument can change the host or the path's structure;
- **the metadata**: GET, HEAD and OPTIONS read (``risk_level: low``), POST, PUT and PATCH write
  (``medium``), DELETE destroys (``high``); every one reaches the network;
- **the credentials**: the first security requirement whose schemes the http kind can send
  (apiKey in a header or the query, http bearer or basic, an OAuth 2 or OpenID Connect token as
  a bearer token) becomes a secret environment variable the tool declares, ``PREFIX_SCHEME``,
  never a value in the file.

Every failure is a domain error: a document that cannot be read, is not OpenAPI or is past a
limit is DEFINITION_INVALID (the tools' definition is bad), a command line that asks for what the
document lacks is USAGE. An operation that cannot become a tool (a body the http kind cannot
send, a schema OpenAPI 3.0 cannot say, schemas too large for a tool file) is left out with a
note, unless it was asked for by name. What a tool copies of the document's schemas is bounded,
per tool and for all of them together, so that a schema every operation names cannot multiply
the document into gigabytes; and the work of an import grows linearly with its operations.
"""

from __future__ import annotations

import copy
import datetime
import json
import re
import subprocess
import sys
import time
import typing as t
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import yaml

from cogtools.clients.export import EXPORTS, NOT_STRICT
from cogtools.core.errors import CogtoolsError, DefinitionInvalidError, UsageError
from cogtools.core.jsondata import JsonProblem, parse_json, text_problem
from cogtools.core.limits import MAX_DEPTH, MAX_NODES, FileRefused, read_file
from cogtools.core.model import RESERVED_NAMES
from cogtools.core.printable import printable
from cogtools.core.yamlio import describe_error, dump_for_people, load
from cogtools.importers import MAX_OPERATIONS
from cogtools.load.catalog import parse_definition
from cogtools.run.templates import TEMPLATE_GLOBALS
from cogtools.schema.dialects import (
    MAX_DEFINITIONS,
    REFERENCE,
    Unreadable,
    check_definitions,
    from_json_schema,
    inline,
)

#: The largest document that is read: the largest public ones (GitHub's, Stripe's) are about 10 MB.
MAX_DOCUMENT_BYTES = 32 * 1024 * 1024
#: The most seconds reading a document from a URL may take, all of it (a server that sends a
#: byte a minute would otherwise keep it going for ever).
FETCH_SECONDS = 120.0
#: How long the validator may take, in seconds: this, and :data:`CHECK_SECONDS_PER_OPERATION`
#: more for each operation (benchmarks/openapi_import.py: 20,000 in about 14 CPU-seconds).
CHECK_SECONDS = 60.0
CHECK_SECONDS_PER_OPERATION = 0.005
#: The most values one tool's file may hold (what a tool file is read with): past it, the
#: operation is left out, said, as soon as its schemas reach it.
MAX_TOOL_VALUES = MAX_NODES
#: The most values all the tools of one import may hold together.
MAX_OUTPUT_VALUES = 5_000_000
#: The methods an http tool sends (OpenAPI's ``trace`` is not one of them).
METHODS = ("get", "put", "post", "delete", "options", "head", "patch")
RISKS = {"GET": "low", "HEAD": "low", "OPTIONS": "low", "POST": "medium", "PUT": "medium", "PATCH": "medium"}
#: The most parts a tool's parameters may have written out in full before they keep ``$defs``.
MAX_INLINE_PARTS = 2000
#: How many ``$ref`` hops one reference may take before it is called a loop.
MAX_REF_HOPS = 32
NAME_MAX = 48
#: Names a parameter cannot have in a template (Jinja's words and globals, and ``env``).
RESERVED = TEMPLATE_GLOBALS | {"and", "or", "not", "in", "is", "if", "else", "env", "self", "super"}
#: Schema keywords left out of the tools: XML serialisation, links to documents, the
#: discriminator's mapping, which no client's schema dialect carries.
DROPPED = ("xml", "externalDocs", "discriminator")
#: Headers OpenAPI says a header parameter cannot describe.
IGNORED_HEADERS = ("accept", "content-type", "authorization")
#: Words of an API's title that say nothing about which API it is (for the secrets' prefix).
GENERIC_WORDS = frozenset(
    {"swagger", "openapi", "api", "apis", "http", "rest", "the", "web", "service", "v1", "v2", "v3"}
)


class Document(t.NamedTuple):
    """A document read and checked."""

    data: dict[str, t.Any]
    #: Where it came from, as the person named it (a path or a URL).
    source: str
    #: ``3.0`` or ``3.1``.
    version: str
    #: The URL it was read from, against which a relative server URL is resolved.
    base_url: str | None = None


class ImportedTool(t.NamedTuple):
    name: str
    #: ``GET /pet/{petId}``.
    operation: str
    operation_id: str | None
    definition: dict[str, t.Any]
    #: The secret environment variables it declares.
    secrets: tuple[str, ...]
    #: Its file (:func:`render`), once checked: what ``import_document`` returns has it.
    text: str = ""


class Imported(t.NamedTuple):
    tools: list[ImportedTool]
    #: Lines for a person: what was left out or changed, and why.
    notes: list[str]


class Skip(Exception):
    """An operation that cannot become a tool, and why."""


# -- reading -------------------------------------------------------------------------------


def _invalid(source: str, message: str, key_path: t.Sequence[str | int] = ()) -> DefinitionInvalidError:
    return DefinitionInvalidError(message, path=source, key_path=tuple(key_path) or None, details={"reason": "openapi"})


def read_document(source: str, *, timeout: float = 30.0, max_operations: int = MAX_OPERATIONS) -> Document:
    """The document at ``source``, a file or an ``http(s)://`` URL, read and checked."""
    if re.match(r"^https?://", source, re.IGNORECASE):
        return parse_document(_fetch(source, timeout), source, base_url=source, max_operations=max_operations)
    try:
        data = read_file(Path(source), MAX_DOCUMENT_BYTES)
    except FileNotFoundError:
        raise UsageError(f"{source}: no such file") from None
    except FileRefused as e:
        raise _invalid(source, e.message) from e
    except OSError as e:
        raise UsageError(f"{source}: cannot read: {e.strerror}") from e
    return parse_document(data, source, max_operations=max_operations)


def _fetch(url: str, timeout: float) -> bytes:
    request = urllib.request.Request(url, headers={"Accept": "application/json, application/yaml, */*"})
    deadline = time.monotonic() + FETCH_SECONDS
    chunks: list[bytes] = []
    size = 0
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 (http(s) only, above)
            while size <= MAX_DOCUMENT_BYTES:
                if time.monotonic() > deadline:
                    raise UsageError(f"cannot fetch {url}: it took longer than {FETCH_SECONDS:.0f} seconds")
                read = getattr(response, "read1", response.read)  # read1: what one receive brings
                chunk = t.cast(bytes, read(min(1 << 20, MAX_DOCUMENT_BYTES + 1 - size)))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
    except (urllib.error.URLError, OSError, ValueError) as e:
        raise UsageError(f"cannot fetch {url}: {getattr(e, 'reason', None) or e}") from e
    data = b"".join(chunks)
    if len(data) > MAX_DOCUMENT_BYTES:
        raise _invalid(url, f"the document is larger than {MAX_DOCUMENT_BYTES // (1024 * 1024)} MiB")
    return data


def parse_document(
    data: bytes, source: str, *, base_url: str | None = None, max_operations: int = MAX_OPERATIONS
) -> Document:
    """``data`` (JSON or YAML) as a checked OpenAPI 3.0 or 3.1 document: its references all
    within it, at most ``max_operations`` operations, then what the validator says of it."""
    if len(data) > MAX_DOCUMENT_BYTES:
        raise _invalid(source, f"the document is larger than {MAX_DOCUMENT_BYTES // (1024 * 1024)} MiB")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise _invalid(source, f"not UTF-8 (byte {e.start})") from e
    value: t.Any
    if text.lstrip().startswith("{"):
        try:
            value = parse_json(text)
        except JsonProblem as e:
            raise _invalid(source, f"not JSON: {e}") from e
    else:
        try:
            value = load(text)
        except yaml.YAMLError as e:
            message, line = describe_error(e, text)
            if "aliases are expanded" in message:  # the limits every YAML file is read under (billion laughs)
                message += "; the document's JSON form is read without that limit, up to its size"
            raise _invalid(source, f"not YAML{f' (line {line})' if line else ''}: {message}") from e
        except RecursionError as e:
            raise _invalid(source, f"collections nest more than {MAX_DEPTH} levels deep") from e
        value = _json_data(value, source, ())
    if not isinstance(value, dict):
        raise _invalid(source, "not an OpenAPI document: it is not a mapping")
    version = value.get("openapi")
    if "swagger" in value and version is None:
        raise _invalid(
            source,
            f"a Swagger {value['swagger']} document: only OpenAPI 3.0 and 3.1 are read"
            " (convert it first, with swagger2openapi or the Swagger Editor)",
            ("swagger",),
        )
    if not isinstance(version, str) or not re.match(r"^3\.[01]\.\d+", version):
        raise _invalid(source, f"not an OpenAPI 3.0 or 3.1 document: `openapi` is {version!r}", ("openapi",))
    _outside_references(value, source)
    _count_operations(value, source, max_operations)
    document = Document(value, source, version[:3], base_url)
    _validate(document)
    return document


def _outside_references(data: t.Any, source: str) -> None:
    """DEFINITION_INVALID, naming it and where it is, for the first ``$ref`` that is not a
    reference within the document (``#...``): a file, a URL, a relative path. Nothing follows
    such a reference, so nothing outside the document is read (a ``file:`` URL to a secret) or
    fetched (a URL of the local network), and the validator never sees one. Every ``$ref`` whose
    value is text counts, wherever it is: an example that holds one is refused too."""
    stack: list[tuple[t.Any, tuple[str | int, ...]]] = [(data, ())]
    while stack:
        node, where = stack.pop()
        if isinstance(node, dict):
            reference = node.get("$ref")
            if isinstance(reference, str) and not reference.startswith("#"):
                shown = printable(reference[:200], "")
                raise DefinitionInvalidError(
                    f"`$ref: {shown}` refers outside the document: only references within the document"
                    " (#/...) are followed; nothing was read or fetched",
                    path=source,
                    key_path=(*where, "$ref"),
                    details={"reason": "outside_reference", "reference": reference[:1000]},
                )
            stack.extend((value, (*where, key)) for key, value in reversed(node.items()))
        elif isinstance(node, list):
            stack.extend((value, (*where, i)) for i, value in reversed(list(enumerate(node))))


def _count_operations(data: dict[str, t.Any], source: str, limit: int) -> None:
    """DEFINITION_INVALID when the document has more than ``limit`` operations or path items:
    each is read and checked, whichever are imported."""
    paths = data.get("paths")
    if not isinstance(paths, dict):
        return
    count = 0
    for path, item in paths.items():
        try:
            item = _deref(Document(data, source, ""), item, f"paths.{path}")
        except Skip:
            continue
        if isinstance(item, dict):
            count += sum(isinstance(item.get(method), dict) for method in METHODS)
    for number, what in ((count, "operations"), (len(paths), "path items")):
        if number > limit:
            raise DefinitionInvalidError(
                f"the document has {number} {what}, more than --max-operations ({limit}): each is read and"
                f" checked, even those --tag or --operation leave out; give --max-operations {number} to"
                " import it anyway; nothing was written",
                path=source,
                key_path=("paths",),
                details={"reason": "too_many_operations", "count": number, "limit": limit},
            )


def _json_data(value: t.Any, source: str, where: tuple[str | int, ...]) -> t.Any:
    """What YAML made, as JSON data: a number or boolean key (``200:``) as JSON would write it,
    a date as its ISO text; anything else JSON cannot carry is refused, saying where."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if isinstance(key, bool):
                key = "true" if key else "false"
            elif isinstance(key, (int, float)):
                key = str(key)
            elif not isinstance(key, str):
                raise _invalid(source, f"a key that JSON cannot carry: {key!r}", where)
            out[key] = _json_data(item, source, (*where, key))
        return out
    if isinstance(value, list):
        return [_json_data(item, source, (*where, i)) for i, item in enumerate(value)]
    if isinstance(value, str):
        problem = text_problem(value)
        if problem is not None:
            raise _invalid(source, problem, where)
        return value
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, float) and value != value or value in (float("inf"), float("-inf")):
        raise _invalid(source, f"{value!r} is not a number JSON can carry", where)
    return value


def _validate(document: Document) -> None:
    """DEFINITION_INVALID with the validator's first finding, unless the document is valid.

    The validator runs in a child process (:mod:`cogtools.importers.spec_check`), killed past its
    time limit: what it does with a hostile document cannot be bounded from here otherwise. It
    reads nothing of the working directory (``-I``), and retrieves no reference."""
    operations = _count(document.data)
    limit = CHECK_SECONDS + CHECK_SECONDS_PER_OPERATION * operations
    request = json.dumps({"version": document.version, "document": document.data}).encode("utf-8")
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-m", "cogtools.importers.spec_check"],
            input=request,
            capture_output=True,
            timeout=limit,
            check=False,
        )
    except subprocess.TimeoutExpired as e:
        raise _invalid(
            document.source,
            f"checking it took longer than {limit:.0f} seconds, and was stopped: do its references multiply"
            " what is read (allOf of allOfs, each named twice)?",
        ) from e
    except OSError as e:
        raise _invalid(document.source, f"cannot be checked: the validator did not start: {e.strerror}") from e
    try:
        finding = json.loads(done.stdout)
    except ValueError:
        finding = None
    if done.returncode != 0 or not isinstance(finding, dict):
        last = (done.stderr.decode("utf-8", "replace").strip().splitlines() or [""])[-1]
        status = f"signal {-done.returncode}" if done.returncode < 0 else f"status {done.returncode}"
        raise _invalid(
            document.source, f"cannot be checked: the validator ended with {status} {printable(last[:200], '')}"
        )
    _finding(document, finding)


def _finding(document: Document, finding: dict[str, t.Any]) -> None:
    """DEFINITION_INVALID for what :mod:`cogtools.importers.spec_check` found, unless it is valid."""
    if finding.get("valid") is True:
        return
    version, source = document.version, document.source
    if finding.get("loop"):
        raise _invalid(
            source,
            "its references loop, or nest too deeply to be checked: a $ref that leads back to itself with no value between?",
        )
    if "outside" in finding:
        shown = printable(str(finding["outside"])[:200], "")
        raise _invalid(
            source,
            f"not a valid OpenAPI {version} document: it refers to {shown}, outside the document: only references"
            " within the document are followed; nothing was read or fetched",
        )
    if "failure" in finding:
        raise _invalid(source, f"not a valid OpenAPI {version} document: {printable(str(finding['failure']), '')}")
    path = [p for p in finding.get("path") or () if isinstance(p, (str, int))]
    raise _invalid(
        source, f"not a valid OpenAPI {version} document: {printable(str(finding.get('message')), '')}", path
    )


def _count(data: dict[str, t.Any]) -> int:
    """How many operations (and path items) the document has, roughly: what the validator reads."""
    paths = data.get("paths")
    if not isinstance(paths, dict):
        return 0
    return len(paths) + sum(
        sum(isinstance(item.get(m), dict) for m in METHODS) for item in paths.values() if isinstance(item, dict)
    )


def _one_line(text: str) -> str:
    return " ".join(text.split())


# -- references ----------------------------------------------------------------------------


def _pointer(document: Document, reference: t.Any, where: str) -> tuple[str, t.Any]:
    """The value a local ``$ref`` names, and its JSON Pointer; Skip for any other reference."""
    if not isinstance(reference, str) or not reference.startswith("#"):
        raise Skip(f"{where}: refers to {reference!r}, outside the document: only references within it are followed")
    pointer = urllib.parse.unquote(reference[1:])
    node: t.Any = document.data
    if pointer:
        if not pointer.startswith("/"):
            raise Skip(f"{where}: {reference!r} is not a JSON Pointer")
        for part in pointer[1:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                raise Skip(f"{where}: {reference!r} refers to nothing in the document")
    return pointer, node


def _deref(document: Document, value: t.Any, where: str) -> t.Any:
    """``value`` with its ``$ref`` followed (a parameter, a request body, a path item)."""
    seen: list[str] = []
    while isinstance(value, dict) and "$ref" in value:
        pointer, value = _pointer(document, value["$ref"], where)
        if pointer in seen or len(seen) >= MAX_REF_HOPS:
            raise Skip(f"{where}: the references loop ({' -> '.join([*seen, pointer])})")
        seen.append(pointer)
    return value


class _Schemas:
    """The schemas of one tool: each one the tool uses with its local references rewritten to
    the tool's own ``$defs`` (``#/$defs/NAME``), and the definitions they reach."""

    def __init__(self, document: Document, where: str, budget: list[int] | None = None) -> None:
        self.document = document
        self.where = where
        #: How many values the import's tools may still hold, all of them (:data:`MAX_OUTPUT_VALUES`).
        self.budget = [MAX_OUTPUT_VALUES] if budget is None else budget
        self.names: dict[str, str] = {}  # pointer -> definition name
        self.definitions: dict[str, t.Any] = {}
        #: The definitions named and not yet rewritten: rewritten one after the other, not each
        #: inside the one that names it (a chain of 256 would recurse past Python's limit).
        self.pending: list[tuple[str, t.Any]] = []
        #: How many values the tool's schemas hold so far (:data:`MAX_TOOL_VALUES`).
        self.values = 0

    def count(self, values: int) -> None:
        """``values`` more in the tool's schemas: Skip past :data:`MAX_TOOL_VALUES`; the whole
        import refused past :data:`MAX_OUTPUT_VALUES` (an operation left out counts too: its
        work was done)."""
        self.values += values
        self.budget[0] -= values
        if self.budget[0] < 0:
            raise _invalid(
                self.document.source,
                f"its tools would hold more than {MAX_OUTPUT_VALUES} values together (its schemas and examples,"
                " copied into each tool that names them): choose fewer operations (--tag, --operation);"
                " nothing was written",
            )
        if self.values > MAX_TOOL_VALUES:
            raise Skip(
                f"its schemas hold more than {MAX_TOOL_VALUES} values (the document's, copied into the tool):"
                " more than a tool file holds"
            )

    def finish(self) -> dict[str, t.Any]:
        """Every definition named, rewritten (those they name too), by name."""
        done = 0
        while done < len(self.pending):  # in the order they were named
            name, target = self.pending[done]
            self.definitions[name] = self.rewrite(target)
            done += 1
        self.pending.clear()
        return self.definitions

    def rewrite(self, schema: t.Any) -> t.Any:
        self.count(1)
        if isinstance(schema, bool):
            return {} if schema else {"not": {}}
        if not isinstance(schema, dict):
            raise Skip(f"{self.where}: a schema is an object, not {schema!r}"[:300])
        out: dict[str, t.Any] = {}
        if "$ref" in schema:
            out["$ref"] = self._reference(schema["$ref"])
            if self.document.version == "3.0":  # OpenAPI 3.0 ignores what is beside a $ref
                return out
        for key, value in schema.items():
            if key == "$ref":
                continue
            if key == "properties" and isinstance(value, dict):
                out[key] = {name: self.rewrite(sub) for name, sub in value.items()}
            elif key in ("items", "not") or (key == "additionalProperties" and isinstance(value, dict)):
                out[key] = self.rewrite(value)
            elif key in ("allOf", "anyOf", "oneOf") and isinstance(value, list):
                out[key] = [self.rewrite(sub) for sub in value]
            elif key in DROPPED or key.startswith("x-"):
                continue  # how it is serialised, documented or dispatched: nothing a caller gives
            elif key in ("$defs", "definitions", "$id", "$anchor", "$dynamicRef", "$dynamicAnchor"):
                raise Skip(f"{self.where}: a schema with `{key}` inside it is not read")
            else:
                out[key] = self.copied(value)
        return out

    def copied(self, value: t.Any) -> t.Any:
        """A copy of ``value`` (an enum, an example), counted."""
        self.count(_parts(value, MAX_TOOL_VALUES + 1))
        return copy.deepcopy(value)

    def _reference(self, reference: t.Any) -> str:
        """The tool's own reference to what ``reference`` names: a definition made (rewritten)
        when it is first named."""
        pointer, target = _pointer(self.document, reference, self.where)
        if pointer not in self.names:
            if len(self.names) >= MAX_DEFINITIONS:
                raise Skip(f"{self.where}: its schemas refer to more than {MAX_DEFINITIONS} others")
            name = self._name(pointer)
            self.names[pointer] = name
            self.definitions[name] = None  # taken; rewritten by finish()
            self.pending.append((name, target))
        return REFERENCE + self.names[pointer]

    def _name(self, pointer: str) -> str:
        base = re.sub(r"[^A-Za-z0-9_.-]", "_", pointer.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~"))
        name, number = base or "schema", 2
        while name in self.definitions:
            name, number = f"{base}_{number}", number + 1
        return name

    def translated(self, schema: dict[str, t.Any], where: str) -> dict[str, t.Any]:
        """A rewritten schema in OpenAPI 3.0's form (3.1's JSON Schema translated)."""
        if self.document.version == "3.0":
            return t.cast("dict[str, t.Any]", _known_only(schema))
        try:
            return t.cast("dict[str, t.Any]", _known_only(from_json_schema(schema)))
        except Unreadable as e:
            raise Skip(f"{self.where}: {where}: {e.message} (OpenAPI 3.0 schemas cannot say it)") from e


#: The keywords of a tool's schema (OpenAPI 3.0's, less those :data:`DROPPED`).
KEYWORDS = frozenset(
    "$ref additionalProperties allOf anyOf default deprecated description enum example exclusiveMaximum"
    " exclusiveMinimum format items maxItems maxLength maxProperties maximum minItems minLength"
    " minProperties minimum multipleOf not nullable oneOf pattern properties readOnly required title type"
    " uniqueItems writeOnly".split()
)


def _known_only(schema: t.Any) -> t.Any:
    """``schema`` without the annotations a tool's schema does not know (JSON Schema's
    ``contentEncoding``, ``$comment``...): they constrain nothing a call gives."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, t.Any] = {}
    for key, value in schema.items():
        if key not in KEYWORDS or (key == "enum" and value == []):
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: _known_only(sub) for name, sub in value.items()}
        elif key in ("items", "not", "additionalProperties"):
            out[key] = _known_only(value)
        elif key in ("allOf", "anyOf", "oneOf") and isinstance(value, list):
            out[key] = [_known_only(sub) for sub in value]
        else:
            out[key] = value
    return out


def _resolved_schema(schemas: _Schemas, schema: t.Any) -> t.Any:
    """``schema`` with a reference at its top followed (to see whether it is an object)."""
    seen = 0
    while isinstance(schema, dict) and "$ref" in schema and seen < MAX_REF_HOPS:
        _, target = _pointer(schemas.document, schema["$ref"], schemas.where)
        rest = {k: v for k, v in schema.items() if k != "$ref"} if schemas.document.version == "3.1" else {}
        schema = {**target, **rest} if isinstance(target, dict) else target
        seen += 1
    return schema


# -- naming --------------------------------------------------------------------------------


def tool_name(operation_id: str | None, method: str, path: str) -> str:
    """A tool name for an operation: its operationId, else its method and path, sanitised to
    ``[A-Za-z_][A-Za-z0-9_.-]*``, without ``..``, at most 48 characters."""
    if operation_id:
        text = operation_id
    else:
        parts = [re.sub(r"[{}]", "", part) for part in path.split("/") if part]
        text = "_".join([method.lower(), *parts])
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", text)
    name = re.sub(r"\.{2,}", ".", name).strip("_.-") or method.lower()
    if not re.match(r"[A-Za-z_]", name):
        name = "op_" + name
    if name in RESERVED_NAMES:
        name = "api_" + name
    return name[:NAME_MAX].rstrip(".-")


def identifier(name: str) -> str:
    """A parameter's name as a template may use it: ASCII letters, digits and ``_``, not first a
    digit, not a word Jinja or cogtools keeps for itself."""
    out = re.sub(r"_+", "_", re.sub(r"[^A-Za-z0-9_]", "_", name)).strip("_") or "value"
    if out[0].isdigit():
        out = "_" + out
    return out + "_" if out in RESERVED else out


class _Names:
    """Names told apart: each one taken is itself, or ``name_2``, ``name_3``... (the first not
    taken, ignoring case), cut to ``limit`` characters with its suffix. Each name costs the same
    work however many were taken before it (a set, and where the numbers of a name got to)."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = limit
        self.taken: set[str] = set()  # lower case
        self.next: dict[str, int] = {}  # a name (lower case) -> the number its next copy tries

    def take(self, name: str) -> str:
        candidate, key = name, name.lower()
        number = self.next.get(key, 2)
        while candidate.lower() in self.taken:
            suffix = f"_{number}"
            candidate = (name[: self.limit - len(suffix)] if self.limit else name) + suffix
            number += 1
        self.next[key] = number
        self.taken.add(candidate.lower())
        return candidate

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self.taken


def env_prefix(document: Document) -> str:
    """The prefix of the secrets' variables, from the API's title: ``Swagger Petstore - OpenAPI
    3.0`` -> ``PETSTORE``; ``API`` when the title says nothing more."""
    title = str((document.data.get("info") or {}).get("title") or "")
    title = re.sub(r"\([^)]*\)", " ", title)
    words = [w for w in re.findall(r"[A-Za-z][A-Za-z0-9]*", title) if w.lower() not in GENERIC_WORDS]
    return "_".join(words[:2]).upper() or "API"


def _snake_upper(text: str) -> str:
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", text)
    return re.sub(r"_+", "_", re.sub(r"[^A-Za-z0-9]", "_", text)).strip("_").upper()


# -- operations ----------------------------------------------------------------------------


class Operation(t.NamedTuple):
    method: str  # upper case
    path: str
    item: dict[str, t.Any]  # the path item, its reference followed
    spec: dict[str, t.Any]  # the operation object
    name: str  # the tool name, unique among the operations

    @property
    def label(self) -> str:
        return f"{self.method} {self.path}"


def operations(document: Document) -> tuple[list[Operation], list[str]]:
    """Every operation of the document in its order, each with its unique tool name."""
    notes: list[str] = []
    found: list[Operation] = []
    names = _Names(NAME_MAX)
    paths = document.data.get("paths") or {}
    for path, item in paths.items():
        try:
            item = _deref(document, item, f"paths.{path}")
        except Skip as e:
            notes.append(f"left out {path}: {e}")
            continue
        if not isinstance(item, dict):
            continue
        if "trace" in item:
            notes.append(f"left out TRACE {path}: an http tool does not send TRACE")
        for method in METHODS:
            spec = item.get(method)
            if not isinstance(spec, dict):
                continue
            name = names.take(tool_name(_operation_id(spec), method, path))
            found.append(Operation(method.upper(), path, item, spec, name))
    return found, notes


def select(
    document: Document, found: list[Operation], tags: t.Sequence[str], wanted: t.Sequence[str]
) -> list[Operation]:
    """The operations of ``tags`` (any of them) and named in ``wanted`` (by operationId or tool
    name); USAGE for a tag or name the document does not have."""
    if not found:
        raise _invalid(document.source, "it has no operation (no method of a path) to import")
    chosen = _of_tags(document, found, tags) if tags else found
    if wanted:
        picked = {id(op) for op in _named(document, found, wanted)}
        chosen = [op for op in chosen if id(op) in picked]
    if not chosen:
        raise UsageError(f"no operation of {document.source} is both of the tags and among the operations asked for")
    return chosen


def _of_tags(document: Document, found: list[Operation], tags: t.Sequence[str]) -> list[Operation]:
    """The operations with any of ``tags``; USAGE for a tag no operation has."""
    known = {tag for op in found for tag in op.spec.get("tags") or () if isinstance(tag, str)}
    missing = [tag for tag in tags if tag not in known]
    if missing:
        raise UsageError(
            f"no operation of {document.source} has the tag {missing[0]!r}"
            f" (its tags: {', '.join(sorted(known)) or 'none'})"
        )
    return [op for op in found if set(op.spec.get("tags") or ()) & set(tags)]


def _named(document: Document, found: list[Operation], wanted: t.Sequence[str]) -> list[Operation]:
    """The operations ``wanted`` names, by operationId or tool name; USAGE for a name none has."""
    by_name = {op.name: op for op in found}
    by_name.update({op.spec["operationId"]: op for op in found if _operation_id(op.spec) is not None})
    for name in wanted:
        if name not in by_name:
            close = sorted(n for n in by_name if n.lower() == name.lower())
            hint = (
                f" (did you mean {close[0]!r}?)" if close else " (`--operation` takes an operationId or the tool name)"
            )
            raise UsageError(f"{document.source} has no operation {name!r}{hint}")
    return [by_name[name] for name in wanted]


def _operation_id(spec: t.Mapping[str, t.Any]) -> str | None:
    operation_id = spec.get("operationId")
    return operation_id if isinstance(operation_id, str) else None


def import_document(
    document: Document,
    *,
    tags: t.Sequence[str] = (),
    wanted: t.Sequence[str] = (),
    server: str | None = None,
    prefix: str | None = None,
    progress: t.Callable[[int, int], None] | None = None,
) -> Imported:
    """The tools of the document's operations (of ``tags``, named in ``wanted``). An operation
    that cannot become a tool is left out with a note, unless ``wanted`` names it (then it is
    DEFINITION_INVALID); so is the whole import when no operation can. ``progress`` is told
    how many of how many operations are done, after each."""
    found, notes = operations(document)
    chosen = select(document, found, tags, wanted)
    prefix = _snake_upper(prefix) if prefix is not None else env_prefix(document)
    if not prefix:
        raise UsageError("--env-prefix needs a letter or a digit")
    tools: list[ImportedTool] = []
    lossy = 0
    budget = [MAX_OUTPUT_VALUES]
    for done, op in enumerate(chosen, 1):
        if progress is not None:
            progress(done - 1, len(chosen))
        try:
            try:
                tool, tool_notes = _tool(document, op, server, prefix, budget)
                text, losses = _check_loads(tool, document.source)
            except RecursionError as e:  # refused as the tool file would be, not a crash
                raise Skip(f"its schemas nest more deeply than {MAX_DEPTH} levels, through their references") from e
        except Skip as e:
            if wanted or len(chosen) == 1:
                raise _invalid(document.source, f"{op.label} ({op.name}) cannot be imported: {e}") from e
            notes.append(f"left out {op.name} ({op.label}): {e}")
            continue
        tools.append(tool._replace(text=text))
        notes.extend(f"{op.name}: {note}" for note in tool_notes)
        lossy += bool(losses)
        notes.extend(f"{op.name}: {loss}" for loss in losses if ": left out" in loss)
    if lossy:
        notes.append(
            f"{lossy} of the tools have schemas that some clients' dialects cannot carry whole (the Gemini API has"
            " no oneOf, few formats...): each accepts it with `lint: {ignore: [dialect-loss]}`; `cogtools-discover"
            " --format F` says what each client loses"
        )
    if progress is not None:
        progress(len(chosen), len(chosen))
    if not tools:
        raise _invalid(document.source, "no operation could be imported: " + "; ".join(notes[-3:]))
    return Imported(tools, notes)


def _check_loads(tool: ImportedTool, source: str) -> tuple[str, list[str]]:
    """The tool's file, and what its schema loses in a client's dialect (the Gemini API has no
    ``oneOf``...), which the tool then accepts (``lint: {ignore: [dialect-loss]}``): the
    document says it so, and the tool cannot say it otherwise. Skip, saying why, when the file
    would not load as written."""
    text = render(tool, source)
    try:
        loaded = parse_definition(
            Path(f"{tool.name}.yaml"), text.encode("utf-8"), display_path=tool.name, source="import"
        )
    except CogtoolsError as e:
        raise Skip(f"its tool would not load: {e.message} ({e.location()})") from e
    losses: list[str] = []
    for fmt, exporter in EXPORTS.items():
        for parsed in loaded.tools:
            losses += [f"{fmt}: {note}" for note in exporter(parsed)[1] if not note.startswith(NOT_STRICT)]
    if losses:
        if "lint" in tool.definition:
            tool.definition["lint"].setdefault("ignore", []).append("dialect-loss")
            text = render(tool, source)
        else:  # the last key: the file is what it was, and this after it (as render() would write it)
            tool.definition["lint"] = {"ignore": ["dialect-loss"]}
            text += dump_for_people({"lint": tool.definition["lint"]})
    return text, losses


class _Param(t.NamedTuple):
    ident: str
    place: str  # path, query, header, body
    name: str  # its name in the request
    schema: dict[str, t.Any]
    required: bool


class _Params:
    """A tool's parameters, in the order they are added, each under an identifier no other has:
    its name's, or the name prefixed by its place (``query_id``) when that is taken."""

    def __init__(self) -> None:
        self.params: list[_Param] = []
        self.taken: set[str] = set()
        self.prefixed = _Names()

    def add(self, place: str, name: str, schema: dict[str, t.Any], required: bool) -> str:
        base = identifier(name)
        if base not in self.taken:
            ident = base
            self.prefixed.taken.add(base.lower())
        else:
            ident = self.prefixed.take(f"{place}_{base}")
        self.taken.add(ident)
        self.params.append(_Param(ident, place, name, schema, required))
        return ident


class _Sent(t.NamedTuple):
    """Where the parameters other than the body's go in the request."""

    path: dict[str, str]  # a path parameter's name -> its identifier
    query: dict[str, str]  # a query parameter's name -> its value's template
    headers: dict[str, str]  # a header's name -> its value's template


#: The places a parameter is sent in, in the order their parameters take their identifiers.
PLACES = {"path": 0, "query": 1, "header": 2}
TOOL_SCHEMA = "schema:agladysh-research.org,2025/cogtools:tool"


def _tool(
    document: Document, op: Operation, server: str | None, prefix: str, budget: list[int] | None = None
) -> tuple[ImportedTool, list[str]]:
    notes: list[str] = []
    schemas = _Schemas(document, op.name, budget)
    params = _Params()
    sent = _send_parameters(schemas, op, _declared(document, op, notes), params.add, notes)
    body_kind, body, content_type = _body(schemas, op, params.add, notes)
    url = _server_url(document, op, server).rstrip("/") + _path_template(op, sent.path)
    environment, secrets, auth_notes = _security(document, op, prefix, sent.headers, sent.query)
    notes.extend(auth_notes)
    accept = _accept(document, op)
    if accept:
        sent.headers.setdefault("Accept", accept)

    op_id = _operation_id(op.spec)
    description, request_words = _description(document, op, op_id)
    definition: dict[str, t.Any] = {"$schema": TOOL_SCHEMA, "name": op.name, "description": description}
    parameters = _parameters(schemas, params.params)
    if parameters:
        definition["parameters"] = parameters
    if request_words:
        definition["examples"] = [request_words[:200]]
    tags = [tag for tag in op.spec.get("tags") or () if isinstance(tag, str) and tag]
    if tags:
        definition["category"] = tags[0]
        definition["keywords"] = tags
    definition["risk_level"] = RISKS.get(op.method, "high")
    definition["side_effects"] = ["network"]
    if environment:
        definition["environment"] = environment
    definition["implementation"] = _implementation(op, url, sent, body_kind, body, content_type)
    if any("in the query" in n for n in auth_notes):  # where the API wants it: accepted, and said
        definition["lint"] = {"ignore": ["secret-exposed"]}
    return ImportedTool(op.name, op.label, op_id, definition, tuple(secrets)), notes


def _declared(document: Document, op: Operation, notes: list[str]) -> dict[tuple[str, str], dict[str, t.Any]]:
    """The operation's parameters by place and name: the path item's, then the operation's
    (which win), and a string for each parameter of the path that neither declares."""
    declared: dict[tuple[str, str], dict[str, t.Any]] = {}
    for source in (op.item.get("parameters") or [], op.spec.get("parameters") or []):
        for index, raw in enumerate(source):
            parameter = _deref(document, raw, f"{op.name}: parameters[{index}]")
            if isinstance(parameter, dict) and isinstance(parameter.get("name"), str):
                declared[(str(parameter.get("in")), parameter["name"])] = parameter
    for name in _path_names(op):
        if ("path", name) not in declared:
            notes.append(f"the path parameter {name!r} is not declared: it is taken as a string")
            declared[("path", name)] = {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
    return declared


def _path_names(op: Operation) -> list[str]:
    return re.findall(r"\{([^{}]+)\}", op.path)


def _send_parameters(
    schemas: _Schemas,
    op: Operation,
    declared: dict[tuple[str, str], dict[str, t.Any]],
    add: t.Callable[[str, str, dict[str, t.Any], bool], str],
    notes: list[str],
) -> _Sent:
    """The declared parameters added (path, then query, then header), and where each is sent."""
    in_path = _path_names(op)
    sent = _Sent({}, {}, {})
    for (place, name), parameter in sorted(declared.items(), key=lambda kv: PLACES.get(kv[0][0], 3)):
        why = _left_out(place, name, in_path)
        if why is not None:
            if why:
                notes.append(why)
            continue
        schema, encoded = _parameter_schema(schemas, parameter)
        schema = _parameter_described(schemas, schema, parameter, place, name)
        ident = add(place, name, schema, place == "path" or parameter.get("required") is True)
        if place == "path":
            sent.path[name] = ident
        else:
            resolved = _resolved_schema(schemas, parameter["schema"]) if "schema" in parameter else {}
            template = _value_template(ident, resolved, encoded, _separator(parameter, place))
            (sent.query if place == "query" else sent.headers)[name] = template
    return sent


def _left_out(place: str, name: str, in_path: t.Collection[str]) -> str | None:
    """Why a declared parameter is none of the tool's (a note, or "" for none), or None when it is one."""
    if place == "cookie":
        return f"the cookie parameter {name!r} is left out: an http tool sends no cookies"
    if place == "path" and name not in in_path:
        return f"the path parameter {name!r} is not in the path: left out"
    if place == "header" and name.lower() in IGNORED_HEADERS:
        return ""  # OpenAPI: these are described elsewhere, and ignored here
    if place not in PLACES:
        return ""
    return None


def _parameter_described(
    schemas: _Schemas, schema: dict[str, t.Any], parameter: t.Mapping[str, t.Any], place: str, name: str
) -> dict[str, t.Any]:
    """A parameter's schema with what the parameter says of itself: its description, whether
    it is deprecated, its example."""
    schema = _described(schema, parameter.get("description"), f"The `{name}` {place} parameter.", name)
    if parameter.get("deprecated") is True:
        schema["deprecated"] = True
    example = _example(schemas, parameter)
    if example is not _NONE and "example" not in schema:
        schema["example"] = example
    return schema


def _implementation(
    op: Operation, url: str, sent: _Sent, body_kind: str | None, body: t.Any, content_type: str | None
) -> dict[str, t.Any]:
    """The tool's ``implementation``: the http kind's request."""
    implementation: dict[str, t.Any] = {"kind": "http", "method": op.method, "url": url}
    if sent.query:
        implementation["query"] = sent.query
    if sent.headers:
        implementation["headers"] = sent.headers
    if body_kind is not None:
        implementation[body_kind] = body
        if content_type and body_kind == "json" and content_type != "application/json":
            implementation.setdefault("headers", {})["Content-Type"] = content_type
    return implementation


def _description(document: Document, op: Operation, op_id: str | None) -> tuple[str, str]:
    """The tool's description (the operation's summary and description, else words made of its
    name), and the words of a request for its example ("" for none)."""
    summary = _text(op.spec.get("summary"))
    description = _text(op.spec.get("description"))
    parts = [p for p in (summary, description if description != summary else "") if p]
    title = _text((document.data.get("info") or {}).get("title"))
    words = _words(op_id or op.name) if not summary else ""
    text = "\n\n".join(parts) or f"{words or op.label}: `{op.label}`{f' of {title}' if title else ''}."
    if op.spec.get("deprecated") is True:
        text = "Deprecated. " + text
    request_words = summary or (description.split("\n", 1)[0] if description else "") or words
    return text, request_words


_NONE: t.Any = object()


def _words(operation_id: str) -> str:
    """``create_message`` or ``createMessage`` -> ``Create message``."""
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", operation_id)
    text = " ".join(re.sub(r"[^A-Za-z0-9]+", " ", text).split()).lower()
    return text[:1].upper() + text[1:]


def _text(value: t.Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _example(schemas: _Schemas, holder: t.Mapping[str, t.Any]) -> t.Any:
    """The first example a parameter or media type gives (``example``, or ``examples``' first
    ``value``), or _NONE."""
    if "example" in holder:
        return schemas.copied(holder["example"])
    examples = holder.get("examples")
    if isinstance(examples, dict):
        for item in examples.values():
            if isinstance(item, dict) and "value" in item:
                return schemas.copied(item["value"])
    return _NONE


def _described(schema: dict[str, t.Any], description: t.Any, fallback: str, name: str = "") -> dict[str, t.Any]:
    """``schema`` with a description: the one given, else its own, else ``fallback``; one that
    only repeats ``name`` gets ``fallback`` after it, in brackets."""
    out = dict(schema)
    text = _text(description) or _text(out.get("description"))
    if not text:
        text = fallback
    elif _letters(text) == _letters(name):
        text = f"{text.rstrip('.')} ({fallback[:1].lower()}{fallback[1:].rstrip('.')})."
    out["description"] = text
    return out


def _letters(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _parameter_schema(schemas: _Schemas, parameter: dict[str, t.Any]) -> tuple[dict[str, t.Any], bool]:
    """A parameter's schema (rewritten), and whether it is sent JSON-encoded (``content``)."""
    if "schema" in parameter:
        return schemas.rewrite(parameter["schema"]), False
    content = parameter.get("content")
    if isinstance(content, dict):
        for media in content.values():
            if isinstance(media, dict) and "schema" in media:
                return schemas.rewrite(media["schema"]), True
    return {"type": "string"}, False


def _schema_type(schema: t.Mapping[str, t.Any]) -> str | None:
    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        return kinds[0] if len(kinds) == 1 else None
    return kind if isinstance(kind, str) else None


def _value_template(ident: str, schema: t.Any, encoded: bool, separator: str | None = ",") -> str:
    """The template of a query, header or form value (``schema`` with its reference followed):
    text as it is, a boolean as JSON writes it, an object as JSON; an array joined by
    ``separator``, or, when it is None (a query's ``explode``, OpenAPI's default), the list
    itself, which the http kind sends as the parameter repeated (``tags=a&tags=b``)."""
    kind = _schema_type(schema) if isinstance(schema, dict) else None
    if encoded or kind in ("object", "boolean"):
        return f"{{{{ {ident} | tojson if {ident} is not none else '' }}}}"
    if kind == "array":
        if separator is None:
            return f"{{{{ {ident} }}}}"
        items = schema.get("items")
        each = "" if isinstance(items, dict) and _schema_type(items) == "string" else " | map('tojson')"
        return f"{{{{ {ident}{each} | join({separator!r}) if {ident} is not none else '' }}}}"
    return f"{{{{ {ident} }}}}"


def _separator(parameter: t.Mapping[str, t.Any], place: str) -> str | None:
    """How an array parameter is written (OpenAPI's ``style`` and ``explode``): None for one
    query pair per item, else what joins the items."""
    style = parameter.get("style") or ("form" if place == "query" else "simple")
    explode = parameter.get("explode", style == "form")
    if place == "query" and style == "form" and explode is True:
        return None
    return {"spaceDelimited": " ", "pipeDelimited": "|"}.get(str(style), ",")


def _path_template(op: Operation, idents: t.Mapping[str, str]) -> str:
    """The URL's path: each ``{name}`` the template of its parameter, the literal text between
    percent-encoded where a URL needs it (so nothing in it is read as a template, a query or a
    fragment)."""
    if not re.fullmatch(r"(?:[^{}?#]|\{[^{}]+\})*", op.path):
        raise Skip(f"the path {op.path!r} has a brace outside a parameter, a `?` or a `#`")
    out = []
    for literal, name in re.findall(r"([^{]*)(?:\{([^{}]+)\})?", op.path):
        out.append(urllib.parse.quote(literal, safe="/:@!$&'()*+,;=-._~%"))
        if name:
            out.append(f"{{{{ {idents[name]} }}}}")
    path = "".join(out)
    if not path.startswith("/"):
        path = "/" + path
    return path


def _server_url(document: Document, op: Operation, given: str | None) -> str:
    if given is not None:
        url = given
    else:
        url = "/"
        for holder in (op.spec, op.item, document.data):
            servers = holder.get("servers")
            if isinstance(servers, list) and servers and isinstance(servers[0], dict):
                server = servers[0]
                url = str(server.get("url") or "/")
                for name, variable in (server.get("variables") or {}).items():
                    if isinstance(variable, dict) and "default" in variable:
                        url = url.replace("{" + name + "}", str(variable["default"]))
                break
        if not re.match(r"^https?://", url, re.IGNORECASE):
            if document.base_url is None:
                raise UsageError(
                    f"the server of {op.label} is {url!r}, not an http(s) URL: give the API's address with --server URL"
                )
            url = urllib.parse.urljoin(document.base_url, url)
    if not re.match(r"^https?://[^/?#{}]+(/[^?#{}]*)?$", url, re.IGNORECASE):
        raise UsageError(f"the server URL {url!r} is not http(s)://HOST/PATH (no query, no braces left)")
    if "@" in url.split("/", 3)[2]:
        raise UsageError(f"the server URL {url!r} holds user information: give credentials as a secret instead")
    return url


def _accept(document: Document, op: Operation) -> str | None:
    """``application/json`` when a successful response of the operation is JSON."""
    responses = op.spec.get("responses") or {}
    for code, response in responses.items():
        if not (str(code).startswith("2") or code == "default"):
            continue
        try:
            response = _deref(document, response, op.name)
        except Skip:
            continue
        content = response.get("content") if isinstance(response, dict) else None
        if isinstance(content, dict) and any(_is_json(media) for media in content):
            return "application/json"
    return None


def _is_json(media: str) -> bool:
    media = media.split(";", 1)[0].strip().lower()
    return media == "application/json" or media.endswith("+json")


def _body(
    schemas: _Schemas, op: Operation, add: t.Callable[[str, str, dict[str, t.Any], bool], str], notes: list[str]
) -> tuple[str | None, t.Any, str | None]:
    """``json`` or ``form``, the body's template, and its content type; its parameters added."""
    body = _request_body(schemas, op)
    if body is None:
        return None, None, None
    required = body.get("required") is True
    content: dict[str, t.Any] = body["content"]
    kind, media = _body_media(content)
    if media is None:
        what = ", ".join(content) or "no content"
        if required:
            raise Skip(f"its request body is {what}, which an http tool cannot send (JSON or a form only)")
        notes.append(f"the optional request body ({what}) is left out: an http tool sends JSON or a form")
        return None, None, None
    item = content[media] if isinstance(content[media], dict) else {}
    schema = item.get("schema", {})
    example = _example(schemas, item)
    media_type = media.split(";")[0].strip()
    top = _object_with_properties(schemas, schema)
    if top is None:
        if kind == "form":
            raise Skip("its form body is not an object with properties")
        whole = _described(schemas.rewrite(schema), body.get("description"), "The request body.")
        if example is not _NONE and "example" not in whole:
            whole["example"] = example
        ident = add("body", "body", whole, required)
        return "json", f"{{{{ {ident} }}}}", media_type
    fields, optional = _body_fields(schemas, top, example, add, required)
    if kind == "form":
        return "form", {name: _value_template(ident, sub, False) for name, (ident, sub) in fields.items()}, None
    if not optional:
        return "json", {name: f"{{{{ {ident} }}}}" for name, (ident, _) in fields.items()}, media_type
    # Optional fields a call leaves out are left out of the body, not sent as null.
    members = ", ".join(f"'{name}': {ident}" for name, (ident, _) in fields.items())
    return "json", f"{{{{ dict({{{members}}}.items() | rejectattr(1, 'none')) }}}}", media_type


def _request_body(schemas: _Schemas, op: Operation) -> dict[str, t.Any] | None:
    """The operation's request body, its reference followed, when it has one with content."""
    raw = op.spec.get("requestBody")
    if raw is None:
        return None
    body = _deref(schemas.document, raw, f"{op.name}: requestBody")
    if not isinstance(body, dict) or not isinstance(body.get("content"), dict):
        return None
    return body


def _body_media(content: t.Mapping[str, t.Any]) -> tuple[str, str | None]:
    """How the body is sent (``json`` or ``form``) and the media type of ``content`` it is sent
    as: JSON, else a JSON-based type, else a URL-encoded form; None for none of them."""
    media = next((m for m in content if m.split(";")[0].strip().lower() == "application/json"), None)
    media = media or next((m for m in content if _is_json(m)), None)
    if media is not None:
        return "json", media
    return "form", next((m for m in content if m.lower().startswith("application/x-www-form-urlencoded")), None)


#: The keywords that combine schemas.
COMBINERS = ("oneOf", "anyOf", "allOf", "not")
#: What a body property's name cannot hold to be named in a template.
UNNAMEABLE = ("{", "}", "'", "\\", "%", "#")


def _object_with_properties(schemas: _Schemas, schema: t.Any) -> dict[str, t.Any] | None:
    """The body's schema as one object (its reference followed, an ``allOf`` merged), when it is
    an object with properties and nothing that combines schemas; else None."""
    top = _all_of(schemas, _resolved_schema(schemas, schema))
    if not isinstance(top, dict):
        return None
    properties = top.get("properties")
    if (
        isinstance(properties, dict)
        and properties
        and _schema_type(top) in ("object", None)
        and not any(k in top for k in COMBINERS)
    ):
        return top
    return None


def _body_fields(
    schemas: _Schemas,
    top: dict[str, t.Any],
    example: t.Any,
    add: t.Callable[[str, str, dict[str, t.Any], bool], str],
    required: bool,
) -> tuple[dict[str, tuple[str, t.Any]], bool]:
    """Each property of the body a request sends, added as a parameter: its identifier and its
    schema (its reference followed), by name; and whether any may be left out."""
    needed = set(top.get("required") or ()) if required else set()
    fields: dict[str, tuple[str, t.Any]] = {}
    optional = False
    for name, sub in top["properties"].items():
        shown = _resolved_schema(schemas, sub)
        if isinstance(shown, dict) and shown.get("readOnly") is True:
            continue  # OpenAPI: a property the server sets, not sent in a request
        if any(mark in name for mark in UNNAMEABLE):
            raise Skip(f"the body property {name!r} cannot be named in a template")
        schema_of = _described(schemas.rewrite(sub), None, f"The `{name}` field of the request body.", name)
        if isinstance(example, dict) and name in example and "example" not in schema_of:
            schema_of["example"] = schemas.copied(example[name])
        is_required = name in needed
        ident = add("body", name, schema_of, is_required)
        optional = optional or (not is_required and "default" not in schema_of)
        fields[name] = (ident, shown)
    return fields, optional


#: The most schemas one ``allOf`` merged into one object may gather (through the ``allOf``\ s of
#: its parts): an allOf of 30 allOfs of 30... is not a body anyone writes.
MAX_ALL_OF_PARTS = 1000


def _all_of(schemas: _Schemas, schema: t.Any, depth: int = 0, budget: list[int] | None = None) -> t.Any:
    """An ``allOf`` of objects (a base schema and what is added to it, as documents often write
    a body) as one object with the properties and required names of all; any other schema as
    it is (so is one that gathers more than :data:`MAX_ALL_OF_PARTS` parts)."""
    parts = schema.get("allOf") if isinstance(schema, dict) else None
    if not isinstance(parts, list) or depth > 8 or any(k in schema for k in ("oneOf", "anyOf", "not")):
        return schema
    budget = [MAX_ALL_OF_PARTS] if budget is None else budget
    budget[0] -= len(parts)
    if budget[0] < 0:
        return schema
    properties: dict[str, t.Any] = dict(schema.get("properties") or {})
    required = dict.fromkeys(_hashable(schema.get("required")))  # in order, each once
    for part in parts:
        part = _all_of(schemas, _resolved_schema(schemas, part), depth + 1, budget)
        if (
            not isinstance(part, dict)
            or _schema_type(part) not in ("object", None)
            or any(k in part for k in COMBINERS)
        ):
            return schema
        properties.update(part.get("properties") or {})
        required.update(dict.fromkeys(_hashable(part.get("required"))))
    merged = {k: v for k, v in schema.items() if k not in ("allOf", "properties", "required")}
    return {**merged, "type": "object", "properties": properties, "required": list(required)}


def _hashable(names: t.Any) -> list[t.Any]:
    """The names of a ``required`` list that can be told apart in a set (text, as the validator
    holds them; anything else is left out)."""
    return [name for name in names or () if isinstance(name, (str, int, float, bool))]


def _parameters(schemas: _Schemas, params: list[_Param]) -> dict[str, t.Any]:
    """The tool's parameters: the map form when the schemas are small written out in full, else
    the object form with ``$defs``."""
    properties = {p.ident: schemas.translated(p.schema, p.ident) for p in params}
    definitions = {name: schemas.translated(d, f"$defs.{name}") for name, d in schemas.finish().items()}
    if definitions:
        try:
            written = inline({"properties": properties, "$defs": definitions})
        except (Unreadable, RecursionError):  # a chain of definitions too long to write out
            written = None
        if written is not None and _parts(written) <= MAX_INLINE_PARTS:
            properties, definitions = written["properties"], {}
    if definitions:
        try:
            check_definitions(properties, definitions)
        except Unreadable as e:
            raise Skip(f"its schemas: {e.message}") from e
        out: dict[str, t.Any] = {"type": "object", "properties": properties}
        required = [p.ident for p in params if p.required]
        if required:
            out["required"] = required
        out["$defs"] = definitions
        return out
    return {p.ident: properties[p.ident] if p.required else {**properties[p.ident], "optional": True} for p in params}


def _parts(value: t.Any, limit: int | None = None) -> int:
    """How many values ``value`` holds (itself, and each in it); counted up to ``limit``."""
    count, stack = 0, [value]
    while stack and (limit is None or count < limit):
        item = stack.pop()
        count += 1
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return count


def _security(
    document: Document, op: Operation, prefix: str, headers: dict[str, str], query: dict[str, str]
) -> tuple[list[dict[str, t.Any]], list[str], list[str]]:
    """The secret variables of the first security requirement the http kind can send, set
    into ``headers`` and ``query``; and notes."""
    requirements = op.spec.get("security", document.data.get("security"))
    if not isinstance(requirements, list) or not requirements:
        return [], [], []
    schemes = ((document.data.get("components") or {}).get("securitySchemes")) or {}
    for requirement in requirements:
        if not isinstance(requirement, dict):
            continue
        if not requirement:
            return [], [], []  # anonymous access is one of the choices
        planned = _credentials(document, schemes, requirement, prefix)
        if planned is not None:
            return _send_credentials(planned, headers, query)
    return (
        [],
        [],
        [
            "its security schemes are none an http tool can send (apiKey in a header or the query, http bearer or basic, OAuth 2): no credentials are declared"
        ],
    )


class _Credential(t.NamedTuple):
    variable: str  # the secret environment variable that holds it
    place: str  # header or query
    name: str  # the header's or the query parameter's
    template: str  # its value


#: The word before the credential in the Authorization header, by the scheme of an ``http`` security scheme.
HTTP_SCHEMES = {"bearer": "Bearer", "basic": "Basic"}


def _credentials(
    document: Document, schemes: t.Mapping[str, t.Any], requirement: t.Mapping[str, t.Any], prefix: str
) -> list[_Credential] | None:
    """How the http kind sends each scheme of a security requirement, or None when it cannot
    send one of them."""
    planned: list[_Credential] = []
    for scheme_name in requirement:
        try:
            scheme = _deref(document, schemes.get(scheme_name), f"securitySchemes.{scheme_name}")
        except Skip:
            scheme = None
        if not isinstance(scheme, dict):
            return None
        variable = _secret_variable(scheme_name, prefix)
        credential = _credential(scheme, variable)
        if credential is None:
            return None
        planned.append(credential)
    return planned


def _secret_variable(scheme_name: str, prefix: str) -> str:
    """The variable of a security scheme's credential: ``PREFIX_SCHEME``."""
    snake = _snake_upper(scheme_name)
    variable = snake if snake.startswith(prefix + "_") or snake == prefix else f"{prefix}_{snake}"
    return re.sub(r"^(\d)", r"_\1", variable)


def _credential(scheme: t.Mapping[str, t.Any], variable: str) -> _Credential | None:
    """How the http kind sends a security scheme's credential: an apiKey in a header or the
    query, http bearer or basic, an OAuth 2 or OpenID Connect token as a bearer token; else None."""
    value = f"{{{{ env.{variable} }}}}"
    kind, where = scheme.get("type"), scheme.get("in")
    if kind == "apiKey" and where in ("header", "query") and isinstance(scheme.get("name"), str):
        return _Credential(variable, str(where), scheme["name"], value)
    if kind == "http":
        word = HTTP_SCHEMES.get(str(scheme.get("scheme", "")).lower())
    elif kind in ("oauth2", "openIdConnect"):
        word = "Bearer"
    else:
        return None
    return _Credential(variable, "header", "Authorization", f"{word} {value}") if word else None


def _send_credentials(
    planned: list[_Credential], headers: dict[str, str], query: dict[str, str]
) -> tuple[list[dict[str, t.Any]], list[str], list[str]]:
    """``planned`` set into ``headers`` and ``query``: the tool's environment, its secrets and notes."""
    environment: list[dict[str, t.Any]] = []
    secrets: list[str] = []
    notes: list[str] = []
    for variable, place, name, template in planned:
        (headers if place == "header" else query)[name] = template
        if variable not in secrets:
            secrets.append(variable)
            environment.append({"name": variable, "secret": True})
        if place == "query":
            notes.append(
                f"the API key {variable} is sent in the query, where servers and proxies log it, as the API asks"
            )
    return environment, secrets, notes


# -- output --------------------------------------------------------------------------------


def render(tool: ImportedTool, source: str) -> str:
    """The tool's YAML file: a shebang, where it came from, the definition."""
    origin = printable(_one_line(f"{source}: {tool.operation}"), "")
    return f"#! /usr/bin/env cogtools-yaml\n# Imported by `cogtools import openapi` from {origin}\n" + dump_for_people(
        tool.definition
    )
