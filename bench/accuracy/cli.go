package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	host "github.com/optimizer-dev/optimizer/machine"
	"github.com/optimizer-dev/optimizer/proc"
)

// The optimizer flags of every job: two slots, a JSON report, no profiling
// (it would only cost time), everything else default. With --no-cache
// every trial is measured anew. An A/A candidate's binary is base's, so the
// cache would reuse an earlier trial's pairs.
var jobFlags = []string{"-j", "2", "--format", "json", "--no-profile", "--verbose", "--no-cache"}

// A workDir lays out the files of one run of the harness.
type workDir string

func (w workDir) optimizer() string { return filepath.Join(string(w), "optimizer") }
func (w workDir) repo() string      { return filepath.Join(string(w), "repo") }
func (w workDir) store() string     { return filepath.Join(string(w), "store.db") }
func (w workDir) candidates(j int) string {
	return filepath.Join(string(w), "candidates", fmt.Sprintf("job%d", j))
}
func (w workDir) log(j int) string {
	return filepath.Join(string(w), "logs", fmt.Sprintf("job%d.log", j))
}

// measure runs every planned job through the CLI, recording into one store,
// and returns the store's path.
func measure(ctx context.Context, o options, w workDir, stderr io.Writer) (string, error) {
	bin := o.Optimizer
	if bin == "" {
		bin = w.optimizer()
		if err := buildOptimizer(ctx, bin); err != nil {
			return "", err
		}
	}
	if err := writeRepo(ctx, w.repo()); err != nil {
		return "", err
	}
	jobs := plan(o.AA, o.K, o.Changes, o.PerJob, o.Seed)
	fmt.Fprintf(stderr, "accuracy: %d trials in %d jobs; work directory %s\n", o.AA+o.K*len(o.Changes), len(jobs), w)
	for i, trials := range jobs {
		if err := writeCandidates(w.candidates(i+1), trials); err != nil {
			return "", fmt.Errorf("write candidates of job %d: %w", i+1, err)
		}
		fmt.Fprintf(stderr, "accuracy: job %d/%d: %s; load %s\n", i+1, len(jobs), countKinds(trials), host.Load())
		t0 := time.Now()
		rep, err := runJob(ctx, bin, w, i+1, o.Flags)
		if err != nil {
			return "", fmt.Errorf("job %d: %w", i+1, err)
		}
		fmt.Fprintf(stderr, "accuracy: job %d/%d: %s in %s: %s\n", i+1, len(jobs), rep.Job,
			time.Since(t0).Round(time.Second), rep.verdicts())
	}
	return w.store(), nil
}

// buildOptimizer builds the CLI once, from the module the harness runs in.
func buildOptimizer(ctx context.Context, bin string) error {
	res, err := proc.Run(ctx, proc.Cmd{
		Args: []string{"go", "build", "-o", bin, "github.com/optimizer-dev/optimizer/cmd/optimizer"},
		CPU:  -1,
	})
	if err != nil {
		return fmt.Errorf("build optimizer: %w", err)
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("build optimizer: exit %d:\n%s", res.ExitCode, res.Output)
	}
	return nil
}

// jobReport is the part of the CLI's JSON report the harness reads. The
// numbers themselves are read from the store.
type jobReport struct {
	Job        string `json:"job"`
	Candidates []struct {
		Name    string `json:"name"`
		Verdict string `json:"verdict"`
	} `json:"candidates"`
}

func (r jobReport) verdicts() string {
	n := map[string]int{}
	var order []string
	for _, c := range r.Candidates {
		if n[c.Verdict] == 0 {
			order = append(order, c.Verdict)
		}
		n[c.Verdict]++
	}
	var parts []string
	for _, v := range order {
		parts = append(parts, fmt.Sprintf("%d %s", n[v], v))
	}
	return strings.Join(parts, ", ")
}

// runJob runs one optimizer job on job j's candidates, writes its combined
// output to the job's log, and returns its report.
func runJob(ctx context.Context, bin string, w workDir, j int, extra []string) (jobReport, error) {
	args := append([]string{bin, "--repo", w.repo(), "--candidates", w.candidates(j), "--db", w.store()}, jobFlags...)
	args = append(args, extra...)
	var stdout bytes.Buffer
	res, err := proc.Run(ctx, proc.Cmd{Args: args, CPU: -1, Stdout: &stdout, MaxOutput: 16 << 20})
	if err != nil {
		return jobReport{}, err
	}
	if err := os.MkdirAll(filepath.Dir(w.log(j)), 0o755); err != nil {
		return jobReport{}, err
	}
	if err := os.WriteFile(w.log(j), res.Output, 0o644); err != nil {
		return jobReport{}, err
	}
	if res.Canceled {
		return jobReport{}, ctx.Err()
	}
	if res.ExitCode != 0 {
		return jobReport{}, fmt.Errorf("optimizer exits %d (see %s)", res.ExitCode, w.log(j))
	}
	var rep jobReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		return jobReport{}, fmt.Errorf("read report: %w (see %s)", err, w.log(j))
	}
	return rep, nil
}

// countKinds says how many trials of each kind a job has.
func countKinds(trials []plannedTrial) string {
	var parts []string
	for _, k := range kinds {
		n := 0
		for _, t := range trials {
			if t.Kind == k.Name {
				n++
			}
		}
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k.Label))
		}
	}
	return strings.Join(parts, ", ")
}
