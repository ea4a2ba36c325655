package evaluator

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/optimizer-dev/optimizer/store"
)

// JobReport reads back the report of job j from db: as stored when the job
// finished, or rebuilt from its candidates' rows when it did not
// (interrupted, failed, running). Its State is the job's state now.
func JobReport(ctx context.Context, db *store.DB, j store.Job) (*Report, error) {
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
		minSpeedup = DefaultMinSpeedup // as Run takes it
	}
	rows, err := db.Candidates(ctx, j.ID)
	if err != nil {
		return nil, fmt.Errorf("read candidates of job %s: %w", j.ID, err)
	}
	rep := &Report{
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
		if rep.Winner == nil && res.Verdict == VerdictWinner {
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
func DecodeReport(b []byte) (*Report, error) {
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, err
	}
	return &rep, nil
}

// rowResult is a candidate row as the report shows it: its stored result
// when there is one, else what the row's columns say. A result or failure
// that is no JSON of one is an error: the store is damaged.
func rowResult(row store.Candidate) (CandidateResult, error) {
	var res CandidateResult
	if len(row.Result) > 0 {
		if err := json.Unmarshal(row.Result, &res); err != nil {
			return res, fmt.Errorf("its stored result: %w", err)
		}
		return res, nil
	}
	res = CandidateResult{
		Name:        row.Name,
		ID:          row.ContentID,
		Source:      row.Source,
		Parent:      row.Parent,
		Explanation: row.Explanation,
		Verdict:     Verdict(row.Verdict),
		DuplicateOf: row.DuplicateOf,
		Speedup:     row.Speedup,
		Pairs:       row.Pairs,
		Seconds:     row.Seconds,
	}
	if res.Verdict == "" {
		res.Verdict = VerdictPending
	}
	if row.CILow != 0 || row.CIHigh != 0 {
		res.CI = &[2]float64{row.CILow, row.CIHigh}
	}
	if len(row.Failure) > 0 {
		var f Failure
		if err := json.Unmarshal(row.Failure, &f); err != nil {
			return res, fmt.Errorf("its stored failure: %w", err)
		}
		res.Failure = &f
	}
	return res, nil
}
