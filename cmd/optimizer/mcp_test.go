package main

import (
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/optimizer-dev/optimizer/client"
	"github.com/optimizer-dev/optimizer/daemon"
	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/mcp"
	"github.com/optimizer-dev/optimizer/testdata"
)

// tsClient is the folder of the TypeScript SDK's client script and its
// locked dependencies; .ci/run installs them with npm ci.
const tsClient = "../../mcp/testdata/tsclient"

// tsResult is what client.mjs prints.
type tsResult struct {
	Tools []struct {
		Name   string `json:"name"`
		Input  bool   `json:"input"`
		Output bool   `json:"output"`
	} `json:"tools"`
	Progress []string `json:"progress"`
	Evaluate toolResult
	Report   toolResult
	Markdown toolResult
	Bad      toolResult
}

type toolResult struct {
	IsError bool `json:"isError"`
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
}

// nodeClient checks that node and the client's packages are here, and
// returns the path of node.
func nodeClient(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the MCP test with the TypeScript SDK's client needs node 18 or later (CI has it)")
	}
	if _, err := os.Stat(filepath.Join(tsClient, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Fatalf("the TypeScript SDK is not installed: run npm ci in mcp/testdata/tsclient (.ci/run does): %v", err)
	}
	return node
}

// runTSClient runs client.mjs with args, the calls and env, and returns
// what it printed.
func runTSClient(t *testing.T, node string, calls map[string]any, env []string, args ...string) tsResult {
	t.Helper()
	b, err := json.Marshal(calls)
	if err != nil {
		t.Fatal(err)
	}
	callsFile := filepath.Join(t.TempDir(), "calls.json")
	if err := os.WriteFile(callsFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{"client.mjs"}, args...)...)
	cmd.Dir = tsClient
	cmd.Env = append(os.Environ(), append(env, "MCP_CALLS="+callsFile)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client.mjs %s: %v\nstderr:\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var res tsResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("client.mjs printed %q: %v", out, err)
	}
	t.Logf("evaluate's structured result: %s", res.Evaluate.StructuredContent)
	return res
}

// mcpCalls are the calls of a test: the demo's winner, failure and
// duplicate, with a small job; and a call that must fail.
func mcpCalls(t *testing.T, repo string) map[string]any {
	t.Helper()
	read := func(name string) string {
		b, err := fs.ReadFile(testdata.Demo, name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	again := read("fast_again/sumsq/sumsq.go")
	in := mcp.EvaluateIn{Repo: repo, Options: mcp.Settings{MinPairs: 3, MaxPairs: 6, BenchBudget: "30s", Timeout: "2m"},
		Candidates: []mcp.Candidate{
			{Name: "fast", Patch: read("fast.patch"), Explanation: "a plain loop with x*x"},
			{Name: "broken", Patch: read("broken.patch")},
			{Name: "fast_again", Files: map[string]*string{"sumsq/sumsq.go": &again}},
		}}
	bad := map[string]any{"name": "evaluate", "arguments": mcp.EvaluateIn{Repo: repo, Base: "no-such-branch", Candidates: in.Candidates[:1]}}
	return map[string]any{"evaluate": in, "bad": bad}
}

// checkTSResult checks what the TypeScript client saw: six tools with
// schemas; fast the winner, broken failed, fast_again a duplicate;
// progress; the report; and a tool error for an unknown base.
func checkTSResult(t *testing.T, res tsResult) {
	t.Helper()
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if !tool.Input || !tool.Output {
			t.Errorf("tool %s: input schema %v, output schema %v", tool.Name, tool.Input, tool.Output)
		}
	}
	slices.Sort(names)
	if want := []string{"benchmarks", "evaluate", "job", "profile", "report", "targets"}; !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
	if res.Evaluate.IsError {
		t.Fatalf("evaluate failed: %+v", res.Evaluate.Content)
	}
	var ev mcp.EvaluateOut
	if err := json.Unmarshal(res.Evaluate.StructuredContent, &ev); err != nil {
		t.Fatal(err)
	}
	verdicts := map[string]string{}
	for _, v := range ev.Verdicts {
		verdicts[v.Name] = v.Verdict
	}
	want := map[string]string{"fast": "winner", "broken": "failed", "fast_again": "duplicate"}
	if ev.State != "finished" || ev.Winner != "fast" || !mapsEqual(verdicts, want) {
		t.Errorf("evaluate: state %s, winner %q, verdicts %v; want finished, fast, %v", ev.State, ev.Winner, verdicts, want)
	}
	if len(res.Progress) == 0 {
		t.Error("no progress notification")
	}
	var rep mcp.ReportOut
	if err := json.Unmarshal(res.Report.StructuredContent, &rep); err != nil || rep.Report["winner"] != "fast" {
		t.Errorf("report: winner %v (%v)", rep.Report["winner"], err)
	}
	if len(res.Markdown.Content) == 0 || !strings.Contains(res.Markdown.Content[0].Text, "winner `fast`") {
		t.Errorf("markdown report: %+v", res.Markdown.Content)
	}
	if !res.Bad.IsError || len(res.Bad.Content) == 0 || !strings.Contains(res.Bad.Content[0].Text, `unknown revision "no-such-branch"`) {
		t.Errorf("evaluate at an unknown base: %+v, want a tool error naming it", res.Bad)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// untouched returns what the user would call their repository's state:
// its files, index, HEAD, config, refs and stash. Worktrees are left out:
// a daemon keeps its slots warm, registered there.
func untouched(t *testing.T, repo string) repoState {
	s := snapshot(t, repo)
	delete(s.git, "worktrees")
	return s
}

// TestMCP_TypeScriptStdio: the TypeScript SDK's client spawns optimizer
// mcp, with no daemon about, and judges three candidates over stdio.
func TestMCP_TypeScriptStdio(t *testing.T) {
	testenv.Once(t)
	node := nodeClient(t)
	bin, err := exec.LookPath("optimizer") // the test binary, set up by testscript.Main
	if err != nil {
		t.Fatal(err)
	}
	repo := newTestRepo(t)
	before := untouched(t, repo)
	res := runTSClient(t, node, mcpCalls(t, repo), nil, "stdio", bin, "mcp", "--repo", repo, "--no-daemon")
	checkTSResult(t, res)
	if d := before.diff(untouched(t, repo)); d != "" {
		t.Errorf("the repository changed:\n%s", d)
	}
}

// TestMCP_TypeScriptHTTP: the TypeScript SDK's client speaks streamable
// HTTP to a daemon's TCP listener, with its token; without the token it
// is refused.
func TestMCP_TypeScriptHTTP(t *testing.T) {
	testenv.Once(t)
	node := nodeClient(t)
	repo := newTestRepo(t)
	before := untouched(t, repo)
	dir, err := os.MkdirTemp("", "omcp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	token := daemon.NewToken()
	ready := make(chan struct{})
	srv, err := daemon.New(context.Background(), daemon.Options{
		Socket: filepath.Join(dir, "d.sock"), StateDB: filepath.Join(dir, "daemon.db"), Slots: 2, CPUs: 2,
		MachineLock: filepath.Join(dir, "machine.lock"), Listen: "127.0.0.1:0", Token: token,
		Ready: func() { close(ready) },
		// As optimizer daemon sets it (config.Daemon): without it there is no /v1/mcp.
		MCPJobs: func(api http.Handler) mcp.Jobs { return client.NewInProcess(api) },
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("daemon: %v", err)
	}
	url := "http://" + srv.Addr().String() + "/v1/mcp"

	res := runTSClient(t, node, mcpCalls(t, repo), []string{"MCP_TOKEN=" + token}, "http", url)
	checkTSResult(t, res)
	if d := before.diff(untouched(t, repo)); d != "" {
		t.Errorf("the repository changed:\n%s", d)
	}

	cmd := exec.Command(node, "client.mjs", "http", url)
	cmd.Dir = tsClient
	calls := filepath.Join(t.TempDir(), "calls.json")
	os.WriteFile(calls, []byte(`{"evaluate":{}}`), 0o600)
	cmd.Env = append(os.Environ(), "MCP_CALLS="+calls, "MCP_TOKEN=wrong")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "401") {
		t.Errorf("with a wrong token: %v\n%s\nwant a refusal (401)", err, out)
	}
}

// TestMCP_AgentExample: the server configuration in examples/agents starts
// optimizer mcp. The Go SDK's client reaches it over stdio from the
// repository's directory, as an agent started there would. The skill beside
// it names only tools the server has.
func TestMCP_AgentExample(t *testing.T) {
	bin, err := exec.LookPath("optimizer") // the test binary, set up by testscript.Main
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("../../examples/agents/.mcp.json")
	if err != nil {
		t.Fatal(err)
	}
	var conf struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &conf); err != nil {
		t.Fatalf(".mcp.json: %v", err)
	}
	srv, ok := conf.MCPServers["optimizer"]
	if !ok || srv.Command != "optimizer" {
		t.Fatalf(".mcp.json: %+v, want a server optimizer that runs the optimizer command", conf)
	}
	repo := newTestRepo(t)
	cmd := exec.Command(bin, srv.Args...)
	cmd.Dir = repo
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to %s %v: %v", srv.Command, srv.Args, err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, tool := range tools.Tools {
		have[tool.Name] = true
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "report", Arguments: map[string]any{"job": "no-such-job"}})
	if err != nil || !res.IsError {
		t.Errorf("report of an unknown job: %v, %+v; want a tool error", err, res)
	}

	skill, err := os.ReadFile("../../examples/agents/SKILL.md")
	if err != nil {
		t.Fatal(err)
	}
	front, body, ok := strings.Cut(strings.TrimPrefix(string(skill), "---\n"), "\n---\n")
	if !ok || !strings.HasPrefix(string(skill), "---\n") {
		t.Fatal("SKILL.md has no YAML front matter between --- lines")
	}
	if !regexp.MustCompile(`(?m)^name: [a-z0-9-]+$`).MatchString(front) || !regexp.MustCompile(`(?m)^description: \S`).MatchString(front) {
		t.Errorf("SKILL.md's front matter lacks a name or a description:\n%s", front)
	}
	for _, m := range regexp.MustCompile("`([a-z]+)`").FindAllStringSubmatch(body, -1) {
		if toolLike[m[1]] && !have[m[1]] {
			t.Errorf("SKILL.md names a tool %s that the server does not have", m[1])
		}
	}
	for name := range have {
		if !strings.Contains(body, "`"+name+"`") {
			t.Errorf("SKILL.md does not say when to use the tool %s", name)
		}
	}
}

// toolLike are words that SKILL.md would write in backticks for a tool.
var toolLike = map[string]bool{"evaluate": true, "job": true, "jobs": true, "report": true, "profile": true,
	"benchmarks": true, "targets": true, "cancel": true, "status": true}
