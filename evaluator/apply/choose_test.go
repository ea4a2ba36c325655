package apply

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/store"
)

// TestChooseCandidate: the winner by default, a named candidate, and a
// failed or pending one only with force, noted.
func TestChooseCandidate(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "optimizer.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	j := store.Job{ID: "j1", Kind: "run", Repo: "/r", Base: "b", Parallel: 1, State: "finished", Winner: "fast"}
	var rows []store.Candidate
	for i, c := range [][2]string{{"fast", "winner"}, {"slow", "slower"}, {"broken", "failed"}, {"cut", "pending"}} {
		rows = append(rows, store.Candidate{JobID: "j1", Seq: i, Name: c[0], ContentID: "id-" + c[0], Verdict: c[1]})
	}
	if err := db.StartJob(ctx, j, rows); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name       string
		job        store.Job
		cand       string
		force      bool
		want, note string
		err        string
	}{
		{"Winner", j, "", false, "fast", "", ""},
		{"NoWinner", store.Job{ID: "j1"}, "", false, "", "", "job j1 has no winner: name the candidate to apply (see optimizer show j1)"},
		{"Named", j, "slow", false, "slow", "", ""},
		{"Failed", j, "broken", false, "", "", "broken's verdict in job j1 is failed: pass --force to apply it anyway"},
		{"FailedForced", j, "broken", true, "broken", "broken's verdict is failed", ""},
		{"PendingForced", j, "cut", true, "cut", "cut's verdict is pending", ""},
		{"Missing", j, "nope", true, "", "", `job j1 has no candidate "nope"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, note, err := ChooseCandidate(ctx, db, tt.job, tt.cand, tt.force)
			var msg string
			if err != nil {
				msg = err.Error()
			}
			if got != tt.want || note != tt.note || !strings.Contains(msg, tt.err) || (tt.err == "") != (err == nil) {
				t.Errorf("ChooseCandidate = %q, %q, %v; want %q, %q, %q", got, note, err, tt.want, tt.note, tt.err)
			}
		})
	}
}
