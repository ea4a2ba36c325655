// Command cache measures the result cache: the same job run twice through
// the CLI, each rep in a fresh repository and store. The job is the fixture
// module with the demo's fast, slower, broken and nocompile candidates (real
// go test runs, real Go benchmarks). It prints each rep's first and
// repeated wall time, what the repeat reused, and the medians and their
// ratio, in Markdown.
//
//	go run ./bench/cache                  # 3 reps, a few minutes on 2 cores
//	go run ./bench/cache -reps 5 -profile # the winner profiled in both runs
//	go run ./bench/cache -bin /tmp/old    # another build of the CLI
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/testdata"
)

var (
	reps    = flag.Int("reps", 3, "first-and-repeat pairs, each in a fresh repository and store")
	profile = flag.Bool("profile", false, "profile the winner (the profile is not cached: a repeat profiles again)")
	keep    = flag.Bool("keep-slots", false, "run both jobs with --keep-slots, so the repeat adopts warm slots")
	work    = flag.String("work", "", "keep the repositories and stores in this directory")
	binary  = flag.String("bin", "", "run this optimizer binary instead of building ./cmd/optimizer (to measure another version)")
)

// candidates are the demo's candidates that the cache can reuse: hang's
// timeout is never reused, so it would be timed out again in every repeat.
var candidates = []string{"fast.patch", "slower.patch", "broken.patch", "nocompile.patch"}

type report struct {
	Job        string `json:"job"`
	Candidates []struct {
		Name        string `json:"name"`
		Verdict     string `json:"verdict"`
		Pairs       int    `json:"pairs"`
		ReusedFrom  string `json:"reused_from"`
		ReusedPairs int    `json:"reused_pairs"`
	} `json:"candidates"`
}

func main() {
	flag.Parse()
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "cache:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	dir := *work
	if dir == "" {
		d, err := os.MkdirTemp("", "bench-cache-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	bin := *binary
	if bin == "" {
		bin = filepath.Join(dir, "optimizer")
		if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/optimizer").CombinedOutput(); err != nil {
			return fmt.Errorf("build the CLI: %v\n%s", err, out)
		}
	}
	var firsts, repeats []float64
	fmt.Println("| rep | first | repeat | ratio | repeat reused |")
	fmt.Println("|---|---|---|---|---|")
	for i := range *reps {
		first, repeat, reused, err := rep(ctx, bin, filepath.Join(dir, fmt.Sprintf("rep%d", i)))
		if err != nil {
			return fmt.Errorf("rep %d: %w", i, err)
		}
		firsts, repeats = append(firsts, first.Seconds()), append(repeats, repeat.Seconds())
		fmt.Printf("| %d | %.2fs | %.2fs | %.3f× | %s |\n", i, first.Seconds(), repeat.Seconds(), repeat.Seconds()/first.Seconds(), reused)
	}
	mf, mr := median(firsts), median(repeats)
	fmt.Printf("\nmedian of %d: first %.2fs, repeat %.2fs, repeat/first %.3f× (target < 0.05×)\n", *reps, mf, mr, mr/mf)
	return nil
}

// rep makes a fresh fixture repository and store in dir, runs the job, then
// the same job again, and returns both wall times and what the repeat reused.
func rep(ctx context.Context, bin, dir string) (time.Duration, time.Duration, string, error) {
	repo, cands := filepath.Join(dir, "repo"), filepath.Join(dir, "candidates")
	if err := testdata.WriteFixture(repo); err != nil {
		return 0, 0, "", err
	}
	if _, err := testdata.InitRepo(ctx, repo); err != nil {
		return 0, 0, "", err
	}
	if err := os.MkdirAll(cands, 0o755); err != nil {
		return 0, 0, "", err
	}
	for _, name := range candidates {
		b, err := testdata.Demo.Open(name)
		if err != nil {
			return 0, 0, "", err
		}
		var buf bytes.Buffer
		buf.ReadFrom(b)
		b.Close()
		if err := os.WriteFile(filepath.Join(cands, name), buf.Bytes(), 0o644); err != nil {
			return 0, 0, "", err
		}
	}
	args := []string{"--repo", repo, "--candidates", cands, "--db", filepath.Join(dir, "optimizer.db"), "-j", "2", "--format", "json"}
	if !*profile {
		args = append(args, "--no-profile")
	}
	if *keep {
		args = append(args, "--keep-slots")
	}
	first, r1, err := job(ctx, bin, args)
	if err != nil {
		return 0, 0, "", err
	}
	repeat, r2, err := job(ctx, bin, args)
	if err != nil {
		return 0, 0, "", err
	}
	var reused []string
	for i, c := range r2.Candidates {
		if c.Verdict != r1.Candidates[i].Verdict {
			return 0, 0, "", fmt.Errorf("%s: %s in the repeat, %s first", c.Name, c.Verdict, r1.Candidates[i].Verdict)
		}
		s := c.Name + ": "
		if c.ReusedFrom == r1.Job {
			s += "tests"
		} else {
			s += "tests run again"
		}
		if c.Pairs > 0 {
			s += fmt.Sprintf(", %d of %d pairs", c.ReusedPairs, c.Pairs)
		}
		reused = append(reused, s)
	}
	return first, repeat, strings.Join(reused, "; "), nil
}

// job runs the CLI once and returns its wall time and report.
func job(ctx context.Context, bin string, args []string) (time.Duration, *report, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if err != nil {
		return 0, nil, fmt.Errorf("optimizer %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	var r report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		return 0, nil, fmt.Errorf("read the report: %w", err)
	}
	return took, &r, nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
