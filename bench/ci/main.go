// Command ci compares optimizer ci with the gate most Go projects build by
// hand: `go test -bench -count=6` on the base, then on the head, and
// benchstat. Both judge the same pull requests of the fixture module, on
// the same machine, one after the other. The harness prints a Markdown
// table of what each concluded and how long it took (docs/ci.md).
//
// The pull requests are the demo's fast and slower patches, and an A/A
// change that only edits a comment. The A/A one is the case where a gate
// that compares two runs made at different moments reports a regression
// that is not there.
//
//	go run ./bench/ci                # every pull request once
//	go run ./bench/ci -reps 3 -keep  # three rounds; keep the work directory
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/testdata"
)

// pr is one pull request of the fixture: a patch from the demo, or an edit.
type pr struct {
	name  string
	patch string            // a demo patch file, or ""
	edit  map[string]string // path -> text appended, when patch is ""
}

var prs = []pr{
	{name: "fast", patch: "fast.patch"},
	{name: "slower", patch: "slower.patch"},
	{name: "comment-only", edit: map[string]string{"sumsq/sumsq.go": "\n// A comment: the code is unchanged.\n"}},
}

func main() {
	reps := flag.Int("reps", 1, "rounds over the pull requests")
	keep := flag.Bool("keep", false, "keep the work directory and print its path")
	flag.Parse()
	if err := run(context.Background(), *reps, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "bench/ci:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, reps int, keep bool) error {
	work, err := os.MkdirTemp("", "optimizer-bench-ci-")
	if err != nil {
		return err
	}
	if keep {
		fmt.Fprintln(os.Stderr, "work directory:", work)
	} else {
		defer os.RemoveAll(work)
	}
	bin := filepath.Join(work, "bin")
	for _, pkg := range []string{"./cmd/optimizer", "golang.org/x/perf/cmd/benchstat"} {
		if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin+"/", pkg).CombinedOutput(); err != nil {
			return fmt.Errorf("build %s: %w\n%s", pkg, err, out)
		}
	}
	repo := filepath.Join(work, "repo")
	if err := makeRepo(ctx, repo); err != nil {
		return err
	}
	host, _ := os.Hostname()
	fmt.Printf("Machine: %s, %d CPUs, %s. Each row is one run; both tools ran one after the other.\n\n", host, numCPU(), time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Println("| pull request | optimizer ci | time | go test -bench -count=6 ×2 + benchstat | time |")
	fmt.Println("|---|---|---:|---|---:|")
	for r := 0; r < reps; r++ {
		for _, p := range prs {
			ours, oursTime, err := optimizerCI(ctx, bin, repo, work, p.name)
			if err != nil {
				return fmt.Errorf("%s: optimizer ci: %w", p.name, err)
			}
			theirs, theirsTime, err := benchstat(ctx, bin, repo, work, p.name)
			if err != nil {
				return fmt.Errorf("%s: benchstat: %w", p.name, err)
			}
			fmt.Printf("| %s | %s | %.0fs | %s | %.0fs |\n", p.name, ours, oursTime.Seconds(), theirs, theirsTime.Seconds())
		}
	}
	return nil
}

// makeRepo writes the fixture on main and one branch per pull request.
func makeRepo(ctx context.Context, repo string) error {
	if err := testdata.WriteFixture(repo); err != nil {
		return err
	}
	if _, err := testdata.InitRepo(ctx, repo); err != nil {
		return err
	}
	demo := filepath.Join(filepath.Dir(repo), "demo")
	if err := testdata.WriteDemoCandidates(demo); err != nil {
		return err
	}
	for _, p := range prs {
		steps := [][]string{{"checkout", "-q", "-b", p.name, "main"}}
		if p.patch != "" {
			steps = append(steps, []string{"apply", filepath.Join(demo, p.patch)})
		}
		for _, s := range steps {
			if err := git(ctx, repo, s...); err != nil {
				return err
			}
		}
		for path, text := range p.edit {
			f, err := os.OpenFile(filepath.Join(repo, path), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			_, err = f.WriteString(text)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
		if err := git(ctx, repo, "-c", "user.name=bench", "-c", "user.email=bench@example.invalid",
			"commit", "-q", "-am", p.name); err != nil {
			return err
		}
	}
	return git(ctx, repo, "checkout", "-q", "main")
}

// optimizerCI runs optimizer ci on branch name against main and returns
// its headline and gate.
func optimizerCI(ctx context.Context, bin, repo, work, name string) (string, time.Duration, error) {
	out := filepath.Join(work, "ci-"+name)
	os.RemoveAll(out)
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "optimizer"), "ci", "--repo", repo, "--base", "main", "--head", name, "--out", out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return "", took, err
	}
	var rep struct {
		Candidates []struct {
			Verdict string      `json:"verdict"`
			Speedup float64     `json:"speedup"`
			CI      *[2]float64 `json:"ci"`
			Pairs   int         `json:"pairs"`
		} `json:"candidates"`
	}
	b, rerr := os.ReadFile(filepath.Join(out, "report.json"))
	if rerr == nil {
		rerr = json.Unmarshal(b, &rep)
	}
	if rerr != nil || len(rep.Candidates) == 0 {
		return "", took, fmt.Errorf("no report (%v): %s", rerr, stderr.String())
	}
	c := rep.Candidates[0]
	s := fmt.Sprintf("%s %.2f×", c.Verdict, c.Speedup)
	if c.CI != nil {
		s += fmt.Sprintf(" [%.2f×, %.2f×]", c.CI[0], c.CI[1])
	}
	return fmt.Sprintf("%s, %d pairs; exit %d", s, c.Pairs, exitStatus(err)), took, nil
}

func exitStatus(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return 0
}

// benchstat is the hand-built gate: the benchmarks six times on main, six
// times on the head, then benchstat. It reads the output the usual way: a
// row with a significant delta (p < 0.05) is a change.
func benchstat(ctx context.Context, bin, repo, work, name string) (string, time.Duration, error) {
	start := time.Now()
	var files []string
	for _, side := range []string{"main", name} {
		tree := filepath.Join(work, "tree-"+name+"-"+side)
		if err := git(ctx, repo, "worktree", "add", "-q", "--detach", tree, side); err != nil {
			return "", 0, err
		}
		cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-bench", ".", "-count", "6", "./...")
		cmd.Dir = tree
		out, err := cmd.Output()
		if err != nil {
			return "", 0, fmt.Errorf("go test -bench on %s: %w", side, err)
		}
		f := filepath.Join(work, name+"-"+side+".txt")
		if err := os.WriteFile(f, out, 0o644); err != nil {
			return "", 0, err
		}
		files = append(files, f)
		if err := git(ctx, repo, "worktree", "remove", "--force", tree); err != nil {
			return "", 0, err
		}
	}
	out, err := exec.CommandContext(ctx, filepath.Join(bin, "benchstat"), files[0], files[1]).Output()
	if err != nil {
		return "", 0, fmt.Errorf("benchstat: %w", err)
	}
	took := time.Since(start)
	return summarise(string(out)), took, nil
}

// deltaRow is a benchstat row's delta column: +12.34% or ~, with its p.
var deltaRow = regexp.MustCompile(`^(\S+)\s.*\s([+-]\d+\.\d+%|~)\s+\(p=([0-9.]+) n=\d+\)`)

// summarise reads benchstat's sec/op table as a reviewer would: the rows
// with a significant delta, or "no change".
func summarise(out string) string {
	var changed []string
	inTime := false
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, "sec/op") {
			inTime = true
			continue
		}
		if inTime && strings.TrimSpace(line) == "" {
			inTime = false
		}
		m := deltaRow.FindStringSubmatch(line)
		if !inTime || m == nil || m[1] == "geomean" || m[2] == "~" {
			continue
		}
		changed = append(changed, fmt.Sprintf("%s %s (p=%s)", m[1], m[2], m[3]))
	}
	if len(changed) == 0 {
		return "no significant change"
	}
	return strings.Join(changed, "; ")
}

func git(ctx context.Context, dir string, args ...string) error {
	_, err := gitcmd.Run(ctx, gitcmd.Cmd{Dir: dir, Args: args})
	return err
}

func numCPU() int {
	out, err := exec.Command("nproc").Output()
	if err != nil {
		return 0
	}
	var n int
	fmt.Sscan(string(out), &n)
	return n
}
