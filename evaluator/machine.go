package evaluator

import (
	"context"
	"sync"
	"time"

	"github.com/optimizer-dev/optimizer/worktreepool"
)

// machineWaiter is a pool that can say when one of its holders waits for
// the machine lock, and who holds it. *worktreepool.Pool is one.
type machineWaiter interface {
	MachineWait() (worktreepool.MachineWait, bool)
}

var _ machineWaiter = (*worktreepool.Pool)(nil)

// machinePoll is how often a job asks its pool whether it waits for the
// machine. A wait shorter than this may go unsaid.
const machinePoll = time.Second

// machineRepeat is how often a wait that goes on unchanged is said again,
// so that plain output piped to a file shows the job is alive.
const machineRepeat = 30 * time.Second

// watchMachine reports, for as long as the job runs, each wait of its pool
// for the machine lock held by another optimizer or process. It says who
// holds it, as an event, a log line and a row of the store's events. It
// says it again whenever the holders change, at least every machineRepeat
// while the wait lasts, and once more when it ends. The returned stop,
// called once the phases are over, ends it and waits for it; after stop,
// nothing more is emitted.
func (j *job) watchMachine(ctx context.Context) (stop func()) {
	mw, ok := j.pool.(machineWaiter)
	if !ok {
		return func() {}
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(machinePoll)
		defer tick.Stop()
		j.sayWaits(ctx, mw, tick.C, quit)
	})
	return func() {
		close(quit)
		wg.Wait()
	}
}

// sayWaits asks mw at each tick whether the job waits for the machine, and
// says so as watchMachine tells, until ctx ends or quit closes. The time is
// each tick's, so a test's ticks are its clock.
func (j *job) sayWaits(ctx context.Context, mw machineWaiter, tick <-chan time.Time, quit <-chan struct{}) {
	var said string
	var saidAt, now time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-quit:
			if said != "" {
				j.log.Info("the machine is free")
				j.emit(Event{Kind: EventWaiting})
			}
			return
		case now = <-tick:
		}
		w, waiting := mw.MachineWait()
		msg := ""
		if waiting {
			msg = "waiting for the machine: " + w.String()
		}
		changed := msg != said
		if !changed && (msg == "" || now.Sub(saidAt) < machineRepeat) {
			continue
		}
		said, saidAt = msg, now
		if msg == "" {
			j.log.Info("the machine is free")
		} else {
			j.log.Info(msg, "lock", w.Lock, "since", w.Since)
			if changed { // the store keeps each change, not each repeat
				j.event(ctx, "machine-wait", "", msg)
			}
		}
		j.emit(Event{Kind: EventWaiting, Message: msg})
	}
}
