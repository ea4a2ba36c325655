package gotest

import (
	"reflect"
	"strings"
	"testing"
)

// FuzzParse checks that any stream parses without panicking, that the Run
// keeps its invariants, that output stays capped, and that the pieces the
// stream arrives in do not matter. The first byte picks the piece size.
func FuzzParse(f *testing.F) {
	f.Add([]byte("\x03" + `{"Action":"run","Package":"p","Test":"TestA"}` + "\n" + `{"Action":"fail","Package":"p","Test":"TestA"}` + "\n"))
	f.Add([]byte("\x01# p\nx.go:1: bad\nFAIL\tp [build failed]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		size := 1
		if len(data) > 0 {
			size, data = int(data[0])+1, data[1:]
		}
		whole, err := parse(strings.NewReader(string(data)))
		if err != nil {
			t.Fatal(err)
		}
		p := NewParser()
		for b := data; len(b) > 0; {
			n := min(size, len(b))
			p.Write(b[:n])
			b = b[n:]
		}
		pieces := p.Result()
		if !reflect.DeepEqual(whole, pieces) {
			t.Fatalf("whole and in pieces of %d differ:\n%s\n---\n%s", size, dump(whole), dump(pieces))
		}
		if whole.Passed+whole.Failed+whole.Skipped != len(whole.Tests) {
			t.Fatalf("counts do not add up: %s", dump(whole))
		}
		for _, pkg := range whole.BuildFailed {
			if whole.Tests[pkg] != StatusFail {
				t.Fatalf("build-failed %q is %q", pkg, whole.Tests[pkg])
			}
		}
		for key, out := range whole.Output {
			if whole.Tests[key] != StatusFail {
				t.Fatalf("output kept for %q, which is %q", key, whole.Tests[key])
			}
			if len(out) > MaxExcerpt+(ExcerptHeadLines+ExcerptTailLines+2)*len("…")+64 {
				t.Fatalf("output of %q holds %d bytes", key, len(out))
			}
		}
		if d := Compare(whole, whole); len(d.Regressed)+len(d.BuildFailed) > 0 {
			t.Fatalf("a run regresses against itself: %+v", d)
		}
	})
}
