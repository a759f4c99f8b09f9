"""JSON with comments: read as Gemini CLI reads its settings, edited without losing a byte."""

from __future__ import annotations

import json
import random

import pytest

from cogtools.core import jsonc


def test_comments_become_spaces_and_strings_keep_theirs() -> None:
    text = '{"a": "// not a comment", /* gone */ "b": "/* kept */ \\" //"} // gone\r\n'
    stripped = jsonc.strip_comments(text)
    assert len(stripped) == len(text) and stripped.endswith("\r\n")
    assert jsonc.loads(text) == {"a": "// not a comment", "b": '/* kept */ " //'}
    assert jsonc.strip_comments('{"a": "//"}') == '{"a": "//"}'  # a string is never a comment


@pytest.mark.parametrize(
    ("text", "line"),
    [('{\n  "a": 1,\n}', 3), ("{\n /* never closed", 2), ("[1, 2,]", 1), ("\ufeff{}", 1)],
    ids=["trailing-comma-in-object", "unterminated-comment", "trailing-comma-in-array", "byte-order-mark"],
)
def test_what_gemini_refuses_is_refused_with_its_line(text: str, line: int) -> None:
    with pytest.raises(jsonc.JsoncError) as caught:
        jsonc.loads(text)
    assert caught.value.line == line


def test_nesting_too_deep_is_an_error_not_a_crash() -> None:
    with pytest.raises(jsonc.JsoncError):
        jsonc.loads("[" * 100_000 + "]" * 100_000)


def test_an_edit_changes_only_its_value() -> None:
    text = '{\r\n  // mine\r\n  "tools": {\r\n    "callCommand": "old", /* kept */\r\n    "x": 1\r\n  }\r\n}\r\n'
    new = jsonc.set_value(text, ("tools", "callCommand"), "cogtools-call")
    assert new == text.replace('"old"', '"cogtools-call"')
    assert jsonc.set_value(new, ("tools", "callCommand"), "cogtools-call") == new  # no change, same bytes


def test_an_inserted_key_follows_the_files_layout() -> None:
    text = '{\r\n\t// tabs and CRLF\r\n\t"a": 1\r\n}\r\n'
    new = jsonc.set_value(text, ("tools", "allowed"), ["x"])
    assert (
        new
        == '{\r\n\t// tabs and CRLF\r\n\t"a": 1,\r\n\t"tools": {\r\n\t\t"allowed": [\r\n\t\t\t"x"\r\n\t\t]\r\n\t}\r\n}\r\n'
    )
    commented = jsonc.set_value('{\n  "a": 1 // about a\n}\n', ("b",), 2)
    assert commented == '{\n  "b": 2,\n  "a": 1 // about a\n}\n'
    one_line = jsonc.set_value('{"a": {}}', ("a", "b"), [1])
    assert one_line == '{"a": {"b": [1]}}'
    # (the newcomer's finding: init put its key first in a one-line package.json)
    one_line = jsonc.set_value('{"name": "web", "dependencies": {"zod": "^3"}}\n', ("cogtools", "x"), 1)
    assert one_line == '{"name": "web", "dependencies": {"zod": "^3"}, "cogtools": {"x": 1}}\n'


@pytest.mark.parametrize(
    ("text", "path", "reason"),
    [
        ('{"tools": [/* c */]}', ("tools", "allowed"), "`tools` is not an object"),
        ('{"tools": {"allowed": [/* c */ "x"]}}', ("tools", "allowed"), "a comment inside the value of `allowed`"),
        ("[1]", ("a",), "the top level is not an object"),
    ],
)
def test_an_edit_that_would_lose_something_is_refused(text: str, path: tuple[str, ...], reason: str) -> None:
    with pytest.raises(jsonc.CannotEdit, match=reason):
        jsonc.set_value(text, path, ["y"])


def test_duplicate_keys_edit_the_one_json_parse_keeps() -> None:
    new = jsonc.set_value('{"a": 1, "a": 2}', ("a",), 3)
    assert new == '{"a": 1, "a": 3}' and jsonc.loads(new) == {"a": 3}


def _random_value(rng: random.Random, depth: int) -> object:
    kind = rng.randrange(6 if depth < 3 else 3)
    if kind == 0:
        return rng.choice([None, True, False, 0, -1.5, 12])
    if kind == 1 or kind == 2:
        return rng.choice(["", "//", "/* x */", 'q"uote', "ünï"])
    if kind == 3:
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(3))]
    return {rng.choice("abcd"): _random_value(rng, depth + 1) for _ in range(rng.randrange(4))}


def _commented(rng: random.Random, document: object) -> str:
    """``document`` laid out in one of several ways, with comments between its tokens."""
    text = json.dumps(document, indent=rng.choice([None, 2, 4, "\t"]), ensure_ascii=rng.random() < 0.5)
    out = []
    for line in text.split("\n"):
        out.append(line + (rng.choice(["", " // c", " /* c */"]) if line.rstrip().endswith((",", "{", "[")) else ""))
    return rng.choice(["", "// head\n", "/* head */ "]) + "\n".join(out) + rng.choice(["\n", "", " // tail\n"])


def test_edits_of_random_documents_read_back_as_the_document_changed() -> None:
    """Seeded: 400 documents, each laid out and commented at random, one key set in each; the
    result reads as the document with that key set, and every comment survives."""
    rng = random.Random(14)
    for _ in range(400):
        document = {key: _random_value(rng, 1) for key in rng.sample("abcdef", rng.randrange(4))}
        text = _commented(rng, document)
        path = tuple(rng.choice("ab") for _ in range(rng.randrange(1, 3)))
        value = _random_value(rng, 2)
        try:
            new = jsonc.set_value(text, path, value)
        except jsonc.CannotEdit:
            continue
        expected = json.loads(json.dumps(document))
        target = expected
        for key in path[:-1]:
            target = target.setdefault(key, {})
        target[path[-1]] = value
        assert jsonc.loads(new) == expected, (text, path, value, new)
        for comment in ("// c", "/* c */", "head", "tail"):  # never inside a generated string
            assert new.count(comment) == text.count(comment), (text, new)


def test_line_of_a_key_path() -> None:
    text = '{\n  "a": {\n    "b": [\n      1,\n      {"c": 2}\n    ]\n  },\n  // note\n  "d": 3\n}\n'
    assert jsonc.line_of(text, ("a",)) == 2
    assert jsonc.line_of(text, ("a", "b")) == 3
    assert jsonc.line_of(text, ("a", "b", 1)) == 5
    assert jsonc.line_of(text, ("a", "b", 1, "c")) == 5
    assert jsonc.line_of(text, ("d",)) == 9
    assert jsonc.line_of(text, ("x",)) is None and jsonc.line_of(text, ("a", "b", 7)) is None
    assert jsonc.line_of("{not json", ("a",)) is None


def test_a_key_added_to_a_compact_object_written_on_several_lines_comes_last() -> None:
    """The newcomer's finding: ``cogtools init`` in a hand-written package.json put its key first,
    and the old first key on the line of its closing brace (``},"name": "web"``)."""
    text = '{"name": "web", "version": "1.0.0",\n "dependencies": {"zod": "^3"}}\n'
    new = jsonc.set_value(text, ("cogtools", "tool_sources"), ["x"])
    assert new == (
        '{"name": "web", "version": "1.0.0",\n "dependencies": {"zod": "^3"},\n'
        ' "cogtools": {\n  "tool_sources": [\n   "x"\n  ]\n }}\n'
    )
    assert json.loads(new) == {**json.loads(text), "cogtools": {"tool_sources": ["x"]}}
