package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/client"
	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/jobspec"
)

// TestServer_SmallJobNotStarved: a one-candidate job submitted after a
// 200-candidate job on the same machine-wide budget ends first: the gate
// gives the next free slot to the job holding the fewest.
func TestServer_SmallJobNotStarved(t *testing.T) {
	testenv.Long(t)
	repo := shellRepo(t)
	_, c := startServer(t, allowUnsandboxed)
	ctx := context.Background()
	var many []json.RawMessage
	for i := range 200 {
		many = append(many, inline(t, fmt.Sprintf("c%03d", i), map[string]string{"lib.txt": fmt.Sprintf("%d\n", i)}))
	}
	opts := jobspec.Spec{Test: shellTest, Bench: "none", Sandbox: "off"}
	big, err := c.Submit(ctx, api.JobRequest{Repo: repo, Candidates: many, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	// The small job goes in once the big one holds the budget.
	waitEvent(t, c, big.ID, "start")
	small, err := c.Submit(ctx, api.JobRequest{Repo: repo, Candidates: many[:1], Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	smallEnd := waitEnded(t, c, small.ID)
	j, err := c.Job(ctx, big.ID)
	if err != nil {
		t.Fatal(err)
	}
	if j.State != "running" {
		t.Fatalf("the big job is %s when the small one ended, want still running", j.State)
	}
	done := 0
	for _, cr := range j.Report.Candidates {
		if cr.Verdict != "pending" {
			done++
		}
	}
	t.Logf("the small job ended (event %d) with %d of the big job's 200 candidates judged", smallEnd[len(smallEnd)-1].Seq, done)
	if done > 100 {
		t.Errorf("the small job waited for %d of the big job's candidates", done)
	}
	bigEnd := waitEnded(t, c, big.ID)
	if bigEnd[len(bigEnd)-1].Message != "finished" {
		t.Errorf("the big job ended %s", bigEnd[len(bigEnd)-1].Message)
	}
}

// waitEvent waits for job id's first event of this kind.
func waitEvent(tb testing.TB, c *client.Client, id, kind string) {
	tb.Helper()
	found := false
	err := c.Events(context.Background(), id, 0, func(e api.Event) error {
		if e.Kind == kind {
			found = true
			return context.Canceled
		}
		return nil
	})
	if !found {
		tb.Fatalf("no %s event for %s: %v", kind, id, err)
	}
}
