package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestCommandWord finds the program a command line starts, past
// assignments and wrappers, with quotes removed.
func TestCommandWord(t *testing.T) {
	for line, want := range map[string]string{
		"go test ./...":                "go",
		"GOFLAGS=-count=1 go test":     "go",
		"env A=1 exec ~/bin/run 'x y'": "~/bin/run",
		`"/opt/my tools/pytest" -q`:    "/opt/my tools/pytest",
		"time ./run.sh; echo done":     "./run.sh",
		"A=1 B=2":                      "",
		"":                             "",
	} {
		if got := commandWord(line); got != want {
			t.Errorf("commandWord(%q) = %q, want %q", line, got, want)
		}
	}
}

// TestNamedPaths shows the existing absolute paths that commands and bench
// arguments name, and never one in the repository or its git directory.
func TestNamedPaths(t *testing.T) {
	root := t.TempDir()
	data, other, repo := filepath.Join(root, "data"), filepath.Join(root, "other"), filepath.Join(root, "repo")
	for _, d := range []string{data, other, filepath.Join(repo, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg := Config{Repo: repo,
		Commands:  []string{"DATA=" + data + " go test ./... " + repo + " " + repo + "/x", ""},
		BenchArgs: []string{"-dirs=" + other + ":" + filepath.Join(root, "missing"), filepath.Join(repo, ".git")}}
	got := NamedPaths(cfg, filepath.Join(repo, ".git"))
	if want := []string{data, other}; !slices.Equal(got, want) {
		t.Errorf("NamedPaths = %q, want %q", got, want)
	}
}

// TestBindSuggestion suggests the top-level directory under $HOME that
// holds what is missing, else its directory.
func TestBindSuggestion(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	shim := filepath.Join(home, ".pyenv", "shims", "python")
	if got, want := bindSuggestion([]string{"python on PATH", filepath.Join(home, ".pyenv", "libexec", "pyenv")}, shim), filepath.Join(home, ".pyenv"); got != want {
		t.Errorf("bindSuggestion under $HOME = %q, want %q", got, want)
	}
	if got, want := bindSuggestion(nil, "/opt/tools/bin/run"), "/opt/tools/bin"; got != want {
		t.Errorf("bindSuggestion outside $HOME = %q, want %q", got, want)
	}
}
