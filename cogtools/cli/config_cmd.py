"""``cogtools config``: show the settings and where each came from, and change them, as ``git
config`` does (get, set, unset, add, remove), or interactively on a terminal."""

from __future__ import annotations

import json
import os
import sys
import typing as t
from pathlib import Path

import click
from click.shell_completion import CompletionItem

from cogtools.cli.boundary import warn, workspace_env_note, write_text
from cogtools.cli.common import CONTEXT_SETTINGS, version_option
from cogtools.core.errors import CogtoolsError
from cogtools.core.printable import printable
from cogtools.load.project import find_project, find_root
from cogtools.run import DEFAULT_LIMITS
from cogtools.services.config_edit import (
    CONFIG_FILE,
    WALK,
    Change,
    apply,
    check_key,
    file_value,
    is_list,
    level_path,
    parse_value,
    setting_keys,
)
from cogtools.trust.policy import effective_settings

if t.TYPE_CHECKING:
    from cogtools.load.project import Project

PROG = "cogtools config"


def _complete_keys(lists_only: bool = False) -> t.Callable[..., list[t.Any]]:
    def complete(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[t.Any]:

        return [
            CompletionItem(key, help=str(schema.get("description", ""))[:80])
            for key, schema in setting_keys().items()
            if key.startswith(incomplete) and (not lists_only or is_list(key))
        ]

    return complete


def level_options(f: t.Callable[..., t.Any]) -> t.Callable[..., t.Any]:
    """--project (the default) or --user: which file a change is written to (and, for get, the
    only file read)."""
    f = click.option(
        "--user",
        "level",
        flag_value="user",
        help="The user's file, $XDG_CONFIG_HOME/cogtools/config.yaml (git config's global level).",
    )(f)
    f = click.option(
        "--config-file",
        "level",
        flag_value=CONFIG_FILE,
        help=(
            "The project's .cogtoolrc.yaml, created if missing, even where package.json keeps the settings (it"
            " then replaces their settings, key by key)."
        ),
    )(f)
    return click.option(
        "--project",
        "level",
        flag_value="project",
        help=(
            "The project's .cogtoolrc.yaml where it has one, else its package.json's \"cogtools\" key (added"
            " if missing) where it has a package.json, else a new .cogtoolrc.yaml (the default for a change; git"
            " config's local level)."
        ),
    )(f)


def effective(project: Project) -> list[tuple[str, t.Any, str]]:
    """Every setting as calls see it: (key, value, origin); the policy and limits key by key."""

    rows: list[tuple[str, t.Any, str]] = []
    for key, setting in project.config.settings.items():
        if key == "policy":
            rows += [(f"policy.{name}", value, origin) for name, value, origin in effective_settings(project)]
        elif key == "limits":
            rows += [
                (
                    f"limits.{name}",
                    setting.value.get(name, default),
                    setting.origin if name in setting.value else "default",
                )
                for name, default in DEFAULT_LIMITS.items()
            ]
        else:
            rows.append((key, setting.value, setting.origin))
    return rows


def _shown(value: t.Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _root_and_environ() -> tuple[Path, t.Mapping[str, str]]:
    """The project root, found without reading the configuration (a change may mend it)."""

    return find_root(Path.cwd().resolve(), os.environ)[0], os.environ


@click.group(
    "config",
    context_settings=CONTEXT_SETTINGS,
    invoke_without_command=True,
    short_help="Show and change the settings, and their origins.",
)
@click.option(
    "--show-origin",
    is_flag=True,
    help="Prefix each setting with where it came from (a file and line, the environment, or the default).",
)
@click.option(
    "--non-interactive", is_flag=True, help="Never ask: without a subcommand, list the settings even on a terminal."
)
@level_options
@version_option()
@click.pass_context
def command(ctx: click.Context, show_origin: bool, non_interactive: bool, level: str | None) -> None:
    """Show the effective settings of the current project, or change them.

    Without a subcommand on a terminal, walk through the settings that matter (tool sources, env
    priority, role, denied categories, discovery mode), showing each value and its origin, and
    write what changed to the project's file (or, with --user, to yours). Otherwise, and with
    --non-interactive, list every setting as 'cogtools config list' does.

    KEY is a setting, dotted for one inside another (policy.denied_categories, limits.timeout).
    VALUE is YAML: a scalar, or a flow collection such as '[Billing, Payroll]' (put '--' before a
    value that starts with '-'). A change is
    checked against the configuration's schema before anything is written, and the file keeps
    its comments, order and formatting. A project's file can be written by the agent, so it can
    only narrow the policy: a change there that would raise the role or widen a limit is refused
    (it belongs in your own file, --user, or the environment).

    Settings come from, lowest precedence first: the defaults, the user's
    $XDG_CONFIG_HOME/cogtools/config.yaml, pyproject.toml's [tool.cogtools], package.json's
    "cogtools" key, the project's .cogtoolrc.yaml (or the file COGTOOLS_CONFIG names), and
    COGTOOLS_* environment variables. A project without .cogtoolrc.yaml that has a package.json
    keeps its settings in its "cogtools" key: a change is written there (the key added if
    missing), keeping every other byte of the file as it was; --config-file writes the
    .cogtoolrc.yaml instead, which then replaces package.json's settings key by key.
    """
    if ctx.invoked_subcommand is not None:
        return
    interactive = not non_interactive and not show_origin and sys.stdin.isatty() and sys.stdout.isatty()
    if interactive:
        walk(level or "project")
    else:
        list_settings(show_origin)


@command.command("list", context_settings=CONTEXT_SETTINGS)
@click.option("--show-origin", is_flag=True, help="Prefix each setting with where it came from.")
def list_command(show_origin: bool) -> None:
    """List every setting as KEY: VALUE (VALUE in JSON), the policy and limits one per line
    (policy.role: ...) as calls see them."""
    list_settings(show_origin)


def list_settings(show_origin: bool) -> None:

    project = find_project()
    rows = [(origin, f"{key}: {json.dumps(value)}") for key, value, origin in effective(project)]
    tool_path = os.environ.get("COGTOOLS_TOOL_PATH")
    if tool_path:
        rows.append(("environment COGTOOLS_TOOL_PATH", f"tool_path: {json.dumps(tool_path.split(os.pathsep))}"))
    rows.append((f"found by {project.reason}", f"project_root: {json.dumps(str(project.root))}"))
    write_text("".join(f"{origin}\t{text}\n" if show_origin else f"{text}\n" for origin, text in rows))

    if note := workspace_env_note():
        warn(PROG, f"note: {note}")


@command.command("get", context_settings=CONTEXT_SETTINGS)
@click.argument("key", shell_complete=_complete_keys())
@click.option("--show-origin", is_flag=True, help="Prefix the value with where it came from.")
@level_options
def get_command(key: str, show_origin: bool, level: str | None) -> int:
    """Print the value of KEY as calls see it (a string as it is, anything else as JSON); with
    --project or --user, as that file sets it. Exit status 1 when it is set nowhere."""

    check_key(key)
    if level is not None:
        root, environ = _root_and_environ()
        path = level_path(level, root, environ)
        found, in_file = file_value(path, key)
        if not found:
            return 1
        write_text(f"{path}\t{_shown(in_file)}\n" if show_origin else _shown(in_file) + "\n")
        return 0

    rows = effective(find_project())
    if "." not in key and key in ("policy", "limits"):  # the section, key by key, as one mapping
        value: t.Any = {k.split(".", 1)[1]: v for k, v, _ in rows if k.startswith(key + ".")}
        origins = sorted({o for k, _, o in rows if k.startswith(key + ".") and o != "default"}) or ["default"]
        origin = " + ".join(origins)
    else:
        matches = [(v, o) for k, v, o in rows if k == key]
        if not matches or matches[0][0] is None:
            return 1
        value, origin = matches[0]
    write_text(f"{origin}\t{_shown(value)}\n" if show_origin else _shown(value) + "\n")
    return 0


def _change(action: str, key: str, text: str | None, level: str | None) -> int:

    root, environ = _root_and_environ()
    if action == "unset":
        # A key the file sets may be unset even when it is no setting (a typo being mended).
        if not file_value(level_path(level or "project", root, environ), key)[0]:
            check_key(key)
    else:
        check_key(key, lists_only=action in ("add", "remove"))
    value = parse_value(text) if text is not None else None
    outcome = apply([Change(action, key, value, text)], level=level or "project", root=root, environ=environ)
    for note in outcome.notes:
        warn(PROG, f"note: {note}")
    if not outcome.changed:
        said = {"unset": "is not set there", "add": f"already lists {text}", "remove": f"does not list {text}"}.get(
            action, "is so already"
        )
        warn(PROG, f"nothing to change: {key} {said}")
    return 0


@command.command("set", context_settings=CONTEXT_SETTINGS)
@click.argument("key", shell_complete=_complete_keys())
@click.argument("value")
@level_options
def set_command(key: str, value: str, level: str | None) -> int:
    """Set KEY to VALUE (YAML) in the project's file, or with --user in yours."""
    return _change("set", key, value, level)


@command.command("unset", context_settings=CONTEXT_SETTINGS)
@click.argument("key", shell_complete=_complete_keys())
@level_options
def unset_command(key: str, level: str | None) -> int:
    """Remove KEY from the project's file, or with --user from yours (a mapping left empty
    goes too)."""
    return _change("unset", key, None, level)


@command.command("add", context_settings=CONTEXT_SETTINGS)
@click.argument("key", shell_complete=_complete_keys(lists_only=True))
@click.argument("value")
@level_options
def add_command(key: str, value: str, level: str | None) -> int:
    """Add VALUE (YAML) to the list setting KEY (tool_sources, python_path,
    policy.denied_categories), unless it is there."""
    return _change("add", key, value, level)


@command.command("remove", context_settings=CONTEXT_SETTINGS)
@click.argument("key", shell_complete=_complete_keys(lists_only=True))
@click.argument("value")
@level_options
def remove_command(key: str, value: str, level: str | None) -> int:
    """Remove VALUE (YAML) from the list setting KEY."""
    return _change("remove", key, value, level)


def walk(level: str) -> None:
    """The interactive walk: each setting that matters with its value and origin; what is
    typed is checked at once (and asked again when wrong); the changes are written at the end,
    once confirmed."""

    project = find_project()
    root, environ = project.root, project.environ
    path = level_path(level, root, environ)
    current = {key: (value, origin) for key, value, origin in effective(project)}
    click.echo(printable(f"Settings of the project in {root}; changes go to {path}."))
    click.echo("Press Enter to keep a value; type YAML to change it ('[a, b]' for a list).")
    changes: list[Change] = []
    for key in WALK:
        value, origin = current[key]
        schema = setting_keys()[key]
        click.echo(f"\n{key}: {schema.get('description', '')}")
        shown = json.dumps(value, ensure_ascii=False)
        while True:
            choices = schema.get("enum")
            answer = click.prompt(
                f"  {key} ({origin})",
                default=value if choices else shown,
                type=click.Choice(choices) if choices else str,
                show_choices=bool(choices),
            )
            text = answer if choices else str(answer)
            if text == (value if choices else shown):
                break
            try:
                change = Change("set", key, parse_value(text), text)
                apply([*changes, change], level=level, root=root, environ=environ, dry_run=True)
            except CogtoolsError as e:
                click.echo(printable(f"  {e.message}"), err=True)
                continue
            changes.append(change)
            break
    if not changes:
        click.echo("\nNothing changed.")
        return
    click.echo(printable("\n" + "".join(f"  {c.key}: {c.text}\n" for c in changes), "\n"), nl=False)
    if click.confirm(printable(f"Write {len(changes)} change{'s' * (len(changes) != 1)} to {path}?"), default=True):
        outcome = apply(changes, level=level, root=root, environ=environ)
        for note in outcome.notes:
            warn(PROG, f"note: {note}")
        click.echo(printable(f"Written to {path}."))
    else:
        click.echo("Nothing written.")
