package progress

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/result"
)

// TestWhile: every event job sends is shown by the time While returns,
// which returns what job returned.
func TestWhile(t *testing.T) {
	var out bytes.Buffer
	boom := errors.New("boom")
	n, err := While(&out, false, nil, func(events chan<- result.Event) (int, error) {
		events <- result.Event{Kind: result.EventJobStart, Total: 2, Message: "job1"}
		for range 100 { // more than the channel holds: the display keeps draining
			events <- result.Event{Kind: result.EventSample, Candidate: "fast"}
		}
		events <- result.Event{Kind: result.EventPhase, Phase: "benchmark"}
		return 7, boom
	})
	if n != 7 || err != boom {
		t.Errorf("While = %d, %v; want job's 7, boom", n, err)
	}
	if want := "job job1: 2 candidates\nphase: benchmark\n"; out.String() != want {
		t.Errorf("shown:\n%s\nwant:\n%s", out.String(), want)
	}
}

// TestWhile_Panic: a job that panics still leaves the display finished,
// and the panic goes on to the caller.
func TestWhile_Panic(t *testing.T) {
	var out bytes.Buffer
	defer func() {
		if r := recover(); r != "job panicked" {
			t.Errorf("recovered %v, want the job's panic", r)
		}
		if !strings.Contains(out.String(), "phase: behavior") {
			t.Errorf("the event before the panic was not shown: %q", out.String())
		}
	}()
	While(&out, false, nil, func(events chan<- result.Event) (int, error) {
		events <- result.Event{Kind: result.EventPhase, Phase: "behavior"}
		panic("job panicked")
	})
}
