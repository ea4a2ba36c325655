package gobench

import (
	"bytes"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestParseOutput(t *testing.T) {
	type m = Measurement
	for _, tt := range []struct {
		name string
		out  string
		want []Measurement
	}{
		{"Plain", "BenchmarkSumSquares 1000 1234567 ns/op 80 B/op 2 allocs/op\n", []Measurement{
			{"BenchmarkSumSquares", "sec/op", 1234567e-9, 1000},
			{"BenchmarkSumSquares", "B/op", 80, 1000},
			{"BenchmarkSumSquares", "allocs/op", 2, 1000},
		}},
		{"Procs", "BenchmarkSumSquares-2   \t    1000\t   1234567 ns/op\t  80 B/op\t   2 allocs/op\n", []Measurement{
			{"BenchmarkSumSquares", "sec/op", 1234567e-9, 1000},
			{"BenchmarkSumSquares", "B/op", 80, 1000},
			{"BenchmarkSumSquares", "allocs/op", 2, 1000},
		}},
		{"Bare", "Benchmark-8 10 5 ns/op\n", []Measurement{{"Benchmark", "sec/op", 5e-9, 10}}},
		{"Sub", "BenchmarkX/n=10-4 50 2.5 ns/op\nBenchmarkX/n=100/deep_name-4 5 25 ns/op\n", []Measurement{
			{"BenchmarkX/n=10", "sec/op", 2.5e-9, 50},
			{"BenchmarkX/n=100/deep_name", "sec/op", 25e-9, 5},
		}},
		{"CustomUnits", "BenchmarkRead-2 100 1000 ns/op 512.50 MB/s 3 frobs/op 0.5 hits\n", []Measurement{
			{"BenchmarkRead", "sec/op", 1e-6, 100},
			{"BenchmarkRead", "B/s", 512.5e6, 100},
			{"BenchmarkRead", "frobs/op", 3, 100},
			{"BenchmarkRead", "hits", 0.5, 100},
		}},
		{"Noise", strings.Join([]string{
			"goos: linux",
			"goarch: amd64",
			"pkg: example.com/m/a",
			"cpu: Some CPU @ 2.00GHz",
			"=== RUN   TestX",
			"    a_test.go:12: a log line",
			"BenchmarkA",
			"BenchmarkA-2   \t     200\t      6000 ns/op",
			"--- BENCH: BenchmarkA-2",
			"    a_test.go:30: logged",
			"Benchmarking is fun: 3 ns/op",
			"Unit ns/op assume=exact",
			"PASS",
			"ok  \texample.com/m/a\t1.234s",
		}, "\n"), []Measurement{{"BenchmarkA", "sec/op", 6e-6, 200}}},
		{"CRLF", "BenchmarkA 3 4 ns/op\r\nBenchmarkB 5 6 ns/op", []Measurement{
			{"BenchmarkA", "sec/op", 4e-9, 3},
			{"BenchmarkB", "sec/op", 6e-9, 5},
		}},
		{"Malformed", strings.Join([]string{
			"BenchmarkNoIters",
			"BenchmarkNoValues 100",
			"BenchmarkBadIters x 5 ns/op",
			"BenchmarkBadValue 100 five ns/op",
			"BenchmarkNoUnit 100 5",
			"BenchmarkZero 0 5 ns/op",
			"BenchmarkNegative -3 5 ns/op",
			"BenchmarkNaN 10 NaN ns/op 7 B/op",
			"BenchmarkGood 10 5 ns/op",
		}, "\n"), []Measurement{
			{"BenchmarkNaN", "B/op", 7, 10},
			{"BenchmarkGood", "sec/op", 5e-9, 10},
		}},
		{"LongLine", strings.Repeat("x", 1<<20) + "\nBenchmark" + strings.Repeat("Y", maxLine) + " 1 1 ns/op\nBenchmarkA 1 2 ns/op\n",
			[]Measurement{{"BenchmarkA", "sec/op", 2e-9, 1}}},
		{"Empty", "", nil},
		{"NoLines", "PASS\nok  \texample.com/m\t0.01s\n", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseOutput([]byte(tt.out))
			if err != nil {
				t.Fatal(err)
			}
			if !sameMeasurements(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestResultWriter checks that output written in pieces of any size keeps
// the same results as output at rest, and that a line cut across writes is
// kept whole.
func TestResultWriter(t *testing.T) {
	out := []byte("goos: linux\nBenchmarkA-2 \t 10\t 5 ns/op\n" + strings.Repeat("noise\n", 100) +
		"BenchmarkB/x=1 20 6 ns/op 7 B/op\nBenchmarkC 1 2 ns/op")
	want, _ := ParseOutput(out)
	for _, size := range []int{1, 2, 7, 64, len(out)} {
		var w resultWriter
		for b := out; len(b) > 0; {
			n := min(size, len(b))
			w.Write(b[:n])
			b = b[n:]
		}
		got, _ := ParseOutput(w.bytes())
		if !reflect.DeepEqual(got, want) {
			t.Errorf("in pieces of %d: got %+v\nwant %+v", size, got, want)
		}
	}
}

// sameMeasurements reports whether a and b hold the same measurements, with
// values equal up to rounding: ParseOutput scales ns to seconds.
func sameMeasurements(a, b []Measurement) bool {
	return slices.EqualFunc(a, b, func(x, y Measurement) bool {
		return x.Bench == y.Bench && x.Unit == y.Unit && x.Iterations == y.Iterations &&
			math.Abs(x.Value-y.Value) <= 1e-12*math.Abs(y.Value)
	})
}

func BenchmarkParseOutput(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString("goos: linux\ngoarch: amd64\npkg: example.com/m\ncpu: Some CPU\n")
	for i := range 100 {
		buf.WriteString("BenchmarkSumSquares/n=10-2   \t    1000\t   1234567 ns/op\t  80 B/op\t   2 allocs/op\n")
		if i%10 == 0 {
			buf.WriteString("--- BENCH: BenchmarkSumSquares/n=10-2\n    x_test.go:12: logged\n")
		}
	}
	buf.WriteString("PASS\nok  \texample.com/m\t1.234s\n")
	out := buf.Bytes()
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		if ms, err := ParseOutput(out); err != nil || len(ms) != 300 {
			b.Fatalf("got %d measurements, %v", len(ms), err)
		}
	}
}
