package main

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// speed is the -speed mode: the wall time of a test-bound job at each -j,
// in interleaved order. The job has k passing candidates, the test command
// given, and no benchmarks. The interleaving makes a change in the
// machine's load touch every -j alike.
func speed(ctx context.Context, bin string, f fixture, dir, test string, js []int, k, reps int, stdout, stderr io.Writer) error {
	cands := filepath.Join(dir, "speed.jsonl")
	if err := f.speedCandidates(cands, k); err != nil {
		return err
	}
	walls := map[int][]int64{}
	for rep := range reps {
		order := js
		if rep%2 == 1 { // alternate the order too: -j 1, 2, then 2, 1
			order = reversed(js)
		}
		for _, j := range order {
			db := filepath.Join(dir, fmt.Sprintf("speed-%d-%d.db", rep, j)) // a new store: the baseline runs too
			start := time.Now()
			cmd := exec.CommandContext(ctx, bin, "--repo", f.dir, "--candidates", cands, "--db", db,
				"-j", strconv.Itoa(j), "--test", test, "--bench", "none", "--format", "json", "--no-cache")
			cmd.Dir = f.dir
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = io.Discard, &out
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("-j %d: %w\n%s", j, err, tail(out.String(), 2000))
			}
			d := time.Since(start)
			fmt.Fprintf(stderr, "footprint: -j %d, run %d: %.1f s\n", j, rep+1, d.Seconds())
			walls[j] = append(walls[j], d.Milliseconds())
		}
	}
	fmt.Fprintf(stdout, "Wall time of `optimizer --candidates C -j N --test '%s' --bench none` on %d tests, "+
		"%d candidates and the baseline, new store each run; runs interleaved, median of %d:\n\n", test, f.tests(), k, reps)
	fmt.Fprintf(stdout, "| -j | median | runs (s) | ratio of medians to -j %d | ratio in each repetition | median of those |\n", js[0])
	fmt.Fprintln(stdout, "|---|---|---|---|---|---|")
	first := walls[js[0]]
	for _, j := range js {
		var runs, ratios []string
		var rs []int64 // ratios in thousandths, for the median
		for i, ms := range walls[j] {
			runs = append(runs, fmt.Sprintf("%.1f", float64(ms)/1000))
			r := float64(ms) / float64(first[i])
			ratios = append(ratios, fmt.Sprintf("%.2f", r))
			rs = append(rs, int64(r*1000))
		}
		m := float64(median(walls[j]))
		fmt.Fprintf(stdout, "| %d | %.1f s | %s | %.2f× | %s | %.2f× |\n", j, m/1000, strings.Join(runs, ", "),
			m/float64(median(first)), strings.Join(ratios, ", "), float64(median(rs))/1000)
	}
	return nil
}

func reversed(s []int) []int {
	r := make([]int, len(s))
	for i, x := range s {
		r[len(s)-1-i] = x
	}
	return r
}

// parseInts reads "1,2".
func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-speed %q: want a list of positive -j values, such as 1,2", s)
		}
		out = append(out, n)
	}
	return out, nil
}
