"""cogtools: write an LLM tool once, declaratively, and serve it to agents.

The package is imported by every ``cogtools-call``, which is a fresh process per tool call:
keep this module free of imports.
"""

__version__ = "0.1.0"
