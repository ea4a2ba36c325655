package resultcache

import (
	"slices"

	"github.com/optimizer-dev/optimizer/evaluator/measure"
	"github.com/optimizer-dev/optimizer/store"
)

// Round is one stored pair: every benchmark's metrics on both sides, and
// the job that measured them.
type Round struct {
	Job  string   `json:"job"`
	Base []Metric `json:"base"`
	Cand []Metric `json:"cand"`
}

// Metric is one benchmark's metric on one side of a Round.
type Metric struct {
	Bench string  `json:"bench"`
	Unit  string  `json:"unit"`
	Value float64 `json:"value"`
	Iters int64   `json:"iters"`
}

// NewRound is the pair p as job measured it.
func NewRound(job string, p measure.Pair) Round {
	return Round{Job: job, Base: fromMetrics(p.Metrics[measure.Base]), Cand: fromMetrics(p.Metrics[measure.Cand])}
}

// Metrics is r's metrics by side, as measure takes kept pairs.
func (r Round) Metrics() [2][]measure.Metric {
	return [2][]measure.Metric{toMetrics(r.Base), toMetrics(r.Cand)}
}

// Rows are rounds as candidate's samples in job, on host, each marked with
// the job that measured it.
func Rows(rounds []Round, job, candidate string, host store.Host) []store.BenchSample {
	var rows []store.BenchSample
	for r, rd := range rounds {
		for s, ms := range [2][]Metric{rd.Base, rd.Cand} {
			for _, m := range ms {
				rows = append(rows, store.BenchSample{JobID: job, Candidate: candidate, Benchmark: m.Bench, Unit: m.Unit,
					Side: measure.Side(s).String(), Round: r, Order: 2*r + s, Value: m.Value, Iterations: m.Iters,
					ReusedFrom: rd.Job, Host: host})
			}
		}
	}
	return rows
}

// Jobs are the jobs that measured rounds, in their order.
func Jobs(rounds []Round) []string {
	var jobs []string
	for _, rd := range rounds {
		if !slices.Contains(jobs, rd.Job) {
			jobs = append(jobs, rd.Job)
		}
	}
	return jobs
}

// First is one benchmark's lone first iterations, in seconds, one per fresh
// process of each side: what the hack check times.
type First struct {
	Bench string    `json:"bench"`
	Base  []float64 `json:"base"`
	Cand  []float64 `json:"cand"`
}

func toMetrics(ms []Metric) []measure.Metric {
	out := make([]measure.Metric, len(ms))
	for i, m := range ms {
		out[i] = measure.Metric{Bench: m.Bench, Unit: m.Unit, Value: m.Value, Iters: m.Iters}
	}
	return out
}

func fromMetrics(ms []measure.Metric) []Metric {
	out := make([]Metric, len(ms))
	for i, m := range ms {
		out[i] = Metric{Bench: m.Bench, Unit: m.Unit, Value: m.Value, Iters: m.Iters}
	}
	return out
}
