"""``cogtools search``: BM25 ranking, checked on a fixture catalog of realistic tools."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cogtools.cli import porcelain
from cogtools.core.model import Implementation, Metadata, Origin, Tool
from cogtools.services.search import rank, stem, terms

from .conftest import Cli, write
from .search_catalog import PARAPHRASES, QUERIES, TOOLS

CATALOG = [
    Tool(
        name,
        description,
        Implementation("template", {"template": "x"}),
        Origin(f"{name}.yaml", "yaml"),
        requests=tuple(requests),
        metadata=Metadata(keywords=tuple(keywords)),
    )
    for name, description, keywords, requests in TOOLS
]


def hit_rates() -> tuple[float, float]:
    """The share of all queries (paraphrases included) whose expected tool comes first, and in
    the top three."""
    everything = QUERIES + PARAPHRASES
    first = top3 = 0
    for query, expected in everything:
        names = [hit.tool.name for hit in rank(CATALOG, query)]
        first += names[:1] == [expected]
        top3 += expected in names[:3]
    return first / len(everything), top3 / len(everything)


def test_the_fixture_is_big_enough() -> None:
    assert len(CATALOG) >= 40 and len(QUERIES) >= 15


def test_hit_rate_on_the_fixture_catalog() -> None:
    at1, at3 = hit_rates()
    print(
        f"search hit rate: {at1:.0%} first, {at3:.0%} in the top 3 ({len(QUERIES) + len(PARAPHRASES)} queries, {len(CATALOG)} tools)"
    )
    assert at1 >= 0.8 and at3 >= 0.8


@pytest.mark.parametrize(("query", "expected"), QUERIES)
def test_expected_tool_first(query: str, expected: str) -> None:
    assert [hit.tool.name for hit in rank(CATALOG, query)][:1] == [expected]


@pytest.mark.parametrize(("query", "expected"), PARAPHRASES)
@pytest.mark.xfail(reason="no word in common with the tool: BM25 knows no synonyms", strict=True)
def test_paraphrases_are_known_misses(query: str, expected: str) -> None:
    assert expected in [hit.tool.name for hit in rank(CATALOG, query)][:3]


def test_terms_and_stemming() -> None:
    assert terms("How do I restart the Services?") == ["restart", "service"]
    assert stem("files") == "file" and stem("batteries") == "battery" and stem("running") == "runn"


def test_explanations_add_up() -> None:
    (best, *_) = rank(CATALOG, "restart the print spooler service")
    assert best.tool.name == "restart_whitelisted_service"
    assert abs(best.score - sum(s for s, _ in best.explanation.values())) < 1e-9
    assert best.explanation["spooler"][1] == ("keywords", "description", "requests")


def test_no_match_is_no_hit() -> None:
    assert rank(CATALOG, "zzyzx") == [] and rank([], "anything") == []


def test_the_command(project: Path, cli: Cli) -> None:
    write(
        project / "tools" / "uptime.yaml",
        "description: Show how long the system has been running.\nkeywords: [uptime, boot]\nimplementation: x\nexamples: ['when did it last boot']\n",
    )
    write(project / "tools" / "disk.yaml", "description: Show free disk space.\nkeywords: [disk]\nimplementation: x\n")
    text = cli(porcelain.main, "search", "last", "boot", "--explain").stdout.splitlines()
    assert text[0].split()[1] == "uptime" and "boot (in keywords, requests)" in text[1]
    document = json.loads(cli(porcelain.main, "search", "--format", "json", "disk").stdout)
    assert [d["name"] for d in document] == ["disk"] and document[0]["terms"]["disk"]["fields"] == [
        "name",
        "keywords",
        "description",
    ]
    assert cli(porcelain.main, "search").status == 2
