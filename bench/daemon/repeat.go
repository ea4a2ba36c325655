package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/optimizer-dev/optimizer/client"
)

// The repeat fixture: a test that takes a while, a benchmark that sleeps
// for as long as a file says, and a candidate that halves it.
var repeatFiles = map[string]string{
	"test.sh":  "sleep 1\ntest \"$(cat ok)\" = yes\n",
	"bench.sh": "sleep $(cat speed)\n",
	"ok":       "yes\n",
	"speed":    "0.04\n",
}

// benchRepeat submits the same job twice to one daemon, -reps times in a
// fresh repository each, and compares the repeat's time to the first's.
func benchRepeat(ctx context.Context, bin, dir string) error {
	d, err := startDaemon(ctx, bin, filepath.Join(dir, "daemon"), "-j", "2")
	if err != nil {
		return err
	}
	defer d.stop()
	var firsts, repeats []time.Duration
	var reused string
	for rep := range *reps {
		repo := filepath.Join(dir, fmt.Sprintf("repo%d", rep))
		if err := makeRepo(ctx, repo, 100, repeatFiles); err != nil {
			return err
		}
		var cands []json.RawMessage
		for _, c := range []map[string]any{
			{"name": "fast", "files": map[string]string{"speed": "0.02\n"}},
			{"name": "same", "files": map[string]string{"notes.txt": "x\n"}},
			{"name": "broken", "files": map[string]string{"ok": "no\n"}},
		} {
			b, _ := json.Marshal(c)
			cands = append(cands, b)
		}
		req := client.JobRequest{Repo: repo, Candidates: cands, Options: client.JobOptions{
			Test: "sh test.sh", Bench: "sh bench.sh", MinPairs: 6, MaxPairs: 10, NoProfile: true, Sandbox: "off"}}
		var took [2]time.Duration
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
			if i == 1 && j.Report != nil {
				b, _ := json.Marshal(j.Report.Candidates)
				reused = string(b)
			}
		}
		firsts, repeats = append(firsts, took[0]), append(repeats, took[1])
	}
	mf, mr := median(firsts), median(repeats)
	fmt.Printf("## Repeated identical submission\n\n")
	fmt.Printf("| | median | runs |\n|---|---:|---|\n")
	fmt.Printf("| first submission, submit → end | %v | %v |\n", mf.Round(time.Millisecond), rounded(firsts))
	fmt.Printf("| identical repeat, submit → end | %v | %v |\n", mr.Round(time.Millisecond), rounded(repeats))
	fmt.Printf("| ratio repeat / first | %.3f | |\n\n", mr.Seconds()/mf.Seconds())
	if len(reused) > 600 {
		reused = reused[:600] + "…"
	}
	fmt.Printf("The last repeat's candidates: `%s`\n\n", reused)
	return nil
}
