package dashboard

import (
	"context"
	"encoding/json"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/result"
	"github.com/optimizer-dev/optimizer/store"
)

// newGitRepo makes a git repository with a commit for each subject, and
// returns its directory and the commits, oldest first.
func newGitRepo(tb testing.TB, subjects ...string) (string, []string) {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "repo")
	git := func(args ...string) string {
		tb.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=T", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		tb.Fatalf("git init: %v\n%s", err, out)
	}
	var commits []string
	for _, s := range subjects {
		git("commit", "-q", "--allow-empty", "-m", s)
		commits = append(commits, git("rev-parse", "HEAD"))
	}
	return dir, commits
}

// seedBaseJob records a finished job on commit with base samples around
// value, taken on host, or reused from the job reusedFrom when it is set.
func seedBaseJob(tb testing.TB, db *store.DB, id, repo, commit string, started time.Time, value float64, host store.Host, reusedFrom string) {
	tb.Helper()
	ctx := context.Background()
	if err := db.StartJob(ctx, store.Job{ID: id, Kind: "run", Repo: repo, Base: commit, Parallel: 1, Started: started},
		[]store.Candidate{{JobID: id, Name: "c", Verdict: string(result.VerdictNotFaster)}}); err != nil {
		tb.Fatal(err)
	}
	var samples []store.BenchSample
	for r, f := range []float64{0.99, 1, 1.01} {
		for k, side := range []string{"base", "candidate"} {
			// Allocations are measured too, but the trends plot times.
			for _, m := range []struct {
				unit  string
				value float64
			}{{"sec/op", value * f}, {"allocs/op", 3}} {
				samples = append(samples, store.BenchSample{JobID: id, Candidate: "c", Benchmark: "BenchmarkSum", Unit: m.unit,
					Side: side, Round: r, Order: 2*r + k, Value: m.value, Iterations: 1000, ReusedFrom: reusedFrom, Host: host})
			}
		}
	}
	if err := db.AddBenchSamples(ctx, samples); err != nil {
		tb.Fatal(err)
	}
	rep, err := json.Marshal(&result.Report{Job: id, Repo: repo, Base: commit, State: "finished", Started: started,
		Candidates: []result.CandidateResult{{Name: "c", Verdict: result.VerdictNotFaster}}})
	if err != nil {
		tb.Fatal(err)
	}
	if err := db.FinishJob(ctx, id, "finished", "", rep, ""); err != nil {
		tb.Fatal(err)
	}
}

var trendPointRE = regexp.MustCompile(`<circle class="point" cx="([\d.]+)" cy="[\d.]+" r="3.5"><title>([0-9a-f]{12}) ([^\n]*)\n`)

// TestHandler_RepoTrend: the repository page plots base by commit in
// first-parent order, whatever order the jobs ran in. A job answered from
// the cache adds no point, and a change of Go version is marked once.
func TestHandler_RepoTrend(t *testing.T) {
	db := newTestDB(t)
	src := newStoreSource(db)
	repo, commits := newGitRepo(t, "sum: first version", "sum: fewer bounds checks", "sum: unroll by four")
	box := store.Host{Name: "box", CPU: "Xeon", Kernel: "6.1", Go: "go1.24.0"}
	newGo := box
	newGo.Go = "go1.25.0"
	// The newest commit is measured first, then the oldest, then the middle
	// one twice, the second time from the cache.
	seedBaseJob(t, db, "job-c", repo, commits[2], t0, 8e-5, newGo, "")
	seedBaseJob(t, db, "job-a", repo, commits[0], t0.Add(time.Hour), 1e-4, box, "")
	seedBaseJob(t, db, "job-b", repo, commits[1], t0.Add(2*time.Hour), 9e-5, box, "")
	seedBaseJob(t, db, "job-b-again", repo, commits[1], t0.Add(3*time.Hour), 9e-5, box, "job-b")
	url := newTestServer(t, src)

	status, body := get(t, url+"/repo?path="+repo)
	if status != http.StatusOK {
		t.Fatalf("status %d, body:\n%s", status, body)
	}
	if n := strings.Count(body, `<svg class="trend"`); n != 1 {
		t.Errorf("%d trends, want one: sec/op, not allocs/op", n)
	}
	trend := section(t, body, `<svg class="trend"`, `</svg>`)
	var got []string
	last := -1.0
	for _, m := range trendPointRE.FindAllStringSubmatch(trend, -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		if x <= last {
			t.Errorf("point %s is at x=%g, left of the one before it (%g)", m[2], x, last)
		}
		last = x
		got = append(got, m[2]+" "+m[3])
	}
	want := []string{commits[0][:12] + " sum: first version", commits[1][:12] + " sum: fewer bounds checks", commits[2][:12] + " sum: unroll by four"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("points, left to right:\n%s\nwant one per commit in commit order:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := strings.Count(trend, `<g class="machine">`); n != 1 {
		t.Errorf("%d machine changes marked, want 1 (Go go1.24.0 → go1.25.0)", n)
	}
	if n := strings.Count(trend, `<polyline class="trendline"`); n != 2 {
		t.Errorf("%d trend lines, want 2: none across the change of machine", n)
	}
	if !strings.Contains(trend, "Go go1.24.0 → go1.25.0") {
		t.Error("the mark does not say what changed")
	}
	if strings.Contains(body, `class="warn"`) {
		t.Error("the page warns though git ordered every commit")
	}

	t.Run("RepoGone", func(t *testing.T) {
		// Without the repository, the store's points are still drawn, in
		// the order their jobs ran, and the page says so.
		db := newTestDB(t)
		src := newStoreSource(db)
		gone := filepath.Join(t.TempDir(), "gone")
		seedBaseJob(t, db, "job-1", gone, commits[1], t0, 1e-4, box, "")
		seedBaseJob(t, db, "job-2", gone, commits[0], t0.Add(time.Hour), 1e-4, box, "")
		_, body := get(t, newTestServer(t, src)+"/repo?path="+gone)
		if n := strings.Count(body, `<circle class="point"`); n != 2 {
			t.Errorf("%d points, want 2", n)
		}
		if !strings.Contains(body, "git could not order the commits") {
			t.Error("the page does not say the commits are not in commit order")
		}
	})
}
