// Package benchformat reads the results that common benchmark tools write,
// so that a --bench command's own per-iteration times are judged, never the
// process's wall time.
//
// # What flows through it
//
// The bench command's stdout, or a report file it writes, goes into [Parse]
// with a [Format] ("" detects it: [Detect]). Out come [Measurement]s, one
// per benchmark, each a time per iteration in seconds ("sec/op"), which the
// evaluator judges as it judges a Go benchmark's ns/op. One run of the
// command is one sample; within it, the value is the tool's robust centre
// of the iterations it timed:
//
//   - pytest-benchmark JSON (--benchmark-json): stats.median of each
//     benchmark, in seconds.
//   - Google Benchmark JSON (--benchmark_format=json or --benchmark_out):
//     the median, over repetitions, of real_time of the "iteration"
//     entries. It reads cpu_time when CPU time is asked for. Aggregates
//     (mean, median, stddev, cv, BigO) are skipped.
//   - criterion: the bencher lines of --output-format bencher ("test NAME
//     ... bench: 1,234 ns/iter (+/- 5)"), which cargo bench on nightly's
//     libtest prints too. Or an estimates.json, whose median.point_estimate
//     (ns) is read and whose name is its directory below "criterion/".
//   - vitest bench JSON (--outputJson): each benchmark's median, in ms.
//   - tinybench: a JSON array of tasks, {name, result} as bench.tasks
//     holds them (result.latency.p50 from tinybench 3 on, result.median
//     before), in ms.
//   - hyperfine JSON (--export-json): the median of times per command, in
//     seconds (user+system with CPU time).
//   - JMH JSON (-rf json): the median of primaryMetric.rawData, converted
//     to seconds per operation; throughput modes are inverted.
//   - Go benchmark lines, through gobench.
package benchformat

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/optimizer-dev/optimizer/evaluator/gobench"
)

// Format names a benchmark output format.
type Format string

// The formats.
const (
	Go              Format = "go"
	PytestBenchmark Format = "pytest-benchmark"
	GoogleBenchmark Format = "google-benchmark"
	Criterion       Format = "criterion"
	Vitest          Format = "vitest"
	Tinybench       Format = "tinybench"
	Hyperfine       Format = "hyperfine"
	JMH             Format = "jmh"
)

// Formats lists every format, in the order --help names them.
var Formats = []Format{Go, PytestBenchmark, GoogleBenchmark, Criterion, Vitest, Tinybench, Hyperfine, JMH}

// Valid reports whether f is a known format ("" is not).
func Valid(f Format) bool { return slices.Contains(Formats, f) }

// Unit is the unit of every timed Measurement.
const Unit = "sec/op"

// Measurement is one benchmark's result in one run of a bench command.
type Measurement struct {
	Bench      string
	Unit       string // Unit, or for Go output what gobench reads (B/op, allocs/op, custom units)
	Value      float64
	Iterations int64 // iterations behind Value, when the tool says; else 1
}

// Options change what is read.
type Options struct {
	// CPU reads CPU time where the format has it (Google Benchmark's
	// cpu_time, hyperfine's user+system); elsewhere wall time is read.
	CPU bool
}

// ErrNoBenchmarks is returned for output of a known format that holds no
// benchmark result.
var ErrNoBenchmarks = errors.New("no benchmark results")

// Parse reads data, which a file named name held ("" for a command's
// output), in format f, or in the format Detect finds when f is "". It
// returns the format read; "" with no error when f is "" and data is in no
// known format.
func Parse(data []byte, name string, f Format, opt Options) (Format, []Measurement, error) {
	if f == "" {
		f = Detect(data)
		if f == "" {
			return "", nil, nil
		}
	}
	var ms []Measurement
	var err error
	switch f {
	case Go:
		ms, err = parseGo(data)
	case Criterion:
		if v, ok := jsonValue(data); ok {
			ms, err = parseEstimates(v, name)
		} else {
			ms, err = parseBencher(data)
		}
	default:
		v, ok := jsonValue(data)
		if !ok {
			return f, nil, fmt.Errorf("read %s output: no JSON found", f)
		}
		switch f {
		case PytestBenchmark:
			ms, err = parsePytest(v)
		case GoogleBenchmark:
			ms, err = parseGoogle(v, opt)
		case Vitest:
			ms, err = parseVitest(v)
		case Tinybench:
			ms, err = parseTinybench(v)
		case Hyperfine:
			ms, err = parseHyperfine(v, opt)
		case JMH:
			ms, err = parseJMH(v)
		default:
			return f, nil, fmt.Errorf("unknown benchmark format %q", f)
		}
	}
	if err != nil {
		return f, nil, fmt.Errorf("read %s output: %w", f, err)
	}
	if len(ms) == 0 {
		return f, nil, fmt.Errorf("read %s output: %w", f, ErrNoBenchmarks)
	}
	return f, ms, nil
}

// Detect names the format of data: by the shape of the first JSON value
// that starts a line, else by its text lines; "" when none is known.
func Detect(data []byte) Format {
	if v, ok := jsonValue(data); ok {
		return detectJSON(v)
	}
	if bencherLine.Match(data) {
		return Criterion
	}
	if ms, _ := gobench.ParseOutput(data); len(ms) > 0 {
		return Go
	}
	return ""
}

func detectJSON(v any) Format {
	switch v := v.(type) {
	case map[string]any:
		switch {
		case has(v, "machine_info") || firstHas(v["benchmarks"], "stats"):
			return PytestBenchmark
		case firstHas(v["benchmarks"], "run_type") || firstHas(v["benchmarks"], "real_time"):
			return GoogleBenchmark
		case firstHas(v["results"], "times") || firstHas(v["results"], "command"):
			return Hyperfine
		case firstHas(v["files"], "groups"):
			return Vitest
		case isEstimate(v["median"]) || isEstimate(v["mean"]):
			return Criterion
		}
	case []any:
		switch {
		case firstHas(v, "primaryMetric"):
			return JMH
		case firstHas(v, "result") || firstHas(v, "latency"):
			return Tinybench
		}
	}
	return ""
}

func has(m map[string]any, k string) bool { _, ok := m[k]; return ok }

// firstHas says whether v is an array whose first element is an object
// with key k.
func firstHas(v any, k string) bool {
	a, ok := v.([]any)
	if !ok || len(a) == 0 {
		return false
	}
	m, ok := a[0].(map[string]any)
	return ok && has(m, k)
}

func isEstimate(v any) bool {
	m, ok := v.(map[string]any)
	return ok && has(m, "point_estimate")
}

// maxJSONStarts bounds the lines tried as the start of a JSON value.
const maxJSONStarts = 64

// jsonValue decodes the first JSON object or array in data that starts a
// line (after spaces). Tools print logs around their JSON, on stderr that
// shares the stream or before it.
func jsonValue(data []byte) (any, bool) {
	tries := 0
	for off := 0; off < len(data) && tries < maxJSONStarts; {
		line := data[off:]
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i+1]
		}
		t := bytes.TrimLeft(line, " \t\r")
		if len(t) > 0 && (t[0] == '{' || t[0] == '[') {
			tries++
			d := json.NewDecoder(bytes.NewReader(data[off+len(line)-len(t):]))
			d.UseNumber()
			var v any
			if d.Decode(&v) == nil {
				switch v.(type) {
				case map[string]any, []any:
					return v, true
				}
			}
		}
		off += len(line)
	}
	return nil, false
}

// num reads a JSON number or numeric string; NaN when v is neither.
func num(v any) float64 {
	switch v := v.(type) {
	case json.Number:
		f, err := v.Float64()
		if err == nil {
			return f
		}
	case string:
		f, err := strconv.ParseFloat(v, 64)
		if err == nil {
			return f
		}
	case float64:
		return v
	}
	return math.NaN()
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func arr(v any) []any {
	a, _ := v.([]any)
	return a
}

// usable says whether a time is a finite positive number.
func usable(v float64) bool { return v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) }

func median(v []float64) float64 {
	s := slices.Clone(v)
	sort.Float64s(s)
	n := len(s)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// timeScale is the number of seconds in one of unit.
func timeScale(unit string) (float64, bool) {
	switch strings.TrimSpace(unit) {
	case "ns":
		return 1e-9, true
	case "us", "µs", "μs":
		return 1e-6, true
	case "ms":
		return 1e-3, true
	case "s", "sec":
		return 1, true
	case "min":
		return 60, true
	}
	return 0, false
}

func parseGo(data []byte) ([]Measurement, error) {
	ms, err := gobench.ParseOutput(data)
	if err != nil {
		return nil, err
	}
	out := make([]Measurement, len(ms))
	for i, m := range ms {
		out[i] = Measurement{Bench: m.Bench, Unit: m.Unit, Value: m.Value, Iterations: m.Iterations}
	}
	return out, nil
}

func parsePytest(v any) ([]Measurement, error) {
	var out []Measurement
	for _, b := range arr(obj(v)["benchmarks"]) {
		bm := obj(b)
		name := str(bm["fullname"])
		if name == "" {
			name = str(bm["name"])
		}
		st := obj(bm["stats"])
		val := num(st["median"])
		if !usable(val) {
			return nil, fmt.Errorf("benchmark %q: no usable stats.median", name)
		}
		iters := int64(num(st["iterations"]) * num(st["rounds"]))
		out = append(out, Measurement{Bench: name, Unit: Unit, Value: val, Iterations: max(iters, 1)})
	}
	return out, nil
}

func parseGoogle(v any, opt Options) ([]Measurement, error) {
	key := "real_time"
	if opt.CPU {
		key = "cpu_time"
	}
	vals := map[string][]float64{}
	iters := map[string]int64{}
	var order []string
	for _, b := range arr(obj(v)["benchmarks"]) {
		bm := obj(b)
		name := str(bm["run_name"])
		if name == "" {
			name = str(bm["name"])
		}
		if e, _ := bm["error_occurred"].(bool); e {
			return nil, fmt.Errorf("benchmark %q: %s", name, str(bm["error_message"]))
		}
		if rt := str(bm["run_type"]); rt != "" && rt != "iteration" {
			continue // an aggregate over repetitions: mean, median, stddev, cv, BigO
		}
		scale, ok := timeScale(str(bm["time_unit"]))
		if !ok && str(bm["time_unit"]) == "" {
			scale, ok = 1e-9, true // the library's default unit
		}
		t := num(bm[key]) * scale
		if !ok || !usable(t) {
			return nil, fmt.Errorf("benchmark %q: no usable %s (time_unit %q)", name, key, str(bm["time_unit"]))
		}
		if _, seen := vals[name]; !seen {
			order = append(order, name)
		}
		vals[name] = append(vals[name], t)
		iters[name] += int64(num(bm["iterations"]))
	}
	out := make([]Measurement, 0, len(order))
	for _, name := range order {
		out = append(out, Measurement{Bench: name, Unit: Unit, Value: median(vals[name]), Iterations: max(iters[name], 1)})
	}
	return out, nil
}

// bencherLine matches libtest's bencher format, which criterion writes with
// --output-format bencher: "test NAME ... bench:   1,234 ns/iter (+/- 56)".
var bencherLine = regexp.MustCompile(`(?m)^test (.+?)\s+\.\.\. bench:\s+([0-9][0-9,]*(?:\.[0-9]+)?) (ns|us|µs|ms|s)/iter`)

func parseBencher(data []byte) ([]Measurement, error) {
	var out []Measurement
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		m := bencherLine.FindSubmatch(sc.Bytes())
		if m == nil {
			continue
		}
		v, err := strconv.ParseFloat(strings.ReplaceAll(string(m[2]), ",", ""), 64)
		scale, _ := timeScale(string(m[3]))
		if err != nil || !usable(v) {
			continue
		}
		out = append(out, Measurement{Bench: string(m[1]), Unit: Unit, Value: v * scale, Iterations: 1})
	}
	return out, sc.Err()
}

// parseEstimates reads criterion's estimates.json; name is its path, such
// as target/criterion/sum/loop/1000/new/estimates.json, and the benchmark is
// named by the directories between criterion/ and new/ ("sum/loop/1000").
func parseEstimates(v any, name string) ([]Measurement, error) {
	est := obj(obj(v)["median"])
	val := num(est["point_estimate"]) * 1e-9
	if !usable(val) {
		return nil, errors.New("estimates.json: no usable median.point_estimate")
	}
	return []Measurement{{Bench: criterionName(name), Unit: Unit, Value: val, Iterations: 1}}, nil
}

func criterionName(p string) string {
	p = path.Clean(strings.ReplaceAll(p, `\`, "/"))
	dir := path.Dir(p) // …/criterion/GROUP/BENCH/new
	if b := path.Base(dir); b == "new" || b == "base" || b == "change" {
		dir = path.Dir(dir)
	}
	if i := strings.LastIndex(dir, "criterion/"); i >= 0 {
		return dir[i+len("criterion/"):]
	}
	if dir == "." || dir == "/" {
		return "estimates"
	}
	return path.Base(dir)
}

func parseVitest(v any) ([]Measurement, error) {
	var out []Measurement
	for _, f := range arr(obj(v)["files"]) {
		for _, g := range arr(obj(f)["groups"]) {
			group := str(obj(g)["fullName"])
			for _, b := range arr(obj(g)["benchmarks"]) {
				bm := obj(b)
				name := str(bm["name"])
				if group != "" {
					name = group + " > " + name
				}
				val := num(bm["median"])
				if !usable(val) {
					val = num(bm["mean"])
				}
				if !usable(val) {
					return nil, fmt.Errorf("benchmark %q: no usable median or mean", name)
				}
				n := int64(num(bm["sampleCount"]))
				out = append(out, Measurement{Bench: name, Unit: Unit, Value: val * 1e-3, Iterations: max(n, 1)})
			}
		}
	}
	return out, nil
}

func parseTinybench(v any) ([]Measurement, error) {
	var out []Measurement
	for _, t := range arr(v) {
		tm := obj(t)
		name := str(tm["name"])
		res := obj(tm["result"])
		if res == nil {
			res = tm // a task's result spread beside its name
		}
		if e := res["error"]; e != nil {
			return nil, fmt.Errorf("task %q failed: %v", name, e)
		}
		val, n := math.NaN(), int64(1)
		if lat := obj(res["latency"]); lat != nil { // tinybench 3 and later
			val, n = num(lat["p50"]), int64(num(lat["samplesCount"]))
			if !usable(val) {
				val = num(lat["mean"])
			}
		} else { // tinybench 2
			val = num(res["median"])
			if !usable(val) {
				val = num(res["mean"])
			}
			if s := arr(res["samples"]); len(s) > 0 {
				n = int64(len(s))
			}
		}
		if !usable(val) {
			return nil, fmt.Errorf("task %q: no usable latency", name)
		}
		out = append(out, Measurement{Bench: name, Unit: Unit, Value: val * 1e-3, Iterations: max(n, 1)})
	}
	return out, nil
}

func parseHyperfine(v any, opt Options) ([]Measurement, error) {
	var out []Measurement
	for _, r := range arr(obj(v)["results"]) {
		rm := obj(r)
		name := str(rm["command"])
		for _, c := range arr(rm["exit_codes"]) {
			if code := num(c); code != 0 && !math.IsNaN(code) {
				return nil, fmt.Errorf("command %q exited %v in a run", name, c)
			}
		}
		var times []float64
		for _, t := range arr(rm["times"]) {
			times = append(times, num(t))
		}
		val := median(times)
		if !usable(val) {
			val = num(rm["median"])
		}
		if opt.CPU {
			val = num(rm["user"]) + num(rm["system"])
		}
		if !usable(val) {
			return nil, fmt.Errorf("command %q: no usable time", name)
		}
		out = append(out, Measurement{Bench: name, Unit: Unit, Value: val, Iterations: int64(max(len(times), 1))})
	}
	return out, nil
}

func parseJMH(v any) ([]Measurement, error) {
	var out []Measurement
	for _, b := range arr(v) {
		bm := obj(b)
		name := str(bm["benchmark"]) + jmhParams(obj(bm["params"]))
		pm := obj(bm["primaryMetric"])
		var raw []float64
		for _, fork := range arr(pm["rawData"]) {
			for _, x := range arr(fork) {
				raw = append(raw, num(x))
			}
		}
		score := median(raw)
		if !usable(score) {
			score = num(pm["score"])
		}
		val, err := jmhSeconds(score, str(pm["scoreUnit"]))
		if err != nil {
			return nil, fmt.Errorf("benchmark %q: %w", name, err)
		}
		out = append(out, Measurement{Bench: name, Unit: Unit, Value: val, Iterations: int64(max(len(raw), 1))})
	}
	return out, nil
}

// jmhParams is "(k=v,…)" of a benchmark's @Param values, sorted by key.
func jmhParams(p map[string]any) string {
	if len(p) == 0 {
		return ""
	}
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + fmt.Sprint(p[k])
	}
	return "(" + strings.Join(parts, ",") + ")"
}

// jmhSeconds turns a JMH score into seconds per operation: "ns/op" is a
// time, "ops/ms" a throughput, which is inverted.
func jmhSeconds(score float64, unit string) (float64, error) {
	if !usable(score) {
		return 0, fmt.Errorf("no usable score")
	}
	if t, ok := strings.CutSuffix(unit, "/op"); ok {
		if s, ok := timeScale(t); ok {
			return score * s, nil
		}
	}
	if t, ok := strings.CutPrefix(unit, "ops/"); ok {
		if s, ok := timeScale(t); ok {
			return s / score, nil
		}
	}
	return 0, fmt.Errorf("score unit %q is neither a time per op nor ops per time", unit)
}
