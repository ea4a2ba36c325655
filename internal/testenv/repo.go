package testenv

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/gitcmd"
)

// RepoState is what the user's repository at dir shows: HEAD, refs, the
// stash, the status, the index and the working tree's files. A test takes
// it before and after a job: only optimizer apply may change it. It leaves
// out the rest of .git, where the optimizer keeps its slots and store.
func RepoState(tb testing.TB, dir string) string {
	tb.Helper()
	var b strings.Builder
	for _, args := range [][]string{{"rev-parse", "HEAD"}, {"for-each-ref"}, {"stash", "list"}, {"status", "--porcelain", "--ignored"}} {
		// Read-only: a status that refreshed the index would change it.
		out, err := gitcmd.Run(context.Background(), gitcmd.Cmd{Dir: dir, Args: args, ReadOnly: true})
		if err != nil {
			tb.Fatalf("read the state of %s: %v", dir, err)
		}
		b.Write(out)
	}
	idx, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	if err != nil {
		tb.Fatal(err)
	}
	sum := sha256.Sum256(idx)
	b.WriteString("index " + hex.EncodeToString(sum[:]) + "\n")
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == ".git" {
			return fs.SkipDir
		}
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			s := sha256.Sum256(data)
			b.WriteString(rel + " " + hex.EncodeToString(s[:8]) + "\n")
		}
		return nil
	})
	if err != nil {
		tb.Fatalf("read the working tree of %s: %v", dir, err)
	}
	return b.String()
}
