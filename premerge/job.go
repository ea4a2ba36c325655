package premerge

import (
	"context"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/report"
	"github.com/optimizer-dev/optimizer/result"
)

// Job is a pull request made ready to judge: found, its sides resolved in
// the clone, and its candidates loaded. The job itself (the store, the
// pool, evaluator.Run) is the caller's.
type Job struct {
	PR         PullRequest
	Repo       gitcmd.Repo
	MergeBase  string                // the commit the head is judged against
	Head       string                // the head's commit
	Candidates []candidate.Candidate // the head first (PullRequest.Candidates)
}

// Prepare finds the pull request (Detect, through getenv, with base and
// head as the caller names them, "" for neither) and the repository at
// dir. It resolves the two sides and their merge base (PullRequest.Resolve)
// and the candidates: the head, then those at paths. A job that is not a pull
// request's fails with a *DetectError, before the repository is read.
func Prepare(ctx context.Context, getenv func(string) string, dir, base, head string, paths []string) (Job, error) {
	pr, err := Detect(getenv, base, head)
	if err != nil {
		return Job{}, err
	}
	j := Job{PR: pr}
	if j.Repo, err = gitcmd.FindRepo(ctx, dir); err != nil {
		return Job{}, err
	}
	if j.MergeBase, j.Head, err = pr.Resolve(ctx, j.Repo); err != nil {
		return Job{}, err
	}
	if j.Candidates, err = pr.Candidates(ctx, j.Repo.Root, j.MergeBase, j.Head, paths); err != nil {
		return Job{}, err
	}
	return j, nil
}

// Publish judges the head's result in rep against gates (report.JudgeGate)
// and writes what the CI shows into the directory out (WriteOutputs). The
// gate is returned even when writing fails.
func (j Job) Publish(out string, rep *result.Report, gates []string) (report.Gate, error) {
	g := report.JudgeGate(rep, j.Candidates[0].Name, gates)
	return g, WriteOutputs(out, j.PR, rep, g)
}
