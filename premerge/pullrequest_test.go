package premerge

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDetectPullRequest(t *testing.T) {
	event := filepath.Join(t.TempDir(), "event.json")
	writeEvent(t, event, "main", "1111111111111111111111111111111111111111", "feature/x", "2222222222222222222222222222222222222222")
	for _, tt := range []struct {
		name       string
		env        map[string]string
		base, head string
		want       PullRequest
		wantErr    string // a part of the error; "" means none
	}{
		{name: "GitHub", env: map[string]string{
			"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": event,
			"GITHUB_BASE_REF": "main", "GITHUB_HEAD_REF": "feature/x", "GITHUB_STEP_SUMMARY": "/tmp/summary",
		}, want: PullRequest{Provider: "github", Number: "7", BaseRef: "main", BaseSHA: strings.Repeat("1", 40),
			HeadRef: "feature/x", HeadSHA: strings.Repeat("2", 40), Summary: "/tmp/summary"}},
		{name: "GitHubPush", env: map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "push"},
			wantErr: `event "push" is not a pull request`},
		{name: "GitHubBadEventFile", env: map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_EVENT_PATH": "/nonexistent/event.json"},
			wantErr: "read GITHUB_EVENT_PATH"},
		{name: "GitLab", env: map[string]string{
			"GITLAB_CI": "true", "CI_MERGE_REQUEST_IID": "12", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main",
			"CI_MERGE_REQUEST_DIFF_BASE_SHA": "abc", "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME": "fix", "CI_COMMIT_SHA": "def",
		}, want: PullRequest{Provider: "gitlab", Number: "12", BaseRef: "main", BaseSHA: "abc", HeadRef: "fix", HeadSHA: "def"}},
		{name: "GitLabBranchPipeline", env: map[string]string{"GITLAB_CI": "true", "CI_COMMIT_SHA": "def"},
			wantErr: "not a merge request pipeline"},
		{name: "Flags", base: "main", head: "HEAD", want: PullRequest{Provider: "flags", BaseRef: "main", HeadRef: "HEAD"}},
		{name: "FlagsWinOverCI", env: map[string]string{"GITLAB_CI": "true"}, base: "a", head: "b",
			want: PullRequest{Provider: "flags", BaseRef: "a", HeadRef: "b"}},
		{name: "OnlyBase", base: "main", wantErr: "--base and --head go together"},
		{name: "Nothing", wantErr: "GITHUB_EVENT_PATH, GITHUB_BASE_REF, GITHUB_HEAD_REF"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Detect(func(k string) string { return tt.env[k] }, tt.base, tt.head)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestDetect_Usage: the errors that say the job is not a pull request's
// are *DetectError, so that the CLI exits 2; an unreadable event file is not.
func TestDetect_Usage(t *testing.T) {
	var de *DetectError
	if _, err := Detect(func(string) string { return "" }, "", ""); !errors.As(err, &de) {
		t.Errorf("no pull request: %T %v, want *DetectError", err, err)
	}
	env := map[string]string{"GITHUB_EVENT_PATH": "/nonexistent/event.json"}
	if _, err := Detect(func(k string) string { return env[k] }, "", ""); err == nil || errors.As(err, &de) {
		t.Errorf("unreadable event file: %T %v, want an error that is no *DetectError", err, err)
	}
}

func TestPullRequest_Names(t *testing.T) {
	for _, tt := range []struct {
		pr                PullRequest
		label, head, base string
	}{
		{PullRequest{Provider: "github", Number: "12", BaseRef: "main", HeadRef: "fix"}, "github #12: ", "fix", "main"},
		{PullRequest{Provider: "gitlab", Number: "7", BaseSHA: strings.Repeat("a", 40), HeadSHA: strings.Repeat("b", 40)}, "gitlab !7: ", "bbbbbbbbbbbb", "aaaaaaaaaaaa"},
		{PullRequest{Provider: "github"}, "github: ", "head", ""},
		{PullRequest{Provider: "flags", BaseRef: "main", HeadRef: "HEAD"}, "", "HEAD", "main"},
	} {
		if got := tt.pr.Label(); got != tt.label {
			t.Errorf("%+v: Label = %q, want %q", tt.pr, got, tt.label)
		}
		if got := tt.pr.HeadName(); got != tt.head {
			t.Errorf("%+v: HeadName = %q, want %q", tt.pr, got, tt.head)
		}
		if got := tt.pr.BaseName(); got != tt.base {
			t.Errorf("%+v: BaseName = %q, want %q", tt.pr, got, tt.base)
		}
	}
}

func writeEvent(t *testing.T, path, baseRef, baseSHA, headRef, headSHA string) {
	t.Helper()
	ev := map[string]any{"number": 7, "pull_request": map[string]any{
		"number": 7,
		"base":   map[string]string{"ref": baseRef, "sha": baseSHA},
		"head":   map[string]string{"ref": headRef, "sha": headSHA},
	}}
	b, _ := json.Marshal(ev)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
