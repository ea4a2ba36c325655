package gobench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/optimizer-dev/optimizer/proc"
)

// Package is a Go package with benchmarks.
type Package struct {
	ImportPath string
	Dir        string   // the package directory relative to the module root, slash form ("." for the root)
	Benchmarks []string // top-level benchmark function names, e.g. "BenchmarkSumSquares", sorted
}

// listed is what go list says about one package.
type listed struct {
	ImportPath   string
	Dir          string // absolute
	Deps         []string
	TestImports  []string
	XTestImports []string
	TestGoFiles  []string
	XTestGoFiles []string
	Error        *struct{ Err string }

	rel string // Dir relative to the module root, slash form
}

// listFields are the fields Packages asks go list for.
const listFields = "ImportPath,Dir,Deps,TestImports,XTestImports,TestGoFiles,XTestGoFiles,Error"

// Packages lists, in dir (a module root), the packages whose benchmarks
// measure a change to files (slash paths relative to dir). They are the
// packages containing those files, and every package of the module that
// imports them. The import may be direct or transitive, from its own code
// or from its tests. With all, or when files include the module's go.mod,
// go.sum or go.work, it is every package of the module. A changed file
// counts for the package of its directory. When that directory holds no
// package (testdata, a directory of embedded files), it counts for the
// nearest parent that is one. Only packages with at least one benchmark are
// returned, sorted by import path. Packages runs go list without the user's
// build flags. So files and packages behind build tags are seen as the
// default build sees them.
func Packages(ctx context.Context, dir string, files []string, all bool) ([]Package, error) {
	pkgs, err := reached(ctx, dir, files, all)
	if err != nil {
		return nil, err
	}
	return withBenchmarks(pkgs)
}

// reached lists the packages of the module at dir that a change to files
// reaches, by the rules of Packages, benchmarks or not.
func reached(ctx context.Context, dir string, files []string, all bool) ([]*listed, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	pkgs, err := list(ctx, root)
	if err != nil {
		return nil, err
	}
	if !all && !changesModule(files) {
		pkgs = affected(pkgs, changed(pkgs, files))
	}
	return pkgs, nil
}

// list runs go list on the packages of the module at root. It lists
// packages with errors too (-e), since Build reports those better, but not
// a pattern that matches no directory, such as "./..." outside a module.
func list(ctx context.Context, root string) ([]*listed, error) {
	var stdout bytes.Buffer
	args := []string{"go", "list", "-e", "-json=" + listFields, "./..."}
	if _, err := run(ctx, "go list", proc.Cmd{Dir: root, Args: args, CPU: -1, Stdout: &stdout}); err != nil {
		return nil, err
	}
	pkgs, err := decodeList(&stdout, root)
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	slices.SortFunc(pkgs, func(a, b *listed) int { return strings.Compare(a.ImportPath, b.ImportPath) })
	return pkgs, nil
}

// decodeList reads go list's stream of JSON objects and keeps the packages
// under root.
func decodeList(r io.Reader, root string) ([]*listed, error) {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		real = root
	}
	var pkgs []*listed
	for d := json.NewDecoder(r); ; {
		p := new(listed)
		if err := d.Decode(p); errors.Is(err, io.EOF) {
			return pkgs, nil
		} else if err != nil {
			return nil, err
		}
		if p.Dir == "" && p.Error != nil {
			return nil, fmt.Errorf("%s: %s", p.ImportPath, p.Error.Err)
		}
		if rel, ok := under(root, real, p.Dir); ok {
			p.rel = rel
			pkgs = append(pkgs, p)
		}
	}
}

// under returns dir relative to root, in slash form, and whether it is under
// root at all. The go list command may report dir with symbolic links
// resolved, so real, root with its links resolved, is tried too.
func under(root, real, dir string) (string, bool) {
	for _, r := range []string{root, real} {
		rel, err := filepath.Rel(r, dir)
		if err == nil && filepath.IsLocal(rel) || rel == "." {
			return filepath.ToSlash(rel), true
		}
	}
	return "", false
}

// changesModule reports whether files include a file that changes the build
// of every package: go.mod, go.sum, go.work or go.work.sum at the root.
func changesModule(files []string) bool {
	return slices.ContainsFunc(files, func(f string) bool {
		switch path.Clean(f) {
		case "go.mod", "go.sum", "go.work", "go.work.sum":
			return true
		}
		return false
	})
}

// changed returns the import paths of the packages that files belong to.
func changed(pkgs []*listed, files []string) map[string]bool {
	byDir := map[string]string{}
	for _, p := range pkgs {
		byDir[p.rel] = p.ImportPath
	}
	out := map[string]bool{}
	for _, f := range files {
		for dir := path.Dir(path.Clean(f)); ; dir = path.Dir(dir) {
			if ip, ok := byDir[dir]; ok {
				out[ip] = true
				break
			}
			if dir == "." || dir == "/" || dir == ".." {
				break
			}
		}
	}
	return out
}

// affected returns the packages of pkgs that are in changed or depend on
// one that is, through their imports or their tests' imports.
func affected(pkgs []*listed, changed map[string]bool) []*listed {
	byPath := map[string]*listed{}
	for _, p := range pkgs {
		byPath[p.ImportPath] = p
	}
	reaches := func(ip string) bool {
		p, ok := byPath[ip]
		return changed[ip] || ok && slices.ContainsFunc(p.Deps, func(d string) bool { return changed[d] })
	}
	var out []*listed
	for _, p := range pkgs {
		if reaches(p.ImportPath) ||
			slices.ContainsFunc(p.TestImports, reaches) ||
			slices.ContainsFunc(p.XTestImports, reaches) {
			out = append(out, p)
		}
	}
	return out
}

// withBenchmarks returns the packages of pkgs that have benchmarks.
func withBenchmarks(pkgs []*listed) ([]Package, error) {
	var out []Package
	for _, p := range pkgs {
		names, err := benchmarks(p.Dir, slices.Concat(p.TestGoFiles, p.XTestGoFiles))
		if err != nil {
			return nil, fmt.Errorf("find benchmarks of %s: %w", p.ImportPath, err)
		}
		if len(names) > 0 {
			out = append(out, Package{ImportPath: p.ImportPath, Dir: p.rel, Benchmarks: names})
		}
	}
	return out, nil
}
