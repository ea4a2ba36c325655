package daemon

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/store"
)

// TestJob_DamagedReport: a queue row whose kept report is no JSON is an
// error naming the job (500), not a finished job shown without a report.
func TestJob_DamagedReport(t *testing.T) {
	ctx := context.Background()
	stateDB := filepath.Join(t.TempDir(), "daemon.db")
	db, err := store.Open(ctx, stateDB)
	if err != nil {
		t.Fatal(err)
	}
	const id = "20260101-000000-aaaaaaaaaaaa"
	if _, err := db.Enqueue(ctx, store.QueuedJob{ID: id, Repo: "/r", Base: strings.Repeat("a", 40), Request: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if err := db.EndQueued(ctx, id, store.QueueFinished, "", []byte(`{"job":`)); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	_, c := startServer(t, func(o *Options) { o.StateDB = stateDB })
	j, err := c.Job(ctx, id)
	var apiErr *api.Error
	if want := "read the report of job " + id + ": "; !errors.As(err, &apiErr) || apiErr.Status != http.StatusInternalServerError ||
		!strings.HasPrefix(apiErr.Message, want) {
		t.Errorf("GET the job = %+v, %v; want a 500 starting %q", j, err, want)
	}
}
