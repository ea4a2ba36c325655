package candidate

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// newTestRepo makes a git repository in a temp dir holding files (a
// trailing "*" on a path makes it executable), commits them, and returns
// its root and the commit.
func newTestRepo(tb testing.TB, files map[string]string) (string, string) {
	tb.Helper()
	dir := tb.TempDir()
	git(tb, dir, "init", "-q", "-b", "main")
	return dir, commit(tb, dir, files, "base")
}

// commit writes files into the repo at dir (an empty content with a "-"
// path prefix deletes), commits everything, and returns the commit.
func commit(tb testing.TB, dir string, files map[string]string, msg string) string {
	tb.Helper()
	writeFiles(tb, dir, files)
	git(tb, dir, "add", "-A")
	git(tb, dir, "commit", "-q", "--allow-empty", "-m", msg)
	return strings.TrimSpace(git(tb, dir, "rev-parse", "HEAD"))
}

// writeFiles writes files under dir. A path ending in "*" is written
// executable; a path starting with "-" is removed.
func writeFiles(tb testing.TB, dir string, files map[string]string) {
	tb.Helper()
	for p := range files {
		if rest, ok := strings.CutPrefix(p, "-"); ok {
			if err := os.RemoveAll(filepath.Join(dir, filepath.FromSlash(rest))); err != nil {
				tb.Fatal(err)
			}
		}
	}
	for p, s := range files {
		if strings.HasPrefix(p, "-") {
			continue
		}
		mode := os.FileMode(0o644)
		if rest, ok := strings.CutSuffix(p, "*"); ok {
			p, mode = rest, 0o755
		}
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), mode); err != nil {
			tb.Fatal(err)
		}
		if err := os.Chmod(full, mode); err != nil {
			tb.Fatal(err)
		}
	}
}

// gitTestEnv is read at each call, after TestMain has made the environment
// hermetic.
func gitTestEnv() []string {
	return append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t",
		"GIT_AUTHOR_DATE=2020-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2020-01-01T00:00:00Z")
}

func git(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	out, err := gitStdin(dir, "", args...)
	if err != nil {
		tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func gitStdin(dir, stdin string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = gitTestEnv()
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// snapshot maps every path under dir to its mode and content hash.
func snapshot(tb testing.TB, dir string) map[string]string {
	tb.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		v := info.Mode().String()
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			t, err := os.Readlink(p)
			if err != nil {
				return err
			}
			v += " -> " + t
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			v += " " + hex.EncodeToString(sum[:])
		}
		out[p] = v
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// mustContain fails unless err's message holds want.
func mustContain(tb testing.TB, err error, want string) {
	tb.Helper()
	if err == nil {
		tb.Fatalf("got no error, want one containing %q", want)
	}
	if !strings.Contains(err.Error(), want) {
		tb.Fatalf("error %q does not contain %q", err, want)
	}
}
