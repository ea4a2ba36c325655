#!/bin/sh
# aider as an edit-in-place generator.
#   optimizer optimize --generate-edit 'sh /path/to/examples/agents/aider.sh'
# optimize/agents_test.go runs it against a stand-in for the CLI that
# checks these flags; it is not run against the real agent.
. "$(dirname "$0")/prompt.sh"
exec aider --yes-always --no-auto-commits --no-git --message "$PROMPT" "$FILE"
