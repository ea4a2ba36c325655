package main

import (
	"strings"
	"testing"
	"time"
)

// TestSplitTerminal: a terminal's output becomes its lines and each redraw
// of a bar, without escape sequences, each stamped when it ended.
func TestSplitTerminal(t *testing.T) {
	out := "job j1: 2 candidates\r\n\x1b[?25lcandidates 0/2 [--] 1s testing, tests ETA 4.0s\r" +
		"\x1b[Kcandidates 0/2 [--] 2s testing, tests ETA 3.0s, up to 9.0s   \r\x1b[1A\r\n\r\n"
	var n time.Duration
	got := splitTerminal(strings.NewReader(out), func() time.Duration { n += time.Second; return n })
	want := []stamped{
		{time.Second, "job j1: 2 candidates"},
		{2 * time.Second, "candidates 0/2 [--] 1s testing, tests ETA 4.0s"},
		{3 * time.Second, "candidates 0/2 [--] 2s testing, tests ETA 3.0s, up to 9.0s"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if line := parseETA(want[2]); line == nil || line.pred != 3*time.Second || !line.tests {
		t.Errorf("the bar's ETA parsed as %+v, want a tests ETA of 3s", line)
	}
}

func TestShellQuote(t *testing.T) {
	if got, want := shellQuote("it's"), `'it'\''s'`; got != want {
		t.Errorf("shellQuote = %s, want %s", got, want)
	}
}
