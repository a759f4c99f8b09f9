"""The shortcuts that keep a call and a warm discovery cheap in a large catalog (issue 16) never
serve a stale tool: each change below is seen by the very next call and discovery.

A call reads the cache's fast index and its one tool when every file that could define or
shadow it, and every directory read to find them, stats as it did; discovery prints its stored
output when every file and directory of the catalog does."""

from __future__ import annotations

import json
import os
import time
import typing as t
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cogtools.cli import call, discover
from cogtools.core.errors import ERROR_TABLE
from cogtools.load import cache as cache_module
from cogtools.services import discovery

from .conftest import Cli, examples, write
from .test_catalog import count_parses

STATUS = {code: status for code, status, _ in ERROR_TABLE}
TOOL = "name: {name}\ndescription: The {text} tool.\nimplementation: '{text}'\n"


def age(*paths: Path, seconds: float = 60) -> None:
    """Set back the times of ``paths``: a change within the cache's racy window is not trusted."""
    old = time.time() - seconds
    for path in paths:
        os.utime(path, (old, old))


def names(cli: Cli) -> dict[str, str]:
    result = cli(discover.main)
    assert result.status == 0, result.stderr
    return {tool["name"]: tool["description"] for tool in json.loads(result.stdout)}


@pytest.fixture
def warm(project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Three tools, their caches filled: the index, the fast index and the stored discovery.

    A file or directory is trusted by its stat once its modification and change times are
    older than the racy window; a change time cannot be set back, so the window is shortened
    here, and waited out."""
    monkeypatch.setattr(cache_module, "RACY_SECONDS", 0.2)
    for name in ("alpha", "beta", "gamma"):
        write(project / "tools" / f"{name}.yaml", TOOL.format(name=name, text=name))
    age(*(project / "tools").iterdir(), project / "tools", project / ".cogtoolrc.yaml", project)
    time.sleep(0.3)
    assert names(cli) == {name: f"The {name} tool." for name in ("alpha", "beta", "gamma")}
    return project


def test_warm_runs_take_the_shortcuts(warm: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    parsed = count_parses(monkeypatch)
    monkeypatch.setattr(discovery, "declare", lambda *a: pytest.fail("the stored output was not used"))
    assert names(cli)["beta"] == "The beta tool."
    loads: list[str] = []
    real = cache_module.CatalogCache._index

    def counted(self: t.Any) -> t.Any:
        loads.append("index")
        return real(self)

    monkeypatch.setattr(cache_module.CatalogCache, "_index", counted)
    assert cli(call.main, "beta") == (0, "beta", "")
    assert parsed == [] and loads == []  # the call read the fast index and one tool, nothing else


def same_size_same_mtime(path: Path, text: str) -> None:
    """Rewrite ``path`` within "the same second": same size, its modification time put back (only
    its change time tells)."""
    before = path.stat()
    assert len(text.encode()) == before.st_size
    path.write_text(text)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def add_quietly(path: Path, text: str) -> None:
    """Add a file and put its directory's modification time back."""
    before = path.parent.stat()
    write(path, text)
    os.utime(path.parent, ns=(before.st_atime_ns, before.st_mtime_ns))


#: change -> (what the next call of beta gives, what discovery then says of beta)
CHANGES: dict[str, tuple[t.Callable[[Path], object], tuple[int, str], str | None]] = {
    "edited": (
        lambda p: write(p / "tools" / "beta.yaml", TOOL.format(name="beta", text="new beta")),
        (0, "new beta"),
        "The new beta tool.",
    ),
    "edited, same size and time": (
        lambda p: same_size_same_mtime(p / "tools" / "beta.yaml", TOOL.format(name="beta", text="BETA")),
        (0, "BETA"),
        "The BETA tool.",
    ),
    "removed": (lambda p: (p / "tools" / "beta.yaml").unlink(), (STATUS["TOOL_NOT_FOUND"], ""), None),
    "renamed": (lambda p: (p / "tools" / "beta.yaml").rename(p / "tools" / "zeta.yaml"), (0, "beta"), "The beta tool."),
    "added, shadowing": (
        lambda p: write(p / "tools" / "aaa.yaml", TOOL.format(name="beta", text="shadow")),
        (0, "shadow"),
        "The shadow tool.",
    ),
    "added, directory time put back": (
        lambda p: add_quietly(p / "tools" / "aaa.yaml", TOOL.format(name="beta", text="quiet")),
        (0, "quiet"),
        "The quiet tool.",
    ),
    "added in a new directory": (
        lambda p: write(p / "tools" / "a" / "first.yaml", TOOL.format(name="beta", text="nested")),
        (0, "nested"),
        "The nested tool.",
    ),
    "an earlier file starts shadowing": (
        lambda p: write(p / "tools" / "alpha.yaml", TOOL.format(name="beta", text="alpha as beta")),
        (0, "alpha as beta"),
        "The alpha as beta tool.",
    ),
    "a source added before": (
        lambda p: (
            write(p / "early" / "beta.yaml", TOOL.format(name="beta", text="early")),
            write(p / ".cogtoolrc.yaml", "tool_sources:\n  - local: ./early\n  - local: ./tools\n"),
        ),
        (0, "early"),
        "The early tool.",
    ),
    "denied by the project's policy": (
        lambda p: (
            write(
                p / "tools" / "beta.yaml",
                "name: beta\ndescription: The beta tool.\ncategory: Billing\nimplementation: beta\n",
            ),
            age(p / "tools" / "beta.yaml"),  # type: ignore[func-returns-value]
            write(p / ".cogtoolrc.yaml", "policy:\n  denied_categories: [billing]\n"),
        ),
        (STATUS["TOOL_NOT_FOUND"], ""),  # hidden from the caller: not there for it
        None,
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("change", sorted(CHANGES))
def test_the_next_call_and_discovery_see_the_change(warm: Path, cli: Cli, change: str) -> None:
    assert cli(call.main, "beta") == (0, "beta", "")  # the fast path, before the change
    make, (status, output), described = CHANGES[change]
    make(warm)
    result = cli(call.main, "beta")
    assert (result.status, result.stdout if status == 0 else "") == (status, output), result
    assert names(cli).get("beta") == described
    # and again, once the change has aged and the caches were written anew, then used
    time.sleep(0.3)
    for _ in range(2):
        assert cli(call.main, "beta").status == status
        assert names(cli).get("beta") == described


def test_a_role_from_the_environment_changes_what_discovery_prints(
    warm: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(warm / "tools" / "admin_only.yaml", "description: For admins.\nmin_role: admin\nimplementation: x\n")
    age(warm / "tools" / "admin_only.yaml", warm / "tools")
    assert "admin_only" not in names(cli) and "admin_only" not in names(cli)
    monkeypatch.setenv("COGTOOLS_ROLE", "admin")
    assert "admin_only" in names(cli)
    monkeypatch.delenv("COGTOOLS_ROLE")
    assert "admin_only" not in names(cli)


@pytest.mark.slow
@pytest.mark.parametrize("option", [["--format", "mcp"], ["--toolset", "diagnostic"], ["--yaml"]])
def test_each_option_has_its_own_output(warm: Path, cli: Cli, option: list[str]) -> None:
    plain = cli(discover.main).stdout
    other = cli(discover.main, *option).stdout
    assert other != plain and cli(discover.main).stdout == plain and cli(discover.main, *option).stdout == other


def test_a_changed_dependency_reads_everything_again(warm: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    parsed = count_parses(monkeypatch)
    monkeypatch.setattr(cache_module, "library_stamp", lambda: "Jinja2 upgraded")
    assert cli(call.main, "beta") == (0, "beta", "")
    assert sorted(parsed) == ["alpha.yaml", "beta.yaml", "gamma.yaml"]


def test_a_file_changed_just_now_is_not_trusted_by_its_stat(
    warm: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file written within the racy window could change again within its timestamp's tick: no
    fast index vouches for it, so it is read again until it has aged."""
    write(warm / "tools" / "beta.yaml", TOOL.format(name="beta", text="fresh"))
    assert names(cli)["beta"] == "The fresh tool."
    parsed = count_parses(monkeypatch)
    assert cli(call.main, "beta") == (0, "fresh", "")
    assert parsed == ["beta.yaml"]


@pytest.mark.slow
def test_the_benchmark_runs(tmp_path: Path) -> None:
    """benchmarks/bench.py once, small, as CI's smoke test: it builds its catalogs (YAML, of 3
    and 12 tools), measures cogtools and the reference script, and reports every figure (no
    timing is asserted here: the figures are for people, from benchmarks/ at full size, as
    ratios within one run)."""
    import subprocess
    import sys

    from .conftest import BIN, REPO

    report = tmp_path / "bench.json"
    env = {**os.environ, "PATH": os.pathsep.join([str(BIN), os.environ["PATH"]])}
    proc = subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "bench.py"),
            "--runs",
            "1",
            "--sizes",
            "3,12",
            "--formats",
            "yaml",
            "--json",
            str(report),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    figures = json.loads(report.read_text())
    assert [(row["format"], row["size"]) for row in figures["catalogs"]] == [("yaml", 3), ("yaml", 12)]
    for row in figures["catalogs"]:
        for job in ("call", "call_last", "reference_call", "discover_warm", "discover_cold", "reference_discover"):
            assert row[job]["seconds"] > 0 and row[job]["peak_kib"] > 0, (row, job)
        assert row["cache_bytes_per_tool"] > 0
    assert "a warm call in 12 tools / in 3" in proc.stdout


# The definition check says "valid" through jsonschema-rs, compiled once, and asks jsonschema
# otherwise: jsonschema-rs must never accept what jsonschema refuses.
_WORDS = st.sampled_from(
    [
        "",
        "x",
        "name",
        "a b",
        "low",
        "high",
        "string",
        "integer",
        "object",
        "array",
        "template",
        "command",
        "^[a-z]+$",
        "(?P<x>a)",
        "\\d+",
        "a\n",
        "é",
        "Billing",
        "-x",
        "1",
    ]
)
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(-2, 2, allow_nan=False) | _WORDS,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(_WORDS, children, max_size=3),
    max_leaves=12,
)
_PARAMETER_KEYS = [
    "type",
    "description",
    "enum",
    "items",
    "properties",
    "required",
    "optional",
    "nullable",
    "default",
    "minimum",
    "maximum",
    "pattern",
    "format",
    "minLength",
    "additionalProperties",
    "oneOf",
    "name",
]


def _plausible(schema: dict[str, t.Any]) -> st.SearchStrategy[t.Any]:
    """Values that often fit ``schema`` (a property of the tool format), and sometimes not."""
    if "enum" in schema:
        fitting: st.SearchStrategy[t.Any] = st.sampled_from(schema["enum"])
    elif schema.get("type") == "boolean":
        fitting = st.booleans()
    elif schema.get("type") == "string":
        fitting = _WORDS
    elif schema.get("type") == "array":
        fitting = st.lists(_plausible(schema.get("items") or {}), max_size=2)
    else:
        fitting = _VALUES
    return st.one_of(fitting, fitting, fitting, _VALUES)


def _definitions() -> st.SearchStrategy[dict[str, t.Any]]:
    from cogtools.schema.shipped import load_schema

    properties = load_schema("tool")["properties"]
    parameter = st.fixed_dictionaries(
        {"type": st.sampled_from(["string", "integer", "number", "boolean", "array", "object", "strin"])},
        optional={
            key: _VALUES
            if key not in ("description", "optional", "nullable")
            else _plausible({"type": "boolean"} if key != "description" else {"type": "string"})
            for key in _PARAMETER_KEYS
            if key != "type"
        },
    )
    parameters = st.dictionaries(_WORDS, parameter, max_size=3) | st.lists(parameter, max_size=3)
    optional = {
        key: _plausible(schema)
        for key, schema in properties.items()
        if key not in ("description", "implementation", "parameters")
    }
    return st.fixed_dictionaries(
        {
            "description": _WORDS,
            "implementation": _WORDS | st.dictionaries(st.sampled_from(["kind", "argv", "template"]), _VALUES),
        },
        optional={**optional, "parameters": parameters},
    )


@pytest.mark.slow
@settings(max_examples=examples(1000), deadline=None, suppress_health_check=list(HealthCheck))
@given(_definitions())
def test_the_fast_definition_check_never_accepts_what_jsonschema_refuses(data: dict[str, t.Any]) -> None:
    from cogtools.schema.shipped import _fast_validator, _validator

    if _fast_validator("tool").is_valid(data):
        assert list(_validator("tool").iter_errors(data)) == [], data


def test_the_fast_definition_check_agrees_on_the_shipped_tools() -> None:
    import yaml

    from cogtools.load.catalog import load_catalog
    from cogtools.schema.shipped import _fast_validator

    from .conftest import EXAMPLES

    for path in sorted(EXAMPLES.rglob("*.yaml")):
        data = yaml.safe_load(path.read_text())
        if isinstance(data, dict) and "implementation" in data:
            assert _fast_validator("tool").is_valid(data), path
    assert load_catalog(EXAMPLES).problems == []


# A YAML text that cannot pass a limit (no alias, shallow, few values) is composed by libyaml in
# C; any other by cogtools' limited composer. Both must read every text alike.
def _both_ways(text: str) -> tuple[t.Any, t.Any]:
    import yaml

    from cogtools.core import yamlio

    outcomes = []
    for loader in (yamlio._CLoader, yamlio.SafeLoader):
        try:
            instance = loader(text)
            try:
                node = instance.get_single_node()
                yamlio._check_keys(node)
                outcomes.append(("ok", instance.construct_document(node) if node is not None else None))
            finally:
                instance.dispose()
        except yaml.YAMLError as e:
            outcomes.append(("error", yamlio.describe_error(e, text)))
    return outcomes[0], outcomes[1]


def test_plain_yaml_is_composed_in_c_and_read_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    from cogtools.core import yamlio

    from .conftest import EXAMPLES, REPO

    texts = [path.read_text() for path in sorted([*EXAMPLES.rglob("*.yaml"), *(REPO / "docs").rglob("*.md")])]
    texts += ["a: 1\na: 2\n", "x: [1, {y: 2}]\n", "- - - deep\n", "k: 'quoted: &notananchor'\n", "{", "a:\n\tb: 1\n"]
    for text in texts:
        c, limited = _both_ways(text)
        assert c == limited, text[:200]
    # The C path is the one taken for a plain definition.
    monkeypatch.setattr(yamlio, "SafeLoader", None)
    assert yamlio.load("description: d\nimplementation: x\n") == {"description": "d", "implementation": "x"}


@pytest.mark.parametrize(
    "text",
    [
        "a: &x [1, 2]\nb: *x\n",
        "a: " + "[" * 120 + "]" * 120 + "\n",
        "a:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 60)),
        "- 1\n" * 60_000,
    ],
)
def test_what_could_pass_a_limit_goes_the_limited_way(text: str) -> None:
    from cogtools.core import yamlio

    assert not yamlio._within_limits(text)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=list(HealthCheck))
@given(_VALUES)
def test_any_document_reads_alike_both_ways(value: t.Any) -> None:
    import yaml

    for style in (False, True, None):
        text = yaml.safe_dump({"v": value}, default_flow_style=style)
        c, limited = _both_ways(text)
        assert c == limited, text


@pytest.mark.parametrize("suffix", [".fast", ".out"])
def test_a_forged_fast_index_or_stored_output_is_ignored(warm: Path, cli: Cli, suffix: str) -> None:
    """The fast index and the stored discovery are read as untrusted too: edited under their old
    MAC, they are misses, and the catalog is read from its files."""
    (index,) = Path(os.environ["HOME"]).glob(".cache/cogtools/catalog-*.json")
    target = index.with_suffix(suffix)
    mac, _, payload = target.read_bytes().partition(b"\n")
    forged = payload.replace(b"beta", b"bxta") if suffix == ".fast" else payload[:-8] + b"\x00" * 8
    assert forged != payload
    target.write_bytes(mac + b"\n" + forged)
    assert cli(call.main, "beta") == (0, "beta", "")
    assert names(cli)["beta"] == "The beta tool."
