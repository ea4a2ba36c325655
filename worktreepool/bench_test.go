package worktreepool

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Benchmarks of the hot path a candidate takes through a slot: acquire,
// stage a one-line change, release (which restores the slot). They run on a
// generated repository of 1k files, and of 20k files unless -short. The
// bench/machinery harness measures the same through the evaluator, against
// the naive ways.

// benchRepo makes a repository of n small files, 20 to a directory, and
// returns its root and commit.
func benchRepo(b *testing.B, n int) (string, string) {
	b.Helper()
	dir := b.TempDir()
	for i := range n {
		p := filepath.Join(dir, benchPath(i))
		if i%20 == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(p, []byte(benchFile(i, "")), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.out\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	run(b, dir, "git", "init", "-q", "-b", "main")
	run(b, dir, "git", "add", "-A")
	run(b, dir, "git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "-m", "base")
	run(b, dir, "git", "repack", "-adq")
	return dir, strings.TrimSpace(run(b, dir, "git", "rev-parse", "HEAD"))
}

func benchPath(i int) string {
	return fmt.Sprintf("d%03d/s%d/f%05d.go", i/200, (i/20)%10, i)
}

func benchFile(i int, change string) string {
	return fmt.Sprintf("package d%03d\n\n// file %d%s\nfunc F%d() int { return %d }\n", i/200, i, change, i, i)
}

func benchPatch(i int, change string) []byte {
	p := benchPath(i)
	return fmt.Appendf(nil, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -1,4 +1,4 @@\n package d%03d\n \n-// file %d\n+// file %d%s\n func F%d() int { return %d }\n",
		p, p, p, p, i/200, i, i, change, i, i)
}

func benchSizes(b *testing.B) []int {
	if testing.Short() {
		return []int{1000}
	}
	return []int{1000, 20000}
}

// BenchmarkSlot_StageReset: one candidate's whole trip through a slot, a
// patch or whole files, with the watch and with full statuses (NoWatch).
func BenchmarkSlot_StageReset(b *testing.B) {
	for _, n := range benchSizes(b) {
		repo, base := benchRepo(b, n)
		for _, noWatch := range []bool{false, true} {
			for _, kind := range []string{"patch", "files"} {
				b.Run(fmt.Sprintf("files=%d/nowatch=%v/%s", n, noWatch, kind), func(b *testing.B) {
					benchStageReset(b, repo, base, noWatch, kind)
				})
			}
		}
	}
}

func benchStageReset(b *testing.B, repo, base string, noWatch bool, kind string) {
	ctx := context.Background()
	p, err := Open(ctx, Options{Repo: repo, Base: base, Size: 1, NoWatch: noWatch,
		MachineLock: filepath.Join(b.TempDir(), "machine.lock")})
	if err != nil {
		b.Fatal(err)
	}
	defer closePool(b, p)
	s, err := p.Acquire(ctx) // waits for the slot to be made
	if err != nil {
		b.Fatal(err)
	}
	p.Release(s)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		s, err := p.Acquire(ctx)
		if err != nil {
			b.Fatal(err)
		}
		f := (i * 37) % 1000 // every size has the first 1000 files
		switch kind {
		case "patch":
			err = s.Apply(ctx, benchPatch(f, fmt.Sprint(" changed ", i)))
		default:
			err = s.WriteFiles(map[string][]byte{benchPath(f): []byte(benchFile(f, fmt.Sprint(" changed ", i)))}, nil)
		}
		if err != nil {
			b.Fatal(err)
		}
		p.Release(s)
	}
	b.StopTimer()
	st := p.Stats()
	b.ReportMetric(float64(st.FullResets), "full-resets")
}

// BenchmarkSlot_ResetClean: releasing a slot that nothing changed, the
// floor of a reset.
func BenchmarkSlot_ResetClean(b *testing.B) {
	for _, n := range benchSizes(b) {
		repo, base := benchRepo(b, n)
		for _, noWatch := range []bool{false, true} {
			b.Run(fmt.Sprintf("files=%d/nowatch=%v", n, noWatch), func(b *testing.B) {
				ctx := context.Background()
				p, err := Open(ctx, Options{Repo: repo, Base: base, Size: 1, NoWatch: noWatch,
					MachineLock: filepath.Join(b.TempDir(), "machine.lock")})
				if err != nil {
					b.Fatal(err)
				}
				defer closePool(b, p)
				s, err := p.Acquire(ctx) // waits for the slot to be made
				if err != nil {
					b.Fatal(err)
				}
				p.Release(s)
				for b.Loop() {
					s, err := p.Acquire(ctx)
					if err != nil {
						b.Fatal(err)
					}
					p.Release(s)
				}
			})
		}
	}
}
