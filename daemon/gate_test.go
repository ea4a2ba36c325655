package daemon

import (
	"context"
	"testing"
)

func granted(w *waiter) bool {
	select {
	case <-w.ready:
		return true
	default:
		return false
	}
}

// TestGate_SmallJobNotStarved: a 200-candidate job submitted first holds the
// whole budget and has 198 more requests queued. A one-candidate job asks
// after them all, and still gets the next slot that frees.
func TestGate_SmallJobNotStarved(t *testing.T) {
	g := newGate(2)
	big := &gateJob{seq: 1}
	small := &gateJob{seq: 2}
	var bigWaits []*waiter
	for range 200 {
		bigWaits = append(bigWaits, g.request(big, false))
	}
	if !granted(bigWaits[0]) || !granted(bigWaits[1]) || granted(bigWaits[2]) {
		t.Fatal("the big job should hold exactly the 2 slots")
	}
	mine := g.request(small, false)
	if granted(mine) {
		t.Fatal("granted beyond the budget")
	}
	g.release(big, false) // one of the big job's tests ends
	if !granted(mine) {
		t.Fatal("the small job did not get the slot that freed: starved behind the big job's queue")
	}
	if granted(bigWaits[2]) {
		t.Error("the freed slot went to the big job too")
	}
	g.release(small, false)
	if !granted(bigWaits[2]) {
		t.Error("the big job did not get the slot back once the small job was served")
	}
}

// TestGate_ExclusiveWaitsForAll: a benchmark starts only when no slot is
// held, runs alone, goes in submission order, and holds back new behaviour
// runs while it waits.
func TestGate_ExclusiveWaitsForAll(t *testing.T) {
	g := newGate(2)
	a, b, c := &gateJob{seq: 1}, &gateJob{seq: 2}, &gateJob{seq: 3}
	w1 := g.request(a, false)
	w2 := g.request(b, false)
	exC := g.request(c, true) // c benchmarks: it must wait for both
	exB := g.request(b, true)
	if !granted(w1) || !granted(w2) || granted(exC) || granted(exB) {
		t.Fatal("a benchmark was granted beside behaviour runs")
	}
	late := g.request(a, false)
	g.release(a, false)
	if granted(late) {
		t.Error("a behaviour run started while a benchmark waited")
	}
	if granted(exB) || granted(exC) {
		t.Error("a benchmark started while a behaviour run held a slot")
	}
	g.release(b, false)
	if !granted(exB) || granted(exC) {
		t.Fatal("the benchmarks were not granted in submission order (b before c)")
	}
	g.release(b, true)
	if !granted(exC) || granted(late) {
		t.Fatal("c's benchmark should follow b's, alone")
	}
	g.release(c, true)
	if !granted(late) {
		t.Error("the behaviour run did not resume after the benchmarks")
	}
}

// TestGate_CancelledRequest: a request whose context ends is withdrawn,
// and one granted as it ends gives its grant back.
func TestGate_CancelledRequest(t *testing.T) {
	g := newGate(1)
	a, b := &gateJob{seq: 1}, &gateJob{seq: 2}
	if err := g.acquire(context.Background(), a, false); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := g.acquire(ctx, b, false); err == nil {
		t.Fatal("a cancelled request was granted beyond the budget")
	}
	next := g.request(b, false)
	g.release(a, false)
	if !granted(next) {
		t.Fatal("the withdrawn request kept its place")
	}
	if used, waiting := g.busy(); used != 1 || waiting != 0 {
		t.Errorf("used %d, waiting %d; want 1, 0", used, waiting)
	}
}

// TestGate_PerJobLimit: a job asked for at most 1 slot holds no more, even
// with the budget free.
func TestGate_PerJobLimit(t *testing.T) {
	g := newGate(3)
	a := &gateJob{seq: 1, max: 1}
	w1, w2 := g.request(a, false), g.request(a, false)
	if !granted(w1) || granted(w2) {
		t.Fatal("the job's limit of 1 slot was not kept")
	}
	g.release(a, false)
	if !granted(w2) {
		t.Error("the job's next request was not granted once it was under its limit")
	}
}
