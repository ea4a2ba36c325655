package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/optimizer-dev/optimizer/proc"
	"github.com/optimizer-dev/optimizer/testdata"
)

// A target is one code base the harness measures on: the accuracy
// fixture, or a real library fetched through the Go module proxy at a
// pinned version. Its function Func, in File, is made to run its body
// reps times per call, by a wrapper in Pkg/repeat.go. A change of known
// size is then a change of reps. Base runs it K times, a candidate K−m
// times, which is K/(K−m) faster on everything Bench spends in Func.
type target struct {
	Name   string
	Module string // module@version; "" is the accuracy fixture
	Pkg    string // the package's directory in the module ("" is its root)
	File   string // the file that declares Func, relative to Pkg
	Func   string // its declaration, up to the name's opening paren: "func Comma("
	Once   string // the name the original body gets
	Sink   string // the type of the wrapper's sink
	Call   string // the wrapper's signature and body, with %[1]s the once name and sinkAssign
	Bench  string // the benchmark that measures it, anchored
}

var targets = []target{
	{
		Name: "fixture", Pkg: "sumsq", File: "sumsq.go",
		Func: "func SumSquares(", Once: "sumSquaresOnce", Sink: "int",
		Call:  "func SumSquares(xs []int) int {\n\tfor i := 1; i < repeatReps; i++ {\n\t\trepeatSink = %[1]s(xs)\n\t}\n\treturn %[1]s(xs)\n}\n",
		Bench: "^BenchmarkSumSquares$",
	},
	{
		Name: "humanize", Module: "github.com/dustin/go-humanize@v1.0.1", File: "comma.go",
		Func: "func Comma(", Once: "commaOnce", Sink: "string",
		Call:  "func Comma(v int64) string {\n\tfor i := 1; i < repeatReps; i++ {\n\t\trepeatSink = %[1]s(v)\n\t}\n\treturn %[1]s(v)\n}\n",
		Bench: "^BenchmarkCommas$",
	},
	{
		Name: "uuid", Module: "github.com/google/uuid@v1.6.0", File: "uuid.go",
		Func: "func Parse(", Once: "parseOnce", Sink: "UUID",
		Call:  "func Parse(s string) (UUID, error) {\n\tfor i := 1; i < repeatReps; i++ {\n\t\trepeatSink, _ = %[1]s(s)\n\t}\n\treturn %[1]s(s)\n}\n",
		Bench: "^BenchmarkParse$",
	},
}

func targetByName(name string) (target, bool) {
	for _, t := range targets {
		if t.Name == name {
			return t, true
		}
	}
	return target{}, false
}

// pkgName is the Go package name of the target's package.
func (t target) pkgName(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, t.Pkg, t.File))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if name, ok := strings.CutPrefix(line, "package "); ok {
			return strings.TrimSpace(name), nil
		}
	}
	return "", fmt.Errorf("%s: no package clause", t.File)
}

// repeatFile is the wrapper file with reps repetitions; note makes each
// candidate's content its own (a comment only).
func (t target) repeatFile(pkg string, reps int, note string) []byte {
	return []byte(fmt.Sprintf("package %s\n\n// bench/power: %s\n\n// repeatReps is how many times %s runs its body per call.\nconst repeatReps = %d\n\nvar repeatSink %s\n\n",
		pkg, note, strings.TrimSuffix(strings.TrimPrefix(t.Func, "func "), "("), reps, t.Sink) + fmt.Sprintf(t.Call, t.Once))
}

// writeBase writes the target's base into dir, with Func run k times per
// call, and commits it.
func writeBase(ctx context.Context, t target, dir string, k int) (pkg string, err error) {
	if t.Module == "" {
		err = testdata.WriteFixture(dir)
	} else {
		err = download(ctx, t.Module, dir)
	}
	if err != nil {
		return "", err
	}
	file := filepath.Join(dir, t.Pkg, t.File)
	b, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	if strings.Count(string(b), t.Func) != 1 {
		return "", fmt.Errorf("%s: want one %q", file, t.Func)
	}
	once := "func " + t.Once + "("
	if err := os.WriteFile(file, []byte(strings.Replace(string(b), t.Func, once, 1)), 0o644); err != nil {
		return "", err
	}
	if pkg, err = t.pkgName(dir); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, t.Pkg, "repeat.go"), t.repeatFile(pkg, k, "base"), 0o644); err != nil {
		return "", err
	}
	if _, err := testdata.InitRepo(ctx, dir); err != nil {
		return "", fmt.Errorf("commit %s: %w", t.Name, err)
	}
	return pkg, nil
}

// download fetches mod (path@version) through the Go module proxy with
// go mod download and copies its files into dir, writable.
func download(ctx context.Context, mod, dir string) error {
	// Outside any module, so that no go.mod or go.sum is touched.
	var stdout bytes.Buffer
	res, err := proc.Run(ctx, proc.Cmd{Args: []string{"go", "mod", "download", "-json", mod}, Dir: filepath.Dir(dir), CPU: -1, Stdout: &stdout})
	if err != nil {
		return fmt.Errorf("download %s: %w", mod, err)
	}
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(stdout.Bytes(), &info); err != nil || res.ExitCode != 0 || info.Dir == "" {
		return fmt.Errorf("download %s: exit %d %s:\n%s", mod, res.ExitCode, info.Error, res.Output)
	}
	src := os.DirFS(info.Dir)
	return fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		out := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		b, err := fs.ReadFile(src, p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644)
	})
}
