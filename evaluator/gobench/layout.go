package gobench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/build"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// LayoutFile is the name of the file BuildLayout adds to a package. It
// sorts before any name a package's own files can have ('0' before letters
// and '_'). So the compiler emits its function first, and the linker places
// every function of the package after it.
const LayoutFile = "0optimizer_layout.go"

// layoutStatements is the size of the padding function, in statements. At
// 120 it moves the package's functions by 1632 bytes on amd64 (the fixture's
// SumSquares from 0x52f2c0 to 0x52f920). That is half a cache line more than
// a whole number of them, and part of a page (docs/measuring.md, "No-op
// candidates").
const layoutStatements = 120

// ErrNoLayout reports a package that BuildLayout cannot pad.
var ErrNoLayout = errors.New("no second code layout")

// BuildLayout compiles p's test binary to bin as Build does, with one file
// added to p through go build's -overlay. So nothing in dir changes. The
// file is LayoutFile, a function that never runs, placed before p's own
// functions so that their code moves. The scratch argument is a directory
// for the overlay's files. A package it cannot pad (no package name, flags
// that set -overlay already) returns an error wrapping ErrNoLayout.
func BuildLayout(ctx context.Context, dir string, p Package, bin, scratch string, flags []string) error {
	if slices.ContainsFunc(flags, func(f string) bool {
		name, _, _ := strings.Cut(strings.TrimLeft(f, "-"), "=")
		return name == "overlay"
	}) {
		return fmt.Errorf("%w: the build flags set -overlay", ErrNoLayout)
	}
	pkgDir, err := filepath.Abs(filepath.Join(dir, filepath.FromSlash(p.Dir)))
	if err != nil {
		return err
	}
	bp, err := build.ImportDir(pkgDir, 0)
	if bp == nil || bp.Name == "" {
		return fmt.Errorf("%w: %s has no package name: %v", ErrNoLayout, p.ImportPath, err)
	}
	scratch, err = filepath.Abs(scratch)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		return err
	}
	src := filepath.Join(scratch, fileNameOf(p.ImportPath)+".go")
	if err := os.WriteFile(src, []byte(layoutSource(bp.Name)), 0o644); err != nil {
		return err
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {filepath.Join(pkgDir, LayoutFile): src}})
	if err != nil {
		return err
	}
	ov := filepath.Join(scratch, fileNameOf(p.ImportPath)+".json")
	if err := os.WriteFile(ov, overlay, 0o644); err != nil {
		return err
	}
	return Build(ctx, dir, p.ImportPath, bin, append(slices.Clone(flags), "-overlay="+ov))
}

// layoutSource is LayoutFile's text for package name. The padding function
// is reachable (from init, behind a variable nothing sets) so that the
// linker keeps it, and never runs.
func layoutSource(name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n\n", name)
	b.WriteString("// Added by optimizer for its second code layout; never runs.\n\n")
	b.WriteString("var optimizerLayoutOn bool\n\n")
	b.WriteString("func init() {\n\tif optimizerLayoutOn {\n\t\toptimizerLayoutSink = optimizerLayoutPad(optimizerLayoutSink)\n\t}\n}\n\n")
	b.WriteString("var optimizerLayoutSink int\n\n")
	b.WriteString("//go:noinline\nfunc optimizerLayoutPad(x int) int {\n")
	for i := range layoutStatements {
		fmt.Fprintf(&b, "\tx = x*%d ^ x>>%d\n", 2*i+3, i%7+1)
	}
	b.WriteString("\treturn x\n}\n")
	return b.String()
}

// fileNameOf makes an import path a file name.
func fileNameOf(importPath string) string {
	return strings.NewReplacer("/", "_", "\\", "_", ":", "_").Replace(importPath)
}
