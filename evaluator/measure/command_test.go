package measure

import (
	"context"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/gobench"
	"github.com/optimizer-dev/optimizer/proc"
)

// fakeCommand is a bench command that prints out and takes wall per side.
type fakeCommand struct {
	dir   string
	out   [2]string
	wall  [2]time.Duration
	limit time.Duration // the timeout of the last run
}

func (f *fakeCommand) run(_ context.Context, sd Side, timeout time.Duration, stdout io.Writer) (string, proc.Result, error) {
	f.limit = timeout
	io.WriteString(stdout, f.out[sd])
	return f.dir, proc.Result{Output: []byte(f.out[sd]), Wall: f.wall[sd], CPU: f.wall[sd] / 2,
		TimedOut: f.wall[sd] > timeout, ExitCode: map[bool]int{true: -1, false: 0}[f.wall[sd] > timeout]}, nil
}

// TestCommand_Metrics: printed Go benchmark lines are the metrics, those
// the filter selects; without them the command's time is.
func TestCommand_Metrics(t *testing.T) {
	filter, err := gobench.NewFilter("BenchmarkA")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeCommand{out: [2]string{"BenchmarkA 1 300 ns/op\nBenchmarkB 1 5 ns/op\n", "BenchmarkA 1 100 ns/op\n"},
		wall: [2]time.Duration{time.Second, time.Second}}
	c := &Command{Run: f.run, Timeout: time.Minute, Filter: filter}
	ms, err := c.Sample(context.Background(), Base)
	if err != nil || len(ms) != 1 || ms[0].Bench != "BenchmarkA" || !near(ms[0].Value, 300e-9) || ms[0].Unit != "sec/op" {
		t.Fatalf("base: %+v, %v; want BenchmarkA's 300 ns/op alone", ms, err)
	}
	f.out = [2]string{"done\n", "done\n"}
	c = &Command{Run: f.run, Timeout: time.Minute, Results: Results{CPU: true}, Warn: func(context.Context, string, string) {}}
	ms, err = c.Sample(context.Background(), Cand)
	if err != nil || len(ms) != 1 || ms[0].Unit != "sec" || ms[0].Value != 0.5 {
		t.Fatalf("no benchmark lines: %+v, %v; want the CPU time, 0.5 sec", ms, err)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Abs(b) }

// TestCommand_FilterMatchesNone: a filter that selects nothing base
// prints stops the job, not only the candidate.
func TestCommand_FilterMatchesNone(t *testing.T) {
	filter, err := gobench.NewFilter("BenchmarkZ")
	if err != nil {
		t.Fatal(err)
	}
	var stopped error
	f := &fakeCommand{out: [2]string{"BenchmarkA 1 300 ns/op\n"}}
	c := &Command{Run: f.run, Timeout: time.Minute, Filter: filter, Stop: func(err error) { stopped = err }}
	if _, err := c.Sample(context.Background(), Base); !errors.Is(err, ErrBenchFilter) || stopped != err {
		t.Fatalf("err %v, stopped with %v; want ErrBenchFilter for both", err, stopped)
	}
	if !strings.Contains(stopped.Error(), "BenchmarkA") {
		t.Errorf("%v does not list what the command prints", stopped)
	}
}

// TestCommand_TooSlow: a candidate's run is bounded by base's longest
// time, and one past it is too slow, not a timeout of the command.
func TestCommand_TooSlow(t *testing.T) {
	f := &fakeCommand{out: [2]string{"ok\n", "ok\n"}, wall: [2]time.Duration{time.Second, time.Hour}}
	c := &Command{Run: f.run, Timeout: 2 * time.Hour, Warn: func(context.Context, string, string) {}}
	if _, err := c.Sample(context.Background(), Base); err != nil {
		t.Fatal(err)
	}
	_, err := c.Sample(context.Background(), Cand)
	if want := SlowFactor*time.Second + SlowGrace; f.limit != want || !errors.Is(err, ErrTooSlow) {
		t.Errorf("candidate ran with timeout %s, err %v; want %s and ErrTooSlow", f.limit, err, want)
	}
}

// TestCommand_SelfTimed: a command whose output looks self-calibrated is
// warned of, and its time is still the metric.
func TestCommand_SelfTimed(t *testing.T) {
	var kinds []string
	f := &fakeCommand{out: [2]string{"1000 loops, best of 5: 234 usec per loop\n"}, wall: [2]time.Duration{time.Second}}
	c := &Command{Run: f.run, Timeout: time.Minute, Warn: func(_ context.Context, kind, _ string) { kinds = append(kinds, kind) }}
	if ms, err := c.Sample(context.Background(), Base); err != nil || len(ms) != 1 || ms[0].Unit != "sec" {
		t.Fatalf("%+v, %v", ms, err)
	}
	if len(kinds) != 1 || kinds[0] != "self-timed" {
		t.Errorf("warnings %q, want one self-timed", kinds)
	}
}

// TestResults_Reports: results are read from the report files when there
// are patterns, and a missing report is an error naming them.
func TestResults_Reports(t *testing.T) {
	dir := t.TempDir()
	r := Results{Reports: []string{"out/*.txt"}}
	if _, err := r.Read(dir, nil, nil); err == nil || !strings.Contains(err.Error(), "wrote no report (out/*.txt)") {
		t.Errorf("no report: %v", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "out", "b.txt"), []byte("BenchmarkX 10 42 ns/op\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ms, err := r.Read(dir, []byte("BenchmarkStdout 1 1 ns/op\n"), nil)
	if err != nil || len(ms) != 1 || ms[0].Bench != "BenchmarkX" || !near(ms[0].Value, 42e-9) {
		t.Errorf("%+v, %v; want BenchmarkX's 42 ns/op from the report", ms, err)
	}
}
