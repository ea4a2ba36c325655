package evaluator

import (
	"github.com/optimizer-dev/optimizer/machine"

	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
)

// HistoryJobs is how many of the latest earlier jobs like this one give the
// job's ETA its history (Event.History). It is enough to average out one
// job's candidates, and few enough to follow the machine and the code.
const HistoryJobs = 5

// benchKey names what decides how many pairs a job's benchmarks take,
// besides its candidates. That is the bench command or the Go benchmarks
// chosen, how they are run, the pair limits, the threshold and the budget.
// It is also the machine (its name and CPU). Jobs on the same repository
// with the same key share their history. It is "" for a job that benchmarks
// nothing.
func benchKey(o Options) string {
	host, _ := os.Hostname()
	h := sha256.New()
	fmt.Fprintf(h, "bench %q\nfilter %q\nargs %q\nbuild %q\nall %t\nmetric %s\npin %t\n", o.Bench, o.BenchFilter, o.BenchArgs, o.BuildFlags, o.All, o.Metric, o.Pin)
	fmt.Fprintf(h, "pairs %d-%d\nthreshold %g\nbudget %s\nquick %t\nhost %q %q\n", o.MinPairs, o.MaxPairs, o.MinSpeedup, o.Budget, o.Quick, host, machine.CPUModel())
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// history is the pairs the benchmarks of the latest HistoryJobs earlier
// jobs like this one took, by candidate (store.DB.BenchHistory). It is nil
// when there are none, or the store cannot say (an ETA does without).
func (j *job) history(ctx context.Context) []PastBenchmark {
	if j.benchKey == "" {
		return nil
	}
	past, err := j.db.BenchHistory(ctx, j.opts.Repo, j.benchKey, j.id, HistoryJobs)
	if err != nil {
		j.log.Debug("no benchmark history", "err", err)
		return nil
	}
	j.log.Debug("benchmark history", "key", j.benchKey, "benchmarks", len(past))
	out := make([]PastBenchmark, len(past))
	for i, b := range past {
		out[i] = PastBenchmark(b)
	}
	return out
}
