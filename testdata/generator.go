package testdata

import (
	"encoding/json"
	"fmt"
	"io"
)

// The example generator's rewrites of the fixture's sumsq.go: a wrong one
// first, its repair, and a refinement of the repair.
const (
	sumsqHeader = `// Package sumsq adds up squares.
package sumsq

// SumSquares returns the sum of the squares of xs.
func SumSquares(xs []int) int {
`
	sumsqWrong = sumsqHeader + `	total := 0
	for i := 1; i < len(xs); i++ {
		total += xs[i] * xs[i]
	}
	return total
}
`
	sumsqLoop = sumsqHeader + `	total := 0
	for _, x := range xs {
		total += x * x
	}
	return total
}
`
	sumsqUnrolled = sumsqHeader + `	var a, b, c, d int
	i := 0
	for ; i+4 <= len(xs); i += 4 {
		a += xs[i] * xs[i]
		b += xs[i+1] * xs[i+1]
		c += xs[i+2] * xs[i+2]
		d += xs[i+3] * xs[i+3]
	}
	for ; i < len(xs); i++ {
		a += xs[i] * xs[i]
	}
	return a + b + c + d
}
`
)

// ExampleGenerator is a deterministic generator of the optimisation loop
// for the fixture's sumsq.SumSquares. It speaks the stdout protocol of
// docs/generators.md: it reads a request on r and writes one JSONL
// candidate to w. Asked to generate, it proposes a plain loop that skips
// the first element (wrong: a test fails). Asked to repair, it gives the
// same loop done right. Asked to refine, it gives the loop unrolled four
// times. It needs no network and gives the same answer to the same request.
func ExampleGenerator(r io.Reader, w io.Writer) error {
	var req struct {
		Schema string `json:"schema"`
		Mode   string `json:"mode"`
		Target struct {
			Name string `json:"name"`
		} `json:"target"`
	}
	if err := json.NewDecoder(r).Decode(&req); err != nil {
		return fmt.Errorf("read the request: %w", err)
	}
	if req.Schema != "optimizer.generate/v1" {
		return fmt.Errorf("request schema %q: this generator reads optimizer.generate/v1", req.Schema)
	}
	if req.Target.Name != "sumsq.SumSquares" {
		return fmt.Errorf("target %q: this generator knows only sumsq.SumSquares", req.Target.Name)
	}
	var name, text, why string
	switch req.Mode {
	case "generate":
		name, text, why = "plain-loop", sumsqWrong, "a plain loop with x*x instead of text round-trips"
	case "repair":
		name, text, why = "plain-loop-fixed", sumsqLoop, "the loop started at the second element; it starts at the first"
	case "refine":
		name, text, why = "unrolled", sumsqUnrolled, "the loop unrolled four times, with four independent sums"
	default:
		return fmt.Errorf("mode %q: want generate, repair or refine", req.Mode)
	}
	return json.NewEncoder(w).Encode(map[string]any{
		"name": name, "explanation": why, "files": map[string]string{"sumsq/sumsq.go": text},
	})
}
