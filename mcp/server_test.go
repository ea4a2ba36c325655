package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/optimizer-dev/optimizer/client"
	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/mcp"
	"github.com/optimizer-dev/optimizer/profiler"
	"github.com/optimizer-dev/optimizer/result"
)

// connect serves opts's tools to a Go SDK client over in-memory
// transports, and returns the client's session. progress, when not nil,
// gets every progress notification's message.
func connect(tb testing.TB, opts mcp.Options, progress func(string)) *sdk.ClientSession {
	tb.Helper()
	ctx := context.Background()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := mcp.New(opts).Connect(ctx, st, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ss.Close() })
	copts := &sdk.ClientOptions{}
	if progress != nil {
		copts.ProgressNotificationHandler = func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			progress(r.Params.Message)
		}
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, copts).Connect(ctx, ct, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and decodes its structured result into out. A tool
// error fails the test.
func call(tb testing.TB, cs *sdk.ClientSession, params *sdk.CallToolParams, out any) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		tb.Fatalf("%s: %v", params.Name, err)
	}
	if res.IsError {
		tb.Fatalf("%s: tool error: %s", params.Name, text(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		tb.Fatalf("%s: structured result %s: %v", params.Name, b, err)
	}
}

// toolError calls a tool that must fail, and returns its message.
func toolError(tb testing.TB, cs *sdk.ClientSession, name string, args any) string {
	tb.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		tb.Fatalf("%s: a protocol error, not a tool error: %v", name, err)
	}
	if !res.IsError {
		tb.Fatalf("%s: no error: %s", name, text(res))
	}
	return text(res)
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

func TestServer_ListTools(t *testing.T) {
	_, c := startDaemon(t, nil)
	cs := connect(t, mcp.Options{Jobs: c}, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.InputSchema == nil || tool.OutputSchema == nil || tool.Description == "" {
			t.Errorf("tool %s lacks an input schema, an output schema or a description", tool.Name)
		}
	}
	slices.Sort(names)
	want := []string{"benchmarks", "evaluate", "job", "profile", "report", "targets"}
	if !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
}

// TestServer_Evaluate judges a winner, a failure and a duplicate through
// the Go SDK's client on a real daemon, with the repository dirty and a
// stash. The verdicts come back, progress is reported, and the tree, index,
// refs and stash are as they were.
func TestServer_Evaluate(t *testing.T) {
	testenv.Once(t)
	repo := newFixtureRepo(t)
	dirty(t, repo)
	before := testenv.RepoState(t, repo)
	_, c := startDaemon(t, nil)
	var mu sync.Mutex
	var notes []string
	cs := connect(t, mcp.Options{Jobs: c, Repo: repo}, func(m string) {
		mu.Lock()
		notes = append(notes, m)
		mu.Unlock()
	})

	var out mcp.EvaluateOut
	params := &sdk.CallToolParams{Name: "evaluate", Arguments: mcp.EvaluateIn{Candidates: demoCandidates(t), Options: smallJob}}
	params.SetProgressToken("p1")
	call(t, cs, params, &out)
	if out.State != "finished" || out.Winner != "fast" {
		t.Fatalf("state %s, winner %q, want finished and fast: %+v", out.State, out.Winner, out)
	}
	got := map[string]mcp.Verdict{}
	for _, v := range out.Verdicts {
		got[v.Name] = v
	}
	if v := got["fast"]; v.Verdict != "winner" || v.Speedup <= 1 || len(v.CI) != 2 {
		t.Errorf("fast: %+v, want a winner with a speedup and an interval", v)
	}
	if v := got["broken"]; v.Verdict != "failed" || v.Failure == nil || v.Failure.Kind != "test" ||
		!slices.ContainsFunc(v.Failure.Tests, func(s string) bool { return strings.HasSuffix(s, ".TestSumSquares") }) {
		t.Errorf("broken: %+v, want failed by TestSumSquares", v)
	}
	if v := got["fast_again"]; v.Verdict != "duplicate" || v.DuplicateOf != "fast" {
		t.Errorf("fast_again: %+v, want a duplicate of fast", v)
	}
	mu.Lock()
	if !slices.ContainsFunc(notes, func(m string) bool { return strings.Contains(m, "fast: faster") }) {
		t.Errorf("no progress notification says fast is faster: %q", notes)
	}
	mu.Unlock()
	if after := testenv.RepoState(t, repo); after != before {
		t.Errorf("the repository changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}

	t.Run("Report", func(t *testing.T) {
		var rep mcp.ReportOut
		call(t, cs, &sdk.CallToolParams{Name: "report", Arguments: mcp.ReportIn{Job: out.Job}}, &rep)
		b, _ := json.Marshal(rep.Report)
		var r result.Report
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		if r.Winner == nil || *r.Winner != "fast" || len(r.Candidates) != 3 {
			t.Errorf("report: winner %v, %d candidates", r.Winner, len(r.Candidates))
		}
		var md mcp.ReportOut
		call(t, cs, &sdk.CallToolParams{Name: "report", Arguments: mcp.ReportIn{Job: out.Job, Format: "markdown"}}, &md)
		if !strings.Contains(md.Text, "winner `fast`") || md.Report != nil {
			t.Errorf("markdown report: %q", md.Text)
		}
	})
	t.Run("Job", func(t *testing.T) {
		var j mcp.JobOut
		call(t, cs, &sdk.CallToolParams{Name: "job", Arguments: mcp.JobIn{Job: out.Job}}, &j)
		if j.State != "finished" || len(j.Verdicts) != 3 {
			t.Errorf("job: %+v", j.EvaluateOut)
		}
		if len(j.Events) == 0 || j.Events[len(j.Events)-1].Text != "ended: finished" {
			t.Errorf("job's events %+v, want them to end with ended: finished", j.Events)
		}
	})
	t.Run("Profile", func(t *testing.T) {
		var p mcp.ProfileOut
		call(t, cs, &sdk.CallToolParams{Name: "profile", Arguments: mcp.JobIn{Job: out.Job}}, &p)
		if p.Winner != "fast" || p.Profile == nil || p.Profile.Candidate != "fast" || len(p.Profile.Top) == 0 {
			t.Errorf("profile: %+v", p)
		}
		if p.Profile != nil && (len(p.Profile.Changes) != profiler.FlameChanges || p.Profile.Flame != nil) {
			t.Errorf("profile: %d changes and %d flame frames, want %d and none", len(p.Profile.Changes), len(p.Profile.Flame), profiler.FlameChanges)
		}
	})
}

// dirty gives repo a stash entry, an edit and an untracked file, which no
// tool may touch.
func dirty(tb testing.TB, repo string) {
	tb.Helper()
	words := filepath.Join(repo, "words", "words.go")
	b, err := os.ReadFile(words)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(words, append(b, "\n// stashed\n"...), 0o644); err != nil {
		tb.Fatal(err)
	}
	runGit(tb, repo, "-c", "user.name=t", "-c", "user.email=t@t", "stash")
	if err := os.WriteFile(words, append(b, "\n// an edit in progress\n"...), 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "notes.txt"), []byte("mine\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// TestServer_Errors: what a person would be told comes back as a tool
// error, and the session goes on.
func TestServer_Errors(t *testing.T) {
	repo := newFixtureRepo(t)
	_, c := startDaemon(t, nil)
	cs := connect(t, mcp.Options{Jobs: c, Repo: repo}, nil)
	cands := demoCandidates(t)[:1]
	for _, tt := range []struct {
		name, tool string
		args       any
		want       string
	}{
		{"UnknownBase", "evaluate", mcp.EvaluateIn{Base: "no-such-branch", Candidates: cands}, `unknown revision "no-such-branch"`},
		{"NoCandidates", "evaluate", mcp.EvaluateIn{}, "no candidates"},
		{"PatchAndFiles", "evaluate", mcp.EvaluateIn{Candidates: []mcp.Candidate{{Name: "x"}}}, "give either a patch or files"},
		{"SandboxOff", "evaluate", mcp.EvaluateIn{Candidates: cands, Options: mcp.Settings{Sandbox: "off"}}, "--allow-unsandboxed"},
		{"UnknownJob", "report", mcp.ReportIn{Job: "d-nope"}, `no job "d-nope"`},
		{"BadFormat", "report", mcp.ReportIn{Job: "x", Format: "pdf"}, "want json, markdown or text"},
		{"NoRunBase", "targets", mcp.TargetsIn{}, "does not run base's benchmarks"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if msg := toolError(t, cs, tt.tool, tt.args); !strings.Contains(msg, tt.want) {
				t.Errorf("error %q, want it to say %q", msg, tt.want)
			}
		})
	}
	// The daemon serves many repositories: a call must name one.
	cs = connect(t, mcp.Options{Jobs: c}, nil)
	if msg := toolError(t, cs, "evaluate", mcp.EvaluateIn{Candidates: cands}); !strings.Contains(msg, "repo is required") {
		t.Errorf("no repo: %q", msg)
	}
	if msg := toolError(t, cs, "evaluate", mcp.EvaluateIn{Repo: "rel/dir", Candidates: cands}); !strings.Contains(msg, "is relative") {
		t.Errorf("relative repo: %q", msg)
	}
}

// TestServer_Base: targets finds sumsq.SumSquares hottest in its benchmark, and benchmarks
// tells which benchmark runs it, from a copy of base, with the repository
// untouched.
func TestServer_Base(t *testing.T) {
	testenv.Once(t)
	repo := newFixtureRepo(t)
	before := testenv.RepoState(t, repo)
	cs := connect(t, mcp.Options{Jobs: client.New(filepath.Join(t.TempDir(), "none.sock")), Repo: repo, RunBase: true}, nil)

	var tg mcp.TargetsOut
	call(t, cs, &sdk.CallToolParams{Name: "targets", Arguments: mcp.TargetsIn{N: 1, Filter: "SumSquares"}}, &tg)
	if len(tg.Targets) != 1 || tg.Targets[0].Name != "sumsq.SumSquares" || tg.Targets[0].Profile == nil || tg.Targets[0].Profile.Share <= 0 ||
		!strings.Contains(tg.Targets[0].Source, "func SumSquares") {
		t.Errorf("targets: %+v", tg)
	}

	var bo mcp.BenchmarksOut
	call(t, cs, &sdk.CallToolParams{Name: "benchmarks", Arguments: mcp.BenchmarksIn{Function: "sumsq.SumSquares"}}, &bo)
	if len(bo.Benchmarks) != 1 || bo.Benchmarks[0].Name != "BenchmarkSumSquares" || bo.Benchmarks[0].Package != "sumsq" {
		t.Fatalf("benchmarks of SumSquares: %+v", bo)
	}
	if ms := bo.Benchmarks[0].Base["BenchmarkSumSquares"]; len(ms) == 0 || ms[0].Unit != "ns/op" || ms[0].Value <= 0 {
		t.Errorf("base's numbers: %+v", bo.Benchmarks[0].Base)
	}
	if !slices.Equal(bo.Others, []string{"BenchmarkCount"}) {
		t.Errorf("others %v, want BenchmarkCount", bo.Others)
	}
	call(t, cs, &sdk.CallToolParams{Name: "benchmarks", Arguments: mcp.BenchmarksIn{Function: "words.Count"}}, &bo)
	if len(bo.Benchmarks) != 1 || bo.Benchmarks[0].Name != "BenchmarkCount" {
		t.Errorf("benchmarks of Count: %+v", bo)
	}
	if msg := toolError(t, cs, "benchmarks", mcp.BenchmarksIn{Function: "sumsq.Nope"}); !strings.Contains(msg, "Nope") {
		t.Errorf("unknown function: %q", msg)
	}
	if after := testenv.RepoState(t, repo); after != before {
		t.Errorf("the repository changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}
