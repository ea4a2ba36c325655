package dashboard

import (
	"github.com/optimizer-dev/optimizer/profiler"
)

// profileView is the winner's profile: the top functions before and after,
// and the changed functions line by line.
type profileView struct {
	S     *profiler.Summary
	Top   []funcRow
	Funcs []funcLines
	Alloc []funcRow
	Flame *flameView
}

type funcRow struct {
	Name, Where, Class   string
	Base, Cand           string // flat shares
	CumBase, CumCand     string
	Changed              bool
	BaseWidth, CandWidth float64 // bar widths, 0 to 100
}

// funcLines are the rows of one changed function.
type funcLines struct {
	Func, File string
	Lines      []lineRow
}

type lineRow struct {
	Change, BaseLine, CandLine, Text string
	Base, Cand                       string // cum shares
	Class                            string
}

// newProfileView is the view of a report's profile; nil when it has none.
func newProfileView(s *profiler.Summary) *profileView {
	if s == nil || len(s.Top) == 0 && len(s.Lines) == 0 {
		return nil
	}
	v := &profileView{S: s, Top: funcRows(s.Top), Flame: newFlameView(s)}
	if s.Alloc != nil {
		v.Alloc = funcRows(s.Alloc.Top)
	}
	for _, l := range s.Lines {
		if len(v.Funcs) == 0 || v.Funcs[len(v.Funcs)-1].Func != l.Func || v.Funcs[len(v.Funcs)-1].File != l.File {
			v.Funcs = append(v.Funcs, funcLines{Func: l.Func, File: l.File})
		}
		f := &v.Funcs[len(v.Funcs)-1]
		row := lineRow{Change: l.Change, Text: l.Text, Base: shareText(l.Cum.Base), Cand: shareText(l.Cum.Cand), Class: "ctx"}
		if l.BaseLine > 0 {
			row.BaseLine = itoa(l.BaseLine)
		}
		if l.CandLine > 0 {
			row.CandLine = itoa(l.CandLine)
		}
		switch l.Change {
		case "+":
			row.Class = "add"
		case "-":
			row.Class = "del"
		}
		f.Lines = append(f.Lines, row)
	}
	return v
}

func funcRows(rows []profiler.FuncRow) []funcRow {
	var out []funcRow
	for _, r := range rows {
		row := funcRow{Name: r.Func, Class: r.Class, Base: shareText(r.Flat.Base), Cand: shareText(r.Flat.Cand),
			Changed: r.Changed, BaseWidth: clampPct(r.Flat.Base), CandWidth: clampPct(r.Flat.Cand)}
		if r.File != "" {
			row.Where = r.File
			if r.Line > 0 {
				row.Where += ":" + itoa(r.Line)
			}
		}
		if r.Cum != nil {
			row.CumBase, row.CumCand = shareText(r.Cum.Base), shareText(r.Cum.Cand)
		}
		out = append(out, row)
	}
	return out
}

func shareText(pct float64) string {
	if pct == 0 {
		return ""
	}
	return f1(pct) + "%"
}

func f1(x float64) string {
	return trimFloat(float64(int(x*10+0.5)) / 10)
}

func clampPct(x float64) float64 { return max(0, min(100, x)) }
