package dashboard

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/result"
	"github.com/optimizer-dev/optimizer/store"
)

// newTestDB opens a store in a temporary directory, closed when the test ends.
func newTestDB(tb testing.TB) *store.DB {
	tb.Helper()
	db, err := store.Open(context.Background(), filepath.Join(tb.TempDir(), "optimizer.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// serve serves h on a real TCP socket on the loopback interface until the
// test ends, and returns its base URL.
func serve(tb testing.TB, h http.Handler) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		srv.Close()
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			tb.Error(err)
		}
	})
	return "http://" + ln.Addr().String()
}

// newTestServer serves a dashboard over src.
func newTestServer(tb testing.TB, src Source) string {
	tb.Helper()
	h, err := New(src, Options{Logger: slog.New(slog.NewTextHandler(testWriter{tb}, nil))})
	if err != nil {
		tb.Fatal(err)
	}
	return serve(tb, h)
}

// get fetches url and returns its status and body.
func get(tb testing.TB, url string) (int, string) {
	tb.Helper()
	resp, err := http.Get(url)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// A fixtureCandidate is one candidate of a seeded job: its result, and for
// a measured one the speedup of its pairs.
type fixtureCandidate struct {
	res   result.CandidateResult
	ratio float64 // candidate/base of each pair; 0 for none
	pairs int
	diff  string
}

// seedJob records a finished job with these candidates in db, with samples
// for the measured ones, and gives src their diffs.
func seedJob(tb testing.TB, db *store.DB, src *storeSource, id, repo string, started time.Time, cands []fixtureCandidate) *result.Report {
	tb.Helper()
	ctx := context.Background()
	rep := &result.Report{Job: id, Repo: repo, Base: strings.Repeat("ab", 20), Parallel: 2, MinSpeedup: 0.05,
		State: "finished", Started: started, Seconds: 12.5}
	var rows []store.Candidate
	for i, c := range cands {
		if c.res.Verdict == result.VerdictWinner {
			name := c.res.Name
			rep.Winner = &name
		}
		rep.Candidates = append(rep.Candidates, c.res)
		rows = append(rows, store.Candidate{JobID: id, Seq: i, Name: c.res.Name, Verdict: string(c.res.Verdict), Speedup: c.res.Speedup})
		if src != nil && c.diff != "" {
			src.setDiff(id, c.res.Name, c.diff)
		}
	}
	if err := db.StartJob(ctx, store.Job{ID: id, Kind: "run", Repo: repo, Base: rep.Base, Parallel: 2, Started: started}, rows); err != nil {
		tb.Fatal(err)
	}
	for _, c := range cands {
		if c.pairs == 0 {
			continue
		}
		var samples []store.BenchSample
		for r := 0; r < c.pairs; r++ {
			base := 1e-4 * (1 + 0.02*math.Sin(float64(r)))
			cand := base * c.ratio * (1 + 0.03*math.Cos(float64(3*r)))
			for k, side := range []string{"base", "candidate"} {
				v := base
				if side == "candidate" {
					v = cand
				}
				samples = append(samples, store.BenchSample{JobID: id, Candidate: c.res.Name, Benchmark: c.res.Benchmarks[0].Name,
					Unit: "sec/op", Side: side, Round: r, Order: 2*r + k, Value: v, Iterations: 1000})
			}
		}
		if err := db.AddBenchSamples(ctx, samples); err != nil {
			tb.Fatal(err)
		}
	}
	b, err := json.Marshal(rep)
	if err != nil {
		tb.Fatal(err)
	}
	winner := ""
	if rep.Winner != nil {
		winner = *rep.Winner
	}
	if err := db.FinishJob(ctx, id, "finished", winner, b, ""); err != nil {
		tb.Fatal(err)
	}
	return rep
}

// measured is a benchmarked candidate result with one benchmark.
func measured(name string, verdict result.Verdict, speedup, lo, hi float64, pairs int) result.CandidateResult {
	ci := [2]float64{lo, hi}
	return result.CandidateResult{Name: name, Verdict: verdict, Speedup: speedup, CI: &ci, Pairs: pairs, Seconds: 3.2,
		Benchmarks: []result.BenchResult{{Name: "BenchmarkSumSquares", Unit: "sec/op", Base: 1e-4, Candidate: 1e-4 / speedup,
			Speedup: speedup, CI: ci, P: 0.0005, Level: 0.95, Pairs: pairs, Verdict: verdict}}}
}

// failed is a failed candidate result.
func failed(name string, kind result.FailureKind, msg, output string, tests ...string) result.CandidateResult {
	return result.CandidateResult{Name: name, Verdict: result.VerdictFailed,
		Failure: &result.Failure{Kind: kind, Message: msg, Output: output, Tests: tests}}
}

// demoLikeJob is a job shaped like the demo's: a winner, a slower one, two
// failures and a duplicate.
func demoLikeJob(tb testing.TB, db *store.DB, src *storeSource, id string, started time.Time) *result.Report {
	winner := measured("fast", result.VerdictWinner, 250, 230, 270, 8)
	winner.Verdict = result.VerdictWinner
	return seedJob(tb, db, src, id, "/src/repo", started, []fixtureCandidate{
		{res: winner, ratio: 1.0 / 250, pairs: 8, diff: "--- a/sumsq/sumsq.go\n+++ b/sumsq/sumsq.go\n@@ -1,3 +1,3 @@\n func f() {\n-\tslow()\n+\tfast()\n }\n"},
		{res: measured("slower", result.VerdictSlower, 0.5, 0.45, 0.55, 6), ratio: 2, pairs: 6},
		{res: failed("broken", result.FailTest, "tests fail: TestSumSquares", "--- FAIL: TestSumSquares/one (0.00s)\n    sumsq_test.go:20: got 0, want 1", "TestSumSquares/one"),
			diff: "--- a/sumsq/sumsq.go\n+++ b/sumsq/sumsq.go\n@@ -1 +1 @@\n-\tfor i := 0; i < n; i++ {\n+\tfor i := 1; i < n; i++ {\n"},
		{res: failed("nocompile", result.FailBuild, "does not build", "./sumsq.go:9:9: invalid operation: mismatched types int and int64")},
		{res: result.CandidateResult{Name: "fast_again", Verdict: result.VerdictDuplicate, DuplicateOf: "fast"}},
	})
}

// testWriter writes a handler's log to the test's.
type testWriter struct{ tb testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.tb.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
