"""What each client is told is what a call accepts (issue 13), measured, not assumed.

- Every export format of the shipped examples and of a fixture catalog (tests/schema_fixtures.py,
  34 tools over every construct the formats take) loads in its client's official SDK types, and
  the JSON Schema dialects pass the Draft 2020-12 meta-schema.
- Agreement: for each fixture tool, 150 seeded argument objects, each judged by the exported JSON
  Schema (jsonschema, with ECMA-262 patterns and format checking) and by the call's own check
  (``invoke.prepare``, what ``cogtools-call`` runs; a sample goes through the real binary too).
  Every disagreement must be one of the documented exceptions (docs/formats.md, "What a call
  accepts"), each of which is also tested on its own below.
- A sample is judged by the real Gemini CLI core (``build(args)``, ajv with ajv-formats), which
  must agree with the call on every pattern and nullable case.
"""

from __future__ import annotations

import collections
import json
import os
import subprocess
import typing as t
from pathlib import Path

import jsonschema
import pytest

from cogtools.clients.export import EXPORTS, export
from cogtools.core.errors import SchemaViolationError
from cogtools.core.model import Tool
from cogtools.load.catalog import load_catalog, load_tool_file
from cogtools.schema import patterns
from cogtools.schema.dialects import to_json_schema
from cogtools.schema.string_formats import check_string_format
from cogtools.services.invoke import prepare, without_absent_nulls

from .conftest import BIN, EXAMPLES
from .schema_fixtures import FIXTURES, FORMAT_VALUES, arguments

PER_TOOL = 150
SEED = 13


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Tool]:
    root = tmp_path_factory.mktemp("fidelity")
    (root / "tools").mkdir()
    tools = {}
    for name, (file_name, text) in FIXTURES.items():
        path = root / "tools" / file_name
        path.write_text(text, encoding="utf-8")
        tools[name] = load_tool_file(path)
    return tools


def shipped() -> list[Tool]:
    return list(load_catalog(EXAMPLES).tools.values())


# ------------------------------------------------------------------------------ the SDKs


def _openai_chat(declaration: dict[str, t.Any]) -> None:
    from openai.types.chat import ChatCompletionFunctionToolParam
    from pydantic import TypeAdapter

    TypeAdapter(ChatCompletionFunctionToolParam).validate_python(declaration)


def _openai_responses(declaration: dict[str, t.Any]) -> None:
    from openai.types.responses import FunctionToolParam
    from pydantic import TypeAdapter

    TypeAdapter(FunctionToolParam).validate_python(declaration)


def _anthropic(declaration: dict[str, t.Any]) -> None:
    from anthropic.types import ToolParam
    from pydantic import TypeAdapter

    TypeAdapter(ToolParam).validate_python(declaration)


def _genai(declaration: dict[str, t.Any]) -> None:
    from google.genai import types

    # Schema forbids keys it does not know, and types every field (an enum is a list of strings).
    types.FunctionDeclaration.model_validate(declaration)


def _mcp(declaration: dict[str, t.Any]) -> None:
    from mcp import types

    assert types.Tool.model_validate(declaration).model_dump(by_alias=True, exclude_none=True) == declaration


#: format -> (the SDK's check of a declaration, where its JSON Schema is, if it has one)
SDK: dict[str, tuple[t.Callable[[dict[str, t.Any]], None], t.Callable[[dict[str, t.Any]], t.Any] | None]] = {
    "gemini-cli": (_genai, lambda d: d["parametersJsonSchema"]),
    "gemini-api": (_genai, None),
    "mcp": (_mcp, lambda d: d["inputSchema"]),
    "openai": (_openai_chat, lambda d: d["function"]["parameters"]),
    "openai-responses": (_openai_responses, lambda d: d["parameters"]),
    "anthropic": (_anthropic, lambda d: d["input_schema"]),
}


def check_meta_schema(schema: t.Any) -> None:
    """``schema`` against the Draft 2020-12 meta-schema, whose ``format: regex`` is ECMA-262 (the
    check_schema of jsonschema compiles patterns with Python's ``re``, which has no ``\\p{...}``)."""
    checker = jsonschema.FormatChecker(())
    checker.checks("regex", raises=patterns.PatternError)(
        lambda value: not isinstance(value, str) or bool(patterns.compiled(value))
    )
    meta = jsonschema.Draft202012Validator(jsonschema.Draft202012Validator.META_SCHEMA, format_checker=checker)
    meta.validate(schema)


def test_every_format_has_an_sdk_check() -> None:
    assert set(SDK) == set(EXPORTS)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", sorted(EXPORTS))
def test_every_declaration_loads_in_its_clients_sdk(fmt: str, catalog: dict[str, Tool]) -> None:
    check, json_schema = SDK[fmt]
    tools = [*shipped(), *catalog.values()]
    declarations, _ = export(tools, fmt)
    assert len(declarations) == len(tools)  # every name here is one OpenAI and Anthropic take
    for declaration in declarations:
        check(declaration)
        if json_schema is not None:
            check_meta_schema(json_schema(declaration))


def test_openai_strict_mode_where_it_carries_the_tool(catalog: dict[str, Tool]) -> None:
    declarations, notes = export(catalog.values(), "openai-responses")
    strict = {d["name"]: d for d in declarations if d["strict"]}
    # Closed, with keywords strict mode takes: strict; an optional property became nullable.
    assert {"no_parameters", "pattern_version", "nullable_enum", "defaults", "format_uuid"} <= set(strict)
    defaults = strict["defaults"]["parameters"]
    assert defaults["required"] == ["n", "s"] and defaults["properties"]["n"]["type"] == ["integer", "null"]
    assert "Default: 3." in defaults["properties"]["n"]["description"] and "default" not in defaults["properties"]["n"]
    # Not strict, and why: a keyword strict mode refuses, an open object.
    assert "strings: not strict: s: strict mode does not take `minLength`" in notes
    assert "open_object: not strict: m: an object open to other names, which strict mode cannot say" in notes
    for declaration in declarations:
        if declaration["strict"]:
            _assert_strict(declaration["parameters"])


def _assert_strict(schema: t.Mapping[str, t.Any]) -> None:
    if "properties" in schema:
        assert schema["additionalProperties"] is False and set(schema.get("required", ())) == set(schema["properties"])
    for sub in [
        *(schema.get("properties") or {}).values(),
        *schema.get("anyOf", ()),
        *([schema["items"]] if "items" in schema else []),
    ]:
        _assert_strict(sub)


def test_a_strict_declaration_is_what_a_call_accepts(catalog: dict[str, Tool]) -> None:
    """Everything strict mode lets the model give (nulls for what it would leave out), the call
    takes: null for an optional parameter is read as not given, and its default applies."""
    tool = catalog["defaults"]
    assert prepare(tool, {"n": None, "s": None}) == {"n": 3, "s": "x"}
    nested = catalog["nested_object"]
    assert prepare(nested, {"o": {"a": 1, "b": None, "c": None}}) == {"o": {"a": 1}}
    with pytest.raises(SchemaViolationError):
        prepare(nested, {"o": {"a": None}})  # required: null is null


# ------------------------------------------------------------------------------ agreement


def _ecma_pattern(
    validator: t.Any, pattern: str, instance: t.Any, schema: t.Any
) -> t.Iterator[jsonschema.ValidationError]:
    if isinstance(instance, str) and not patterns.search(pattern, instance):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


#: Draft 2020-12 with JSON Schema's own patterns (jsonschema's `pattern` is Python's `re`).
EcmaValidator: t.Any = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
    jsonschema.Draft202012Validator, {"pattern": _ecma_pattern}
)


def _checker(ours: t.Collection[str] = ()) -> jsonschema.FormatChecker:
    """jsonschema's format checker, with the formats in ``ours`` checked by the call's definition."""
    checker = jsonschema.FormatChecker(())
    # Draft 2020-12's own checkers (a bare FormatChecker() mixes the drafts: its `time` is
    # draft 3's %H:%M:%S).
    checker.checkers = dict(jsonschema.Draft202012Validator.FORMAT_CHECKER.checkers)
    for fmt in ours:
        checker.checks(fmt)(
            lambda value, fmt=fmt: not isinstance(value, str) or check_string_format(fmt, value) is None
        )
    return checker


def schema_accepts(schema: t.Mapping[str, t.Any], args: t.Any, ours: t.Collection[str] = ()) -> bool:
    return bool(EcmaValidator(schema, format_checker=_checker(ours)).is_valid(args))


def call_accepts(tool: Tool, args: t.Mapping[str, t.Any]) -> bool:
    try:
        prepare(tool, args)
    except SchemaViolationError:
        return False
    return True


#: The formats whose definition in jsonschema's checker differs from the call's (RFC 3339 and
#: the rest, see cogtools/schema/string_formats.py): email ("@" anywhere, for jsonschema), date-time and
#: time (rfc3339-validator: no leap second, no lower-case t or z, a trailing newline passes),
#: date (Python's date has no year 0000, which RFC 3339 has), hostname (fqdn takes non-ASCII
#: digits and a final newline), byte (not known to jsonschema).
FORMATS_JUDGED_OTHERWISE = frozenset({"email", "date", "date-time", "time", "hostname", "uri", "byte"})


def _formats(schema: t.Any) -> set[str]:
    if isinstance(schema, dict):
        found = {schema["format"]} if isinstance(schema.get("format"), str) else set()
        return found.union(*(_formats(v) for v in schema.values()))
    if isinstance(schema, list):
        return set().union(*(_formats(v) for v in schema))
    return set()


def _has_nul(value: t.Any) -> bool:
    if isinstance(value, str):
        return "\0" in value
    if isinstance(value, list):
        return any(_has_nul(v) for v in value)
    if isinstance(value, dict):
        return any("\0" in k or _has_nul(v) for k, v in value.items())
    return False


def exception(tool: Tool, schema: t.Mapping[str, t.Any], args: dict[str, t.Any], by_schema: bool) -> str | None:
    """Which documented exception a disagreement is; None when it is none of them."""
    if by_schema and _has_nul(args) and tool.implementation.kind != "template":
        return "NUL in a program's argument"
    cleaned = without_absent_nulls(tool.input_schema(), args)
    nulls = ["null for an optional parameter"] if cleaned != args else []
    by_call = call_accepts(tool, args)
    involved = sorted(_formats(schema) & FORMATS_JUDGED_OTHERWISE)
    for ours in ([], *([fmt] for fmt in involved), involved if len(involved) > 1 else None):
        if ours is not None and (nulls or ours) and schema_accepts(schema, cleaned, ours=ours) == by_call:
            return " + ".join([*nulls, *([f"format {', '.join(ours)}"] if ours else [])])
    return None


def agreement(tool: Tool) -> tuple[collections.Counter[str], list[tuple[dict[str, t.Any], bool, bool]]]:
    schema, _ = to_json_schema(tool.input_schema())
    counts: collections.Counter[str] = collections.Counter()
    unexplained = []
    for args in arguments(tool.input_schema(), seed=SEED + sum(map(ord, tool.name)), count=PER_TOOL):
        by_schema, by_call = schema_accepts(schema, args), call_accepts(tool, args)
        counts["valid" if by_call else "invalid"] += 1
        if by_schema == by_call:
            counts["agree"] += 1
            continue
        why = exception(tool, schema, args, by_schema)
        if why is None:
            unexplained.append((args, by_schema, by_call))
        counts[why or "unexplained"] += 1
    return counts, unexplained


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_the_exported_schema_and_the_call_agree(name: str, catalog: dict[str, Tool]) -> None:
    counts, unexplained = agreement(catalog[name])
    assert counts["valid"] + counts["invalid"] == PER_TOOL
    assert not unexplained, f"{name}: {len(unexplained)} unexplained disagreements, e.g. {unexplained[:3]}"
    if name != "no_parameters":  # the generator reaches both sides of every other tool
        assert counts["valid"] >= 5 and counts["invalid"] >= 5, counts


def test_agreement_counts(catalog: dict[str, Tool], capsys: pytest.CaptureFixture[str]) -> None:
    """The whole catalog at once; the counts are printed (``pytest -s``) for the record."""
    total: collections.Counter[str] = collections.Counter()
    for name in sorted(FIXTURES):
        total.update(agreement(catalog[name])[0])
    with capsys.disabled():
        print(f"\nagreement over {len(FIXTURES)} tools x {PER_TOOL}: {dict(sorted(total.items()))}")
    assert (
        total["agree"] + sum(v for k, v in total.items() if k not in ("agree", "valid", "invalid"))
        == len(FIXTURES) * PER_TOOL
    )
    assert total["unexplained"] == 0


# Each exception, on its own: a disagreement that must stay as documented.


def test_exception_null_for_an_optional_parameter(catalog: dict[str, Tool]) -> None:
    tool = catalog["strings"]
    schema, _ = to_json_schema(tool.input_schema())
    assert call_accepts(tool, {"s": "abc", "t": None}) and not schema_accepts(schema, {"s": "abc", "t": None})


def test_exception_nul_in_a_programs_argument(catalog: dict[str, Tool]) -> None:
    tool = catalog["program_echo"]
    schema, _ = to_json_schema(tool.input_schema())
    assert schema_accepts(schema, {"w": "a\0b"}) and not call_accepts(tool, {"w": "a\0b"})
    with pytest.raises(SchemaViolationError) as raised:
        prepare(tool, {"w": "ok", "xs": ["a", "b\0"]})
    assert raised.value.details["violations"][0]["field"] == "xs[1]"
    assert call_accepts(catalog["strings"], {"s": "a\0b"})  # a template takes any text


@pytest.mark.parametrize(
    ("fmt", "value", "call_says"),
    [
        ("email", "a@b", False),  # jsonschema: "@" anywhere is an email
        ("email", "a b@example.com", False),
        ("date-time", "2016-12-31T23:59:60Z", True),  # RFC 3339 leap second; rfc3339-validator refuses
        ("date-time", "2025-01-31T12:00:00Z\n", False),  # rfc3339-validator's $ takes a final newline
        ("time", "23:59:60Z", True),
        ("date", "0000-01-01", True),
        ("byte", "YWJ", False),  # jsonschema does not know byte
    ],
)
def test_exception_formats_jsonschema_reads_otherwise(fmt: str, value: str, call_says: bool) -> None:
    assert fmt in FORMATS_JUDGED_OTHERWISE
    schema = {"type": "string", "format": fmt}
    assert (check_string_format(fmt, value) is None) is call_says
    assert schema_accepts(schema, value) is not call_says


@pytest.mark.parametrize("fmt", sorted(FORMAT_VALUES))
def test_format_values_are_what_the_call_says(fmt: str) -> None:
    valid, invalid = FORMAT_VALUES[fmt]
    assert [v for v in valid if check_string_format(fmt, v) is not None] == []
    assert [v for v in invalid if check_string_format(fmt, v) is None] == []


@pytest.mark.parametrize(
    ("pattern", "value", "matches"),
    [
        (r"^v?\d+\.\d+\.\d+$", "١.٢.٣", False),  # \d is ASCII in ECMA-262
        (r"^v?\d+\.\d+\.\d+$", "v1.2.3", True),
        (r"^\d{5}$", "12345\n", False),  # $ is the end, not the end or before a final newline
        (r"^\w+$", "é", False),
        (r"^\p{Lu}\p{Ll}*$", "Éa", True),  # the u flag: Unicode property escapes
        (r"^.$", "😀", True),  # the u flag: a code point, not a UTF-16 unit
        (r"\bend", "the end", True),
    ],
)
def test_patterns_are_ecma_262(pattern: str, value: str, matches: bool) -> None:
    assert patterns.search(pattern, value) is matches
    assert schema_accepts({"type": "string", "pattern": pattern}, value) is matches


# ------------------------------------------------------------------------------ real programs


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fidelity-project")
    (root / "tools").mkdir()
    for file_name, text in FIXTURES.values():
        (root / "tools" / file_name).write_text(text, encoding="utf-8")
    return root


@pytest.mark.slow
def test_the_real_cogtools_call_judges_as_prepare_does(project: Path, catalog: dict[str, Tool]) -> None:
    env = {**os.environ, "PATH": os.pathsep.join([str(BIN), os.environ.get("PATH", "")])}
    checked = 0
    for name in ("pattern_version", "nullable_anyof", "format_date_time", "enum_strings", "program_echo", "defaults"):
        for args in arguments(catalog[name].input_schema(), seed=SEED, count=6):
            proc = subprocess.run(
                [str(BIN / "cogtools-call"), name],
                input=json.dumps(args).encode(),
                capture_output=True,
                cwd=project,
                env=env,
                timeout=60,
            )
            assert proc.returncode in (0, 5), proc.stdout
            assert (proc.returncode == 0) is call_accepts(catalog[name], args), (name, args, proc.stdout)
            checked += 1
    assert checked == 36


#: The fixtures of patterns and nulls, judged whole by the real Gemini CLI core.
GEMINI_JUDGED = sorted(
    name
    for name in FIXTURES
    if name.startswith(("pattern_", "nullable_")) or name in ("unicode", "booleans", "array_of_objects")
)


@pytest.mark.e2e
def test_gemini_cli_core_agrees_on_patterns_and_nulls(project: Path, catalog: dict[str, Tool], tmp_path: Path) -> None:
    from .npm_packages import npm_package, package_dir
    from .test_gemini_cli import GEMINI_CORE_VERSION, drive, gemini_env

    core = npm_package(
        "@google/gemini-cli-core",
        GEMINI_CORE_VERSION,
        package_dir("gemini-cli-core", GEMINI_CORE_VERSION, "COGTOOLS_GEMINI_CORE_DIR"),
    )
    calls: list[dict[str, t.Any]] = [
        {"name": f"discovered_tool_{name}", "args": args, "tool": name}
        for name in GEMINI_JUDGED
        for args in arguments(catalog[name].input_schema(), seed=SEED + sum(map(ord, name)), count=PER_TOOL)
    ]
    report = drive(
        core,
        project,
        gemini_env(tmp_path),
        "cogtools-discover",
        "cogtools-call",
        [{"name": c["name"], "args": c["args"]} for c in calls],
        validateOnly=True,
    )
    counts: collections.Counter[str] = collections.Counter()
    wrong = []
    for request, result in zip(calls, report["calls"], strict=True):
        assert result["found"], request["name"]
        tool = catalog[request["tool"]]
        ours = call_accepts(tool, request["args"])
        if result["valid"] == ours:
            counts["agree"] += 1
        elif (
            ours
            and not result["valid"]
            and without_absent_nulls(tool.input_schema(), request["args"]) != request["args"]
        ):
            counts["null for an optional parameter"] += 1
        else:
            wrong.append((request["tool"], request["args"], result.get("buildError"), ours))
    print(f"\nGemini CLI core agreement over {len(calls)} calls: {dict(counts)}")
    assert not wrong, wrong[:5]
    assert counts["agree"] >= len(calls) * 0.9
