package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/jobspec"
)

// TestServer_PoolEviction: a repository's pool stays warm between jobs and
// is adopted by the next job on it. Over the disk budget, the least
// recently used idle pool is removed, and the one just used is kept.
func TestServer_PoolEviction(t *testing.T) {
	a, b := shellRepo(t), shellRepo(t)
	srv, c := startServer(t, func(o *Options) { o.DiskBudget = 1; allowUnsandboxed(o) }) // any pool is over it
	ctx := context.Background()
	run := func(repo, name string) {
		t.Helper()
		sub, err := c.Submit(ctx, api.JobRequest{Repo: repo,
			Candidates: []json.RawMessage{inline(t, name, map[string]string{"lib.txt": name + "\n"})},
			Options:    jobspec.Spec{Test: shellTest, Bench: "none", Sandbox: "off"}})
		if err != nil {
			t.Fatal(err)
		}
		waitEnded(t, c, sub.ID)
	}
	slots := func(repo string) int {
		entries, _ := os.ReadDir(filepath.Join(repo, ".git", "optimizer", "slots"))
		n := 0
		for _, e := range entries {
			if e.IsDir() {
				n++
			}
		}
		return n
	}
	run(a, "one")
	if _, ok := srv.pools.stats()[a]; !ok || slots(a) == 0 {
		t.Fatalf("the pool of the repository just used was not kept warm (%d slots)", slots(a))
	}
	run(a, "two") // adopts the warm pool
	if n := len(srv.pools.stats()); n != 1 {
		t.Fatalf("%d pools after two jobs on one repository, want 1", n)
	}
	run(b, "three")
	st := srv.pools.stats()
	if _, ok := st[a]; ok {
		t.Error("the least recently used pool was not evicted over the budget")
	}
	if _, ok := st[b]; !ok {
		t.Error("the pool just used was evicted")
	}
	if n := slots(a); n != 0 {
		t.Errorf("the evicted pool left %d slot directories", n)
	}
	if wt := runGit(t, a, "worktree", "list"); strings.Count(wt, "\n") != 1 {
		t.Errorf("the evicted pool left worktrees:\n%s", wt)
	}
}

// TestServer_AllEvents: GET /v1/events streams every job's events.
func TestServer_AllEvents(t *testing.T) {
	repo := shellRepo(t)
	srv, c := startServer(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://optimizer/v1/events", nil)
	resp, err := unixHTTP(srv.opts.Socket).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" {
		t.Fatalf("GET /v1/events: %d %s", resp.StatusCode, ct)
	}
	var ids []string
	for _, name := range []string{"x", "y"} {
		sub, err := c.Submit(context.Background(), api.JobRequest{Repo: repo,
			Candidates: []json.RawMessage{inline(t, name, map[string]string{"lib.txt": name + "\n"})},
			Options:    jobspec.Spec{Test: shellTest, Bench: "none"}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, sub.ID)
	}
	ended := map[string]bool{}
	sc := bufio.NewScanner(resp.Body)
	for len(ended) < 2 && sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var e api.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("bad event %q: %v", line, err)
		}
		if e.Kind == api.EventEnded {
			ended[e.Job] = true
		}
	}
	if !ended[ids[0]] || !ended[ids[1]] {
		t.Errorf("the stream of all events ended %v, want both jobs %v", ended, ids)
	}
}
