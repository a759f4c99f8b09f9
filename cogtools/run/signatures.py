"""A Python function's signature and docstring, read from its module's source without importing
anything (not even a parent package): what ``cogtools new --kind python`` writes as the tool's
parameters, and what ``cogtools lint`` checks a python tool's parameters against.

The module is found as the python kind's child process finds it (:mod:`cogtools.run.pychild`):
through the project's ``python_path`` first, then the installed packages (``sys.path``), one
dotted component at a time with :class:`importlib.machinery.PathFinder`, which looks at
directories and never runs a module. Its source is parsed with :mod:`ast`, never executed; a name
the module imports from another module (``from .impl import fn``, a package re-exporting its
function) is followed there, a few hops at most.

Annotations become OpenAPI 3.0 schemas (:func:`schema_of`): ``str`` string, ``int`` integer,
``float`` number, ``bool`` boolean, ``list[X]``/``List[X]``/``Sequence[X]`` an array of X,
``dict``/``Mapping`` object, ``Literal[...]`` an enum (its members of one type),
``Optional[X]``/``X | None`` X with ``nullable: true``, ``Annotated[X, ...]`` X. A parameter with
a default is optional, its default written when it is a literal. ``*args``, ``**kwargs`` and
positional-only parameters are not parameters a tool can give: the python kind calls the
function with keyword arguments only.
"""

from __future__ import annotations

import ast
import functools
import importlib.machinery
import os
import re
import sys
import typing as t
from pathlib import Path

from cogtools.core.limits import FileRefused, read_file
from cogtools.schema.validate import json_type

#: The kinds of parameter, as :class:`inspect.Parameter` names them.
POSITIONAL_ONLY, POSITIONAL_OR_KEYWORD, VAR_POSITIONAL, KEYWORD_ONLY, VAR_KEYWORD = (
    "positional-only",
    "positional-or-keyword",
    "var-positional",
    "keyword-only",
    "var-keyword",
)

#: At most this many imports are followed to find where a function is defined.
MAX_HOPS = 8
#: A module's source larger than this is not read (bytes).
MAX_SOURCE_BYTES = 4 * 1024 * 1024

_MISSING: t.Any = object()


class Unreadable(Exception):
    """The signature cannot be read: ``message`` says why, for a person. ``missing`` is true when
    the module or the function is not there at all (every call would fail), false when it is there
    but its signature cannot be told from the source (a C extension, a function made at run time)."""

    def __init__(self, message: str, *, missing: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.missing = missing


class Param(t.NamedTuple):
    """One parameter of the function."""

    name: str
    kind: str
    #: The OpenAPI schema the annotation maps to; None without an annotation or when it maps to
    #: none (``problem`` says why).
    schema: dict[str, t.Any] | None
    #: The annotation's source text, or None.
    annotation: str | None
    has_default: bool
    #: The default when it is a literal (``default_known``), else unset.
    default: t.Any = None
    default_known: bool = False
    description: str | None = None
    #: Why the annotation maps to no schema (an unsupported type), or None.
    problem: str | None = None

    @property
    def by_keyword(self) -> bool:
        """Whether a keyword argument can give it (what the python kind passes)."""
        return self.kind in (POSITIONAL_OR_KEYWORD, KEYWORD_ONLY)


class Signature(t.NamedTuple):
    callable: str
    #: The source file the function was read from, and the line of its ``def``.
    path: str
    line: int
    parameters: tuple[Param, ...]
    #: The docstring's first paragraph, or None.
    description: str | None
    #: What the signature alone cannot say for sure (a decorator, a class's ``__init__``).
    notes: tuple[str, ...] = ()

    @property
    def takes_any_keyword(self) -> bool:
        """Whether it has ``**kwargs``, so that any keyword is taken."""
        return any(p.kind == VAR_KEYWORD for p in self.parameters)

    def keyword(self, name: str) -> Param | None:
        """The parameter a keyword argument ``name`` gives, or None."""
        return next((p for p in self.parameters if p.name == name and p.by_keyword), None)


# -- finding the source ----------------------------------------------------------------------


def find_source(module: str, python_path: t.Sequence[str] = ()) -> Path:
    """The source file of ``module``: looked for in ``python_path``, then ``sys.path``, as the
    python kind's child imports it; each package on the way is looked into, not imported.
    :class:`Unreadable` when it is not there, or is not Python source."""
    if module in sys.builtin_module_names:
        raise Unreadable(f"{module!r} is built into the interpreter: it has no source to read")
    search: list[str] | None = [*python_path, *child_path()]
    parts = module.split(".")
    spec = None
    for depth in range(len(parts)):
        name = ".".join(parts[: depth + 1])
        spec = importlib.machinery.PathFinder.find_spec(name, search)
        if spec is None and depth == 0:
            spec = _meta_path_spec(name)
        if spec is None:
            where = ", ".join(python_path) or "no python_path"
            what = f"the module {name!r}" if name == module else f"the package {name!r} of {module!r}"
            raise Unreadable(f"{what} is neither on python_path ({where}) nor installed here", missing=True)
        if depth < len(parts) - 1:
            search = list(spec.submodule_search_locations or ())
            if not search:  # os.path: an attribute the module sets when it runs
                raise Unreadable(
                    f"{name!r} is a module, not a package: what its {parts[depth + 1]!r} is cannot be told without"
                    " running it"
                )
    assert spec is not None
    origin = spec.origin
    if spec.submodule_search_locations is not None and (not origin or origin == "namespace"):
        raise Unreadable(f"{module!r} is a namespace package: it has no source of its own to read", missing=True)
    if not origin or not origin.endswith(".py") or not os.path.isfile(origin):
        raise Unreadable(f"{module!r} is not Python source ({origin or 'no file'}): its signature cannot be read")
    return Path(origin)


def child_path() -> list[str]:
    """``sys.path`` as the python kind's child has it (``python -I``): without the working
    directory, the directory of the running script, or ``PYTHONPATH``."""
    script = os.path.dirname(os.path.abspath(sys.argv[0])) if sys.argv and sys.argv[0] else ""
    return list(_child_path(tuple(sys.path), os.getcwd(), os.environ.get("PYTHONPATH", ""), script))


@functools.lru_cache(maxsize=8)
def _child_path(path: tuple[str, ...], cwd: str, pythonpath: str, script: str) -> tuple[str, ...]:
    dropped = {"", cwd, script, *pythonpath.split(os.pathsep)}
    real = {os.path.realpath(entry) for entry in dropped if entry}
    return tuple(entry for entry in path if entry not in dropped and os.path.realpath(entry) not in real)


def _meta_path_spec(name: str) -> t.Any:
    """``name`` found by a finder an editable install adds (it maps names to paths, and runs no
    module); the standard finders are left out (built in, frozen: no source)."""
    skip = (importlib.machinery.BuiltinImporter, importlib.machinery.FrozenImporter, importlib.machinery.PathFinder)
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        if find is None or finder in skip or isinstance(finder, skip):
            continue
        try:
            spec = find(name, None)
        except Exception:  # noqa: BLE001 - a finder of another package's: its failure is "not found"
            continue
        if spec is not None:
            return spec
    return None


#: Syntax trees already parsed, by path, size and modification time (lint reads one module for
#: each of its tools).
_PARSED: dict[tuple[str, int, int], ast.Module] = {}


def _parse(path: Path) -> ast.Module:
    """The module's syntax tree: a regular file's, read within :data:`MAX_SOURCE_BYTES` (a FIFO
    or a device where a module was looked for is refused, not waited on)."""
    try:
        st = path.stat()
        key = (str(path), st.st_size, st.st_mtime_ns)
    except OSError:
        key = None
    if key is not None and key in _PARSED:
        return _PARSED[key]
    tree = _read_tree(path)
    if key is not None:
        if len(_PARSED) >= 256:
            _PARSED.clear()
        _PARSED[key] = tree
    return tree


def _read_tree(path: Path) -> ast.Module:
    try:
        data = read_file(path, MAX_SOURCE_BYTES)
    except FileRefused as e:
        raise Unreadable(f"{path} is not read: {e.message}") from e
    except OSError as e:
        raise Unreadable(f"cannot read {path}: {e.strerror}") from e
    try:
        return ast.parse(data, filename=str(path))
    except (SyntaxError, ValueError) as e:  # the child's interpreter is this one: its import fails too
        line = getattr(e, "lineno", None)
        where = f"{path}:{line}" if line else str(path)
        raise Unreadable(f"{where} is not Python this interpreter parses ({e})", missing=True) from e
    except (RecursionError, MemoryError) as e:
        raise Unreadable(f"{path} nests too deeply to be parsed") from e


# -- finding the function --------------------------------------------------------------------

_Definition = t.Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef]


def read_signature(target: str, python_path: t.Sequence[str] = ()) -> Signature:
    """The signature of ``target`` (``MODULE:FUNCTION``, the function maybe ``Class.method``),
    read from source. :class:`Unreadable` says why not."""
    module, _, attribute = target.partition(":")
    if not module or not attribute:
        raise Unreadable(f"{target!r} is not MODULE:FUNCTION")
    notes: list[str] = []
    first, *rest = attribute.split(".")
    path, node = _lookup(module, first, python_path, MAX_HOPS)
    owner: ast.ClassDef | None = None
    for part in rest:
        if not isinstance(node, ast.ClassDef):
            raise Unreadable(f"{target}: {node.name!r} is not a class, so its {part!r} cannot be read")
        owner, found = node, _member(node.body, part)
        if found is None:
            raise Unreadable(f"{target}: the class {node.name!r} defines no {part!r} in {path}")
        node = found
    skip_first = False
    docstrings: list[str] = []
    if isinstance(node, ast.ClassDef):
        init = _member(node.body, "__init__")
        if init is None or isinstance(init, ast.ClassDef):
            raise Unreadable(f"{target} is a class without an __init__ of its own: its signature cannot be read")
        notes.append(f"{target} is a class: the parameters are its __init__'s")
        docstrings.append(ast.get_docstring(node) or "")
        node, skip_first = init, True
    elif owner is not None:
        kinds = {_decorator_name(d) for d in node.decorator_list}
        if "classmethod" in kinds:
            skip_first = True
        elif "staticmethod" not in kinds:
            raise Unreadable(
                f"{target} is a method of the class {owner.name!r}: called through the class, it lacks its"
                " instance (make it a staticmethod or classmethod, or a function of the module)",
                missing=True,
            )
    docstrings.append(ast.get_docstring(node) or "")
    decorators = [d for d in map(_decorator_name, node.decorator_list) if d not in KEEP_SIGNATURE]
    if decorators:
        notes.append(
            f"{target} is decorated ({', '.join('@' + d for d in decorators)}): the parameters read are those"
            " of the function as written"
        )
    params = _parameters(node.args, skip_first)
    description: str | None = None
    described: dict[str, str] = {}
    for text in docstrings:
        said, more = parse_docstring(text)
        description = description or said
        described = {**more, **described}
    params = tuple(p._replace(description=described.get(p.name)) for p in params)
    return Signature(target, str(path), node.lineno, params, description, tuple(notes))


#: Decorators that keep a function's signature as written.
KEEP_SIGNATURE = frozenset(
    {"staticmethod", "classmethod", "cache", "lru_cache", "cached_property", "wraps", "override", "final"}
)


def _decorator_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ast.unparse(node)


def _lookup(module: str, name: str, python_path: t.Sequence[str], hops: int) -> tuple[Path, _Definition]:
    """Where ``name`` of ``module`` is defined: a function or class, followed through imports."""
    path = find_source(module, python_path)
    tree = _parse(path)
    found = _member(tree.body, name)
    if found is not None:
        return path, found
    imported = _imported(tree.body, name, module, path.name == "__init__.py")
    if imported is not None:
        if hops <= 0:
            raise Unreadable(f"{module}:{name} is imported through too many modules to be followed")
        source_module, source_name = imported
        try:
            return _lookup(source_module, source_name, python_path, hops - 1)
        except Unreadable as e:
            raise Unreadable(f"{module}:{name} is imported from {source_module}: {e.message}", missing=e.missing) from e
    if _bound_otherwise(tree.body, name):
        raise Unreadable(f"{module}:{name} is not defined by a def or class statement: its signature cannot be read")
    raise Unreadable(f"the module {module!r} ({path}) defines no {name!r}", missing=True)


def _statements(body: list[ast.stmt]) -> t.Iterator[ast.stmt]:
    """The statements of a module or class body, with those inside ``if``, ``try`` and ``with``
    blocks (a definition made under a condition is still one)."""
    for statement in body:
        yield statement
        if isinstance(statement, ast.If):
            yield from _statements(statement.body)
            yield from _statements(statement.orelse)
        elif isinstance(statement, ast.Try):
            for block in (statement.body, statement.orelse, statement.finalbody):
                yield from _statements(block)
            for handler in statement.handlers:
                yield from _statements(handler.body)
        elif isinstance(statement, (ast.With, ast.AsyncWith)):
            yield from _statements(statement.body)


def _member(body: list[ast.stmt], name: str) -> _Definition | None:
    """The last ``def`` or ``class`` named ``name`` in ``body`` (the one that wins)."""
    found = None
    for statement in _statements(body):
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and statement.name == name:
            found = statement
    return found


def _imported(body: list[ast.stmt], name: str, module: str, package: bool) -> tuple[str, str] | None:
    """``(module, name)`` that ``from module import name [as NAME]`` in ``body`` binds ``name`` to."""
    for statement in _statements(body):
        if not isinstance(statement, ast.ImportFrom):
            continue
        for alias in statement.names:
            if (alias.asname or alias.name) != name or alias.name == "*":
                continue
            source = statement.module or ""
            if statement.level:
                base = module.split(".") if package else module.split(".")[:-1]
                up = statement.level - 1
                if up > len(base) or (up == len(base) and not source):
                    return None
                base = base[: len(base) - up]
                source = ".".join([*base, *([source] if source else [])])
            return source, alias.name
    return None


def _bound_otherwise(body: list[ast.stmt], name: str) -> bool:
    """Whether ``name`` is bound some other way: an assignment, ``import``, a star import, or a
    module ``__getattr__``."""
    for statement in _statements(body):
        if isinstance(statement, ast.Assign):
            targets = [n.id for target in statement.targets for n in ast.walk(target) if isinstance(n, ast.Name)]
            if name in targets:
                return True
        elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
            if isinstance(statement.target, ast.Name) and statement.target.id == name:
                return True
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            if any(a.name == "*" or (a.asname or a.name.split(".")[0]) == name for a in statement.names):
                return True
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name == "__getattr__":
            return True
    return False


# -- parameters ------------------------------------------------------------------------------


def _parameters(args: ast.arguments, skip_first: bool) -> tuple[Param, ...]:
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    out: list[Param] = []
    for index, (arg, default) in enumerate(zip(positional, defaults, strict=True)):
        kind = POSITIONAL_ONLY if index < len(args.posonlyargs) else POSITIONAL_OR_KEYWORD
        out.append(_param(arg, kind, default))
    if skip_first and out:
        out.pop(0)
    if args.vararg is not None:
        out.append(_param(args.vararg, VAR_POSITIONAL, None))
    for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        out.append(_param(arg, KEYWORD_ONLY, default))
    if args.kwarg is not None:
        out.append(_param(args.kwarg, VAR_KEYWORD, None))
    return tuple(out)


def _param(arg: ast.arg, kind: str, default: ast.expr | None) -> Param:
    schema: dict[str, t.Any] | None = None
    problem = None
    annotation = ast.unparse(arg.annotation) if arg.annotation is not None else None
    if arg.annotation is not None and kind not in (VAR_POSITIONAL, VAR_KEYWORD):
        try:
            schema = schema_of(arg.annotation)
        except Unreadable as e:
            problem = e.message
        except (RecursionError, MemoryError):  # string annotations that quote themselves, deep
            problem = "the annotation nests too deeply to be read"
    value, known = _MISSING, False
    if default is not None:
        try:
            value, known = _json_value(ast.literal_eval(default)), True
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            value, known = _MISSING, False
        if known and value is None and schema is not None and "nullable" not in schema and schema:
            schema = {**schema, "nullable": True}  # ``x: str = None``: the implicit Optional
            if "enum" in schema and None not in schema["enum"]:
                schema["enum"] = [*schema["enum"], None]
    return Param(
        arg.arg,
        kind,
        schema,
        annotation,
        default is not None,
        None if value is _MISSING else value,
        known,
        problem=problem,
    )


def _json_value(value: t.Any) -> t.Any:
    """A literal default as JSON holds it (a tuple as a list); TypeError for what JSON cannot."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise TypeError("not JSON")
        return value
    if isinstance(value, (list, tuple)):
        return [_json_value(v) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: _json_value(v) for k, v in value.items()}
    raise TypeError("not JSON")


# -- annotations -----------------------------------------------------------------------------

SCALARS = {"str": "string", "int": "integer", "float": "number", "bool": "boolean"}
ARRAYS = frozenset({"list", "List", "Sequence", "MutableSequence", "Iterable", "Collection", "tuple", "Tuple"})
OBJECTS = frozenset({"dict", "Dict", "Mapping", "MutableMapping", "TypedDict"})
ANY = frozenset({"Any", "object", "JsonValue"})


def _name(node: ast.expr) -> str | None:
    """``typing.List`` -> ``List``, ``str`` -> ``str``; None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def schema_of(node: ast.expr) -> dict[str, t.Any]:
    """The OpenAPI 3.0 schema of an annotation; :class:`Unreadable` for one there is none of."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):  # "str", a forward reference
        try:
            parsed = ast.parse(node.value, mode="eval").body
        except SyntaxError as e:
            raise Unreadable(f"the annotation {node.value!r} is not Python") from e
        return schema_of(parsed)
    if isinstance(node, ast.Constant) and node.value is None:
        raise Unreadable("None alone is not a type a parameter can take")
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union(_flatten(node))
    name = _name(node)
    if name is not None:
        return _named(name, node)
    if isinstance(node, ast.Subscript):
        members = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        read = _GENERICS.get(_name(node.value) or "")
        if read is not None:
            return read(node, members)
    raise _no_json_type(node)


def _no_json_type(node: ast.expr) -> Unreadable:
    return Unreadable(f"{ast.unparse(node)} is not a type cogtools maps to a JSON type")


def _named(name: str, node: ast.expr) -> dict[str, t.Any]:
    """The schema of a type named alone (``str``, ``list``, ``typing.Mapping``, ``Any``)."""
    if name in SCALARS:
        return {"type": SCALARS[name]}
    if name in ARRAYS:
        return {"type": "array", "items": {}}
    if name in OBJECTS:
        return {"type": "object"}
    if name in ANY:
        return {}
    raise _no_json_type(node)


# The schema of a generic type given its members (``list[int]``: ``[int]``), by the generic's name.


def _optional(node: ast.Subscript, members: list[ast.expr]) -> dict[str, t.Any]:
    if len(members) != 1:
        raise _no_json_type(node)
    return _union([members[0], ast.Constant(None)])


def _annotated(node: ast.Subscript, members: list[ast.expr]) -> dict[str, t.Any]:
    return schema_of(members[0])


def _tuple(node: ast.Subscript, members: list[ast.expr]) -> dict[str, t.Any]:
    if len(members) == 2 and isinstance(members[1], ast.Constant) and members[1].value is Ellipsis:
        return {"type": "array", "items": schema_of(members[0])}
    raise Unreadable(f"{ast.unparse(node)}: only a tuple of any length (tuple[X, ...]) is an array")


def _array(node: ast.Subscript, members: list[ast.expr]) -> dict[str, t.Any]:
    if len(members) != 1:
        raise _no_json_type(node)
    return {"type": "array", "items": schema_of(members[0])}


def _mapping(node: ast.Subscript, members: list[ast.expr]) -> dict[str, t.Any]:
    if len(members) != 2:
        return {"type": "object"}
    key = schema_of(members[0])
    if key.get("type") != "string":
        raise Unreadable(f"{ast.unparse(node)}: a JSON object's keys are strings")
    values = schema_of(members[1])
    return {"type": "object", **({"additionalProperties": values} if values else {})}


_GENERICS: dict[str, t.Callable[[ast.Subscript, list[ast.expr]], dict[str, t.Any]]] = {
    **dict.fromkeys(ARRAYS, _array),
    **dict.fromkeys(("tuple", "Tuple"), _tuple),
    **dict.fromkeys(OBJECTS, _mapping),
    "Optional": _optional,
    "Union": lambda node, members: _union(members),
    "Annotated": _annotated,
    "Literal": lambda node, members: _literal(members),
}


def _flatten(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return [*_flatten(node.left), *_flatten(node.right)]
    return [node]


def _union(members: list[ast.expr]) -> dict[str, t.Any]:
    nullable = any(isinstance(m, ast.Constant) and m.value is None for m in members)
    rest = [m for m in members if not (isinstance(m, ast.Constant) and m.value is None)]
    if not rest:
        raise Unreadable("None alone is not a type a parameter can take")
    schemas = [schema_of(m) for m in rest]
    unique = [s for i, s in enumerate(schemas) if s not in schemas[:i]]
    if {"type": "integer"} in unique and {"type": "number"} in unique:  # int | float: a number
        unique.remove({"type": "integer"})
    if any(not s for s in unique):
        schema: dict[str, t.Any] = {}
    elif len(unique) == 1:
        schema = dict(unique[0])
    else:
        schema = {"anyOf": unique}
    if nullable and schema:
        schema["nullable"] = True
        if "enum" in schema and None not in schema["enum"]:  # OpenAPI 3.0.3: null is listed too
            schema["enum"] = [*schema["enum"], None]
    return schema


def _literal(members: list[ast.expr]) -> dict[str, t.Any]:
    values: list[t.Any] = []
    for member in members:
        if not isinstance(member, ast.Constant) or isinstance(member.value, (bytes, complex)) or member.value is ...:
            raise Unreadable(f"Literal[{ast.unparse(member)}]: a Literal's members are str, int, float, bool or None")
        values.append(member.value)
    kinds = {SCALARS[type(v).__name__] for v in values if v is not None}
    if len(kinds) > 1:
        raise Unreadable(f"a Literal of more than one type ({', '.join(sorted(kinds))}) is no enum of one type")
    if not kinds:
        raise Unreadable("Literal[None] alone is not a type a parameter can take")
    schema: dict[str, t.Any] = {"type": kinds.pop(), "enum": [v for v in values if v is not None]}
    if None in values:
        schema["nullable"] = True
        schema["enum"].append(None)
    return schema


# -- docstrings ------------------------------------------------------------------------------

#: At most this much of a docstring is read, in lines of at most this many characters.
MAX_DOC_CHARS, MAX_DOC_LINE = 65536, 2000

_GOOGLE_SECTION = re.compile(
    r"^(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Other Parameters):\s*$"
)
_GOOGLE_ITEM = re.compile(r"^\*{0,2}(\w+)(?:\s*\(([^)]*)\))?\s*:\s*(.*)$")
_NUMPY_ITEM = re.compile(r"^\*{0,2}(\w+)(?:\s*,\s*\*{0,2}\w+)*\s*(?::\s*(.*))?$")
#: The fields of a Sphinx docstring that describe a parameter (``:param [TYPE] NAME: TEXT``).
_SPHINX_PARAMS = frozenset({"param", "parameter", "arg", "argument", "key", "keyword"})
_SPHINX_FIELD = re.compile(r"^:\w[^:]*:")
_NUMPY_UNDERLINE = re.compile(r"^-{3,}\s*$")


def parse_docstring(text: str) -> tuple[str | None, dict[str, str]]:
    """The first paragraph (its lines joined) and the description of each parameter a
    Google-style (``Args:``), NumPy-style (``Parameters`` underlined) or Sphinx-style
    (``:param name:``) docstring gives."""
    # A docstring is the workspace's, maybe hostile: only so much of it is read.
    lines = [line[:MAX_DOC_LINE] for line in text[:MAX_DOC_CHARS].expandtabs().splitlines()]
    paragraph: list[str] = []
    for line in lines:
        stripped = line.strip()
        if not stripped:
            if paragraph:
                break
            continue
        if _SPHINX_FIELD.match(stripped) or _GOOGLE_SECTION.match(stripped):
            break
        paragraph.append(stripped)
    # A NumPy section header that ended the first paragraph is no part of it.
    for index, line in enumerate(lines):
        if _NUMPY_UNDERLINE.match(line.strip()) and index and lines[index - 1].strip() in paragraph:
            paragraph = paragraph[: paragraph.index(lines[index - 1].strip())]
            break
    description = " ".join(paragraph) or None
    described: dict[str, str] = {}
    described.update(_google(lines))
    described.update(_numpy(lines))
    described.update(_sphinx(lines))
    return description, described


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _google(lines: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    index = 0
    while index < len(lines):
        if not _GOOGLE_SECTION.match(lines[index].strip()):
            index += 1
            continue
        header = _indent(lines[index])
        index += 1
        item_indent: int | None = None
        current: str | None = None
        while index < len(lines):
            line = lines[index]
            stripped = line.strip()
            if stripped and _indent(line) <= header:
                break
            if stripped:
                if item_indent is None:
                    item_indent = _indent(line)
                match = _GOOGLE_ITEM.match(stripped) if _indent(line) == item_indent else None
                if match:
                    current = match.group(1)
                    out[current] = match.group(3).strip()
                elif current is not None:
                    out[current] = f"{out[current]} {stripped}".strip()
            index += 1
    return out


def _numpy(lines: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for start in range(len(lines) - 1):
        title = lines[start].strip()
        if title not in ("Parameters", "Other Parameters", "Keyword Arguments") or not _NUMPY_UNDERLINE.match(
            lines[start + 1].strip()
        ):
            continue
        base = _indent(lines[start])
        current: list[str] = []
        index = start + 2
        while index < len(lines):
            line = lines[index]
            stripped = line.strip()
            if index + 1 < len(lines) and stripped and _NUMPY_UNDERLINE.match(lines[index + 1].strip()):
                break  # the next section
            if stripped and _indent(line) == base:
                match = _NUMPY_ITEM.match(stripped)
                current = re.findall(r"\*{0,2}(\w+)", stripped.split(":")[0]) if match else []
                for name in current:
                    out[name] = ""
            elif stripped and current:
                for name in current:
                    out[name] = f"{out[name]} {stripped}".strip()
            index += 1
    return {name: text for name, text in out.items() if text}


def _sphinx(lines: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    current: str | None = None
    for line in lines:
        stripped = line.strip()
        field, _, text = stripped[1:].partition(":") if stripped.startswith(":") else ("", "", "")
        words = field.split()
        if len(words) >= 2 and words[0] in _SPHINX_PARAMS and words[-1].lstrip("*").isidentifier():
            current = words[-1].lstrip("*")
            out[current] = text.strip()
        elif _SPHINX_FIELD.match(stripped) or not stripped:
            current = None
        elif current is not None:
            out[current] = f"{out[current]} {stripped}".strip()
    return {name: text for name, text in out.items() if text}


# -- what a tool writes and what lint checks -------------------------------------------------


def tool_parameters(signature: Signature) -> tuple[dict[str, dict[str, t.Any]], list[str]]:
    """The parameters of a tool that calls the function (the map form: name -> schema, with
    ``optional: true`` for one with a default), and notes for a person: what was left out, or
    read as a string."""
    out: dict[str, dict[str, t.Any]] = {}
    notes = list(signature.notes)
    for param in signature.parameters:
        if param.kind == VAR_POSITIONAL:
            notes.append(f"*{param.name} is left out: a tool calls the function with keyword arguments only")
            continue
        if param.kind == VAR_KEYWORD:
            notes.append(f"**{param.name} is left out: it takes any keyword, so add the ones the function reads")
            continue
        if param.kind == POSITIONAL_ONLY:
            if param.has_default:
                notes.append(f"{param.name} is positional-only: a tool cannot give it, so its default is used")
            else:
                notes.append(
                    f"{param.name} is positional-only and required: a tool calls with keywords, so every call fails;"
                    " make it a keyword parameter"
                )
            continue
        if param.name == "env":
            notes.append(
                "env is left out: the python kind passes it the variables the tool declares under `environment`"
                + ("" if param.has_default else ", so declare them")
            )
            continue
        schema = dict(param.schema) if param.schema is not None else None
        if schema is None and param.annotation is None and param.default_known and param.default is not None:
            schema = {"type": json_type(param.default)}  # f(n=3): the default's type
            if schema["type"] == "array":
                schema["items"] = {}
        if schema is None:
            why = param.problem or "it has no annotation"
            notes.append(f"{param.name} is read as a string: {why}")
            schema = {"type": "string"}
        if param.default_known and param.default is None and schema and not schema.get("nullable"):
            schema["nullable"] = True  # its default, None, is a value a call may give too
        schema["description"] = param.description or f"The {param.name.replace('_', ' ')} to use."
        if param.has_default:
            if param.default_known and param.default is not None:  # None: what the function gets anyway
                schema["default"] = param.default
            schema["optional"] = True
        out[param.name] = schema
    return out, notes


def agrees(declared: t.Mapping[str, t.Any], annotated: t.Mapping[str, t.Any] | None) -> str | None:
    """Why a value the tool's schema ``declared`` lets through may be one the function's
    annotation (``annotated``, as :func:`schema_of` maps it) does not take; None when they agree,
    or when it cannot be told."""
    if not annotated:
        return None
    if "anyOf" in annotated:
        options = [dict(o, **({"nullable": True} if annotated.get("nullable") else {})) for o in annotated["anyOf"]]
        whys = [agrees(declared, option) for option in options]
        return None if any(why is None for why in whys) else whys[0]
    kind, expected = declared.get("type"), annotated.get("type")
    if kind is None or expected is None:
        return None
    if kind != expected and not (kind == "integer" and expected == "number"):
        return f"the tool gives {kind}, the function takes {expected}"
    if declared.get("nullable") and not annotated.get("nullable"):
        return "the tool lets null through, the function's annotation does not take None"
    if "enum" in annotated:
        allowed = annotated["enum"]
        given = declared.get("enum")
        if given is None:
            return f"the tool gives any {kind}, the function takes only {', '.join(map(repr, allowed))}"
        extra = [value for value in given if value not in allowed]
        if extra:
            return f"the tool's enum has {', '.join(map(repr, extra))}, which the function's Literal has not"
    if kind == "array" and isinstance(declared.get("items"), dict) and isinstance(annotated.get("items"), dict):
        inner = agrees(declared["items"], annotated["items"])
        if inner is not None:
            return f"its items: {inner}"
    return None
