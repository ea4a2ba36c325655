package measure

import (
	"fmt"
	"math"
	"regexp"
	"strconv"

	"github.com/optimizer-dev/optimizer/stats"
)

// A generic bench command is judged by its wall (or CPU) time unless it
// prints Go benchmark lines. Two mistakes make that judgement meaningless,
// and timeCheck looks for both in the samples of one candidate:
//   - a command that times itself and calibrates its own loop count runs
//     for about the same time whatever the code does. One such is python -m
//     timeit: "1000 loops, best of 5: 234 usec per loop";
//   - so does any command whose printed numbers change while its run time
//     does not.

// selfCalibrated matches the output of the common self-timing tools.
var selfCalibrated = regexp.MustCompile(`(?m)\d+ loops?, best of \d+|\bper loop\b|Time \(mean ± σ\)|Mean \+- std dev|\brounds\b.*\bmean\b`)

// number matches a decimal number in a command's output.
var number = regexp.MustCompile(`[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?`)

// maxNumbers bounds the numbers kept of one sample's output.
const maxNumbers = 16

// timeCheck collects what the checks need from each sample.
type timeCheck struct {
	times [2][]float64   // per side: the judged time of each sample
	nums  [2][][]float64 // per side: the numbers each sample printed
	done  bool           // warned, or judged fine
}

// add records one sample of side sd.
func (b *timeCheck) add(sd Side, seconds float64, output []byte) {
	b.times[sd] = append(b.times[sd], seconds)
	var ns []float64
	for _, m := range number.FindAll(output, maxNumbers) {
		if v, err := strconv.ParseFloat(string(m), 64); err == nil {
			ns = append(ns, v)
		}
	}
	b.nums[sd] = append(b.nums[sd], ns)
}

// verdict returns a warning, or "" otherwise, once there are at least
// minPairs samples of each side. It warns when a printed number differs by
// more than a fifth between the sides while the time hardly moves. It
// decides once.
func (b *timeCheck) verdict(minPairs int) string {
	if b.done || len(b.times[Base]) < minPairs || len(b.times[Cand]) < minPairs {
		return ""
	}
	b.done = true
	ratio := stats.Median(b.times[Base]) / stats.Median(b.times[Cand])
	moved := math.Abs(math.Log(ratio))
	n := min(minLen(b.nums[Base]), minLen(b.nums[Cand]))
	for i := range n {
		base, cand := column(b.nums[Base], i), column(b.nums[Cand], i)
		if base <= 0 || cand <= 0 {
			continue
		}
		// The number moved by more than a fifth, and the time stayed within
		// 10% or moved less than a third as far. That is in log terms: a
		// loaded machine blurs the time, not a 100× printed change.
		printed := math.Abs(math.Log(base / cand))
		if printed > math.Log(1.2) && (moved < math.Log(1.10) || moved < printed/3) {
			return fmt.Sprintf("the bench command runs for about the same time on base and candidate (%.2f×), "+
				"but a number it prints differs (%s against %s): time is what is judged. If the command times itself, "+
				"print its result as a Go benchmark line, such as \"BenchmarkX 1 %s ns/op\", and that is judged instead",
				ratio, strconv.FormatFloat(base, 'g', 4, 64), strconv.FormatFloat(cand, 'g', 4, 64), strconv.FormatFloat(cand, 'g', 4, 64))
		}
	}
	return ""
}

// selfTimed says whether a command's output looks like a self-calibrating
// timer's, and names what was seen.
func selfTimed(output []byte) (string, bool) {
	m := selfCalibrated.Find(output)
	return string(m), m != nil
}

func minLen(rows [][]float64) int {
	if len(rows) == 0 {
		return 0
	}
	n := math.MaxInt
	for _, r := range rows {
		n = min(n, len(r))
	}
	return n
}

// column is the median of the i-th number of every row.
func column(rows [][]float64, i int) float64 {
	v := make([]float64, len(rows))
	for k, r := range rows {
		v[k] = r[i]
	}
	return stats.Median(v)
}
