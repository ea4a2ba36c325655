package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/client"
	"github.com/optimizer-dev/optimizer/jobspec"
	"github.com/optimizer-dev/optimizer/store"
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

// TestBroker_EndLostInKill: a daemon killed between recording a job's end
// and publishing it leaves a finished job whose kept events lack the end.
// The next daemon's stream of it gives those events, then one end with the
// recorded state, and ends.
func TestBroker_EndLostInKill(t *testing.T) {
	ctx := context.Background()
	stateDB := filepath.Join(t.TempDir(), "daemon.db")
	db, err := store.Open(ctx, stateDB)
	if err != nil {
		t.Fatal(err)
	}
	const id = "20260101-000000-bbbbbbbbbbbb"
	if _, err := db.Enqueue(ctx, store.QueuedJob{ID: id, Repo: "/r", Base: strings.Repeat("b", 40), Request: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	var kept []store.QueueEvent
	for i, kind := range []string{api.EventQueued, "job-done"} {
		data, err := json.Marshal(api.Event{Job: id, Kind: kind})
		if err != nil {
			t.Fatal(err)
		}
		kept = append(kept, store.QueueEvent{Seq: uint64(i + 1), Job: id, Data: data})
	}
	if err := db.AddQueueEvents(ctx, kept); err != nil {
		t.Fatal(err)
	}
	if err := db.EndQueued(ctx, id, store.QueueFinished, "", nil); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	_, c := startServer(t, func(o *Options) { o.StateDB = stateDB })
	var first string
	for n := range 2 {
		ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		var got []api.Event
		err := c.Events(ctx, id, 0, func(e api.Event) error {
			got = append(got, e)
			return nil
		})
		cancel()
		if err != nil {
			t.Fatalf("stream %d of the finished job: %v, after:\n%s", n+1, err, eventList(got))
		}
		if len(got) != 3 || got[0].Kind != api.EventQueued || got[1].Kind != "job-done" ||
			got[2].Kind != api.EventEnded || got[2].Message != store.QueueFinished {
			t.Errorf("stream %d of the finished job:\n%s\nwant its two kept events, then ended finished", n+1, eventList(got))
		}
		if n == 0 {
			first = eventList(got)
		} else if eventList(got) != first {
			t.Errorf("the second stream differs from the first:\n%s\nfirst:\n%s", eventList(got), first)
		}
	}
}
