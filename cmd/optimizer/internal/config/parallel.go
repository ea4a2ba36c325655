package config

import (
	"fmt"
	"strconv"

	"github.com/optimizer-dev/optimizer/machine"
)

// ParallelAuto is the value of -j when it was not given: CPUs-1, and at
// least 1. It is at least 2 on two or more CPUs for a test command other
// than go test, and lowered when free memory is short. See machine.Slots.
const ParallelAuto Parallel = machine.SlotsAuto

// Parallel is the value of -j: auto, or a number of slots (0 means one per
// candidate). It is a pflag.Value.
type Parallel int

func (p *Parallel) String() string {
	if *p == ParallelAuto {
		return "auto"
	}
	return strconv.Itoa(int(*p))
}

func (p *Parallel) Set(s string) error {
	if s == "auto" {
		*p = ParallelAuto
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return fmt.Errorf("want auto or a number of slots >= 0")
	}
	*p = Parallel(n)
	return nil
}

func (p *Parallel) Type() string { return "N" }
