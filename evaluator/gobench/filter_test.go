package gobench

import (
	"slices"
	"testing"
)

func TestFilter_Match(t *testing.T) {
	for _, tt := range []struct {
		expr string
		name string
		want bool
	}{
		{"BenchmarkOps/(Prev|Next)", "BenchmarkOps/Prev", true},
		{"BenchmarkOps/(Prev|Next)", "BenchmarkOps/Next/deep", true},
		{"BenchmarkOps/(Prev|Next)", "BenchmarkOps/Seek", false},
		{"BenchmarkOps/(Prev|Next)", "BenchmarkOps", false}, // fewer levels: only run to find subs
		{"BenchmarkOps/(Prev|Next)", "BenchmarkOther/Prev", false},
		{"Ops", "BenchmarkOps/Seek", true},         // one level: every sub-benchmark
		{"Prev", "BenchmarkOps/Prev", false},       // a part matches its own level only
		{"BenchmarkX/[a/b]", "BenchmarkX/a", true}, // a slash in a class does not split
		{"BenchmarkX/(a/b|c)", "BenchmarkX/c", true},
		{"^BenchmarkX$/^n=10$", "BenchmarkX/n=10", true},
		{"^BenchmarkX$/^n=10$", "BenchmarkX/n=100", false},
		{"BenchmarkA/x|BenchmarkB/y", "BenchmarkB/y", true}, // alternatives, as in Go
		{"BenchmarkA/x|BenchmarkB/y", "BenchmarkB/x", false},
		{"BenchmarkA/(x|y)", "BenchmarkA/y", true},
	} {
		f, err := NewFilter(tt.expr)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Match(tt.name); got != tt.want {
			t.Errorf("Filter(%q).Match(%q) = %v, want %v", tt.expr, tt.name, got, tt.want)
		}
	}
}

func TestFilter_Errors(t *testing.T) {
	if _, err := NewFilter("BenchmarkX/(a"); err == nil {
		t.Fatal("no error for a part that does not compile")
	}
}

func TestFilter_Pattern(t *testing.T) {
	f, err := NewFilter("Ops/(Prev|Next)")
	if err != nil {
		t.Fatal(err)
	}
	if !f.MatchTop("BenchmarkOps") || f.MatchTop("BenchmarkSeek") {
		t.Errorf("MatchTop: want BenchmarkOps and not BenchmarkSeek")
	}
	if got, want := f.Pattern("BenchmarkOps"), "^BenchmarkOps$/(Prev|Next)"; got != want {
		t.Errorf("Pattern = %q, want %q", got, want)
	}
	if got, want := (*Filter)(nil).Pattern("BenchmarkOps"), "^BenchmarkOps$"; got != want {
		t.Errorf("nil Pattern = %q, want %q", got, want)
	}
	if got, want := Pattern("BenchmarkX/n=1.5"), `^BenchmarkX$/^n=1\.5(-[0-9]+)?$`; got != want {
		t.Errorf("Pattern = %q, want %q", got, want)
	}
	if got := splitLevels(`A/[/]/(b/c)/d\/e`); !slices.Equal(got, []string{"A", "[/]", "(b/c)", `d\/e`}) {
		t.Errorf("splitLevels = %q", got)
	}
}
