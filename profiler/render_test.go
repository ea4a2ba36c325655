package profiler

import (
	"github.com/rogpeppe/go-internal/diff"

	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it):\n%s", name, diff.Diff("want", want, "got", got))
	}
}

func TestSummary_Write(t *testing.T) {
	base, cand := synthProfiles(t, "")
	s, err := Summarize(base, cand, synthOptions())
	if err != nil {
		t.Fatal(err)
	}
	s.Alloc = &AllocSummary{SampleType: "alloc_space", Bytes: Counts{Base: 3 << 30, Cand: 1536},
		Top: []FuncRow{{Func: "m.Slow", File: "calc.go", Line: 3, Flat: Share{90, 0}, Cum: &Share{90, 0}, Changed: true},
			{Func: OtherRow, Flat: Share{10, 100}}}}
	s.Warnings = []string{"the winner profile has only 60 samples: shares are rough"}
	for _, tt := range []struct {
		name  string
		write func(*Summary, *bytes.Buffer) error
	}{
		{"summary.txt.golden", func(s *Summary, b *bytes.Buffer) error { return s.WriteText(b) }},
		{"summary.md.golden", func(s *Summary, b *bytes.Buffer) error { return s.WriteMarkdown(b) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tt.write(s, &b); err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name, b.Bytes())
		})
	}
	t.Run("Nil", func(t *testing.T) {
		var b bytes.Buffer
		var s *Summary
		if err := s.WriteText(&b); err != nil || b.Len() != 0 {
			t.Errorf("WriteText on nil: %v, %q", err, b.String())
		}
		if err := s.WriteMarkdown(&b); err != nil || b.Len() != 0 {
			t.Errorf("WriteMarkdown on nil: %v, %q", err, b.String())
		}
	})
	t.Run("Elided", func(t *testing.T) {
		rows := []LineRow{{Func: "m.F", File: "f.go", BaseLine: 1, CandLine: 1, Text: "func F() {"},
			{Func: "m.F", File: "f.go", BaseLine: 30, CandLine: 30, Text: "\tx++", Cum: Share{5, 1}},
			{Func: "m.F", File: "f.go", BaseLine: 60, CandLine: 60, Text: "}"}}
		var b bytes.Buffer
		writeLines(&b, rows, "")
		if got := strings.Count(b.String(), "…"); got != 4 {
			t.Errorf("%d ellipses, want two gap rows:\n%s", got, b.String())
		}
	})
}
