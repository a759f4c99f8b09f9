"""``cogtools config``: the effective settings, and where each came from."""

from __future__ import annotations

import json
import os

import click

from cogtools.cli.boundary import write_stdout
from cogtools.cli.common import CONTEXT_SETTINGS, version_option


@click.command("config", context_settings=CONTEXT_SETTINGS, short_help="Show the effective settings and their origins.")
@click.option("--show-origin", is_flag=True, help="Prefix each setting with where it came from (a file and line, the environment, or the default).")
@version_option()
def command(show_origin: bool) -> None:
    """Show the effective settings of the current project, one per line as KEY: VALUE (VALUE in
    JSON), the policy and limits one per line (policy.role: ...) as calls see them: the project's
    file can narrow the user's policy, never widen it.

    Settings come from, lowest precedence first: the defaults, the user's
    $XDG_CONFIG_HOME/cogtools/config.yaml, pyproject.toml's [tool.cogtools], the project's
    .cogtoolrc.yaml (or the file COGTOOLS_CONFIG names), and COGTOOLS_* environment variables.
    """
    from cogtools.policy import effective_settings
    from cogtools.project import discover_project
    from cogtools.run import DEFAULT_LIMITS

    project = discover_project()
    rows = []
    for key, setting in project.config.settings.items():
        if key == "policy":
            rows += [(origin, f"policy.{name}: {json.dumps(value)}") for name, value, origin in effective_settings(project)]
        elif key == "limits":
            rows += [
                (setting.origin if name in setting.value else "default", f"limits.{name}: {json.dumps(setting.value.get(name, default))}")
                for name, default in DEFAULT_LIMITS.items()
            ]
        else:
            rows.append((setting.origin, f"{key}: {json.dumps(setting.value)}"))
    tool_path = os.environ.get("COGTOOLS_TOOL_PATH")
    if tool_path:
        rows.append(("environment COGTOOLS_TOOL_PATH", f"tool_path: {json.dumps(tool_path.split(os.pathsep))}"))
    rows.append((f"found by {project.reason}", f"project_root: {json.dumps(str(project.root))}"))
    write_stdout("".join(f"{origin}\t{text}\n" if show_origin else f"{text}\n" for origin, text in rows))
