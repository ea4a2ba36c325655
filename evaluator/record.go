package evaluator

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/apply"
	"github.com/optimizer-dev/optimizer/evaluator/measure"
	"github.com/optimizer-dev/optimizer/evaluator/testjudge"
	"github.com/optimizer-dev/optimizer/proc"
	"github.com/optimizer-dev/optimizer/shard"
	"github.com/optimizer-dev/optimizer/store"
)

// The store writes of a job. Every step writes as it finishes, so a job cut
// off at any point leaves a store that says exactly what finished. A failed
// write does not change any verdict. But it is a warning on the terminal and
// in the report, and Run returns ErrNotRecorded: a full disk must not pass
// for a finished job.

// record writes the job and its candidates, in one transaction, before
// anything runs; content ids follow as candidates settle. It keeps each
// candidate's change under the job's artifacts, for optimizer apply.
func (j *job) record(ctx context.Context) error {
	rows := make([]store.Candidate, len(j.cands))
	for i, c := range j.cands {
		rows[i] = j.candidateRow(c)
	}
	err := j.db.StartJob(ctx, store.Job{
		ID:         j.id,
		Kind:       j.opts.Kind,
		Repo:       j.opts.Repo,
		Base:       j.opts.Base,
		Parallel:   j.size,
		PID:        os.Getpid(),
		OwnerStart: proc.StartTime(os.Getpid()),
		Config:     j.opts.Config,
		State:      "running",
		Started:    j.start,
		Shards:     shardsOf(j.opts.Shard),
		Test:       j.test,
		BenchKey:   j.benchKey,
		MinSpeedup: j.opts.MinSpeedup,
		Artifacts:  j.opts.Artifacts,
	}, rows)
	if err != nil {
		return err
	}
	if dir := j.artifacts(); dir != "" {
		j.saveChanges(filepath.Join(dir, "candidates"))
	}
	return nil
}

// artifacts is this job's artifact directory, or "" when none was configured.
func (j *job) artifacts() string {
	if j.opts.Artifacts == "" {
		return ""
	}
	return filepath.Join(j.opts.Artifacts, j.id)
}

func (j *job) saveChanges(dir string) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		j.log.Warn("keep candidate changes", "err", err)
		return
	}
	key, err := apply.Key(true)
	if err != nil {
		j.log.Warn("seal candidate changes: apply will refuse them", "err", err)
	}
	for _, c := range j.cands {
		ch := changeOf(c)
		b, err := json.Marshal(ch)
		if err == nil && key != nil {
			ch.Seal = apply.Seal(key, j.id, b)
			b, err = json.Marshal(ch)
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, fileName(c.spec.Name)+".json"), b, 0o644)
		}
		if err != nil {
			j.log.Warn("keep candidate change", "candidate", c.spec.Name, "err", err)
		}
	}
}

// fileName makes a candidate name safe as a file name, one to one. The
// characters '%', path separators, ':', NUL and a leading '.' are written
// as %XX. So no two names (x/y and x_y, say) share a file.
func fileName(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == '%' || c == '/' || c == '\\' || c == ':' || c == 0 || (i == 0 && c == '.') {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	if b.Len() == 0 {
		return "%"
	}
	return b.String()
}

func (j *job) candidateRow(c *cand) store.Candidate {
	j.mu.Lock()
	res := c.res
	j.mu.Unlock()
	row := store.Candidate{
		JobID:       j.id,
		Seq:         c.idx,
		Name:        res.Name,
		ContentID:   res.ID,
		Source:      res.Source,
		Parent:      res.Parent,
		Explanation: res.Explanation,
		Verdict:     string(res.Verdict),
		DuplicateOf: res.DuplicateOf,
		Speedup:     res.Speedup,
		Pairs:       res.Pairs,
		Seconds:     res.Seconds,
		Updated:     time.Now(),
	}
	if res.CI != nil {
		row.CILow, row.CIHigh = res.CI[0], res.CI[1]
	}
	if res.Failure != nil {
		row.FailureKind = string(res.Failure.Kind)
		row.Failure = j.encode(c.spec.Name+"'s failure", res.Failure)
	}
	row.Result = j.encode(c.spec.Name+"'s result", res)
	if j.keepChanges && res.Verdict != VerdictFailed && res.Verdict != VerdictDuplicate && res.Verdict != VerdictPending {
		row.Change = j.encode(c.spec.Name+"'s change", changeOf(c))
	}
	return row
}

// encode is v as the JSON of a store column. A value that cannot be
// encoded (a NaN, say) is a failed write: the column stays NULL, and the
// job warns and ends with ErrNotRecorded.
func (j *job) encode(what string, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		j.notRecorded(what, err)
		return nil
	}
	return b
}

// changeOf is c's change in its stored form.
func changeOf(c *cand) apply.Change {
	ch := apply.Change{Name: c.spec.Name, Patch: string(c.spec.Patch), Deleted: c.spec.Deleted}
	if len(c.spec.Files) > 0 {
		ch.Files = make(map[string]string, len(c.spec.Files))
		for p, b := range c.spec.Files {
			ch.Files[p] = string(b)
		}
	}
	return ch
}

// shardsOf is the jobs.shards value of a job run as shard s.
func shardsOf(s shard.Spec) string {
	if s.IsZero() {
		return ""
	}
	return s.String()
}

func (j *job) saveCandidate(ctx context.Context, c *cand) {
	if err := j.db.UpdateCandidate(context.WithoutCancel(ctx), j.candidateRow(c)); err != nil {
		j.notRecorded("candidate "+c.spec.Name, err)
	}
}

func (j *job) event(ctx context.Context, kind, candidate, msg string) {
	err := j.db.AddEvent(context.WithoutCancel(ctx), store.Event{
		JobID: j.id, Time: time.Now(), Kind: kind, Candidate: candidate, Message: msg,
	})
	if err != nil {
		j.notRecorded("an event", err)
	}
}

// notRecorded counts a store write that failed. The first is a warning, in
// the report and on the terminal (not in the store's events: the store is
// what failed).
func (j *job) notRecorded(what string, err error) {
	j.log.Warn("record "+what, "err", err)
	j.mu.Lock()
	j.storeFails++
	first := j.storeFails == 1
	if first {
		j.storeErr = fmt.Errorf("record %s: %w", what, err)
		j.warnings = append(j.warnings, "the store could not record this job's results: "+j.storeErr.Error())
	}
	j.mu.Unlock()
	if first {
		j.emit(Event{Kind: EventWarning, Message: "the store could not record this job's results: " + j.storeErr.Error()})
	}
}

// unrecorded returns ErrNotRecorded, wrapped with the count and the first
// failure, when some store write failed; else nil.
func (j *job) unrecorded() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.storeFails == 0 {
		return nil
	}
	return fmt.Errorf("%w: %d writes failed, the first: %w", ErrNotRecorded, j.storeFails, j.storeErr)
}

// finish marks the job finished, interrupted or failed, with its report.
func (j *job) finish(rep *Report, runErr error) {
	winner := ""
	if rep.Winner != nil {
		winner = *rep.Winner
	}
	b := j.encode("the job's report", rep)
	msg := ""
	if runErr != nil {
		msg = runErr.Error()
	}
	if err := j.db.FinishJob(context.Background(), j.id, rep.State, winner, b, msg); err != nil {
		j.notRecorded("the job's end", err)
	}
}

// storeBenchResults records a candidate's benchmark table.
func (j *job) storeBenchResults(ctx context.Context, rows []store.BenchResult) {
	if err := j.db.AddBenchResults(context.WithoutCancel(ctx), rows); err != nil {
		j.notRecorded("benchmark results", err)
	}
}

// storeTests records per-test results; candidate "" is base.
func (j *job) storeTests(ctx context.Context, name string, out *testjudge.Outcome) {
	if out == nil || out.Tests == nil {
		return
	}
	rows := make([]store.TestResult, 0, len(out.Tests.Tests))
	for key, st := range out.Tests.Tests {
		pkg, test := out.Tests.Split(key)
		rows = append(rows, store.TestResult{JobID: j.id, Candidate: name, Package: pkg, Test: test,
			Status: string(st), Output: out.Tests.Output[key]})
	}
	if err := j.db.AddTestResults(context.WithoutCancel(ctx), rows); err != nil {
		j.notRecorded("test results", err)
	}
}
func benchRow(jobID, name string, b BenchResult) store.BenchResult {
	return store.BenchResult{JobID: jobID, Candidate: name, Benchmark: b.Name, Unit: b.Unit, Verdict: string(b.Verdict),
		Base: b.Base, Value: b.Candidate, Speedup: b.Speedup, CILow: b.CI[0], CIHigh: b.CI[1], P: b.P, Pairs: b.Pairs}
}

func (j *job) storeSamples(ctx context.Context, name string, s measure.Side, round, order int, ms []measure.Metric) {
	rows := make([]store.BenchSample, len(ms))
	for i, m := range ms {
		rows[i] = store.BenchSample{JobID: j.id, Candidate: name, Benchmark: m.Bench, Unit: m.Unit,
			Side: s.String(), Round: round, Order: order, Value: m.Value, Iterations: m.Iters,
			Probed: m.Dist.Probed, OtherCPU: m.Dist.OtherCPU, Steal: m.Dist.Steal, InvolSwitches: m.Dist.InvolSwitches,
			Host: j.host}
	}
	if err := j.db.AddBenchSamples(context.WithoutCancel(ctx), rows); err != nil {
		j.notRecorded("benchmark samples", err)
	}
}

// storeProfile records one profile pair and its summary.
func (j *job) storeProfile(ctx context.Context, name, kind, basePath, path string, summary any) {
	b := j.encode("a profile's summary", summary)
	err := j.db.AddProfile(context.WithoutCancel(ctx), store.Profile{
		JobID: j.id, Candidate: name, Kind: kind, BasePath: basePath, Path: path, Summary: b, Created: time.Now(),
	})
	if err != nil {
		j.notRecorded("a profile", err)
	}
}
