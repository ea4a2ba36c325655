package gotest

import (
	"slices"
	"strings"
)

// Status is the outcome of one test or package.
type Status string

// The statuses.
const (
	StatusPass Status = "pass"
	StatusFail Status = "fail"
	StatusSkip Status = "skip"
)

// Run is the result of one run of go test. It is plain data: safe to share
// once built, and it round-trips through JSON (the baseline cache stores it).
type Run struct {
	// Tests holds one status per test, keyed by Key(importpath, test). It
	// also holds one fail per package that failed at package level, keyed
	// by its import path alone. That is a build or setup failure, or a
	// failure that no failing test explains.
	Tests map[string]Status `json:"tests"`

	// Packages holds the status of every package seen: pass, fail, or skip
	// ("no test files").
	Packages map[string]Status `json:"packages,omitempty"`

	// BuildFailed lists, sorted, the packages whose build or setup failed.
	BuildFailed []string `json:"build_failed,omitempty"`

	// Output holds a capped excerpt per failing key of Tests, for the
	// first MaxFailureExcerpts failing tests and packages in the stream.
	Output map[string]string `json:"output,omitempty"`

	// OutputDropped counts the failing keys of Tests whose output was not
	// kept, past MaxFailureExcerpts.
	OutputDropped int `json:"output_dropped,omitempty"`

	// Text is a capped excerpt of the stream's lines that were neither
	// events nor build output. It holds what else shared the stream, such
	// as go command errors when stderr is merged in.
	Text string `json:"text,omitempty"`

	// Elapsed is how long each test that passed took, in seconds, as go
	// test reports it (a parallel test's wait for its turn not counted).
	Elapsed map[string]float64 `json:"elapsed,omitempty"`

	// Passed, Failed and Skipped count the entries of Tests, so package-level
	// failures count as failed.
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
}

// Key returns the key of test in package pkg: "pkg.Test" or, for a stream
// without package names, the test alone.
func Key(pkg, test string) string {
	switch {
	case test == "":
		return pkg
	case pkg == "":
		return test
	}
	return pkg + "." + test
}

// Split splits a key of r.Tests into package and test name, using the
// packages r saw; a package-level key gives an empty test. It falls back on
// SplitKey for a key of no known package.
func (r *Run) Split(key string) (pkg, test string) {
	if r != nil {
		if _, ok := r.Packages[key]; ok {
			return key, ""
		}
		best := -1
		for p := range r.Packages {
			if len(p) > best && strings.HasPrefix(key, p) && len(key) > len(p) && key[len(p)] == '.' {
				best, pkg = len(p), p
			}
		}
		if best >= 0 {
			return pkg, key[best+1:]
		}
	}
	return SplitKey(key)
}

// SplitKey splits a key into package and test name without knowing the
// packages. The test name starts at the first "." followed by a Test,
// Benchmark, Example or Fuzz identifier that ends the key or is followed by
// "/". Import paths may hold dots ("gopkg.in/yaml.v3") and subtest names may
// hold anything, so prefer Run.Split when the Run is at hand. A key with no
// test name gives an empty test.
func SplitKey(key string) (pkg, test string) {
	if isTestName(key) {
		return "", key
	}
	for i := 0; i < len(key); i++ {
		if key[i] == '.' && i > 0 && isTestName(key[i+1:]) {
			return key[:i], key[i+1:]
		}
	}
	return key, ""
}

// isTestName reports whether s starts with a top-level test function name
// followed by the end or "/".
func isTestName(s string) bool {
	top, _, _ := strings.Cut(s, "/")
	if top == "" || strings.ContainsAny(top, ". \t") {
		return false
	}
	for _, p := range []string{"Test", "Benchmark", "Example", "Fuzz"} {
		if strings.HasPrefix(top, p) {
			return true
		}
	}
	return false
}

// count sets Passed, Failed and Skipped from Tests.
func (r *Run) count() {
	r.Passed, r.Failed, r.Skipped = 0, 0, 0
	for _, s := range r.Tests {
		switch s {
		case StatusPass:
			r.Passed++
		case StatusFail:
			r.Failed++
		case StatusSkip:
			r.Skipped++
		}
	}
}

// built reports whether pkg ran (it has a status) and did not fail to build.
func (r *Run) built(pkg string) bool {
	_, ok := r.Packages[pkg]
	return ok && !r.buildFailed(pkg)
}

func (r *Run) buildFailed(pkg string) bool {
	return slices.Contains(r.BuildFailed, pkg)
}
