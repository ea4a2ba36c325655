package dashboard

import (
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/optimizer-dev/optimizer/profiler"
)

// The flame graph's geometry, in SVG units (pixels at full width).
const (
	flameWidth  = 1000.0
	flameRow    = 17.0 // height of one level
	flameGap    = 1.0  // space between levels and boxes
	flameChar   = 6.2  // width of a label character (10px monospace, with room)
	flamePad    = 3.0  // label inset
	flameSame   = 0.1  // a self share changed by less (points) is no change
	flameMinBox = 0.5  // narrower boxes are not drawn
)

// flameView is a differential flame graph of the winner against base: one
// box per frame, the root at the top. Each box is as wide as its average
// share of the two sides' samples, and coloured by how its self share
// changed.
type flameView struct {
	Width, Height float64
	Boxes         []flameBox
	MaxChange     string // the largest change of a self share, "12.5 points"
	Changes       []string
}

// flameBox is one frame's box.
type flameBox struct {
	X, Y, W, H float64
	TX, TY     float64 // where the label starts
	Fill       string  // rgb(…): white for no change, red for more, blue for less
	Class      string  // "more", "less" or "same"
	Label      string  // the name, cut to fit; "" when nothing fits
	Func       string
	Title      string
}

// newFlameView lays out a summary's flame tree; nil when it has none.
func newFlameView(s *profiler.Summary) *flameView {
	if len(s.Flame) == 0 || s.Flame[0].Depth != 0 {
		return nil
	}
	v := &flameView{Width: flameWidth}
	maxDelta := 0.0
	for _, f := range s.Flame {
		maxDelta = max(maxDelta, math.Abs(f.Self.Cand-f.Self.Base))
	}
	// A small largest change stays pale: colour saturates at 1 point or more.
	scale := max(maxDelta, 1)
	v.MaxChange = f1(maxDelta) + " points"
	next := []float64{0} // next[d]: where the next child at depth d+1 starts
	depth := 0
	for _, f := range s.Flame {
		if f.Depth > len(next) || f.Depth < 0 {
			return nil // not a depth-first list
		}
		var x float64
		if f.Depth > 0 {
			x = next[f.Depth-1]
		}
		w := flameWidth * (f.Total.Base + f.Total.Cand) / 200
		if f.Depth > 0 {
			next[f.Depth-1] += w
		}
		next = append(next[:f.Depth], x)
		if w < flameMinBox {
			continue
		}
		depth = max(depth, f.Depth+1)
		d := f.Self.Cand - f.Self.Base
		b := flameBox{X: x, Y: float64(f.Depth) * flameRow, W: max(w-flameGap, flameMinBox), H: flameRow - flameGap,
			Func: f.Func, Class: "same", Fill: flameFill(d / scale), Label: fitLabel(f.Func, w-2*flamePad)}
		b.TX, b.TY = b.X+flamePad, b.Y+b.H-4
		switch {
		case d >= flameSame:
			b.Class = "more"
		case d <= -flameSame:
			b.Class = "less"
		}
		b.Title = fmt.Sprintf("%s\ntotal %s → %s, self %s → %s (%+.1f points)", f.Func,
			pctText(f.Total.Base), pctText(f.Total.Cand), pctText(f.Self.Base), pctText(f.Self.Cand), d)
		v.Boxes = append(v.Boxes, b)
	}
	v.Height = float64(depth) * flameRow
	for _, c := range s.Changes {
		v.Changes = append(v.Changes, fmt.Sprintf("%s %+.1f (%s → %s)", c.Func, c.Delta(), pctText(c.Self.Base), pctText(c.Self.Cand)))
	}
	return v
}

// flameFill is the colour of a change t, from -1 (blue) through 0 (white)
// to 1 (red).
func flameFill(t float64) string {
	t = max(-1, min(1, t))
	white, red, blue := [3]float64{246, 246, 246}, [3]float64{230, 90, 75}, [3]float64{80, 120, 230}
	to := red
	if t < 0 {
		to, t = blue, -t
	}
	var c [3]int
	for i := range c {
		c[i] = int(math.Round(white[i] + t*(to[i]-white[i])))
	}
	return fmt.Sprintf("rgb(%d,%d,%d)", c[0], c[1], c[2])
}

// fitLabel cuts name to fit width, with an ellipsis; "" when fewer than
// three characters fit.
func fitLabel(name string, width float64) string {
	n := int(width / flameChar)
	switch {
	case n < 3:
		return ""
	case utf8.RuneCountInString(name) <= n:
		return name
	}
	r := []rune(name)
	return string(r[:n-1]) + "…"
}

// pctText is a share with one decimal and a percent sign, 0 included.
func pctText(p float64) string { return f1(p) + "%" }
