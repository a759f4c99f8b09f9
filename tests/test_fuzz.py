"""Property-based tests (issue 11): random bytes, random JSON and random YAML, fed to the definition
loaders and to the real commands, end in success or in an error code of DESIGN's table; never a
traceback, a death by signal or a hang, and stdout of the call commands is always JSON (or the
result)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cogtools.core.errors import ERROR_TABLE, CogtoolsError
from cogtools.load.catalog import parse_definition
from cogtools.load.formats import FORMATS
from cogtools.services.invoke import parse_arguments

from .conftest import BIN, ECHO_TOOL, examples, write

STATUSES = {status for _, status, _ in ERROR_TABLE} | {0}
CODES = {code for code, _, _ in ERROR_TABLE} - {"INTERNAL"}
#: Each process ends well within this, whatever it is fed.
PROCESS_TIMEOUT = 30

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)

#: Pieces of YAML syntax, so that random documents reach the parser's corners (anchors, aliases,
#: tags, flow and block collections, merge keys, scalars of every style).
YAML_TOKENS = [
    "name: t",
    "description: d",
    "implementation: x",
    "parameters:",
    "  a:",
    "    type: string",
    "&a",
    "*a",
    "&b [",
    "]",
    "{",
    "}",
    ",",
    "- ",
    "? ",
    ": ",
    "<<: *a",
    "!!binary",
    "!!python/object:os.system",
    "!!set",
    "!!omap",
    "|",
    ">-",
    '"\\udc80"',
    "'q'",
    "~",
    "null",
    ".nan",
    ".inf",
    "2025-01-31",
    "0x1F",
    "9" * 50,
    "#c",
    "\t",
    "\n",
    "  ",
    "---",
    "...",
    "%YAML 1.1",
    "\ufeff",
    "\x00",
]
yaml_texts = st.lists(st.sampled_from(YAML_TOKENS), max_size=40).map(" ".join) | st.lists(
    st.sampled_from(YAML_TOKENS), max_size=40
).map("\n".join)

inputs = (
    st.binary(max_size=300)
    | json_values.map(lambda v: json.dumps(v).encode())
    | yaml_texts.map(lambda s: s.encode("utf-8", "surrogatepass"))
    | st.text(max_size=200).map(lambda s: s.encode("utf-8", "surrogatepass"))
)

FUZZ = settings(
    max_examples=examples(300),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
FEW = settings(
    max_examples=examples(25),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", sorted(FORMATS))
@FUZZ
@given(data=inputs)
def test_a_loader_gives_tools_or_a_domain_error(tmp_path: Path, fmt: str, data: bytes) -> None:
    suffix = FORMATS[fmt].suffixes[0]
    path = tmp_path / f"fuzz{suffix}"
    try:
        result = parse_definition(path, data, display_path=path.name, source="fuzz", fmt=fmt)
    except CogtoolsError as e:
        assert e.code in CODES, e
        json.dumps(e.to_json())  # the error itself is printable
    else:
        for tool in result.tools:
            json.dumps(tool.to_dict(), allow_nan=False)


@FUZZ
@given(data=inputs, as_yaml=st.booleans())
def test_arguments_parse_to_an_object_or_invalid_input(data: bytes, as_yaml: bool) -> None:
    try:
        value = parse_arguments(data, as_yaml=as_yaml, tool="t")
    except CogtoolsError as e:
        assert e.code == "INVALID_INPUT"
        json.dumps(e.to_json(), ensure_ascii=False).encode("utf-8", "backslashreplace")
    else:
        assert isinstance(value, dict)
        json.dumps(value, allow_nan=False, ensure_ascii=False).encode("utf-8")


def run(argv: list[str], cwd: Path, stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    proc = subprocess.run(argv, input=stdin, capture_output=True, cwd=cwd, timeout=PROCESS_TIMEOUT)
    assert proc.returncode in STATUSES, proc  # a negative status is a death by signal
    assert b"Traceback" not in proc.stderr, proc.stderr
    assert b"INTERNAL" not in proc.stderr, proc.stderr
    return proc


@pytest.fixture(scope="module")
def fuzz_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fuzz")
    (root / ".cogtoolrc.yaml").write_text("")
    write(root / "tools" / "echo.yaml", ECHO_TOOL)
    return root


@pytest.mark.slow
@FEW
@given(data=inputs, as_yaml=st.booleans())
def test_cogtools_call_answers_any_stdin_with_json(fuzz_project: Path, data: bytes, as_yaml: bool) -> None:
    proc = run([str(BIN / "cogtools-call"), *(["--yaml"] if as_yaml else []), "echo"], fuzz_project, data)
    if proc.returncode:
        error = json.loads(proc.stdout)["error"]
        assert error["code"] in CODES and error["tool"] == "echo"


@pytest.mark.slow
@FEW
@given(definition=inputs, data=inputs)
def test_cogtools_yaml_answers_any_file_and_stdin(
    tmp_path_factory: pytest.TempPathFactory, definition: bytes, data: bytes
) -> None:
    root = tmp_path_factory.mktemp("fuzz-yaml")
    (root / "tool.yaml").write_bytes(definition)
    proc = run([str(BIN / "cogtools-yaml"), "tool.yaml"], root, data)
    if proc.returncode:
        assert json.loads(proc.stdout)["error"]["code"] in CODES


@pytest.mark.slow
@FEW
@given(files=st.lists(inputs, min_size=1, max_size=4), config=st.one_of(st.none(), inputs))
def test_cogtools_discover_always_prints_a_json_array(
    tmp_path_factory: pytest.TempPathFactory, files: list[bytes], config: bytes | None
) -> None:
    root = tmp_path_factory.mktemp("fuzz-discover")
    (root / ".cogtoolrc.yaml").write_bytes(config or b"")
    for index, data in enumerate(files):
        suffix = (".yaml", ".json", ".toml", ".sh")[index % 4]
        write(root / "tools" / f"f{index}{suffix}", "").write_bytes(data)
    write(root / "tools" / "echo.yaml", ECHO_TOOL)
    proc = run([str(BIN / "cogtools-discover")], root, b"")
    assert proc.returncode == 0, proc.stderr  # nothing stops discovery, a broken configuration included
    names = [d["name"] for d in json.loads(proc.stdout)]
    if "error: CONFIG_INVALID" in proc.stderr.decode():
        assert names == ["cogtools_problems"] and config
    else:
        assert "echo" in names
