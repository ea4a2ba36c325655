package optimize

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/proc"
	"github.com/optimizer-dev/optimizer/profiler"
)

// Schema names the version of the request a generator reads. A change that
// a generator written for it would misread gets a new version.
const Schema = "optimizer.generate/v1"

// DefaultGeneratorTimeout bounds one call of a generator.
const DefaultGeneratorTimeout = 10 * time.Minute

// stderrKeep is how much of a generator's stderr is kept, from its end.
const stderrKeep = 16 << 10

// The modes of a request.
const (
	ModeGenerate = "generate" // propose new candidates for the target
	ModeRepair   = "repair"   // fix the parent, which failed
	ModeRefine   = "refine"   // make the parent, which is faster, faster still
)

// A Generator proposes candidates. Command runs with sh -c and gets a
// Request as JSON on stdin (and in the file named by $OPTIMIZER_REQUEST).
//
// A stdout generator prints candidates as JSONL, the candidate format of
// --candidates. An edit-in-place generator (Edit) runs in a private slot at
// base, with the parent staged for a repair or a refine. It edits the files
// there as agent CLIs do, and the change it leaves is one candidate.
type Generator struct {
	Name    string
	Command string
	Edit    bool
	Timeout time.Duration // 0 is DefaultGeneratorTimeout
}

// Generators are the generators of commands: those of stdout first, then
// those of edit (Edit), each call limited to timeout.
func Generators(stdout, edit []string, timeout time.Duration) []Generator {
	var gens []Generator
	for _, c := range stdout {
		gens = append(gens, Generator{Command: c, Timeout: timeout})
	}
	for _, c := range edit {
		gens = append(gens, Generator{Command: c, Edit: true, Timeout: timeout})
	}
	return gens
}

// A Request is what a generator is asked. Its JSON form is versioned by
// Schema; docs/generators.md documents it.
type Request struct {
	Schema     string   `json:"schema"`
	Mode       string   `json:"mode"`
	Round      int      `json:"round"`
	Count      int      `json:"count"` // how many candidates to propose (stdout generators)
	Generator  string   `json:"generator"`
	Repo       string   `json:"repo"`
	Base       string   `json:"base"`
	Target     Target   `json:"target"`
	Benchmarks []string `json:"benchmarks,omitempty"`
	// HeldOut is how many of the benchmarks that execute the targets are
	// hidden from the generator: the winner must be faster on them too.
	HeldOut int     `json:"held_out,omitempty"`
	Parent  *Parent `json:"parent,omitempty"` // repair and refine
}

// Parent is the candidate a repair or a refine starts from, with what the
// job found: its failure, or its speedup and profile.
type Parent struct {
	Name        string                  `json:"name"`
	Patch       string                  `json:"patch,omitempty"`
	Files       map[string]*string      `json:"files,omitempty"`
	Verdict     string                  `json:"verdict"`
	Failure     *evaluator.Failure      `json:"failure,omitempty"`
	Speedup     float64                 `json:"speedup,omitempty"`
	CI          *[2]float64             `json:"ci,omitempty"`
	Benchmarks  []evaluator.BenchResult `json:"benchmarks,omitempty"`
	Profile     *profiler.Summary       `json:"profile,omitempty"`
	Explanation string                  `json:"explanation,omitempty"`
	Lineage     []string                `json:"lineage,omitempty"` // its ancestors, oldest first
}

// A call is the outcome of running a generator once.
type call struct {
	cands   []candidate.Candidate
	exit    int
	seconds float64
	stderr  string
	err     error // why the call gave no usable candidates
	request []byte
}

// A Workspace is a private tree at base for an edit-in-place generator: a
// slot of the pool, with the parent staged when there is one. Changes reads
// what the generator left; the caller releases the workspace.
type Workspace interface {
	Dir() string
	Env() []string
	Changes(ctx context.Context) (map[string][]byte, []string, error)
}

// runStdout runs a stdout generator in dir and parses the JSONL it prints.
func runStdout(ctx context.Context, g Generator, req Request, dir string) call {
	r := runCommand(ctx, g, req, dir, nil)
	if r.err != nil {
		return r.call
	}
	cands, err := candidate.ParseJSONL(bytes.NewReader(r.stdout), g.Name)
	switch {
	case err != nil:
		r.err = fmt.Errorf("read its candidates: %w", err)
	case len(cands) == 0:
		r.err = errors.New("it printed no candidate")
	}
	r.cands = cands
	return r.call
}

// runEdit runs an edit-in-place generator in ws and reads the change it
// left as one candidate.
func runEdit(ctx context.Context, g Generator, req Request, ws Workspace) call {
	r := runCommand(ctx, g, req, ws.Dir(), ws.Env())
	if r.err != nil {
		return r.call
	}
	files, deleted, err := ws.Changes(ctx)
	switch {
	case err != nil:
		r.err = err
	case len(files) == 0 && len(deleted) == 0:
		r.err = errors.New("it changed no file")
	default:
		r.cands = []candidate.Candidate{{Name: g.Name, Source: g.Name + " (edit)", Files: files, Deleted: deleted}}
	}
	return r.call
}

// commandResult is a call whose stdout has not been parsed yet.
type commandResult struct {
	call
	stdout []byte
}

// runCommand runs g once in dir with req on stdin, in its own process
// group, killed whole at its timeout or when ctx is done.
func runCommand(ctx context.Context, g Generator, req Request, dir string, env []string) commandResult {
	var r commandResult
	body, err := json.MarshalIndent(req, "", "  ")
	if err != nil {
		r.err = fmt.Errorf("encode request: %w", err)
		return r
	}
	r.request = body
	reqFile, err := writeRequest(body)
	if err != nil {
		r.err = err
		return r
	}
	defer os.Remove(reqFile)

	timeout := g.Timeout
	if timeout <= 0 {
		timeout = DefaultGeneratorTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, "sh", "-c", g.Command)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), env...), "OPTIMIZER_REQUEST="+reqFile, "OPTIMIZER_MODE="+req.Mode)
	proc.Tag(cmd) // its own process group, the owner tag, killed if we die
	cmd.Stdin = bytes.NewReader(body)
	var stdout bytes.Buffer
	stderr := &tailBuffer{max: stderrKeep}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err = cmd.Run()
	r.seconds = time.Since(start).Seconds()
	r.stdout, r.stderr = stdout.Bytes(), stderr.String()
	r.exit = cmd.ProcessState.ExitCode()
	switch {
	case cctx.Err() == context.DeadlineExceeded && ctx.Err() == nil:
		r.err = fmt.Errorf("it timed out after %v", timeout)
	case ctx.Err() != nil:
		r.err = ctx.Err()
	case err != nil:
		r.err = fmt.Errorf("it exited %d: %s", r.exit, lastLine(r.stderr))
	}
	return r
}

func writeRequest(body []byte) (string, error) {
	f, err := os.CreateTemp("", "optimizer-request-*.json")
	if err != nil {
		return "", fmt.Errorf("write request: %w", err)
	}
	if _, err := f.Write(body); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", fmt.Errorf("write request: %w", err)
	}
	return f.Name(), f.Close()
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max int
	b   []byte
	cut bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
		t.cut = true
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	if t.cut {
		return "[…]" + string(t.b)
	}
	return string(t.b)
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if s == "" {
		return "no output on stderr"
	}
	return s
}

// parentOf describes a candidate and its result for a repair or a refine.
func parentOf(c candidate.Candidate, res evaluator.CandidateResult, profile *profiler.Summary, lineage []string) *Parent {
	p := &Parent{
		Name: c.Name, Patch: string(c.Patch), Verdict: string(res.Verdict), Failure: res.Failure,
		Speedup: res.Speedup, CI: res.CI, Benchmarks: res.Benchmarks, Profile: profile,
		Explanation: c.Explanation, Lineage: lineage,
	}
	if len(c.Files) > 0 || len(c.Deleted) > 0 {
		p.Files = map[string]*string{}
		for path, b := range c.Files {
			s := string(b)
			p.Files[path] = &s
		}
		for _, path := range c.Deleted {
			p.Files[path] = nil
		}
	}
	return p
}

// generatorNames gives each generator a name from its command's first word
// (the program's base name), made unique with a number.
func generatorNames(gens []Generator) {
	seen := map[string]int{}
	for i := range gens {
		if gens[i].Name != "" {
			continue
		}
		name := "generator"
		if f := strings.Fields(gens[i].Command); len(f) > 0 {
			name = strings.Map(nameRune, filepath.Base(f[0]))
		}
		seen[name]++
		if seen[name] > 1 {
			name = fmt.Sprintf("%s%d", name, seen[name])
		}
		gens[i].Name = name
	}
}

func nameRune(r rune) rune {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
		return r
	}
	return -1
}
