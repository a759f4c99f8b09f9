"""What each MCP client's configuration needs to start ``cogtools mcp`` for a project, and how
it is merged into the file the client reads. Pure: text in, text out; the caller writes."""

from __future__ import annotations

import sys
import typing as t
from pathlib import Path

from cogtools.errors import ConfigInvalidError

#: Where each client keeps its servers, relative to the project.
CLIENT_FILES = {
    "claude-code": ".mcp.json",
    "cursor": ".cursor/mcp.json",
    "vscode": ".vscode/mcp.json",
    "gemini": ".gemini/settings.json",
}
#: The name the server has in every client's configuration.
SERVER_NAME = "cogtools"


def servers_key(client: str) -> str:
    return "servers" if client == "vscode" else "mcpServers"


def server_entry(client: str, root: Path) -> dict[str, t.Any]:
    """The server's entry for ``client``: this very interpreter, by absolute path, so that it runs
    whether or not the client's environment has cogtools on its PATH (an unactivated virtual
    environment), serving the project at ``root`` (``${workspaceFolder}`` for VS Code).

    The interpreter runs isolated (``-I``): a client starts the server in the workspace, where
    ``-m`` would put the working directory first on ``sys.path`` (a ``cogtools/`` package the
    agent wrote there would run instead), and a ``PYTHONPATH`` the workspace's ``.env`` gave the
    client would be read. Where cogtools is installed in the user's own site-packages, which
    ``-I`` leaves out, only the working directory is taken off the path."""
    project = "${workspaceFolder}" if client == "vscode" else str(root)
    entry: dict[str, t.Any] = {"command": sys.executable, "args": [*_isolated(), "mcp", "--project", project]}
    if client in ("vscode", "claude-code"):
        entry = {"type": "stdio", **entry}
    return entry


def _isolated() -> list[str]:
    """The interpreter's arguments that run ``cogtools`` with nothing of the working directory
    or the environment on ``sys.path`` (:func:`server_entry`)."""
    import site

    import cogtools

    user_site = site.getusersitepackages() if site.ENABLE_USER_SITE else None
    if user_site and Path(cogtools.__file__).resolve().is_relative_to(Path(user_site).resolve()):
        code = "import sys; sys.path[:] = [p for p in sys.path if p]; from cogtools.cli.entry import main; sys.exit(main())"
        return ["-c", code]
    return ["-I", "-m", "cogtools"]


def client_config(client: str, root: Path) -> dict[str, t.Any]:
    """The snippet ``client``'s configuration needs."""
    return {servers_key(client): {SERVER_NAME: server_entry(client, root)}}


class Merged(t.NamedTuple):
    text: str
    #: True when an entry a person wrote differently was kept (not forced).
    kept: bool


def merge(old: str | None, client: str, root: Path, path: str, *, force: bool = False) -> Merged:
    """``old`` (the client's file, or None) with the server's entry added; every other byte stays,
    comments included (VS Code and Gemini CLI read JSON with comments). An entry of that name that
    differs is kept unless ``force``. A file that is not a JSON object, or an edit that would lose
    a comment, is CONFIG_INVALID, left untouched."""
    from cogtools import jsonc
    from cogtools.gemini import edit_settings

    document: t.Any = {}
    if old is not None and old.strip():
        try:
            document = jsonc.loads(old)
        except jsonc.JsoncError as e:
            raise ConfigInvalidError(
                f"not JSON ({e.message}, line {e.line}); left untouched", path=path, line=e.line
            ) from e
        if not isinstance(document, dict):
            raise ConfigInvalidError("not a JSON object; left untouched", path=path)
    servers = document.get(servers_key(client), {})
    if not isinstance(servers, dict):
        raise ConfigInvalidError(f"`{servers_key(client)}` is not an object; left untouched", path=path)
    entry = server_entry(client, root)
    if SERVER_NAME in servers and servers[SERVER_NAME] != entry and not force:
        return Merged(old or "", True)
    if servers.get(SERVER_NAME) == entry and old is not None:
        return Merged(old, False)
    return Merged(edit_settings(old, path, [((servers_key(client), SERVER_NAME), entry)]), False)
