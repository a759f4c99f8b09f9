"""Parameter schemas: the JSON Schemas the package ships and the check of a document against one
(:mod:`.shipped`), the dialects clients read (:mod:`.dialects`, :mod:`.strict`), and how a call's
arguments are checked (:mod:`.validate`, :mod:`.patterns`, :mod:`.string_formats`).

This module imports nothing: every ``cogtools-call`` imports the package for :mod:`.validate`."""
