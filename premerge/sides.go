package premerge

import (
	"context"
	"fmt"
	"strings"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/report"
)

// fetchAdvice says how to make a CI checkout deep enough.
const fetchAdvice = "set fetch-depth: 0 on actions/checkout (GitLab: GIT_DEPTH: 0), or fetch both branches with enough history"

// Resolve finds the pull request's base and head commits in r and their
// merge base. When a side is missing, the error says what to fetch.
func (pr PullRequest) Resolve(ctx context.Context, r gitcmd.Repo) (mergeBase, head string, err error) {
	base, err := resolveSide(ctx, r, "base", pr.BaseSHA, pr.BaseRef)
	if err != nil {
		return "", "", err
	}
	head, err = resolveSide(ctx, r, "head", pr.HeadSHA, pr.HeadRef)
	if err != nil {
		return "", "", err
	}
	mergeBase, err = r.Output(ctx, "merge-base", base, head)
	if err != nil {
		if isShallow(ctx, r) {
			return "", "", fmt.Errorf("find the merge base of %s and %s: this clone is shallow and does not reach it: %s",
				report.ShortHash(base), report.ShortHash(head), fetchAdvice)
		}
		return "", "", fmt.Errorf("find the merge base of %s and %s: they have no common history: %w", report.ShortHash(base), report.ShortHash(head), err)
	}
	return mergeBase, head, nil
}

// resolveSide resolves one side of the pull request: its commit if the
// clone has it, else its branch, as a remote-tracking branch first.
func resolveSide(ctx context.Context, r gitcmd.Repo, side, sha, ref string) (string, error) {
	var tried []string
	for _, rev := range []string{sha, "refs/remotes/origin/" + ref, ref} {
		if rev == "" || rev == "refs/remotes/origin/" {
			continue
		}
		tried = append(tried, rev)
		if c, err := r.Resolve(ctx, rev); err == nil {
			return c, nil
		}
	}
	msg := fmt.Sprintf("the pull request's %s %s is not in this clone (looked for %s)", side, firstNonEmpty(ref, sha), strings.Join(tried, ", "))
	if isShallow(ctx, r) {
		return "", fmt.Errorf("%s, which is shallow: %s", msg, fetchAdvice)
	}
	return "", fmt.Errorf("%s: fetch it first (git fetch origin %s)", msg, firstNonEmpty(ref, sha))
}

func isShallow(ctx context.Context, r gitcmd.Repo) bool {
	out, err := r.Output(ctx, "rev-parse", "--is-shallow-repository")
	return err == nil && out == "true"
}

// Candidates are the job's candidates: the head, as the diff from
// mergeBase, named after its branch (HeadName), then those loaded from
// paths (as --candidates takes them). Their names must be unique.
func (pr PullRequest) Candidates(ctx context.Context, root, mergeBase, head string, paths []string) ([]candidate.Candidate, error) {
	c, err := candidate.FromRef(ctx, root, mergeBase, head)
	if err != nil {
		return nil, fmt.Errorf("read the head %s: %w", report.ShortHash(head), err)
	}
	c.Name = pr.HeadName()
	c.Source = "pull request head " + head
	cands := []candidate.Candidate{c}
	for _, p := range paths {
		cs, err := candidate.Load(p)
		if err != nil {
			return nil, err
		}
		cands = append(cands, cs...)
	}
	if err := candidate.CheckNames(cands); err != nil {
		return nil, err
	}
	return cands, nil
}
