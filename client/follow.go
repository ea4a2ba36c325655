package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/evaluator"
)

// CancelTimeout bounds the cancel that Follow sends when its ctx ends
// first, and its last read of the job.
const CancelTimeout = time.Minute

// Follow streams job id's events to each (nil: none), as the evaluator's
// events, until the job ends, and returns the job as it ended. The
// daemon's own events (EventQueued, EventEnded) are not passed on. A job
// that ended with an error returns the job and that error.
//
// When the daemon goes away (killed, restarting), Follow tells each with a
// warning event, and keeps trying for up to c.Reconnect. It resumes where
// it was once the daemon answers again: the daemon keeps the job and its
// events. Past that limit its error wraps a *GoneError.
//
// When ctx ends first, Follow cancels the job on the daemon. It returns the
// job as the cancel left it, and ctx's error. A job that had ended already
// (409) is no error of the cancel. Its other errors say which step failed:
// following, reading or cancelling the job.
func (c *Client) Follow(ctx context.Context, id string, each func(evaluator.Event)) (api.Job, error) {
	notify := func(n Notice) {
		if each != nil {
			each(evaluator.Event{Kind: evaluator.EventWarning, Time: time.Now(), Message: n.message(id)})
		}
	}
	err := c.events(ctx, id, 0, func(e api.Event) error {
		if each != nil && e.Kind != api.EventQueued && e.Kind != api.EventEnded {
			each(e.Evaluator())
		}
		return nil
	}, notify)
	bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), CancelTimeout)
	defer cancel()
	if ctx.Err() != nil {
		j, cerr := c.Cancel(bg, id)
		var apiErr *api.Error
		if cerr != nil && !(errors.As(cerr, &apiErr) && apiErr.Status == http.StatusConflict) {
			return api.Job{}, fmt.Errorf("cancel job %s on the daemon: %w", id, cerr)
		}
		return j, ctx.Err()
	}
	if err != nil {
		return api.Job{}, fmt.Errorf("follow job %s: %w", id, err)
	}
	j, err := c.jobAfterEnd(ctx, id)
	switch {
	case err != nil:
		return api.Job{}, fmt.Errorf("read job %s: %w", id, err)
	case j.Error != "":
		return j, errors.New(j.Error)
	}
	return j, nil
}

// jobAfterEnd reads a job that has ended, trying a daemon that went away
// meanwhile for up to c.Reconnect.
func (c *Client) jobAfterEnd(ctx context.Context, id string) (api.Job, error) {
	var gone time.Time
	for tries := 1; ; tries++ {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), CancelTimeout)
		j, err := c.Job(rctx, id)
		cancel()
		if err == nil || !errors.Is(err, ErrNoDaemon) {
			return j, err
		}
		if gone.IsZero() {
			gone = time.Now()
		}
		if time.Since(gone) > c.reconnect() {
			return j, &GoneError{Job: id, Since: gone, Err: err}
		}
		if err := sleep(ctx, min(reconnectBackoff, time.Duration(tries)*100*time.Millisecond)); err != nil {
			return j, err
		}
	}
}

// message is what a follower shows about n.
func (n Notice) message(id string) string {
	if !n.Gone {
		return fmt.Sprintf("the daemon answers again: following job %s from where it was", id)
	}
	return fmt.Sprintf("the daemon went away (%v); retrying for up to %v (the job is kept: it goes on once the daemon is back)",
		n.Err, n.Limit)
}
