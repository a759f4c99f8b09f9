"""The section-1 man pages of the built-in ``cogtools`` subcommands, made from the click tree.

NAME, SYNOPSIS, DESCRIPTION and OPTIONS come from each command itself (its short help, its
parameters, its docstring), EXIT STATUS from :data:`cogtools.core.errors.ERROR_TABLE`, and what a
command cannot say about itself (ENVIRONMENT, FILES, EXAMPLES, SEE ALSO, and for lint its rules)
from :data:`PAGES` below. So a page cannot drift from its command: ``tests/test_man.py`` checks
that ``man/`` holds exactly what this module makes, and runs every example.

Regenerate after changing a command::

    python -m cogtools.cli.manpage man

Never imported by a command: nothing here costs a call anything.
"""

from __future__ import annotations

import inspect
import re
import sys
import typing as t
from pathlib import Path

import click

from cogtools import __version__
from cogtools.cli.porcelain import OWN_MAN_PAGES, group
from cogtools.core.errors import ERROR_TABLE
from cogtools.services.lint import RULES

#: The date on every page; move it on when the pages change in substance.
DATE = "2026-11-22"

#: Roff text lines (inline fonts only) for the ENVIRONMENT and FILES sections.
ENVIRONMENT = {
    "COGTOOLS_CONFIG": r"A configuration file to read instead of the project's \fI.cogtoolrc.yaml\fR (it must exist).",
    "COGTOOLS_ROLE": r"The caller's role (ai_agent, human_agent or admin), over the configuration's \fBpolicy.role\fR.",
    "COGTOOLS_TOOL_PATH": "More tool directories, separated by colons, searched after the configured sources.",
    "COGTOOLS_NO_CACHE": "When set, definitions are parsed afresh and the catalog cache is neither read nor written.",
    "COGTOOLS_CACHE_DIR": r"Where the catalog cache lives (default \fI$XDG_CACHE_HOME/cogtools\fR).",
    "XDG_CONFIG_HOME": r"Holds the user's \fIcogtools/config.yaml\fR (default \fI~/.config\fR).",
    "XDG_CACHE_HOME": r"Holds the catalog cache (default \fI~/.cache\fR).",
    "XDG_STATE_HOME": r"Holds the pins of the tools allowed to run without confirmation (default \fI~/.local/state\fR).",
    "MANPAGER": r"The pager \fBman\fR(1) shows pages with (then \fBPAGER\fR).",
    "PATH": r"Where the commands in \fI.gemini/settings.json\fR, \fBgemini\fR and \fBnode\fR are looked for, as Gemini CLI will look for them.",
    "GEMINI_CLI_HOME": r"Gemini CLI's home, instead of \fI~\fR: its \fI.gemini/\fR holds the user's settings and the trusted folders.",
    "GEMINI_CLI_TRUSTED_FOLDERS_PATH": r"The trusted folders file Gemini CLI reads instead of \fI~/.gemini/trustedFolders.json\fR.",
    "GEMINI_CLI_TRUST_WORKSPACE": r"\fBtrue\fR trusts every folder, \fBfalse\fR none, as it does for Gemini CLI.",
    "NO_COLOR": r"When set (to anything), no colour; otherwise a report to a terminal colours its statuses (and \fBTERM=dumb\fR has none).",
    "COGTOOLS_MCP_TOKEN": r"The bearer token \fBcogtools mcp --http\fR requires on every request, when no \fB--token-file\fR is given.",
}
PROJECT_ENVIRONMENT = (
    "COGTOOLS_CONFIG",
    "COGTOOLS_ROLE",
    "COGTOOLS_TOOL_PATH",
    "COGTOOLS_NO_CACHE",
    "COGTOOLS_CACHE_DIR",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
)

FILES = {
    ".cogtoolrc.yaml": r"Marks the project root and holds its settings; see \fBcogtoolrc\fR(5).",
    "tools/": r"The project's tool definitions, searched recursively (the default \fBtool_sources\fR); see \fBcogtools-tool\fR(5).",
    ".gemini/settings.json": r"Gemini CLI's workspace settings: \fBtools.discoveryCommand\fR and \fBtools.callCommand\fR (and, for a Gemini CLI before 0.30, \fBtools.allowed\fR).",
    ".gemini/cogtools-allowed.json": r"The tools cogtools let through last (its \fBtools.allowed\fR entries, or its rules), so that it can tell them from a person's.",
    "~/.gemini/policies/cogtools-*.toml": r"Gemini CLI's Policy Engine rules that \fBcogtools sync\fR writes, one file per project (its directory's name and a hash of its path): they allow exactly the tools pinned for it; in \fB$GEMINI_CLI_HOME\fR when that is set. Gemini CLI loads none that is a symbolic link: a link there is replaced by the file, never written through.",
    "GEMINI.md": "Gemini CLI's context file; the table of tools lives between two marker comments.",
    "$XDG_CONFIG_HOME/cogtools/config.yaml": "The user's settings, below the project's.",
    "$XDG_CACHE_HOME/cogtools/": (
        r"The catalog cache, one file per project root, private to the user (0700), each file authenticated"
        r" with the key in \fIkey\fR: a file cogtools did not write is ignored."
    ),
    "$XDG_STATE_HOME/cogtools/pins/": (
        r"What a person allowed to run without confirmation (written by \fBcogtools sync\fR): each tool's"
        r" definition and the files of the project it runs, one file per project root; a call of an allowed"
        r" tool of which any changed is POLICY_DENIED. A symbolic link there is replaced by the file, never written"
        r" through."
    ),
    "$XDG_STATE_HOME/cogtools/audit/key": (
        r"The user's audit key (32 random bytes, 0600, made on first use): each audit line's \fBargs_hmac\fR is"
        r" HMAC-SHA256 of the call's arguments under it. Replicas whose lines must hash alike share it."
    ),
    "~/.gemini/trustedFolders.json": r"Gemini CLI's trusted folders: a folder maps to \fBTRUST_FOLDER\fR, \fBTRUST_PARENT\fR or \fBDO_NOT_TRUST\fR; the longest path that contains the project decides.",
    "~/.gemini/settings.json": r"Gemini CLI's user settings, below the workspace's (\fBsecurity.folderTrust.enabled\fR, and commands the workspace does not set).",
    "$PREFIX/share/man/": r"The installed pages (\fIman1\fR and \fIman5\fR of the installation cogtools runs from), where \fBman\fR(1) finds them.",
}
PROJECT_FILES = (".cogtoolrc.yaml", "tools/", "$XDG_CONFIG_HOME/cogtools/config.yaml", "$XDG_CACHE_HOME/cogtools/")
#: What init and sync write: the project's files for Gemini CLI, and the pins.
GEMINI_FILES = (
    ".cogtoolrc.yaml",
    "tools/",
    ".gemini/settings.json",
    ".gemini/cogtools-allowed.json",
    "~/.gemini/policies/cogtools-*.toml",
    "GEMINI.md",
    "$XDG_STATE_HOME/cogtools/pins/",
)


class Page(t.NamedTuple):
    """What a command cannot say about itself."""

    environment: tuple[str, ...] = PROJECT_ENVIRONMENT
    files: tuple[str, ...] = PROJECT_FILES
    #: (what it does, the command line), each run by the tests in a copy of the examples project.
    examples: tuple[tuple[str, str], ...] = ()
    see_also: tuple[str, ...] = ()
    #: Exit statuses of its own, besides 0 and the error codes.
    statuses: tuple[tuple[int, str], ...] = ()
    #: Extra sections: (title, roff body).
    sections: tuple[tuple[str, t.Callable[[], str]], ...] = ()


def _lint_rules() -> str:
    rules = "".join(f".TP\n.B {rule}\n{severity}: {escape(text)}\n" for rule, (severity, text) in RULES.items())
    return rules + (
        ".PP\nA tool silences a rule for itself, once its finding is checked and accepted, with\n"
        '.BR "lint: {ignore: [" RULE ...]}\n'
        "in its definition (see\n.BR cogtools-tool (5));\n"
        "the rules that keep a tool from loading cannot be silenced.\n"
    )


PAGES: dict[str, Page] = {
    "audit": Page(
        environment=("XDG_STATE_HOME",),
        files=("$XDG_CONFIG_HOME/cogtools/config.yaml", "$XDG_STATE_HOME/cogtools/audit/key"),
        examples=(
            (
                "Write a call down, then show the log:",
                'echo \'{"theyear": 2026, "themonth": 11}\' | cogtools-call --audit-log audit.jsonl month_calendar'
                " >/dev/null && cogtools audit audit.jsonl",
            ),
            (
                "Check that no line was removed or edited:",
                'echo \'{"theyear": 2026, "themonth": 11}\' | cogtools-call --audit-log audit.jsonl month_calendar'
                " >/dev/null && cogtools audit verify audit.jsonl",
            ),
        ),
        see_also=("cogtools-mcp(1)", "cogtools-call(1)", "cogtoolrc(5)"),
        statuses=((1, "verify: the chain breaks (each line where it does is printed)."),),
    ),
    "init": Page(
        environment=("XDG_CONFIG_HOME", "XDG_STATE_HOME"),
        files=GEMINI_FILES,
        examples=(
            (
                "Make a new project for Gemini CLI, asking nothing:",
                "cogtools init --non-interactive --defaults my-project",
            ),
            ("Run it again: nothing changes.", "cogtools init --non-interactive --defaults my-project"),
        ),
        see_also=("cogtools-sync(1)", "cogtools-discover(1)", "cogtoolrc(5)", "cogtools-tool(5)"),
    ),
    "sync": Page(
        environment=(*PROJECT_ENVIRONMENT, "XDG_STATE_HOME"),
        files=GEMINI_FILES,
        examples=(
            (
                "After adding or changing tools, on a terminal (shows what would run unasked, and asks):",
                "cogtools sync",
            ),
            ("Once after cloning a project, or with a new home directory:", "cogtools sync"),
            ("In a script, allowing what it lists:", "cogtools sync --yes"),
        ),
        see_also=("cogtools-init(1)", "cogtools-lint(1)", "cogtools-discover(1)", "cogtoolrc(5)"),
    ),
    "list": Page(
        examples=(
            ("Every tool of the project:", "cogtools list"),
            ("Only those that run without a confirmation:", "cogtools list --toolset diagnostic"),
            ("What an administrator may use, shadowed definitions included:", "cogtools list --role admin --all"),
        ),
        see_also=("cogtools-which(1)", "cogtools-discover(1)", "cogtoolrc(5)"),
    ),
    "show": Page(
        examples=(
            ("All of facepalm, as it is served:", "cogtools show facepalm"),
            ("What OpenAI's API is given of it:", "cogtools show facepalm --format openai"),
        ),
        see_also=("cogtools-which(1)", "cogtools-list(1)", "cogtools-sync(1)", "cogtools-tool(5)"),
    ),
    "which": Page(
        examples=(("Where facepalm comes from:", "cogtools which facepalm"),),
        see_also=("cogtools-list(1)", "cogtoolrc(5)"),
    ),
    "config": Page(
        examples=(
            ("Every setting and where it comes from:", "cogtools config --show-origin"),
            ("One setting, as calls see it:", "cogtools config get policy.role"),
            (
                "Deny two categories in this project:",
                "cogtools config set policy.denied_categories '[Billing, Payroll]'",
            ),
            ("Add a tool source:", "cogtools config add tool_sources '{local: ./shared/tools}'"),
            ("Drop a setting from the project's file:", "cogtools config unset discovery_mode"),
        ),
        see_also=("cogtoolrc(5)", "git-config(1)"),
        statuses=((1, "get: the setting is set nowhere (or, with --project or --user, not in that file)."),),
    ),
    "completion": Page(
        examples=(("Complete cogtools commands and tool names in bash:", 'eval "$(cogtools completion bash)"'),),
        see_also=("bash(1)", "zsh(1)", "fish(1)"),
    ),
    "test": Page(
        examples=(
            ("Run every example of every tool:", "cogtools test"),
            ("Test two tools and keep a JUnit report:", "cogtools test facepalm unit_convert --junit-xml report.xml"),
        ),
        environment=(*PROJECT_ENVIRONMENT, "NO_COLOR"),
        see_also=("cogtools-lint(1)", "cogtools-tool(5)"),
        statuses=((1, "A test failed, or a definition is broken."),),
    ),
    "lint": Page(
        examples=(
            ("Check every tool of the project:", "cogtools lint"),
            (
                "Check a directory, warnings included, for a program:",
                "cogtools lint --strict --format json examples/tools",
            ),
        ),
        see_also=("cogtools-test(1)", "cogtools-tool(5)"),
        statuses=((1, "There are errors (with --strict: errors or warnings)."),),
        sections=(("LINT RULES", _lint_rules),),
    ),
    "doctor": Page(
        environment=(
            *PROJECT_ENVIRONMENT,
            "NO_COLOR",
            "PATH",
            "GEMINI_CLI_HOME",
            "GEMINI_CLI_TRUSTED_FOLDERS_PATH",
            "GEMINI_CLI_TRUST_WORKSPACE",
        ),
        files=(*GEMINI_FILES, "~/.gemini/trustedFolders.json", "~/.gemini/settings.json"),
        examples=(
            (
                "Set a project up, then check it, its folder trusted for this run:",
                "cogtools init --non-interactive --defaults demo >/dev/null && cd demo"
                " && GEMINI_CLI_TRUST_WORKSPACE=true cogtools doctor --test",
            ),
            (
                "The same findings, for a program:",
                "cogtools doctor --format json --no-discovery > findings.json || true",
            ),
        ),
        see_also=("cogtools-init(1)", "cogtools-sync(1)", "cogtools-discover(1)", "cogtools-lint(1)", "cogtoolrc(5)"),
        statuses=((1, "A problem was found (with --strict: a problem or a warning)."),),
    ),
    "import": Page(
        examples=(
            (
                "A one-operation API document imported into the project's tools, checked, and its request shown:",
                "printf '%s\\n' 'openapi: 3.0.3' 'info: {title: Clock, version: \"1\"}'"
                " 'servers: [{url: \"https://clock.example/v1\"}]'"
                " 'paths: {/now: {get: {operationId: now, summary: The time now., responses: {\"200\": {description: ok}}}}}'"
                " > clock.yaml && cogtools import openapi clock.yaml --into examples/tools"
                " && cogtools lint --strict examples/tools/now.yaml && echo '{}' | cogtools-call --dry-run now",
            ),
        ),
        see_also=("cogtools-lint(1)", "cogtools-new(1)", "cogtools-call(1)", "cogtools-tool(5)"),
    ),
    "new": Page(
        examples=(
            (
                "A template tool with one parameter, then its checks:",
                "cogtools new greet --param who:string:'Who to greet' --non-interactive --dir examples/tools"
                " && cogtools lint examples/tools/greet.yaml && cogtools test greet",
            ),
        ),
        see_also=("cogtools-lint(1)", "cogtools-test(1)", "cogtools-tool(5)"),
    ),
    "search": Page(
        examples=(("Which tool converts units, and why:", "cogtools search convert miles to km --explain"),),
        see_also=("cogtools-discover(1)", "cogtools-tool(5)"),
    ),
    "mcp": Page(
        environment=(*PROJECT_ENVIRONMENT, "COGTOOLS_MCP_TOKEN"),
        examples=(
            (
                "What Claude Code's .mcp.json needs to start the server for this project:",
                "cogtools mcp --print-config claude-code",
            ),
        ),
        see_also=("cogtools-call(1)", "cogtools-discover(1)", "cogtoolrc(5)"),
    ),
    "help": Page(
        environment=("MANPAGER",),
        files=("$PREFIX/share/man/",),
        examples=(("The manual page of cogtools list:", "cogtools help list"),),
        see_also=("man(1)",),
    ),
}


def escape(text: str) -> str:
    """Text for a roff text line: backslashes kept, option hyphens as minus signs, and no line
    read as a request."""
    text = text.replace("\\", "\\e")
    text = re.sub(r"(?<![\w-])--?[A-Za-z][\w-]*", lambda m: m.group(0).replace("-", "\\-"), text)
    return "\n".join("\\&" + line if line.startswith((".", "'")) else line for line in text.split("\n"))


def _option_label(param: click.Option) -> str:
    names = ", ".join(f"\\fB{escape(opt)}\\fR" for opt in [*param.opts, *param.secondary_opts])
    if param.is_flag:
        return names
    return f"{names} {_metavar(param)}"


def _metavar(param: click.Parameter) -> str:
    if isinstance(param.type, click.Choice):  # a line may break after each bar (\\:)
        return "|\\:".join(f"\\fB{escape(str(c))}\\fR" for c in param.type.choices)
    name = param.metavar or {"integer range": "N", "integer": "N", "float": "NUMBER"}.get(
        param.type.name, param.type.name.upper()
    )
    return f"\\fI{escape(name)}\\fR"


def _argument(param: click.Argument) -> str:
    word = _metavar(param) if isinstance(param.type, click.Choice) else f"\\fI{(param.name or '').upper()}\\fR"
    if param.nargs == -1:
        word += " ..."
    return word if param.required else f"[{word}]"


def _paragraphs(help_text: str) -> str:
    out = []
    for block in re.split(r"\n\s*\n", help_text.strip()):
        if block.startswith("\b\n"):
            out.append(".PP\n.RS 2\n.nf\n" + escape(block[2:]) + "\n.fi\n.RE\n")
        else:
            out.append(".PP\n" + escape(" ".join(line.strip() for line in block.splitlines())) + "\n")
    return "".join(out)


def _see_also(names: t.Iterable[str]) -> str:
    refs = [re.fullmatch(r"(.+)\((\d)\)", name) for name in names]
    return ",\n".join(f".BR {escape(m.group(1))} ({m.group(2)})" for m in refs if m) + "\n"


#: A group's subcommands: (name, command, its context).
Subcommands = list[tuple[str, click.Command, click.Context]]


def _subcommands(command: click.Command, ctx: click.Context) -> Subcommands:
    """The subcommands of a group (``cogtools config get``...), each with its own context."""
    if not isinstance(command, click.Group):
        return []
    out = []
    for name in command.list_commands(ctx):
        sub_command = command.get_command(ctx, name)
        if sub_command is not None and not sub_command.hidden:
            out.append((name, sub_command, click.Context(sub_command, info_name=name, parent=ctx)))
    return out


def _synopsis(command: click.Command, ctx: click.Context) -> str:
    params = command.get_params(ctx)
    words = [f"[{_option_label(p)}]" for p in params if isinstance(p, click.Option) and "--help" not in p.opts]
    words += [_argument(p) for p in params if isinstance(p, click.Argument)]
    return "".join(word + "\n" for word in words)


def render(sub: str, command: click.Command, page: Page) -> str:
    """The man page of ``cogtools SUB``."""
    ctx = click.Context(command, info_name=f"cogtools {sub}", **command.context_settings)
    params = command.get_params(ctx)
    options = [p for p in params if isinstance(p, click.Option)]
    summary = (command.short_help or "").rstrip(".")
    subcommands = _subcommands(command, ctx)
    out = [
        f'.TH COGTOOLS-{sub.upper()} 1 {DATE} "cogtools {__version__}" "cogtools manual"\n',
        '.\\" Generated from the click command by cogtools.cli.manpage; do not edit.\n',
        f".SH NAME\ncogtools-{sub} \\- {escape(summary[:1].lower() + summary[1:])}\n",
        _synopsis_section(sub, params, subcommands),
        ".SH DESCRIPTION\n" + _paragraphs(inspect.cleandoc(command.help or summary)).removeprefix(".PP\n"),
        _commands_section(subcommands),
    ]
    out += [f".SH {title}\n{body()}" for title, body in page.sections]
    out.append(_options_section(options))
    if page.environment:
        out.append(".SH ENVIRONMENT\n" + "".join(f".TP\n.B {name}\n{ENVIRONMENT[name]}\n" for name in page.environment))
    if page.files:
        out.append(".SH FILES\n" + "".join(f".TP\n.I {escape(name)}\n{FILES[name]}\n" for name in page.files))
    out.append(_exit_status_section(page))
    if page.examples:
        examples = "".join(
            f".PP\n{escape(what)}\n.PP\n.RS 4\n.nf\n{escape(line)}\n.fi\n.RE\n" for what, line in page.examples
        )
        out.append(".SH EXAMPLES\n" + examples.removeprefix(".PP\n"))
    out.append(".SH SEE ALSO\n" + _see_also(["cogtools(1)", *page.see_also]))
    return "".join(out)


def _synopsis_section(sub: str, params: list[click.Parameter], subcommands: Subcommands) -> str:
    """SYNOPSIS: the command's options (but help and version) and arguments, each subcommand's,
    and the help and version options."""
    out = [f".SH SYNOPSIS\n.B cogtools {sub}\n"]
    out += [
        f"[{_option_label(o)}]\n"
        for o in params
        if isinstance(o, click.Option) and not o.hidden and "--help" not in o.opts and "--version" not in o.opts
    ]
    out += [_argument(a) + "\n" for a in params if isinstance(a, click.Argument)]
    out += [
        f".br\n.B cogtools {sub} {name}\n{_synopsis(sub_command, sub_ctx)}"
        for name, sub_command, sub_ctx in subcommands
    ]
    out.append(f".br\n.B cogtools {sub}\n[\\fB\\-h\\fR|\\fB\\-\\-help\\fR|\\fB\\-V\\fR|\\fB\\-\\-version\\fR]\n")
    return "".join(out)


def _commands_section(subcommands: Subcommands) -> str:
    """COMMANDS: each subcommand with its help and its options ("" for a command that has none)."""
    if not subcommands:
        return ""
    out = [".SH COMMANDS\n"]
    for name, sub_command, sub_ctx in subcommands:
        out.append(f".TP\n.B {name}\n{escape(' '.join(inspect.cleandoc(sub_command.help or '').split()))}\n")
        options_of = [
            p for p in sub_command.get_params(sub_ctx) if isinstance(p, click.Option) and "--help" not in p.opts
        ]
        if options_of:
            out.append(
                ".RS\n" + "".join(f".TP\n{_option_label(o)}\n{escape(o.help or '')}\n" for o in options_of) + ".RE\n"
            )
    return "".join(out)


def _options_section(options: list[click.Option]) -> str:
    """OPTIONS: each with its help and its default, where it shows one."""
    out = [".SH OPTIONS\n"]
    for option in options:
        text = option.help or ""
        if option.show_default and option.default is not None and not option.is_flag:
            text += f" (default: {option.default})"
        out.append(f".TP\n{_option_label(option)}\n{escape(text)}\n")
    return "".join(out)


def _exit_status_section(page: Page) -> str:
    """EXIT STATUS: success, the command's own statuses, and every error code's."""
    out = [".SH EXIT STATUS\n.TP\n.B 0\nSuccess.\n"]
    out += [f".TP\n.B {status}\n{escape(text)}\n" for status, text in page.statuses]
    out += [f".TP\n.B {status} {code}\n{escape(text)}\n" for code, status, text in ERROR_TABLE]
    return "".join(out)


def pages() -> dict[str, str]:
    """File name -> text of every generated page."""
    return {
        f"cogtools-{sub}.1": render(sub, command, PAGES[sub])
        for sub, command in group.commands.items()
        if sub not in OWN_MAN_PAGES
    }


def main(argv: t.Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m cogtools.cli.manpage DIRECTORY", file=sys.stderr)
        return 2
    directory = Path(args[0])
    for name, text in pages().items():
        (directory / name).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
