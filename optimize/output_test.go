package optimize

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestGenerators: the flags' commands become generators, stdout ones
// first, each with the call's time limit.
func TestGenerators(t *testing.T) {
	gens := Generators([]string{"a", "b"}, []string{"c"}, time.Minute)
	want := []Generator{{Command: "a", Timeout: time.Minute}, {Command: "b", Timeout: time.Minute}, {Command: "c", Edit: true, Timeout: time.Minute}}
	if len(gens) != len(want) {
		t.Fatalf("Generators = %+v, want %+v", gens, want)
	}
	for i := range want {
		if gens[i] != want[i] {
			t.Errorf("generator %d = %+v, want %+v", i, gens[i], want[i])
		}
	}
	if gens := Generators(nil, nil, time.Minute); len(gens) != 0 {
		t.Errorf("no commands: %+v", gens)
	}
}

// TestPrintProgress: a round's line says its round; the loop's own lines
// (its targets, its end) do not.
func TestPrintProgress(t *testing.T) {
	var b strings.Builder
	p := PrintProgress(&b)
	p(0, "target sumsq.SumSquares")
	p(2, "3 candidates")
	if want := "optimize: target sumsq.SumSquares\noptimize: round 2: 3 candidates\n"; b.String() != want {
		t.Errorf("PrintProgress wrote %q, want %q", b.String(), want)
	}
}

// TestReport_WriteJSON: the report reads back from its JSON, indented.
func TestReport_WriteJSON(t *testing.T) {
	rep := &Report{Run: "run1", State: "finished", Targets: []string{"sumsq.SumSquares"}, Winner: "example-r2-1",
		Lineage: []Step{{Candidate: "example-r1-1", Mode: ModeGenerate}, {Candidate: "example-r2-1", Parent: "example-r1-1", Mode: ModeRepair}}}
	var b strings.Builder
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "{\n  \"run\": \"run1\",") {
		t.Errorf("not indented JSON:\n%s", b.String())
	}
	var back Report
	if err := json.Unmarshal([]byte(b.String()), &back); err != nil {
		t.Fatal(err)
	}
	if back.Winner != rep.Winner || len(back.Lineage) != 2 || back.Lineage[1].Parent != "example-r1-1" {
		t.Errorf("read back %+v, want %+v", back, rep)
	}
}
