#!/bin/sh
# Claude Code as an edit-in-place generator.
#   optimizer optimize --generate-edit 'sh /path/to/examples/agents/claude.sh'
# optimize/agents_test.go runs it against a stand-in for the CLI that
# checks these flags; it is not run against the real agent.
. "$(dirname "$0")/prompt.sh"
exec claude -p "$PROMPT" --permission-mode acceptEdits --allowedTools "Read,Edit,Write"
