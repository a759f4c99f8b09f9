"""Scripts that carry their metadata in a header, and run themselves (kind ``script``)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from cogtools.cli import call, discover
from cogtools.clients.export import export
from cogtools.core.errors import ERROR_TABLE
from cogtools.load.catalog import load_catalog

from .conftest import EXAMPLES, SEEDS, Cli, write
from .test_formats import SEED_000_TOOLS_JSON

STATUS = {code: status for code, status, _ in ERROR_TABLE}


EXAMPLE_PS1 = EXAMPLES / "tools" / "close-program.ps1"


def seed_000_script() -> str:
    """Seed 000's close-program.ps1, as written there (the seeds are beside the checkout)."""
    seed = SEEDS / "000_63c875b81b791d77.txt"
    if not seed.exists():
        pytest.skip(f"the seed documents are not at {SEEDS}")
    return seed.read_text(encoding="utf-8").split("```powershell\n", 1)[1].split("```", 1)[0]


def test_the_example_carries_seed_000s_header_verbatim() -> None:
    header = seed_000_script().split("#>\n", 1)[0] + "#>\n"
    assert EXAMPLE_PS1.read_text(encoding="utf-8").startswith(header)


@pytest.fixture
def close_program(project: Path) -> Path:
    return write(project / "tools" / "close-program.ps1", EXAMPLE_PS1.read_text(encoding="utf-8"))


def test_seed_000_header_loads_exactly_as_written(close_program: Path) -> None:
    tool = load_catalog().get("close-program")
    assert (tool.name, tool.title) == ("close-program", "Close Program")
    assert tool.description == "Finds and gracefully closes a running application's main window and process."
    meta = tool.metadata
    assert (meta.category, meta.risk_level, meta.side_effects, meta.requires_admin) == (
        "ProcessManagement",
        "low",
        ("process",),
        False,
    )
    assert [(p.name, p.required) for p in tool.parameters] == [
        ("ProgramName", True),
        ("FullProgramName", False),
        ("ProgramAliasName", False),
    ]
    assert tool.requests == ("close chrome", "shut down notepad plus plus", "terminate spotify")
    assert tool.implementation.kind == "script"
    assert close_program.read_text().startswith("<#\n.SYNOPSIS\n")  # the help section stays


def test_seed_000_header_exports_to_seed_000_tools_json(close_program: Path) -> None:
    (exported,), _ = export([load_catalog().get("close-program")], "gemini-api")
    (expected,) = [{k: v for k, v in entry.items() if k != "implementation"} for entry in SEED_000_TOOLS_JSON]
    assert exported["name"] == expected["name"] and exported["description"] == expected["description"]
    assert exported["parameters"]["required"] == expected["parameters"]["required"]
    assert {k: v["type"] for k, v in exported["parameters"]["properties"].items()} == {
        k: v["type"] for k, v in expected["parameters"]["properties"].items()
    }
    # The catalog's descriptions quote with ' where the header quotes with ": the same words.
    for name, schema in expected["parameters"]["properties"].items():
        assert exported["parameters"]["properties"][name]["description"].replace('"', "'") == schema["description"]


def stand_in_pwsh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A `pwsh`, first on PATH, that prints its argv and stdin as a line of JSON, then "closed"
    (to stdout: the tool declares no filesystem_write, so it runs where it can write nothing)."""
    write(
        tmp_path / "bin" / "pwsh",
        f"#!{sys.executable}\nimport json, sys\n"
        "print(json.dumps({'argv': sys.argv[1:], 'stdin': sys.stdin.read()}))\n"
        "print('closed')\n",
        mode=0o755,
    )
    monkeypatch.setenv("PATH", os.pathsep.join([str(tmp_path / "bin"), os.environ["PATH"]]))


def test_powershell_gets_named_parameters_and_the_json(
    close_program: Path, cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stand_in_pwsh(tmp_path, monkeypatch)
    arguments = {"ProgramName": "chrome", "FullProgramName": "Google Chrome; Stop-Computer"}
    result = cli(call.main, "close-program", stdin=json.dumps(arguments))
    assert result.stdout.count("\n") == 2, result
    record, closed = result.stdout.splitlines()
    assert (result.status, closed, result.stderr) == (0, "closed", "")
    seen = json.loads(record)
    assert seen["argv"] == [
        "-NoProfile",
        "-NonInteractive",
        "-File",
        str(close_program),
        "-ProgramName",
        "chrome",
        "-FullProgramName",
        "Google Chrome; Stop-Computer",
    ]
    assert json.loads(seen["stdin"]) == arguments


def test_powershell_booleans_and_numbers(
    project: Path, cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stand_in_pwsh(tmp_path, monkeypatch)
    write(
        project / "tools" / "flags.ps1",
        "<#\n.SYNOPSIS\n\tFlags.\n\ndescription: Flags.\nparameters:\n  - {name: Force, type: bool, description: f, required: true}\n"
        "  - {name: Count, type: int, description: c, required: true}\n#>\nparam([bool]$Force, [int]$Count)\n",
    )
    result = cli(call.main, "flags", stdin='{"Force": true, "Count": 3}')
    assert result.status == 0
    assert json.loads(result.stdout.splitlines()[0])["argv"][-3:] == ["-Force:$true", "-Count", "3"]


def test_shell_script_reads_environment_and_stdin(project: Path, cli: Cli) -> None:
    write(
        project / "tools" / "greet.sh",
        "#!/bin/sh\n# A greeting.\n# cogtools-tool\n# description: Greet.\n# parameters:\n#   who: {type: string}\n#   times: {type: integer, optional: true}\n"
        'set -eu\nprintf "%s|%s|" "$COGTOOLS_ARG_WHO" "${COGTOOLS_ARG_TIMES:-none}"\ncat\n',
    )
    value = "$(touch pwned) `id` -x"
    result = cli(call.main, "greet", stdin=json.dumps({"who": value, "times": 2}))
    assert result.status == 0 and result.stderr == ""
    who, times, stdin = result.stdout.split("|", 2)
    assert (who, times, json.loads(stdin)) == (value, "2", {"who": value, "times": 2})
    assert not (project / "pwned").exists()


def test_python_script_without_a_shebang_runs_by_its_suffix(project: Path, cli: Cli) -> None:
    write(
        project / "tools" / "add.py",
        '"""Adds."""\n# cogtools-tool\n# description: Add two numbers.\n# parameters:\n#   a: {type: number}\n#   b: {type: number}\n'
        "import json, sys\nargs = json.load(sys.stdin)\nprint(args['a'] + args['b'])\n",
    )
    assert cli(call.main, "add", stdin='{"a": 2, "b": 3.5}') == (0, "5.5\n", "")


def test_scripts_without_a_header_are_skipped_quietly(project: Path, cli: Cli) -> None:
    write(project / "tools" / "helper.sh", "#!/bin/sh\n# just a helper\necho hi\n")
    write(project / "tools" / "util.py", "print('no header')\n")
    write(project / "tools" / "profile.ps1", "<#\n.SYNOPSIS\n\tOnly help.\n#>\n")
    result = cli(discover.main)
    assert result == (0, "[]\n", "")


def test_a_missing_interpreter(project: Path, cli: Cli) -> None:
    write(project / "tools" / "odd.sh", "#!/no/such/interpreter\n# cogtools-tool\n# description: Odd.\n")
    result = cli(call.main, "odd")
    assert result.status == STATUS["EXECUTION_FAILED"]
    assert "cannot run '/no/such/interpreter'" in json.loads(result.stdout)["error"]["message"]


def test_a_broken_header_points_at_the_files_line(project: Path, cli: Cli) -> None:
    write(project / "tools" / "bad.sh", "#!/bin/sh\n# cogtools-tool\n# description: ok\n# descripton: typo\necho\n")
    result = cli(discover.main)
    assert "tools/bad.sh:4: descripton: unknown key 'descripton'" in result.stderr
    write(project / "tools" / "bad.sh", "#!/bin/sh\n# cogtools-tool\n# description: [unclosed\necho\n")
    assert "tools/bad.sh:4:" in cli(discover.main).stderr


def test_script_limits_from_its_header(project: Path, cli: Cli) -> None:
    write(
        project / "tools" / "slow.sh",
        "#!/bin/sh\n# cogtools-tool\n# description: Slow.\n# implementation: {kind: script, timeout: 0.2}\nsleep 30\n",
    )
    assert cli(call.main, "slow").status == STATUS["TIMEOUT"]


def test_script_success_statuses_and_empty_result_from_its_header(project: Path, cli: Cli) -> None:
    header = "#!/bin/sh\n# cogtools-tool\n# description: Look.\n# implementation: {kind: script, success_exit_status: [3], empty_result: None.}\n"
    write(project / "tools" / "look.sh", header + "exit 3\n")
    assert cli(call.main, "look") == (0, "None.", "")
    write(project / "tools" / "look.sh", header.replace("[3]", "[0]") + "exit 3\n")
    assert cli(call.main, "look").status == STATUS["DEFINITION_INVALID"]


def test_a_root_script_needs_the_marker(project: Path) -> None:
    write(project / "root.ps1", EXAMPLE_PS1.read_text(encoding="utf-8"))  # seed 000's header has no marker
    write(project / "marked.sh", "#!/bin/sh\n# cogtools-tool\n# description: Marked.\necho\n")
    assert list(load_catalog().tools) == ["marked"]


def test_the_real_pwsh_when_installed(close_program: Path, cli: Cli) -> None:
    import shutil

    if shutil.which("pwsh") is None:
        pytest.skip("PowerShell (pwsh) is not installed; the stand-in test covers the argv")
    result = cli(call.main, "close-program", stdin='{"ProgramName": "no-such-program-xyz"}')
    assert result == (0, "no-such-program-xyz is not running.\n", "")


COUNT_DEPS = """\
// cogtools-tool
// description: Count a package's dependencies.
// parameters:
//   file: {type: string, description: the package.json to read}
// side_effects: [filesystem_read]
//
// (prose after a bare comment line is not the header)
import { readFileSync } from "node:fs";
const args = JSON.parse(readFileSync(0, "utf8"));
const pkg = JSON.parse(readFileSync(process.env.COGTOOLS_ARG_FILE, "utf8"));
console.log(`${Object.keys(pkg.dependencies ?? {}).length} ${args.file}`);
"""


@pytest.mark.parametrize("suffix", [".mjs", ".js", ".cjs"])
def test_javascript_tools_run_with_node(project: Path, cli: Cli, suffix: str) -> None:
    import shutil

    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    source = COUNT_DEPS
    if suffix != ".mjs":  # CommonJS
        source = source.replace(
            'import { readFileSync } from "node:fs";', 'const { readFileSync } = require("node:fs");'
        )
    write(project / "tools" / f"count_deps{suffix}", source)
    write(project / "package.json", '{"dependencies": {"a": "1", "b": "2"}}')
    tool = load_catalog().get("count_deps")
    assert tool.implementation.spec["interpreter"] == ["node"]
    assert [p.name for p in tool.parameters] == ["file"]
    assert cli(call.main, "count_deps", stdin='{"file": "package.json"}') == (0, "2 package.json\n", "")


@pytest.mark.slow  # the first run installs a Node.js that strips types (the machine's may not)
def test_a_typescript_tool_runs_where_node_strips_types(
    project: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cogtools.services.lint import lint_tool

    from .npm_packages import node_binary
    from .test_mcp_conformance import NODE_VERSION

    write(
        project / "tools" / "shout.ts",
        "// cogtools-tool\n// description: Shout.\n// parameters:\n//   text: {type: string, description: what to shout}\n"
        "// side_effects: []\n\nconst text: string = process.env.COGTOOLS_ARG_TEXT ?? '';\nconsole.log(text.toUpperCase());\n",
    )
    node = node_binary(NODE_VERSION, "COGTOOLS_NODE_DIR")
    monkeypatch.setenv("PATH", f"{node.parent}{os.pathsep}{os.environ['PATH']}")
    assert cli(call.main, "shout", stdin='{"text": "hi"}') == (0, "HI\n", "")
    assert not [f for f in lint_tool(load_catalog().get("shout")) if f.rule == "typescript-unsupported"]


def test_lint_says_when_node_cannot_run_typescript(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cogtools.services.lint import lint_tool

    bin_dir = project / "old-node"
    write(bin_dir / "node", "#!/bin/sh\necho v20.1.0\n", mode=0o755)
    write(
        project / "tools" / "shout.ts",
        "// cogtools-tool\n// description: Shout.\n// side_effects: []\nconsole.log(1);\n",
    )
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    found = {f.rule: f.message for f in lint_tool(load_catalog().get("shout"))}
    assert "the node on PATH is 20.1.0, which cannot run TypeScript" in found["typescript-unsupported"]


def test_a_root_javascript_file_needs_the_marker(project: Path) -> None:
    write(project / "eslint.config.mjs", "// the linter's config\nexport default [];\n")
    write(project / "marked.mjs", "// cogtools-tool\n// description: Marked.\nconsole.log(1);\n")
    assert list(load_catalog().tools) == ["marked"]


def test_an_unknown_suffix_names_the_accepted_ones(project: Path, cli: Cli) -> None:
    from cogtools.cli import porcelain

    write(project / "tools" / "count.rb", "# cogtools-tool\n# description: Ruby.\n")
    result = cli(porcelain.main, "lint", "tools/count.rb")
    assert result.status != 0
    assert (
        "its suffix '.rb' is none of .yaml, .yml, .toml, .json, .ps1, .sh, .bash, .py, .js, .mjs"
        in result.stdout + result.stderr
    )


def test_a_pinned_javascript_tools_modules_are_covered_by_its_pin(project: Path, cli: Cli) -> None:
    """The attacker's pass: a pinned .mjs tool imports ./lib/words.mjs; rewriting that module
    after the pin must refuse the call, as rewriting the script itself does."""
    import shutil

    from cogtools.cli import porcelain

    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    write(
        project / "tools" / "greet.mjs",
        "// cogtools-tool\n// description: Greet.\n// side_effects: [filesystem_read]\n// risk_level: low\n//\n"
        'import { hello } from "./lib/words.mjs";\nconsole.log(hello);\n',
    )
    write(project / "tools" / "lib" / "words.mjs", 'export const hello = "hello";\n')
    write(project / "tools" / "lib" / "node_modules" / "x" / "index.js", "// not the tool's own\n")
    write(project / ".gemini" / "settings.json", "{}\n")
    assert cli(porcelain.main, "sync", "--yes").status == 0
    assert cli(call.main, "greet") == (0, "hello\n", "")
    write(project / "tools" / "lib" / "words.mjs", 'export const hello = "MODIFIED";\n')
    refused = cli(call.main, "greet")
    assert refused.status == STATUS["POLICY_DENIED"] and "MODIFIED" not in refused.stdout
    assert "changed" in json.loads(refused.stdout)["error"]["message"]
