"""The clients cogtools serves: Gemini CLI, the MCP clients' configuration files, and the exported
declarations; each says what it runs without asking and how its files are written and checked."""
