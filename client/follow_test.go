package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/evaluator"
)

// fakeDaemon answers one job's routes: its events (then, unless hold, its
// end), the job, and a cancel with the status cancelStatus.
type fakeDaemon struct {
	job          api.Job
	events       []api.Event
	hold         bool // the stream stays open after the events, until the client goes
	cancelStatus int
	cancels      atomic.Int32
}

func (d *fakeDaemon) start(t *testing.T) *Client {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/jobs/{id}/events", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i, e := range d.events {
			e.Seq = uint64(i + 1)
			b, _ := json.Marshal(e)
			fmt.Fprintf(w, "id: %d\ndata: %s\n\n", e.Seq, b)
		}
		w.(http.Flusher).Flush()
		if d.hold {
			<-r.Context().Done()
			return
		}
		b, _ := json.Marshal(api.Event{Seq: uint64(len(d.events) + 1), Kind: api.EventEnded, Message: d.job.State})
		fmt.Fprintf(w, "data: %s\n\n", b)
	})
	mux.HandleFunc("GET /v1/jobs/{id}", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(d.job)
	})
	mux.HandleFunc("DELETE /v1/jobs/{id}", func(w http.ResponseWriter, r *http.Request) {
		d.cancels.Add(1)
		w.WriteHeader(d.cancelStatus)
		if d.cancelStatus != http.StatusOK {
			json.NewEncoder(w).Encode(api.Error{Message: "job " + r.PathValue("id") + " has ended"})
			return
		}
		j := d.job
		j.State = "cancelled"
		json.NewEncoder(w).Encode(j)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return NewTCP(strings.TrimPrefix(srv.URL, "http://"), "")
}

func TestClient_Follow(t *testing.T) {
	rep := &evaluator.Report{Job: "run1"}
	d := &fakeDaemon{job: api.Job{ID: "j1", State: "finished", Report: rep}, events: []api.Event{
		{Kind: api.EventQueued, Message: "queued"},
		{Kind: string(evaluator.EventJobStart), Total: 2},
		{Kind: string(evaluator.EventDone), Candidate: "a", Done: 1},
	}}
	c := d.start(t)
	var got []evaluator.EventKind
	j, err := c.Follow(context.Background(), "j1", func(e evaluator.Event) { got = append(got, e.Kind) })
	if err != nil || j.State != "finished" || j.Report == nil || j.Report.Job != "run1" {
		t.Fatalf("Follow = %+v, %v; want the finished job and its report", j, err)
	}
	if want := []evaluator.EventKind{evaluator.EventJobStart, evaluator.EventDone}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("events passed on: %v, want %v (none of the daemon's own)", got, want)
	}
	if _, err := c.Follow(context.Background(), "j1", nil); err != nil {
		t.Errorf("Follow with no each: %v", err)
	}
}

// TestClient_FollowFailed: a job that ended with an error returns it, and
// the job as it ended.
func TestClient_FollowFailed(t *testing.T) {
	d := &fakeDaemon{job: api.Job{ID: "j1", State: "failed", Error: "open slot pool: no space"}}
	j, err := d.start(t).Follow(context.Background(), "j1", nil)
	if err == nil || err.Error() != "open slot pool: no space" || j.State != "failed" {
		t.Errorf("Follow = %+v, %v; want the job's own error", j, err)
	}
}

// TestClient_FollowCancel: when ctx ends first, the job is cancelled on the
// daemon and ctx's error returned. A job that had ended (409) is no error
// of the cancel; any other answer is.
func TestClient_FollowCancel(t *testing.T) {
	for _, tt := range []struct {
		name    string
		status  int
		state   string // of the job returned
		wantErr string
	}{
		{"Cancelled", http.StatusOK, "cancelled", context.Canceled.Error()},
		{"HadEnded", http.StatusConflict, "", context.Canceled.Error()},
		{"CancelFails", http.StatusInternalServerError, "", "cancel job j1 on the daemon: "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := &fakeDaemon{job: api.Job{ID: "j1", State: "running"}, hold: true, cancelStatus: tt.status,
				events: []api.Event{{Kind: string(evaluator.EventJobStart), Total: 1}}}
			c := d.start(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			j, err := c.Follow(ctx, "j1", func(evaluator.Event) { cancel() })
			if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want one starting %q", err, tt.wantErr)
			}
			if tt.status == http.StatusOK && !errors.Is(err, context.Canceled) {
				t.Errorf("err = %v, want ctx's", err)
			}
			if j.State != tt.state || d.cancels.Load() != 1 {
				t.Errorf("job %+v after %d cancels, want state %q after one", j, d.cancels.Load(), tt.state)
			}
		})
	}
}

// TestDial: with nothing on the socket, the error wraps ErrNoDaemon and
// names the socket.
func TestDial(t *testing.T) {
	sock := t.TempDir() + "/daemon.sock"
	c, err := Dial(context.Background(), sock)
	if c != nil || !errors.Is(err, ErrNoDaemon) || !strings.HasSuffix(err.Error(), " on "+sock) {
		t.Errorf("Dial = %v, %v; want ErrNoDaemon on %s", c, err, sock)
	}
}

// TestFollow_DaemonGone: a daemon that does not come back is tried for
// Reconnect, with a warning saying so, and then the error is a GoneError.
func TestFollow_DaemonGone(t *testing.T) {
	c := New(filepath.Join(t.TempDir(), "d.sock")) // nothing listens there
	c.Reconnect = 300 * time.Millisecond
	var warnings []string
	_, err := c.Follow(context.Background(), "j1", func(e evaluator.Event) {
		if e.Kind == evaluator.EventWarning {
			warnings = append(warnings, e.Message)
		}
	})
	var gone *GoneError
	if !errors.As(err, &gone) || gone.Job != "j1" || !errors.Is(err, ErrNoDaemon) {
		t.Fatalf("Follow with no daemon: %v, want a GoneError of j1 that wraps ErrNoDaemon", err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "went away") || !strings.Contains(warnings[0], "retrying for up to 300ms") {
		t.Errorf("warnings: %q, want one saying the daemon went away and how long it is tried", warnings)
	}
}
