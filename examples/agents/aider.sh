#!/bin/sh
# aider as an edit-in-place generator. NOT EXERCISED BY THE TESTS.
#   optimizer optimize --generate-edit 'sh /path/to/examples/agents/aider.sh'
. "$(dirname "$0")/prompt.sh"
exec aider --yes-always --no-auto-commits --no-git --message "$PROMPT" "$FILE"
