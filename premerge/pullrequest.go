package premerge

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/optimizer-dev/optimizer/report"
)

// PullRequest is what optimizer ci needs to know of the change under
// review: its two sides and where its CI wants the summary. Each side is
// known by a commit (SHA), a branch name (Ref), or both.
type PullRequest struct {
	Provider string // github, gitlab, or flags
	Number   string // the pull or merge request's number, "" when unknown
	BaseRef  string // the target branch, e.g. main
	BaseSHA  string
	HeadRef  string // the source branch
	HeadSHA  string
	Summary  string // GitHub's step summary file; "" elsewhere
}

// HeadName is the head's name as a candidate: its branch, else its short
// commit, else "head".
func (pr PullRequest) HeadName() string {
	switch {
	case pr.HeadRef != "":
		return pr.HeadRef
	case pr.HeadSHA != "":
		return report.ShortHash(pr.HeadSHA)
	}
	return "head"
}

// BaseName is the base as the log names it: its branch, else its short
// commit.
func (pr PullRequest) BaseName() string {
	return firstNonEmpty(pr.BaseRef, report.ShortHash(pr.BaseSHA))
}

// Label names the pull request for the log: "github #12: ", "gitlab !7: ",
// or "" when the caller named the sides.
func (pr PullRequest) Label() string {
	switch {
	case pr.Provider == "flags":
		return ""
	case pr.Number == "":
		return pr.Provider + ": "
	case pr.Provider == "gitlab":
		return "gitlab !" + pr.Number + ": "
	}
	return pr.Provider + " #" + pr.Number + ": "
}

// A DetectError says that the environment names no pull request, or only
// part of one: the CI job or the flags must change. Nothing failed.
type DetectError struct{ msg string }

func (e *DetectError) Error() string { return e.msg }

func detectErrorf(format string, args ...any) error {
	return &DetectError{fmt.Sprintf(format, args...)}
}

// errNoPullRequest says which variables optimizer ci reads, for a run
// outside a pull request's CI job.
var errNoPullRequest = detectErrorf(`no pull request in the environment. optimizer ci reads:
  GitHub Actions (a pull_request event): GITHUB_EVENT_PATH, GITHUB_BASE_REF, GITHUB_HEAD_REF, GITHUB_STEP_SUMMARY
  GitLab CI (a merge request pipeline): CI_MERGE_REQUEST_IID, CI_MERGE_REQUEST_TARGET_BRANCH_NAME,
    CI_MERGE_REQUEST_SOURCE_BRANCH_NAME, CI_MERGE_REQUEST_DIFF_BASE_SHA, CI_COMMIT_SHA
  anywhere else: pass --base REV and --head REV`)

// Detect finds the pull request from CI variables (getenv) and GitHub's
// event file. base and head, when the caller names them (the flags), win
// over both. Errors that say the job is not a pull request's are
// *DetectError.
func Detect(getenv func(string) string, base, head string) (PullRequest, error) {
	if base != "" && head != "" {
		return PullRequest{Provider: "flags", BaseRef: base, HeadRef: head, Summary: getenv("GITHUB_STEP_SUMMARY")}, nil
	}
	if base != "" || head != "" {
		return PullRequest{}, detectErrorf("--base and --head go together: pass both, or neither inside a pull request's CI job")
	}
	switch {
	case getenv("GITHUB_ACTIONS") == "true" || getenv("GITHUB_EVENT_PATH") != "":
		return github(getenv)
	case getenv("GITLAB_CI") == "true" || getenv("CI_MERGE_REQUEST_IID") != "":
		return gitlab(getenv)
	}
	return PullRequest{}, errNoPullRequest
}

// githubEvent is the part of a pull_request event's payload that names the
// two sides.
type githubEvent struct {
	Number      int `json:"number"`
	PullRequest *struct {
		Number int `json:"number"`
		Base   struct {
			Ref string `json:"ref"`
			SHA string `json:"sha"`
		} `json:"base"`
		Head struct {
			Ref string `json:"ref"`
			SHA string `json:"sha"`
		} `json:"head"`
	} `json:"pull_request"`
}

// github reads a GitHub Actions pull_request (or pull_request_target) job:
// the event file has both commits; the GITHUB_BASE_REF and GITHUB_HEAD_REF
// variables have the branches.
func github(getenv func(string) string) (PullRequest, error) {
	pr := PullRequest{
		Provider: "github",
		BaseRef:  getenv("GITHUB_BASE_REF"),
		HeadRef:  getenv("GITHUB_HEAD_REF"),
		Summary:  getenv("GITHUB_STEP_SUMMARY"),
	}
	if path := getenv("GITHUB_EVENT_PATH"); path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return PullRequest{}, fmt.Errorf("read GITHUB_EVENT_PATH: %w", err)
		}
		var ev githubEvent
		if err := json.Unmarshal(b, &ev); err != nil {
			return PullRequest{}, fmt.Errorf("read GITHUB_EVENT_PATH %s: %w", path, err)
		}
		if p := ev.PullRequest; p != nil {
			pr.Number = fmt.Sprint(p.Number)
			pr.BaseSHA, pr.HeadSHA = p.Base.SHA, p.Head.SHA
			pr.BaseRef = firstNonEmpty(pr.BaseRef, p.Base.Ref)
			pr.HeadRef = firstNonEmpty(pr.HeadRef, p.Head.Ref)
		}
	}
	if pr.BaseRef == "" && pr.BaseSHA == "" {
		event := firstNonEmpty(getenv("GITHUB_EVENT_NAME"), "this")
		return PullRequest{}, detectErrorf("GitHub Actions event %q is not a pull request (no GITHUB_BASE_REF, no pull_request in GITHUB_EVENT_PATH): run optimizer ci on pull_request, or pass --base REV and --head REV", event)
	}
	if pr.HeadRef == "" && pr.HeadSHA == "" {
		return PullRequest{}, detectErrorf("GitHub Actions: the pull request's head is unknown: set GITHUB_HEAD_REF, or pass --base REV and --head REV")
	}
	return pr, nil
}

// gitlab reads a GitLab CI merge request pipeline. GitLab gives the merge
// base itself (CI_MERGE_REQUEST_DIFF_BASE_SHA).
func gitlab(getenv func(string) string) (PullRequest, error) {
	pr := PullRequest{
		Provider: "gitlab",
		Number:   getenv("CI_MERGE_REQUEST_IID"),
		BaseRef:  getenv("CI_MERGE_REQUEST_TARGET_BRANCH_NAME"),
		BaseSHA:  getenv("CI_MERGE_REQUEST_DIFF_BASE_SHA"),
		HeadRef:  getenv("CI_MERGE_REQUEST_SOURCE_BRANCH_NAME"),
		HeadSHA:  firstNonEmpty(getenv("CI_MERGE_REQUEST_SOURCE_BRANCH_SHA"), getenv("CI_COMMIT_SHA")),
	}
	if pr.Number == "" || (pr.BaseRef == "" && pr.BaseSHA == "") {
		return PullRequest{}, detectErrorf("GitLab CI: not a merge request pipeline (no CI_MERGE_REQUEST_IID or CI_MERGE_REQUEST_DIFF_BASE_SHA): add `rules: - if: $CI_PIPELINE_SOURCE == \"merge_request_event\"` to the job, or pass --base REV and --head REV")
	}
	if pr.HeadRef == "" && pr.HeadSHA == "" {
		return PullRequest{}, detectErrorf("GitLab CI: the merge request's head is unknown: set CI_COMMIT_SHA, or pass --base REV and --head REV")
	}
	return pr, nil
}

// firstNonEmpty is the first of its arguments that is not empty.
func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if strings.TrimSpace(x) != "" {
			return x
		}
	}
	return ""
}
