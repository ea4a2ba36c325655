# prompt.sh: sourced by the agent adapters beside it. optimize/agents_test.go
# checks the prompt it builds for each mode from a real request; no agent,
# model or network is available to the tests.
#
# It reads the request optimizer wrote to $OPTIMIZER_REQUEST
# (docs/generators.md) with jq, and sets FILE, the target's file, and
# PROMPT, the task for the agent. The agent runs in a private worktree at
# base, with the parent already applied for a repair or a refine; optimizer
# reads what it leaves there as the candidate.
set -eu
: "${OPTIMIZER_REQUEST:?run me from optimizer optimize --generate-edit}"
req=$OPTIMIZER_REQUEST
FILE=$(jq -r .target.file "$req")
name=$(jq -r .target.name "$req")
case "$(jq -r .mode "$req")" in
generate)
  task="Make the function $name in $FILE faster without changing what it returns for any input." ;;
repair)
  task="An attempt to make $name in $FILE faster is already applied in this directory, but it fails: $(jq -r '.parent.failure | "\(.kind): \(.message)\n\(.output // "")"' "$req")
Fix it so that the tests pass, and keep it fast." ;;
refine)
  task="The change already applied in this directory makes $name in $FILE $(jq -r .parent.speedup "$req")x faster than the original. Make it faster still, without changing what it returns for any input." ;;
*)
  echo "unknown mode" >&2; exit 2 ;;
esac
PROMPT="$task
Edit only $FILE. Do not commit, do not create branches, do not run benchmarks.
CPU profile of the original, as JSON: $(jq -c '.target.profile // {}' "$req")"
