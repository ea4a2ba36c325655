package main

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"time"
)

// The accuracy measures.
//
// Per line: each line that carries an ETA, predicted left / actual left,
// where actual is the time from the line to the end of what it predicts
// (the tests' end for "tests ETA", the last verdict for "ETA"). A line is
// right when the ratio is within [1/1.5, 1.5].
//
// Over time: what a user reading the output sees at an instant t is the
// last ETA printed, at t0, counted down since: max(0, predicted − (t − t0)).
// At every t of a phase (in steps of 10 ms) that is compared with the time
// really left to the end of what that line predicts. The phase's time is
// split three ways: the ETA shown was within 1.5× of the time left, it was
// outside, or no ETA was shown (none printed yet in the phase, or the last
// one predicted a phase that is over). The phases are the tests, from the
// "job" line to the tests' end, and the benchmarks, from there to the last
// verdict. The profile, after the last verdict, has no ETA and is not
// counted.
//
// No slack is given: with 0.6 s really left, a line that says 1.0s is
// outside, as is one that says 0.3s. A fourth column gives the share
// within 1.5× or a second (slack) of the time left, which a reader does
// not tell apart in a phase's last seconds; it is a view, not the target.

// factor is the target: an ETA within this factor of the truth is right.
const factor = 1.5

// slack is the over-time view's: an ETA within it of the truth is near.
const slack = time.Second

// stamped is one line of stderr and when it came.
type stamped struct {
	at   time.Duration
	text string
}

var (
	etaRe   = regexp.MustCompile(`, (tests )?ETA ([^,\s]+)(?:, up to (\S+))?$`)
	countRe = regexp.MustCompile(`^\[(\d+)/(\d+)\] `)
	jobRe   = regexp.MustCompile(`^job \S+: \d+ candidates$`)
	// A verdict line: "[2/6] broken: failed (…) 5.8s", not a "[4/6] fast:
	// benchmark" line, nor a waiting or refresh line.
	verdictRe = regexp.MustCompile(`^\[\d+/\d+\] \S+: (?:faster|slower|not-faster|mixed|failed|passed|duplicate|error|done)\b`)
)

// etaLine is one line with an ETA, and the truth it is measured against.
type etaLine struct {
	at         time.Duration
	text       string
	pred, most time.Duration // most: the "up to", or 1.5× pred when the line gives none
	tests      bool          // "tests ETA"
	end        time.Duration // when what it predicts really ended
	verdict    bool          // printed with a verdict, not a refresh between verdicts
}

func (l etaLine) actual() time.Duration { return l.end - l.at }

// ratio is predicted / actual left, NaN when nothing was left.
func (l etaLine) ratio() float64 {
	if l.actual() <= 0 {
		return math.NaN()
	}
	return l.pred.Seconds() / l.actual().Seconds()
}

// phase is one phase's time, split by what the ETA shown was.
type phase struct {
	name                  string
	from, to              time.Duration
	within, outside, none time.Duration
	near                  time.Duration // within factor or slack (within ⊆ near)
}

func (p phase) length() time.Duration { return p.to - p.from }

// timeline is where a job's phases started and ended.
type timeline struct {
	start, testsEnd, last time.Duration
}

func findTimeline(lines []stamped) (timeline, bool) {
	var tl timeline
	var sawStart, sawTests, sawLast bool
	for _, l := range lines {
		switch {
		case !sawStart && jobRe.MatchString(l.text):
			tl.start, sawStart = l.at, true
		case !sawTests && l.text == "phase: benchmark":
			tl.testsEnd, sawTests = l.at, true
		}
		if m := countRe.FindStringSubmatch(l.text); m != nil && m[1] == m[2] && !sawLast && verdictRe.MatchString(l.text) {
			tl.last, sawLast = l.at, true
		}
	}
	if !sawTests {
		tl.testsEnd = tl.last
	}
	return tl, sawStart && sawLast
}

// etaLines are the lines with an ETA, each with its truth.
func etaLines(lines []stamped, tl timeline) []etaLine {
	var out []etaLine
	for _, l := range lines {
		e := parseETA(l)
		if e == nil {
			continue
		}
		e.end = tl.last
		if e.tests {
			e.end = tl.testsEnd
		}
		out = append(out, *e)
	}
	return out
}

// parseETA is l's ETA, without its truth; nil when it has none.
func parseETA(l stamped) *etaLine {
	m := etaRe.FindStringSubmatch(l.text)
	if m == nil {
		return nil
	}
	pred, err := time.ParseDuration(m[2])
	if err != nil {
		return nil
	}
	e := &etaLine{at: l.at, text: l.text, pred: pred, most: pred * 3 / 2, tests: m[1] != "", verdict: verdictRe.MatchString(l.text)}
	if m[3] != "" {
		if e.most, err = time.ParseDuration(m[3]); err != nil {
			return nil
		}
	}
	return e
}

// overTime splits each phase's time by what the ETA shown was.
func overTime(etas []etaLine, tl timeline) []phase {
	const step = 10 * time.Millisecond
	phases := []phase{{name: "tests", from: tl.start, to: tl.testsEnd}, {name: "benchmarks", from: tl.testsEnd, to: tl.last}}
	for i := range phases {
		p := &phases[i]
		for t := p.from; t < p.to; t += step {
			d := min(step, p.to-t)
			var shown *etaLine
			for k := range etas {
				if etas[k].at <= t {
					shown = &etas[k]
				}
			}
			if shown == nil || shown.end <= t {
				p.none += d
				continue
			}
			eta, left := max(0, shown.pred-(t-shown.at)), shown.end-t
			in := within(eta, left)
			if in {
				p.within += d
			} else {
				p.outside += d
			}
			if in || (eta-left).Abs() <= slack {
				p.near += d
			}
		}
	}
	return phases
}

// within says whether eta is within factor of left.
func within(eta, left time.Duration) bool {
	if left <= 0 {
		return false
	}
	r := eta.Seconds() / left.Seconds()
	return r >= 1/factor && r <= factor
}

// lineStats sums up ratios: their median, the worst factor either way,
// and how many are within factor.
type lineStats struct {
	n, within    int
	median       float64
	worst        float64
	inMost, most int // actual within the line's "up to", of the lines with time left
}

func summarize(etas []etaLine) lineStats {
	var s lineStats
	var ratios []float64
	s.worst = 1
	for _, e := range etas {
		r := e.ratio()
		if math.IsNaN(r) {
			continue
		}
		ratios = append(ratios, r)
		f := math.Max(r, 1/r)
		s.worst = math.Max(s.worst, f)
		if f <= factor {
			s.within++
		}
		s.most++
		if e.actual() <= e.most {
			s.inMost++
		}
	}
	s.n = len(ratios)
	if s.n > 0 {
		sort.Float64s(ratios)
		s.median = ratios[s.n/2]
		if s.n%2 == 0 {
			s.median = (ratios[s.n/2-1] + ratios[s.n/2]) / 2
		}
	}
	return s
}

func (s lineStats) String() string {
	if s.n == 0 {
		return "no ETA"
	}
	return fmt.Sprintf("%d of %d within 1.5×, median %.2f, worst factor %.2f; actual within the \"up to\" on %d of %d",
		s.within, s.n, s.median, s.worst, s.inMost, s.most)
}

func pct(d, of time.Duration) string {
	if of <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*d.Seconds()/of.Seconds())
}

// report prints both measures.
func report(w io.Writer, lines []stamped) {
	tl, ok := findTimeline(lines)
	if !ok {
		fmt.Fprintln(w, "no job line or no last verdict: nothing to measure")
		return
	}
	etas := etaLines(lines, tl)
	fmt.Fprintln(w, "| at | line | predicted left | up to | actual left | predicted / actual |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, e := range etas {
		fmt.Fprintf(w, "| %.1fs | %s | %s | %s | %.1fs | %.2f |\n", e.at.Seconds(), e.text, e.pred, e.most, e.actual().Seconds(), e.ratio())
	}
	var verdicts, tests, bench []etaLine
	for _, e := range etas {
		if e.verdict {
			verdicts = append(verdicts, e)
		}
		if e.tests {
			tests = append(tests, e)
		} else {
			bench = append(bench, e)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "per line, all:           %s\n", summarize(etas))
	fmt.Fprintf(w, "per line, verdict lines: %s\n", summarize(verdicts))
	fmt.Fprintf(w, "per line, tests ETA:     %s\n", summarize(tests))
	fmt.Fprintf(w, "per line, ETA:           %s\n", summarize(bench))
	fmt.Fprintln(w, "\nover time (the last ETA printed, counted down):")
	fmt.Fprintln(w, "\n| phase | length | ETA within 1.5× | outside | no ETA shown | within 1.5× or 1 s |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	row := func(p phase) {
		fmt.Fprintf(w, "| %s | %.1fs | %s | %s | %s | %s |\n", p.name, p.length().Seconds(),
			pct(p.within, p.length()), pct(p.outside, p.length()), pct(p.none, p.length()), pct(p.near, p.length()))
	}
	all := phase{name: "job"}
	for _, p := range overTime(etas, tl) {
		row(p)
		all.to += p.length()
		all.within += p.within
		all.outside += p.outside
		all.none += p.none
		all.near += p.near
	}
	row(all)
}
