// Package testdata holds the fixture repository and the demo candidate set,
// embedded so that tests and `optimizer demo` need nothing on disk.
//
// The fixture is a small Go module, example.com/fixture, whose sumsq package
// is honestly slow. The demo candidates are changes to it, one for every
// verdict a job can give. Write them out with WriteFixture, InitRepo and
// WriteDemoCandidates; nothing here is generated at run time. README.md says
// how the patches were made.
package testdata

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/optimizer-dev/optimizer/gitcmd"
)

var (
	//go:embed fixture
	fixtureFiles embed.FS
	//go:embed demo
	demoFiles embed.FS
	//go:embed noop
	noopFiles embed.FS
)

// FixtureModule is the module path of the fixture.
const FixtureModule = "example.com/fixture"

// Fixture is the fixture module's files as embedded: go.mod is stored as
// go.mod.txt, because a go.mod would make the directory a module of its own
// that embed cannot reach. WriteFixture renames it.
var Fixture fs.FS = mustSub(fixtureFiles, "fixture")

// Demo is the demo candidate set as embedded: NAME.patch files and NAME/
// directories of whole files, in the layout `--candidates DIR` reads.
var Demo fs.FS = mustSub(demoFiles, "demo")

// NoOp is the no-op candidate set (issue 36): changes that run nothing new
// on SumSquares's path, and a real 2x change beside them. They are NAME/
// directories of whole files, in the layout `--candidates DIR` reads
// (os.CopyFS writes them out).
var NoOp fs.FS = mustSub(noopFiles, "noop")

// NoOpCandidates lists the no-op set with the verdict each must get. A
// no-op must never be faster or the winner; twice must win.
var NoOpCandidates = []DemoCandidate{
	{"heavy", "heavy", "not-faster", "adds a file that only imports net/http, for its init work and size", ""},
	{"initio", "initio", "not-faster", "adds a file whose init() writes, syncs and reads back 4 MiB", ""},
	{"moved", "moved", "not-faster", "moves SumSquares, body unchanged, from sumsq.go to a new file", ""},
	{"pad", "pad", "not-faster", "adds 48 functions that sort before SumSquares and move its code", ""},
	{"twice", "twice", "winner", "x*x and strconv in place of math.Pow and fmt: about 2x faster", ""},
}

// A DemoCandidate describes one candidate of the demo set.
type DemoCandidate struct {
	Name    string // the candidate's name, as the report shows it
	Path    string // its path in Demo: NAME.patch or NAME (a directory)
	Verdict string // the verdict it is there to show
	About   string // one line on what the change does
	Failure string // for a failed Verdict, the failure kind it is there to show
}

// Expected is the verdict as the demo's EXPECTED column and the report's
// verdict column write it: "failed (build)", "winner".
func (c DemoCandidate) Expected() string {
	if c.Failure != "" {
		return c.Verdict + " (" + c.Failure + ")"
	}
	return c.Verdict
}

// DemoCandidates lists the demo set in the order their names sort, which is
// the order a candidates directory is read in.
var DemoCandidates = []DemoCandidate{
	{"broken", "broken.patch", "failed", "skips the first element: a test fails", "test"},
	{"fast", "fast.patch", "winner", "a plain loop with x*x: correct and far faster", ""},
	{"fast_again", "fast_again", "duplicate", "whole files giving the same tree as fast", ""},
	{"hang", "hang.patch", "failed", "forgets i++ in its loop: the tests time out", "timeout"},
	{"nocompile", "nocompile.patch", "failed", "adds an int64 to an int: it does not compile", "build"},
	{"slower", "slower.patch", "slower", "sums twice to check itself: correct, about 2x slower", ""},
}

// WriteFixture writes the fixture module into dir, creating it if needed.
func WriteFixture(dir string) error {
	return writeTree(Fixture, dir, func(name string) string {
		if name == "go.mod.txt" {
			return "go.mod"
		}
		return name
	})
}

// WriteDemoCandidates writes the demo candidate set into dir, creating it if
// needed: one NAME.patch file or NAME/ directory per candidate.
func WriteDemoCandidates(dir string) error {
	return writeTree(Demo, dir, func(name string) string { return name })
}

// InitRepo makes dir a git repository on branch main with everything in it
// committed, and returns the commit. The commit's identity is fixed, so it
// needs no git configuration.
func InitRepo(ctx context.Context, dir string) (string, error) {
	steps := [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "-A"},
		{"-c", "user.name=optimizer fixture", "-c", "user.email=fixture@example.invalid",
			"-c", "commit.gpgsign=false", "commit", "-q", "--no-verify", "-m", "fixture"},
	}
	for _, args := range steps {
		if _, err := git(ctx, dir, args...); err != nil {
			return "", err
		}
	}
	return git(ctx, dir, "rev-parse", "HEAD")
}

func git(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := gitcmd.Run(ctx, gitcmd.Cmd{Dir: dir, Args: args})
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// writeTree copies every file of fsys into dir, renaming each file's base
// name with rename.
func writeTree(fsys fs.FS, dir string, rename func(string) string) error {
	return fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, filepath.FromSlash(name)), 0o755)
		}
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		out := path.Join(path.Dir(name), rename(path.Base(name)))
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(out)), data, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", out, err)
		}
		return nil
	})
}

func mustSub(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err) // the directory is embedded above: it always exists
	}
	return sub
}
