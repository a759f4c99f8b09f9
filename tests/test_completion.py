"""Shell completion, driven the way a shell drives it: bash runs the script that
``cogtools completion bash`` printed; zsh and fish are asked through the same protocol."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from cogtools.cli import porcelain
from cogtools.cli.completion import PROGRAMS, complete_var

from .conftest import BIN, EXAMPLES, Cli, write


@pytest.fixture
def examples(isolated: Path) -> Path:
    shutil.copytree(EXAMPLES, isolated / "examples")
    return isolated / "examples"


def bash_complete(script: str, words: list[str], cwd: Path, env: dict[str, str] | None = None) -> list[str]:
    """What bash offers for ``words`` (the last one being completed), with ``script`` loaded."""
    function = "_" + words[0].replace("-", "_") + "_completion"
    program = f"""{script}
COMP_WORDS=({" ".join(repr(w) for w in words)})
COMP_CWORD={len(words) - 1}
{function} {words[0]}
printf '%s\\n' "${{COMPREPLY[@]}}"
"""
    proc = subprocess.run(["bash", "-c", program], cwd=cwd, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    return [line for line in proc.stdout.splitlines() if line]


@pytest.fixture(scope="module")
def bash_script() -> str:
    proc = subprocess.run([str(BIN / "cogtools"), "completion", "bash"], capture_output=True, text=True, check=True)
    return proc.stdout


def test_the_script_defines_every_program(bash_script: str) -> None:
    for program in PROGRAMS:
        assert f"complete -o nosort -F _{program.replace('-', '_')}_completion {program}" in bash_script
    assert subprocess.run(["bash", "-n"], input=bash_script, text=True).returncode == 0


def test_tool_names_after_cogtools_call(bash_script: str, examples: Path) -> None:
    from cogtools.catalog import load_catalog

    names = list(load_catalog(examples).tools)
    assert bash_complete(bash_script, ["cogtools-call", ""], examples) == names
    assert bash_complete(bash_script, ["cogtools-call", "--yaml", "c"], examples) == [n for n in names if n.startswith("c")]
    assert bash_complete(bash_script, ["cogtools", "call", "u"], examples) == ["unit_convert"]
    assert bash_complete(bash_script, ["cogtools", "which", "f"], examples) == ["facepalm"]


def test_subcommands_built_in_and_external(bash_script: str, examples: Path, tmp_path: Path) -> None:
    external = write(tmp_path / "bin" / "cogtools-hello", "#!/bin/sh\necho hi\n", mode=0o755)
    env = {**os.environ, "PATH": os.pathsep.join([str(external.parent), os.environ["PATH"]])}
    assert bash_complete(bash_script, ["cogtools", "h"], examples, env) == ["hello", "help"]
    assert "completion" in bash_complete(bash_script, ["cogtools", ""], examples, env)


def test_options_and_format_values(bash_script: str, examples: Path) -> None:
    assert bash_complete(bash_script, ["cogtools-discover", "--format", "g"], examples) == ["gemini-cli", "gemini-api"]
    assert "--strict" in bash_complete(bash_script, ["cogtools-discover", "--s"], examples)


@pytest.mark.parametrize(("shell", "expected"), [("zsh", "plain\nfacepalm\nWant to *facepalm*? Call this tool!\n"), ("fish", "plain,facepalm\tWant to *facepalm*? Call this tool!\n")])
def test_zsh_and_fish_protocols(examples: Path, shell: str, expected: str) -> None:
    # zsh passes the index of the word being completed; fish passes the word itself.
    cword = "1" if shell == "zsh" else "fa"
    env = {**os.environ, "COMP_WORDS": "cogtools-call fa", "COMP_CWORD": cword, complete_var("cogtools-call"): f"{shell}_complete"}
    proc = subprocess.run([str(BIN / "cogtools-call")], cwd=examples, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert (proc.returncode, proc.stdout) == (0, expected)


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_command_prints_each_shells_script(cli: Cli, shell: str) -> None:
    result = cli(porcelain.main, "completion", shell)
    assert result.status == 0 and result.stderr == ""
    for program in PROGRAMS:
        assert complete_var(program) in result.stdout
    checker = shutil.which(shell)
    if checker and shell != "bash":
        assert subprocess.run([checker, "-n"], input=result.stdout, text=True).returncode == 0


def test_completion_of_a_broken_project_offers_nothing(project: Path) -> None:
    write(project / ".cogtoolrc.yaml", "broken: [\n")
    env = {**os.environ, "COMP_WORDS": "cogtools-call ", "COMP_CWORD": "1", complete_var("cogtools-call"): "bash_complete"}
    proc = subprocess.run([str(BIN / "cogtools-call")], cwd=project, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert (proc.returncode, proc.stdout.strip(), proc.stderr) == (0, "", "")
