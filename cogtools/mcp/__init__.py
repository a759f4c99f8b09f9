"""Serving the project's tools over MCP (stdio and streamable HTTP) on the official SDK (the
optional extra ``cogtools[mcp]``; nothing else in cogtools imports it).

The modules, from the bottom:

- :mod:`cogtools.mcp.watching`: Linux's inotify, knowing when a directory changes.
- :mod:`cogtools.mcp.live`: the catalog as its files are now, and the loop that follows them and
  has a change announced.
- :mod:`cogtools.mcp.calls`: one call as ``cogtools-call`` runs it, and its outcome as MCP sends it.
- :mod:`cogtools.mcp.listing`: what ``tools/list`` answers for one state of the catalog, and which
  calls are tried on the event loop.
- :mod:`cogtools.mcp.reporting`: what a call tells its client while it runs (progress, log
  messages).
- :mod:`cogtools.mcp.audience`: the connections of the handshake era to tell of a change.
- :mod:`cogtools.mcp.server`: :class:`~cogtools.mcp.server.ToolServer`, which holds the state
  (the live catalog, its listing, the calls' limiter, who to tell of a change) and the SDK's
  ``Server`` it serves with.
- :mod:`cogtools.mcp.stdio`: serving over standard input and output.
- :mod:`cogtools.mcp.web`: serving over HTTP: the app behind its checks (``Host``, ``Origin``,
  the token), the socket, uvicorn.
- :mod:`cogtools.mcp.bounded_head`: uvicorn's httptools protocol with a request's head held to
  16 KiB.
- :mod:`cogtools.mcp.direct`: the calls the HTTP server answers in front of the SDK's app.

This module imports nothing: ``cogtools mcp`` reads its defaults here before it knows whether
the extra is installed, and imports the modules that serve (each importing what it uses at its
top, the SDK included) only then, and only the transport it serves.
"""

#: How many calls run at once, unless told otherwise.
DEFAULT_MAX_CALLS = 8
#: How often, in seconds, the files are checked for changes where the kernel does not tell.
DEFAULT_INTERVAL = 1.0
