package dashboard

import (
	"context"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/store"
)

var screenshots = flag.Bool("screenshots", false, "save the job and jobs pages' screenshots to docs/")

// A browser is a headless Chromium tab that records the URL of every
// request its pages make.
type browser struct {
	ctx context.Context

	mu       sync.Mutex
	requests []string
}

// newBrowser starts Debian's chromium headless for the test. It fails,
// rather than skips, when chromium is missing: .ci/run installs it.
func newBrowser(t *testing.T) *browser {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("the browser tests need Debian's chromium (apt-get install chromium; .ci/run does): %v", err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.Headless, chromedp.DisableGPU, chromedp.NoSandbox,
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1200, 900),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	b := &browser{}
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			b.mu.Lock()
			b.requests = append(b.requests, e.Request.URL)
			b.mu.Unlock()
		}
	}))
	ctx, cancelTimeout := context.WithTimeout(ctx, 5*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	b.ctx = ctx
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1200, 900)); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return b
}

// open loads a page and waits for sel.
func (b *browser) open(t *testing.T, url, sel string) {
	t.Helper()
	if err := chromedp.Do(b.ctx, chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS(sel))); err != nil {
		t.Fatalf("open %s and wait for %s: %v", url, sel, err)
	}
}

// count is how many elements match a CSS selector.
func (b *browser) count(t *testing.T, sel string) int {
	t.Helper()
	n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](fmt.Sprintf("document.querySelectorAll(%q).length", sel)))
	if err != nil {
		t.Fatalf("count %s: %v", sel, err)
	}
	return n
}

// text is the text of the first element matching sel.
func (b *browser) text(t *testing.T, sel string) string {
	t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.TextContent(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

// checkLocal fails the test for any request to a host other than origin's.
func (b *browser) checkLocal(t *testing.T, origin string) {
	t.Helper()
	o, err := url.Parse(origin)
	if err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.requests) == 0 {
		t.Fatal("the browser recorded no request at all")
	}
	for _, r := range b.requests {
		u, err := url.Parse(r)
		if err != nil || (u.Scheme != "data" && u.Host != o.Host) {
			t.Errorf("a page requested %s, which is not on %s", r, o.Host)
		}
	}
}

// screenshot saves the viewport's image to docs/NAME when -screenshots is set.
func (b *browser) screenshot(t *testing.T, name string) {
	t.Helper()
	if !*screenshots {
		return
	}
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(filepath.Join("..", "docs", name), png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote docs/%s (%d bytes)", name, len(png))
}

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
	testenv.Long(t)
	db, src, jobID := demoStore(t)
	rep, err := src.Report(context.Background(), jobID)
	if err != nil {
		t.Fatal(err)
	}
	evil := `<script>window.pwned=1</script>`
	seedJob(t, db, src, "job-evil", "/src/evil", time.Now().Add(-time.Hour), []fixtureCandidate{
		{res: measured(evil, evaluator.VerdictNotFaster, 1.01, 0.97, 1.05, 6), ratio: 1, pairs: 6},
	})
	origin := newTestServer(t, src)
	b := newBrowser(t)

	t.Run("JobPage", func(t *testing.T) {
		b.open(t, origin+"/jobs/"+jobID, "svg.forest")
		want := 0
		for _, c := range rep.Candidates {
			if benchmarked(c) {
				want++
			}
		}
		if want == 0 {
			t.Fatal("the demo's job benchmarked no candidate")
		}
		if n := b.count(t, "svg.forest circle.mark"); n != want {
			t.Errorf("the forest plot has %d marks, want one per benchmarked candidate (%d)", n, want)
		}
		if n := b.count(t, "table.verdicts tbody tr"); n != len(rep.Candidates) {
			t.Errorf("the verdict table has %d rows, want %d", n, len(rep.Candidates))
		}
		if n := b.count(t, "svg.pairs circle.pair"); n == 0 {
			t.Error("no pairs plotted")
		}
		if n := b.count(t, "#failures .diff span.add"); n == 0 {
			t.Error("no failure's diff is coloured")
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
		if err := chromedp.Do(b.ctx, chromedp.EmulateViewport(1200, 1400)); err != nil {
			t.Fatal(err)
		}
		b.screenshot(t, "dashboard-job.png")
		if err := chromedp.Do(b.ctx, chromedp.EmulateViewport(1200, 900)); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("JobsPage", func(t *testing.T) {
		b.open(t, origin+"/", "#finished tr.job")
		if n := b.count(t, "#finished tr.job"); n != 2 {
			t.Errorf("%d finished jobs listed, want 2", n)
		}
	})
	t.Run("RepoPage", func(t *testing.T) {
		b.open(t, origin+"/repo?path="+url.QueryEscape(rep.Repo), "svg.trend")
		if n := b.count(t, "svg.trend circle.point"); n != 1 {
			t.Errorf("the trend has %d points, want 1 (one job)", n)
		}
	})
	t.Run("NotFound", func(t *testing.T) {
		b.open(t, origin+"/jobs/no-such-job", "main.error")
		if h := b.text(t, "main.error h1"); h != "404" {
			t.Errorf("the unknown job's page says %q, want 404", h)
		}
	})
	t.Run("Escaping", func(t *testing.T) {
		b.open(t, origin+"/jobs/job-evil", "table.verdicts")
		pwned, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`window.pwned === 1`))
		if err != nil || pwned {
			t.Errorf("a candidate's name ran as a script (pwned %v, %v)", pwned, err)
		}
		if name := b.text(t, "table.verdicts td.name"); name != evil {
			t.Errorf("the name reads %q, want %q as text", name, evil)
		}
	})
	t.Run("NewJobAppears", func(t *testing.T) {
		b.open(t, origin+"/", "#finished")
		// Mark this page, so that a reload would show.
		if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](`document.getElementById("live-status").textContent === "live"`)); err != nil {
			t.Fatalf("the page's event stream did not open: %v", err)
		}
		if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`window.loadedOnce = 1`)); err != nil {
			t.Fatal(err)
		}
		if err := db.StartJob(context.Background(), store.Job{ID: "job-new", Kind: "run", Repo: "/src/new", Base: rep.Base, Parallel: 1},
			[]store.Candidate{{JobID: "job-new", Name: "a"}}); err != nil {
			t.Fatal(err)
		}
		src.mu.Lock()
		src.queued = append(src.queued, Job{ID: "job-queued", Kind: "run", Repo: rep.Repo, Base: rep.Base, State: "queued", Total: 4})
		src.mu.Unlock()
		src.publish("job-new", "job-start")
		if err := chromedp.Do(b.ctx, chromedp.WaitReady(chromedp.CSS(`#running tr[data-job="job-new"]`))); err != nil {
			t.Fatalf("the new job did not appear: %v", err)
		}
		same, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`window.loadedOnce === 1`))
		if err != nil || !same {
			t.Errorf("the page reloaded to show the new job (%v)", err)
		}
		b.screenshot(t, "dashboard-jobs.png")
	})
	t.Run("ScriptOff", func(t *testing.T) {
		if _, err := chromedp.Call(b.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatal(err)
		}
		defer chromedp.Call(b.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: false})
		b.open(t, origin+"/jobs/"+jobID, "table.verdicts")
		if n := b.count(t, "table.verdicts tbody tr"); n != len(rep.Candidates) {
			t.Errorf("with scripts off, the verdict table has %d rows, want %d", n, len(rep.Candidates))
		}
	})
	b.checkLocal(t, origin)
}
