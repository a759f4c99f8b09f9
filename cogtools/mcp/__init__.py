"""Serving the project's tools over MCP (stdio and streamable HTTP) on the official SDK."""
