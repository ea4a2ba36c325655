package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/dashboard"
	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/evaluator/stored"
	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/report"
	"github.com/optimizer-dev/optimizer/result"
	"github.com/optimizer-dev/optimizer/store"
)

// dashboardJobs is how many of the latest jobs the dashboard lists.
const dashboardJobs = 500

// mountDashboard serves the dashboard at "/" (Options.Other), unless the
// caller gave another handler.
func (s *Server) mountDashboard() error {
	if s.opts.Other != nil {
		return nil
	}
	h, err := dashboard.New(dashSource{s}, dashboard.Options{Logger: s.opts.Logger.With("component", "dashboard")})
	if err != nil {
		return fmt.Errorf("make the dashboard: %w", err)
	}
	s.opts.Other = h
	return nil
}

// dashSource is the dashboard's view of the server. It holds the queue's
// jobs with their progress and their reports, and the samples in each
// repository's store. It also holds the candidates' changes as submitted,
// and the broker's events.
type dashSource struct{ s *Server }

var _ dashboard.Source = dashSource{}

func (d dashSource) Jobs(ctx context.Context) ([]dashboard.Job, error) {
	rows, err := d.s.db.QueuedJobs(ctx, store.QueueFilter{Limit: dashboardJobs})
	if err != nil {
		return nil, err
	}
	out := make([]dashboard.Job, 0, len(rows))
	for _, qj := range rows {
		out = append(out, d.job(qj))
	}
	return out, nil
}

func (d dashSource) Job(ctx context.Context, id string) (dashboard.Job, error) {
	qj, err := d.s.db.QueuedJobByID(ctx, id)
	if err != nil {
		return dashboard.Job{}, err
	}
	return d.job(qj), nil
}

// job is a queue row as the jobs page shows it. A running job's progress
// and ETA (package eta, as the CLI's progress has it) come from its live
// report. Whether it waits for a slot comes from the gate.
func (d dashSource) job(qj store.QueuedJob) dashboard.Job {
	j := dashboard.Job{ID: qj.ID, Repo: qj.Repo, Base: qj.Base, State: qj.State, Seq: qj.Seq,
		Submitted: qj.Submitted, Started: qj.Started, Finished: qj.Finished}
	var rep *evaluator.Report
	var rj *runningJob
	switch {
	case len(qj.Report) > 0:
		var err error
		if rep, err = decodeReport(qj); err != nil {
			d.s.log.Error("jobs page", "err", err)
		}
	case qj.State == store.QueueRunning:
		if rj = d.s.sched.get(qj.ID); rj != nil {
			rep = rj.live.snapshot()
		}
	case qj.State == store.QueueQueued:
		spec, err := decodeSpec(qj)
		if err != nil {
			d.s.log.Error("jobs page", "err", err)
			break
		}
		j.Total, j.Kind = len(spec.Candidates), spec.Request.Kind
	}
	if rj != nil {
		gj := rj.gate.Load()
		j.WaitsForSlot = gj != nil && d.s.gate.waitsOnly(gj)
		if left, ok := rj.live.left(); ok && !j.WaitsForSlot {
			j.ETA = left
		}
	}
	if rep == nil {
		return j
	}
	j.Total = len(rep.Candidates)
	var doing []string
	for _, c := range rep.Candidates {
		if c.Verdict != evaluator.VerdictPending && c.Verdict != "" && c.Live == nil {
			j.Done++
		}
		if c.Live != nil && c.Live.Stage != result.StageQueued && c.Live.Stage != result.StageBenchQueue {
			doing = append(doing, c.Name+": "+c.Live.Text())
		}
		if rep.Winner != nil && c.Name == *rep.Winner {
			j.Winner, j.Speedup = c.Name, c.Speedup
		}
	}
	switch {
	case j.WaitsForSlot:
		j.Doing = "waiting for a slot (other jobs hold them all)"
	case rj != nil:
		j.Doing = report.ListSome(doing, 3)
	}
	return j
}

// Report is the job's report: whole once it ended, partial while it runs,
// and its candidates, all pending, while it is queued.
func (d dashSource) Report(ctx context.Context, id string) (*evaluator.Report, error) {
	j, err := d.s.Job(ctx, id)
	if err != nil {
		return nil, err
	}
	rep := j.Report
	if rep == nil {
		qj, err := d.s.db.QueuedJobByID(ctx, id)
		if err != nil {
			return nil, err
		}
		spec, err := decodeSpec(qj)
		if err != nil {
			return nil, err
		}
		rep = &evaluator.Report{Repo: spec.Root, Base: spec.Base, Started: qj.Submitted}
		for _, c := range spec.Candidates {
			rep.Candidates = append(rep.Candidates, evaluator.CandidateResult{Name: c.Name, Source: c.Source, Verdict: evaluator.VerdictPending})
		}
	}
	rep.State = j.State
	return rep, nil
}

// Samples reads a candidate's samples from the repository's store, where
// the job's run recorded them.
func (d dashSource) Samples(ctx context.Context, id, cand string) ([]store.BenchSample, error) {
	qj, err := d.s.db.QueuedJobByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if qj.RunID == "" {
		return nil, nil
	}
	spec, err := decodeSpec(qj)
	if err != nil {
		return nil, err
	}
	db, err := store.Open(ctx, filepath.Join(spec.CommonDir, "optimizer", "optimizer.db"))
	if err != nil {
		return nil, fmt.Errorf("open the store of %s: %w", spec.Root, err)
	}
	defer db.Close()
	return db.BenchSamples(ctx, qj.RunID, cand)
}

// BaseHistory reads base's values from the repository's own store, where
// its jobs recorded their samples.
func (d dashSource) BaseHistory(ctx context.Context, repo string, jobs int) ([]store.BasePoint, error) {
	r, err := d.repo(ctx, repo)
	if err != nil {
		return nil, err
	}
	path := r.StorePath("")
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil // no job has recorded anything there yet
	}
	db, err := store.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open the store of %s: %w", r.Root, err)
	}
	defer db.Close()
	return db.BaseHistory(ctx, repo, jobs)
}

// Commits asks git, in the repository a job of the queue ran in, for the
// order and subjects of commits.
func (d dashSource) Commits(ctx context.Context, repo string, commits []string) ([]gitcmd.Commit, error) {
	r, err := d.repo(ctx, repo)
	if err != nil {
		return nil, err
	}
	return r.FirstParentOrder(ctx, commits)
}

// repo is the repository of the queue's latest job on repo, as its request
// recorded it. The dashboard's ?path= only selects among the queue's
// repositories, and git never runs anywhere else.
func (d dashSource) repo(ctx context.Context, repo string) (gitcmd.Repo, error) {
	rows, err := d.s.db.QueuedJobs(ctx, store.QueueFilter{Repo: repo, Limit: 1})
	if err != nil {
		return gitcmd.Repo{}, err
	}
	if len(rows) == 0 {
		return gitcmd.Repo{}, fmt.Errorf("no job in the repository %s: %w", repo, dashboard.ErrNotFound)
	}
	spec, err := decodeSpec(rows[0])
	if err != nil {
		return gitcmd.Repo{}, err
	}
	return gitcmd.Repo{Root: spec.Root, CommonDir: spec.CommonDir}, nil
}

// Diff is the candidate's change as it was submitted: its patch, or its
// whole files as additions.
func (d dashSource) Diff(ctx context.Context, id, cand string) (string, error) {
	qj, err := d.s.db.QueuedJobByID(ctx, id)
	if err != nil {
		return "", err
	}
	spec, err := decodeSpec(qj)
	if err != nil {
		return "", err
	}
	for _, c := range spec.Candidates {
		if c.Name != cand {
			continue
		}
		if len(c.Patch) > 0 {
			return string(c.Patch), nil
		}
		return filesDiff(c), nil
	}
	return "", nil
}

// filesDiff shows a whole-files candidate as a diff that adds each file's
// content (the base's versions are not in the request) and deletes the
// deleted ones.
func filesDiff(c storedCandidate) string {
	var b strings.Builder
	for _, p := range slices.Sorted(maps.Keys(c.Files)) {
		fmt.Fprintf(&b, "+++ b/%s (the whole file)\n", p)
		for _, l := range strings.SplitAfter(strings.TrimSuffix(string(c.Files[p]), "\n"), "\n") {
			b.WriteString("+" + strings.TrimSuffix(l, "\n") + "\n")
		}
	}
	for _, p := range c.Deleted {
		fmt.Fprintf(&b, "--- a/%s (deleted)\n", p)
	}
	return b.String()
}

// Subscribe streams the broker's events of every job after lastEventID;
// "" (or an id that is not one of the broker's) is from now on.
func (d dashSource) Subscribe(ctx context.Context, lastEventID string) (<-chan dashboard.Event, error) {
	last, err := strconv.ParseUint(lastEventID, 10, 64)
	if err != nil {
		last = d.s.broker.Last()
	}
	in, err := d.s.broker.Subscribe(ctx, "", last)
	if err != nil {
		return nil, err
	}
	out := make(chan dashboard.Event)
	go func() { // owned by the subscription: it ends with in (closed when ctx ends) or ctx
		defer close(out)
		for e := range in {
			select {
			case out <- dashEvent(e):
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

func dashEvent(e api.Event) dashboard.Event {
	return dashboard.Event{ID: strconv.FormatUint(e.Seq, 10), Job: e.Job, Kind: e.Kind}
}

// decodeSpec reads the request the queue keeps of qj.
func decodeSpec(qj store.QueuedJob) (*jobSpec, error) {
	var spec jobSpec
	if err := json.Unmarshal(qj.Request, &spec); err != nil {
		return nil, fmt.Errorf("read the request of job %s: %w", qj.ID, err)
	}
	return &spec, nil
}

// decodeReport reads the report the queue keeps of qj, which has ended.
func decodeReport(qj store.QueuedJob) (*evaluator.Report, error) {
	rep, err := stored.DecodeReport(qj.Report)
	if err != nil {
		return nil, fmt.Errorf("read the report of job %s: %w", qj.ID, err)
	}
	return rep, nil
}
