package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/client"
)

// TestServer_BadRequests: each kind of bad request gets its status and a
// JSON error naming what to fix, matching the OpenAPI document, and
// nothing is recorded.
func TestServer_BadRequests(t *testing.T) {
	repo := shellRepo(t)
	notGit := t.TempDir()
	noTestRepo := newTestRepo(t, map[string]string{"a.txt": "a\n"})
	srv, c := startServer(t, func(o *Options) {
		o.Listen = "127.0.0.1:0"
		o.Token = "s3cret"
		o.MaxBody = 64 << 10
	})
	router := specRouter(t)
	hc := unixHTTP(srv.opts.Socket)
	good := `{"name": "a", "files": {"lib.txt": "two\n"}}`
	job := func(repo, extra string) string {
		return fmt.Sprintf(`{"repo": %q, "candidates": [%s], "options": {"test": %q, "bench": "none"}%s}`, repo, good, shellTest, extra)
	}
	huge := `{"repo": "` + strings.Repeat("x", 70<<10) + `"}`

	for _, tt := range []struct {
		name   string
		method string
		path   string
		body   string
		ctype  string
		header map[string]string
		tcp    bool
		host   string
		status int
		field  string
		msg    string // a part of the message, when it matters
	}{
		{name: "BadJSON", body: `{"repo": `, status: 400},
		{name: "NotJSON", body: `repo=/x`, status: 400},
		{name: "EmptyBody", body: ``, status: 400},
		{name: "TwoValues", body: job(repo, "") + `{}`, status: 400},
		{name: "UnknownField", body: job(repo, `, "priority": 9`), status: 400, field: "priority"},
		{name: "WrongType", body: `{"repo": 5}`, status: 400, field: "repo"},
		{name: "WrongTypeNested", body: job(repo, `, "kind": "run", "session": "", "base": "HEAD"`)[:0] + `{"repo": "/x", "options": {"min_pairs": "six"}}`, status: 400, field: "options.min_pairs"},
		{name: "HugeBody", body: huge, status: 413},
		{name: "WrongContentType", body: job(repo, ""), ctype: "text/plain", status: 415, field: "Content-Type"},
		{name: "NoContentType", body: job(repo, ""), ctype: "none", status: 415, field: "Content-Type"},
		{name: "SandboxOffByPolicy", body: fmt.Sprintf(`{"repo": %q, "candidates": [%s], "options": {"test": "true", "sandbox": "off"}}`, repo, good), status: 403, field: "options.sandbox"},
		{name: "SetupByPolicy", body: fmt.Sprintf(`{"repo": %q, "candidates": [%s], "options": {"test": "true", "setup": "true"}}`, repo, good), status: 403, field: "options.setup"},
		{name: "CopyIgnoredByPolicy", body: fmt.Sprintf(`{"repo": %q, "candidates": [%s], "options": {"test": "true", "copy_files": [".env"]}}`, repo, good), status: 403, field: "options.copy_files"},
		{name: "SandboxNetByPolicy", body: fmt.Sprintf(`{"repo": %q, "candidates": [%s], "options": {"test": "true", "sandbox_net": true}}`, repo, good), status: 403, field: "options.sandbox_net"},
		{name: "CrossOriginWrite", body: job(repo, ""), tcp: true, header: map[string]string{"Authorization": "Bearer s3cret", "Origin": "http://127.0.0.1:1"}, status: 403, field: "Origin"},
		{name: "SameSiteWrite", body: job(repo, ""), tcp: true, header: map[string]string{"Authorization": "Bearer s3cret", "Sec-Fetch-Site": "same-site"}, status: 403, field: "Origin"},
		{name: "ReboundHost", method: "GET", path: "/v1/jobs", tcp: true, host: "rebound.example:80", header: map[string]string{"Authorization": "Bearer s3cret"}, status: 403, field: "Host"},
		{name: "CrossSiteRead", method: "GET", path: "/v1/jobs", header: map[string]string{"Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "no-cors"}, status: 403, field: "Sec-Fetch-Site"},
		{name: "CancelWithoutContentType", method: "DELETE", path: "/v1/jobs/nope", ctype: "none", status: 415, field: "Content-Type"},
		{name: "NoRepo", body: `{"candidates": [` + good + `]}`, status: 400, field: "repo"},
		{name: "RelativeRepo", body: job("repo", ""), status: 400, field: "repo"},
		{name: "UnknownRepo", body: job(filepath.Join(notGit, "gone"), ""), status: 422, field: "repo"},
		{name: "NotAGitRepo", body: job(notGit, ""), status: 422, field: "repo"},
		{name: "UnknownBase", body: job(repo, `, "base": "no-such-branch"`), status: 422, field: "base"},
		{name: "OptionBase", body: job(repo, `, "base": "--output=/tmp/x"`), status: 400, field: "base"},
		{name: "NoCandidates", body: fmt.Sprintf(`{"repo": %q}`, repo), status: 400, field: "candidates"},
		{name: "CandidateNotObject", body: fmt.Sprintf(`{"repo": %q, "candidates": ["a.patch"]}`, repo), status: 400, field: "candidates[0]"},
		{name: "PathEscape", body: fmt.Sprintf(`{"repo": %q, "candidates": [{"name": "x", "files": {"../../etc/passwd": "x"}}], "options": {"test": "true"}}`, repo), status: 400, field: "candidates[0].files"},
		{name: "AbsolutePathInFiles", body: fmt.Sprintf(`{"repo": %q, "candidates": [{"name": "x", "files": {"/etc/passwd": "x"}}], "options": {"test": "true"}}`, repo), status: 400, field: "candidates[0].files"},
		{name: "DuplicateNames", body: fmt.Sprintf(`{"repo": %q, "candidates": [%s, %s], "options": {"test": "true"}}`, repo, good, good), status: 400, field: "candidates"},
		{name: "RelativeCandidatePath", body: fmt.Sprintf(`{"repo": %q, "candidate_paths": ["cands"], "options": {"test": "true"}}`, repo), status: 400, field: "candidate_paths[0]"},
		{name: "MissingCandidatePath", body: fmt.Sprintf(`{"repo": %q, "candidate_paths": [%q], "options": {"test": "true"}}`, repo, filepath.Join(notGit, "none.jsonl")), status: 422, field: "candidate_paths[0]"},
		{name: "UnknownCandidateRef", body: fmt.Sprintf(`{"repo": %q, "candidate_refs": ["nope"], "options": {"test": "true"}}`, repo), status: 422, field: "candidate_refs[0]"},
		{name: "BadDuration", body: job(repo, "")[:0] + fmt.Sprintf(`{"repo": %q, "candidates": [%s], "options": {"timeout": "ten minutes"}}`, repo, good), status: 400, field: "options.timeout",
			msg: `"ten minutes" is no positive duration (say 90s or 10m)`},
		{name: "NegativeDuration", body: fmt.Sprintf(`{"repo": %q, "candidates": [%s], "options": {"bench_budget": "-5s"}}`, repo, good), status: 400, field: "options.bench_budget",
			msg: `"-5s" is no positive duration`},
		{name: "BadMetric", body: fmt.Sprintf(`{"repo": %q, "candidates": [%s], "options": {"metric": "speed"}}`, repo, good), status: 400, field: "options.metric"},
		{name: "BadSandbox", body: fmt.Sprintf(`{"repo": %q, "candidates": [%s], "options": {"sandbox": "maybe"}}`, repo, good), status: 400, field: "options.sandbox"},
		{name: "CopyFileEscapes", body: fmt.Sprintf(`{"repo": %q, "candidates": [%s], "options": {"copy_files": ["../secret"]}}`, repo, good), status: 400, field: "options.copy_files[0]"},
		{name: "BadKind", body: fmt.Sprintf(`{"repo": %q, "candidates": [%s], "kind": "demo"}`, repo, good), status: 400, field: "kind"},
		{name: "NoTestCommand", body: fmt.Sprintf(`{"repo": %q, "candidates": [%s]}`, noTestRepo, `{"name": "a", "files": {"a.txt": "b\n"}}`), status: 422, field: "options.test"},
		{name: "CancelUnknownJob", method: "DELETE", path: "/v1/jobs/nope", status: 404, field: "id"},
		{name: "UnknownJob", method: "GET", path: "/v1/jobs/nope", status: 404, field: "id"},
		{name: "EventsOfUnknownJob", method: "GET", path: "/v1/jobs/nope/events", status: 404, field: "id"},
		{name: "ReportOfUnknownJob", method: "GET", path: "/v1/jobs/nope/report", status: 404, field: "id"},
		{name: "BadReportFormat", method: "GET", path: "/v1/jobs/nope/report?format=pdf", status: 400, field: "format"},
		{name: "BadStateFilter", method: "GET", path: "/v1/jobs?state=done", status: 400, field: "state"},
		{name: "BadLimit", method: "GET", path: "/v1/jobs?limit=0", status: 400, field: "limit"},
		{name: "BadLastEventID", method: "GET", path: "/v1/events", header: map[string]string{"Last-Event-ID": "yesterday"}, status: 400, field: "Last-Event-ID"},
		{name: "MissingToken", method: "GET", path: "/v1/jobs", tcp: true, status: 401, field: "Authorization"},
		{name: "WrongToken", method: "GET", path: "/v1/jobs", tcp: true, header: map[string]string{"Authorization": "Bearer guess"}, status: 401, field: "Authorization"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			method, path := tt.method, tt.path
			if method == "" {
				method, path = "POST", "/v1/jobs"
			}
			base, h := "http://optimizer", hc
			if tt.tcp {
				base, h = "http://"+srv.Addr().String(), http.DefaultClient
			}
			req, err := http.NewRequest(method, base+path, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if method != "GET" && tt.ctype != "none" {
				ct := tt.ctype
				if ct == "" {
					ct = "application/json"
				}
				req.Header.Set("Content-Type", ct)
			}
			if tt.host != "" {
				req.Host = tt.host
			}
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			resp, err := h.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body := checkResponse(t, router, req, resp)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			var e api.Error
			if err := json.Unmarshal(body, &e); err != nil || e.Message == "" {
				t.Fatalf("body is no JSON error: %v: %s", err, body)
			}
			if e.Field != tt.field {
				t.Errorf("field %q, want %q (error: %s)", e.Field, tt.field, e.Message)
			}
			if !strings.Contains(e.Message, tt.msg) {
				t.Errorf("message %q, want it to say %q", e.Message, tt.msg)
			}
		})
	}
	// Nothing was recorded.
	list, err := c.Jobs(context.Background(), client.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Jobs) != 0 {
		t.Errorf("bad requests recorded %d jobs: %+v", len(list.Jobs), list.Jobs)
	}
	if _, err := os.Stat(filepath.Join(notGit, ".git")); err == nil {
		t.Error("a request made a git repository")
	}
	// The right token is let in, by header, and by ?token= which sets a
	// cookie and redirects to the same URL without the token.
	tc := client.NewTCP(srv.Addr().String(), "s3cret")
	if _, err := tc.Health(context.Background()); err != nil {
		t.Errorf("health over TCP with the token: %v", err)
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get("http://" + srv.Addr().String() + "/v1/health?token=s3cret&x=1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 || resp.Cookies()[0].Name != TokenCookie {
		t.Errorf("?token=: status %d, cookies %v; want 303 and the token cookie", resp.StatusCode, resp.Cookies())
	}
	if loc := resp.Header.Get("Location"); loc != "/v1/health?x=1" {
		t.Errorf("?token= redirects to %q, want /v1/health?x=1 (the token dropped)", loc)
	}
}
