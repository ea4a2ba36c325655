package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/client"
	"github.com/optimizer-dev/optimizer/jobspec"
	"github.com/optimizer-dev/optimizer/store"
)

// benchLoad submits -jobs one-candidate jobs from -clients clients at once,
// then waits for every one to end.
func benchLoad(ctx context.Context, bin, dir string) error {
	repo := filepath.Join(dir, "repo")
	if err := makeRepo(ctx, repo, 10, nil); err != nil {
		return err
	}
	d, err := startDaemon(ctx, bin, dir, "-j", "2")
	if err != nil {
		return err
	}
	defer d.stop()
	var mu sync.Mutex
	var lat []time.Duration
	var ids []string
	var errs []error
	start := time.Now()
	var wg sync.WaitGroup
	per := *jobs / *clients
	for cl := range *clients {
		wg.Go(func() {
			c := client.New(d.sock) // a client of its own, as separate processes would have
			for i := range per {
				n := cl*per + i
				cand, _ := json.Marshal(map[string]any{"name": fmt.Sprintf("c%d", n), "files": map[string]string{"new.txt": fmt.Sprintf("%d\n", n)}})
				t0 := time.Now()
				sub, err := c.Submit(ctx, api.JobRequest{Repo: repo, Candidates: []json.RawMessage{cand},
					Options: jobspec.Spec{Test: "true", Bench: "none", Sandbox: "off"}})
				took := time.Since(t0)
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				} else {
					lat = append(lat, took)
					ids = append(ids, sub.ID)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	accepted := time.Since(start)
	fmt.Fprintf(os.Stderr, "load: %d accepted in %v; waiting for them to finish\n", len(ids), accepted.Round(time.Millisecond))
	finished, twice := 0, 0
	for _, id := range ids {
		if err := waitEnded(ctx, d.c, id); err != nil {
			return err
		}
		j, err := d.c.Job(ctx, id)
		if err != nil {
			return err
		}
		if j.State == "finished" {
			finished++
		}
		if j.Attempts != 1 {
			twice++
		}
	}
	all := time.Since(start)
	rss := d.peakRSS()
	runs, err := runsInStore(ctx, repo)
	if err != nil {
		return err
	}
	slices.Sort(lat)
	fmt.Printf("## Load: %d jobs from %d clients\n\n", *jobs, *clients)
	fmt.Printf("| submitted | accepted | rejected | finished | run twice | runs in the repo's store | p50 accept | p99 accept | jobs/s (submit to last end) | daemon peak RSS |\n")
	fmt.Printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	fmt.Printf("| %d | %d | %d | %d | %d | %d | %v | %v | %.1f | %.0f MB |\n\n", per**clients, len(ids), len(errs), finished, twice, runs,
		pct(lat, 50).Round(10*time.Microsecond), pct(lat, 99).Round(10*time.Microsecond), float64(finished)/all.Seconds(), float64(rss)/(1<<20))
	if len(errs) > 0 {
		fmt.Printf("first rejection: %v\n\n", errs[0])
	}
	return nil
}

func pct(s []time.Duration, p int) time.Duration {
	if len(s) == 0 {
		return 0
	}
	return s[min(len(s)-1, len(s)*p/100)]
}

// runsInStore counts the jobs the repository's own store recorded.
func runsInStore(ctx context.Context, repo string) (int, error) {
	db, err := store.Open(ctx, filepath.Join(repo, ".git", "optimizer", "optimizer.db"))
	if err != nil {
		return 0, err
	}
	defer db.Close()
	jobs, err := db.Jobs(ctx, 0)
	return len(jobs), err
}
