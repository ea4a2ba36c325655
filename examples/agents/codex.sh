#!/bin/sh
# OpenAI Codex CLI as an edit-in-place generator.
#   optimizer optimize --generate-edit 'sh /path/to/examples/agents/codex.sh'
# optimize/agents_test.go runs it against a stand-in for the CLI that
# checks these flags; it is not run against the real agent.
. "$(dirname "$0")/prompt.sh"
exec codex exec --full-auto "$PROMPT"
