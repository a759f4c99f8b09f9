"""``cogtools show NAME`` (one tool whole) and ``cogtools list --format json``."""

from __future__ import annotations

import json
from pathlib import Path

from cogtools.cli import porcelain

from .conftest import Cli, write

SHELL_TOOL = """\
description: |
  Count lines.

  Counts the lines of a file.
parameters:
  file: {type: string, description: the file}
implementation: {kind: command, argv: [wc, -l, --, '{{ file }}']}
side_effects: [filesystem_read]
risk_level: low
environment: [LANG]
examples:
  - file: README.md
"""


def test_show_tells_a_tool_whole(project: Path, cli: Cli) -> None:
    write(project / "tools" / "count.yaml", SHELL_TOOL)
    write(project / "more" / "count.yaml", SHELL_TOOL.replace("Count lines.", "Another count."))
    write(project / ".cogtoolrc.yaml", "tool_sources:\n  - local: ./tools\n  - local: ./more\n")
    result = cli(porcelain.main, "show", "count")
    assert result.status == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:3] == [
        "name:        count",
        "file:        tools/count.yaml (local:./tools, yaml)",
        "shadows:     more/count.yaml (local:./more)",
    ]
    facts = dict(line.split(":", 1) for line in lines if line and not line.startswith(" ") and ":" in line)
    assert facts["runs"].strip() == "command: wc -l -- '{{ file }}'"
    assert facts["risk"].strip() == "low, side effects filesystem_read, diagnostic tool"
    assert facts["pin"].strip() == "not pinned: Gemini CLI asks before it runs"
    assert facts["environment"].strip() == "LANG"
    assert "  Counts the lines of a file." in lines
    schema = json.loads("\n".join(lines[lines.index("parameters (JSON Schema):") + 1 :]))
    assert schema["properties"]["file"] == {"type": "string", "description": "the file"}


def test_show_as_json_and_in_a_clients_dialect(project: Path, cli: Cli) -> None:
    write(project / "tools" / "count.yaml", SHELL_TOOL)
    shown = json.loads(cli(porcelain.main, "show", "count", "--format", "json").stdout)
    assert (shown["name"], shown["kind"], shown["risk_level"], shown["side_effects"]) == (
        "count",
        "command",
        "low",
        ["filesystem_read"],
    )
    assert shown["pin"] == {"pinned": False, "pinned_file": None, "pinned_sha256": None, "refused": None}
    assert shown["visible"] is True and shown["examples"] == 1
    for dialect, key in (("openai", "function"), ("mcp", "inputSchema"), ("gemini-cli", "parametersJsonSchema")):
        declared = json.loads(cli(porcelain.main, "show", "count", "--format", dialect).stdout)
        assert key in declared


def test_show_says_a_pinned_tool_and_a_changed_one(project: Path, cli: Cli) -> None:
    write(project / "tools" / "count.yaml", SHELL_TOOL)
    write(project / ".gemini" / "settings.json", "{}\n")
    assert cli(porcelain.main, "sync", "--yes").status == 0
    pin = json.loads(cli(porcelain.main, "show", "count", "--format", "json").stdout)["pin"]
    assert pin["pinned"] and pin["pinned_file"] == "tools/count.yaml" and pin["refused"] is None
    write(project / "tools" / "count.yaml", SHELL_TOOL.replace("wc, -l", "wc, -c"))
    shown = cli(porcelain.main, "show", "count").stdout
    assert "pin:" in shown and "refused:" in shown and "cogtools sync" in shown


def test_show_of_a_tool_there_is_not(project: Path, cli: Cli) -> None:
    write(project / "tools" / "count.yaml", SHELL_TOOL)
    result = cli(porcelain.main, "show", "cuont")
    assert result.status != 0 and "TOOL_NOT_FOUND" in result.stderr and "count" in result.stderr
    assert cli(porcelain.main, "show", "count", "--format", "yaml").status == 2


def test_list_as_json(project: Path, cli: Cli) -> None:
    write(project / "tools" / "count.yaml", SHELL_TOOL)
    write(project / "tools" / "hello.yaml", "description: Say hello.\nimplementation: hello\n")
    write(project / "more" / "hello.yaml", "description: Another hello.\nimplementation: hi\n")
    write(project / ".cogtoolrc.yaml", "tool_sources:\n  - local: ./tools\n  - local: ./more\n")
    listed = json.loads(cli(porcelain.main, "list", "--format", "json").stdout)
    assert [(e["name"], e["file"], e["confined"]) for e in listed] == [
        ("count", "tools/count.yaml", True),
        ("hello", "tools/hello.yaml", None),
    ]
    everything = json.loads(cli(porcelain.main, "list", "--all", "--format", "json").stdout)
    assert [(e["name"], e["shadowed_by"]) for e in everything] == [
        ("count", None),
        ("hello", None),
        ("hello", "tools/hello.yaml"),
    ]


def test_list_fits_a_terminal_and_gives_a_pipe_everything(project: Path) -> None:
    import subprocess

    from .conftest import BIN
    from .test_colour import on_a_terminal

    long = "Count the lines of a file, and say so at some length. " * 4
    write(project / "tools" / "count.yaml", SHELL_TOOL.replace("Count lines.", long.strip()))
    shown = on_a_terminal([str(BIN / "cogtools"), "list"], project, COLUMNS="80").splitlines()
    assert (
        len(shown) == 1 and len(shown[0]) <= 80 and "…" in shown[0] and shown[0].endswith("(local:./tools, confined)")
    )
    piped = subprocess.run([str(BIN / "cogtools"), "list"], capture_output=True, text=True, cwd=project).stdout
    assert long.strip() in piped
