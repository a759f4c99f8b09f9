"""The services the commands are made of: the one call path (invoke), the one offer (discovery),
the built-in tools, lint, test, sync, doctor and configuration edits."""
