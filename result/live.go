package result

import "fmt"

// The stages of a candidate that has no final verdict yet (Live.Stage), in
// the order it goes through them.
const (
	StageQueued     = "queued"       // waiting for a slot to test it in
	StageTesting    = "testing"      // its tests run
	StageBenchQueue = "bench-queued" // its tests pass; its benchmark is still to run
	StageWaiting    = "waiting"      // its benchmark waits for the machine
	StageSetup      = "setup"        // it holds the machine: building and calibrating
	StageMeasuring  = "measuring"    // measuring pairs
)

// Live is what a candidate of an unfinished job is doing. Readers show it
// instead of a reason that would sound final.
type Live struct {
	Stage string `json:"stage"`
	// Pair is, while measuring, the pair being measured (the first is
	// 1); MaxPairs the most it may take.
	Pair     int `json:"pair,omitempty"`
	MaxPairs int `json:"max_pairs,omitempty"`
	// Holder says, while waiting, who holds the machine ("" when unknown).
	Holder string `json:"holder,omitempty"`
}

// Text is the stage in words: "queued for a test slot", "measuring pair 7
// of ≤ 30".
func (l *Live) Text() string {
	switch l.Stage {
	case StageQueued:
		return "queued for a test slot"
	case StageTesting:
		return "testing"
	case StageBenchQueue:
		return "tests pass; its benchmark is still to run"
	case StageWaiting:
		if l.Holder != "" {
			return "tests pass; " + l.Holder
		}
		return "tests pass; waiting for the machine"
	case StageSetup:
		return "tests pass; building and calibrating its benchmark"
	case StageMeasuring:
		if l.MaxPairs > 0 {
			return fmt.Sprintf("measuring pair %d of ≤ %d", l.Pair, l.MaxPairs)
		}
		return fmt.Sprintf("measuring pair %d", l.Pair)
	}
	return l.Stage
}
