package dashboard

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/report"
	"github.com/optimizer-dev/optimizer/result"
)

// jobView is the job page.
type jobView struct {
	ID         string // the Source's id of the job
	Rep        *result.Report
	State      string
	Live       bool   // the job is queued or running: the page follows it
	Progress   string // "3/6 candidates, ETA 1m05s"
	RepoLink   string
	Winner     string
	Rows       []verdictRow
	Forest     *forestView
	BenchPlot  *forestView
	Measured   []measuredView
	Failures   []failureView
	Profile    *profileView
	Noise      string
	SeenAt     string
	MinSpeedup string
	Text       string // the text report, as optimizer report prints it
}

// verdictRow is one row of the verdict table: the text report's columns,
// and why.
type verdictRow struct {
	Name, Anchor, Verdict, Class string
	Speedup, Interval, Pairs     string
	Time, Reason                 string
}

// measuredView is one benchmarked candidate: its benchmark table and the
// pairs behind each row.
type measuredView struct {
	Name, Anchor string
	Benchmarks   []benchRow
	Pairs        []pairsView
	Interference string
	Diff         []diffLine
}

type benchRow struct {
	Name, Unit, Base, Candidate, Speedup, Interval, P, Pairs, Note, Class string
}

// failureView is one failed candidate: what failed, where, and its change.
type failureView struct {
	Name, Anchor, Kind, Message string
	Tests                       []string
	Output                      string
	Diff                        []diffLine
}

func (h *Handler) jobPage(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := requestContext(r)
	defer cancel()
	id := r.PathValue("id")
	rep, err := h.src.Report(ctx, id)
	switch {
	case notFound(err):
		h.notFound(w, r, fmt.Sprintf("There is no job %q. The jobs page lists every job the daemon knows.", id))
		return
	case err != nil:
		h.serverError(w, r, err)
		return
	}
	v := jobView{ID: id, Rep: rep, State: rep.State, RepoLink: repoLink(rep.Repo), MinSpeedup: percentText(rep.MinSpeedup),
		SeenAt: time.Now().UTC().Format("15:04:05Z")}
	if v.State == "" {
		v.State = "finished"
	}
	if err := h.jobProgress(r, id, &v); err != nil {
		h.serverError(w, r, err)
		return
	}
	v.Winner = winnerText(rep)
	for _, c := range rep.Candidates {
		v.Rows = append(v.Rows, newVerdictRow(rep, c))
	}
	v.Forest, v.BenchPlot = candidateForest(rep), benchmarkForest(rep)
	if err := h.evidence(r, id, rep, &v); err != nil {
		h.serverError(w, r, err)
		return
	}
	v.Profile = newProfileView(rep.Profile)
	var text strings.Builder
	if err := report.Text(&text, rep); err != nil {
		h.serverError(w, r, err)
		return
	}
	v.Text = text.String()
	if n := rep.Noise; n != nil {
		v.Noise = fmt.Sprintf("±%s%% (base against itself, %d pairs)", percentText(n.Floor), n.Pairs)
	}
	h.render(w, http.StatusOK, "job", page{Title: "job " + id, Job: id, Body: v})
}

// jobProgress fills in the live state of the job.
func (h *Handler) jobProgress(r *http.Request, id string, v *jobView) error {
	j, err := h.src.Job(r.Context(), id)
	if notFound(err) {
		return nil // a report without a listing: show what the report says
	}
	if err != nil {
		return err
	}
	v.State = j.State
	v.Live = j.State == "queued" || j.State == "running"
	if v.Live && j.Total > 0 {
		v.Progress = fmt.Sprintf("%d/%d candidates done", j.Done, j.Total)
		if j.Doing != "" {
			v.Progress += "; " + j.Doing
		}
		if j.ETA > 0 {
			v.Progress += "; ETA " + shortDuration(j.ETA)
		}
	}
	return nil
}

// evidence reads the samples and diffs behind the report: the pairs of
// every benchmarked candidate, and the change of every failed one and of
// the winner.
func (h *Handler) evidence(r *http.Request, id string, rep *result.Report, v *jobView) error {
	ctx := r.Context()
	for _, c := range rep.Candidates {
		if c.Verdict == result.VerdictFailed {
			f := failureView{Name: c.Name, Anchor: anchor("failure", c.Name)}
			if c.Failure != nil {
				f.Kind, f.Message, f.Tests, f.Output = string(c.Failure.Kind), c.Failure.Message, c.Failure.Tests, c.Failure.Output
			}
			diff, err := h.src.Diff(ctx, id, c.Name)
			if err != nil {
				return fmt.Errorf("read diff of %s: %w", c.Name, err)
			}
			f.Diff = diffLines(diff)
			v.Failures = append(v.Failures, f)
		}
		if len(c.Benchmarks) == 0 {
			continue
		}
		m := measuredView{Name: c.Name, Anchor: anchor("bench", c.Name)}
		for _, b := range c.Benchmarks {
			m.Benchmarks = append(m.Benchmarks, newBenchRow(b, rep.MinSpeedup))
		}
		samples, err := h.src.Samples(ctx, id, c.Name)
		if err != nil {
			return fmt.Errorf("read samples of %s: %w", c.Name, err)
		}
		m.Pairs = newPairsViews(c, samples, rep.MinSpeedup)
		if i := c.Interference; i.Significant() {
			m.Interference = i.Summary()
		}
		if c.Verdict == result.VerdictWinner {
			diff, err := h.src.Diff(ctx, id, c.Name)
			if err != nil {
				return fmt.Errorf("read diff of %s: %w", c.Name, err)
			}
			m.Diff = diffLines(diff)
		}
		v.Measured = append(v.Measured, m)
	}
	return nil
}

func newVerdictRow(rep *result.Report, c result.CandidateResult) verdictRow {
	verdict := string(c.Verdict)
	if c.Failure != nil {
		verdict += " (" + string(c.Failure.Kind) + ")"
	}
	if c.Qualifier != "" {
		verdict += " (" + c.Qualifier + ")"
	}
	class := "v-" + string(c.Verdict)
	if c.Live != nil && report.Unfinished(rep) {
		// Not its final verdict: the stage it is at.
		verdict, class = liveVerdict[c.Live.Stage], "v-pending"
	}
	row := verdictRow{
		Name: c.Name, Anchor: anchor("c", c.Name), Verdict: verdict, Class: class,
		Speedup: speedupText(c.Speedup), Interval: intervalText(c.CI, rep.MinSpeedup), Pairs: countText(c.Pairs),
		Time: secondsText(c.Seconds), Reason: report.Reason(rep, c),
	}
	if c.WaitSeconds >= 1 {
		row.Time += " (+" + secondsText(c.WaitSeconds) + " wait)"
	}
	return row
}

// liveVerdict is the verdict column of a candidate that has none yet, by
// its stage (result.Live).
var liveVerdict = map[string]string{
	result.StageQueued:     "queued",
	result.StageTesting:    "testing",
	result.StageBenchQueue: "tests pass",
	result.StageWaiting:    "waiting",
	result.StageSetup:      "benchmark set-up",
	result.StageMeasuring:  "measuring",
}

// newBenchRow is one row of a candidate's benchmark table, labelled by the
// one rule (result.BenchResult.Label).
func newBenchRow(b result.BenchResult, minSpeedup float64) benchRow {
	label := b.Label(minSpeedup)
	base, cand := b.Columns()
	row := benchRow{
		Name: b.Name, Unit: b.Unit, Base: valueText(b.Unit, base), Candidate: valueText(b.Unit, cand),
		Speedup: speedupText(b.Speedup), Interval: intervalText(&b.CI, minSpeedup), P: pText(b.P), Pairs: countText(b.Pairs),
		Class: "v-" + string(label),
	}
	var notes []string
	if label != "" {
		notes = append(notes, string(label))
	}
	if b.Exact {
		row.Speedup, row.Interval, row.P = "-", "-", "-"
		notes = append(notes, "exact")
	}
	if b.Increased {
		notes = append(notes, "increased")
	}
	if b.Decreased {
		notes = append(notes, "decreased")
	}
	row.Note = strings.Join(notes, ", ")
	return row
}

// winnerText is the report's winner line (report.WinnerLine).
func winnerText(rep *result.Report) string { return report.WinnerLine(rep) }

// anchor is an element id for a candidate's section: the name's letters
// and digits, and a hash so that two names never share one.
func anchor(prefix, name string) string {
	var b strings.Builder
	for _, r := range name {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			b.WriteRune(r)
		}
	}
	return fmt.Sprintf("%s-%s-%08x", prefix, b.String(), fnv32(name))
}

func fnv32(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

func countText(n int) string {
	if n == 0 {
		return "-"
	}
	return itoa(n)
}

func pText(p float64) string {
	switch {
	case p <= 0 || p != p:
		return "-"
	case p < 0.001:
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", p)
}
