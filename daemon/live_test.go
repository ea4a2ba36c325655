package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/internal/browser"
	"github.com/optimizer-dev/optimizer/jobspec"
	"github.com/optimizer-dev/optimizer/report"
	"github.com/optimizer-dev/optimizer/result"
	"github.com/optimizer-dev/optimizer/store"
)

// liveRun stands in for evaluator.Run. A job of four candidates takes the
// whole slot budget for its benchmark and sends the events of a job in its
// benchmark phase. Of its candidates, quick is measured faster, fast is
// measuring its seventh pair, later is tested, and last has no slot yet.
// Then it holds on until it is stopped. A job of one candidate asks for a
// slot. It cannot get one while the first job holds the budget.
func liveRun(ctx context.Context, pool evaluator.Pool, _ *store.DB, opts evaluator.Options) (*evaluator.Report, error) {
	if len(opts.Candidates) == 1 {
		if s, err := pool.Acquire(ctx); err == nil {
			pool.Release(s)
		}
		<-ctx.Done()
		return nil, ctx.Err()
	}
	slots, err := pool.AcquireExclusive(ctx)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, s := range slots {
			pool.Release(s)
		}
	}()
	send := func(e evaluator.Event) {
		e.Time, e.Total = time.Now(), len(opts.Candidates)
		opts.Events <- e
	}
	tested := func(i int) *evaluator.CandidateResult {
		return &evaluator.CandidateResult{Name: opts.Candidates[i].Name, Verdict: evaluator.VerdictPassed,
			Live: &evaluator.Live{Stage: result.StageBenchQueue}}
	}
	send(evaluator.Event{Kind: evaluator.EventJobStart, Message: "run-live", Slots: pool.Size()})
	for i := range 3 {
		c := opts.Candidates[i].Name
		send(evaluator.Event{Kind: evaluator.EventStart, Phase: "behavior", Candidate: c, Index: i})
		send(evaluator.Event{Kind: evaluator.EventTested, Candidate: c, Index: i, Result: tested(i)})
	}
	quick := evaluator.CandidateResult{Name: "quick", Verdict: evaluator.VerdictFaster, Speedup: 1.5, CI: &[2]float64{1.3, 1.7}, Pairs: 8,
		Benchmarks: []evaluator.BenchResult{{Name: "BenchmarkX", Unit: "sec/op", Base: 3e-6, Candidate: 2e-6, Speedup: 1.5,
			CI: [2]float64{1.3, 1.7}, Pairs: 8, Verdict: evaluator.VerdictFaster}}}
	send(evaluator.Event{Kind: evaluator.EventStart, Phase: "benchmark", Candidate: "quick", Index: 0})
	send(evaluator.Event{Kind: evaluator.EventDone, Candidate: "quick", Index: 0, Done: 1, Result: &quick})
	send(evaluator.Event{Kind: evaluator.EventStart, Phase: "benchmark", Candidate: "fast", Index: 1})
	send(evaluator.Event{Kind: evaluator.EventWaiting, Phase: "benchmark", Candidate: "fast", Index: 1})
	for p := 1; p <= 6; p++ {
		send(evaluator.Event{Kind: evaluator.EventSample, Phase: "benchmark", Candidate: "fast", Index: 1, Pair: p})
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestLiveJob: while a job runs, GET /v1/jobs/ID, its text and the
// dashboard show the settings it runs with and what each candidate is
// doing, never a reason that sounds final. A job that waits for a slot
// shows no ETA. The queue shows each job's position.
func TestLiveJob(t *testing.T) {
	ctx := context.Background()
	repo := shellRepo(t)
	srv, c := startServer(t, func(o *Options) {
		o.Run, o.Slots, o.MaxJobs = liveRun, 2, 2
		o.Listen, o.Token = "127.0.0.1:0", "live-token"
	})
	submit := func(names ...string) string {
		var cands []json.RawMessage
		for _, n := range names {
			cands = append(cands, inline(t, n, map[string]string{"lib.txt": n + "\n"}))
		}
		j, err := c.Submit(ctx, api.JobRequest{Repo: repo, Candidates: cands,
			Options: jobspec.Spec{Test: shellTest, Bench: "true", MinSpeedup: 10}})
		if err != nil {
			t.Fatal(err)
		}
		return j.ID
	}
	live := submit("quick", "fast", "later", "last")
	var j api.Job
	for deadline := time.Now().Add(time.Minute); ; {
		var err error
		if j, err = c.Job(ctx, live); err != nil {
			t.Fatal(err)
		}
		if r := j.Report; r != nil && r.Candidates[1].Live != nil && r.Candidates[1].Live.Pair == 7 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the job's report never showed fast's seventh pair: %+v", j.Report)
		}
		time.Sleep(20 * time.Millisecond)
	}
	waiting := submit("alone")
	queued := submit("next")

	t.Run("API", func(t *testing.T) {
		r := j.Report
		if r.Parallel != 2 || r.MinSpeedup != 0.1 {
			t.Errorf("parallel %d, min_speedup %v; want 2 and 0.1", r.Parallel, r.MinSpeedup)
		}
		want := map[string]string{"quick": "", "fast": result.StageMeasuring, "later": result.StageBenchQueue, "last": result.StageQueued}
		for _, cr := range r.Candidates {
			got := ""
			if cr.Live != nil {
				got = cr.Live.Stage
			}
			if got != want[cr.Name] {
				t.Errorf("%s: stage %q, want %q", cr.Name, got, want[cr.Name])
			}
		}
		if l := r.Candidates[1].Live; l.MaxPairs != evaluator.DefaultMaxPairs {
			t.Errorf("fast: %+v, want pair 7 of at most %d", l, evaluator.DefaultMaxPairs)
		}
	})
	t.Run("Text", func(t *testing.T) {
		var b bytes.Buffer
		if err := report.Text(&b, j.Report); err != nil {
			t.Fatal(err)
		}
		text := b.String()
		for _, want := range []string{"2 slots, min speedup 10%", "winner: not chosen yet", "fast: measuring pair 7 of ≤ 30",
			"later: tests pass; its benchmark is still to run", "last: queued for a test slot"} {
			if !strings.Contains(text, want) {
				t.Errorf("the text lacks %q:\n%s", want, text)
			}
		}
		for _, bad := range []string{"no benchmark was configured", "another candidate was chosen", "clears 1.00×"} {
			if strings.Contains(text, bad) {
				t.Errorf("the text says %q:\n%s", bad, text)
			}
		}
	})
	t.Run("Pages", func(t *testing.T) {
		origin := "http://" + srv.Addr().String()
		b := browser.New(t)
		b.Open(t, origin+"/?token=live-token", "#running")
		b.Wait(t, `#running tr[data-job="`+waiting+`"]`)
		if s := b.Text(t, `#running tr[data-job="`+waiting+`"] td.state`); s != "running, waiting for a slot" {
			t.Errorf("the job waiting for a slot reads %q", s)
		}
		if s := b.Text(t, `#running tr[data-job="`+waiting+`"] td.eta`); s != "" {
			t.Errorf("the job waiting for a slot has an ETA: %q", s)
		}
		if s := b.Text(t, `#queued tr[data-job="`+queued+`"] td.position`); s != "1" {
			t.Errorf("the queued job's position reads %q, want 1", s)
		}
		if s := b.Text(t, `#queued tr[data-job="`+queued+`"] td.submitted`); !strings.HasPrefix(s, time.Now().UTC().Format("2006-01-02")) {
			t.Errorf("the queued job's submit time reads %q", s)
		}

		b.Open(t, origin+"/jobs/"+live, "main#job")
		page := b.Text(t, "main#job")
		for _, want := range []string{"slots2", "min speedup10%", "winnernot chosen yet", "1/4 candidates done",
			"measuring pair 7 of ≤ 30", "tests pass; its benchmark is still to run", "queued for a test slot",
			"the winner is chosen once every candidate is measured", "the threshold (1.10×)"} {
			if !strings.Contains(page, want) {
				t.Errorf("the job's page lacks %q", want)
			}
		}
		for _, bad := range []string{"no benchmark was configured", "another candidate was chosen", "4/4 candidates done", "clears 1.00×"} {
			if strings.Contains(page, bad) {
				t.Errorf("the job's page says %q", bad)
			}
		}
	})
}
