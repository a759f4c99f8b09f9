"""Ranking the catalog for a query in words: BM25 over a tool's name, title, description,
keywords and example requests (seed 003's discovery mode, seed 000's example requests).

Fields are weighted by repeating their terms (name and keywords count more than prose), terms
are lower-cased words with a light suffix stemmer, and every score can be explained term by term.
"""

from __future__ import annotations

import math
import re
import typing as t

if t.TYPE_CHECKING:
    from cogtools.core.model import Tool

K1 = 1.2
B = 0.75
#: How many times a field's terms count.
FIELD_WEIGHTS = {"name": 3, "keywords": 3, "title": 2, "description": 1, "requests": 1}
STOPWORDS = frozenset(
    "a an and are as at be by do does for from how i in is it me my of on or the this to what when "
    "which with you your can please".split()
)
_WORD = re.compile(r"[a-z0-9]+")


def stem(word: str) -> str:
    for suffix in ("ing", "ies", "ed", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def terms(text: str) -> list[str]:
    return [stem(w) for w in _WORD.findall(text.lower().replace("_", " ")) if w not in STOPWORDS]


def fields(tool: Tool) -> dict[str, list[str]]:
    return {
        "name": terms(tool.name.replace("-", " ").replace(".", " ")),
        "keywords": [term for keyword in tool.metadata.keywords for term in terms(keyword)],
        "title": terms(tool.title or ""),
        "description": terms(tool.description),
        "requests": [term for request in tool.requests for term in terms(request)],
    }


class Hit(t.NamedTuple):
    tool: Tool
    score: float
    #: term -> (its contribution, the fields it was found in)
    explanation: dict[str, tuple[float, tuple[str, ...]]]


def rank(tools: t.Sequence[Tool], query: str) -> list[Hit]:
    """The tools that match ``query`` at all, best first (ties by name)."""
    documents = []
    for tool in tools:
        per_field = fields(tool)
        bag: dict[str, float] = {}
        for field, words in per_field.items():
            for word in words:
                bag[word] = bag.get(word, 0) + FIELD_WEIGHTS[field]
        documents.append((tool, per_field, bag, sum(bag.values())))
    if not documents:
        return []
    average = sum(length for *_, length in documents) / len(documents) or 1.0
    query_terms = list(dict.fromkeys(terms(query)))
    frequency = {term: sum(1 for _, _, bag, _ in documents if term in bag) for term in query_terms}
    hits = []
    for tool, per_field, bag, length in documents:
        explanation = {}
        for term in query_terms:
            tf = bag.get(term, 0.0)
            if not tf:
                continue
            idf = math.log(1 + (len(documents) - frequency[term] + 0.5) / (frequency[term] + 0.5))
            score = idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average))
            explanation[term] = (score, tuple(f for f, words in per_field.items() if term in words))
        if explanation:
            hits.append(Hit(tool, sum(s for s, _ in explanation.values()), explanation))
    return sorted(hits, key=lambda hit: (-hit.score, hit.tool.name))
