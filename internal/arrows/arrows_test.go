package arrows

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/optimizer-dev/optimizer"

// layers lists the module's packages, top first; commands (package main)
// sit above them all. A package imports only packages on lower layers, and
// packages on one layer do not import each other. A nested package sits at
// or below its parent, and never imports a package it is nested in.
var layers = [][]string{
	{"cmd/optimizer/internal/config", "cmd/optimizer/internal/demo"},
	{"client"},
	{"daemon"},
	{"mcp"},
	{"dashboard", "optimize", "premerge"},
	{"progress"},
	{"watch"},
	{"report"},
	{"evaluator"},
	{"evaluator/resultcache", "evaluator/winprofile", "evaluator/calibrate", "evaluator/stored"},
	{"eta", "evaluator/apply", "evaluator/hackcheck", "evaluator/holdout", "evaluator/measure", "evaluator/testedits", "evaluator/testjudge", "api"},
	{"result"},
	{"evaluator/benchformat", "evaluator/junit", "evaluator/scope"},
	{"evaluator/candidate", "evaluator/gobench", "evaluator/gotest", "evaluator/reportfiles", "shard", "stats", "excerpt", "machine"},
	{"worktreepool", "store", "profiler", "testdata", "internal/testenv", "evaluator/sandbox"},
	{"gitcmd", "evaluator/goenv"},
	{"proc", "internal/testenv/hog", "internal/perm", "internal/browser", "internal/arrows", "jobspec"},
}

// known are today's imports against the arrows, to be removed by moving
// packages. The list may only shrink: the test fails on an import that is
// neither allowed nor here, and on an entry here that no longer happens.
var known = []string{}

// TestImports checks the non-test imports of every package in the module.
func TestImports(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	cmd := exec.Command("go", "list", "-e", "-f", "{{.ImportPath}} {{.Name}} {{join .Imports \" \"}}", "./...", "./testdata")
	cmd.Dir = "../.."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	rank := map[string]int{}
	for i, l := range layers {
		for _, p := range l {
			rank[p] = i
		}
	}
	var found []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		from, name := strings.TrimPrefix(strings.TrimPrefix(f[0], module), "/"), f[1]
		if name == "main" {
			continue // a command may import anything
		}
		r, ok := rank[from]
		if !ok {
			t.Errorf("package %s is on no layer: add it to layers in internal/arrows", from)
			continue
		}
		for _, imp := range f[2:] {
			to, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				continue
			}
			if bad := judge(from, to, r, rank); bad != "" {
				arrow := from + " -> " + to
				if !slices.Contains(known, arrow) {
					t.Errorf("%s: %s", arrow, bad)
				}
				found = append(found, arrow)
			}
		}
	}
	for _, k := range known {
		if !slices.Contains(found, k) {
			t.Errorf("%s is against the arrows no more: remove it from known", k)
		}
	}
	for p, r := range rank {
		for parent, pr := range rank {
			if strings.HasPrefix(p, parent+"/") && r < pr {
				t.Errorf("%s is on a layer above its parent %s", p, parent)
			}
		}
	}
}

// judge says what is wrong with from importing to, or "".
func judge(from, to string, r int, rank map[string]int) string {
	if strings.HasPrefix(from, to+"/") {
		return "a package imports one it is nested in"
	}
	tr, ok := rank[to]
	switch {
	case !ok:
		return "" // reported as on no layer
	case tr < r:
		return fmt.Sprintf("imports a package on a layer above it (%v)", layers[tr])
	case tr == r:
		return "imports a package on its own layer"
	}
	return ""
}
