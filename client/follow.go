package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

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
// When ctx ends first, Follow cancels the job on the daemon and returns the
// job as the cancel left it and ctx's error; a job that had ended already
// (409) is no error of the cancel. Its other errors say which step failed:
// following, reading or cancelling the job.
func (c *Client) Follow(ctx context.Context, id string, each func(evaluator.Event)) (Job, error) {
	err := c.Events(ctx, id, 0, func(e Event) error {
		if each != nil && e.Kind != EventQueued && e.Kind != EventEnded {
			each(e.Evaluator())
		}
		return nil
	})
	bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), CancelTimeout)
	defer cancel()
	if ctx.Err() != nil {
		j, cerr := c.Cancel(bg, id)
		var apiErr *APIError
		if cerr != nil && !(errors.As(cerr, &apiErr) && apiErr.Status == http.StatusConflict) {
			return Job{}, fmt.Errorf("cancel job %s on the daemon: %w", id, cerr)
		}
		return j, ctx.Err()
	}
	if err != nil {
		return Job{}, fmt.Errorf("follow job %s: %w", id, err)
	}
	j, err := c.Job(bg, id)
	switch {
	case err != nil:
		return Job{}, fmt.Errorf("read job %s: %w", id, err)
	case j.Error != "":
		return j, errors.New(j.Error)
	}
	return j, nil
}
