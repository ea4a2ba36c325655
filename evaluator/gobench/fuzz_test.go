package gobench

import (
	"reflect"
	"strings"
	"testing"
)

// FuzzParseOutput checks that no output makes ParseOutput panic or fail,
// that every measurement is well formed, and that output written to a
// resultWriter in pieces gives the same measurements. The first byte picks
// the piece size.
func FuzzParseOutput(f *testing.F) {
	f.Add([]byte("\x05BenchmarkX-2 \t 100\t 5 ns/op\t 8 B/op\t 1 allocs/op\nPASS\n"))
	f.Add([]byte("\x01goos: linux\nBenchmarkX/n=1-4 1 1e3 ns/op 1 MB/s\nBenchmarkX 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		size := 1
		if len(data) > 0 {
			size, data = int(data[0])+1, data[1:]
		}
		whole, err := ParseOutput(data)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range whole {
			if !strings.HasPrefix(m.Bench, "Benchmark") || m.Unit == "" || m.Iterations < 1 {
				t.Fatalf("ill-formed measurement %+v", m)
			}
		}
		var w resultWriter
		for b := data; len(b) > 0; {
			n := min(size, len(b))
			w.Write(b[:n])
			b = b[n:]
		}
		pieces, err := ParseOutput(w.bytes())
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(whole, pieces) {
			t.Fatalf("whole and in pieces of %d differ:\n%+v\n%+v", size, whole, pieces)
		}
	})
}
