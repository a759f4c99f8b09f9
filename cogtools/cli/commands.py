"""What ``cogtools`` knows of its commands without importing click: the built-ins' modules and short
help, the ``cogtools-SUB`` executables on the search path, and the top-level ``--help`` text.

Every ``cogtools`` is a fresh process and click alone costs more than the interpreter's start-up,
so ``cogtools --help`` is answered from here (:func:`top_level_help`), laid out as click lays it
out; a test holds the two equal, at several terminal widths and with external commands on PATH.
"""

from __future__ import annotations

import os
import sys
import typing as t

PROG = "cogtools"
PREFIX = "cogtools-"

#: The porcelain's own help (the click group's docstring).
GROUP_HELP = """Write an LLM tool once, declaratively; serve it to Gemini CLI, shell pipelines and other
agents.

Built-in commands are listed below together with every 'cogtools-SUB' executable found on
PATH and then in the project's node_modules/.bin, which 'cogtools SUB ARGS' runs with ARGS
untouched. The plumbing is cogtools-discover(1),
cogtools-call(1) and cogtools-yaml(1)."""

#: ``cogtools help``'s short help (it is defined in the porcelain itself, not in a module of its own).
HELP_SHORT_HELP = "Show help for cogtools or a command."

#: The built-in commands: name -> (module, attribute, short help). A command's module is imported
#: when the command is used, so that ``cogtools --version`` and ``--help`` import none of them
#: (every ``cogtools`` is a fresh process); the short help is written here for ``--help``, and a
#: test holds it equal to the command's own. The attribute is the click command, or a function
#: that makes it.
BUILTINS: dict[str, tuple[str, str, str]] = {
    "audit": ("cogtools.cli.audit_cmd", "command", "Read an audit log, or check that it is whole."),
    "call": ("cogtools.cli.call", "command", "Call a tool with the arguments on stdin (cogtools-call)."),
    "completion": ("cogtools.cli.completion", "command", "Print the shell completion script."),
    "config": ("cogtools.cli.config_cmd", "command", "Show and change the settings, and their origins."),
    "discover": (
        "cogtools.cli.discover",
        "command",
        "Print the declarations of the project's tools (cogtools-discover).",
    ),
    "doctor": (
        "cogtools.cli.doctor_cmd",
        "command",
        "Find what keeps Gemini CLI or an MCP client from using the project's tools.",
    ),
    "import": ("cogtools.cli.import_cmd", "command", "Write tools from an API's description."),
    "init": ("cogtools.cli.init_cmd", "command", "Make this directory a cogtools project for Gemini CLI."),
    "lint": ("cogtools.cli.lint_cmd", "command", "Check tool files for mistakes."),
    "list": ("cogtools.cli.list_cmd", "command", "List the project's tools and where they come from."),
    "mcp": ("cogtools.cli.mcp_cmd", "command", "Serve the project's tools over MCP (stdio or HTTP)."),
    "new": ("cogtools.cli.new_cmd", "command", "Write a new tool file."),
    "search": ("cogtools.cli.search_cmd", "command", "Rank the project's tools for a request in words."),
    "show": ("cogtools.cli.show_cmd", "command", "Show one tool whole, as it is served."),
    "sync": ("cogtools.cli.sync_cmd", "command", "Review and pin what runs unasked; write its rules and GEMINI.md."),
    "test": ("cogtools.cli.test_cmd", "command", "Run the tools' example calls as tests."),
    "which": ("cogtools.cli.which_cmd", "command", "Show every definition of a tool and which one wins."),
    "yaml": ("cogtools.cli.yaml_cmd", "command", "Run the tool defined in a file (cogtools-yaml)."),
}

#: The porcelain's own options, as its --help lists them.
OPTIONS = [("-V, --version", "Show the version and exit."), ("-h, --help", "Show this message and exit.")]

#: The widest a help text is laid out (click's ``max_content_width``, cogtools.cli.common).
MAX_WIDTH = 100


def search_path(environ: t.Mapping[str, str] | None = None) -> list[str]:
    """Directories searched for ``cogtools-SUB``: cogtools' own first, then PATH, then the
    current project's ``node_modules/.bin`` (seed 004: porcelain resolved from installed node
    modules), no repeats. The project's packages come last: a file in the workspace, which the
    agent can write, adds commands but never replaces one the person has installed."""
    environ = os.environ if environ is None else environ
    own = [os.path.dirname(os.path.abspath(sys.argv[0])), os.path.dirname(sys.executable)]
    out: list[str] = []
    for directory in [*own, *environ.get("PATH", "").split(os.pathsep), *_project_bin(environ)]:
        if directory and directory not in out:
            out.append(directory)
    return out


def _project_bin(environ: t.Mapping[str, str]) -> list[str]:
    """The current project's ``node_modules/.bin``, when it has one."""
    from pathlib import Path

    from cogtools.load.npm import bin_directory
    from cogtools.load.project import find_root

    try:
        root = find_root(Path.cwd().resolve(), environ)[0]
    except OSError:  # the working directory is gone
        return []
    found = bin_directory(root)
    return [str(found)] if found.is_dir() else []


def _is_executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def external_commands() -> dict[str, str]:
    """SUB -> path of every ``cogtools-SUB`` executable; the first one found wins."""
    found: dict[str, str] = {}
    for directory in search_path():
        try:
            names = sorted(name for name in os.listdir(directory) if name.startswith(PREFIX))
        except OSError:
            continue
        for entry in names:
            if len(entry) > len(PREFIX):
                sub = entry[len(PREFIX) :]
                if sub not in found and _is_executable(os.path.join(directory, entry)):
                    found[sub] = os.path.join(directory, entry)
    return found


def find_external(sub: str) -> str | None:
    for directory in search_path():
        candidate = os.path.join(directory, PREFIX + sub)
        if _is_executable(candidate):
            return candidate
    return None


def external_short_help(path: str) -> str:
    return f"External command: {path}"


def help_width() -> int:
    """The width click lays a help text out in: the terminal's, at most MAX_WIDTH, less 2."""
    import shutil

    return max(min(shutil.get_terminal_size().columns, MAX_WIDTH) - 2, 50)


def _wrap(text: str, width: int, indent: str = "") -> list[str]:
    import textwrap

    class Wrapper(textwrap.TextWrapper):
        def _handle_long_word(self, chunks: list[str], line: list[str], length: int, width: int) -> None:
            # As click's wrapper does: a word longer than the line is cut at the line's end, not
            # at a hyphen (the standard library's choice since 3.10).
            room = max(width - length, 1)
            line.append(chunks[-1][:room])
            chunks[-1] = chunks[-1][room:]

    return Wrapper(width, initial_indent=indent, subsequent_indent=indent, replace_whitespace=False).wrap(text)


def _definitions(rows: list[tuple[str, str]], width: int) -> list[str]:
    """Two columns, as click's ``HelpFormatter.write_dl`` writes them inside a section."""
    first_col = min(max(len(term) for term, _ in rows), 30) + 2
    out = []
    for term, text in rows:
        lines = _wrap(text, max(width - first_col - 2, 10))
        if len(term) <= first_col - 2:
            head = f"  {term}{' ' * (first_col - len(term))}"
        else:
            out.append(f"  {term}")
            head = " " * (first_col + 2)
        out.append(head + (lines[0] if lines else ""))
        out += [" " * (first_col + 2) + line for line in lines[1:]]
    return out


def top_level_help(width: int | None = None) -> str:
    """``cogtools --help``, as click prints it, without click."""
    width = help_width() if width is None else width
    out = [f"Usage: {PROG} [OPTIONS] COMMAND [ARGS]...", ""]
    for number, paragraph in enumerate(GROUP_HELP.split("\n\n")):
        out += [""] if number else []
        out += _wrap(" ".join(paragraph.split("\n")), width, "  ")
    out += ["", "Options:", *_definitions(OPTIONS, width), "", "Commands:"]
    rows = {name: short for name, (_, _, short) in BUILTINS.items()}
    rows["help"] = HELP_SHORT_HELP
    for sub, path in external_commands().items():
        rows.setdefault(sub, external_short_help(path))
    out += _definitions(sorted(rows.items()), width)
    return "\n".join(out) + "\n"
