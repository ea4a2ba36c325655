package daemon

import (
	"context"
	"encoding/json"
	"flag"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/client"
	"github.com/optimizer-dev/optimizer/internal/browser"
	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/jobspec"
	"github.com/optimizer-dev/optimizer/testdata"
)

var screenshots = flag.Bool("screenshots", false, "save the dashboard's job and jobs pages to docs/")

// waitJob waits, a long time, until job id has ended.
func waitJob(tb testing.TB, c *client.Client, id string) api.Job {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	if err := c.Events(ctx, id, 0, func(api.Event) error { return nil }); err != nil {
		tb.Fatalf("events of %s: %v", id, err)
	}
	j, err := c.Job(ctx, id)
	if err != nil {
		tb.Fatal(err)
	}
	return j
}

// TestDashboard_Browser loads the dashboard in headless Chromium from a
// daemon that has run the demo's job, over TCP with the token.
func TestDashboard_Browser(t *testing.T) {
	testenv.Once(t)
	ctx := context.Background()
	dir := t.TempDir()
	repo, cands := filepath.Join(dir, "repo"), filepath.Join(dir, "candidates")
	if err := testdata.WriteFixture(repo); err != nil {
		t.Fatal(err)
	}
	if _, err := testdata.InitRepo(ctx, repo); err != nil {
		t.Fatal(err)
	}
	if err := testdata.WriteDemoCandidates(cands); err != nil {
		t.Fatal(err)
	}
	before := testenv.RepoState(t, repo)
	const token = "dashboard-token"
	srv, c := startServer(t, func(o *Options) { o.Listen, o.Token = "127.0.0.1:0", token })
	origin := "http://" + srv.Addr().String()
	b := browser.New(t)
	shot := func(name string) {
		if *screenshots {
			b.Screenshot(t, filepath.Join("..", "docs", name))
		}
	}
	b.Open(t, origin+"/?token="+token, "#finished") // the first visit sets the token's cookie
	b.Poll(t, `document.getElementById("live-status").textContent === "live"`)
	b.Eval(t, `(window.loadedOnce = 1) === 1`) // a reload would lose it

	// The demo's job, as optimizer demo runs it, submitted after the jobs
	// page loaded: it appears, runs and finishes there without a reload.
	sub, err := c.Submit(ctx, api.JobRequest{Repo: repo, CandidatePaths: []string{cands},
		Options: jobspec.Spec{Parallel: 2, Timeout: jobspec.Duration(15 * time.Second), BenchBudget: jobspec.Duration(20 * time.Second), MaxPairs: 12}})
	if err != nil {
		t.Fatal(err)
	}
	row := `tr[data-job="` + sub.ID + `"]`
	b.Wait(t, row)
	// Its progress shows as candidates are judged: an ETA once one is
	// done (unless it is already over).
	b.Poll(t, `(document.querySelector('#running `+row+` td.eta')?.textContent || "") !== "" || document.querySelector('#finished `+row+`') !== null`)
	shot("dashboard-jobs.png")
	if !b.Eval(t, `window.loadedOnce === 1`) {
		t.Error("the jobs page reloaded to follow the job")
	}
	// The job's page follows it while it runs, and ends with its forest
	// plot, without a reload.
	b.Open(t, origin+"/jobs/"+sub.ID, "main#job")
	if b.Count(t, "main#job.live") != 1 {
		t.Fatal("the running job's page is not live (did the job end before it loaded?)")
	}
	b.Poll(t, `document.getElementById("live-status").textContent === "live"`)
	b.Eval(t, `(window.loadedOnce = 2) === 2`)
	demo := waitJob(t, c, sub.ID)
	if demo.State != "finished" || demo.Report == nil {
		t.Fatalf("the demo's job ended %s (%s)", demo.State, demo.Error)
	}
	b.Wait(t, "main#job:not(.live) svg.forest")
	if !b.Eval(t, `window.loadedOnce === 2`) {
		t.Error("the job page reloaded to follow the job")
	}
	benchmarked := 0
	for _, cr := range demo.Report.Candidates {
		if cr.Speedup > 0 && len(cr.Benchmarks) > 0 {
			benchmarked++
		}
	}
	if benchmarked == 0 {
		t.Fatal("the demo's job benchmarked no candidate")
	}

	t.Run("JobPage", func(t *testing.T) {
		b.Open(t, origin+"/jobs/"+sub.ID, "svg.forest")
		if n := b.Count(t, "svg.forest circle.mark"); n != benchmarked {
			t.Errorf("the forest plot has %d marks, want one per benchmarked candidate (%d)", n, benchmarked)
		}
		if n := b.Count(t, "table.verdicts tbody tr"); n != len(demo.Report.Candidates) {
			t.Errorf("the verdict table has %d rows, want %d", n, len(demo.Report.Candidates))
		}
		if n := b.Count(t, "svg.pairs circle.pair"); n == 0 {
			t.Error("no pairs plotted: the samples in the repository's store were not read")
		}
		if n := b.Count(t, "#failures .diff span.add"); n == 0 {
			t.Error("no failure's diff is coloured")
		}
		b.Viewport(t, 1200, 1400)
		shot("dashboard-job.png")
		b.Viewport(t, 1200, 900)
	})
	t.Run("RepoPage", func(t *testing.T) {
		b.Open(t, origin+"/jobs/"+sub.ID, "dl.facts a")
		b.Open(t, origin+"/repo?path="+repo, "svg.trend")
		if n := b.Count(t, "svg.trend circle.point"); n != 1 {
			t.Errorf("the trend has %d points, want 1 (one job)", n)
		}
		// The point is base's commit, read from the repository's store and
		// named by git.
		subject := strings.TrimSpace(runGit(t, repo, "log", "-1", "--format=%s"))
		if title := b.Text(t, "svg.trend circle.point title"); !strings.Contains(title, subject) {
			t.Errorf("the point's title is %q, want base's subject %q in it", title, subject)
		}
	})
	t.Run("NotFound", func(t *testing.T) {
		b.Open(t, origin+"/jobs/no-such-job", "main.error")
		if h := b.Text(t, "main.error h1"); h != "404" {
			t.Errorf("the unknown job's page says %q, want 404", h)
		}
	})
	evil := "<script>window.pwned=1</script>"
	s, err := c.Submit(ctx, api.JobRequest{Repo: repo,
		Candidates: []json.RawMessage{inline(t, evil, map[string]string{"words/words.go": "package words\n"})},
		Options:    jobspec.Spec{Test: "true", Bench: "none"}})
	if err != nil {
		t.Fatal(err)
	}
	later := s.ID
	waitJob(t, c, later)
	t.Run("Escaping", func(t *testing.T) {
		b.Open(t, origin+"/jobs/"+later, "table.verdicts")
		if b.Eval(t, `window.pwned === 1`) {
			t.Error("a candidate's name ran as a script")
		}
		if name := b.Text(t, "table.verdicts td.name"); name != evil {
			t.Errorf("the name reads %q, want %q as text", name, evil)
		}
	})
	b.CheckLocal(t, origin)
	if after := testenv.RepoState(t, repo); after != before {
		t.Errorf("the daemon changed the user's repository:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}
