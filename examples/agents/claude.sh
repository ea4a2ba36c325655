#!/bin/sh
# Claude Code as an edit-in-place generator. NOT EXERCISED BY THE TESTS.
#   optimizer optimize --generate-edit 'sh /path/to/examples/agents/claude.sh'
. "$(dirname "$0")/prompt.sh"
exec claude -p "$PROMPT" --permission-mode acceptEdits --allowedTools "Read,Edit,Write"
