package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"
)

// memory is requirement 4: the CLI's peak RSS with memJ slots and memCands
// candidates, from /usr/bin/time -v on the real binary.
func (h *harness) memory(ctx context.Context) error {
	t := newTable(fmt.Sprintf("Memory: the CLI with -j %d and %d candidates", h.memJ, h.memCands),
		fmt.Sprintf("`go build ./cmd/optimizer`, then `/usr/bin/time -v optimizer --candidates C.jsonl --test true --bench none -j %d --db D --format json` "+
			"on a cold repository (no slots, new store). C.jsonl holds %d one-line changes, half patches, half whole files. "+
			"Peak RSS is /usr/bin/time's \"Maximum resident set size\": the largest of the process and the children it waited for (git, sh), not their sum.",
			h.memJ, h.memCands), h.cols()...)
	h.tables = append(h.tables, t)
	bin := filepath.Join(h.work, "optimizer")
	h.logf("building the CLI")
	if _, err := runIn(ctx, "", nil, "go", "build", "-o", bin, "github.com/optimizer-dev/optimizer/cmd/optimizer"); err != nil {
		return err
	}
	for _, r := range h.repos {
		c := col(r)
		h.logf("memory on %s", c)
		dir := filepath.Join(h.work, fmt.Sprintf("memory-%d", r.files))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		cands := filepath.Join(dir, "candidates.jsonl")
		if err := writeJSONL(cands, r, h.memCands); err != nil {
			return err
		}
		var rss []int64
		var wall []time.Duration
		for i := range h.reps {
			kb, d, err := cliRun(ctx, bin, r, cands, filepath.Join(dir, fmt.Sprintf("store-%d.db", i)), h.memJ)
			if err != nil {
				return err
			}
			rss, wall = append(rss, kb), append(wall, d)
		}
		// Medians of RSS through durations' median: kB as nanoseconds.
		ds := make([]time.Duration, len(rss))
		for i, kb := range rss {
			ds[i] = time.Duration(kb)
		}
		med := int64(median(ds))
		mark := " ✓"
		if med >= 100*1024 {
			mark = " ✗"
		}
		t.set("**peak RSS**", c, fmt.Sprintf("**%.1f MB%s**", float64(med)/1024, mark))
		t.set("wall time of the run", c, secs(median(wall)))
	}
	t.note("target: peak RSS under 100 MB")
	return nil
}

// writeJSONL writes n of r's candidates as a JSONL candidates file.
func writeJSONL(path string, r *synthRepo, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, c := range r.candidates(n, "mem") {
		line := map[string]any{"name": c.Name}
		if len(c.Patch) > 0 {
			line["patch"] = string(c.Patch)
		} else {
			files := map[string]string{}
			for p, b := range c.Files {
				files[p] = string(b)
			}
			line["files"] = files
		}
		if err := enc.Encode(line); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

var maxRSS = regexp.MustCompile(`Maximum resident set size \(kbytes\): (\d+)`)

// cliRun runs the CLI under /usr/bin/time -v and returns its peak RSS in kB
// and its wall time.
func cliRun(ctx context.Context, bin string, r *synthRepo, cands, db string, j int) (int64, time.Duration, error) {
	var out []byte
	d, err := timeIt(func() error {
		var err error
		out, err = combined(ctx, r.dir, "/usr/bin/time", "-v", bin, "--repo", r.dir, "--candidates", cands,
			"--test", "true", "--bench", "none", "--no-cache", "-j", strconv.Itoa(j), "--db", db, "--format", "json")
		return err
	})
	if err != nil {
		return 0, 0, fmt.Errorf("%w\n%s", err, tailOf(out, 2000))
	}
	m := maxRSS.FindSubmatch(out)
	if m == nil {
		return 0, 0, fmt.Errorf("no maximum RSS in /usr/bin/time's output:\n%s", tailOf(out, 2000))
	}
	kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return kb, d, nil
}

func tailOf(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
