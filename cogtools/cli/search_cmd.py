"""``cogtools search QUERY``: the project's tools ranked for a request in words."""

from __future__ import annotations

import json

import click

from cogtools.cli.boundary import write_stdout, write_text
from cogtools.cli.common import CONTEXT_SETTINGS, format_option, version_option
from cogtools.load.catalog import load_catalog
from cogtools.services.search import rank


@click.command(
    "search", context_settings=CONTEXT_SETTINGS, short_help="Rank the project's tools for a request in words."
)
@click.argument("query", nargs=-1, required=True)
@click.option(
    "--explain",
    is_flag=True,
    help="Show how each score is made: every matching term, its share and the fields it is in.",
)
@click.option(
    "-n", "--limit", type=click.IntRange(min=1), default=10, show_default=True, help="Show at most this many tools."
)
@format_option("Lines for people, or JSON for programs.")
@version_option()
def command(query: tuple[str, ...], explain: bool, limit: int, fmt: str) -> None:
    """Rank the tools the caller may use (tools marked discoverable included) for QUERY, with
    BM25 over each tool's name, title, description, keywords and example requests, and print the
    best: score, name and the first line of the description."""

    tools = load_catalog().visible()
    hits = rank(tools, " ".join(query))[:limit]
    if fmt == "json":
        document = [
            {
                "name": hit.tool.name,
                "score": round(hit.score, 4),
                "description": hit.tool.summary(),
                "terms": {term: {"score": round(s, 4), "fields": list(f)} for term, (s, f) in hit.explanation.items()},
            }
            for hit in hits
        ]
        write_stdout(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
        return
    if not hits:
        write_text(
            f"no tool matches {' '.join(query)!r} (among {len(tools)} tool{'s' * (len(tools) != 1)}; try other words)\n"
        )
        return
    width = max(len(hit.tool.name) for hit in hits)
    for hit in hits:
        write_text(f"{hit.score:6.2f}  {hit.tool.name:<{width}}  {hit.tool.summary()}\n")
        if explain:
            for term, (score, where) in sorted(hit.explanation.items(), key=lambda item: -item[1][0]):
                write_text(f"        {score:6.2f}  {term} (in {', '.join(where)})\n")
