"""Shell completion, driven the way each shell drives it: bash, zsh and fish each load the script
``cogtools completion SHELL`` printed and complete a command line with it."""

from __future__ import annotations

import functools
import os
import shlex
import shutil
import subprocess
import typing as t
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
    return _run(["bash", "-c", program], cwd, env)


def zsh_complete(script: str, words: list[str], cwd: Path, env: dict[str, str] | None = None) -> list[str]:
    """What zsh's completion system offers: the script registered through compinit, its function
    called as compsys calls it, and zsh's own _describe and compadd replaced by printers."""
    function = "_" + words[0].replace("-", "_") + "_completion"
    program = f"""autoload -U compinit && compinit -u -D
{script}
_describe() {{ local array=$3; print -rl -- "${{(@P)array}}" }}
compadd() {{ print -rl -- "${{(@P)${{@[-1]}}}}" }}
words=({" ".join(repr(w) for w in words)})
CURRENT={len(words)}
{function}
"""
    return [line.split(":", 1)[0] for line in _run(["zsh", "-f", "-c", program], cwd, env)]


def fish_complete(script: str, words: list[str], cwd: Path, env: dict[str, str] | None = None) -> list[str]:
    """What fish offers, asked with its own ``complete -C`` for the command line."""
    line = " ".join(words)
    program = f"{script}\ncomplete -C{shlex.quote(line)}\n"
    return [entry.split("\t", 1)[0] for entry in _run(["fish", "--no-config", "-c", program], cwd, env)]


def _run(argv: list[str], cwd: Path, env: dict[str, str] | None) -> list[str]:
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return [line for line in proc.stdout.splitlines() if line]


COMPLETERS = {"bash": bash_complete, "zsh": zsh_complete, "fish": fish_complete}


#: zsh starts its completion system (compinit) for every word: seconds a test, so its runs are slow.
@pytest.fixture(
    scope="module",
    params=[pytest.param(name, marks=pytest.mark.slow) if name == "zsh" else name for name in sorted(COMPLETERS)],
)
def complete(request: pytest.FixtureRequest) -> t.Callable[..., list[str]]:
    """A shell's completion, driven the way the shell drives it, with the script cogtools prints."""
    name: str = request.param
    if shutil.which(name) is None:
        if os.environ.get("CI"):
            pytest.fail(f"{name} is not installed")
        pytest.skip(f"{name} is not installed")
    script = subprocess.run(
        [str(BIN / "cogtools"), "completion", name], capture_output=True, text=True, check=True
    ).stdout
    return functools.partial(COMPLETERS[name], script)


@pytest.fixture(scope="module")
def bash_script() -> str:
    proc = subprocess.run([str(BIN / "cogtools"), "completion", "bash"], capture_output=True, text=True, check=True)
    return proc.stdout


def test_the_script_defines_every_program(bash_script: str) -> None:
    for program in PROGRAMS:
        assert f"complete -o nosort -F _{program.replace('-', '_')}_completion {program}" in bash_script
    assert subprocess.run(["bash", "-n"], input=bash_script, text=True).returncode == 0


def test_tool_names_after_cogtools_call(complete: t.Callable[..., list[str]], examples: Path) -> None:
    from cogtools.load.catalog import load_catalog

    names = list(load_catalog(examples).tools)
    assert sorted(complete(["cogtools-call", ""], examples)) == names
    assert sorted(complete(["cogtools-call", "--yaml", "c"], examples)) == [n for n in names if n.startswith("c")]
    assert complete(["cogtools", "call", "u"], examples) == ["unit_convert"]
    assert complete(["cogtools", "which", "f"], examples) == ["facepalm"]


def test_subcommands_built_in_and_external(
    complete: t.Callable[..., list[str]], examples: Path, tmp_path: Path
) -> None:
    external = write(tmp_path / "bin" / "cogtools-hello", "#!/bin/sh\necho hi\n", mode=0o755)
    env = {**os.environ, "PATH": os.pathsep.join([str(external.parent), os.environ["PATH"]])}
    assert sorted(complete(["cogtools", "h"], examples, env)) == ["hello", "help"]
    assert "completion" in complete(["cogtools", ""], examples, env)


def test_help_completes_commands_and_topics(
    complete: t.Callable[..., list[str]], examples: Path, tmp_path: Path
) -> None:
    external = write(tmp_path / "bin" / "cogtools-hello", "#!/bin/sh\necho hi\n", mode=0o755)
    env = {**os.environ, "PATH": os.pathsep.join([str(external.parent), os.environ["PATH"]])}
    assert sorted(complete(["cogtools", "help", "c"], examples, env)) == [
        "call",
        "cogtoolrc",
        "completion",
        "config",
        "config-file",
    ]
    assert sorted(complete(["cogtools", "help", "h"], examples, env)) == ["hello", "help"]
    assert complete(["cogtools", "help", "to"], examples, env) == ["tool"]


def test_options_and_format_values(complete: t.Callable[..., list[str]], examples: Path) -> None:
    assert sorted(complete(["cogtools-discover", "--format", "g"], examples)) == ["gemini-api", "gemini-cli"]
    assert "--strict" in complete(["cogtools-discover", "--s"], examples)
    # (issue 43: `init --mcp claude` is taken, and is offered too)
    assert sorted(complete(["cogtools", "init", "--mcp", "cl"], examples)) == [
        "claude",
        "claude-code",
        "claude-desktop",
    ]


def test_fish_keeps_descriptions_with_commas(examples: Path) -> None:
    if shutil.which("fish") is None:
        pytest.skip("fish is not installed")
    script = subprocess.run(
        [str(BIN / "cogtools"), "completion", "fish"], capture_output=True, text=True, check=True
    ).stdout
    proc = subprocess.run(
        ["fish", "--no-config", "-c", f"{script}\ncomplete -C'cogtools which u'"],
        cwd=examples,
        capture_output=True,
        text=True,
    )
    assert proc.stdout == "unit_convert\tConvert a length, mass or temperature between metric and imperial units.\n"


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
    env = {
        **os.environ,
        "COMP_WORDS": "cogtools-call ",
        "COMP_CWORD": "1",
        complete_var("cogtools-call"): "bash_complete",
    }
    proc = subprocess.run(
        [str(BIN / "cogtools-call")], cwd=project, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    assert (proc.returncode, proc.stdout.strip(), proc.stderr) == (0, "", "")
