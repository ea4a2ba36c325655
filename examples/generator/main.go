// Command generator is the example generator of the optimisation loop. It
// reads a request (docs/generators.md) on stdin and prints one candidate for
// the fixture's sumsq.SumSquares. That is a wrong rewrite first, its repair
// when given the failure, then a refinement. It is deterministic and needs
// no network. `optimizer demo --optimize` runs the loop with the same
// generator built into the optimizer (`optimizer demo-generator`).
//
//	optimizer optimize --target sumsq.SumSquares --generate 'go run ./examples/generator'
package main

import (
	"fmt"
	"os"

	"github.com/optimizer-dev/optimizer/testdata"
)

func main() {
	if err := testdata.ExampleGenerator(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "generator:", err)
		os.Exit(1)
	}
}
