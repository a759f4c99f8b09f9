"""``cogtools audit [verify] FILE``: read an audit log (:mod:`cogtools.services.audit`), or check
its chain."""

from __future__ import annotations

import json
import typing as t

import click

from cogtools.cli.boundary import write_stdout, write_text
from cogtools.cli.common import CONTEXT_SETTINGS, version_option
from cogtools.core.errors import UsageError
from cogtools.services import audit

#: The exit status of ``verify`` when the chain breaks.
EXIT_BROKEN = 1
#: The table's columns: heading, width (the last takes what is left).
COLUMNS = (("TIME", 24), ("SUB", 16), ("CLIENT", 22), ("TOOL", 24), ("DECISION", 26), ("STATUS", 17), ("MS", 0))


@click.command("audit", context_settings=CONTEXT_SETTINGS, short_help="Read an audit log, or check that it is whole.")
@click.argument("args", nargs=-1, metavar="[verify] FILE")
@click.option("--tool", metavar="NAME", help="Only the calls of this tool (a glob: 'git_*').")
@click.option("--sub", metavar="SUB", help="Only the calls of this caller (the access token's subject).")
@click.option(
    "--since",
    metavar="WHEN",
    help="Only the calls from this time on: 2026-11-28T16:00:00Z, a date, or an age (30m, 2h, 7d).",
)
@click.option("--status", metavar="STATUS", help="Only the calls that ended so: ok, or an error code (POLICY_DENIED).")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="JSON for a program: the records as JSON lines; verify's verdict as one object.",
)
@version_option()
def command(
    args: tuple[str, ...], tool: str | None, sub: str | None, since: str | None, status: str | None, as_json: bool
) -> int:
    """Show the calls an audit log holds (cogtools mcp --audit-log FILE, cogtools-call --audit-log
    FILE, or the audit.log setting of your configuration): a line a call, for a person, or with
    --json the records themselves, one JSON object a line. --tool, --sub, --since and --status
    keep only the calls they match (all of them).

    cogtools audit verify FILE checks the chain: every line must name the SHA-256 of the line
    before it (the first line, 64 zeros), so a line removed or edited breaks the chain at the
    line after it. It prints the number of lines and the hash of the last one (the head: keep it
    elsewhere, to tell later that nothing was cut off the end), or each line where the chain
    breaks.

    The exit status of verify is 0 when the chain is whole, 1 when it breaks. A file that is not
    an audit log is INVALID_INPUT (exit status 4) naming the first line that is not a record;
    the file is read a line at a time, whatever its size.

    \b
    Examples:
      cogtools audit --since 1h --status POLICY_DENIED /var/log/cogtools/audit.jsonl
      cogtools audit verify /var/log/cogtools/audit.jsonl
    """
    if len(args) == 2 and args[0] == "verify":
        if tool or sub or since or status:
            raise UsageError(
                "verify checks the whole log: --tool, --sub, --since and --status go with cogtools audit FILE"
            )
        return _verify(args[1], as_json)
    if len(args) != 1:
        raise UsageError("give one audit log: cogtools audit FILE, or cogtools audit verify FILE")
    filters = audit.Filters(tool, sub, audit.since(since) if since else None, status)
    if as_json:
        for record in audit.records(args[0], filters):
            write_stdout(json.dumps(record, ensure_ascii=False) + "\n")
        return 0
    heading = _row([heading for heading, _ in COLUMNS])
    for record in audit.records(args[0], filters):
        write_text(heading + _row(_cells(record)))  # (the heading once the file reads as a log)
        heading = ""
    write_text(heading)
    return 0


def _cells(record: t.Mapping[str, t.Any]) -> list[str]:
    client = record.get("client")
    if isinstance(client, dict):
        client = "/".join(str(client[key]) for key in ("name", "version") if client.get(key))
    decision = str(record.get("decision", ""))
    if record.get("why"):
        decision += f" ({record['why']})"
    return [
        str(record.get("time", "")),
        str(record.get("sub") or "-"),
        str(client or "-"),
        str(record.get("tool", "")),
        decision,
        str(record.get("status", "")),
        str(record.get("ms", "")),
    ]


def _row(cells: list[str]) -> str:
    out = []
    for (_, width), cell in zip(COLUMNS, cells, strict=True):
        if width and len(cell) > width:
            cell = cell[: width - 1] + "…"
        out.append(cell.ljust(width) if width else cell)
    return "  ".join(out).rstrip() + "\n"


def _verify(path: str, as_json: bool) -> int:
    verdict = audit.verify(path)
    if as_json:
        breaks = [{"line": number, "problem": problem} for number, problem in verdict.breaks]
        document = {"whole": not verdict.broken, "lines": verdict.lines, "head": verdict.head, "breaks": breaks}
        write_stdout(json.dumps(document) + "\n")
    elif not verdict.broken:
        write_text(f"{path}: whole, {verdict.lines} line{'s' * (verdict.lines != 1)}, head {verdict.head}\n")
    else:
        write_text("".join(f"{path}:{number}: {problem}\n" for number, problem in verdict.breaks))
        more = verdict.broken - len(verdict.breaks)
        write_text(
            (f"... and {more} more\n" if more else "")
            + f"{path}: broken in {verdict.broken} place{'s' * (verdict.broken != 1)} of {verdict.lines} lines\n"
        )
    return EXIT_BROKEN if verdict.broken else 0
