package dashboard

import (
	"fmt"
	"net/http"
	"slices"
	"time"
)

// maxRepoJobs is how many of a repository's latest jobs its page reads.
const maxRepoJobs = 100

// repoView is the repository page: each benchmark's base time across jobs,
// and the winners over time.
type repoView struct {
	Repo    string
	Jobs    int
	Trends  []trendView
	Winners []winnerRow
}

// trendView is one benchmark's base value, job after job.
type trendView struct {
	Benchmark, Unit string
	Width, Height   float64
	Left, Right     float64
	Top, Bottom     float64
	Points          []pairPoint
	Line            string
	Ticks           []tick
	XTicks          []tick
}

type winnerRow struct {
	Time, Job, Link, Winner, Speedup, Interval string
}

// trendPoint is one job's base value of one benchmark.
type trendPoint struct {
	job   string
	when  time.Time
	value float64
}

func (h *Handler) repoPage(w http.ResponseWriter, r *http.Request) {
	repo := r.URL.Query().Get("path")
	if repo == "" {
		h.render(w, http.StatusBadRequest, "error", page{Title: "bad request", Body: errorView{
			Status: http.StatusBadRequest, Message: "Give the repository as ?path=/path/to/repo: the jobs page links to each one.",
		}})
		return
	}
	ctx, cancel := requestContext(r)
	defer cancel()
	all, err := h.src.Jobs(ctx)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	var jobs []Job
	for _, j := range all {
		if j.Repo == repo && !j.Started.IsZero() && len(jobs) < maxRepoJobs {
			jobs = append(jobs, j)
		}
	}
	if len(jobs) == 0 {
		h.notFound(w, r, fmt.Sprintf("No job has run in the repository %q.", repo))
		return
	}
	slices.SortFunc(jobs, func(a, b Job) int { return a.Started.Compare(b.Started) })
	v := repoView{Repo: repo, Jobs: len(jobs)}
	type key struct{ bench, unit string }
	series := map[key][]trendPoint{}
	var order []key
	for _, j := range jobs {
		rep, err := h.src.Report(ctx, j.ID)
		if notFound(err) {
			continue // gone since it was listed
		}
		if err != nil {
			h.serverError(w, r, err)
			return
		}
		seen := map[key]bool{}
		for _, c := range rep.Candidates {
			for _, b := range c.Benchmarks {
				k := key{b.Name, b.Unit}
				if b.Exact || b.Base <= 0 || seen[k] {
					continue
				}
				seen[k] = true
				if _, ok := series[k]; !ok {
					order = append(order, k)
				}
				series[k] = append(series[k], trendPoint{job: j.ID, when: j.Started, value: b.Base})
			}
			if rep.Winner != nil && c.Name == *rep.Winner {
				v.Winners = append(v.Winners, winnerRow{Time: j.Started.UTC().Format("2006-01-02 15:04"), Job: j.ID,
					Link: jobLink(j.ID), Winner: c.Name, Speedup: speedupText(c.Speedup), Interval: intervalText(c.CI)})
			}
		}
	}
	for _, k := range order {
		v.Trends = append(v.Trends, newTrend(k.bench, k.unit, series[k]))
	}
	slices.Reverse(v.Winners)
	h.render(w, http.StatusOK, "repo", page{Title: "repository " + repo, Body: v})
}

func newTrend(bench, unit string, pts []trendPoint) trendView {
	v := trendView{Benchmark: bench, Unit: unit, Width: plotWidth, Height: pairsHeight,
		Left: 70, Right: plotWidth - 16, Top: pairsTop, Bottom: pairsBottom}
	vals := make([]float64, len(pts))
	for i, p := range pts {
		vals[i] = p.value
	}
	y := newLinAxis(vals, v.Bottom, v.Top)
	n := max(len(pts), 2)
	x := func(i int) float64 { return v.Left + (float64(i)+0.5)*(v.Right-v.Left)/float64(n) }
	var xs, ys []float64
	for i, p := range pts {
		xs, ys = append(xs, x(i)), append(ys, y.at(p.value))
		v.Points = append(v.Points, pairPoint{X: x(i), Y: y.at(p.value),
			Title: "job " + p.job + ", " + p.when.UTC().Format("2006-01-02 15:04") + ": " + valueText(unit, p.value)})
	}
	v.Line = points(xs, ys)
	v.Ticks = y.ticks(4, func(f float64) string { return valueText(unit, f) })
	v.XTicks = append(v.XTicks, tick{P: x(0), Label: pts[0].when.UTC().Format("Jan 2 15:04")})
	if len(pts) > 1 {
		v.XTicks = append(v.XTicks, tick{P: x(len(pts) - 1), Label: pts[len(pts)-1].when.UTC().Format("Jan 2 15:04")})
	}
	return v
}
