package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/client"
	"github.com/optimizer-dev/optimizer/jobspec"
	"github.com/optimizer-dev/optimizer/machine"
	"github.com/optimizer-dev/optimizer/store"
)

// TestServer_Cancel: DELETE kills a running job's processes, releases its
// slots and leaves it cancelled; a second DELETE is a conflict.
func TestServer_Cancel(t *testing.T) {
	repo := shellRepo(t)
	marks := t.TempDir()
	srv, c := startServer(t, allowUnsandboxed)
	ctx := context.Background()
	// The candidate's test records its PID and sleeps; base's passes.
	test := `if [ -f cand ]; then echo $$ >> ` + marks + `/pids; exec sleep 300; fi; true`
	sub, err := c.Submit(ctx, api.JobRequest{Repo: repo,
		Candidates: []json.RawMessage{inline(t, "slow", map[string]string{"cand": "1\n"})},
		Options:    jobspec.Spec{Test: test, Bench: "none", Sandbox: "off"}})
	if err != nil {
		t.Fatal(err)
	}
	// Wait, on the event stream, until the candidate's test has started.
	sctx, stop := context.WithTimeout(ctx, time.Minute)
	defer stop()
	errStarted := errors.New("started")
	err = c.Events(sctx, sub.ID, 0, func(e api.Event) error {
		if e.Kind == "start" && e.Candidate == "slow" {
			return errStarted
		}
		return nil
	})
	if !errors.Is(err, errStarted) {
		t.Fatalf("the candidate never started: %v", err)
	}
	var pid int
	for pid == 0 && sctx.Err() == nil { // the shell writes its PID as it starts
		b, _ := os.ReadFile(filepath.Join(marks, "pids"))
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		if pid == 0 {
			time.Sleep(20 * time.Millisecond) // polling a file another process writes
		}
	}
	j, err := c.Cancel(ctx, sub.ID)
	if err != nil {
		t.Fatal(err)
	}
	if j.State != store.QueueCancelled {
		t.Errorf("state after cancel = %s, want cancelled", j.State)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("the cancelled job's test process %d still runs", pid)
	}
	if used, waiting := srv.gate.busy(); used != 0 || waiting != 0 {
		t.Errorf("after cancel the gate has %d slots held, %d waiting", used, waiting)
	}
	for repo, st := range srv.pools.stats() {
		if st.InUse != 0 {
			t.Errorf("pool of %s has %d slots lent after cancel", repo, st.InUse)
		}
	}
	var apiErr *api.Error
	if _, err := c.Cancel(ctx, sub.ID); !errors.As(err, &apiErr) || apiErr.Status != 409 {
		t.Errorf("second cancel: %v, want 409", err)
	}
}

// TestServer_SecondDaemonRefused: a daemon on a socket that answers
// refuses to start; one on a dead daemon's socket takes it over.
func TestServer_SecondDaemonRefused(t *testing.T) {
	srv, _ := startServer(t, nil)
	ctx := context.Background()
	second, err := New(ctx, Options{Socket: srv.opts.Socket, StateDB: filepath.Join(t.TempDir(), "d.db"), Slots: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := second.Run(ctx); !errors.Is(err, ErrSocketInUse) {
		t.Errorf("second daemon on the same socket: %v, want ErrSocketInUse", err)
	}

	// A stale socket: bound, then its listener gone without unlinking it.
	dir, _ := os.MkdirTemp("", "ods")
	defer os.RemoveAll(dir)
	stale := filepath.Join(dir, "d.sock")
	ln, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	_, c := startServer(t, func(o *Options) { o.Socket = stale })
	if _, err := c.Health(ctx); err != nil {
		t.Errorf("the daemon did not take over the stale socket: %v", err)
	}
	fi, err := os.Stat(stale)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %v, want 0600", fi.Mode().Perm())
	}
}

func TestCheckListen(t *testing.T) {
	for _, tt := range []struct {
		addr   string
		remote bool
		ok     bool
	}{
		{"127.0.0.1:7070", false, true},
		{"[::1]:7070", false, true},
		{"localhost:7070", false, true},
		{"0.0.0.0:7070", false, false},
		{"192.168.1.5:7070", false, false},
		{"0.0.0.0:7070", true, true},
		{"7070", false, false},
	} {
		err := checkListen(tt.addr, tt.remote)
		if (err == nil) != tt.ok {
			t.Errorf("checkListen(%q, %v) = %v, want ok=%v", tt.addr, tt.remote, err, tt.ok)
		}
	}
}

// TestBroker_SlowReader: a subscriber that never reads does not block
// Publish; it is cut off, and resumes from its last id.
func TestBroker_SlowReader(t *testing.T) {
	b := NewBroker(0)
	b.Open("j")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	slow, err := b.Subscribe(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range subBuffer + 10 {
		b.Publish(api.Event{Job: "j", Kind: "sample", Index: i})
	}
	n := 0
	for range slow {
		n++
	}
	if n != subBuffer {
		t.Errorf("the slow reader got %d events before it was cut off, want its buffer, %d", n, subBuffer)
	}
	again, err := b.Subscribe(ctx, "j", uint64(n))
	if err != nil {
		t.Fatal(err)
	}
	b.Publish(api.Event{Job: "j", Kind: api.EventEnded})
	var got []api.Event
	for e := range again {
		got = append(got, e)
	}
	if len(got) != 11 || got[0].Seq != uint64(n+1) || got[10].Kind != api.EventEnded {
		t.Errorf("resumed after %d: %d events, first %+v; want the 10 missed and the end", n, len(got), got[0])
	}
}

// TestServer_ClientDisconnect: a client that drops its event stream does
// not affect the job, and a new stream resumes after its Last-Event-ID.
func TestServer_ClientDisconnect(t *testing.T) {
	repo := shellRepo(t)
	_, c := startServer(t, nil)
	ctx := context.Background()
	sub, err := c.Submit(ctx, api.JobRequest{Repo: repo,
		Candidates: []json.RawMessage{inline(t, "a", map[string]string{"lib.txt": "x\n"}), inline(t, "b", map[string]string{"lib.txt": "y\n"})},
		Options:    jobspec.Spec{Test: shellTest, Bench: "none"}})
	if err != nil {
		t.Fatal(err)
	}
	var first api.Event
	errGot := errors.New("got one")
	err = c.Events(ctx, sub.ID, 0, func(e api.Event) error { first = e; return errGot })
	if !errors.Is(err, errGot) {
		t.Fatal(err)
	}
	rest := waitEnded(t, c, sub.ID) // a new connection, from the start
	resumed := waitEnded(t, c, sub.ID)
	if len(rest) < 3 || rest[0].Seq != first.Seq {
		t.Fatalf("a new stream from 0 should replay everything: %d events, first %d", len(rest), rest[0].Seq)
	}
	var after []api.Event
	err = c.Events(ctx, sub.ID, first.Seq, func(e api.Event) error { after = append(after, e); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(rest)-1 || after[0].Seq != rest[1].Seq {
		t.Errorf("resumed after %d: %d events from %d, want %d from %d", first.Seq, len(after), after[0].Seq, len(rest)-1, rest[1].Seq)
	}
	if len(resumed) != len(rest) {
		t.Errorf("two full streams differ: %d and %d events", len(rest), len(resumed))
	}
	j, err := c.Job(ctx, sub.ID)
	if err != nil || j.State != store.QueueFinished {
		t.Errorf("job after its client left: %+v, %v; want finished", j.State, err)
	}
}

// TestServer_SocketDirNotPrivate: a socket directory that others may write
// to could hold someone else's socket in the daemon's place; neither the
// daemon nor a client uses one.
func TestServer_SocketDirNotPrivate(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "d.sock")
	ctx := context.Background()
	srv, err := New(ctx, Options{Socket: sock, StateDB: filepath.Join(t.TempDir(), "d.db"), Slots: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Run returns at once when it refuses; the timeout only bounds a
	// daemon that wrongly starts.
	rctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	err = srv.Run(rctx)
	if err == nil || !strings.Contains(err.Error(), "may be written by others") {
		t.Fatalf("daemon on a world-writable socket directory: %v, want a refusal naming it", err)
	}
	if _, err := os.Lstat(sock); !os.IsNotExist(err) {
		t.Errorf("a socket was made in the open directory: %v", err)
	}

	// A socket someone else put there: the client does not dial it.
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dialled := make(chan struct{}, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			dialled <- struct{}{}
			c.Close()
		}
	}()
	if _, err := client.New(sock).Health(ctx); err == nil || !strings.Contains(err.Error(), "may be written by others") {
		t.Errorf("client health on an open directory's socket: %v, want a refusal", err)
	}
	select {
	case <-dialled:
		t.Error("the client connected to a socket in a directory others may write to")
	default:
	}
}

func TestServer_AutoSlots(t *testing.T) {
	srv, _ := startServer(t, func(o *Options) { o.Slots = 0 })
	if got, want := srv.opts.Slots, AutoSlots(machine.Read()); got != want || got < 1 {
		t.Errorf("slot budget with Slots 0 = %d, want AutoSlots = %d (at least 1)", got, want)
	}
	for _, tt := range []struct {
		name string
		m    machine.Info
		want int
	}{
		{"OneCPU", machine.Info{CPUs: 1}, 1},
		{"TwoCPUs", machine.Info{CPUs: 2}, 2}, // any test command: at least 2
		{"EightCPUs", machine.Info{CPUs: 8}, 7},
		{"MemoryShort", machine.Info{CPUs: 8, MemAvail: 3 << 30}, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := AutoSlots(tt.m); got != tt.want {
				t.Errorf("AutoSlots(%+v) = %d, want %d", tt.m, got, tt.want)
			}
		})
	}
	if _, err := New(t.Context(), Options{Socket: "x.sock", StateDB: filepath.Join(t.TempDir(), "d.db"), Slots: -1}); err == nil {
		t.Error("New with Slots -1: no error")
	}
}
