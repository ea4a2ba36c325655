package evaluator

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/shard"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// TestBench_Events: Bench, finishing a job run in one shard, first says
// what the shard found. The failed candidate is settled (EventDone, counted
// in Done), and the two that passed wait for their benchmarks
// (EventTested). So its ETA knows both benchmarks from the first pair on,
// and the job's last event counts every candidate. Run again on the same
// store, Bench chooses the same winner and only it. Since noted and fast
// are equally fast, the smaller change, fast's, breaks the tie. So the
// second run must know the changes of candidates it does not measure again.
// Real git, store and bench command.
func TestBench_Events(t *testing.T) {
	// The bench command prints its time as a Go benchmark line, so that
	// the verdicts do not depend on the machine's load.
	h := newHarness(t, map[string]string{
		"ok":       "yes\n",
		"ns":       "100000\n",
		"test.sh":  "test \"$(cat ok)\" = yes\n",
		"bench.sh": "n=$(od -An -N1 -tu1 /dev/urandom)\necho \"BenchmarkSum 1 $(( $(cat ns) + n )) ns/op\"\n",
	})
	ctx := context.Background()
	opts := Options{
		Candidates: []candidate.Candidate{
			filesCand("broken", map[string]string{"ok": "no\n"}),
			filesCand("noted", map[string]string{"ns": "10000\n", "note": "x\n"}),
			filesCand("fast", map[string]string{"ns": "10000\n"}),
		},
		Test: "sh test.sh", Bench: "sh bench.sh", Timeout: 5 * time.Second, MinPairs: 4, MaxPairs: 8,
		Shard: shard.Spec{K: 1, N: 1},
	}
	rep, err := h.run(t, ctx, 1, opts)
	if err != nil {
		t.Fatal(err)
	}
	job := rep.Job
	opts.Shard = shard.Spec{}

	// bench runs Bench on the job; first says whether it is the first run,
	// which measures, while a second has nothing left to measure.
	bench := func(first bool) (rep *Report, evs []Event) {
		t.Helper()
		o := opts
		o.Repo, o.Candidates = h.repo, nil
		eta := NewETA(o, 1)
		events := make(chan Event)
		got := make(chan []Event, 1)
		var waiting, atFirstPair []string // tested, benchmark not finished
		var sampled, estOK, estTests bool
		go func() {
			var evs []Event
			for ev := range events {
				eta.Observe(ev, time.Now())
				switch ev.Kind {
				case EventTested:
					waiting = append(waiting, ev.Candidate)
				case EventDone:
					waiting = slices.DeleteFunc(waiting, func(n string) bool { return n == ev.Candidate })
				}
				if ev.Kind == EventSample && !sampled {
					sampled, atFirstPair = true, slices.Clone(waiting)
					est, ok := eta.Estimate(time.Now())
					estOK, estTests = ok, est.Tests
				}
				evs = append(evs, ev)
			}
			got <- evs
		}()
		o.Events = events
		var err error
		h.withPool(t, ctx, 1, func(pool *worktreepool.Pool) { rep, err = Bench(ctx, pool, h.db, job, o) })
		close(events)
		if err != nil {
			t.Fatal(err)
		}
		evs = <-got
		switch {
		case !first && sampled:
			t.Errorf("bench again measured again")
		case first && (!sampled || !estOK || estTests || !slices.Equal(atFirstPair, []string{"noted", "fast"})):
			t.Errorf("at the first pair: ETA ok %v, tests only %v, waiting for %v; want an estimate of the benchmarks of noted and fast",
				estOK, estTests, atFirstPair)
		}
		return rep, evs
	}

	rep1, evs := bench(true)
	var before []string // what the events say before the first benchmark starts
	for _, ev := range evs {
		if ev.Kind == EventStart && ev.Phase == "benchmark" {
			break
		}
		switch ev.Kind {
		case EventDone:
			before = append(before, "done "+ev.Candidate)
			if ev.Done != 1 || ev.Result == nil || ev.Result.Verdict != VerdictFailed {
				t.Errorf("broken's event: Done %d, result %+v; want Done 1, failed", ev.Done, ev.Result)
			}
		case EventTested:
			before = append(before, "tested "+ev.Candidate)
		}
	}
	if want := []string{"done broken", "tested noted", "tested fast"}; !slices.Equal(before, want) {
		t.Errorf("before the benchmarks: %v, want %v", before, want)
	}
	if last := evs[len(evs)-1]; last.Kind != EventJobDone || last.Done != 3 || last.Total != 3 {
		t.Errorf("last event %+v, want the job done with 3 of 3", last)
	}
	winners := func(rep *Report) (names []string) {
		for _, c := range rep.Candidates {
			if c.Verdict == VerdictWinner {
				names = append(names, c.Name)
			}
		}
		return names
	}
	w1 := winners(rep1)
	if len(w1) != 1 || rep1.Winner == nil || *rep1.Winner != w1[0] {
		t.Fatalf("first bench: winners %v, report's winner %v; want one; verdicts %v", w1, rep1.Winner, verdicts(rep1))
	}

	rep2, _ := bench(false)
	if w2 := winners(rep2); !slices.Equal(w2, w1) || rep2.Winner == nil || *rep2.Winner != w1[0] {
		t.Errorf("bench again: winners %v, report's winner %v; want %v as before", w2, rep2.Winner, w1)
	}
}
