package progress

import (
	"fmt"
	"github.com/optimizer-dev/optimizer/eta"
	"io"
	"sync/atomic"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/optimizer-dev/optimizer/result"
)

// Lines drains events until the channel is closed, writing a progress line
// to w for each event that has one. Between such events it writes a
// refreshed line when the ETA on screen has gone wrong (Tracker.Refresh).
// est estimates the time left (nil: none, and no refreshes).
func Lines(events <-chan result.Event, w io.Writer, est *eta.ETA) {
	t := NewTracker(time.Now, est)
	tick := time.NewTicker(refreshTick)
	defer tick.Stop()
	for {
		var line string
		select {
		case e, ok := <-events:
			if !ok {
				return
			}
			line = t.Line(e)
		case <-tick.C:
			line = t.Refresh()
		}
		if line != "" {
			fmt.Fprintln(w, line)
		}
	}
}

// Bars drains events until the channel is closed. On w, a terminal, it
// draws one overall bar with the current activity and the ETA now
// (Tracker.Live, again every refreshTick). Each candidate's line is printed
// above the bar as the candidate finishes.
func Bars(events <-chan result.Event, w io.Writer, est *eta.ETA) {
	t := NewTracker(time.Now, est)
	p := mpb.New(mpb.WithOutput(w), mpb.WithWidth(32), mpb.WithRefreshRate(150*time.Millisecond))
	var bar *mpb.Bar
	var st atomic.Pointer[string] // the renderer reads it on its own goroutine
	st.Store(new(string))
	status := func(decor.Statistics) string { return *st.Load() }
	tick := time.NewTicker(refreshTick)
	defer tick.Stop()
	for {
		select {
		case e, ok := <-events:
			if !ok {
				if bar != nil {
					bar.SetTotal(-1, true) // complete it, at whatever count the job ended
				}
				p.Wait()
				return
			}
			line := t.Line(e)
			if e.Kind == result.EventJobStart && bar == nil {
				bar = p.AddBar(int64(max(1, e.Total)),
					mpb.PrependDecorators(decor.Name("candidates "), decor.CountersNoUnit("%d/%d")),
					mpb.AppendDecorators(decor.Elapsed(decor.ET_STYLE_GO, decor.WCSyncSpace), decor.Any(status, decor.WCSyncSpace)),
				)
			}
			if line != "" {
				fmt.Fprintln(p, line)
			}
			if bar != nil && e.Kind == result.EventDone {
				bar.SetCurrent(int64(e.Done))
			}
		case <-tick.C:
		}
		s := t.Live()
		st.Store(&s)
	}
}
