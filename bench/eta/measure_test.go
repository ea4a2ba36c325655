package main

import (
	"testing"
	"time"
)

func sec(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// A job of 2 candidates: tests end at 10 s, the last verdict at 20 s.
var testLog = []stamped{
	{sec(0), "job 1: 2 candidates"},
	{sec(0.5), "phase: behavior"},
	{sec(2), "[1/2] a: failed (test) 2.0s, tests ETA 8.0s"},      // right: 8 s left
	{sec(6), "[1/2] testing b (6.0s), tests ETA 16s, up to 20s"}, // wrong: 4 s left
	{sec(10), "phase: benchmark"},                                // the 16 s line is over here
	{sec(10), "[1/2] b: benchmark"},                              // no ETA in phase 2 until…
	{sec(15), "[1/2] b: benchmark, 3 pairs, ETA 6.0s"},           // right (1.2×): 5 s left
	{sec(20), "[2/2] b: faster 2.00× [1.90×, 2.10×] 10s"},        // the last verdict
	{sec(20), "[2/2] b: profile"},
}

func TestMeasure(t *testing.T) {
	tl, ok := findTimeline(testLog)
	if !ok || tl.start != 0 || tl.testsEnd != sec(10) || tl.last != sec(20) {
		t.Fatalf("timeline %+v (ok %v), want 0, 10s, 20s", tl, ok)
	}
	etas := etaLines(testLog, tl)
	if len(etas) != 3 {
		t.Fatalf("%d ETA lines, want 3", len(etas))
	}
	s := summarize(etas)
	if s.n != 3 || s.within != 2 || s.worst != 4 || s.median != 1.2 || s.inMost != 3 {
		t.Errorf("per line %+v, want 3, 2 within, worst 4, median 1.2, all 3 within their most", s)
	}
	if !etas[0].verdict || etas[1].verdict || etas[2].verdict {
		t.Errorf("verdict lines: %v %v %v, want only the first", etas[0].verdict, etas[1].verdict, etas[2].verdict)
	}
	ph := overTime(etas, tl)
	// Tests: none shown for 2 s; 2–6 s the 8 s line counts down, right;
	// 6–10 s the 16 s line says 16→12 against 4→0 left, wrong, and more
	// than a second off. Benchmarks: none for 5 s; then 6→1 against 5→0
	// left, within 1.5× for 3 s and a second off all 5 s.
	want := []phase{
		{name: "tests", from: 0, to: sec(10), within: sec(4), outside: sec(4), none: sec(2), near: sec(4)},
		{name: "benchmarks", from: sec(10), to: sec(20), within: sec(3), outside: sec(2), none: sec(5), near: sec(5)},
	}
	for i, p := range ph {
		w := want[i]
		if p.name != w.name || p.from != w.from || p.to != w.to || p.within.Round(sec(0.1)) != w.within ||
			p.outside.Round(sec(0.1)) != w.outside || p.none.Round(sec(0.1)) != w.none || p.near.Round(sec(0.1)) != w.near {
			t.Errorf("phase %d: %+v, want %+v", i, p, w)
		}
	}
}
