package evaluator

import (
	"time"

	"github.com/optimizer-dev/optimizer/eta"
)

// NewETA is an estimator of what is left of a job run with o on a pool of
// slots slots. That is the pool's Size; 0 waits for the job's start event
// to say.
func NewETA(o Options, slots int) *eta.ETA {
	d := withDefaults(o)
	var sample time.Duration
	if o.Bench == "" {
		sample = calibrateTarget
	}
	return &eta.ETA{Slots: slots, Timeout: d.Timeout, Budget: d.Budget, MinPairs: d.MinPairs,
		MaxPairs: d.MaxPairs, Sample: sample, NoBench: o.Bench == "none"}
}
