package profiler

import (
	"cmp"
	"math"
	"slices"

	"github.com/google/pprof/profile"
)

// Limits of the flame tree a Summary keeps.
const (
	// MinFlameShare is the share (%) of its side's samples a frame needs on
	// at least one side to be kept: narrower ones would not be seen.
	MinFlameShare = 0.2
	// MaxFlameNodes bounds the frames kept, so that a report stays small;
	// the narrowest go first.
	MaxFlameNodes = 400
	// MaxFlameDepth bounds the stack depth kept.
	MaxFlameDepth = 64
	// FlameChanges is how many frames Summary.Changes names.
	FlameChanges = 3
)

// FlameRoot is the name of a flame tree's root, which stands for every
// sample.
const FlameRoot = "(all)"

// A FlameFrame is one frame of the merged call tree of base and the
// winner: a function reached by one path from the root. A tree is a list of
// frames in depth-first order: a frame's children follow it, by name, each
// one deeper. Shares are of each side's own samples, as everywhere in a
// Summary.
type FlameFrame struct {
	Func  string `json:"func"`  // as FuncRow.Func names it; FlameRoot for the root
	Depth int    `json:"depth"` // 0 for the root
	// Total is the time with this frame on the stack by this path; Self the
	// time in the frame itself.
	Total Share `json:"total"`
	Self  Share `json:"self"`
}

// A FrameChange is a function whose self time changed, summed over every
// path that reaches it.
type FrameChange struct {
	Func string `json:"func"`
	Self Share  `json:"self"`
}

// Delta is the change of the frame's self share, winner less base, in
// percentage points.
func (c FrameChange) Delta() float64 { return c.Self.Cand - c.Self.Base }

// flameNode is a FlameNode being built, in sample values.
type flameNode struct {
	name     string
	total    [2]int64
	self     [2]int64
	children map[string]*flameNode
	depth    int
	share    float64 // the larger side's total share, for pruning
}

func (n *flameNode) child(name string) *flameNode {
	c := n.children[name]
	if c == nil {
		c = &flameNode{name: name, children: map[string]*flameNode{}, depth: n.depth + 1}
		n.children[name] = c
	}
	return c
}

// flame merges the CPU samples of base (side 0) and the winner (side 1)
// into one call tree, and sums each function's self time. It returns the
// tree pruned to MinFlameShare, MaxFlameNodes and MaxFlameDepth, and the
// FlameChanges functions whose self share changed most.
func flame(ps [2]*profile.Profile, typ string) ([]FlameFrame, []FrameChange, error) {
	root := &flameNode{name: FlameRoot, children: map[string]*flameNode{}}
	self := map[string]*[2]int64{}
	for side, p := range ps {
		idx, err := valueIndex(p, typ)
		if err != nil {
			return nil, nil, err
		}
		for _, s := range p.Sample {
			if idx >= len(s.Value) {
				continue
			}
			v := s.Value[idx]
			root.total[side] += v
			n := root
			names := stackNames(s)
			for _, name := range names {
				if n.depth == MaxFlameDepth {
					break // deeper frames' time is the last kept frame's
				}
				n = n.child(name)
				n.total[side] += v
			}
			n.self[side] += v
			if len(names) > 0 {
				leaf := names[len(names)-1]
				if self[leaf] == nil {
					self[leaf] = new([2]int64)
				}
				self[leaf][side] += v
			}
		}
	}
	if root.total[0] == 0 || root.total[1] == 0 {
		return nil, nil, ErrNoSamples
	}
	pct := func(v int64, side int) float64 { return 100 * float64(v) / float64(root.total[side]) }
	var changes []FrameChange
	for name, v := range self {
		changes = append(changes, FrameChange{Func: name, Self: Share{pct(v[0], 0), pct(v[1], 1)}})
	}
	slices.SortFunc(changes, func(a, b FrameChange) int {
		if c := cmp.Compare(math.Abs(b.Delta()), math.Abs(a.Delta())); c != 0 {
			return c
		}
		return cmp.Compare(a.Func, b.Func)
	})
	changes = changes[:min(len(changes), FlameChanges)]
	for i := range changes {
		changes[i].Self = roundShare(changes[i].Self)
	}
	return keepFlame(nil, root, flameCut(root, pct), pct), changes, nil
}

// stackNames are a sample's function names from the root to the leaf,
// inlined frames included, shortened as top tables name them. A leaf
// runtime.asyncPreempt is left out: its time is the interrupted function's.
func stackNames(s *profile.Sample) []string {
	var names []string
	for i := len(s.Location) - 1; i >= 0; i-- {
		lines := s.Location[i].Line
		for j := len(lines) - 1; j >= 0; j-- {
			if fn := lines[j].Function; fn != nil {
				names = append(names, fn.Name)
			}
		}
	}
	if k := len(names) - 1; k >= 0 && names[k] == asyncPreempt {
		names = names[:k]
	}
	for i, n := range names {
		names[i] = shortName(n)
	}
	return names
}

// flameCut returns the share a frame must exceed, or reach, to be kept:
// MinFlameShare, raised to keep at most MaxFlameNodes frames. A child
// never has more time than its parent, so any cut keeps a whole tree.
func flameCut(root *flameNode, pct func(int64, int) float64) float64 {
	var shares []float64
	var walk func(n *flameNode)
	walk = func(n *flameNode) {
		n.share = max(pct(n.total[0], 0), pct(n.total[1], 1))
		if n.share >= MinFlameShare {
			shares = append(shares, n.share)
		}
		for _, c := range n.children {
			walk(c)
		}
	}
	walk(root)
	if len(shares) <= MaxFlameNodes {
		return MinFlameShare
	}
	slices.Sort(shares)
	slices.Reverse(shares)
	// Strictly above the first share left out, so that ties do not
	// overflow the limit.
	return math.Nextafter(shares[MaxFlameNodes], math.Inf(1))
}

// keepFlame appends n and its frames with share >= cut to out, depth
// first.
func keepFlame(out []FlameFrame, n *flameNode, cut float64, pct func(int64, int) float64) []FlameFrame {
	out = append(out, FlameFrame{Func: n.name, Depth: n.depth,
		Total: roundShare(Share{pct(n.total[0], 0), pct(n.total[1], 1)}),
		Self:  roundShare(Share{pct(n.self[0], 0), pct(n.self[1], 1)})})
	names := make([]string, 0, len(n.children))
	for name, c := range n.children {
		if c.share >= cut {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		out = keepFlame(out, n.children[name], cut, pct)
	}
	return out
}
