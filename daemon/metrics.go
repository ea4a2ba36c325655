package daemon

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"net/http"

	"github.com/optimizer-dev/optimizer/store"
)

// metrics are the daemon's Prometheus metrics, on a registry of its own.
type metrics struct {
	reg      *prometheus.Registry
	outcomes *prometheus.CounterVec
	started_ prometheus.Counter
	wait     *prometheus.HistogramVec
}

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
	m.reg.MustRegister(m.outcomes, m.started_, m.wait,
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

func (m *metrics) started()           { m.started_.Inc() }
func (m *metrics) ended(state string) { m.outcomes.WithLabelValues(state).Inc() }

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
	for repo, st := range c.s.pools.stats() {
		ch <- prometheus.MustNewConstMetric(slotsBusyDesc, prometheus.GaugeValue, float64(st.InUse), repo)
		ch <- prometheus.MustNewConstMetric(slotsWarmDesc, prometheus.GaugeValue, float64(st.Open), repo)
	}
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
