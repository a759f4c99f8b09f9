"""A warm call answered from its record (issue 42, :mod:`cogtools.cli.warm`) answers what the whole
way answers, and only while everything its record was made of is as it was: through the real
command, against the whole way (``COGTOOLS_NO_CACHE``, which keeps no record), after each kind of
change; and its own checks of the arguments against the validator's, over generated schemas and
values."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import time
import typing as t
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cogtools.cli import recording, warm
from cogtools.core.jsondata import JsonProblem, parse_json
from cogtools.load.cache import RACY_SECONDS
from cogtools.schema.validate import validate
from cogtools.services.invoke import as_integers, without_absent_nulls

from .conftest import BIN, examples, write
from .package_source import package_trees, statements

#: ``cogtools-call ARGS`` in a fresh process, which says last on stderr whether it was answered
#: from its record (then it imported nothing of the catalog).
PROBE = (
    "import sys; from cogtools.cli.call import main; status = main(sys.argv[1:]);"
    "print('answered' if 'cogtools.load' not in sys.modules else 'whole way', file=sys.stderr); sys.exit(status)"
)

TOOL = """\
description: Hi.
category: Ops
parameters:
  who: {type: string, minLength: 1, description: Who.}
  times: {type: integer, minimum: 1, default: 2, optional: true, description: How many times.}
  loud: {type: boolean, optional: true, description: Loudly.}
  when: {type: string, format: date, optional: true, description: When.}
implementation: "Hi, {{ who }} x{{ times }}{% if loud %}!{% endif %}{% if when %} on {{ when }}{% endif %}"
"""


class Called(t.NamedTuple):
    status: int
    stdout: str
    answered: bool


def call(cwd: Path, stdin: str, *args: str, **env: str) -> Called:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        input=stdin,
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **env},
    )
    return Called(done.returncode, done.stdout, done.stderr.splitlines()[-1] == "answered")


def whole_way(cwd: Path, stdin: str, *args: str, **env: str) -> Called:
    """The same call, without a cache (so without a record)."""
    called = call(cwd, stdin, *args, COGTOOLS_NO_CACHE="1", **env)
    assert not called.answered
    return called


def warmed(cwd: Path, stdin: str = '{"who": "a"}', **env: str) -> None:
    """Call until a call is answered from its record: the first fills the cache, the second
    leaves the record, the third is answered."""
    runs = [call(cwd, stdin, "hi", **env) for _ in range(3)]
    assert [run.answered for run in runs] == [False, False, True], runs
    assert len({(run.status, run.stdout) for run in runs}) == 1


@pytest.fixture
def hi(project: Path) -> Path:
    write(project / "tools" / "hi.yaml", TOOL)
    (project.parent / "home" / ".cache").mkdir()
    time.sleep(RACY_SECONDS + 0.5)  # what changed just now is not vouched for by its stat
    return project


ARGUMENTS = [
    '{"who": "a"}',
    '{"who": "b", "times": 3, "loud": true}',
    '{"who": "b", "when": "2025-01-31"}',
    '{"who": "b", "wait_for_previous": true}',
    '\ufeff{"who": "bom"}',
    '{"who": "\\u00e9t\\u00e9"}',
    '{"who": "c", "times": 3.0}',
    '{"who": "d", "times": null}',
    '{"who": "e", "when": "2025-02-30"}',
    '{"who": "", "times": 1}',
    '{"who": 5}',
    '{"times": 1}',
    '{"who": "f", "extra": 1}',
    '{"who": "g", "who": "h"}',
    '{"who": "\\ud800"}',
    '{"who": "i", "times": 1e400}',
    '{"who": "j", "times": NaN}',
    "[1]",
    "{",
    "",
    '{"who": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["deep"]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}',
]
#: The arguments the record itself answers (the rest it leaves to the whole way).
ANSWERED = ARGUMENTS[:6]


@pytest.mark.slow
def test_a_warm_call_answers_as_the_whole_way_does(hi: Path) -> None:
    warmed(hi)
    for arguments in ARGUMENTS:
        got, expected = call(hi, arguments, "hi"), whole_way(hi, arguments, "hi")
        assert (got.status, got.stdout) == (expected.status, expected.stdout), arguments
        assert got.answered == (arguments in ANSWERED), arguments


def change_definition(project: Path) -> None:
    path = project / "tools" / "hi.yaml"
    write(path, path.read_text().replace("Hi, ", "Hello, "))


def deny_in_project(project: Path) -> None:
    write(project / ".cogtoolrc.yaml", "policy: {denied_categories: [ops]}\n")


def deny_for_user(project: Path) -> None:
    write(project.parent / "home" / ".config" / "cogtools" / "config.yaml", "policy: {denied_categories: [ops]}\n")


def lower_the_output_limit(project: Path) -> None:
    write(project / ".cogtoolrc.yaml", "limits: {max_output_bytes: 3}\n")


def add_a_workspace_env(project: Path) -> None:
    write(project / ".env", "COGTOOLS_ROLE=admin\n")


def shadow_it(project: Path) -> None:
    write(project / "hi.yaml", "#!/usr/bin/env cogtools-yaml\n" + TOOL.replace("Hi, ", "Shadow: "))


CHANGES = {
    "definition": change_definition,
    "project configuration": deny_in_project,
    "user configuration": deny_for_user,
    "limits": lower_the_output_limit,
    "workspace .env": add_a_workspace_env,
    "a definition that shadows it": shadow_it,
}


@pytest.mark.slow
@pytest.mark.parametrize("change", list(CHANGES))
def test_what_a_record_was_made_of_changed_the_whole_way_answers(hi: Path, change: str) -> None:
    warmed(hi)
    before = call(hi, '{"who": "a"}', "hi")
    CHANGES[change](hi)
    got, expected = call(hi, '{"who": "a"}', "hi"), whole_way(hi, '{"who": "a"}', "hi")
    assert not got.answered
    assert (got.status, got.stdout) == (expected.status, expected.stdout)
    assert (got.status, got.stdout) != (before.status, before.stdout) or change == "workspace .env"


@pytest.mark.slow
def test_a_pinned_tool_whose_definition_changed_is_refused_not_answered(hi: Path) -> None:
    """Set up for Gemini CLI, the tool runs without confirmation once pinned (``cogtools sync``);
    changed, it is refused until a person looks again, record or not."""
    write(hi / "tools" / "hi.yaml", TOOL + "risk_level: low\nside_effects: []\n")
    write(hi / ".gemini" / "settings.json", "{}\n")
    done = subprocess.run([str(BIN / "cogtools"), "sync", "--yes"], cwd=hi, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    time.sleep(RACY_SECONDS + 0.5)
    warmed(hi)
    change_definition(hi)
    got, expected = call(hi, '{"who": "a"}', "hi"), whole_way(hi, '{"who": "a"}', "hi")
    assert not got.answered and got.status != 0
    assert (got.status, got.stdout) == (expected.status, expected.stdout)


@pytest.mark.slow
def test_a_record_is_for_its_situation_alone(hi: Path) -> None:
    warmed(hi)
    records = list((hi.parent / "home" / ".cache" / "cogtools").glob("call-*"))
    assert len(records) == 1
    kept = records[0].read_bytes()
    records[0].write_bytes(kept.replace(b"Hi, ", b"Yo, "))  # not cogtools' own
    got = call(hi, '{"who": "a"}', "hi")
    assert (got.status, got.stdout, got.answered) == (0, "Hi, a x2", False)
    assert call(hi, '{"who": "a"}', "hi").answered  # (the record left again)
    assert not call(hi, '{"who": "a"}', "hi", COGTOOLS_ROLE="admin").answered  # another environment
    (hi / "tools" / "sub").mkdir()
    assert not call(hi / "tools" / "sub", '{"who": "a"}', "hi").answered  # another working directory


@pytest.mark.slow
def test_no_record_without_the_cache(hi: Path) -> None:
    for _ in range(3):
        assert whole_way(hi, '{"who": "a"}', "hi").stdout == "Hi, a x2"
    assert not list((hi.parent / "home" / ".cache").glob("**/call-*"))


# The recorder, in this process.


def recorded(action: t.Callable[[], object]) -> recording.Recorder:
    recorder = recording.Recorder("probe")
    recorder.start()
    try:
        action()
    finally:
        recorder.stop()
    return recorder


def test_the_recorder_keeps_what_was_read_and_a_change_breaks_it(tmp_path: Path) -> None:
    seen, absent, listed = tmp_path / "seen.txt", tmp_path / "absent", tmp_path / "dir"
    seen.write_text("x")
    listed.mkdir()

    def reads() -> None:
        seen.read_text()
        assert not absent.exists()
        os.listdir(listed)
        os.path.realpath(tmp_path / "link")

    recorder = recorded(reads)
    assert not recorder.spoilt, recorder.spoilt
    read = recorder.read
    assert {path for _, path in read} >= {str(seen), str(absent), str(listed)}
    assert warm.holds(recording.compact(read))
    for change in (
        lambda: seen.write_text("yy"),
        lambda: absent.write_text(""),
        lambda: (listed / "new").write_text(""),
        lambda: (tmp_path / "link").symlink_to(seen),
    ):
        change()
        assert not warm.holds(recording.compact(read))
        read = {(kind, path): warm.identity(kind, path) for kind, path in read}
        assert warm.holds(recording.compact(read))
    assert os.stat is not recorder._stat  # put back


def test_a_directory_of_many_names_is_checked_through_its_descriptor(tmp_path: Path) -> None:
    files = [tmp_path / f"f{i:02d}" for i in range(warm.THROUGH_DIRECTORY + 4)]
    for file in files:
        file.write_text("x")
    recorder = recorded(lambda: [file.stat() for file in files] + [(tmp_path / "absent").exists()])
    read = recording.compact(recorder.read)
    assert [directory for directory, _ in read["dirs"]] == [str(tmp_path)]
    assert warm.holds(read)
    files[-1].write_text("changed")
    assert not warm.holds(read)
    (tmp_path / "absent").write_text("")
    assert not warm.holds(
        recording.compact({**recorder.read, ("s", str(files[-1])): warm.identity("s", str(files[-1]))})
    )


@pytest.mark.parametrize(
    "action",
    [
        lambda d: list(os.scandir(d)),
        lambda d: (d / "out").write_text("x"),
        lambda d: os.mkdir(d / "new"),
        lambda d: subprocess.run(["true"], check=True),
        lambda d: os.getloadavg(),
        lambda d: print("a warning", file=sys.stderr),
    ],
    ids=["scandir", "write", "mkdir", "subprocess", "load", "stderr"],
)
def test_a_call_that_does_more_than_read_leaves_no_record(tmp_path: Path, action: t.Callable[[Path], object]) -> None:
    assert recorded(lambda: action(tmp_path)).spoilt


# The arguments: the record's own checks say "valid" only where the whole way does.

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.floats(-5, 5, allow_nan=False),
    st.sampled_from([1.0, 2.0, -0.0]),
    st.text(max_size=3),
    st.sampled_from(["2025-01-31", "2025-02-30", "12:00:00Z", "x@y.z"]),
)
VALUES = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("abc"), inner, max_size=3)
)


def schemas() -> st.SearchStrategy[dict[str, t.Any]]:
    def keywords(inner: st.SearchStrategy[dict[str, t.Any]]) -> st.SearchStrategy[dict[str, t.Any]]:
        return st.fixed_dictionaries(
            {},
            optional={
                "type": st.sampled_from(["string", "integer", "number", "boolean", "array", "object"]),
                "nullable": st.booleans(),
                "enum": st.lists(SCALARS, min_size=1, max_size=3),
                "format": st.sampled_from(["date", "time", "email", "int32", "unknown"]),
                "minimum": st.integers(-3, 3),
                "maximum": st.integers(-3, 3),
                "exclusiveMinimum": st.booleans(),
                "exclusiveMaximum": st.booleans(),
                "minLength": st.integers(0, 2),
                "maxLength": st.integers(0, 2),
                "minItems": st.integers(0, 2),
                "maxItems": st.integers(0, 2),
                "minProperties": st.integers(0, 2),
                "maxProperties": st.integers(0, 2),
                "items": inner,
                "properties": st.dictionaries(st.sampled_from("abc"), inner, max_size=3),
                "required": st.lists(st.sampled_from("abc"), max_size=2, unique=True),
                "additionalProperties": st.booleans() | inner,
                "description": st.text(max_size=2),
                "default": SCALARS,
                "pattern": st.just("^a"),
                "multipleOf": st.just(2),
            },
        )

    return st.recursive(st.just({}), keywords, max_leaves=6)


@settings(max_examples=examples(3000), deadline=None)
@given(schemas(), VALUES)
def test_the_records_check_of_arguments_says_valid_only_where_the_validator_does(
    schema: dict[str, t.Any], value: t.Any
) -> None:
    if warm.surely_valid(schema, value):
        assert validate(schema, value) == []
        assert json.dumps(as_integers(schema, value)) == json.dumps(value)  # (1.0 stays 1.0)
        assert without_absent_nulls(schema, value) == value


TEXTS = st.one_of(
    VALUES.map(json.dumps),
    VALUES.map(lambda v: json.dumps(v, ensure_ascii=False)),
    st.sampled_from(
        ['{"a": 1, "a": 2}', '{"a": NaN}', "[Infinity]", "1e400", '"\\ud800"', '{"\\udfff": 1}', "9" * 5000, "{"]
    ),
    st.text(max_size=8),
)


@settings(max_examples=examples(2000), deadline=None)
@given(TEXTS)
def test_the_records_reading_of_arguments_is_the_whole_ways(text: str) -> None:
    mine = warm._parse(text)
    if mine is not None:
        assert parse_json(text) == mine
    elif text.strip() and mine is None:
        try:
            theirs = parse_json(text)
        except JsonProblem:
            return
        assert theirs is None  # (null: nothing for the record to answer)


def test_the_package_reads_files_through_the_os_module() -> None:
    """What a record keeps is what the whole way read through :mod:`os` and :func:`open`: a
    function of theirs bound by name elsewhere would read past the recorder."""
    wrapped = {"stat", "lstat", "open", "listdir", "scandir", "access", "readlink", "getloadavg", "walk"}
    bound = []
    for path, tree in package_trees():
        for node in statements(tree):
            if isinstance(node, ast.ImportFrom) and node.module in ("os", "io", "posix", "builtins"):
                bound += [f"{path.name}: {alias.name}" for alias in node.names if alias.name in wrapped]
    assert bound == []


def test_arguments_are_read_without_the_json_module_as_with_it() -> None:
    """The record reads arguments with json's C scanner, without importing :mod:`json` (whose
    scanner then reports a syntax error otherwise): every text reads as it does with it."""
    texts = ['{"a": [1, 2.5, "x", true, null]}', '{"a"', "[1,]", '"\t"', " {} ", "[", "01", "1.", '{"a":1,}', "{} x"]
    probe = (
        "import sys; from cogtools.cli import warm;"
        "print(repr([warm._parse(text) for text in sys.argv[1:]] + ['json' in sys.modules]))"
    )
    done = subprocess.run([sys.executable, "-c", probe, *texts], capture_output=True, text=True, check=True)
    assert ast.literal_eval(done.stdout) == [warm._parse(text) for text in texts] + [False]
    assert warm._parse(texts[0]) == parse_json(texts[0])
