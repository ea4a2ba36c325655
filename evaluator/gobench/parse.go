package gobench

import (
	"bufio"
	"bytes"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/perf/benchfmt"
)

// maxLine is the longest line ParseOutput considers. The benchfmt reader
// uses a bufio.Scanner, which stops at its first line over
// bufio.MaxScanTokenSize. Longer lines are dropped before they reach it, so
// that one huge log line cannot hide the results after it.
const maxLine = bufio.MaxScanTokenSize / 2

// Measurement is one metric of one benchmark result line.
type Measurement struct {
	Bench      string // benchmark name with sub-benchmark parts, without the -GOMAXPROCS suffix: "BenchmarkX/n=10"
	Unit       string // "sec/op" (ns/op is converted to seconds), "B/op", "allocs/op", or a custom unit, tidied by benchunit ("MB/s" becomes "B/s")
	Value      float64
	Iterations int64
}

// ParseOutput reads the Go benchmark result lines out of out. It may hold
// anything else too: test logs, PASS and ok lines, configuration lines such
// as "goos: linux". A line that starts like a result but does not parse, or
// whose iteration count is not positive, is skipped. So is a value that is
// not finite. Lines longer than 32 KiB are not read. Output without results
// gives an empty slice and no error.
func ParseOutput(out []byte) ([]Measurement, error) {
	return parseOutput(out, 0)
}

// parseOutput is ParseOutput for output printed with -test.cpu=procs: a
// name loses a "-procs" ending only when procs is above 1, since the
// testing package adds none at 1. With procs 0 (not known), any "-N"
// ending goes.
func parseOutput(out []byte, procs int) ([]Measurement, error) {
	lines, n := resultLines(out)
	if n == 0 {
		return nil, nil
	}
	r := benchfmt.NewReader(bytes.NewReader(lines), "output")
	ms := make([]Measurement, 0, 3*n) // most lines hold time, bytes and allocs
	names := map[string]string{}
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok || res.Iters < 1 {
			continue
		}
		ms = appendResult(ms, res, names, procs)
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	if len(ms) == 0 {
		return nil, nil
	}
	return ms, nil
}

// appendResult appends res's finite values to ms. names caches the Bench
// string of each name seen, so that a name is allocated once.
func appendResult(ms []Measurement, res *benchfmt.Result, names map[string]string, procs int) []Measurement {
	name, ok := names[string(res.Name)]
	if !ok {
		name = "Benchmark" + string(res.Name)
		switch {
		case procs == 0:
			name = "Benchmark" + string(trimProcs(res.Name))
		case procs > 1:
			name = strings.TrimSuffix(name, "-"+strconv.Itoa(procs))
		}
		names[string(res.Name)] = name
	}
	for _, v := range res.Values {
		if math.IsNaN(v.Value) || math.IsInf(v.Value, 0) {
			continue
		}
		ms = append(ms, Measurement{Bench: name, Unit: v.Unit, Value: v.Value, Iterations: int64(res.Iters)})
	}
	return ms
}

// trimProcs removes a trailing "-N" GOMAXPROCS suffix from a benchmark name.
func trimProcs(name []byte) []byte {
	for i := len(name) - 1; i >= 0; i-- {
		switch c := name[i]; {
		case c == '-' && i < len(name)-1:
			return name[:i]
		case c < '0' || c > '9':
			return name
		}
	}
	return name
}

// resultLines returns the lines of out that may be benchmark results, each
// ending in a newline, and how many there are.
func resultLines(out []byte) ([]byte, int) {
	var keep []byte
	n := 0
	for len(out) > 0 {
		var line []byte
		line, out, _ = bytes.Cut(out, []byte("\n"))
		if isResultLine(line) {
			keep = append(append(keep, line...), '\n')
			n++
		}
	}
	return keep, n
}

// isResultLine reports whether line starts with a benchmark name:
// "Benchmark" followed by anything but a lower-case letter, as the testing
// package requires, and is short enough for benchfmt.
func isResultLine(line []byte) bool {
	rest, ok := bytes.CutPrefix(line, []byte("Benchmark"))
	if !ok || len(line) > maxLine {
		return false
	}
	r, _ := utf8.DecodeRune(rest)
	return !unicode.IsLower(r)
}
