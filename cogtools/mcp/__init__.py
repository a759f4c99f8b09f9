"""Serving the project's tools over MCP (stdio and streamable HTTP) on the official SDK (the
optional extra ``cogtools[mcp]``; nothing else in cogtools imports the SDK).

:class:`cogtools.mcp.server.ToolServer` holds a server's state and composes the SDK's ``Server``;
CONTRIBUTING.md says what each module of the package does.

This module imports nothing: ``cogtools mcp`` reads its defaults here before it knows whether
the extra is installed, and imports the modules that serve (each importing what it uses at its
top, the SDK included) only then, and only the transport it serves.
"""

#: How many calls run at once, unless told otherwise.
DEFAULT_MAX_CALLS = 8
#: How often, in seconds, the files are checked for changes where the kernel does not tell.
DEFAULT_INTERVAL = 1.0
#: The server's name, and what it tells clients of itself (``initialize``, ``server/discover``).
SERVER_NAME = "cogtools"
INSTRUCTIONS = "The tools of this project, served by cogtools."
