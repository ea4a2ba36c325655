package gotest

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestExcerpt(t *testing.T) {
	lines := func(prefix string, n int) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(prefix + strings.Repeat("x", i%3) + "\n")
		}
		return b.String()
	}
	for _, tt := range []struct {
		name   string
		writes []string
		want   string
	}{
		{"Empty", nil, ""},
		{"PartialLines", []string{"a_te", "st.go:1: b", "ad\nsecond"}, "a_test.go:1: bad\nsecond"},
		{"Framing", []string{"=== RUN   TestA\n=== PAUSE TestA\n=== CONT  TestA\n=== NAME  TestA\nreal\n"}, "real"},
		{"LongLine", []string{"f.go:1: " + strings.Repeat("z", 2*MaxExcerptLine) + "\n"}, "f.go:1: " + strings.Repeat("z", MaxExcerptLine-8) + "…"},
		{"HeadAndTail", []string{"first.go:1: x\n", lines("mid", 100), "last.go:2: y\n"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var e excerpt
			for _, w := range tt.writes {
				e.write(w)
			}
			got := e.String()
			if tt.want != "" || tt.name == "Empty" {
				if got != tt.want {
					t.Errorf("got %q, want %q", got, tt.want)
				}
				return
			}
			ls := strings.Split(got, "\n")
			if ls[0] != "first.go:1: x" || ls[len(ls)-1] != "last.go:2: y" || !slices.ContainsFunc(ls, func(l string) bool { return strings.Contains(l, "lines cut") }) {
				t.Errorf("got %q", got)
			}
			if len(ls) > ExcerptHeadLines+ExcerptTailLines+1 || len(got) > MaxExcerpt {
				t.Errorf("kept %d lines, %d bytes", len(ls), len(got))
			}
		})
	}
}

func TestExcerpt_UTF8(t *testing.T) {
	var e excerpt
	e.write(strings.Repeat("é", MaxExcerptLine) + "\n")
	if got := e.String(); !utf8.ValidString(got) || !strings.HasSuffix(got, "é…") {
		t.Errorf("a cut line holds broken UTF-8 or lost its marker: %q", got[len(got)-8:])
	}
}
