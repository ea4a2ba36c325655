package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
)

// synthRepo is a generated repository: files small text files in
// directories of 20, ten directories to a package directory, one commit,
// packed as a real repository is. It has a .gitignore, so that build
// outputs are ignored files, as they are in most repositories.
type synthRepo struct {
	dir   string
	base  string // the commit, 40 hex
	files int
	size  int // bytes per file, about
}

const filesPerDir = 20

// repoPath is the path of file i.
func repoPath(i int) string {
	return fmt.Sprintf("pkg%03d/sub%d/f%05d.go", i/(filesPerDir*10), (i/filesPerDir)%10, i)
}

// fileContent is file i's content at base; line 3 is the one candidates
// change.
func fileContent(i, size int, line3 string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package p%d\n\n%s\nfunc F%d() int { return %d }\n", i/(filesPerDir*10), line3, i, i)
	// Vary sizes around size, deterministically: 0.5x to 1.5x.
	want := size/2 + (i*7919)%(size+1)
	for n := 0; b.Len() < want; n++ {
		fmt.Fprintf(&b, "// padding line %d of file %d, so that the file has a realistic size\n", n, i)
	}
	return b.String()
}

func baseLine3(i int) string { return fmt.Sprintf("// file %d", i) }

// makeRepo writes and commits a repository of n files in dir.
func makeRepo(ctx context.Context, dir string, n, size int) (*synthRepo, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	for i := range n {
		p := filepath.Join(dir, filepath.FromSlash(repoPath(i)))
		if i%filesPerDir == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return nil, err
			}
		}
		if err := os.WriteFile(p, []byte(fileContent(i, size, baseLine3(i))), 0o644); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.out\n/build/\n"), 0o644); err != nil {
		return nil, err
	}
	steps := [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "-A"},
		{"commit", "-q", "-m", fmt.Sprintf("synthetic repository of %d files", n)},
		{"repack", "-adq"},
		{"prune-packed"},
	}
	for _, args := range steps {
		if _, err := gitIn(ctx, dir, args...); err != nil {
			return nil, err
		}
	}
	base, err := gitIn(ctx, dir, "rev-parse", "HEAD")
	if err != nil {
		return nil, err
	}
	return &synthRepo{dir: dir, base: strings.TrimSpace(base), files: n, size: size}, nil
}

// candidates returns n candidates, each a one-line change to its own file:
// even ones as patches, odd ones as whole files. The salt makes them differ
// from another set's, so that no two sets share a content id.
func (r *synthRepo) candidates(n int, salt string) []candidate.Candidate {
	out := make([]candidate.Candidate, n)
	stride := max(1, r.files/n)
	for k := range n {
		i := (k*stride + len(salt)*31) % r.files
		name := fmt.Sprintf("%s-%03d", salt, k)
		line := fmt.Sprintf("// file %d, changed by candidate %s", i, name)
		c := candidate.Candidate{Name: name, Source: "machinery"}
		if k%2 == 0 {
			c.Patch = []byte(r.patch(i, line))
		} else {
			c.Files = map[string][]byte{repoPath(i): []byte(fileContent(i, r.size, line))}
		}
		out[k] = c
	}
	return out
}

// patch is the unified diff that replaces line 3 of file i.
func (r *synthRepo) patch(i int, line string) string {
	p := repoPath(i)
	return fmt.Sprintf("diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -1,4 +1,4 @@\n package p%d\n \n-%s\n+%s\n func F%d() int { return %d }\n",
		p, p, p, p, i/(filesPerDir*10), baseLine3(i), line, i, i)
}
