#!/usr/bin/env python3
"""Pick a value out of a JSON document by a dotted path."""
# cogtools-tool
# $schema: schema:agladysh-research.org,2025/cogtools:tool
# description: |
#   Pick a value out of a JSON document by a dotted path (`items.0.name`), and print it as JSON.
#   Use it instead of reading a large document yourself.
# parameters:
#   document:
#     type: string
#     description: The JSON document.
#   path:
#     type: string
#     pattern: "^[^.]+(\\.[^.]+)*$"
#     description: Keys and list indexes, separated by dots.
# examples:
#   - arguments:
#       document: '{"items": [{"name": "a"}, {"name": "b"}]}'
#       path: items.1.name
#     expect: {output: "\"b\"\n"}
#   - arguments: {document: "{}", path: missing}
#     expect: {error: EXECUTION_FAILED}
# category: Text
# risk_level: low
# side_effects: []

import json
import sys


def pick(value, path):
    for part in path.split("."):
        if isinstance(value, list):
            value = value[int(part)]
        elif isinstance(value, dict):
            value = value[part]
        else:
            raise KeyError(part)
    return value


arguments = json.load(sys.stdin)
try:
    document = json.loads(arguments["document"])
except ValueError as error:
    sys.exit(f"the document is not JSON: {error}")
try:
    print(json.dumps(pick(document, arguments["path"]), indent=2, ensure_ascii=False))
except (KeyError, IndexError, ValueError) as error:
    sys.exit(f"no such path: {arguments['path']} (stopped at {error})")
