package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/jobspec"
)

// TestMetrics_Jobs: two jobs run, the second a resubmission of the first.
// Then /metrics has each job's duration and queue wait, its phases, the
// verdicts, the result cache's hits and the build. It labels a repository
// by its short name, not its path.
func TestMetrics_Jobs(t *testing.T) {
	repo := shellRepo(t)
	_, c := startServer(t, nil)
	ctx := context.Background()
	req := api.JobRequest{Repo: repo,
		Candidates: []json.RawMessage{inline(t, "good", map[string]string{"lib.txt": "two\n"}), inline(t, "bad", map[string]string{"ok": "no\n"})},
		Options:    jobspec.Spec{Test: shellTest, Bench: "none"}}
	for range 2 {
		sub, err := c.Submit(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		waitEnded(t, c, sub.ID)
	}
	m, err := c.Metrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`optimizer_job_duration_seconds_count{outcome="finished"} 2`,
		`optimizer_job_queue_wait_seconds_count 2`,
		`optimizer_job_phase_seconds_count{phase="behavior"} 2`,
		`optimizer_verdicts_total{verdict="passed"} 2`,
		`optimizer_verdicts_total{verdict="failed"} 2`,
		`optimizer_cache_hits_total{kind="tests"} 2`, // the second job reuses both candidates' tests
		fmt.Sprintf(`optimizer_slots_warm{repo=%q}`, filepath.Base(repo)),
	} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics has no %s", want)
		}
	}
	if !regexp.MustCompile(`optimizer_build_info\{goversion="go[^"]+",revision="[^"]+",version="[^"]+"\} 1`).MatchString(m) {
		t.Error("/metrics has no optimizer_build_info with its version, revision and Go version")
	}
	if strings.Contains(m, repo) {
		t.Errorf("/metrics labels a repository by its path %s", repo)
	}
}

func TestRepoNames(t *testing.T) {
	got := repoNames([]string{"/home/a/src/btree", "/home/a/work/btree", "/srv/x/app", "/b/btree"})
	want := map[string]string{"/home/a/src/btree": "src/btree", "/home/a/work/btree": "work/btree", "/srv/x/app": "app", "/b/btree": "/b/btree"}
	for root, name := range want {
		if got[root] != name {
			t.Errorf("repoNames: %s is %q, want %q", root, got[root], name)
		}
	}
}

// syncLog is a log the daemon writes while the test reads it.
type syncLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestServer_LogsDashboard: the daemon's log says where the dashboard is,
// and how to log in, without the token.
func TestServer_LogsDashboard(t *testing.T) {
	var log syncLog
	const token = "s3cret-token"
	srv, _ := startServer(t, func(o *Options) {
		o.Listen, o.Token, o.TokenFile = "127.0.0.1:0", token, "/state/token"
		o.Logger = slog.New(slog.NewTextHandler(&log, nil))
	})
	out := log.String()
	want := fmt.Sprintf("url=http://%s/", srv.Addr())
	if !strings.Contains(out, "msg=dashboard") || !strings.Contains(out, want) || !strings.Contains(out, "?token=$(cat /state/token)") {
		t.Errorf("the log does not say where the dashboard is (%s) and how to log in:\n%s", want, out)
	}
	if strings.Contains(out, token) {
		t.Errorf("the log shows the token:\n%s", out)
	}
}
