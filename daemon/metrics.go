package daemon

import (
	"cmp"
	"context"
	"maps"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"net/http"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/store"
)

// metrics are the daemon's Prometheus metrics, on a registry of its own.
type metrics struct {
	reg       *prometheus.Registry
	outcomes  *prometheus.CounterVec
	started_  prometheus.Counter
	wait      *prometheus.HistogramVec
	duration  *prometheus.HistogramVec // a job run's time, by outcome
	queueWait prometheus.Histogram     // from submission to start
	phases    *prometheus.HistogramVec // each phase of a run, from its report
	verdicts  *prometheus.CounterVec   // candidates' final verdicts
	cacheHits *prometheus.CounterVec   // what the result cache gave, by kind
}

// jobBuckets are job times from 1 s to about 9 hours.
var jobBuckets = prometheus.ExponentialBuckets(1, 3, 10)

func newMetrics(s *Server) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.outcomes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "optimizer_jobs_ended_total", Help: "Jobs ended since the daemon started, by outcome.",
	}, []string{"outcome"})
	m.started_ = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "optimizer_jobs_started_total", Help: "Job runs started since the daemon started (a re-run counts again).",
	})
	m.wait = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "optimizer_gate_wait_seconds",
		Help:    "How long a request for slots waited at the machine-wide gate: shared for a behaviour run, exclusive for a benchmark.",
		Buckets: prometheus.ExponentialBuckets(0.001, 4, 10),
	}, []string{"kind"})
	m.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "optimizer_job_duration_seconds", Help: "How long a job's run took, from its start to its end, by outcome.", Buckets: jobBuckets,
	}, []string{"outcome"})
	m.queueWait = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "optimizer_job_queue_wait_seconds", Help: "How long a job waited in the queue, from its submission to its run's start.", Buckets: jobBuckets,
	})
	m.phases = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "optimizer_job_phase_seconds", Help: "How long each phase of a finished job took: resolve, behavior, benchmark, profile.", Buckets: jobBuckets,
	}, []string{"phase"})
	m.verdicts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "optimizer_verdicts_total", Help: "Candidates' final verdicts in ended jobs, by verdict.",
	}, []string{"verdict"})
	m.cacheHits = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "optimizer_cache_hits_total", Help: "What the result cache gave: a candidate's tests reused (tests), or benchmark pairs reused (pairs).",
	}, []string{"kind"})
	info := buildInfo()
	m.reg.MustRegister(m.outcomes, m.started_, m.wait, m.duration, m.queueWait, m.phases, m.verdicts, m.cacheHits,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "optimizer_build_info", Help: "Always 1: the labels say which build of optimizer this daemon is.",
			ConstLabels: prometheus.Labels{"version": info.version, "revision": info.revision, "goversion": runtime.Version()}},
			func() float64 { return 1 }),
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "optimizer_queue_length", Help: "Jobs queued, not yet running."},
			func() float64 { return float64(s.queued()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "optimizer_jobs_running", Help: "Jobs running now."},
			func() float64 { return float64(s.sched.count()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "optimizer_slot_budget", Help: "The machine-wide slot budget."},
			func() float64 { return float64(s.opts.Slots) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "optimizer_gate_slots_held", Help: "Slots of the budget held now (the whole budget during a benchmark)."},
			func() float64 { u, _ := s.gate.busy(); return float64(u) }),
		&slotCollector{s: s},
	)
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

func (m *metrics) ended(state string) { m.outcomes.WithLabelValues(state).Inc() }

// started counts a job's run, after it waited in the queue since submitted.
func (m *metrics) started(submitted time.Time) {
	m.started_.Inc()
	if !submitted.IsZero() {
		m.queueWait.Observe(time.Since(submitted).Seconds())
	}
}

// ran observes a run that ended in state after d, with its report (nil
// for none): its phases, its verdicts and what the cache gave it.
func (m *metrics) ran(state string, d time.Duration, rep *evaluator.Report) {
	m.duration.WithLabelValues(state).Observe(d.Seconds())
	if rep == nil {
		return
	}
	if p := rep.Phases; p != nil && state == store.QueueFinished {
		for phase, sec := range map[string]float64{"resolve": p.Resolve, "behavior": p.Behavior, "benchmark": p.Benchmark, "profile": p.Profile} {
			if sec > 0 {
				m.phases.WithLabelValues(phase).Observe(sec)
			}
		}
	}
	for _, c := range rep.Candidates {
		if c.Verdict != evaluator.VerdictPending {
			m.verdicts.WithLabelValues(string(c.Verdict)).Inc()
		}
		if c.ReusedFrom != "" {
			m.cacheHits.WithLabelValues("tests").Inc()
		}
		if c.ReusedPairs > 0 {
			m.cacheHits.WithLabelValues("pairs").Add(float64(c.ReusedPairs))
		}
	}
}

// build is what the binary says of its version.
type build struct{ version, revision string }

func buildInfo() build {
	b := build{version: "(devel)", revision: "unknown"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	b.version = cmp.Or(bi.Main.Version, b.version)
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" {
			b.revision = s.Value
		}
	}
	return b
}

func (m *metrics) observeWait(exclusive bool, d time.Duration) {
	kind := "shared"
	if exclusive {
		kind = "exclusive"
	}
	m.wait.WithLabelValues(kind).Observe(d.Seconds())
}

// slotCollector reports each warm pool's slots: busy (lent out) and warm (open).
type slotCollector struct{ s *Server }

var (
	slotsBusyDesc = prometheus.NewDesc("optimizer_slots_busy", "Slots of a repository's warm pool lent out now.", []string{"repo"}, nil)
	slotsWarmDesc = prometheus.NewDesc("optimizer_slots_warm", "Slots of a repository's warm pool that exist now.", []string{"repo"}, nil)
)

func (c *slotCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- slotsBusyDesc
	ch <- slotsWarmDesc
}

func (c *slotCollector) Collect(ch chan<- prometheus.Metric) {
	stats := c.s.pools.stats()
	names := repoNames(slices.Collect(maps.Keys(stats)))
	for repo, st := range stats {
		ch <- prometheus.MustNewConstMetric(slotsBusyDesc, prometheus.GaugeValue, float64(st.InUse), names[repo])
		ch <- prometheus.MustNewConstMetric(slotsWarmDesc, prometheus.GaugeValue, float64(st.Open), names[repo])
	}
}

// repoNames gives each repository root a short label: its directory's name.
// Where two roots share that name, the label adds as many parent
// directories as tell them apart ("work/btree", "src/btree").
func repoNames(roots []string) map[string]string {
	out := make(map[string]string, len(roots))
	for depth := 1; len(out) < len(roots); depth++ {
		byName := map[string][]string{}
		for _, r := range roots {
			if _, done := out[r]; !done {
				byName[lastParts(r, depth)] = append(byName[lastParts(r, depth)], r)
			}
		}
		for name, rs := range byName {
			if len(rs) == 1 || lastParts(rs[0], depth) == filepath.Clean(rs[0]) {
				for _, r := range rs {
					out[r] = name
				}
			}
		}
	}
	return out
}

// lastParts is the last n elements of path p, joined by slashes.
func lastParts(p string, n int) string {
	parts := strings.Split(strings.Trim(filepath.ToSlash(filepath.Clean(p)), "/"), "/")
	if n >= len(parts) {
		return filepath.Clean(p)
	}
	return strings.Join(parts[len(parts)-n:], "/")
}

// queued returns the queue's length, or -1 when it cannot be read.
func (s *Server) queued() int {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	n, err := s.db.CountQueued(ctx)
	if err != nil {
		return -1
	}
	return n[store.QueueQueued]
}
