package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/jobspec"
)

// firstTestIn is a test command that records when it starts, in ns since
// the epoch, in stamps/first.
func firstTestIn(stamps string) string {
	return fmt.Sprintf(`date +%%s%%N >> %q; true`, filepath.Join(stamps, "first"))
}

// benchFirst: submit → first test started through a warm daemon, against
// the CLI's start → first test with --keep-slots and warm slots.
func benchFirst(ctx context.Context, bin, dir string) error {
	// Two identical repositories: the CLI's kept slots and the daemon's
	// warm pool would otherwise take each other's slots.
	repo, drepo := filepath.Join(dir, "repo"), filepath.Join(dir, "drepo")
	fmt.Fprintf(os.Stderr, "first test: making two repositories of %d files\n", *files)
	for _, r := range []string{repo, drepo} {
		if err := makeRepo(ctx, r, *files, nil); err != nil {
			return err
		}
	}
	stamps := filepath.Join(dir, "stamps")
	if err := os.MkdirAll(stamps, 0o755); err != nil {
		return err
	}
	firstTest := firstTestIn(stamps)
	cands := filepath.Join(dir, "cands.jsonl")
	if err := os.WriteFile(cands, []byte(`{"name": "one", "files": {"new.txt": "1\n"}}`+"\n"), 0o644); err != nil {
		return err
	}
	// Each run's candidate is new: the result cache would answer a repeat
	// without running a test.
	n := 0
	newCand := func() []byte {
		n++
		b, _ := json.Marshal(map[string]any{"name": "one", "files": map[string]string{"new.txt": fmt.Sprintf("%d\n", n)}})
		return b
	}
	cli := func() (time.Duration, error) {
		os.Remove(filepath.Join(stamps, "first"))
		if err := os.WriteFile(cands, append(newCand(), '\n'), 0o644); err != nil {
			return 0, err
		}
		t0 := time.Now()
		cmd := exec.CommandContext(ctx, bin, "--no-daemon", "--repo", repo, "--candidates", cands, "-j", "2", "--keep-slots",
			"--test", firstTest, "--bench", "none", "--sandbox", "off", "--format", "json")
		if out, err := cmd.CombinedOutput(); err != nil {
			return 0, fmt.Errorf("the CLI: %v\n%s", err, out)
		}
		return sinceFirst(stamps, t0)
	}
	d, err := startDaemon(ctx, bin, filepath.Join(dir, "daemon"), "-j", "2")
	if err != nil {
		return err
	}
	defer d.stop()
	viaDaemon := func() (time.Duration, error) {
		os.Remove(filepath.Join(stamps, "first"))
		cand := newCand()
		t0 := time.Now()
		sub, err := d.c.Submit(ctx, api.JobRequest{Repo: drepo, Candidates: []json.RawMessage{cand},
			Options: jobspec.Spec{Test: firstTest, Bench: "none", Sandbox: "off"}})
		if err != nil {
			return 0, err
		}
		if err := waitEnded(ctx, d.c, sub.ID); err != nil {
			return 0, err
		}
		return sinceFirst(stamps, t0)
	}
	// Warm both: the CLI's kept slots, the daemon's pool.
	if _, err := cli(); err != nil {
		return err
	}
	if _, err := viaDaemon(); err != nil {
		return err
	}
	var cliT, dT []time.Duration
	for range *reps { // interleaved, so that both see the same machine
		c, err := cli()
		if err != nil {
			return err
		}
		dd, err := viaDaemon()
		if err != nil {
			return err
		}
		cliT, dT = append(cliT, c), append(dT, dd)
	}
	mc, md := median(cliT), median(dT)
	fmt.Printf("## Submit to first test, %d files, warm\n\n", *files)
	fmt.Printf("| | median | runs |\n|---|---:|---|\n")
	fmt.Printf("| CLI, --keep-slots, start → first test | %v | %v |\n", mc.Round(time.Millisecond), rounded(cliT))
	fmt.Printf("| daemon, warm pool, submit → first test | %v | %v |\n", md.Round(time.Millisecond), rounded(dT))
	fmt.Printf("| ratio daemon / CLI | %.3f | |\n\n", md.Seconds()/mc.Seconds())
	return nil
}

// sinceFirst is the time from t0 to the first stamp a test wrote.
func sinceFirst(stamps string, t0 time.Time) (time.Duration, error) {
	b, err := os.ReadFile(filepath.Join(stamps, "first"))
	if err != nil {
		return 0, fmt.Errorf("no test started: %w", err)
	}
	first := int64(0)
	for _, l := range strings.Fields(string(b)) {
		ns, err := strconv.ParseInt(l, 10, 64)
		if err == nil && (first == 0 || ns < first) {
			first = ns
		}
	}
	return time.Unix(0, first).Sub(t0), nil
}

func median(s []time.Duration) time.Duration {
	c := slices.Clone(s)
	slices.Sort(c)
	return c[len(c)/2]
}

func rounded(s []time.Duration) []time.Duration {
	out := make([]time.Duration, len(s))
	for i, d := range s {
		out[i] = d.Round(time.Millisecond)
	}
	return out
}
