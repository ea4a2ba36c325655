package resultcache

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/gobench"
	"github.com/optimizer-dev/optimizer/evaluator/measure"
	"github.com/optimizer-dev/optimizer/profiler"
	"github.com/optimizer-dev/optimizer/store"
)

func keys() Keys {
	return Keys{Timeout: 3 * time.Second, Sandbox: true, MemLimit: 1 << 30, GoTest: true, BenchArgs: []string{"-test.benchmem"},
		CalibrateTarget: 300 * time.Millisecond, CPU: 1, Host: "h/cpu/2/linux/amd64"}
}

// TestKeys_Stable: a store's entries must still hit after an upgrade, so a
// key's bytes change only with Version. The values are SHA-256 of the
// length-prefixed parts, computed apart from this code.
func TestKeys_Stable(t *testing.T) {
	if got, want := Key("tests", "a", "b"), "e3a4cc4314bff980909dff23ba5c175a95a7622f90ab20f336080cdea20cb267"; got != want {
		t.Errorf("Key = %s, want %s", got, want)
	}
	if got, want := keys().Tests("baseline", "tree"), "51f5f27576b7e9af64e9de4967363731dd8d9f66b29519227603489d6da6b1d6"; got != want {
		t.Errorf("Tests = %s, want %s", got, want)
	}
}

// TestKeys_Tests: every setting that can change a candidate's test outcome
// changes its key.
func TestKeys_Tests(t *testing.T) {
	base := keys().Tests("baseline", "tree")
	for name, k := range map[string]Keys{
		"Timeout":  func(k Keys) Keys { k.Timeout = time.Minute; return k }(keys()),
		"Sandbox":  func(k Keys) Keys { k.Sandbox = false; return k }(keys()),
		"Net":      func(k Keys) Keys { k.Net = true; return k }(keys()),
		"MemLimit": func(k Keys) Keys { k.MemLimit = 0; return k }(keys()),
		"Trust":    func(k Keys) Keys { k.TrustCandidateTests = true; return k }(keys()),
		"GoTest":   func(k Keys) Keys { k.GoTest = false; return k }(keys()),
	} {
		if k.Tests("baseline", "tree") == base {
			t.Errorf("%s: the same key", name)
		}
	}
	if keys().Tests("other", "tree") == base || keys().Tests("baseline", "other") == base {
		t.Error("another baseline or tree: the same key")
	}
	// The benchmarks' settings do not judge tests.
	k := keys()
	k.BenchArgs, k.CPU, k.Host = nil, 3, "other"
	if k.Tests("baseline", "tree") != base {
		t.Error("the benchmarks' settings changed the tests' key")
	}
}

// TestKeys_Samples: pairs are keyed by both binaries and where each side
// runs, in any order of the benchmarks; a binary with no hash makes no key.
func TestKeys_Samples(t *testing.T) {
	hash := func(p string) string { return p + "-hash" }
	a := &measure.GoBench{Pkg: gobench.Package{ImportPath: "ex/p"}, Name: "BenchmarkA", BaseBin: "a0", CandBin: "a1", N: 100}
	b := &measure.GoBench{Pkg: gobench.Package{ImportPath: "ex/q"}, Name: "BenchmarkB", BaseBin: "b0", CandBin: "b1", N: 10}
	k := keys()
	key := k.Samples([]*measure.GoBench{a, b}, hash)
	if key == "" || k.Samples([]*measure.GoBench{b, a}, hash) != key {
		t.Errorf("the benchmarks' order changed the key, or there is none: %q", key)
	}
	c := *b
	c.CandAt.Sandbox = nil
	c.CandAt.CPU = 2
	if k.Samples([]*measure.GoBench{a, &c}, hash) == key {
		t.Error("another CPU for the candidate: the same key")
	}
	c = *b
	c.N = 20
	if k.Samples([]*measure.GoBench{a, &c}, hash) == key {
		t.Error("another iteration count: the same key")
	}
	k.Host = "another"
	if k.Samples([]*measure.GoBench{a, b}, hash) == key {
		t.Error("another host: the same key")
	}
	noHash := func(p string) string { return strings.TrimSuffix(hash(p), "a1-hash") }
	if got := k.Samples([]*measure.GoBench{a, b}, noHash); got != "" {
		t.Errorf("a binary with no hash: key %q, want none", got)
	}
	if got := k.Calibration("", a, "^BenchmarkA$"); got != "" {
		t.Errorf("base's binary with no hash: calibration key %q, want none", got)
	}
}

// TestKeys_Source: no source key without go env's answer; a candidate that
// changes a module's files gets none asked for.
func TestKeys_Source(t *testing.T) {
	k := keys()
	if got := k.Source("baseline", "tree", ""); got != "" {
		t.Errorf("no build env: key %q, want none", got)
	}
	key := k.Source("baseline", "tree", `{"GOOS":"linux"}`)
	if key == "" || k.Source("baseline", "tree", `{"GOOS":"darwin"}`) == key {
		t.Errorf("another build env: the same key, or none (%q)", key)
	}
	k.BuildFlags = []string{"-tags=x"}
	if k.Source("baseline", "tree", `{"GOOS":"linux"}`) == key {
		t.Error("other build flags: the same key")
	}
	for _, paths := range [][]string{{"a.go", "go.mod"}, {"sub/go.mod"}, {"go.work"}} {
		if !ChangesModules(paths) {
			t.Errorf("ChangesModules(%q) = false", paths)
		}
	}
	if ChangesModules([]string{"a.go", "mod.go"}) {
		t.Error("ChangesModules of Go files = true")
	}
	if FirstsKey("") != "" || ProfileKey("", []string{"BenchmarkA"}) != "" {
		t.Error("a key derived from no source key")
	}
	if FirstsKey(key) == key || FirstsKey(key) == ProfileKey(key, nil) {
		t.Error("the first iterations share a key with the pairs or the profile")
	}
}

// TestProfileKey: the benchmarks a profile ran on key it in any order, and
// the caller's slice is left as it was.
func TestProfileKey(t *testing.T) {
	names := []string{"BenchmarkB", "BenchmarkA"}
	key := ProfileKey("src", names)
	if key != ProfileKey("src", []string{"BenchmarkA", "BenchmarkB"}) || key == ProfileKey("src", names[:1]) {
		t.Error("the profile's key depends on the order of its benchmarks, or not on which")
	}
	if names[0] != "BenchmarkB" {
		t.Errorf("ProfileKey sorted its argument: %q", names)
	}
}

// TestRounds: stored pairs come back as measured, and as samples of the
// reusing job that name the job that measured each.
func TestRounds(t *testing.T) {
	p := measure.Pair{Metrics: [2][]measure.Metric{
		{{Bench: "BenchmarkA", Unit: "sec/op", Value: 2e-6, Iters: 100}},
		{{Bench: "BenchmarkA", Unit: "sec/op", Value: 1e-6, Iters: 100}},
	}}
	rounds := []Round{NewRound("j1", p), NewRound("j2", p), NewRound("j1", p)}
	if got := rounds[1].Metrics(); !slices.Equal(got[0], p.Metrics[0]) || !slices.Equal(got[1], p.Metrics[1]) {
		t.Errorf("Metrics = %v, want %v", got, p.Metrics)
	}
	if got := Jobs(rounds); !slices.Equal(got, []string{"j1", "j2"}) {
		t.Errorf("Jobs = %q", got)
	}
	host := store.Host{Name: "h", CPU: "cpu"}
	rows := Rows(rounds, "j3", "c", host)
	if len(rows) != 6 {
		t.Fatalf("%d rows, want 6", len(rows))
	}
	r := rows[3] // the second round's candidate side
	if r.JobID != "j3" || r.Candidate != "c" || r.ReusedFrom != "j2" || r.Round != 1 || r.Order != 3 || r.Side != "candidate" ||
		r.Value != 1e-6 || r.Iterations != 100 || r.Host != host {
		t.Errorf("row %+v", r)
	}
}

// TestProfile_CopyTo: a reused profile's raw files are copied, the
// candidate's renamed to the reusing candidate, and the summary points at
// the copies; a raw file gone is an error.
func TestProfile_CopyTo(t *testing.T) {
	old, dir := t.TempDir(), filepath.Join(t.TempDir(), "profile")
	files := map[string]string{"base": filepath.Join(old, "base.cpu.pprof"), "cand": filepath.Join(old, "first.cpu.pprof")}
	for role, f := range files {
		if err := os.WriteFile(f, []byte(role), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := Profile{Summary: &profiler.Summary{Candidate: "first", Files: []string{files["base"], files["cand"]}}, Files: files}
	if !p.Usable() || (Profile{Files: files}).Usable() {
		t.Fatal("Usable is wrong")
	}
	sum, got, err := p.CopyTo(dir, "first", "second")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "base.cpu.pprof"), filepath.Join(dir, "second.cpu.pprof")}
	if !slices.Equal(sum.Files, want) || got["base"] != want[0] || got["cand"] != want[1] {
		t.Errorf("copies %v, %v; want %v", sum.Files, got, want)
	}
	if b, err := os.ReadFile(want[1]); err != nil || string(b) != "cand" {
		t.Errorf("the candidate's copy: %q, %v", b, err)
	}
	if p.Summary.Files[1] != files["cand"] {
		t.Error("CopyTo changed the stored summary")
	}
	os.Remove(files["cand"])
	if _, _, err := p.CopyTo(dir, "first", "second"); err == nil {
		t.Error("a raw profile gone: no error")
	}
}

// TestBuildEnv: pairs are keyed by sources only where the build reads
// nothing from outside the tree; a replace by a directory rules that out.
func TestBuildEnv(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command")
	}
	for _, tt := range []struct {
		name, gomod string
		keyed       bool
	}{
		{"Plain", "module example.com/m\n\ngo 1.22\n", true},
		{"ReplaceByVersion", "module example.com/m\n\ngo 1.22\n\nreplace example.com/x => example.com/y v1.0.0\n", true},
		{"ReplaceByDir", "module example.com/m\n\ngo 1.22\n\nreplace example.com/x => ../x\n", false},
		{"ReplaceBlock", "module example.com/m\n\ngo 1.22\n\nreplace (\n\texample.com/x => /src/x\n)\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(tt.gomod), 0o644); err != nil {
				t.Fatal(err)
			}
			git(t, dir, "init", "-q", "-b", "main")
			git(t, dir, "add", "-A")
			git(t, dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base")
			env, err := BuildEnv(context.Background(), dir, "main")
			if err != nil {
				t.Fatal(err)
			}
			if got := env != ""; got != tt.keyed {
				t.Errorf("keyed by sources: %v, want %v", got, tt.keyed)
			}
		})
	}
}

// TestBuildEnv_NotJSON: a go env whose output is no JSON object is an
// error that names the repository and go env -json, not a quiet "".
func TestBuildEnv_NotJSON(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte("#!/bin/sh\necho 'GOROOT=/usr/lib/go'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := t.TempDir()
	env, err := BuildEnv(context.Background(), dir, "main")
	if err == nil || !strings.Contains(err.Error(), "go env -json") || !strings.Contains(err.Error(), dir) {
		t.Fatalf("BuildEnv with go env printing text gave %q, %v; want an error naming go env -json and %s", env, err, dir)
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}
