"""The bottom layer: the model, the errors, the limited readers of JSON, JSONC, YAML and TOML, and
the small helpers every layer above uses (limits, files, places, printable text, environments).
It imports nothing of cogtools above it."""
