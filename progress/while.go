package progress

import (
	"github.com/optimizer-dev/optimizer/eta"
	"io"

	"github.com/optimizer-dev/optimizer/result"
)

// While runs job, which sends a job's events on the channel it is given.
// Meanwhile a goroutine of While's own shows them on w: bars when bars is
// set (w is a terminal), else lines. It returns what job returned once
// every event has been shown, panics included. The job must not send after
// it returns. It runs in this process (evaluator.Options.Events) or on a
// daemon (client.Client.Follow).
func While[T any](w io.Writer, bars bool, est *eta.ETA, job func(events chan<- result.Event) (T, error)) (T, error) {
	events := make(chan result.Event, 64)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if bars {
			Bars(events, w, est)
		} else {
			Lines(events, w, est)
		}
	}()
	defer func() { close(events); <-done }()
	return job(events)
}
