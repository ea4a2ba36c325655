package dashboard

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/optimizer-dev/optimizer/evaluator/measure"
	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/store"
)

// maxRepoJobs is how many of a repository's latest jobs its page reads.
const maxRepoJobs = 100

// repoView is the repository page: each benchmark's base value commit
// after commit, and the winners over time.
type repoView struct {
	Repo    string
	Jobs    int
	Trends  []trendView
	Order   string // how the commits are ordered, when not by first parents
	Winners []winnerRow
}

// trendView is one benchmark's base value, commit after commit.
type trendView struct {
	Benchmark, Unit string
	Width, Height   float64
	Left, Right     float64
	Top, Bottom     float64
	Points          []pairPoint
	Lines           []string // one polyline per run of points on one machine
	Ticks           []tick
	XTicks          []tick
	Machines        []machineMark
}

// machineMark is a change of machine between two points of a trend: a
// vertical line between them.
type machineMark struct {
	X     float64
	Title string
}

type winnerRow struct {
	Time, Job, Link, Winner, Speedup, Interval string
}

// trendPoint is base's value of one benchmark at one commit: the latest
// job's that measured it there.
type trendPoint struct {
	commit gitcmd.Commit
	store.BasePoint
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
	v := repoView{Repo: repo, Jobs: len(jobs)}
	if err := h.winners(r, jobs, &v); err != nil {
		h.serverError(w, r, err)
		return
	}
	if err := h.trends(r, repo, &v); err != nil {
		h.serverError(w, r, err)
		return
	}
	h.render(w, http.StatusOK, "repo", page{Title: "repository " + repo, Body: v})
}

// winners lists the jobs' winners, newest first.
func (h *Handler) winners(r *http.Request, jobs []Job, v *repoView) error {
	slices.SortStableFunc(jobs, func(a, b Job) int { return b.Started.Compare(a.Started) })
	for _, j := range jobs {
		rep, err := h.src.Report(r.Context(), j.ID)
		if notFound(err) {
			continue // gone since it was listed
		}
		if err != nil {
			return err
		}
		for _, c := range rep.Candidates {
			if rep.Winner != nil && c.Name == *rep.Winner {
				v.Winners = append(v.Winners, winnerRow{Time: j.Started.UTC().Format("2006-01-02 15:04"), Job: j.ID,
					Link: jobLink(j.ID), Winner: c.Name, Speedup: speedupText(c.Speedup), Interval: intervalText(c.CI, rep.MinSpeedup)})
			}
		}
	}
	return nil
}

// trends plots each benchmark's base value by commit: one point per commit
// (the latest job that measured base there), in first-parent order.
func (h *Handler) trends(r *http.Request, repo string, v *repoView) error {
	ctx := r.Context()
	history, err := h.src.BaseHistory(ctx, repo, maxRepoJobs)
	if err != nil {
		return err
	}
	var hashes []string
	for _, p := range history {
		hashes = append(hashes, p.Commit)
	}
	order, err := h.src.Commits(ctx, repo, hashes)
	if err != nil {
		// The repository may be gone: its store still says what was measured.
		h.logger.Warn("order commits", "repo", repo, "err", err)
		v.Order = "git could not order the commits, so they are in the order their jobs started"
		order = nil
		seen := map[string]bool{}
		for _, p := range history {
			if !seen[p.Commit] {
				seen[p.Commit] = true
				order = append(order, gitcmd.Commit{Hash: p.Commit})
			}
		}
	}
	at := map[string]int{}
	for i, c := range order {
		at[c.Hash] = i
	}
	type key struct{ bench, unit string }
	latest := map[key]map[string]store.BasePoint{} // by commit
	var keys []key
	left := 0
	for _, p := range history { // oldest job first: a later job replaces an earlier one
		if !measure.TimedUnit(p.Unit) {
			continue // base's times: B/op and allocs/op are not plotted
		}
		if _, ok := at[p.Commit]; !ok {
			left++
			continue
		}
		k := key{p.Benchmark, p.Unit}
		if latest[k] == nil {
			latest[k] = map[string]store.BasePoint{}
			keys = append(keys, k)
		}
		latest[k][p.Commit] = p
	}
	if left > 0 && v.Order == "" {
		v.Order = fmt.Sprintf("%d measurements are on commits git does not have, or beyond the %d commits read, and are left out", left, gitcmd.MaxHistory)
	}
	for _, k := range keys {
		var pts []trendPoint
		for _, p := range latest[k] {
			pts = append(pts, trendPoint{commit: order[at[p.Commit]], BasePoint: p})
		}
		slices.SortFunc(pts, func(a, b trendPoint) int { return at[a.Commit] - at[b.Commit] })
		v.Trends = append(v.Trends, newTrend(k.bench, k.unit, pts))
	}
	return nil
}

func newTrend(bench, unit string, pts []trendPoint) trendView {
	v := trendView{Benchmark: bench, Unit: unit, Width: plotWidth, Height: pairsHeight,
		Left: 70, Right: plotWidth - 16, Top: pairsTop, Bottom: pairsBottom}
	vals := make([]float64, len(pts))
	for i, p := range pts {
		vals[i] = p.Value
	}
	y := newLinAxis(vals, v.Bottom, v.Top)
	n := max(len(pts), 2)
	x := func(i int) float64 { return v.Left + (float64(i)+0.5)*(v.Right-v.Left)/float64(n) }
	var xs, ys []float64
	for i, p := range pts {
		title := shortHash(p.Commit)
		if p.commit.Subject != "" {
			title += " " + p.commit.Subject
		}
		title += fmt.Sprintf("\n%s (median of %d base samples; job %s, %s)\n%s", valueText(unit, p.Value), p.Samples,
			p.JobID, p.Started.UTC().Format("2006-01-02 15:04"), machineText(p.Host))
		v.Points = append(v.Points, pairPoint{X: x(i), Y: y.at(p.Value), Title: title})
		if i > 0 {
			if d := machineDiff(pts[i-1].Host, p.Host); d != "" {
				// Times on two machines are not comparable: no line joins them.
				v.Machines = append(v.Machines, machineMark{X: (x(i-1) + x(i)) / 2,
					Title: "the machine changed between " + shortHash(pts[i-1].Commit) + " and " + shortHash(p.Commit) + ": " + d})
				v.Lines, xs, ys = append(v.Lines, points(xs, ys)), nil, nil
			}
		}
		xs, ys = append(xs, x(i)), append(ys, y.at(p.Value))
	}
	v.Lines = append(v.Lines, points(xs, ys))
	v.Ticks = y.ticks(4, func(f float64) string { return valueText(unit, f) })
	v.XTicks = append(v.XTicks, tick{P: x(0), Label: commitLabel(pts[0].Commit)})
	if len(pts) > 1 {
		v.XTicks = append(v.XTicks, tick{P: x(len(pts) - 1), Label: commitLabel(pts[len(pts)-1].Commit)})
	}
	return v
}

// commitLabel is a commit as an axis names it: seven hex digits.
func commitLabel(c string) string { return c[:min(len(c), 7)] }

// machineText names a machine as a point's title does.
func machineText(h store.Host) string {
	if h == (store.Host{}) {
		return "machine not recorded"
	}
	return "on " + h.String()
}

// machineDiff says what differs between two machines, of what makes their
// times incomparable: the host, its CPU model and the Go version. It is ""
// when none does or either is not recorded.
func machineDiff(a, b store.Host) string {
	if a == (store.Host{}) || b == (store.Host{}) {
		return ""
	}
	var d []string
	for _, f := range []struct{ what, a, b string }{{"host", a.Name, b.Name}, {"CPU", a.CPU, b.CPU}, {"Go", a.Go, b.Go}} {
		if f.a != f.b {
			d = append(d, fmt.Sprintf("%s %s → %s", f.what, f.a, f.b))
		}
	}
	return strings.Join(d, ", ")
}
