package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/jobspec"
	"github.com/optimizer-dev/optimizer/store"
)

func TestServer_SubmitRunsJob(t *testing.T) {
	repo := shellRepo(t)
	before := testenv.RepoState(t, repo)
	_, c := startServer(t, nil)
	ctx := context.Background()
	sub, err := c.Submit(ctx, api.JobRequest{
		Repo: repo,
		Candidates: []json.RawMessage{
			inline(t, "good", map[string]string{"lib.txt": "two\n"}),
			inline(t, "bad", map[string]string{"ok": "no\n"}),
		},
		// An older client sends its own configuration too: it is ignored.
		Options: jobspec.Spec{Test: shellTest, Bench: "none", MinSpeedup: 7.5,
			Config: json.RawMessage(`{"format": "text", "min_speedup": 2, "timeout": 60000000000}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	evs := waitEnded(t, c, sub.ID)
	kinds := map[string]int{}
	for i, e := range evs {
		kinds[e.Kind]++
		if i > 0 && e.Seq <= evs[i-1].Seq {
			t.Errorf("event %d has seq %d after %d", i, e.Seq, evs[i-1].Seq)
		}
	}
	if kinds["queued"] != 1 || kinds["job-start"] != 1 || kinds["done"] != 2 || kinds["ended"] != 1 {
		t.Errorf("event kinds = %v, want one queued, job-start and ended, two done", kinds)
	}
	if last := evs[len(evs)-1]; last.Kind != api.EventEnded || last.Message != store.QueueFinished {
		t.Errorf("last event = %+v, want ended finished", last)
	}
	j, err := c.Job(ctx, sub.ID)
	if err != nil {
		t.Fatal(err)
	}
	if j.State != store.QueueFinished || j.Report == nil || j.RunID == "" {
		t.Fatalf("job = %+v, want finished with a report and a run id", j)
	}
	if j.RunID != sub.ID || j.Report.Job != sub.ID {
		t.Errorf("the job is %s to the API, %s to the repository's store, %s to its report: want one id", sub.ID, j.RunID, j.Report.Job)
	}
	verdicts := map[string]evaluator.Verdict{}
	for _, cr := range j.Report.Candidates {
		verdicts[cr.Name] = cr.Verdict
	}
	if verdicts["good"] != evaluator.VerdictPassed || verdicts["bad"] != evaluator.VerdictFailed {
		t.Errorf("verdicts = %v, want good passed, bad failed", verdicts)
	}
	// The run is in the repository's own store, as the CLI records it.
	db, err := store.Open(ctx, filepath.Join(repo, ".git", "optimizer", "optimizer.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rec, err := db.Job(ctx, j.RunID)
	if err != nil {
		t.Fatalf("the repo's store has no job %s: %v", j.RunID, err)
	}
	if rec.State != "finished" {
		t.Errorf("the repo's store has job %s as %s, want finished", j.RunID, rec.State)
	}
	var recorded jobspec.Recorded
	dec := json.NewDecoder(bytes.NewReader(rec.Config))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&recorded); err != nil || recorded.Test != shellTest || recorded.MinSpeedup != 7.5 ||
		recorded.Config != nil || recorded.Slots != rec.Parallel || recorded.BaseCommit != rec.Base {
		t.Errorf("the job recorded %s (%v), want its request's spec without the client's config", rec.Config, err)
	}
	// Every answer about it matches the OpenAPI document.
	router := specRouter(t)
	hc := unixHTTP(c.Socket())
	for _, tt := range []struct{ path, want string }{
		{"/v1/jobs/" + sub.ID, `"verdict": "passed"`},
		{"/v1/jobs/" + sub.ID + "/report?format=json", `"name": "good"`},
		{"/v1/jobs/" + sub.ID + "/report?format=text", "good"},
		{"/v1/jobs/" + sub.ID + "/report?format=markdown", "| "},
		{"/v1/jobs?state=finished&limit=5", sub.ID},
		{"/v1/jobs?repo=" + repo, sub.ID},
		{"/v1/health", `"status": "ok"`},
		{"/metrics", `optimizer_jobs_ended_total{outcome="finished"} 1`},
		{"/v1/openapi.json", `"openapi"`},
	} {
		req, _ := http.NewRequest("GET", "http://optimizer"+tt.path, nil)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body := checkResponse(t, router, req, resp)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), tt.want) {
			t.Errorf("GET %s: %d, want 200 with %q:\n%s", tt.path, resp.StatusCode, tt.want, body)
		}
	}
	if after := testenv.RepoState(t, repo); after != before {
		t.Errorf("the daemon changed the user's repository:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}
