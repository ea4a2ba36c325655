package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/eta"

	"github.com/optimizer-dev/optimizer/client"
	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/jobspec"
	"github.com/optimizer-dev/optimizer/progress"
	"github.com/optimizer-dev/optimizer/report"
)

// onDaemon returns the daemon the job should go to: the one answering on
// the socket. nil runs in-process, as --no-daemon, --db and --sandbox-bind
// ask. With --db the daemon would record in the repository's own store;
// with --sandbox-bind, a daemon shows its sandboxes nothing a request names.
func (o runOptions) onDaemon(ctx context.Context) *client.Client {
	if o.NoDaemon || o.DB != "" || len(o.SandboxBind) > 0 {
		return nil
	}
	return daemonClient(ctx, o.Socket)
}

// daemonSpec is the spec of a job of o's on a daemon, of cands candidates:
// the spec an in-process job is made from (config.Run.Spec). The daemon's
// slots are used unless -j says how many; -j 0 is one per candidate. run
// and watch send it.
func (o runOptions) daemonSpec(cands int) jobspec.Spec {
	parallel := 0 // the daemon's budget
	if o.Parallel == 0 {
		parallel = max(1, cands)
	} else if o.Parallel > 0 {
		parallel = int(o.Parallel)
	}
	return o.Spec(parallel, os.Environ())
}

// jobRequest is the daemon's request for the job o describes: its spec
// (daemonSpec), and the candidates by path and ref for the daemon to load.
func (o runOptions) jobRequest(plan jobPlan) (api.JobRequest, error) {
	req := api.JobRequest{Repo: plan.repo.Root, Base: plan.base, CandidateRefs: o.CandidateRefs, Kind: o.Kind,
		Options: o.daemonSpec(len(plan.cands))}
	for _, p := range o.Candidates {
		abs, err := filepath.Abs(p)
		if err != nil {
			return req, err
		}
		req.CandidatePaths = append(req.CandidatePaths, abs)
	}
	return req, nil
}

// runOnDaemon is optimizer run through a daemon: submit, show its events
// with the same progress display, print the same report, exit the same
// way. Ctrl-C cancels the job on the daemon.
func runOnDaemon(ctx context.Context, c *client.Client, o runOptions, stdout, stderr io.Writer) error {
	plan, err := planJob(ctx, o, stderr) // the same checks and messages as in-process
	if err != nil {
		return err
	}
	req, err := o.jobRequest(plan)
	if err != nil {
		return err
	}
	sub, err := c.Submit(ctx, req)
	var apiErr *api.Error
	if errors.As(err, &apiErr) && apiErr.Status == http.StatusForbidden {
		return fmt.Errorf("submit to the daemon: %w; or run it in this process with --no-daemon", err)
	}
	if err != nil {
		return fmt.Errorf("submit to the daemon: %w", err)
	}
	fmt.Fprintf(stderr, "optimizer: %s against %s at %s, on the daemon (job %s)\n",
		report.Plural(len(plan.cands), "candidate"), plan.label, plan.base[:12], sub.ID)
	// The daemon chooses the slots: the job's start event gives them. The
	// limits are the spec's, as the daemon reads them.
	est := evaluator.NewETA(evaluator.OptionsOf(req.Options), 0)
	rep, err := followJob(ctx, c, sub.ID, o, est, stderr)
	return endRun(ctx, o, rep, err, stdout, "job "+sub.ID+" is cancelled on the daemon")
}

// followJob streams a job's events into the progress display, with est's
// time left, until it ends, and returns its report and the error it ended
// with. When ctx ends first, it cancels the job and returns what the job
// has.
func followJob(ctx context.Context, c *client.Client, id string, o runOptions, est *eta.ETA, stderr io.Writer) (*evaluator.Report, error) {
	j, err := progress.While(stderr, showBars(stderr, o.Verbose), est, func(events chan<- evaluator.Event) (api.Job, error) {
		return c.Follow(ctx, id, func(e evaluator.Event) { events <- e })
	})
	var gone *client.GoneError
	switch {
	case errors.As(err, &gone):
		err = fmt.Errorf("%w\njob %s stays in the daemon's queue and runs once a daemon answers on %s again; then see its result with: optimizer show %s",
			err, id, c.Socket(), id)
	case err == nil && j.State != "finished":
		err = fmt.Errorf("the daemon's job %s is %s", id, j.State)
	}
	return j.Report, err
}
