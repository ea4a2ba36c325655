package benchformat

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// TestParse_Outputs reads every output in testdata (README.md says which
// the tools wrote), detects its format, and checks what is read against
// testdata/NAME.golden.
func TestParse_Outputs(t *testing.T) {
	for _, tt := range []struct {
		file string
		want Format
	}{
		{"pytest-benchmark.json", PytestBenchmark},
		{"google-benchmark.json", GoogleBenchmark},
		{"hyperfine.json", Hyperfine},
		{"vitest.json", Vitest},
		{"tinybench.json", Tinybench},
		{"criterion-bencher.txt", Criterion},
		{"libtest-bencher.txt", Criterion},
		{"criterion/sum/loop/1000/new/estimates.json", Criterion},
		{"jmh.json", JMH},
	} {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			f, ms, err := Parse(data, filepath.Join("target", tt.file), "", Options{})
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if f != tt.want {
				t.Errorf("detected %q, want %q", f, tt.want)
			}
			var b strings.Builder
			for _, m := range ms {
				fmt.Fprintf(&b, "%s\t%.4g %s\t%d\n", m.Bench, m.Value, m.Unit, m.Iterations)
			}
			golden := filepath.Join("testdata", strings.NewReplacer("/", "-").Replace(tt.file)+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to write it)", err)
			}
			if got := b.String(); got != string(want) {
				t.Errorf("%s differs; got:\n%s\nwant:\n%s", golden, got, want)
			}
		})
	}
}

// TestParse_GoogleBenchmark checks the rules on the real output: the
// median of the repetitions' per-iteration real_time, aggregates skipped,
// cpu_time when asked.
func TestParse_GoogleBenchmark(t *testing.T) {
	data, err := os.ReadFile("testdata/google-benchmark.json")
	if err != nil {
		t.Fatal(err)
	}
	_, wall, err := Parse(data, "", GoogleBenchmark, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, cpu, err := Parse(data, "", GoogleBenchmark, Options{CPU: true})
	if err != nil {
		t.Fatal(err)
	}
	// BM_Total/100's three repetitions ran 572.08, 366.19 and 415.14 ns
	// real, 52.19, 45.86 and 51.14 ns CPU.
	if len(wall) != 2 || wall[0].Bench != "BM_Total/100" || !near(wall[0].Value, 415.14e-9) {
		t.Errorf("wall = %+v, want BM_Total/100 at the median real_time 415.14ns, and one more", wall)
	}
	if len(cpu) != 2 || !near(cpu[0].Value, 51.14e-9) {
		t.Errorf("cpu = %+v, want BM_Total/100 at the median cpu_time 51.14ns", cpu)
	}
	for _, m := range wall {
		if strings.Contains(m.Bench, "_mean") || strings.Contains(m.Bench, "_median") {
			t.Errorf("an aggregate was read: %s", m.Bench)
		}
	}
}

// TestParse_AmidLogs: the JSON may follow a tool's log lines, as when
// stderr shares the stream.
func TestParse_AmidLogs(t *testing.T) {
	data, err := os.ReadFile("testdata/hyperfine.json")
	if err != nil {
		t.Fatal(err)
	}
	mixed := append([]byte("Benchmark 1: ./bench\n  Time (mean ± σ): 131.3 ms ± 50.9 ms\n[not json\n"), data...)
	f, ms, err := Parse(mixed, "", "", Options{})
	if err != nil || f != Hyperfine || len(ms) != 2 {
		t.Fatalf("Parse = %q, %v, %v; want hyperfine's two commands", f, ms, err)
	}
	if !near(ms[0].Value, 0.127816339) {
		t.Errorf("first command's median = %g, want 0.127816339", ms[0].Value)
	}
}

// TestParse_Failures: results that cannot be judged are errors that say
// why, and output of no known format is no error.
func TestParse_Failures(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   string
		f    Format
		want string
	}{
		{"GoogleError", `{"context":{},"benchmarks":[{"name":"BM_X","run_type":"iteration","error_occurred":true,"error_message":"bad input"}]}`, "", "bad input"},
		{"HyperfineExit", `{"results":[{"command":"./x","times":[0.1],"exit_codes":[1]}]}`, "", "exited 1"},
		{"JMHUnit", `[{"benchmark":"a.B.c","primaryMetric":{"score":3,"scoreUnit":"bogus"}}]`, "", "bogus"},
		{"Empty", `{"machine_info":{},"benchmarks":[]}`, "", ErrNoBenchmarks.Error()},
		{"ForcedNoJSON", "hello\n", PytestBenchmark, "no JSON found"},
		{"ForcedWrongShape", `{"results":[]}`, Vitest, ErrNoBenchmarks.Error()},
		{"NaN", `{"benchmarks":[{"name":"t","stats":{"median":"NaN"}}],"machine_info":{}}`, "", "no usable"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, ms, err := Parse([]byte(tt.in), "", tt.f, Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse = %v, %v; want an error with %q", ms, err, tt.want)
			}
		})
	}
	f, ms, err := Parse([]byte("all done in 3s\n{\"unrelated\": true}\n"), "", "", Options{})
	if f != "" || ms != nil || err != nil {
		t.Errorf("Parse(unknown) = %q, %v, %v; want nothing", f, ms, err)
	}
	if _, _, err := Parse([]byte(`{"machine_info":{},"benchmarks":[]}`), "", "", Options{}); !errors.Is(err, ErrNoBenchmarks) {
		t.Errorf("err = %v, want ErrNoBenchmarks", err)
	}
}

// TestParse_Go: Go's own lines, through gobench.
func TestParse_Go(t *testing.T) {
	out := "goos: linux\nBenchmarkSum-2   \t 1000\t  1234 ns/op\t  16 B/op\t 1 allocs/op\nPASS\n"
	f, ms, err := Parse([]byte(out), "", "", Options{})
	if err != nil || f != Go || len(ms) != 3 || ms[0].Bench != "BenchmarkSum" || ms[0].Unit != "sec/op" || !near(ms[0].Value, 1234e-9) {
		t.Errorf("Parse = %q, %+v, %v; want BenchmarkSum at 1234ns/op with B/op and allocs/op", f, ms, err)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-4*math.Abs(b) }

func FuzzParse(f *testing.F) {
	for _, name := range []string{"hyperfine.json", "jmh.json", "criterion-bencher.txt", "libtest-bencher.txt", "tinybench.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		_, ms, err := Parse(in, "", "", Options{})
		if err != nil {
			return
		}
		for _, m := range ms {
			if m.Unit == Unit && !usable(m.Value) {
				t.Errorf("unusable time read: %+v", m)
			}
		}
	})
}
