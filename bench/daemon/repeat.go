package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/jobspec"
	"github.com/optimizer-dev/optimizer/testdata"
)

// repeatCandidates are the demo's candidates the cache can reuse (as in
// bench/cache: hang's timeout is never reused).
var repeatCandidates = []string{"fast.patch", "slower.patch", "broken.patch", "nocompile.patch"}

// benchRepeat submits the same job twice to one daemon, -reps times, each
// in a fresh copy of the fixture module (real go test runs, real Go
// benchmarks). It compares the repeat's time (submit to end) to the
// first's.
func benchRepeat(ctx context.Context, bin, dir string) error {
	d, err := startDaemon(ctx, bin, filepath.Join(dir, "daemon"), "-j", "2")
	if err != nil {
		return err
	}
	defer d.stop()
	var firsts, repeats []time.Duration
	var reused []string
	for rep := range *reps {
		repo, cands := filepath.Join(dir, fmt.Sprintf("repo%d", rep)), filepath.Join(dir, fmt.Sprintf("cands%d", rep))
		if err := fixture(ctx, repo, cands); err != nil {
			return err
		}
		req := api.JobRequest{Repo: repo, CandidatePaths: []string{cands}, Options: jobspec.Spec{NoProfile: true}}
		var took [2]time.Duration
		var verdicts [2]string
		for i := range 2 {
			t0 := time.Now()
			sub, err := d.c.Submit(ctx, req)
			if err != nil {
				return err
			}
			if err := waitEnded(ctx, d.c, sub.ID); err != nil {
				return err
			}
			took[i] = time.Since(t0)
			j, err := d.c.Job(ctx, sub.ID)
			if err != nil {
				return err
			}
			if j.State != "finished" || j.Report == nil {
				return fmt.Errorf("job %s: %s %s", sub.ID, j.State, j.Error)
			}
			var vs, rs []string
			for _, c := range j.Report.Candidates {
				vs = append(vs, c.Name+" "+string(c.Verdict))
				if i == 1 {
					r := c.Name + ":"
					if c.ReusedFrom != "" {
						r += " tests"
					}
					if c.ReusedPairs > 0 {
						r += fmt.Sprintf(" %d pairs", c.ReusedPairs)
					}
					rs = append(rs, r)
				}
			}
			verdicts[i] = strings.Join(vs, ", ")
			if i == 1 {
				reused = append(reused, strings.Join(rs, "; "))
			}
		}
		if verdicts[0] != verdicts[1] {
			return fmt.Errorf("the repeat's verdicts differ: %s, then %s", verdicts[0], verdicts[1])
		}
		fmt.Fprintf(os.Stderr, "repeat %d: first %v, repeat %v (%s)\n", rep, took[0].Round(time.Millisecond), took[1].Round(time.Millisecond), verdicts[1])
		firsts, repeats = append(firsts, took[0]), append(repeats, took[1])
	}
	mf, mr := median(firsts), median(repeats)
	fmt.Printf("## Repeated identical submission (the fixture module, the demo's fast, slower, broken and nocompile)\n\n")
	fmt.Printf("| | median | runs |\n|---|---:|---|\n")
	fmt.Printf("| first submission, submit → end | %v | %v |\n", mf.Round(time.Millisecond), rounded(firsts))
	fmt.Printf("| identical repeat, submit → end | %v | %v |\n", mr.Round(time.Millisecond), rounded(repeats))
	fmt.Printf("| ratio repeat / first | %.3f | |\n\n", mr.Seconds()/mf.Seconds())
	for i, r := range reused {
		fmt.Printf("- repeat %d reused: %s\n", i, r)
	}
	fmt.Println()
	return nil
}

// fixture writes the fixture module as a repository, and the candidates.
func fixture(ctx context.Context, repo, cands string) error {
	if err := testdata.WriteFixture(repo); err != nil {
		return err
	}
	if _, err := testdata.InitRepo(ctx, repo); err != nil {
		return err
	}
	if err := os.MkdirAll(cands, 0o755); err != nil {
		return err
	}
	for _, name := range repeatCandidates {
		f, err := testdata.Demo.Open(name)
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		buf.ReadFrom(f)
		f.Close()
		if err := os.WriteFile(filepath.Join(cands, name), buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
