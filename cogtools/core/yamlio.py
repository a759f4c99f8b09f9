"""The one place YAML is read and written: PyYAML's libyaml parser and dumper when PyYAML was
built with them, its pure-Python ones otherwise.

Reading is limited (DESIGN §11): the nodes are composed by a composer of ours, over libyaml's
events, that refuses documents nesting deeper than :data:`~cogtools.core.limits.MAX_DEPTH`, holding
more than :data:`~cogtools.core.limits.MAX_NODES` values once aliases are expanded (billion laughs),
an alias inside its own anchor, and a key given twice in one mapping. libyaml's own composer
recurses in C and crashes the interpreter on a deep enough document; ours stops at the limit.
"""

from __future__ import annotations

import re
import typing as t

import yaml
from yaml.composer import Composer, ComposerError
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.events import AliasEvent
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.resolver import Resolver

from cogtools.core.jsondata import KeyPath
from cogtools.core.limits import MAX_DEPTH, MAX_NODES

SafeDumper: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

_MERGE = "tag:yaml.org,2002:merge"

# PyYAML's stubs do not describe its mixin classes as they combine; these are typed loosely.
_Composer: t.Any = Composer
_SafeConstructor: t.Any = SafeConstructor


class _LimitedComposer(_Composer):  # type: ignore[misc]
    """PyYAML's composer, counting depth and expanded size, refusing duplicate keys."""

    _depth = 0
    _count = 0

    def compose_document(self) -> Node | None:
        self._depth, self._count = 0, 0
        self._sizes: dict[int, int] = {}
        return super().compose_document()  # type: ignore[no-any-return]

    def compose_node(self, parent: Node | None, index: t.Any) -> Node:
        event: t.Any = self.peek_event()
        if isinstance(event, AliasEvent):
            node = self.anchors.get(event.anchor)
            if node is not None:
                size = self._sizes.get(id(node))
                if size is None:
                    mark: t.Any = event.start_mark
                    raise ComposerError(None, None, f"the alias *{event.anchor} is inside its own anchor", mark)
                self._grow(size, event)
            return t.cast(Node, super().compose_node(parent, index))
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise ComposerError(None, None, f"collections nest more than {MAX_DEPTH} levels deep", event.start_mark)
        start = self._count
        self._grow(1, event)
        node = t.cast(Node, super().compose_node(parent, index))
        self._depth -= 1
        self._sizes[id(node)] = self._count - start
        return node

    def _grow(self, size: int, event: t.Any) -> None:
        self._count += size
        if self._count > MAX_NODES:
            raise ComposerError(None, None, f"more than {MAX_NODES} values once aliases are expanded", event.start_mark)


def _check_keys(root: Node | None) -> None:
    """ComposerError for a mapping that gives a key twice. The tree is walked without recursion,
    each node once (an alias shares its anchor's node)."""
    stack = [root] if root is not None else []
    met: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in met:
            continue
        met.add(id(node))
        if isinstance(node, MappingNode):
            seen: set[tuple[str, str]] = set()
            for key, value in node.value:
                if isinstance(key, ScalarNode) and key.tag != _MERGE:
                    if (key.tag, key.value) in seen:
                        raise ComposerError(
                            "while reading a mapping",
                            node.start_mark,
                            f"the key {key.value!r} is given twice",
                            key.start_mark,
                        )
                    seen.add((key.tag, key.value))
                stack += (key, value)
        elif isinstance(node, SequenceNode):
            stack += node.value


class _Constructor(_SafeConstructor):  # type: ignore[misc]
    def construct_yaml_int(self, node: ScalarNode) -> int:
        try:
            return super().construct_yaml_int(node)  # type: ignore[no-any-return]
        except ValueError as e:  # more digits than Python converts
            raise ConstructorError(None, None, f"an integer that cannot be read ({e})", node.start_mark) from None


_Constructor.add_constructor("tag:yaml.org,2002:int", _Constructor.construct_yaml_int)

try:
    from yaml.cyaml import CParser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - PyYAML without libyaml
    from yaml.parser import Parser
    from yaml.reader import Reader
    from yaml.scanner import Scanner

    class SafeLoader(Reader, Scanner, Parser, _LimitedComposer, _Constructor, Resolver):
        def __init__(self, stream: str) -> None:
            Reader.__init__(self, stream)
            Scanner.__init__(self)
            Parser.__init__(self)
            _LimitedComposer.__init__(self)
            _Constructor.__init__(self)
            Resolver.__init__(self)

    _CLoader: t.Any = None
else:

    class SafeLoader(_LimitedComposer, CParser, _Constructor, Resolver):  # type: ignore[no-redef]
        """libyaml's parser (events in C), our composer, PyYAML's safe constructor."""

        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            _LimitedComposer.__init__(self)
            _Constructor.__init__(self)
            Resolver.__init__(self)

    class _CLoader(CParser, _Constructor, Resolver):  # type: ignore[no-redef]
        """libyaml's parser and composer (both in C), PyYAML's safe constructor: for a text that
        :func:`_within_limits` proves cannot pass a limit (libyaml's composer recurses in C)."""

        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            _Constructor.__init__(self)
            Resolver.__init__(self)


# An anchor (&name) or an alias (*name) where a node may start; found in quoted or block text
# too, which only sends that text the slower way.
_ANCHOR_OR_ALIAS = re.compile(r"(?:^|[\s\[{,])[&*][^\s\]},]", re.MULTILINE)
_LEADING = re.compile(r"^[ ?:-]*", re.MULTILINE)


def _within_limits(text: str) -> bool:
    """Whether ``text`` is sure to nest at most MAX_DEPTH levels and hold at most MAX_NODES
    values, having no alias to expand: then libyaml may compose it in C. Every nesting level of
    block YAML takes more indentation or an indicator (``- ``, ``? ``), at most two levels per
    leading character; every flow level a bracket; every value a separator."""
    if _ANCHOR_OR_ALIAS.search(text):
        return False
    leading = max((len(m) for m in _LEADING.findall(text)), default=0)
    if 2 * (leading + 1) + text.count("[") + text.count("{") > MAX_DEPTH:
        return False
    separators = sum(text.count(c) for c in "\n,:-[{?")
    return 2 * (separators + 1) <= MAX_NODES


def load(text: str) -> t.Any:
    """Parse ``text`` within the limits; raises :class:`yaml.YAMLError`."""
    return load_located(text)[0]


def load_located(text: str) -> tuple[t.Any, Locator]:
    """``text`` parsed within the limits, and a :class:`Locator` of its lines, composed once;
    raises :class:`yaml.YAMLError`."""
    loader = _loader(text)
    try:
        node = _single_node(loader)
        return (loader.construct_document(node) if node is not None else None), Locator(text, node)
    finally:
        loader.dispose()


def compose(text: str) -> yaml.Node | None:
    loader = _loader(text)
    try:
        return _single_node(loader)
    finally:
        loader.dispose()


def _single_node(loader: t.Any) -> yaml.Node | None:
    """The document's one node, its keys checked. The libyaml that recent PyYAML
    wheels bundle (seen with PyYAML 6.0.4) stops flow collections past its own depth while
    scanning, before our composer counts them: that is the same refusal, said in our words."""
    try:
        node: yaml.Node | None = loader.get_single_node()
    except yaml.MarkedYAMLError as e:
        if "maximum nesting depth" not in str(e.problem):
            raise
        raise ComposerError(None, None, f"collections nest more than {MAX_DEPTH} levels deep", e.problem_mark) from None
    _check_keys(node)
    return node


def _loader(text: str) -> t.Any:
    """libyaml's C composer for a text that cannot pass a limit, else the limited one."""
    return (_CLoader if _CLoader is not None and _within_limits(text) else SafeLoader)(text)


def describe_error(e: yaml.YAMLError, text: str | None = None) -> tuple[str, int | None]:
    """A PyYAML error as one line of text and the line it points at (``text``: what was parsed,
    to tell a tab in the indentation, which the C parser's marks do not carry)."""
    mark = getattr(e, "problem_mark", None)
    problem = getattr(e, "problem", None) or str(e)
    context = getattr(e, "context", None)
    message = f"invalid YAML: {problem}" + (f" ({context})" if context else "")
    buffer = getattr(mark, "buffer", None) or text
    lines = buffer.split("\n") if isinstance(buffer, str) else []
    if mark is not None and mark.line < len(lines) and "\t" in lines[mark.line][: mark.column + 1]:
        message += "; the line is indented with a tab, and YAML indents with spaces only"
    return " ".join(message.split()), (mark.line + 1 if mark is not None else None)


class Locator:
    """Finds the line of a key path in a YAML text; composes the text on first use, unless
    given its ``root`` node."""

    def __init__(self, text: str, root: yaml.Node | None = None) -> None:
        self._text = text
        self._root = root

    def __call__(self, key_path: KeyPath, value: bool = False) -> int | None:
        if self._root is None:
            try:
                self._root = compose(self._text)
            except yaml.YAMLError:
                return None
        node: yaml.Node | None = self._root
        key_node: yaml.Node | None = None
        for key in key_path:
            key_node = None
            if isinstance(node, yaml.MappingNode):
                for k, v in node.value:
                    if isinstance(k, yaml.ScalarNode) and k.value == str(key):
                        key_node, node = k, v
                        break
                else:
                    return None
            elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
                node = node.value[key]
            else:
                return None
        if node is None:
            return None
        if value:
            line = node.start_mark.line
            if isinstance(node, yaml.ScalarNode) and node.style in ("|", ">"):
                line += 1
            return line + 1
        target = key_node if key_node is not None else node
        return target.start_mark.line + 1


def dump_for_people(data: t.Any) -> str:
    """YAML for people: keys in their order, multi-line strings as literal blocks."""

    class Dumper(SafeDumper):  # type: ignore[misc,valid-type]
        pass

    def text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
        style = "|" if "\n" in value else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    Dumper.add_representer(str, text)
    return yaml.dump(data, Dumper=Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False)
