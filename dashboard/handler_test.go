package dashboard

import (
	"bufio"
	"context"
	"encoding/json"
	"html/template"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/report"
	"github.com/optimizer-dev/optimizer/result"
	"github.com/optimizer-dev/optimizer/store"
)

var t0 = time.Date(2026, 11, 24, 1, 0, 0, 0, time.UTC)

func TestHandler_JobPage(t *testing.T) {
	db := newTestDB(t)
	src := newStoreSource(db)
	rep := demoLikeJob(t, db, src, "job-demo-1", t0)
	url := newTestServer(t, src)

	status, body := get(t, url+"/jobs/job-demo-1")
	if status != http.StatusOK {
		t.Fatalf("status %d, body:\n%s", status, body)
	}
	// The verdict table has one row per candidate, with its verdict.
	for _, c := range rep.Candidates {
		row := regexp.MustCompile(`<tr id="c-[^"]*" class="v-` + string(c.Verdict) + `"><td class="name">` + regexp.QuoteMeta(c.Name) + `</td>`)
		if !row.MatchString(body) {
			t.Errorf("no verdict row for %s (%s)", c.Name, c.Verdict)
		}
	}
	for _, want := range []string{
		"fast (250× faster [230×, 270×])",                                    // the winner line
		"[0.450×, 0.550×]",                                                   // slower's interval
		"test failure: tests fail: TestSumSquares",                           // why broken failed
		"sumsq_test.go:20: got 0, want 1",                                    // its output excerpt
		`<span class="add">&#43;	for i := 1; i &lt; n; i&#43;&#43; {</span>`, // its diff, coloured
		`<span class="del">-	slow()</span>`,                                  // the winner's diff
		"produces the same tree as fast",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("job page lacks %q", want)
		}
	}
	// The text report is on the page, and each row's why is its verdict line.
	j, err := db.Job(context.Background(), "job-demo-1")
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := evaluator.JobReport(context.Background(), db, j)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	if err := report.Text(&text, loaded); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(body, template.HTMLEscapeString(text.String())) {
		t.Errorf("the job page lacks the text report:\n%s", text.String())
	}
	for _, c := range loaded.Candidates {
		if why := `<td class="why">` + template.HTMLEscapeString(report.Reason(loaded, c)) + `</td>`; !strings.Contains(body, why) {
			t.Errorf("the row of %s lacks %s", c.Name, why)
		}
	}
	// The forest plot: one mark per benchmarked candidate (fast, slower).
	forest := section(t, body, `<svg class="forest"`, `</svg>`)
	if n := strings.Count(forest, `class="mark"`); n != 2 {
		t.Errorf("forest plot has %d marks, want 2 (fast and slower)", n)
	}
	for _, want := range []string{`class="one"`, `class="threshold"`, `class="row v-winner"`, `class="row v-slower"`} {
		if !strings.Contains(forest, want) {
			t.Errorf("forest plot lacks %s", want)
		}
	}
	// The pairs: one point per pair measured, 8 for fast and 6 for slower,
	// with the running interval.
	if n := strings.Count(body, `<circle class="pair"`); n != 14 {
		t.Errorf("pairs plots have %d points, want 14", n)
	}
	if n := strings.Count(body, `<polygon class="band"`); n != 2 {
		t.Errorf("%d running-interval bands, want 2", n)
	}
}

func TestHandler_JobsPage(t *testing.T) {
	db := newTestDB(t)
	src := newStoreSource(db)
	demoLikeJob(t, db, src, "job-old", t0)
	src.queued = []Job{
		{ID: "job-q", Repo: "/src/other", State: "queued", Total: 3},
		{ID: "job-r", Repo: "/src/repo", State: "running", Done: 1, Total: 4, ETA: 65 * time.Second, Started: time.Now()},
	}
	url := newTestServer(t, src)
	status, body := get(t, url+"/")
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	for _, tt := range []struct{ section, job, want string }{
		{"queued", "job-q", "0/3"},
		{"running", "job-r", "1m05s"},
		{"finished", "job-old", "250×"},
	} {
		s := section(t, body, `<section id="`+tt.section+`">`, `</section>`)
		if !strings.Contains(s, `data-job="`+tt.job+`"`) || !strings.Contains(s, tt.want) {
			t.Errorf("section %s lacks job %s with %q:\n%s", tt.section, tt.job, tt.want, s)
		}
	}
	if !strings.Contains(body, `href="/repo?path=%2Fsrc%2Frepo"`) {
		t.Error("the jobs page does not link the repository page")
	}
}

func TestHandler_RepoPage(t *testing.T) {
	db := newTestDB(t)
	src := newStoreSource(db)
	demoLikeJob(t, db, src, "job-1", t0)
	demoLikeJob(t, db, src, "job-2", t0.Add(time.Hour))
	seedJob(t, db, src, "job-elsewhere", "/src/elsewhere", t0, []fixtureCandidate{{res: measured("x", result.VerdictNotFaster, 1, 0.9, 1.1, 6)}})
	url := newTestServer(t, src)

	status, body := get(t, url+"/repo?path=/src/repo")
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	if n := strings.Count(body, `<circle class="point"`); n != 1 {
		t.Errorf("the base trend has %d points, want one per commit (both jobs ran on one base)", n)
	}
	winners := section(t, body, `<section id="winners">`, `</section>`)
	if strings.Count(winners, "<td>fast</td>") != 2 || strings.Index(winners, "job-2") > strings.Index(winners, "job-1") {
		t.Errorf("winners are not both jobs' fast, newest first:\n%s", winners)
	}
}

func TestHandler_BadRequests(t *testing.T) {
	db := newTestDB(t)
	src := newStoreSource(db)
	demoLikeJob(t, db, src, "job-1", t0)
	url := newTestServer(t, src)
	for _, tt := range []struct {
		name, path string
		status     int
		want       string
	}{
		{"UnknownJob", "/jobs/no-such-job", http.StatusNotFound, `There is no job &#34;no-such-job&#34;`},
		{"UnknownPage", "/no/such/page", http.StatusNotFound, "There is no page at /no/such/page"},
		{"UnknownRepo", "/repo?path=/nowhere", http.StatusNotFound, "No job has run in the repository"},
		{"RepoWithoutPath", "/repo", http.StatusBadRequest, "?path="},
		{"UnknownAsset", "/assets/nope.js", http.StatusNotFound, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, body := get(t, url+tt.path)
			if status != tt.status || !strings.Contains(body, tt.want) {
				t.Errorf("GET %s: %d, want %d with %q; body:\n%s", tt.path, status, tt.status, tt.want, body)
			}
			if strings.Contains(body, "goroutine ") {
				t.Error("the page shows a stack trace")
			}
		})
	}
}

func TestHandler_EscapesUserText(t *testing.T) {
	db := newTestDB(t)
	src := newStoreSource(db)
	evil := `<script>alert("name")</script>`
	m := measured(evil, result.VerdictWinner, 2, 1.8, 2.2, 6)
	seedJob(t, db, src, "job-x", "/src/<b>repo</b>", t0, []fixtureCandidate{
		{res: m, ratio: 0.5, pairs: 6, diff: "+<script>alert('diff')</script>\n"},
		{res: failed(`<img src=x onerror=alert(1)>`, result.FailTest, `<script>alert("msg")</script>`,
			`<script>alert("output")</script>`, `Test<script>`), diff: "-</pre><script>alert(2)</script>\n"},
	})
	url := newTestServer(t, src)
	for _, path := range []string{"/jobs/job-x", "/", "/repo?path=" + "%2Fsrc%2F%3Cb%3Erepo%3C%2Fb%3E"} {
		status, body := get(t, url+path)
		if status != http.StatusOK {
			t.Fatalf("GET %s: %d", path, status)
		}
		for _, raw := range []string{"<script>alert", "<img src=x", "<b>repo", "</pre><script>"} {
			if strings.Contains(body, raw) {
				t.Errorf("GET %s: %q is not escaped", path, raw)
			}
		}
		if scripts := strings.Count(body, "<script"); scripts != 1 {
			t.Errorf("GET %s: %d <script> tags, want only the dashboard's own", path, scripts)
		}
	}
	_, body := get(t, url+"/jobs/job-x")
	if !strings.Contains(body, "&lt;script&gt;alert(&#34;name&#34;)&lt;/script&gt;") {
		t.Error("the candidate's name is not shown, escaped")
	}
}

func TestHandler_Events(t *testing.T) {
	db := newTestDB(t)
	src := newStoreSource(db)
	url := newTestServer(t, src)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	read := func(lastID string) (*bufio.Reader, func()) {
		req, _ := http.NewRequestWithContext(ctx, "GET", url+"/events", nil)
		if lastID != "" {
			req.Header.Set("Last-Event-ID", lastID)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" {
			t.Fatalf("GET /events: %d %s", resp.StatusCode, ct)
		}
		return bufio.NewReader(resp.Body), func() { resp.Body.Close() }
	}
	next := func(r *bufio.Reader) (id, data string) {
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("read event: %v", err)
			}
			line = strings.TrimSuffix(line, "\n")
			switch {
			case strings.HasPrefix(line, "id: "):
				id = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "data: "):
				data = strings.TrimPrefix(line, "data: ")
			case line == "" && data != "":
				return id, data
			}
		}
	}

	r, closeBody := read("")
	if src.subscribers() == 0 { // the server subscribes before it answers
		t.Fatal("no subscription after the stream's headers")
	}
	src.publish("job-1", "job-start")
	src.publish("job-1", "done")
	if id, data := next(r); id != "1" || data != `{"job":"job-1","kind":"job-start"}` {
		t.Errorf("first event: id %q data %s", id, data)
	}
	if id, _ := next(r); id != "2" {
		t.Errorf("second event id %q, want 2", id)
	}
	closeBody()

	// A reconnecting browser sends the last id it saw, and gets what came
	// after it.
	src.publish("job-2", "job-start")
	r, closeBody = read("2")
	defer closeBody()
	if id, data := next(r); id != "3" || !strings.Contains(data, `"job-2"`) {
		t.Errorf("resumed stream starts at id %q (%s), want 3", id, data)
	}
}

// section returns body from the first start to the first end after it.
func section(t *testing.T, body, start, end string) string {
	t.Helper()
	i := strings.Index(body, start)
	if i < 0 {
		t.Fatalf("no %s in the page", start)
	}
	j := strings.Index(body[i:], end)
	if j < 0 {
		t.Fatalf("no %s after %s", end, start)
	}
	return body[i : i+j+len(end)]
}

// TestHandler_SelfContained checks that the pages ask for nothing from
// another host, and weigh what docs/dashboard.md says.
func TestHandler_SelfContained(t *testing.T) {
	db := newTestDB(t)
	src := newStoreSource(db)
	demoLikeJob(t, db, src, "job-1", t0)
	url := newTestServer(t, src)
	ref := regexp.MustCompile(`(?:src|href)="([^"]*)"`)
	total := 0
	for _, path := range []string{"/", "/jobs/job-1", "/repo?path=/src/repo"} {
		status, body := get(t, url+path)
		if status != http.StatusOK {
			t.Fatalf("GET %s: %d", path, status)
		}
		total += len(body)
		for _, m := range ref.FindAllStringSubmatch(body, -1) {
			if u := m[1]; !strings.HasPrefix(u, "/") || strings.HasPrefix(u, "//") {
				if !strings.HasPrefix(u, "data:") {
					t.Errorf("GET %s refers to %q, not to this server", path, u)
				}
			}
		}
	}
	for _, asset := range []string{"/assets/style.css", "/assets/live.js"} {
		status, body := get(t, url+asset)
		if status != http.StatusOK {
			t.Fatalf("GET %s: %d", asset, status)
		}
		if strings.Contains(body, "http://") || strings.Contains(body, "https://") || strings.Contains(body, "@import") {
			t.Errorf("%s refers to another host", asset)
		}
		total += len(body)
	}
	const budget = 300 << 10
	if total > budget {
		t.Errorf("the three pages and their assets weigh %d bytes, over the %d budget", total, budget)
	}
	t.Logf("the three pages and their assets: %d bytes", total)
}

// TestHandler_RunningJob: a running job's page shows its progress and the
// candidates not yet judged, and is marked live.
func TestHandler_RunningJob(t *testing.T) {
	db := newTestDB(t)
	src := newStoreSource(db)
	ctx := context.Background()
	done, err := json.Marshal(failed("broken", result.FailTest, "tests fail", "boom"))
	if err != nil {
		t.Fatal(err)
	}
	if err := db.StartJob(ctx, store.Job{ID: "job-run", Kind: "run", Repo: "/src/repo", Base: strings.Repeat("cd", 20), Parallel: 2},
		[]store.Candidate{
			{JobID: "job-run", Seq: 0, Name: "broken", Verdict: "failed", Result: done},
			{JobID: "job-run", Seq: 1, Name: "later"},
		}); err != nil {
		t.Fatal(err)
	}
	url := newTestServer(t, src)
	status, body := get(t, url+"/jobs/job-run")
	if status != http.StatusOK {
		t.Fatalf("status %d:\n%s", status, body)
	}
	for _, want := range []string{
		`<main id="job" class="live">`,
		"1/2 candidates done",
		`<td class="name">later</td><td class="verdict">pending</td>`,
		`<td class="name">broken</td><td class="verdict">failed (test)</td>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the running job's page lacks %q", want)
		}
	}
}

// TestHandler_BenchLabel: a benchmark row at 0.35× [0.34×, 0.39×], stored
// labelled not-faster, is slower on the job page. It is so in its table and
// in the benchmarks' forest plot, by the one rule
// (result.BenchResult.Label).
func TestHandler_BenchLabel(t *testing.T) {
	db := newTestDB(t)
	src := newStoreSource(db)
	stale := measured("stale", result.VerdictSlower, 0.35, 0.34, 0.39, 8)
	stale.Benchmarks[0].Verdict = result.VerdictNotFaster
	seedJob(t, db, src, "job-label", "/src/repo", t0, []fixtureCandidate{{res: stale, ratio: 1 / 0.35, pairs: 8}})
	status, body := get(t, newTestServer(t, src)+"/jobs/job-label")
	if status != http.StatusOK {
		t.Fatalf("status %d, body:\n%s", status, body)
	}
	table := section(t, body, `<table class="bench">`, `</table>`)
	row := regexp.MustCompile(`<tr class="v-slower"><td>BenchmarkSumSquares</td>.*<td>slower</td></tr>`)
	if !row.MatchString(table) || strings.Contains(table, "not-faster") {
		t.Errorf("the benchmark table does not label the row slower:\n%s", table)
	}
	if !strings.Contains(body, `<g class="row v-slower"><title>stale BenchmarkSumSquares: 0.350× [0.340×, 0.390×], slower</title>`) {
		t.Errorf("the benchmarks' forest plot does not label the row slower:\n%s", section(t, body, `<svg class="forest"`, `</main>`))
	}
}

// TestHandler_BenchColumns: on the job page, a row's candidate column is
// base / speedup. Its stored medians, 6.95 ns against 9.90 ns, disagree
// with its paired 0.99×. A lower bound of 1.0475 prints as 1.048×.
func TestHandler_BenchColumns(t *testing.T) {
	db := newTestDB(t)
	src := newStoreSource(db)
	medians := measured("medians", result.VerdictNotFaster, 0.99, 0.95, 1.03, 8)
	medians.Benchmarks[0].Base, medians.Benchmarks[0].Candidate = 6.95e-9, 9.90e-9
	edge := measured("edge", result.VerdictNotFaster, 1.2, 1.0475, 1.3, 8)
	seedJob(t, db, src, "job-columns", "/src/repo", t0, []fixtureCandidate{{res: medians, ratio: 1, pairs: 8}, {res: edge, ratio: 1 / 1.2, pairs: 8}})
	status, body := get(t, newTestServer(t, src)+"/jobs/job-columns")
	if status != http.StatusOK {
		t.Fatalf("status %d, body:\n%s", status, body)
	}
	if !strings.Contains(body, `<td class="num">6.95ns</td><td class="num">7.02ns</td><td class="num">0.990×</td>`) {
		t.Errorf("the row at 0.990× with base 6.95ns does not show base / speedup, 7.02ns:\n%s", section(t, body, `<table class="bench">`, `</table>`))
	}
	if strings.Count(body, "[1.048×, 1.30×]") < 2 || strings.Contains(body, "[1.05×, 1.30×]") {
		t.Errorf("a lower bound of 1.0475 is not printed 1.048× in the verdict and benchmark tables")
	}
}
