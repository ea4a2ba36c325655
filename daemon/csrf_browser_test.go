package daemon

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/client"
	"github.com/optimizer-dev/optimizer/internal/browser"
	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/jobspec"
	"github.com/optimizer-dev/optimizer/store"
)

// syncBuffer is a log sink the daemon's goroutines and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// attackPage is a page of another 127.0.0.1 port that tries, with the
// browser's cookie for the daemon, what issue 33 did and more:
//   - queue a job whose setup runs a command, by a no-cors fetch of a Blob
//     (no Content-Type), of a text/plain Blob, by a CORS fetch of JSON and
//     by a text/plain form;
//   - cancel a running job;
//   - read a finished job's report and the job list.
//
// It records what each fetch saw in window.results.
const attackPage = `<!doctype html><title>a page</title><iframe name="sink"></iframe><script>
const D = %[1]q, job = %[2]q, running = %[3]q, finished = %[4]q;
window.results = {};
async function attempt(name, f) {
  try { const r = await f(); window.results[name] = r.type + " " + r.status; }
  catch (e) { window.results[name] = "error " + e.name; }
}
(async () => {
  await attempt("blob", () => fetch(D + "/v1/jobs", {method: "POST", mode: "no-cors", credentials: "include", body: new Blob([job])}));
  await attempt("blob-text", () => fetch(D + "/v1/jobs", {method: "POST", mode: "no-cors", credentials: "include", body: new Blob([job], {type: "text/plain"})}));
  await attempt("cors-json", () => fetch(D + "/v1/jobs", {method: "POST", credentials: "include", headers: {"Content-Type": "application/json"}, body: job}));
  await attempt("cancel", () => fetch(D + "/v1/jobs/" + running, {method: "DELETE", credentials: "include", headers: {"Content-Type": "application/json"}}));
  await attempt("cancel-no-cors", () => fetch(D + "/v1/jobs/" + running, {method: "DELETE", mode: "no-cors", credentials: "include"}));
  await attempt("report", async () => {
    const r = await fetch(D + "/v1/jobs/" + finished + "/report?format=text", {credentials: "include"});
    window.results["report-text"] = await r.text();
    return r;
  });
  await attempt("report-no-cors", async () => {
    const r = await fetch(D + "/v1/jobs/" + finished + "/report?format=text", {mode: "no-cors", credentials: "include"});
    window.results["report-no-cors-length"] = String((await r.text()).length);
    return r;
  });
  await attempt("jobs", async () => {
    const r = await fetch(D + "/v1/jobs", {credentials: "include"});
    window.results["jobs-text"] = await r.text();
    return r;
  });
  const f = document.createElement("form");
  f.method = "POST"; f.action = D + "/v1/jobs"; f.enctype = "text/plain"; f.target = "sink";
  const i = document.createElement("input");
  i.name = job.slice(0, -1) + ', "session": "'; i.value = '"}';
  f.appendChild(i); document.body.appendChild(f);
  const sent = new Promise(ok => document.querySelector("iframe").addEventListener("load", ok, {once: true}));
  f.submit();
  await Promise.race([sent, new Promise(ok => setTimeout(ok, 5000))]);
  window.done = true;
})();
</script>`

// TestDashboard_CrossOrigin performs the CSRF attack of issue 33 in
// headless Chromium. The dashboard is opened once with ?token=, which sets
// the SameSite=Strict cookie. Then a page served from another 127.0.0.1
// port, the same site, tries to queue a job, cancel one and read a report.
// The daemon allows setup commands and unsandboxed runs, so that only its
// HTTP checks stand in the way. Nothing gets through. The daemon's log
// shows the requests carried the cookie and were refused as cross-origin,
// not for want of a token. Also:
//   - a page on a name rebound to 127.0.0.1 is refused by its Host;
//   - a same-origin no-cors Blob POST, with no Content-Type, is refused;
//   - a wrong token gets a page that says what to do.
func TestDashboard_CrossOrigin(t *testing.T) {
	testenv.Once(t)
	ctx := t.Context()
	repo := shellRepo(t)
	mark := filepath.Join(t.TempDir(), "pwned")
	const token = "csrf-token"
	var logs syncBuffer
	srv, c := startServer(t, func(o *Options) {
		o.Listen, o.Token = "127.0.0.1:0", token
		o.Policy = Policy{AllowUnsandboxed: true, AllowSetup: true}
		o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	})
	origin := "http://" + srv.Addr().String()

	// A finished job, whose report the page tries to read, and a running
	// one, which it tries to cancel.
	fin, err := c.Submit(ctx, api.JobRequest{Repo: repo,
		Candidates: []json.RawMessage{inline(t, "secret-candidate-name", map[string]string{"lib.txt": "2\n"})},
		Options:    jobspec.Spec{Test: shellTest, Bench: "none"}})
	if err != nil {
		t.Fatal(err)
	}
	if j := waitJob(t, c, fin.ID); j.State != store.QueueFinished {
		t.Fatalf("the first job ended %s: %s", j.State, j.Error)
	}
	run, err := c.Submit(ctx, api.JobRequest{Repo: repo,
		Candidates: []json.RawMessage{inline(t, "slow", map[string]string{"cand": "1\n"})},
		Options:    jobspec.Spec{Test: `if [ -f cand ]; then exec sleep 600; fi; true`, Bench: "none"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Cancel(t.Context(), run.ID) })
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		j, err := c.Job(ctx, run.ID)
		if err != nil {
			t.Fatal(err)
		}
		if j.State == store.QueueRunning {
			break
		}
		if j.Ended() || time.Now().After(deadline) {
			t.Fatalf("the second job is %s, want running", j.State)
		}
	}

	job, err := json.Marshal(map[string]any{"repo": repo,
		"candidates": []any{map[string]any{"name": "evil", "files": map[string]string{"lib.txt": "x\n"}}},
		"options":    map[string]string{"test": "true", "bench": "none", "sandbox": "off", "setup": "touch " + mark}})
	if err != nil {
		t.Fatal(err)
	}
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, attackPage, origin, string(job), run.ID, fin.ID)
	}))
	defer evil.Close()
	if !strings.HasPrefix(evil.URL, "http://127.0.0.1:") {
		t.Fatalf("the attack page is at %s, want another port of 127.0.0.1", evil.URL)
	}

	b := browser.New(t, chromedp.Flag("host-resolver-rules", "MAP rebound.test 127.0.0.1"))
	t.Run("WrongToken", func(t *testing.T) {
		b.Open(t, origin+"/?token=guess", "main.error")
		if h := b.Text(t, "main.error h1"); !strings.Contains(h, "401") {
			t.Errorf("a wrong token's page says %q, want 401", h)
		}
		if !b.Eval(t, `document.body.textContent.includes("?token=")`) {
			t.Error("the wrong token's page does not say which URL to open")
		}
	})
	// The user's visit: the token sets the cookie, and the URL loses it.
	b.Open(t, origin+"/?token="+token, "#finished")
	if !b.Eval(t, `!location.href.includes("token")`) {
		t.Error("the token stayed in the URL after the first visit")
	}

	t.Run("SameOriginBlob", func(t *testing.T) {
		b.Eval(t, `(window.status415 = 0, fetch("/v1/jobs", {method: "POST", mode: "no-cors", body: new Blob([`+
			jsString(string(job))+`])}).then(r => window.status415 = r.status), true)`)
		b.Poll(t, `window.status415 !== 0`)
		if !b.Eval(t, `window.status415 === 415`) {
			t.Error("a no-cors Blob POST without Content-Type, from the daemon's own origin, was not 415")
		}
	})

	b.Open(t, evil.URL, "iframe")
	b.Poll(t, `window.done === true`)
	results, err := chromedp.Run(b.Ctx, chromedp.Evaluate[map[string]string](`window.results`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("what the page saw: %v", results)
	if strings.Contains(results["report-text"], "secret-candidate-name") || strings.Contains(results["jobs-text"], fin.ID) {
		t.Errorf("the page read the daemon's data: %v", results)
	}
	if results["report-no-cors-length"] != "0" && results["report-no-cors-length"] != "" {
		t.Errorf("a no-cors read of the report gave the page %s bytes", results["report-no-cors-length"])
	}

	t.Run("Rebound", func(t *testing.T) {
		b.Open(t, "http://rebound.test:"+portOf(t, origin)+"/v1/jobs?token="+token, "body")
		if !b.Eval(t, `document.body.textContent.includes("is not an address this daemon listens on")`) {
			t.Errorf("a page on a name rebound to 127.0.0.1 read: %s", b.Text(t, "body"))
		}
	})

	// Nothing was queued, nothing ran, and the running job runs on.
	list, err := c.Jobs(ctx, client.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Jobs) != 2 {
		t.Errorf("the daemon has %d jobs, want the test's 2: %+v", len(list.Jobs), list.Jobs)
	}
	if j, err := c.Job(ctx, run.ID); err != nil || j.State != store.QueueRunning {
		t.Errorf("the running job is %s (%v), want running still", j.State, err)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("the page's setup command ran")
	}
	// The cookie went with the page's writes, and the cross-origin check
	// refused them: 403 on Origin, never 401.
	log := logs.String()
	if !strings.Contains(log, `method=POST path=/v1/jobs status=403 field=Origin`) {
		t.Errorf("no cross-origin POST was refused with 403 on Origin; the daemon's log:\n%s", log)
	}
	if !strings.Contains(log, `path=/v1/jobs/`+fin.ID+`/report status=403 field=Sec-Fetch-Site`) {
		t.Errorf("the cross-origin read of the report was not refused; the daemon's log:\n%s", log)
	}
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func portOf(tb testing.TB, origin string) string {
	tb.Helper()
	i := strings.LastIndex(origin, ":")
	if i < 0 {
		tb.Fatalf("no port in %s", origin)
	}
	return origin[i+1:]
}
