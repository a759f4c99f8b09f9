"""Running the examples of a Markdown document, so that the user guide cannot go stale.

Every fenced block of a document is one of:

- a ``console`` block: lines starting with ``$ `` are commands (a line ending in ``\\`` goes on
  to the next), and the lines after a command, up to the next one, are what it prints (standard
  output and standard error together). A line ``...`` stands for any number of lines, and
  ``...`` within a line for any text. Every
  command must exit 0 (a page that shows a failure says ``; echo "exit status: $?"``).
- a block right after ``<!-- file: PATH -->``: written to PATH (relative to the current directory
  at that point, as a person would save it; ``~/`` is the home directory), then used by the commands after it;
- a block right after ``<!-- not run: REASON -->``: shown only (say why).

Any other block is an error: an example nobody runs is an example that goes stale. A document
runs as one bash script, in an empty directory of its own, with cogtools on PATH, so ``cd`` and
variables carry from one command to the next.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import typing as t
from pathlib import Path

FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)
MARKER = re.compile(r"<!--\s*(file|not run):\s*(.*?)\s*-->\s*\Z", re.DOTALL)


class Command(t.NamedTuple):
    line: int
    text: str
    expected: list[str]


class File(t.NamedTuple):
    line: int
    path: str
    text: str


Step = t.Union[Command, File]


class DocError(Exception):
    pass


def steps(document: str, name: str = "document") -> list[Step]:
    out: list[Step] = []
    for match in FENCE.finditer(document):
        line = document.count("\n", 0, match.start()) + 1
        language, body = match.group(1), match.group(2)
        before = document[: match.start()].rstrip()
        marker = MARKER.search(before[before.rfind("<!--") :]) if before.endswith("-->") else None
        if marker and marker.group(1) == "file":
            out.append(File(line, marker.group(2), body))
        elif marker and marker.group(1) == "not run":
            if not marker.group(2):
                raise DocError(f"{name}:{line}: say why the block is not run")
        elif language == "console":
            out.extend(_commands(body, line + 1))
        else:
            raise DocError(f"{name}:{line}: a ```{language} block that nothing runs (see tests/doc_examples.py)")
    return out


def _commands(body: str, first_line: int) -> list[Command]:
    commands: list[Command] = []
    lines = body.splitlines()
    i = 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            raise DocError(f"line {first_line + i}: output before any command")
        start = i
        text = lines[i][2:]
        while text.endswith("\\") and i + 1 < len(lines):
            i += 1
            text = text + "\n" + lines[i]
        i += 1
        expected = []
        while i < len(lines) and not lines[i].startswith("$ "):
            expected.append(lines[i])
            i += 1
        commands.append(Command(first_line + start, text, expected))
    return commands


SEPARATOR = "@@cogtools-doc-step@@"


def script(all_steps: list[Step]) -> str:
    parts = ["exec 2>&1"]
    for index, step in enumerate(all_steps):
        if isinstance(step, File):
            path = _shell_path(step.path)
            parts.append(
                f"mkdir -p \"$(dirname {path})\" && cat > {path} <<'COGTOOLS_DOC_EOF'\n{step.text}COGTOOLS_DOC_EOF"
            )
            parts.append(f"echo; echo '{SEPARATOR} {index} 0'")
        else:
            # a newline first: the output may not end with one (a trailing blank is ignored)
            parts.append(f'{{\n{step.text}\n}}\necho "\n{SEPARATOR} {index} $?"')
    return "\n".join(parts) + "\n"


def _shell_path(path: str) -> str:
    """``path`` quoted for bash, with a leading ``~/`` meaning the home directory."""
    quoted = "'" + path.removeprefix("~/").replace("'", "'\\''") + "'"
    return f'"$HOME"/{quoted}' if path.startswith("~/") else quoted


class Outcome(t.NamedTuple):
    step: Step
    output: list[str]
    status: int


def run(all_steps: list[Step], cwd: Path, env: t.Mapping[str, str], timeout: float = 300) -> list[Outcome]:
    proc = subprocess.run(
        ["bash", "-c", script(all_steps)], cwd=cwd, env=dict(env), capture_output=True, text=True, timeout=timeout
    )
    outcomes = []
    chunk: list[str] = []
    for line in proc.stdout.splitlines():
        if line.startswith(SEPARATOR):
            _, index, status = line.split()
            if chunk and chunk[-1] == "":  # the newline written before the separator
                chunk.pop()
            outcomes.append(Outcome(all_steps[int(index)], chunk, int(status)))
            chunk = []
        else:
            chunk.append(line)
    if len(outcomes) != len(all_steps):
        raise DocError(f"the document stopped after {len(outcomes)} of {len(all_steps)} steps:\n{proc.stdout[-2000:]}")
    return outcomes


def matches(expected: list[str], actual: list[str]) -> bool:
    """Line by line, trailing blanks ignored, ``...`` for any number of lines."""
    expected = [line.rstrip() for line in expected]
    actual = [line.rstrip() for line in actual]
    while expected and not expected[-1]:
        expected.pop()
    while actual and not actual[-1]:
        actual.pop()
    if not expected:
        return not actual
    if expected[0] == "...":
        return any(matches(expected[1:], actual[i:]) for i in range(len(actual) + 1))
    return bool(actual) and _line_matches(expected[0], actual[0]) and matches(expected[1:], actual[1:])


def _line_matches(expected: str, actual: str) -> bool:
    """Equal, where ``...`` inside a line stands for any text (a temporary path, say)."""
    if "..." not in expected:
        return expected == actual
    pattern = ".*".join(re.escape(part) for part in expected.split("..."))
    return re.fullmatch(pattern, actual) is not None


def environment(home: Path, bin_dir: Path) -> dict[str, str]:
    """What a document's commands run with: cogtools first on PATH, a home of their own."""
    return {
        "PATH": f"{bin_dir}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "LANG": "C.UTF-8",
        "MANPAGER": "cat",
        "PAGER": "cat",
        "MANWIDTH": "80",
        "NO_COLOR": "1",
    }


def updated(document: str, outcomes: list[Outcome]) -> str:
    """``document`` with the output shown under each command replaced by what it printed, where
    the two differ (for a person to review before committing)."""
    lines = document.split("\n")
    for outcome in reversed(outcomes):
        step = outcome.step
        if isinstance(step, Command) and not matches(step.expected, outcome.output):
            start = step.line - 1 + step.text.count("\n") + 1
            shown = list(outcome.output)
            while shown and not shown[-1].strip():
                shown.pop()
            lines[start : start + len(step.expected)] = [
                *shown,
                *([""] if step.expected and not step.expected[-1] else []),
            ]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    """``python -m tests.doc_examples FILE.md...``: run the documents and rewrite the output
    they show with what the commands print now."""
    bin_dir = Path(sys.executable).parent
    for name in argv:
        path = Path(name)
        text = path.read_text(encoding="utf-8")
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp) / "work"
            work.mkdir()
            outcomes = run(steps(text, name), work, environment(Path(tmp) / "home", bin_dir))
        for outcome in outcomes:
            if outcome.status:
                print(f"{name}:{outcome.step.line}: exit status {outcome.status}", file=sys.stderr)
        path.write_text(updated(text, outcomes), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
