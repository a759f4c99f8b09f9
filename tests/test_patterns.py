"""Patterns that cannot hang (DESIGN §11): ECMA-262's meaning, searched in linear time on RE2 where
it means the same there, and bounded where it does not."""

from __future__ import annotations

import json
import subprocess
import threading
import time
import typing as t
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cogtools.cli import call, porcelain
from cogtools.schema import patterns

from .conftest import BIN, Cli, Result, write

#: (pattern, text, whether ECMA-262 finds it): where RE2 and Python's re would say otherwise.
SEMANTICS = [
    (r"\d", "\u0663", False),  # an Arabic-Indic digit is no \d
    (r"\w", "é", False),
    (r"\s", "\u3000", True),  # ECMA-262's white space is Unicode's
    (r"\s", "\u000b", True),  # a vertical tab is white space (not to RE2)
    (r"^.$", "\n", False),
    (r"^.$", "\u2028", False),  # a line separator is a line terminator
    (r"^.$", "\U0001f600", True),  # one code point, with u
    (r"a.c", "a\rc", False),
    (r"abc$", "abc\n", False),  # $ is the end of the text, not before a final newline
    (r"[]", "a", False),
    (r"[^]", "\n", True),
    (r"\bfoo\b", "a foo", True),
    (r"\bé", " é", False),  # \b knows ASCII word characters only
    (r"[\s\d]", "\u00a0", True),
    (r"[\b]", "\b", True),  # in a class, \b is a backspace
    (r"\cJ", "\n", True),
    (r"\x41\u0042\u{43}", "ABC", True),
    (r"\uD83D\uDE00", "\U0001f600", True),  # a surrogate pair is one code point
    (r"[a-c-]", "-", True),
    (r"[\-]", "-", True),
    (r"[^\W]", "a", True),
    (r"(?<year>\d{4})", "in 2024", True),
    (r"^$", "", True),
    (r"x{3}", "xx", False),
    # the backtracking engine's
    (r"(\w)\1", "aa", True),
    (r"(?<y>\d)-\k<y>", "1-2", False),
    (r"(?=a)a", "a", True),
    (r"(?<!a)b", "ab", False),
    (r"\p{Lu}", "É", True),
    (r"x{2,1001}", "xx", True),
]


@pytest.mark.parametrize(("pattern", "text", "found"), SEMANTICS)
def test_ecma_262_meaning(pattern: str, text: str, found: bool) -> None:
    assert patterns.search(pattern, text) is found
    assert (patterns.compiled(pattern).find(text) is not None) is found  # the reference engine agrees


#: Pieces of patterns, and of texts, that differ between engines.
ATOMS = ["a", "b", ".", r"\d", r"\w", r"\s", r"\S", r"\D", r"\W", r"\b", "^", "$", "[ab]", r"[^a\s]", r"[\d-]", "-"]
ATOMS += [r"\u2028", r"\n", "é", "(a|b)", "(?:ab)", "(?<n>a)", "[]", "[^]", r"\x0b", r"\.", "[.]", r"[\b]"]
QUANTIFIERS = ["", "*", "+", "?", "{2}", "{1,3}", "*?", "{0,}"]
CHARACTERS = ["a", "b", "1", " ", "\n", "\r", "\u2028", "\u00a0", "\u000b", "é", "\u0663", "_", "-", ".", "\U0001f600"]


@given(
    st.lists(st.tuples(st.sampled_from(ATOMS), st.sampled_from(QUANTIFIERS)), max_size=5),
    st.lists(st.sampled_from(CHARACTERS), max_size=8),
)
def test_the_linear_engine_agrees_with_ecma_262(pieces: list[tuple[str, str]], characters: list[str]) -> None:
    pattern = "".join(atom + quantifier for atom, quantifier in pieces)
    text = "".join(characters)
    if patterns.problem(pattern) is not None:
        return  # not a pattern (a quantified assertion, say)
    assert patterns.search(pattern, text) is (patterns.compiled(pattern).find(text) is not None), pattern


#: Patterns that take a backtracking engine exponential or polynomial time, with what makes
#: them do so: each ends well within a tool's timeout.
REDOS = [
    (r"^(a+)+$", "a" * 40 + "!"),
    (r"^(a|a)*$", "a" * 40 + "!"),
    (r"^(a|aa)+$", "a" * 60 + "!"),
    (r"^(\w+\s?)*$", "a" * 40 + "!"),
    (
        r"^([a-zA-Z0-9])(([\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+[.]{1}(([a-z]{2,3})|([a-z]{2,3}[.]{1}[a-z]{2,3}))$",
        "a" * 40 + "!",
    ),
    (r"a*a*a*a*a*b", "a" * 3000),
    (r"a*b", "a" * 200_000),
]


@pytest.mark.parametrize(("pattern", "text"), REDOS)
def test_a_hostile_pattern_ends_in_time(pattern: str, text: str) -> None:
    """Bounded by work, not by a clock: RE2 searches, in a time linear in the text (its program's
    size per character, within MAX_LINEAR_WORK), and says no."""
    assert patterns.backtracks(pattern) is None
    work = patterns.linear_work(pattern)
    assert work is not None and work * len(text) <= patterns.MAX_LINEAR_WORK
    assert patterns.search(pattern, text) is False


@pytest.mark.slow
def test_a_hostile_pattern_with_a_back_reference_is_cut() -> None:
    """A back-reference: only the backtracking engine holds it, cut after MATCH_SECONDS (the
    bound is loose, for a busy machine; unbounded, the search takes minutes)."""
    pattern = r"^(\w)\1*(a+)+$"
    assert patterns.backtracks(pattern) is not None
    started = time.monotonic()
    try:
        found = patterns.search(pattern, "a" * 40 + "!")
    except patterns.PatternTimeout:
        found = None
    assert time.monotonic() - started < patterns.MATCH_SECONDS + 20
    assert found is not True


@pytest.mark.slow
def test_a_bounded_search_holds_no_other_thread() -> None:
    """The backtracking engine holds the interpreter while it runs; here it runs in a child, and
    the other threads go on."""
    ticks = []
    done = threading.Event()

    def tick() -> None:
        while not done.is_set():
            ticks.append(patterns.search(r"^[a-z]+$", "abc"))
            time.sleep(0.01)

    thread = threading.Thread(target=tick)
    thread.start()
    try:
        with pytest.raises(patterns.PatternTimeout):
            patterns.search(r"^(\w)\1*(a+)+$", "a" * 40 + "!")
    finally:
        done.set()
        thread.join()
    assert len(ticks) > 20 and all(ticks)
    assert patterns.search(r"(\w)\1", "xx")  # the engine is started again


@pytest.mark.slow
def test_a_call_with_a_hostile_argument_is_refused_in_time(project: Path) -> None:
    """Through cogtools-call: a pattern RE2 holds answers at once; one only the backtracking
    engine holds is cut, and the argument refused as one that could not be checked."""
    write(
        project / "tools" / "check.yaml",
        "description: Check.\nparameters:\n"
        "  linear: {type: string, pattern: '^(a+)+$', optional: true}\n"
        "  bounded: {type: string, pattern: '^(\\w)\\1*(a+)+$', optional: true}\n"
        "implementation: ok\n",
    )
    for name in ("linear", "bounded"):
        started = time.monotonic()
        done = subprocess.run(
            [str(BIN / "cogtools-call"), "check"],
            input=f'{{"{name}": "{"a" * 40}!"}}',
            capture_output=True,
            text=True,
            cwd=project,
            timeout=30,
        )
        assert time.monotonic() - started < 10
        assert done.returncode == 5 and "SCHEMA_VIOLATION" in done.stdout, done
        assert ("could not be checked" in done.stdout) is (name == "bounded")


@pytest.mark.slow
def test_a_server_serves_a_second_client_while_a_hostile_argument_is_checked(project: Path) -> None:
    """Over MCP (HTTP): while one client's argument meets a backtracking pattern (cut after a
    second), another client's tools/list is answered at once."""
    pytest.importorskip("mcp")
    import anyio
    from mcp import Client

    from .test_mcp import over_http, start_http

    write(
        project / "tools" / "check.yaml",
        "description: Check.\nparameters:\n  v: {type: string, pattern: '^(\\w)\\1*(a+)+$'}\nimplementation: ok\n",
    )
    server = start_http(project)
    try:
        url = server.url
        timings: dict[str, float] = {}

        async def hostile(client: Client) -> t.Any:
            started = time.monotonic()
            result = await client.call_tool("check", {"v": "a" * 40 + "!"})
            timings["hostile"] = time.monotonic() - started
            return result

        async def listing(client: Client) -> t.Any:
            await anyio.sleep(0.3)  # the hostile call is being checked
            started = time.monotonic()
            names = [tool.name for tool in (await client.list_tools()).tools]
            timings["list"] = time.monotonic() - started
            return names

        results: dict[str, t.Any] = {}

        def run(name: str, body: t.Callable[[Client], t.Awaitable[t.Any]]) -> None:
            results[name] = over_http(url, body)

        threads = [threading.Thread(target=run, args=(n, b)) for n, b in (("hostile", hostile), ("list", listing))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert results["list"] == ["check"] and results["hostile"].is_error
        assert timings["list"] < 0.5 < timings["hostile"] < patterns.MATCH_SECONDS + 5, timings
    finally:
        server.stop()


def test_a_repetition_count_of_thousands_of_digits_is_no_crash() -> None:
    pattern = "^a{" + "0" * 4400 + "1}$"
    assert patterns.search(pattern, "a") and not patterns.search(pattern, "aa")
    assert patterns.backtracks(pattern) is None  # one repetition, written long
    huge = "^a{" + "9" * 4400 + "}$"
    assert patterns.problem(huge) is not None or patterns.backtracks(huge) == "it repeats more than 1000 times"


@pytest.mark.parametrize("text", ["9é9", "_\ufeff_", "b\U0001f600b", "ab"])
def test_a_non_boundary_means_what_ecma_262_says(text: str) -> None:
    """RE2's \\B matches between the bytes of one character; ECMA-262's does not."""
    assert patterns.search(r"\B", text) is (patterns.compiled(r"\B").find(text) is not None)


@pytest.mark.slow
def test_a_large_program_on_a_long_text_is_bounded_too() -> None:
    started = time.monotonic()
    try:
        patterns.search(r"(?:.{1000}|b)*c", "b" * 1_000_000)
    except patterns.PatternTimeout:
        pass
    assert time.monotonic() - started < patterns.MATCH_SECONDS + 2


@pytest.mark.slow
def test_the_bounded_searches_of_one_validation_share_a_budget() -> None:
    """Many values, each meeting a backtracking pattern: the validation ends within its budget,
    each value past it refused as one that could not be checked."""
    from cogtools.schema.validate import validate

    schema = {"type": "array", "items": {"type": "string", "pattern": r"^(?!x)(a+)+$"}}
    started = time.monotonic()
    violations = validate(schema, [f"{'a' * 40}{i}!" for i in range(50)])
    assert time.monotonic() - started < patterns.BUDGET_SECONDS + 2
    assert len(violations) == 50 and all("could not be checked" in v.message for v in violations)


HOSTILE_TOOL = (
    "description: Check.\nparameters:\n"
    "  v: {type: string, pattern: '^(a+)+$', default: '%s!', optional: true, description: A value.}\n"
    "examples:\n  - arguments: {v: '%s!'}\n    expect: {error: SCHEMA_VIOLATION}\n"
    "implementation: '{{ v }}'\n"
) % ("a" * 40, "a" * 40)


@pytest.fixture
def linear_only(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every search checked to run on RE2, linear in its text: the patterns searched, and a
    failure if the backtracking engine (cut by a clock) is ever started."""
    searched: list[str] = []
    search = patterns.search

    def linear(pattern: str, text: str) -> bool:
        searched.append(pattern)
        work = patterns.linear_work(pattern)
        assert work is not None and work * len(text) <= patterns.MAX_LINEAR_WORK, pattern
        return search(pattern, text)

    def refused() -> t.NoReturn:
        raise AssertionError("the backtracking engine was started")

    monkeypatch.setattr(patterns, "search", linear)
    monkeypatch.setattr(patterns, "_bounded", refused)
    return searched


def check_hostile(argv: list[str], done: Result) -> None:
    assert "Traceback" not in done.stdout + done.stderr
    if argv[0] == "lint":
        rules = {f["rule"] for f in json.loads(done.stdout)["findings"]}
        assert "default-invalid" in rules, done.stdout
    else:
        assert done.status == 0 and "PASS check[0]" in done.stdout, done


LINT_AND_TEST = pytest.mark.parametrize("argv", [["lint", "--format", "json"], ["test"]], ids=["lint", "test"])


@LINT_AND_TEST
def test_lint_and_test_meet_a_hostile_default_and_example_in_linear_time(
    project: Path, cli: Cli, linear_only: list[str], argv: list[str]
) -> None:
    """lint checks the default and the example against the pattern, test runs the example:
    with a backtracking engine, 40 a's and a ! took minutes. Bounded by work: every search is
    RE2's."""
    write(project / "tools" / "check.yaml", HOSTILE_TOOL)
    check_hostile(argv, cli(porcelain.main, *argv))
    assert "^(a+)+$" in linear_only


@pytest.mark.slow
@LINT_AND_TEST
def test_lint_and_test_meet_a_hostile_default_and_example_in_time(project: Path, argv: list[str]) -> None:
    """The same through the installed command, by the clock (loose, for a busy machine)."""
    write(project / "tools" / "check.yaml", HOSTILE_TOOL)
    started = time.monotonic()
    done = subprocess.run([str(BIN / "cogtools"), *argv], capture_output=True, text=True, cwd=project, timeout=120)
    assert time.monotonic() - started < 60, done
    check_hostile(argv, Result(done.returncode, done.stdout, done.stderr))


def test_through_the_meta_tool_a_hostile_argument_ends_in_linear_time(
    project: Path, cli: Cli, linear_only: list[str]
) -> None:
    write(project / ".cogtoolrc.yaml", "discovery_mode: true\n")
    write(project / "tools" / "check.yaml", HOSTILE_TOOL)
    done = cli(call.main, "cogtools_call", stdin=json.dumps({"name": "check", "arguments": {"v": "a" * 40 + "!"}}))
    assert "SCHEMA_VIOLATION" in done.stdout, done
    assert "^(a+)+$" in linear_only


@pytest.mark.slow
def test_through_the_meta_tool_a_hostile_argument_ends_in_time(project: Path) -> None:
    write(project / ".cogtoolrc.yaml", "discovery_mode: true\n")
    write(project / "tools" / "check.yaml", HOSTILE_TOOL)
    started = time.monotonic()
    done = subprocess.run(
        [str(BIN / "cogtools-call"), "cogtools_call"],
        input=json.dumps({"name": "check", "arguments": {"v": "a" * 40 + "!"}}),
        capture_output=True,
        text=True,
        cwd=project,
        timeout=120,
    )
    assert time.monotonic() - started < 60
    assert "SCHEMA_VIOLATION" in done.stdout, done
