"""End to end against the whole Gemini CLI: the real ``gemini`` binary (@google/gemini-cli from
npm, pinned beside the core), headless (``-p PROMPT -o json``), with a scripted model.

The binary's hidden ``--fake-responses-non-strict FILE`` replays canned model responses (JSON
lines, ``{"method": "generateContentStream", "response": [GenerateContentResponse...]}``), so a
test plays a model that calls ``discovered_tool_*`` tools and then answers in text: no network,
no key. Everything between the two is Gemini CLI's own: settings loading, folder trust,
headless policy (``tools.allowed``), discovery, ajv validation and the spawn of the call
command. What the model received back is read from the session log under the isolated HOME.

Each test makes its project the way a person would (``cogtools init`` as a subprocess) in its own
HOME. The package is installed once per pinned version, outside the clone, under a lock, marked
complete only after npm succeeded (:mod:`tests.npm_packages`).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import typing as t
from pathlib import Path

import pytest

from cogtools.clients.gemini.rules import policy_file, read_rules

from .conftest import BIN, write
from .npm_packages import npm_package, package_dir
from .test_gemini_cli import GEMINI_CORE_VERSION
from .test_gemini_policy import root_owned, rules_file  # noqa: F401 (root_owned: a fixture)

pytestmark = pytest.mark.e2e

#: The CLI of the same release as the core the other end-to-end tests drive.
GEMINI_CLI_VERSION = GEMINI_CORE_VERSION


@pytest.fixture(scope="session")
def gemini() -> Path:
    directory = package_dir("gemini-cli", GEMINI_CLI_VERSION, "COGTOOLS_GEMINI_CLI_DIR")
    return npm_package("@google/gemini-cli", GEMINI_CLI_VERSION, directory) / "node_modules" / ".bin" / "gemini"


#: PATH with cogtools on it, and the system's node.
PATH_WITH_COGTOOLS = os.pathsep.join([str(BIN), "/usr/local/bin", "/usr/bin", "/bin"])
#: PATH as a person has it whose virtual environment is not activated.
PATH_WITHOUT_COGTOOLS = os.pathsep.join(["/usr/local/bin", "/usr/bin", "/bin"])


def environment(path: str = PATH_WITH_COGTOOLS, **extra: str) -> dict[str, str]:
    """The test's isolated HOME (set by conftest) and the XDG directories, a dummy key."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("GEMINI_", "GOOGLE_"))}
    return {**env, "PATH": path, "GEMINI_API_KEY": "not-a-key", "NO_COLOR": "1", **extra}


def init(root: Path, path: str = PATH_WITH_COGTOOLS, *argv: str) -> str:
    root.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [str(BIN / "cogtools"), "init", "--non-interactive", *argv],
        cwd=root,
        env=environment(path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def trust(root: Path) -> None:
    write(Path(os.environ["HOME"]) / ".gemini" / "trustedFolders.json", json.dumps({str(root): "TRUST_FOLDER"}))


def call(tool: str, **args: t.Any) -> dict[str, t.Any]:
    return {"functionCall": {"name": f"discovered_tool_{tool}", "args": args}}


def text(words: str) -> dict[str, t.Any]:
    return {"text": words}


#: The model router asks the utility model (generateContent) to rate the request.
_ROUTER = {"complexity_reasoning": "a scripted test", "complexity_score": 10}


def script(*turns: list[dict[str, t.Any]]) -> str:
    """The fake-responses file: one streamed model turn per item of ``turns``."""
    lines: list[dict[str, t.Any]] = [
        {
            "method": "generateContent",
            "response": {
                "candidates": [
                    {"content": {"role": "model", "parts": [text(json.dumps(_ROUTER))]}, "finishReason": "STOP"}
                ]
            },
        }
    ]
    lines += [
        {
            "method": "generateContentStream",
            "response": [{"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}]}],
        }
        for parts in turns
    ]
    return "".join(json.dumps(line) + "\n" for line in lines)


class Session(t.NamedTuple):
    status: int
    #: The ``-o json`` document (None when the CLI did not get that far).
    output: dict[str, t.Any] | None
    stderr: str
    #: What the model received for each tool call, in order: (tool name, response object).
    responses: list[tuple[str, dict[str, t.Any]]]

    def by_name(self) -> dict[str, dict[str, t.Any]]:
        assert self.output is not None, self.stderr[-3000:]
        return t.cast("dict[str, dict[str, t.Any]]", self.output["stats"]["tools"]["byName"])


def run_gemini(
    gemini: Path,
    root: Path,
    turns: t.Sequence[list[dict[str, t.Any]]],
    *argv: str,
    path: str = PATH_WITH_COGTOOLS,
    **env: str,
) -> Session:
    responses_file = root.parent / f"{root.name}-model.jsonl"
    responses_file.write_text(script(*turns))
    proc = subprocess.run(
        [str(gemini), "-p", "Use the tools.", "-o", "json", "--fake-responses-non-strict", str(responses_file), *argv],
        cwd=root,
        env=environment(path, **env),
        capture_output=True,
        text=True,
        timeout=300,
    )
    try:
        output = json.loads(proc.stdout)
    except ValueError:
        output = None
    return Session(proc.returncode, output, proc.stderr, _responses(Path(os.environ["HOME"])))


def _responses(home: Path) -> list[tuple[str, dict[str, t.Any]]]:
    found = []
    for log in sorted((home / ".gemini" / "tmp").glob("*/chats/session-*.jsonl")):
        for line in log.read_text().splitlines():
            message = json.loads(line)
            if message.get("type") == "user" and isinstance(message.get("content"), list):
                for part in message["content"]:
                    if "functionResponse" in part:
                        found.append((part["functionResponse"]["name"], part["functionResponse"]["response"]))
    return found


DIVIDE = """\
description: Divide 100 by n.
parameters:
  n: {type: integer, description: The divisor.}
risk_level: low
side_effects: []
implementation: "{{ 100 // n }}"
"""

WRITE = """\
description: Write a note into notes.txt.
parameters:
  note: {type: string}
risk_level: medium
side_effects: [filesystem_write]
implementation:
  kind: command
  argv: [sh, -c, 'echo "$1" >> notes.txt', sh, "{{ note }}"]
"""


def test_init_then_a_scripted_call_succeeds(gemini: Path, tmp_path: Path) -> None:
    root = tmp_path / "project"
    init(root)
    trust(root)
    session = run_gemini(gemini, root, [[call("hello", who="Ada", times=2)], [text("Greeted.")]])
    assert session.status == 0, session.stderr[-3000:]
    assert session.output is not None and session.output["response"] == "Greeted."
    assert session.by_name()["discovered_tool_hello"]["success"] == 1
    assert session.responses == [("discovered_tool_hello", {"output": "Hello, Ada!\nHello, Ada!\n"})]


def test_a_failing_call_gives_the_model_the_json_error(gemini: Path, tmp_path: Path) -> None:
    root = tmp_path / "project"
    init(root)
    write(root / "tools" / "divide.yaml", DIVIDE)
    init(root, PATH_WITH_COGTOOLS, "--yes")  # again: divide is a diagnostic tool, allowed (--yes) and pinned now
    trust(root)
    session = run_gemini(gemini, root, [[call("divide", n=0)], [text("It failed.")]])
    assert session.status == 0, session.stderr[-3000:]
    assert session.by_name()["discovered_tool_divide"]["fail"] == 1
    [(name, response)] = session.responses
    received = response["error"]
    assert received.startswith("Stdout: ")
    error = json.loads(received[len("Stdout: ") :].split("\n\nStderr:")[0])["error"]
    assert error["code"] == "RENDER_FAILED" and error["tool"] == "divide"


def test_headless_policy_runs_a_diagnostic_tool_and_hides_an_action_tool(gemini: Path, tmp_path: Path) -> None:
    root = tmp_path / "project"
    init(root)
    write(root / "tools" / "write_note.yaml", WRITE)
    init(root)
    trust(root)
    allowed = [rule.tool for rule in read_rules(policy_file(root, os.environ))]  # in the user's ~/.gemini/policies
    assert "discovered_tool_hello" in allowed and "discovered_tool_write_note" not in allowed
    assert "allowed" not in json.loads((root / ".gemini" / "settings.json").read_text())["tools"]
    session = run_gemini(gemini, root, [[call("hello", who="Ada"), call("write_note", note="hi")], [text("Done.")]])
    assert session.status == 0, session.stderr[-3000:]
    responses = dict(session.responses)
    assert responses["discovered_tool_hello"] == {"output": "Hello, Ada!\n"}
    assert 'Tool "discovered_tool_write_note" not found' in responses["discovered_tool_write_note"]["error"]
    assert not (root / "notes.txt").exists()


def test_discovery_mode_meta_tools(gemini: Path, tmp_path: Path) -> None:
    root = tmp_path / "project"
    init(root)
    config = root / ".cogtoolrc.yaml"
    config.write_text(config.read_text() + "discovery_mode: true\n")
    write(root / "tools" / "divide.yaml", DIVIDE + "discoverable: true\nkeywords: [divide, division]\n")
    init(root)
    trust(root)
    turns = [
        [call("cogtools_search", query="divide a hundred")],
        [call("cogtools_call", name="divide", arguments={"n": 4})],
        [text("25.")],
    ]
    session = run_gemini(gemini, root, turns, "--approval-mode", "yolo")
    assert session.status == 0, session.stderr[-3000:]
    [(search, found), (calling, result)] = session.responses
    assert search == "discovered_tool_cogtools_search"
    assert json.loads(found["output"])["tools"][0]["name"] == "divide"
    assert calling == "discovered_tool_cogtools_call" and result == {"output": "25"}
    assert "discovered_tool_divide" not in session.by_name()


def test_an_untrusted_folder_never_runs_discovery(gemini: Path, tmp_path: Path) -> None:
    root = tmp_path / "project"
    init(root)
    marker = tmp_path / "discovery-ran"
    wrapper = write(
        tmp_path / "discover-and-mark",
        f"#!/bin/sh\ntouch {shlex.quote(str(marker))}\nexec cogtools-discover\n",
        mode=0o755,
    )
    settings = root / ".gemini" / "settings.json"
    settings.write_text(settings.read_text().replace('"cogtools-discover"', json.dumps(str(wrapper))))
    turns = [[call("hello", who="Ada")], [text("Done.")]]
    session = run_gemini(gemini, root, turns)
    assert session.status != 0 and "not running in a trusted directory" in session.stderr
    assert not marker.exists()
    doctor = subprocess.run(
        [str(BIN / "cogtools"), "doctor"], cwd=root, env=environment(), capture_output=True, text=True, timeout=120
    )
    assert doctor.returncode == 1 and f'add "{root}": "TRUST_FOLDER"' in doctor.stdout
    trust(root)
    session = run_gemini(gemini, root, turns)
    assert session.status == 0 and marker.exists(), session.stderr[-3000:]


def test_a_typo_in_the_configuration_reaches_the_session(gemini: Path, tmp_path: Path) -> None:
    """Gemini CLI still starts, and the model can learn (and tell) what is broken."""
    root = tmp_path / "project"
    init(root)
    trust(root)
    config = root / ".cogtoolrc.yaml"
    config.write_text(config.read_text().replace("tool_sources:", "tool_source:"))
    turns = [[call("hello", who="Ada"), call("cogtools_problems")], [text("The configuration has a typo.")]]
    session = run_gemini(gemini, root, turns)
    assert session.status == 0, session.stderr[-3000:]
    responses = dict(session.responses)
    assert 'Tool "discovered_tool_hello" not found' in responses["discovered_tool_hello"]["error"]
    report = json.loads(responses["discovered_tool_cogtools_problems"]["output"])
    assert "did you mean 'tool_sources'" in report["problems"][0]["message"]


def test_a_project_set_up_from_a_virtual_environment_that_is_not_activated(gemini: Path, tmp_path: Path) -> None:
    """``.venv/bin/cogtools init``, cogtools not on PATH: the project's settings, which teammates
    share, name the commands by their names (issue 43), and init says to put that environment on
    PATH; Gemini CLI started so finds both."""
    root = tmp_path / "my project"
    report = init(root, PATH_WITHOUT_COGTOOLS)
    assert (
        "cogtools-discover and cogtools-call are not on PATH, so Gemini CLI will not find them" in report
        and f"add {BIN} to PATH" in report
    )
    assert str(BIN) not in (root / ".gemini" / "settings.json").read_text()  # issue 43: a file teammates share
    trust(root)
    session = run_gemini(gemini, root, [[call("hello", who="Ada")], [text("Done.")]], path=PATH_WITH_COGTOOLS)
    assert session.status == 0, session.stderr[-3000:]
    assert session.responses == [("discovered_tool_hello", {"output": "Hello, Ada!\n"})]


# -- against the real gemini binary (headless, a scripted model) -------------------------------------


def run_alone(gemini: Path, root: Path, turns: t.Sequence[list[dict[str, t.Any]]], **env: str) -> Session:
    """:func:`run_gemini`, its session the only one logged (what the model received is read from
    the logs, in an order that does not follow the runs)."""
    import shutil

    shutil.rmtree(Path(os.environ["HOME"]) / ".gemini" / "tmp", ignore_errors=True)
    return run_gemini(gemini, root, turns, **env)


@pytest.mark.slow
def test_headless_gemini_runs_what_a_rule_allows_without_the_warning_and_cogtools_refuses_an_edit(
    gemini: Path, tmp_path: Path
) -> None:
    """Gemini CLI 0.61 reads the rules file init wrote: the starter tool runs with no one asked
    and no deprecation warning; edited by the agent, it is still let through by the rule, and
    refused by its pin."""
    root = tmp_path / "project"
    init(root)
    trust(root)
    turns = [[call("hello", who="Ada")], [text("Done.")]]
    session = run_alone(gemini, root, turns)
    assert session.status == 0, session.stderr[-3000:]
    assert session.responses == [("discovered_tool_hello", {"output": "Hello, Ada!\n"})]
    assert "deprecated" not in session.stderr
    hello = root / "tools" / "hello.yaml"
    hello.write_text(hello.read_text().replace("Hello,", "Bye,"))
    session = run_alone(gemini, root, turns)
    assert session.status == 0, session.stderr[-3000:]
    name, response = session.responses[0]
    assert "error" in response, session.responses
    assert name == "discovered_tool_hello" and '"code": "POLICY_DENIED"' in response["error"]
    assert "Bye" not in response["error"]


@pytest.mark.slow
def test_a_project_an_older_cogtools_synced_is_migrated_by_sync(gemini: Path, tmp_path: Path) -> None:
    """tools.allowed as an older cogtools wrote it: Gemini CLI warns at each start; after one
    sync the entries are rules of the user's, the warning is gone, and the tool still runs."""
    root = tmp_path / "project"
    init(root)
    trust(root)
    rules_file(root).unlink()
    settings = root / ".gemini" / "settings.json"
    document = json.loads(settings.read_text())
    document["tools"]["allowed"] = ["discovered_tool_hello", "discovered_tool_cogtools_problems"]
    settings.write_text(json.dumps(document, indent=2))
    write(root / ".gemini" / "cogtools-allowed.json", json.dumps({"allowed": document["tools"]["allowed"]}))
    turns = [[call("hello", who="Ada")], [text("Done.")]]
    session = run_alone(gemini, root, turns)
    assert session.status == 0 and "tools.allowed in settings.json are deprecated" in session.stderr
    sync = subprocess.run(
        [str(BIN / "cogtools"), "sync"], cwd=root, env=environment(), capture_output=True, text=True, timeout=120
    )
    assert sync.returncode == 0 and "moved 2 entries cogtools wrote out of tools.allowed" in sync.stdout, sync
    session = run_alone(gemini, root, turns)
    assert session.status == 0, session.stderr[-3000:]
    assert "deprecated" not in session.stderr
    assert session.responses[0] == ("discovered_tool_hello", {"output": "Hello, Ada!\n"})


@pytest.mark.slow
def test_a_system_settings_file_wins_only_when_gemini_cli_reads_it(
    gemini: Path,
    tmp_path: Path,
    root_owned: Path,  # noqa: F811 (the fixture)
) -> None:
    """The binary honours GEMINI_CLI_SYSTEM_SETTINGS_PATH: a root-only system file's discovery
    command overrides the workspace's (here: one that finds no tool), a file someone else could
    write is skipped; cogtools' view of the layers says the same."""
    from cogtools.clients.gemini.settings import effective, settings_layers

    root = tmp_path / "project"
    init(root)
    trust(root)
    nothing = write(root_owned / "discover-nothing", "#!/bin/sh\necho '[]'\n", mode=0o755)
    write(root_owned / "settings.json", json.dumps({"tools": {"discoveryCommand": str(nothing)}}))
    loose = write(tmp_path / "loose" / "settings.json", (root_owned / "settings.json").read_text())
    turns = [[call("hello", who="Ada")], [text("Done.")]]
    for system, found in ((root_owned / "settings.json", False), (loose, True)):
        env = {"GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(system)}
        session = run_alone(gemini, root, turns, **env)
        assert session.status == 0, session.stderr[-3000:]
        assert ("output" in session.responses[0][1]) is found, session.responses[0]
        discovery = effective(settings_layers(root, {**os.environ, **env}), "tools", "discoveryCommand")
        assert discovery is not None and (discovery.layer.scope == "workspace") is found


def test_a_result_that_is_json_but_no_object_reaches_the_model_over_mcp(gemini: Path, tmp_path: Path) -> None:
    """(issue 43, found by a new user: Gemini CLI takes a result's text that parses as JSON for its
    structuredContent when there is none, and its SDK then refuses the whole result unless that is
    an object: every tool printing a list or a number failed through `init --mcp gemini`)"""
    root = tmp_path / "project"
    init(root, PATH_WITH_COGTOOLS, "--mcp", "gemini")
    for name, printed in (("listing", "[1, 2]"), ("count", "3"), ("words", "not json")):
        write(
            root / "tools" / f"{name}.yaml",
            f"description: Print {printed}.\nrisk_level: low\nside_effects: []\nimplementation: '{printed}'\n",
        )
    trust(root)
    turns = [[{"functionCall": {"name": f"mcp_cogtools_{n}", "args": {}}}] for n in ("listing", "count", "words")]
    session = run_gemini(gemini, root, [*turns, [text("Done.")]], "--approval-mode=yolo")
    assert session.status == 0, session.stderr[-3000:]
    got = dict(session.responses)
    assert set(got) == {"mcp_cogtools_listing", "mcp_cogtools_count", "mcp_cogtools_words"}, session.responses
    for name, printed in (("listing", "[1, 2]"), ("count", "3"), ("words", "not json")):
        said = json.dumps(got[f"mcp_cogtools_{name}"])
        assert "error" not in said and printed.split(",")[0].strip("[") in said, (name, said)
