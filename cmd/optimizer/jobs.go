package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/profiler"
	"github.com/optimizer-dev/optimizer/store"
)

// errNoStore is returned by the commands that read past jobs when no job
// has run in the repository yet.
var errNoStore = errors.New("no job has run in this repository yet")

// storeOptions are the flags of the commands that read past jobs.
type storeOptions struct {
	Repo string
	DB   string
}

func (o *storeOptions) register(fs *pflag.FlagSet) {
	fs.StringVar(&o.Repo, "repo", ".", "any directory in the git repository")
	fs.StringVar(&o.DB, "db", "", "store file (default <git-common-dir>/optimizer/optimizer.db)")
}

// open opens the store of an existing repository. It does not create one:
// a missing store is errNoStore. Running jobs whose process died are marked
// interrupted first, so that what is shown is true.
func (o storeOptions) open(ctx context.Context) (*store.DB, repo, error) {
	r, err := findRepo(ctx, o.Repo)
	if err != nil {
		return nil, repo{}, err
	}
	path := r.storePath(o.DB)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, r, fmt.Errorf("%w (no store at %s)", errNoStore, path)
	}
	db, err := openStoreToRead(ctx, path)
	return db, r, err
}

// findJob finds a job by id or unique prefix; "" is the latest job.
func findJob(ctx context.Context, db *store.DB, id string) (store.Job, error) {
	if id == "" {
		jobs, err := db.Jobs(ctx, 1)
		if err != nil {
			return store.Job{}, fmt.Errorf("list jobs: %w", err)
		}
		if len(jobs) == 0 {
			return store.Job{}, errNoStore
		}
		id = jobs[0].ID
	}
	j, err := db.Job(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return j, fmt.Errorf("no job %q in %s (see optimizer history)", id, db.Path())
	case errors.Is(err, store.ErrAmbiguous):
		return j, fmt.Errorf("job prefix %q matches more than one job: give more of it", id)
	case err != nil:
		return j, fmt.Errorf("read job %s: %w", id, err)
	}
	return j, nil
}

// jobReport is a job's report as stored when it finished, or rebuilt from
// its candidates' rows when it did not (interrupted, failed, running).
func jobReport(ctx context.Context, db *store.DB, j store.Job) (*evaluator.Report, error) {
	if len(j.Report) > 0 {
		rep, err := decodeReport(j.Report)
		if err != nil {
			return nil, fmt.Errorf("decode report of job %s: %w", j.ID, err)
		}
		rep.State = j.State
		return rep, nil
	}
	rows, err := db.Candidates(ctx, j.ID)
	if err != nil {
		return nil, fmt.Errorf("read candidates of job %s: %w", j.ID, err)
	}
	cfg := readJobConfig(j.Config)
	rep := &evaluator.Report{
		Job:        j.ID,
		Repo:       j.Repo,
		Base:       j.Base,
		Parallel:   j.Parallel,
		MinSpeedup: cfg.MinSpeedup / 100,
		State:      j.State,
		Started:    j.Started,
	}
	if j.Winner != "" {
		rep.Winner = &j.Winner
	}
	end := j.Finished
	if end.IsZero() {
		end = time.Now()
	}
	rep.Seconds = end.Sub(j.Started).Seconds()
	if j.Error != "" {
		rep.Warnings = append(rep.Warnings, "job error: "+j.Error)
	}
	for _, row := range rows {
		res := candidateResult(row)
		if rep.Winner == nil && res.Verdict == evaluator.VerdictWinner {
			// A job cut off after selection recorded its winner's row
			// but not the job's end: the row is what is true.
			name := res.Name
			rep.Winner = &name
		}
		rep.Candidates = append(rep.Candidates, res)
	}
	return rep, nil
}

// decodeReport reads a stored report, with its profile as a
// *profiler.Summary so that it prints as it did.
func decodeReport(b []byte) (*evaluator.Report, error) {
	var rep evaluator.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, err
	}
	var aux struct {
		Profile json.RawMessage `json:"profile"`
	}
	if err := json.Unmarshal(b, &aux); err != nil {
		return nil, err
	}
	rep.Profile = nil
	if len(aux.Profile) > 0 && string(aux.Profile) != "null" {
		var s profiler.Summary
		if err := json.Unmarshal(aux.Profile, &s); err != nil {
			return nil, fmt.Errorf("profile: %w", err)
		}
		rep.Profile = &s
	}
	return &rep, nil
}

// candidateResult is a candidate row as the report shows it: its stored
// result when there is one, else what the row's columns say.
func candidateResult(row store.Candidate) evaluator.CandidateResult {
	var res evaluator.CandidateResult
	if len(row.Result) > 0 && json.Unmarshal(row.Result, &res) == nil {
		return res
	}
	res = evaluator.CandidateResult{
		Name:        row.Name,
		ID:          row.ContentID,
		Source:      row.Source,
		Parent:      row.Parent,
		Explanation: row.Explanation,
		Verdict:     evaluator.Verdict(row.Verdict),
		DuplicateOf: row.DuplicateOf,
		Speedup:     row.Speedup,
		Pairs:       row.Pairs,
		Seconds:     row.Seconds,
	}
	if res.Verdict == "" {
		res.Verdict = evaluator.VerdictPending
	}
	if row.CILow != 0 || row.CIHigh != 0 {
		res.CI = &[2]float64{row.CILow, row.CIHigh}
	}
	if len(row.Failure) > 0 {
		var f evaluator.Failure
		if json.Unmarshal(row.Failure, &f) == nil {
			res.Failure = &f
		}
	}
	return res
}

// readJobConfig reads back the configuration a job recorded; a missing or
// unreadable one gives the defaults.
func readJobConfig(b []byte) jobConfig {
	cfg := jobConfig{runOptions: defaultRunOptions()}
	if len(b) > 0 {
		_ = json.Unmarshal(b, &cfg)
	}
	return cfg
}
