package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
)

// goCache measures what sharing Go's build cache across slots is worth. It
// runs a job of go test on a small Go module with the user's GOCACHE,
// shared by every slot as optimizer leaves it. It compares that with a
// cache of each candidate's own, what isolating slots fully would cost.
func (h *harness) goCache(ctx context.Context) error {
	const pkgs, j = 12, 2
	t := newTable(fmt.Sprintf("Go build cache shared across slots: go test on a module of %d packages, %d candidates, -j %d", pkgs, h.goCands, j),
		"Warm pool, baseline cached. Each candidate changes one package. *Shared*: `go test -json ./...` with the user's GOCACHE, "+
			"which every slot uses (optimizer never sets GOCACHE or GOMODCACHE). *Per candidate*: `GOCACHE=$PWD/.gocache go test ./...`, "+
			"a cache inside the slot, removed with the slot's other untracked files when it is restored: the cost of isolating builds. "+
			"*Shared, -trimpath*: the same cache, but slots share compiled packages too, since their paths no longer differ.",
		"wall time", "ratio to shared")
	h.tables = append(h.tables, t)
	dir := filepath.Join(h.work, "gocache")
	r, err := makeGoModule(ctx, filepath.Join(dir, "repo"), pkgs)
	if err != nil {
		return err
	}
	db, err := openStore(ctx, dir, "gocache")
	if err != nil {
		return err
	}
	defer db.Close()
	pool, err := h.openPool(ctx, r, filepath.Join(dir, "slots"), j, false)
	if err != nil {
		return err
	}
	defer closePool(pool)
	if err := waitWarm(ctx, pool); err != nil {
		return err
	}
	var shared time.Duration
	for ti, tc := range []struct{ name, test string }{
		{"shared (the default)", "go test -json ./..."},
		{"shared, `GOFLAGS=-trimpath`", "GOFLAGS=-trimpath go test ./..."},
		{"per candidate (`GOCACHE` in the slot)", "GOCACHE=$PWD/.gocache go test ./..."},
	} {
		h.logf("go build cache: %s", tc.name)
		if err := primeBaseline(ctx, r, pool, db, j, tc.test, goCandidates(1, pkgs, 1+ti)); err != nil {
			return err
		}
		d, err := h.repeat(h.reps, func(i int) (time.Duration, error) {
			cands := goCandidates(h.goCands, pkgs, 10*(ti+1)+i)
			return job{repo: r, pool: pool, db: db, cands: cands, n: j, test: tc.test}.run(ctx)
		})
		if err != nil {
			return err
		}
		if shared == 0 {
			shared = d
		}
		t.set(tc.name, "wall time", secs(d))
		t.set(tc.name, "ratio to shared", ratio(d, shared, 0))
	}
	return nil
}

// makeGoModule writes and commits a Go module of n packages, each with a
// function and a test that uses a few standard packages.
func makeGoModule(ctx context.Context, dir string, n int) (*synthRepo, error) {
	files := map[string]string{"go.mod": "module example.com/synth\n\ngo 1.22\n"}
	for i := range n {
		files[fmt.Sprintf("p%02d/p.go", i)] = goSource(i, "1")
		files[fmt.Sprintf("p%02d/p_test.go", i)] = fmt.Sprintf(`package p%02d

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestF(t *testing.T) {
	b, err := json.Marshal(map[string]int{"f": F()})
	if err != nil || !strings.Contains(string(b), "f") {
		t.Fatal(err)
	}
}
`, i)
	}
	for p, s := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			return nil, err
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "synthetic module"}} {
		if _, err := gitIn(ctx, dir, args...); err != nil {
			return nil, err
		}
	}
	base, err := gitIn(ctx, dir, "rev-parse", "HEAD")
	if err != nil {
		return nil, err
	}
	return &synthRepo{dir: dir, base: strings.TrimSpace(base), files: 2*n + 1}, nil
}

func goSource(i int, k string) string {
	return fmt.Sprintf("package p%02d\n\nimport \"fmt\"\n\n// F is a function of package %d.\nfunc F() int { return len(fmt.Sprint(%s)) }\n", i, i, k)
}

// goCandidates changes the constant of package k%pkgs in candidate k to a
// value made of seed and k, so that no two sets share a content id.
func goCandidates(n, pkgs, seed int) []candidate.Candidate {
	out := make([]candidate.Candidate, n)
	for k := range n {
		i := k % pkgs
		out[k] = candidate.Candidate{
			Name:   fmt.Sprintf("go-%03d", k),
			Source: "machinery",
			Files:  map[string][]byte{fmt.Sprintf("p%02d/p.go", i): []byte(goSource(i, fmt.Sprint(seed*1000+k+2)))},
		}
	}
	return out
}
