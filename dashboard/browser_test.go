package dashboard

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/internal/browser"
	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/result"
	"github.com/optimizer-dev/optimizer/store"
)

// demoStore runs `optimizer demo` and opens the store it wrote, with the
// candidates' patches as diffs.
func demoStore(t *testing.T) (*store.DB, *storeSource, string) {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "optimizer")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/optimizer").CombinedOutput(); err != nil {
		t.Fatalf("build optimizer: %v\n%s", err, out)
	}
	demo := filepath.Join(dir, "demo")
	cmd := exec.Command(bin, "demo", "--dir", demo, "--format", "json")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("optimizer demo: %v\n%s", err, out)
	}
	db, err := store.Open(context.Background(), filepath.Join(demo, "repo", ".git", "optimizer", "optimizer.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	src := newStoreSource(db)
	jobs, err := db.Jobs(context.Background(), 1)
	if err != nil || len(jobs) != 1 {
		t.Fatalf("the demo's store has %d jobs (%v)", len(jobs), err)
	}
	patches, _ := filepath.Glob(filepath.Join(demo, "candidates", "*.patch"))
	for _, p := range patches {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		src.setDiff(jobs[0].ID, strings.TrimSuffix(filepath.Base(p), ".patch"), string(b))
	}
	return db, src, jobs[0].ID
}

func TestBrowser_Pages(t *testing.T) {
	testenv.Once(t)
	db, src, jobID := demoStore(t)
	rep, err := src.Report(context.Background(), jobID)
	if err != nil {
		t.Fatal(err)
	}
	evil := `<script>window.pwned=1</script>`
	seedJob(t, db, src, "job-evil", "/src/evil", time.Now().Add(-time.Hour), []fixtureCandidate{
		{res: measured(evil, result.VerdictNotFaster, 1.01, 0.97, 1.05, 6), ratio: 1, pairs: 6},
	})
	origin := newTestServer(t, src)
	b := browser.New(t)

	t.Run("JobPage", func(t *testing.T) {
		b.Open(t, origin+"/jobs/"+jobID, "svg.forest")
		want := 0
		for _, c := range rep.Candidates {
			if benchmarked(c) {
				want++
			}
		}
		if want == 0 {
			t.Fatal("the demo's job benchmarked no candidate")
		}
		if n := b.Count(t, "svg.forest circle.mark"); n != want {
			t.Errorf("the forest plot has %d marks, want one per benchmarked candidate (%d)", n, want)
		}
		if n := b.Count(t, "table.verdicts tbody tr"); n != len(rep.Candidates) {
			t.Errorf("the verdict table has %d rows, want %d", n, len(rep.Candidates))
		}
		if n := b.Count(t, "svg.pairs circle.pair"); n == 0 {
			t.Error("no pairs plotted")
		}
		if n := b.Count(t, "#failures .diff span.add"); n == 0 {
			t.Error("no failure's diff is coloured")
		}
		// The winner stopped calling math.Pow: base's time there shows blue.
		if n := b.Count(t, "svg.flame g.less"); n == 0 {
			t.Error("the winner's flame graph has no frame where it spends less")
		}
		weight := 0
		for _, path := range []string{"/jobs/" + jobID, "/assets/style.css", "/assets/live.js"} {
			_, body := get(t, origin+path)
			weight += len(body)
		}
		if weight > 300<<10 {
			t.Errorf("the demo's job page and its assets weigh %d bytes, over 300 KB", weight)
		}
		t.Logf("the demo's job page and its assets: %d bytes", weight)
	})
	t.Run("JobsPage", func(t *testing.T) {
		b.Open(t, origin+"/", "#finished tr.job")
		if n := b.Count(t, "#finished tr.job"); n != 2 {
			t.Errorf("%d finished jobs listed, want 2", n)
		}
	})
	t.Run("RepoPage", func(t *testing.T) {
		b.Open(t, origin+"/repo?path="+url.QueryEscape(rep.Repo), "svg.trend")
		if n := b.Count(t, "svg.trend circle.point"); n != 1 {
			t.Errorf("the trend has %d points, want 1 (one job)", n)
		}
	})
	t.Run("NotFound", func(t *testing.T) {
		b.Open(t, origin+"/jobs/no-such-job", "main.error")
		if h := b.Text(t, "main.error h1"); h != "404" {
			t.Errorf("the unknown job's page says %q, want 404", h)
		}
	})
	t.Run("Escaping", func(t *testing.T) {
		b.Open(t, origin+"/jobs/job-evil", "table.verdicts")
		if b.Eval(t, `window.pwned === 1`) {
			t.Error("a candidate's name ran as a script")
		}
		if name := b.Text(t, "table.verdicts td.name"); name != evil {
			t.Errorf("the name reads %q, want %q as text", name, evil)
		}
	})
	t.Run("NewJobAppears", func(t *testing.T) {
		b.Open(t, origin+"/", "#finished")
		b.Poll(t, `document.getElementById("live-status").textContent === "live"`)
		// Mark this page, so that a reload would show.
		b.Eval(t, `(window.loadedOnce = 1) === 1`)
		if err := db.StartJob(context.Background(), store.Job{ID: "job-new", Kind: "run", Repo: "/src/new", Base: rep.Base, Parallel: 1},
			[]store.Candidate{{JobID: "job-new", Name: "a"}}); err != nil {
			t.Fatal(err)
		}
		src.mu.Lock()
		src.queued = append(src.queued, Job{ID: "job-queued", Kind: "run", Repo: rep.Repo, Base: rep.Base, State: "queued", Total: 4})
		src.mu.Unlock()
		src.publish("job-new", "job-start")
		b.Wait(t, `#running tr[data-job="job-new"]`)
		if !b.Eval(t, `window.loadedOnce === 1`) {
			t.Error("the page reloaded to show the new job")
		}
	})
	t.Run("ScriptOff", func(t *testing.T) {
		b.Scripts(t, false)
		defer b.Scripts(t, true)
		b.Open(t, origin+"/jobs/"+jobID, "table.verdicts")
		if n := b.Count(t, "table.verdicts tbody tr"); n != len(rep.Candidates) {
			t.Errorf("with scripts off, the verdict table has %d rows, want %d", n, len(rep.Candidates))
		}
	})
	b.CheckLocal(t, origin)
}
