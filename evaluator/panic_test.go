package evaluator

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
)

// panicHandler is a log handler that panics on the record a candidate's
// work logs once it is staged in its slot. That is the one way into that
// work from outside, with no hook in the code.
type panicHandler struct{ candidate string }

func (h panicHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h panicHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h panicHandler) WithGroup(string) slog.Handler            { return h }

func (h panicHandler) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "candidate staged" {
		return nil
	}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "candidate" && a.Value.String() == h.candidate {
			panic("injected by panicHandler")
		}
		return true
	})
	return nil
}

// TestRun_PanicInCandidate: a panic in one candidate's work, while it holds
// the only slot, becomes that candidate's error verdict with the stack in
// the store. The slot is released, so the candidates after it still run,
// and the job finishes.
func TestRun_PanicInCandidate(t *testing.T) {
	h := newHarness(t, shellRepo)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	opts := Options{
		Candidates: []candidate.Candidate{
			filesCand("boom", map[string]string{"speed": "0.01\n"}),
			filesCand("fine", map[string]string{"speed": "0.02\n"}),
			filesCand("broken", map[string]string{"ok": "no\n"}),
		},
		Test: "sh test.sh", Bench: "none", Timeout: time.Minute, Sandbox: SandboxOff,
		Logger: slog.New(panicHandler{candidate: "boom"}),
	}
	rep, err := h.run(t, ctx, 1, opts)
	if err != nil {
		t.Fatalf("Run: %v (state %s)", err, rep.State)
	}
	if rep.State != "finished" {
		t.Fatalf("state %s, want finished", rep.State)
	}
	got := verdicts(rep)
	if got["fine"] != VerdictPassed || got["broken"] != VerdictFailed {
		t.Errorf("verdicts %v, want fine passed and broken failed after boom's panic", got)
	}
	boom := rep.Candidates[0]
	if boom.Verdict != VerdictFailed || boom.Failure == nil || boom.Failure.Kind != FailError ||
		!strings.Contains(boom.Failure.Message, "injected by panicHandler") || !strings.Contains(boom.Failure.Output, "panicHandler.Handle") {
		t.Fatalf("boom = %+v (failure %+v), want an error verdict with the panic and its stack", boom, boom.Failure)
	}
	rows, err := h.db.Candidates(ctx, rep.Job)
	if err != nil {
		t.Fatal(err)
	}
	if rows[0].Name != "boom" || !strings.Contains(string(rows[0].Failure), "panicHandler.Handle") {
		t.Errorf("the store's row of boom has no stack: %s", rows[0].Failure)
	}
}

// TestRun_EmitAfterCancel: a caller that stops reading events and cancels
// does not hold the job up: Run returns, its slots released (the harness
// checks), instead of blocking on the next event.
func TestRun_EmitAfterCancel(t *testing.T) {
	h := newHarness(t, shellRepo)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := make(chan Event)
	opts := shellOptions()
	opts.Events = events
	opts.Sandbox = SandboxOff
	done := make(chan error, 1)
	go func() {
		_, err := h.run(t, ctx, 1, opts)
		done <- err
	}()
	if e := <-events; e.Kind != EventJobStart {
		t.Fatalf("first event %s, want %s", e.Kind, EventJobStart)
	}
	cancel() // and read no more
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v, want context.Canceled", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("Run still blocked 2 minutes after cancel: emit waits for a reader that left")
	}
}
