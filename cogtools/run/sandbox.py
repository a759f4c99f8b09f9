"""The Jinja2 environment of every template cogtools renders: sandboxed, compiled without running
anything, and rendered under limits (DESIGN §11).

- **Compiling runs nothing.** Jinja folds constant expressions while it compiles (``{{ 'x' |
  indent(10**9) }}`` would run then, in discovery, for every tool file loaded); here the
  optimizer is off and output nodes are never turned into constants, so a template does its
  work only when it is rendered, under the limits below.
- **Sizes.** No string, list or tuple a template makes may be longer than the render's
  ``max_size`` (the tool's output limit), and no integer may pass :data:`MAX_INT_BITS`. The
  operations that can make a value much larger than their inputs are checked *before* they run
  (``*``, ``**``, ``%``, ``+``, ``~``, padding and repeating methods and filters, ``lipsum``), so
  that the large value is never allocated; every call's result is checked after it.
- **Output.** Every buffer a template joins (its output, ``{% set %}`` blocks, macros, filter
  blocks) is joined by :meth:`LimitedEnvironment.concat`, which stops at ``max_size``.
- **Time.** :func:`cogtools.run.deadline.deadline` bounds a render (loops, ``range``).

A limit that is hit raises :class:`TooLarge`, which the template kind reports as
``RENDER_FAILED``.
"""

from __future__ import annotations

import contextvars
import re
import typing as t

from jinja2 import nodes
from jinja2.compiler import CodeGenerator, Frame
from jinja2.environment import Environment
from jinja2.runtime import Context
from jinja2.sandbox import SandboxedEnvironment, SandboxedFormatter

#: The largest integer a template may make, in bits (about 30,000 decimal digits).
MAX_INT_BITS = 100_000
#: The size limit of a render when none was set (the default output limit).
DEFAULT_MAX_SIZE = 1024 * 1024

_max_size: contextvars.ContextVar[int] = contextvars.ContextVar("cogtools_template_max_size", default=DEFAULT_MAX_SIZE)


#: What Jinja passes first to the filters that ask for it (a checker skips it).
_CONTEXTUAL = (Environment, Context, nodes.EvalContext)


class TooLarge(Exception):
    """A template tried to make a value past its limits."""


def max_size() -> int:
    return _max_size.get()


class sized:
    """``with sized(n):`` renders in it make values of at most ``n`` characters or items."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._token: contextvars.Token[int] | None = None

    def __enter__(self) -> None:
        self._token = _max_size.set(self._limit)

    def __exit__(self, *exc: object) -> None:
        assert self._token is not None
        _max_size.reset(self._token)


def _check_size(size: int, what: str) -> None:
    limit = _max_size.get()
    if size > limit:
        raise TooLarge(f"{what} would be {size} long, past the limit of {limit} (limits.max_output_bytes)")


def _check_bits(bits: int, what: str) -> None:
    if bits > MAX_INT_BITS:
        raise TooLarge(f"{what} would be an integer of about {bits} bits, past the limit of {MAX_INT_BITS}")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _result(value: t.Any) -> t.Any:
    """``value``, after checking that a template may hold it."""
    if isinstance(value, (str, list, tuple, dict)):
        _check_size(len(value), "a value")
    elif _is_int(value):
        _check_bits(value.bit_length(), "a value")
    return value


#: A printf-style conversion: flags, width and precision (each a number or ``*``).
_PRINTF = re.compile(r"%(?:\([^)]*\))?[#0\- +]*(\*|\d+)?(?:\.(\*|\d+))?[hlL]?[a-zA-Z%]")
_NUMBER = re.compile(r"\d+")


def _check_printf(fmt: str, args: t.Any) -> None:
    """``fmt % args`` must not pad or print past the size limit."""
    widest = 0
    star = False
    for match in _PRINTF.finditer(fmt):
        for part in match.groups():
            if part == "*":
                star = True
            elif part:
                widest = max(widest, int(part))
    if star:
        values = args if isinstance(args, tuple) else (args,)
        widest = max([widest, *(abs(v) for v in values if _is_int(v))])
    _check_size(len(fmt) + widest, "a formatted string")


def _check_format_spec(spec: str) -> None:
    """A ``str.format`` spec must not pad or print past the size limit."""
    for number in _NUMBER.findall(spec):
        if len(number) > 9:
            _check_size(10**9, "a formatted field")
        _check_size(int(number), "a formatted field")


def _width(value: t.Any) -> int:
    return value if _is_int(value) else 0


def _check_binop(operator: str, left: t.Any, right: t.Any) -> None:
    if operator == "*":
        for seq, n in ((left, right), (right, left)):
            if isinstance(seq, (str, list, tuple)) and _is_int(n):
                _check_size(len(seq) * max(n, 0), "a repeated value")
        if _is_int(left) and _is_int(right):
            _check_bits(left.bit_length() + right.bit_length(), "a product")
    elif operator == "**":
        if _is_int(left) and _is_int(right) and right > 0 and abs(left) > 1:
            _check_bits((left.bit_length()) * right, "a power")
    elif operator == "%":
        if isinstance(left, str):
            _check_printf(left, right)
    elif operator == "+":
        if isinstance(left, (str, list, tuple)) and isinstance(right, (str, list, tuple)):
            _check_size(len(left) + len(right), "a sum")


def _check_method(obj: t.Any, args: tuple[t.Any, ...], kwargs: t.Mapping[str, t.Any]) -> None:
    """Methods of ``str`` that can make a result much longer than the string."""
    owner = getattr(obj, "__self__", None)
    name = getattr(obj, "__name__", "")
    if not isinstance(owner, str):
        return
    if name in ("ljust", "rjust", "center", "zfill") and args:
        _check_size(_width(args[0]), f"str.{name}()")
    elif name == "expandtabs":
        tabsize = args[0] if args else kwargs.get("tabsize", 8)
        _check_size(len(owner) * max(_width(tabsize), 1), "str.expandtabs()")
    elif name == "replace" and len(args) >= 2 and isinstance(args[0], str) and isinstance(args[1], str):
        _check_replace(owner, args[0], args[1])
    elif name == "join" and args:
        _check_size(len(owner) * _count(args[0]), "str.join()")
    elif name == "translate":
        table = args[0] if args else {}
        longest = max((len(v) for v in getattr(table, "values", lambda: [])() if isinstance(v, str)), default=1)
        _check_size(len(owner) * longest, "str.translate()")


def _count(items: t.Any) -> int:
    try:
        return len(items)
    except TypeError:
        return 0


def _check_replace(text: str, old: str, new: str) -> None:
    times = len(text) + 1 if old == "" else text.count(old)
    _check_size(len(text) + times * max(len(new) - len(old), 0), "a replacement")


class _FormatSized(SandboxedFormatter):
    def format_field(self, value: t.Any, format_spec: str) -> t.Any:
        _check_format_spec(format_spec)
        return super().format_field(value, format_spec)


class _NoFolding(CodeGenerator):
    """Jinja's code generator, less what runs at compile time, and with ``~`` joined by the
    environment's checked :meth:`~LimitedEnvironment.concat`."""

    def _output_child_to_const(self, node: nodes.Expr, frame: Frame, finalize: t.Any) -> str:
        raise nodes.Impossible()

    def visit_Concat(self, node: nodes.Concat, frame: Frame) -> None:
        self.write("environment.concat(map(str, (")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write(")))")


def _guarded_filters(filters: dict[str, t.Callable[..., t.Any]]) -> dict[str, t.Callable[..., t.Any]]:
    """Jinja's filters, each with its result checked, and those that pad or repeat checked
    before they run."""
    before: dict[str, t.Callable[..., None]] = {
        "indent": lambda s, width=4, *a, **k: _check_size(
            len(str(s)) + _width(width) * (str(s).count("\n") + 1), "an indented string"
        ),
        "center": lambda s, width=80, *a, **k: _check_size(_width(width), "a centred string"),
        "format": lambda s, *args, **k: _check_printf(str(s), args),
        "replace": lambda s, old, new, *a, **k: _check_replace(str(s), str(old), str(new)),
        "join": lambda seq, d="", *a, **k: _check_size(len(str(d)) * _count(seq), "a joined string"),
        "batch": lambda seq, linecount, fill_with=None, *a, **k: _check_size(_width(linecount), "a batch"),
        "slice": lambda seq, slices, *a, **k: _check_size(_width(slices), "a slice count"),
        "tojson": lambda value, indent=None, *a, **k: _check_size(_width(indent) * 1000, "a JSON indent"),
        "wordwrap": lambda s, width=79, *a, **k: _check_size(len(str(s)) + _width(width), "a wrapped string"),
    }
    out = {}
    for name, function in filters.items():
        out[name] = _guard(function, before.get(name))
    return out


def _guard(function: t.Callable[..., t.Any], check: t.Callable[..., None] | None) -> t.Callable[..., t.Any]:
    import functools

    @functools.wraps(function)
    def guarded(*args: t.Any, **kwargs: t.Any) -> t.Any:
        if check is not None:
            # Jinja passes the environment or context first to the filters that ask for it.
            plain = args[1:] if args and isinstance(args[0], _CONTEXTUAL) else args
            try:
                check(*plain, **kwargs)
            except TypeError:
                pass  # a call the filter itself refuses: let it say why
        return _result(function(*args, **kwargs))

    return guarded


def _lipsum(n: int = 5, html: bool = True, min: int = 20, max: int = 100) -> str:
    from jinja2.utils import generate_lorem_ipsum

    _check_size(_width(n) * _width(max) * 12, "lipsum()")
    return generate_lorem_ipsum(n=n, html=html, min=min, max=max)


class LimitedEnvironment(SandboxedEnvironment):
    """The sandbox with the limits of this module (see its docstring)."""

    intercepted_binops = frozenset({"*", "**", "%", "+"})
    code_generator_class = _NoFolding

    def __init__(self, **options: t.Any) -> None:
        super().__init__(optimized=False, **options)
        self.filters = _guarded_filters(dict(self.filters))
        self.globals["lipsum"] = _lipsum

    def call_binop(self, context: t.Any, operator: str, left: t.Any, right: t.Any) -> t.Any:
        _check_binop(operator, left, right)
        return _result(super().call_binop(context, operator, left, right))

    def call(__self, __context: t.Any, __obj: t.Any, *args: t.Any, **kwargs: t.Any) -> t.Any:  # noqa: N805
        _check_method(__obj, args, kwargs)
        return _result(super().call(__context, __obj, *args, **kwargs))

    def concat(self, parts: t.Iterable[str]) -> str:
        out: list[str] = []
        size = 0
        limit = _max_size.get()
        for part in parts:
            size += len(part)
            if size > limit:
                raise TooLarge(
                    f"the text it joins would pass the limit of {limit} characters (limits.max_output_bytes)"
                )
            out.append(part)
        return "".join(out)

    def wrap_str_format(self, value: t.Any) -> t.Callable[..., str] | None:
        if super().wrap_str_format(value) is None:  # not str.format or str.format_map
            return None
        f_self = value.__self__
        formatter = _FormatSized(self)
        is_format_map = value.__name__ == "format_map"

        def sized_format(*args: t.Any, **kwargs: t.Any) -> str:
            if is_format_map:
                if kwargs or len(args) != 1:
                    raise TypeError("format_map() takes exactly one argument")
                return str(type(f_self)(formatter.vformat(f_self, (), args[0])))
            return str(type(f_self)(formatter.vformat(f_self, args, kwargs)))

        return sized_format
