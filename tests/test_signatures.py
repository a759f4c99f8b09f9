"""Signatures read from source (cogtools/run/signatures.py), against what calling the function
accepts; ``cogtools new --kind python`` writing them; lint checking a tool against them (issue 31)."""

from __future__ import annotations

import importlib.util
import inspect
import json
import sys
import typing as t
from pathlib import Path

import pytest

from cogtools.cli import porcelain
from cogtools.run.signatures import (
    KEYWORD_ONLY,
    POSITIONAL_ONLY,
    POSITIONAL_OR_KEYWORD,
    VAR_KEYWORD,
    VAR_POSITIONAL,
    Unreadable,
    parse_docstring,
    read_signature,
    tool_parameters,
)

from .conftest import Cli, write

#: A module of every shape of function a tool may name.
CORPUS = '''\
from __future__ import annotations

import typing
from typing import Annotated, Any, List, Literal, Mapping, Optional, Sequence, Union


def plain(a, b=2, c="x"):
    return a


def annotated(s: str, i: int, f: float, b: bool, xs: list[str], ys: List[int], zs: Sequence[float],
              d: dict, m: Mapping[str, int], any_: Any) -> None:
    pass


def optional(a: Optional[int], b: int | None = None, c: Union[str, None] = "x", d: str = None) -> None:
    pass


def literal(mode: Literal["fast", "slow"] = "fast", n: Literal[1, 2, 3] = 1, m: typing.Literal["a", None] = None):
    pass


def kinds(p, q=1, /, r=2, *args, k, kd=3, **kw):
    pass


def keyword_only(*, a: "int", b: "list[str] | None" = None):
    pass


def annotated_meta(a: Annotated[int, "how many"], t: tuple[str, ...] = ("x", "y")):
    pass


async def coroutine(a: int) -> int:
    return a


class Greeter:
    """Greets people."""

    def __init__(self, name: str, loud: bool = False) -> None:
        pass

    @staticmethod
    def static(a: int) -> int:
        return a

    @classmethod
    def make(cls, name: str) -> "Greeter":
        return cls(name)

    def method(self, a: int) -> int:
        return a


if True:
    def conditional(a: float = 1.5):
        pass
'''

SHAPES = [
    "plain",
    "annotated",
    "optional",
    "literal",
    "kinds",
    "keyword_only",
    "annotated_meta",
    "coroutine",
    "Greeter",
    "Greeter.static",
    "Greeter.make",
    "conditional",
]

KIND_NAMES = {
    inspect.Parameter.POSITIONAL_ONLY: POSITIONAL_ONLY,
    inspect.Parameter.POSITIONAL_OR_KEYWORD: POSITIONAL_OR_KEYWORD,
    inspect.Parameter.VAR_POSITIONAL: VAR_POSITIONAL,
    inspect.Parameter.KEYWORD_ONLY: KEYWORD_ONLY,
    inspect.Parameter.VAR_KEYWORD: VAR_KEYWORD,
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, t.Any]:
    directory = tmp_path_factory.mktemp("corpus")
    write(directory / "shapes.py", CORPUS)
    spec = importlib.util.spec_from_file_location("shapes_for_test", directory / "shapes.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return directory, module


@pytest.mark.parametrize("shape", SHAPES)
def test_the_signature_read_is_the_one_python_calls(corpus: tuple[Path, t.Any], shape: str) -> None:
    """Names, kinds, which have defaults and the literal defaults: as inspect.signature of the
    imported function says (what a call accepts)."""
    directory, module = corpus
    found: t.Any = module
    for part in shape.split("."):
        found = getattr(found, part)
    expected = inspect.signature(found).parameters.values()
    read = read_signature(f"shapes:{shape}", [str(directory)])
    assert [(p.name, p.kind, p.has_default) for p in read.parameters] == [
        (p.name, KIND_NAMES[p.kind], p.default is not inspect.Parameter.empty) for p in expected
    ]
    for param, real in zip(read.parameters, expected, strict=True):
        if param.default_known:
            assert param.default == (list(real.default) if isinstance(real.default, tuple) else real.default)
    keywords = {p.name: 1 for p in read.parameters if p.by_keyword and not p.has_default}
    # a call with exactly the required keywords is accepted by the real function
    inspect.signature(found).bind(
        *(1 for p in expected if p.kind == p.POSITIONAL_ONLY and p.default is p.empty), **keywords
    )


def test_every_supported_annotation(corpus: tuple[Path, t.Any]) -> None:
    directory, _ = corpus

    def schemas(shape: str) -> dict[str, t.Any]:
        return {p.name: p.schema for p in read_signature(f"shapes:{shape}", [str(directory)]).parameters}

    assert schemas("annotated") == {
        "s": {"type": "string"},
        "i": {"type": "integer"},
        "f": {"type": "number"},
        "b": {"type": "boolean"},
        "xs": {"type": "array", "items": {"type": "string"}},
        "ys": {"type": "array", "items": {"type": "integer"}},
        "zs": {"type": "array", "items": {"type": "number"}},
        "d": {"type": "object"},
        "m": {"type": "object", "additionalProperties": {"type": "integer"}},
        "any_": {},
    }
    assert schemas("optional") == {
        "a": {"type": "integer", "nullable": True},
        "b": {"type": "integer", "nullable": True},
        "c": {"type": "string", "nullable": True},
        "d": {"type": "string", "nullable": True},  # the implicit Optional of a None default
    }
    assert schemas("literal") == {
        "mode": {"type": "string", "enum": ["fast", "slow"]},
        "n": {"type": "integer", "enum": [1, 2, 3]},
        "m": {"type": "string", "enum": ["a", None], "nullable": True},
    }
    assert schemas("keyword_only") == {
        "a": {"type": "integer"},
        "b": {"type": "array", "items": {"type": "string"}, "nullable": True},
    }
    assert schemas("annotated_meta") == {"a": {"type": "integer"}, "t": {"type": "array", "items": {"type": "string"}}}


def test_what_a_tool_can_give(corpus: tuple[Path, t.Any]) -> None:
    """*args, **kwargs and positional-only parameters are left out, each with a note; the rest
    keyword parameters, optional with their default."""
    directory, _ = corpus
    parameters, notes = tool_parameters(read_signature("shapes:kinds", [str(directory)]))
    assert list(parameters) == ["r", "k", "kd"]
    assert parameters["r"] == {"type": "integer", "description": "The r to use.", "default": 2, "optional": True}
    assert parameters["k"] == {"type": "string", "description": "The k to use."}
    assert [n.split(" ")[0] for n in notes] == ["p", "q", "*args", "k", "**kw"]
    assert "p is positional-only and required" in notes[0]


def test_the_working_directory_is_not_where_a_call_looks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The function's child runs `python -I`: a module found only in the working directory (or
    through PYTHONPATH) is not one a call imports."""
    write(tmp_path / "here" / "cwdmod.py", "def f(a: int): pass\n")
    write(tmp_path / "env" / "envmod.py", "def f(a: int): pass\n")
    monkeypatch.chdir(tmp_path / "here")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "env"))
    monkeypatch.setattr(sys, "path", [str(tmp_path / "here"), "", str(tmp_path / "env"), *sys.path])
    for target in ("cwdmod:f", "envmod:f"):
        with pytest.raises(Unreadable) as caught:
            read_signature(target)
        assert caught.value.missing
    assert read_signature("cwdmod:f", [str(tmp_path / "here")]).parameters[0].name == "a"


def test_a_fifo_or_a_huge_file_is_not_read(tmp_path: Path) -> None:
    """What the workspace holds may be hostile: a FIFO where a module is looked for is not waited
    on, a file past the limit not read."""
    import os

    os.mkfifo(tmp_path / "fifo.py")
    write(tmp_path / "huge.py", "# " + "x" * (4 * 1024 * 1024) + "\ndef f(): pass\n")
    for target, fragment in (("fifo:f", "is neither on python_path"), ("huge:f", "larger than the limit")):
        with pytest.raises(Unreadable) as caught:
            read_signature(target, [str(tmp_path)])
        assert fragment in caught.value.message


def test_env_is_the_environment(tmp_path: Path) -> None:
    """A function's env is what the python kind passes the declared environment in, not a
    parameter for the model."""
    write(tmp_path / "withenv.py", "def f(a: int, env: dict) -> str:\n    return ''\n")
    parameters, notes = tool_parameters(read_signature("withenv:f", [str(tmp_path)]))
    assert list(parameters) == ["a"] and any(note.startswith("env is left out") for note in notes)


def test_a_module_is_found_without_being_imported(tmp_path: Path) -> None:
    """Neither the module nor its parent package runs: both would raise."""
    write(tmp_path / "pkg" / "__init__.py", "raise SystemExit('imported!')\nfrom .impl import tool as exported\n")
    write(tmp_path / "pkg" / "impl.py", "raise SystemExit('imported!')\ndef tool(n: int = 1):\n    '''Does it.'''\n")
    read = read_signature("pkg.impl:tool", [str(tmp_path)])
    assert read.description == "Does it." and read.parameters[0].default == 1
    assert read_signature("pkg:exported", [str(tmp_path)]).path == str(tmp_path / "pkg" / "impl.py")
    assert "pkg" not in sys.modules and "pkg.impl" not in sys.modules


@pytest.mark.parametrize(
    ("target", "missing", "fragment"),
    [
        ("nosuchmodule_here:f", True, "is neither on python_path"),
        ("shapes:absent", True, "defines no 'absent'"),
        ("shapes:Greeter.method", True, "lacks its instance"),
        ("broken:f", True, "is not Python this interpreter parses"),  # its import fails too
        ("made:f", False, "not defined by a def or class statement"),
        ("sys:exit", False, "built into the interpreter"),
        ("os.path:join", False, "cannot be told without running it"),
    ],
)
def test_what_cannot_be_read_says_why(corpus: tuple[Path, t.Any], target: str, missing: bool, fragment: str) -> None:
    directory, _ = corpus
    write(directory / "broken.py", "def f(:\n")
    write(directory / "made.py", "f = lambda a: a\n")
    with pytest.raises(Unreadable) as caught:
        read_signature(target, [str(directory)])
    assert caught.value.missing is missing and fragment in caught.value.message


GOOGLE = """Show a field.

    More text, not the description.

    Args:
        field (str): Which field,
            continued.
        pretty: Whether to indent.

    Returns:
        The field.
    """
NUMPY = """Show a field.

    Parameters
    ----------
    field : str
        Which field,
        continued.
    pretty : bool, optional
        Whether to indent.

    Returns
    -------
    str
    """
SPHINX = """Show a field.

    :param str field: Which field,
        continued.
    :param pretty: Whether to indent.
    :returns: the field
    """


@pytest.mark.parametrize("style", [GOOGLE, NUMPY, SPHINX], ids=["google", "numpy", "sphinx"])
def test_docstring_styles(style: str) -> None:
    assert parse_docstring(inspect.cleandoc(style)) == (
        "Show a field.",
        {"field": "Which field, continued.", "pretty": "Whether to indent."},
    )


PKGINFO = '''\
def package_info(field: str = "name", pretty: bool = False) -> str:
    """Show a field of this package's metadata.

    Args:
        field: Which field to show.
        pretty: Whether to indent the output.
    """
    return f"{field}:{pretty}"
'''


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["yaml", "toml", "json"])
def test_new_writes_the_functions_parameters(project: Path, cli: Cli, fmt: str) -> None:
    """The issue's case: the tool gets field and pretty, typed, with defaults and descriptions;
    a call with them runs; with a parameter misspelt, lint fails where it passed."""
    write(project / "lib" / "pkginfo.py", PKGINFO)
    write(project / ".cogtoolrc.yaml", "python_path: [lib]\n")
    created = cli(
        porcelain.main,
        "new",
        "package_info",
        "--format",
        fmt,
        "--kind",
        "python",
        "--callable",
        "pkginfo:package_info",
        "--non-interactive",
    )
    assert created.status == 0, created.stderr
    assert "its parameters are pkginfo:package_info's: field, pretty" in created.stdout
    shown = json.loads(cli(porcelain.main, "discover", "--format", "openai").stdout)
    (declaration,) = [d for d in shown if d["function"]["name"] == "package_info"]
    assert declaration["function"]["description"] == "Show a field of this package's metadata."
    properties = declaration["function"]["parameters"]["properties"]
    assert properties["field"]["type"] in ("string", ["string", "null"])  # OpenAI's strict mode: optional is null
    assert properties["field"]["description"].startswith("Which field to show.")
    assert properties["pretty"]["type"] in ("boolean", ["boolean", "null"])
    assert (
        cli(porcelain.main, "call", "package_info", stdin='{"field": "version", "pretty": true}').stdout
        == "version:True"
    )
    assert cli(porcelain.main, "lint", "--strict", "--format", "json").json()["errors"] == 0
    path = next((project / "tools").iterdir())
    path.write_text(path.read_text().replace("field", "feild"))
    report = cli(porcelain.main, "lint", "--strict", "--format", "json").json()
    rules = {f["rule"] for f in report["findings"] if f["severity"] == "error"}
    assert rules == {"callable-parameter"}, report
    assert any("did you mean 'field'" in f["hint"] for f in report["findings"])
    called = cli(porcelain.main, "call", "package_info", stdin='{"feild": "version"}')  # what lint foresaw
    assert called.status != 0 and "unexpected keyword argument 'feild'" in called.stdout + called.stderr


def test_new_without_a_readable_signature_says_so(project: Path, cli: Cli) -> None:
    created = cli(
        porcelain.main,
        "new",
        "month",
        "--kind",
        "python",
        "--callable",
        "calendar:month",
        "--param",
        "theyear:integer",
        "--non-interactive",
    )
    assert created.status == 0
    assert "its parameters could not be read from calendar:month" in created.stdout


LINTED = """\
from typing import Literal, Optional


def strict(a: int, b: Literal["x", "y"] = "x", c: Optional[str] = None, *, d: list[int] = ()) -> str:
    return ""


def loose(a, **kwargs):
    return ""


def positional(a, /, b=1):
    return ""


def with_env(a: str, env: dict) -> str:
    return ""
"""


@pytest.mark.parametrize(
    ("callable_", "parameters", "environment", "expected"),
    [
        ("strict", {"a": "{type: integer}"}, None, set()),
        ("strict", {"a": "{type: integer}", "b": "{type: string, enum: [x], optional: true}"}, None, set()),
        ("strict", {"a": "{type: integer}", "e": "{type: string, optional: true}"}, None, {"callable-parameter"}),
        ("strict", {"b": "{type: string, enum: [x]}"}, None, {"callable-required"}),
        ("strict", {"a": "{type: integer, optional: true}"}, None, {"callable-required"}),
        ("strict", {"a": "{type: integer, optional: true, default: 1}"}, None, set()),
        ("strict", {"a": "{type: string}"}, None, {"callable-type"}),
        ("strict", {"a": "{type: integer}", "b": "{type: string, optional: true}"}, None, {"callable-type"}),
        (
            "strict",
            {"a": "{type: integer}", "b": "{type: string, enum: [x, z], optional: true}"},
            None,
            {"callable-type"},
        ),
        ("strict", {"a": "{type: integer, nullable: true}"}, None, {"callable-type"}),
        ("strict", {"a": "{type: integer}", "c": "{type: string, nullable: true, optional: true}"}, None, set()),
        (
            "strict",
            {"a": "{type: integer}", "d": "{type: array, items: {type: string}, optional: true}"},
            None,
            {"callable-type"},
        ),
        ("strict", {"a": "{type: integer}"}, "[HOME]", {"callable-parameter"}),
        ("with_env", {"a": "{type: string}"}, "[HOME]", set()),
        ("with_env", {"a": "{type: string}"}, None, {"callable-required"}),
        ("loose", {"a": "{type: string}", "anything": "{type: string, optional: true}"}, "[HOME]", set()),
        ("positional", {"b": "{type: integer, optional: true}"}, None, {"callable-required"}),
        ("positional", {"a": "{type: string}"}, None, {"callable-parameter", "callable-required"}),
        ("absent", {}, None, {"callable-missing"}),
    ],
)
def test_lint_checks_a_tool_against_its_function(
    project: Path,
    cli: Cli,
    callable_: str,
    parameters: dict[str, str],
    environment: str | None,
    expected: set[str],
) -> None:
    write(project / "lib" / "linted.py", LINTED)
    write(project / ".cogtoolrc.yaml", "python_path: [lib]\n")
    lines = ["description: Checked.", "side_effects: []", "examples: [{}]", "lint: {ignore: [example-invalid]}"]
    if parameters:
        lines += ["parameters:", *(f"  {name}: {schema}" for name, schema in parameters.items())]
    if environment:
        lines.append(f"environment: {environment}")
    lines.append(f"implementation: {{kind: python, callable: 'linted:{callable_}'}}")
    path = write(project / "tools" / "t.yaml", "\n".join(lines) + "\n")
    report = cli(porcelain.main, "lint", "--format", "json", str(path)).json()
    rules = {f["rule"] for f in report["findings"] if f["rule"].startswith("callable-")}
    assert rules == expected, report


@pytest.mark.parametrize("fmt", ["yaml", "toml", "json"])
def test_new_writes_null_as_each_format_can(project: Path, cli: Cli, fmt: str) -> None:
    """An optional Literal is an enum with null (OpenAPI 3.0.3 lists it); TOML, which has no
    null, leaves it out of the enum and keeps `nullable: true`. The tool loads, and a call gives
    null through."""
    write(
        project / "lib" / "modes.py",
        "from typing import Literal, Optional\n\n\n"
        "def mode(m: Optional[Literal['a', 'b']] = None) -> str:\n    return repr(m)\n",
    )
    write(project / ".cogtoolrc.yaml", "python_path: [lib]\n")
    created = cli(
        porcelain.main,
        "new",
        "mode",
        "--format",
        fmt,
        "--kind",
        "python",
        "--callable",
        "modes:mode",
        "--non-interactive",
    )
    assert created.status == 0, created.stderr
    assert cli(porcelain.main, "call", "mode", stdin='{"m": null}').stdout == "None"
    assert cli(porcelain.main, "call", "mode", stdin='{"m": "b"}').stdout == "'b'"
    assert cli(porcelain.main, "lint", "--format", "json").json()["errors"] == 0


@pytest.mark.parametrize(
    "docstring",
    [
        ":param " + "a " * 200_000,
        "Args:\n    x" + " " * 200_000 + "y\n",
        "Parameters\n----------\n" * 50_000,
        "Args:\n" + "    a: b\n" * 100_000,
    ],
    ids=["sphinx-no-colon", "google-spaces", "numpy-headers", "google-long"],
)
def test_a_hostile_docstring_is_read_in_bounded_time(docstring: str) -> None:
    """The workspace's docstrings may be written to stall lint: no pattern backtracks on them,
    and only their first 64 KiB is read. Bounded by this thread's own work (its CPU time), which
    other processes on the machine do not lengthen."""
    import time

    started = time.thread_time()
    parse_docstring(docstring)
    assert time.thread_time() - started < 0.5


def test_new_asks_for_the_function_and_not_for_what_it_read(project: Path) -> None:
    """On a terminal, `new --kind python` asks for the function, then only whether to add a
    parameter: the description and the parameters come from the function."""
    import os
    import pty
    import subprocess
    import time

    from cogtools.load.catalog import load_catalog

    from .conftest import BIN

    write(project / "lib" / "pkginfo.py", PKGINFO)
    write(project / ".cogtoolrc.yaml", "python_path: [lib]\n")
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [str(BIN / "cogtools"), "new", "asked", "--kind", "python"],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        cwd=project,
    )
    os.close(follower)
    shown = b""
    answers = iter([b"pkginfo:package_info\n", b"n\n"])
    deadline = time.monotonic() + 30
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            chunk = os.read(leader, 4096)
        except OSError:
            break
        shown += chunk
        if chunk.rstrip().endswith((b"]:", b":", b"?")):
            answer = next(answers, None)
            if answer is not None:
                os.write(leader, answer)
    proc.wait(timeout=10)
    os.close(leader)
    text = shown.decode("utf-8", "replace")
    assert "What does the tool do" not in text and "Add a parameter?" in text, text
    tool = load_catalog(project).get("asked")
    assert [p.name for p in tool.parameters] == ["field", "pretty"]
    assert tool.description == "Show a field of this package's metadata."


#: Annotations, each with the schema it maps to.
ANNOTATIONS: dict[str, dict[str, t.Any] | None] = {
    "": None,
    "str": {"type": "string"},
    "int": {"type": "integer"},
    "float": {"type": "number"},
    "bool": {"type": "boolean"},
    "list[int]": {"type": "array", "items": {"type": "integer"}},
    "typing.List[str]": {"type": "array", "items": {"type": "string"}},
    "typing.Optional[bool]": {"type": "boolean", "nullable": True},
    "str | None": {"type": "string", "nullable": True},
    "typing.Literal['a', 'b']": {"type": "string", "enum": ["a", "b"]},
    "dict": {"type": "object"},
    "'int'": {"type": "integer"},
}
DEFAULTS = ["", "1", "'x'", "None", "(1, 2)", "[]", "True", "-2.5", "len"]


def _signatures() -> t.Any:
    from hypothesis import strategies as st

    parameter = st.tuples(st.sampled_from(sorted(ANNOTATIONS)), st.sampled_from(DEFAULTS))
    return st.tuples(
        st.lists(parameter, max_size=3),  # positional-only
        st.lists(parameter, max_size=3),  # positional or keyword
        st.booleans(),  # *args
        st.lists(parameter, max_size=3),  # keyword-only
        st.booleans(),  # **kwargs
    )


def test_random_signatures_read_as_python_reads_them(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Functions of random shapes (each kind of parameter, annotations, defaults literal or not),
    written out, read from source, and imported: names, kinds, defaults and schemas agree with
    inspect.signature of the function Python made."""
    from hypothesis import HealthCheck, given, settings

    directory = tmp_path_factory.mktemp("random")
    counter = iter(range(1_000_000))

    @settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(_signatures())
    def check(shape: t.Any) -> None:
        positional_only, positional, var_args, keyword_only, var_kwargs = shape
        names = iter(f"p{i}" for i in range(100))
        parts: list[str] = []
        expected_schemas: dict[str, t.Any] = {}
        seen_default = False

        def spell(annotation: str, default: str, must_default: bool) -> str:
            name = next(names)
            if must_default and not default:
                default = "0"
            expected_schemas[name] = ANNOTATIONS[annotation]
            return name + (f": {annotation}" if annotation else "") + (f" = {default}" if default else "")

        for group in (positional_only, positional):
            for annotation, default in group:
                seen_default = seen_default or bool(default)
                parts.append(spell(annotation, default, seen_default))
            if group is positional_only and positional_only:
                parts.append("/")
        if var_args:
            parts.append("*args")
        elif keyword_only:
            parts.append("*")
        parts += [spell(annotation, default, False) for annotation, default in keyword_only]
        if var_kwargs:
            parts.append("**kwargs")
        module = f"random_{next(counter)}"
        source = f"import typing\n\n\ndef f({', '.join(parts)}):\n    pass\n"
        write(directory / f"{module}.py", source)
        spec = importlib.util.spec_from_file_location(module, directory / f"{module}.py")
        assert spec is not None and spec.loader is not None
        imported = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(imported)
        real = list(inspect.signature(imported.f).parameters.values())
        read = read_signature(f"{module}:f", [str(directory)]).parameters
        assert [(p.name, p.kind, p.has_default) for p in read] == [
            (p.name, KIND_NAMES[p.kind], p.default is not inspect.Parameter.empty) for p in real
        ], source
        for param, actual in zip(read, real, strict=True):
            if param.default_known:
                want = list(actual.default) if isinstance(actual.default, tuple) else actual.default
                assert param.default == want, source
            else:  # not a literal: a name the function looks up
                assert actual.default is inspect.Parameter.empty or callable(actual.default), source
            if param.kind in (VAR_POSITIONAL, VAR_KEYWORD):
                continue
            schema = expected_schemas[param.name]
            if schema is not None and param.default_known and param.default is None and not schema.get("nullable"):
                schema = {**schema, "nullable": True}  # the implicit Optional of a None default
                if "enum" in schema:
                    schema["enum"] = [*schema["enum"], None]
            assert param.schema == schema, source

    check()
