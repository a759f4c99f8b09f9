"""FastMCP serving the two tools that benchmarks/mcp_load.py gives cogtools, for comparison.

Run by mcp_load.py with an interpreter that has fastmcp (``--fastmcp-python``); it is written the
way a FastMCP user would write it, with nothing tuned:

- ``greet`` (the template's counterpart) returns ``f"Hello, {who}!"``;
- ``shout`` (the command's counterpart) runs the same program as cogtools' tool,
  ``sh -c ': MARKER; echo "$0"' WHO``, with :func:`subprocess.run` in a plain ``def``: FastMCP
  runs a synchronous tool in anyio's worker threads (at most 40 at once by default), so calls
  overlap without the user writing ``async``. There is no counterpart of cogtools' --max-calls.

It serves the streamable HTTP transport at http://HOST:PORT/mcp until SIGTERM or SIGINT (uvicorn's
graceful shutdown), without the banner (which would also look for a newer release) and with
uvicorn's access log off, as cogtools serves; or, with ``--stdio`` (for benchmarks/mcp_first.py),
the stdio transport until its input ends. With ``--jwks-uri`` (for benchmarks/mcp_auth.py), the HTTP
server checks a bearer token on each request with FastMCP's own verifier,
``fastmcp.server.auth.providers.jwt.JWTVerifier(jwks_uri=..., issuer=..., audience=...)``:

    python benchmarks/fastmcp_server.py --port PORT --marker MARKER
    python benchmarks/fastmcp_server.py --port PORT --marker MARKER --jwks-uri URL --issuer URL --audience URL
    python benchmarks/fastmcp_server.py --stdio --marker MARKER
"""

from __future__ import annotations

import argparse
import subprocess
import typing as t

from fastmcp import FastMCP

SCRIPT = ': {marker}; echo "$0"'


def build(marker: str, auth: t.Any = None) -> FastMCP:
    server = FastMCP("fastmcp-load", auth=auth)
    script = SCRIPT.format(marker=marker)

    @server.tool
    def greet(who: str) -> str:
        """Greet."""
        return f"Hello, {who}!"

    @server.tool
    def shout(who: str) -> str:
        """Echo through a program."""
        done = subprocess.run(["sh", "-c", script, who], capture_output=True, text=True, check=True, timeout=60)
        return done.stdout

    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int)
    parser.add_argument("--stdio", action="store_true", help="serve stdio instead of HTTP")
    parser.add_argument("--marker", required=True, help="a word in the program's command line, to find leftovers by")
    parser.add_argument("--jwks-uri", help="check bearer tokens against this JWKS (HTTP only)")
    parser.add_argument("--issuer", help="the tokens' issuer (with --jwks-uri)")
    parser.add_argument("--audience", help="the tokens' audience, this server's resource URL (with --jwks-uri)")
    args = parser.parse_args()
    auth = None
    if args.jwks_uri:
        from fastmcp.server.auth.providers.jwt import JWTVerifier

        auth = JWTVerifier(jwks_uri=args.jwks_uri, issuer=args.issuer, audience=args.audience)
    if args.stdio:
        build(args.marker).run(transport="stdio", show_banner=False, log_level="WARNING")
    elif args.port is None:
        parser.error("--port is required (or --stdio)")
    else:
        build(args.marker, auth).run(
            transport="http", host=args.host, port=args.port, show_banner=False, log_level="WARNING"
        )


if __name__ == "__main__":
    main()
