// Package stored reads a job back from the store. It gives the job's report,
// as stored when it finished or rebuilt from its candidates' rows. It gives
// its candidates to optimizer bench, which measures a job judged elsewhere.
package stored

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/apply"
	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/result"
	"github.com/optimizer-dev/optimizer/store"
)

// ErrUnjudged: a job some of whose candidates no shard has judged yet.
var ErrUnjudged = errors.New("candidates no shard has judged")

// JobReport reads back the report of job j from db: as stored when the job
// finished, or rebuilt from its candidates' rows when it did not
// (interrupted, failed, running). Its State is the job's state now. A job
// that recorded no threshold gets defaultMinSpeedup, as Run gives it.
func JobReport(ctx context.Context, db *store.DB, j store.Job, defaultMinSpeedup float64) (*result.Report, error) {
	if len(j.Report) > 0 {
		rep, err := DecodeReport(j.Report)
		if err != nil {
			return nil, fmt.Errorf("decode report of job %s: %w", j.ID, err)
		}
		rep.State = j.State
		return rep, nil
	}
	minSpeedup := j.MinSpeedup
	if minSpeedup <= 0 {
		minSpeedup = defaultMinSpeedup
	}
	rows, err := db.Candidates(ctx, j.ID)
	if err != nil {
		return nil, fmt.Errorf("read candidates of job %s: %w", j.ID, err)
	}
	rep := &result.Report{
		Job:        j.ID,
		Repo:       j.Repo,
		Base:       j.Base,
		Parallel:   j.Parallel,
		MinSpeedup: minSpeedup,
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
		res, err := rowResult(row)
		if err != nil {
			return nil, fmt.Errorf("read candidate %s of job %s: %w", row.Name, j.ID, err)
		}
		if rep.Winner == nil && res.Verdict == result.VerdictWinner {
			// A job cut off after selection recorded its winner's row
			// but not the job's end: the row is what is true.
			name := res.Name
			rep.Winner = &name
		}
		rep.Candidates = append(rep.Candidates, res)
	}
	return rep, nil
}

// DecodeReport reads a stored report.
func DecodeReport(b []byte) (*result.Report, error) {
	var rep result.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, err
	}
	return &rep, nil
}

// rowResult is a candidate row as the report shows it: its stored result
// when there is one, else what the row's columns say. A result or failure
// that is no JSON of one is an error: the store is damaged.
func rowResult(row store.Candidate) (result.CandidateResult, error) {
	var res result.CandidateResult
	if len(row.Result) > 0 {
		if err := json.Unmarshal(row.Result, &res); err != nil {
			return res, fmt.Errorf("its stored result: %w", err)
		}
		return res, nil
	}
	res = result.CandidateResult{
		Name:        row.Name,
		ID:          row.ContentID,
		Source:      row.Source,
		Parent:      row.Parent,
		Explanation: row.Explanation,
		Verdict:     result.Verdict(row.Verdict),
		DuplicateOf: row.DuplicateOf,
		Speedup:     row.Speedup,
		Pairs:       row.Pairs,
		Seconds:     row.Seconds,
	}
	if res.Verdict == "" {
		res.Verdict = result.VerdictPending
	}
	if row.CILow != 0 || row.CIHigh != 0 {
		res.CI = &[2]float64{row.CILow, row.CIHigh}
	}
	if len(row.Failure) > 0 {
		var f result.Failure
		if err := json.Unmarshal(row.Failure, &f); err != nil {
			return res, fmt.Errorf("its stored failure: %w", err)
		}
		res.Failure = &f
	}
	return res, nil
}

// AllJudged returns an error wrapping ErrUnjudged, naming them, when
// some of a job's candidate rows have no verdict yet.
func AllJudged(rows []store.Candidate) error {
	var names []string
	for _, r := range rows {
		if r.Verdict == string(result.VerdictPending) || r.Verdict == "" {
			names = append(names, r.Name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	if len(names) > 10 {
		names = append(names[:10], fmt.Sprintf("and %d more", len(names)-10))
	}
	return fmt.Errorf("%w: %s: merge the stores of every shard first", ErrUnjudged, strings.Join(names, ", "))
}

// Candidates rebuilds the job's candidates. Those that passed get the
// changes the store kept, as they need to be staged. So does every measured
// one, for the winner's tie-break (the smaller change). The rest are
// rebuilt by name alone, and are not staged again.
func Candidates(rows []store.Candidate) ([]candidate.Candidate, error) {
	out := make([]candidate.Candidate, len(rows))
	for i, r := range rows {
		c := candidate.Candidate{Name: r.Name, Source: r.Source, Parent: r.Parent, Explanation: r.Explanation}
		if r.Verdict == string(result.VerdictPassed) && r.Change == nil {
			return nil, fmt.Errorf("candidate %s passed its tests, but the store kept no change to benchmark: was it made by optimizer run --shard?", r.Name)
		}
		if r.Change != nil {
			var ch apply.Change
			if err := json.Unmarshal(r.Change, &ch); err != nil {
				return nil, fmt.Errorf("read the kept change of %s: %w", r.Name, err)
			}
			c.Patch, c.Deleted = []byte(ch.Patch), ch.Deleted
			if len(ch.Files) > 0 {
				c.Files = make(map[string][]byte, len(ch.Files))
				for p, s := range ch.Files {
					c.Files[p] = []byte(s)
				}
			}
		}
		out[i] = c
	}
	return out, nil
}

// Restore sets res to what the store holds of a candidate.
func Restore(res *result.CandidateResult, r store.Candidate) error {
	if r.Result != nil {
		if err := json.Unmarshal(r.Result, res); err != nil {
			return fmt.Errorf("read the result of %s: %w", r.Name, err)
		}
	}
	res.Name, res.ID, res.Verdict, res.DuplicateOf = r.Name, r.ContentID, result.Verdict(r.Verdict), r.DuplicateOf
	switch res.Verdict {
	case result.VerdictPassed:
		res.Note = "" // the shard's "to be benchmarked"
	case result.VerdictWinner:
		// A bench run before chose it; this one chooses again among all
		// that were measured, and would otherwise crown a second. Its
		// verdict before that choice: faster, or not-faster and faster on
		// some (Decision.Subset), which the choice ranks after faster.
		res.Verdict = result.VerdictFaster
		if res.Qualifier == result.QualifierFasterOnSome {
			res.Verdict = result.VerdictNotFaster
		}
	}
	return nil
}
