package optimize

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/internal/testenv"
)

// agentsDir holds the adapters for agent CLIs.
const agentsDir = "../examples/agents"

// standIn is the part every stand-in agent CLI shares. Given $prompt, it
// checks that the prompt names the target and the one file to edit. Then it
// writes a correct, faster SumSquares there, as an agent would, and logs
// its name to $STANDIN_LOG. A stand-in exits 2 on arguments its CLI's
// documented contract does not have.
const standIn = `
case "$PWD" in "$STANDIN_REPO") echo "$cli stand-in: ran in the user's repository" >&2; exit 1;; esac
file=$(printf '%s\n' "$prompt" | sed -n 's/^Edit only \(.*\)\. Do not commit.*/\1/p')
case "$prompt" in *sumsq.SumSquares*) ;; *) echo "$cli stand-in: the prompt does not name the target: $prompt" >&2; exit 2;; esac
test "$file" = sumsq/sumsq.go || { echo "$cli stand-in: the prompt names no file to edit: $prompt" >&2; exit 2; }
echo "$cli" >> "$STANDIN_LOG"
printf 'package sumsq\n\n// SumSquares returns the sum of the squares of xs.\nfunc SumSquares(xs []int) int {\n\tt := 0\n\tfor _, x := range xs {\n\t\tt += x * x\n\t}\n\treturn t\n}\n' > "$file"
`

// standIns are stand-ins for the agent CLIs the adapters call, each
// following its CLI's documented invocation and output. The claude -p
// stand-in prints the final answer as text on stdout. The codex exec one
// streams its progress to stderr and prints the final message on stdout.
// The aider one prints its chat.
var standIns = map[string]string{
	"claude": `cli=claude
test "$1" = -p || { echo "claude stand-in: want -p PROMPT (print mode), got: $*" >&2; exit 2; }
prompt=$2
shift 2
test "$*" = "--permission-mode acceptEdits --allowedTools Read,Edit,Write" || { echo "claude stand-in: flags $*" >&2; exit 2; }
` + standIn + `echo "SumSquares now adds x*x in one loop, with no slice and no strings."
`,
	"codex": `cli=codex
test "$1" = exec && test "$2" = --full-auto && test $# -eq 3 || { echo "codex stand-in: want exec --full-auto PROMPT, got: $*" >&2; exit 2; }
prompt=$3
` + standIn + `echo "[exec] editing sumsq/sumsq.go" >&2
echo "SumSquares now adds x*x in one loop."
`,
	"aider": `cli=aider
test "$1 $2 $3 $4" = "--yes-always --no-auto-commits --no-git --message" && test $# -eq 6 || { echo "aider stand-in: flags $*" >&2; exit 2; }
prompt=$5
test "$6" = sumsq/sumsq.go || { echo "aider stand-in: want the target's file last, got $6" >&2; exit 2; }
` + standIn + `echo "Applied edit to sumsq/sumsq.go"
`,
}

// withStandIns puts the stand-in CLIs first on PATH for the test, and
// returns the log they append their arguments to.
func withStandIns(t *testing.T, repo string) string {
	t.Helper()
	if _, err := exec.LookPath("jq"); err != nil {
		t.Fatal("the agent adapters read the request with jq: install it (apt-get install jq; .ci/run does)")
	}
	bin := t.TempDir()
	for name, body := range standIns {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\nset -eu\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	log := filepath.Join(t.TempDir(), "calls.log")
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("STANDIN_LOG", log)
	t.Setenv("STANDIN_REPO", repo)
	return log
}

// TestAgentAdapters runs the adapters of examples/agents as the loop's
// edit-in-place generators, each with a stand-in for its agent CLI. Each
// adapter builds its prompt from a real request and calls its CLI with the
// documented flags, once. The edit a stand-in makes is a candidate. The
// first judged passes the fixture's tests, and the other two, the same
// tree, are duplicates of it.
func TestAgentAdapters(t *testing.T) {
	testenv.Once(t)
	env := newLoopEnv(t)
	log := withStandIns(t, env.repo)
	clis := []string{"claude", "codex", "aider"}
	var gens []Generator
	for _, cli := range clis {
		adapter, err := filepath.Abs(filepath.Join(agentsDir, cli+".sh"))
		if err != nil {
			t.Fatal(err)
		}
		gens = append(gens, Generator{Name: cli, Command: "sh " + adapter, Edit: true})
	}
	l := env.loop(t, gens...)
	l.Rounds = 1
	l.Spec.Bench = "none"
	rep, err := l.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	calls, _ := os.ReadFile(log)
	for _, cli := range clis {
		if n := strings.Count(string(calls), cli+"\n"); n != 1 {
			t.Errorf("the stand-in %s was called %d times, want once (log: %q)", cli, n, calls)
		}
	}
	passed, dups := 0, 0
	for _, s := range rep.Generators {
		if s.Calls != 1 || s.FailedCalls != 0 || s.Candidates+s.Duplicates != 1 {
			t.Errorf("generator %s: %+v; want one call giving one candidate", s.Name, s)
		}
		passed += s.Passed
		dups += s.Duplicates
	}
	if len(rep.Generators) != 3 || passed != 1 || dups != 2 {
		t.Errorf("generators %d, %d passed, %d duplicates; want 3, 1 passed and 2 duplicates of it", len(rep.Generators), passed, dups)
	}
}

// TestAgentPrompt: prompt.sh builds each mode's task from the fields a
// Request has, so a renamed field would show here.
func TestAgentPrompt(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq is not installed: the adapters' prompt.sh needs it")
	}
	target := Target{Name: "sumsq.SumSquares", File: "sumsq/sumsq.go", Profile: &TargetProfile{Share: 0.9}}
	prompt, err := filepath.Abs(filepath.Join(agentsDir, "prompt.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		req  Request
		want []string
	}{
		{"Generate", Request{Schema: Schema, Mode: ModeGenerate, Target: target},
			[]string{"Make the function sumsq.SumSquares in sumsq/sumsq.go faster", "Edit only sumsq/sumsq.go.", `"share":0.9`}},
		{"Repair", Request{Schema: Schema, Mode: ModeRepair, Target: target, Parent: &Parent{Name: "p", Verdict: "failed",
			Failure: &evaluator.Failure{Kind: evaluator.FailTest, Message: "tests that pass at base fail: TestSumSquares", Output: "want 9"}}},
			[]string{"but it fails: test: tests that pass at base fail: TestSumSquares", "want 9", "Fix it so that the tests pass"}},
		{"Refine", Request{Schema: Schema, Mode: ModeRefine, Target: target, Parent: &Parent{Name: "p", Verdict: "winner", Speedup: 2.5}},
			[]string{"makes sumsq.SumSquares in sumsq/sumsq.go 2.5x faster", "Make it faster still"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.req)
			if err != nil {
				t.Fatal(err)
			}
			req := filepath.Join(t.TempDir(), "request.json")
			if err := os.WriteFile(req, b, 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("sh", "-c", `. "$1"; printf '%s' "$PROMPT"`, "sh", prompt)
			cmd.Env = append(os.Environ(), "OPTIMIZER_REQUEST="+req)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("prompt.sh: %v\n%s", err, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("the prompt does not say %q:\n%s", w, out)
				}
			}
		})
	}
}
