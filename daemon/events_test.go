package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/client"
	"github.com/optimizer-dev/optimizer/jobspec"
)

// restartable is a daemon on a fixed socket and state that a test stops and
// starts again, as a restart does.
type restartable struct {
	opts Options
	stop func()
}

func newRestartable(tb testing.TB) *restartable {
	tb.Helper()
	sockDir, err := os.MkdirTemp("", "odr")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(sockDir) })
	r := &restartable{opts: Options{
		Socket:      filepath.Join(sockDir, "d.sock"),
		StateDB:     filepath.Join(tb.TempDir(), "daemon.db"),
		Slots:       2,
		CPUs:        2,
		MachineLock: filepath.Join(sockDir, "machine.lock"),
	}}
	tb.Cleanup(func() {
		if r.stop != nil {
			r.stop()
		}
	})
	return r
}

// start runs the daemon until stop, and returns its client.
func (r *restartable) start(tb testing.TB) *client.Client {
	tb.Helper()
	_, stop := runServer(tb, r.opts)
	var once sync.Once
	r.stop = func() {
		once.Do(func() {
			if err := stop(); err != nil {
				tb.Errorf("daemon Run: %v", err)
			}
		})
	}
	return client.New(r.opts.Socket)
}

func eventList(evs []api.Event) string {
	s := ""
	for _, e := range evs {
		s += fmt.Sprintf("%d %s %s %s\n", e.Seq, e.Kind, e.Candidate, e.Message)
	}
	return s
}

// TestBroker_EventsSurviveRestart: a job's events are kept with it. After a
// restart, the stream of a job that finished before it replays the real
// events, not a made-up end. A stream resumed with an id from before the
// restart gives exactly what followed that id.
func TestBroker_EventsSurviveRestart(t *testing.T) {
	repo := shellRepo(t)
	d := newRestartable(t)
	c := d.start(t)
	ctx := context.Background()
	sub, err := c.Submit(ctx, api.JobRequest{Repo: repo,
		Candidates: []json.RawMessage{inline(t, "a", map[string]string{"lib.txt": "x\n"}), inline(t, "b", map[string]string{"ok": "no\n"})},
		Options:    jobspec.Spec{Test: shellTest, Bench: "none"}})
	if err != nil {
		t.Fatal(err)
	}
	before := waitEnded(t, c, sub.ID)
	if len(before) < 5 {
		t.Fatalf("the job had %d events:\n%s", len(before), eventList(before))
	}
	d.stop()

	c = d.start(t)
	after := waitEnded(t, c, sub.ID)
	if got, want := eventList(after), eventList(before); got != want {
		t.Errorf("the finished job's stream after a restart:\n%s\nwant the events it had:\n%s", got, want)
	}
	mid := len(before) / 2
	var resumed []api.Event
	if err := c.Events(ctx, sub.ID, before[mid].Seq, func(e api.Event) error {
		resumed = append(resumed, e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got, want := eventList(resumed), eventList(before[mid+1:]); got != want {
		t.Errorf("resumed after %d across a restart:\n%s\nwant:\n%s", before[mid].Seq, got, want)
	}

	// A new job's events are numbered after every event kept.
	sub2, err := c.Submit(ctx, api.JobRequest{Repo: repo,
		Candidates: []json.RawMessage{inline(t, "c", map[string]string{"lib.txt": "z\n"})},
		Options:    jobspec.Spec{Test: shellTest, Bench: "none"}})
	if err != nil {
		t.Fatal(err)
	}
	next := waitEnded(t, c, sub2.ID)
	if next[0].Seq <= before[len(before)-1].Seq {
		t.Errorf("the next job's first event is %d, not after the last kept, %d", next[0].Seq, before[len(before)-1].Seq)
	}
}
