package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/optimizer-dev/optimizer/evaluator"
)

// parallelAuto is the value of -j when it was not given: CPUs-1, at least 1
// (at least 2 on two or more CPUs for a test command other than go test),
// lowered when free memory is short. See evaluator.Slots.
const parallelAuto parallelFlag = evaluator.SlotsAuto

// parallelFlag is the value of -j: auto, or a number of slots (0 means one
// per candidate).
type parallelFlag int

func (p *parallelFlag) String() string {
	if *p == parallelAuto {
		return "auto"
	}
	return strconv.Itoa(int(*p))
}

func (p *parallelFlag) Set(s string) error {
	if s == "auto" {
		*p = parallelAuto
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return fmt.Errorf("want auto or a number of slots >= 0")
	}
	*p = parallelFlag(n)
	return nil
}

func (p *parallelFlag) Type() string { return "N" }

// MarshalJSON records auto as "auto" in the job's configuration.
func (p parallelFlag) MarshalJSON() ([]byte, error) {
	return []byte(strconv.Quote(p.String())), nil
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (p *parallelFlag) UnmarshalJSON(b []byte) error {
	s, err := strconv.Unquote(string(b))
	if err != nil {
		s = string(b)
	}
	return p.Set(s)
}

// warnOversubscribed warns when there are more slots than CPUs: tests then
// share CPUs, and --timeout means less. The evaluator re-runs a test that
// times out alone before it fails its candidate.
func warnOversubscribed(w io.Writer, slots, cpus int) {
	if slots > cpus {
		fmt.Fprintf(w, "optimizer: warning: %d slots on %d CPUs: tests share CPUs, so --timeout means less; a test that times out is re-run alone before its candidate fails\n", slots, cpus)
	}
}
