#!/bin/sh
# Count the words, lines and characters of a text.
#
# cogtools-tool
# $schema: schema:agladysh-research.org,2025/cogtools:tool
# description: Count the words, lines and characters of a text (wc).
# parameters:
#   text:
#     type: string
#     description: The text to count.
# examples:
#   - text: "one two three\nfour"
#   - "how many words is this paragraph?"
# category: Text
# risk_level: low
# side_effects: []
#
# The text arrives as $COGTOOLS_ARG_TEXT (and, with the other arguments, as JSON on stdin).
set -eu
printf '%s' "$COGTOOLS_ARG_TEXT" | wc -w -l -m | awk '{ printf "words: %s, lines: %s, characters: %s\n", $2, $1, $3 }'
