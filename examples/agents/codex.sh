#!/bin/sh
# OpenAI Codex CLI as an edit-in-place generator. NOT EXERCISED BY THE TESTS.
#   optimizer optimize --generate-edit 'sh /path/to/examples/agents/codex.sh'
. "$(dirname "$0")/prompt.sh"
exec codex exec --full-auto "$PROMPT"
