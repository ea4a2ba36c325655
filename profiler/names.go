package profiler

import (
	"path"
	"strings"
)

// Names of the rows that fold code outside the module.
const (
	RuntimeRow = "(runtime)"
	OtherRow   = "(other)"
)

// class sorts a function into the module's own code, the Go runtime, or
// everything else (the standard library, testing, dependencies).
type class int

const (
	classModule class = iota
	classRuntime
	classOther
)

// namer classifies functions and turns file names into module-relative
// paths. It holds no state that changes, so one namer serves both sides.
type namer struct {
	module string   // module path, "" when unknown
	roots  []string // absolute module roots, slash-separated, no trailing slash
}

func newNamer(module string, roots []string) *namer {
	n := &namer{module: strings.TrimSuffix(module, "/")}
	for _, r := range roots {
		if r = strings.TrimSuffix(toSlash(r), "/"); r != "" {
			n.roots = append(n.roots, r)
		}
	}
	return n
}

// pkgPath returns the import path part of a Go symbol name:
// "example.com/m/sub.(*T).M" -> "example.com/m/sub", "runtime.mallocgc" ->
// "runtime". Names without a package return "".
func pkgPath(name string) string {
	// Type parameters and receivers may hold dots and slashes of their own.
	head := name
	if i := strings.IndexAny(head, "[("); i >= 0 {
		head = head[:i]
	}
	slash := strings.LastIndex(head, "/")
	dot := strings.Index(head[slash+1:], ".")
	if dot < 0 {
		return ""
	}
	return head[:slash+1+dot]
}

// shortName drops the directories of a symbol's import path, as pprof does:
// "example.com/m/sub.(*T).M" -> "sub.(*T).M".
func shortName(name string) string {
	pkg := pkgPath(name)
	if i := strings.LastIndex(pkg, "/"); i >= 0 {
		return name[i+1:]
	}
	return name
}

// isRuntime reports whether an import path belongs to the Go runtime or the
// helpers it is built from.
func isRuntime(pkg string) bool {
	switch {
	case pkg == "runtime", strings.HasPrefix(pkg, "runtime/"),
		strings.HasPrefix(pkg, "internal/runtime/"),
		pkg == "internal/bytealg", pkg == "internal/abi":
		return true
	}
	return false
}

// class returns the class of a function, from its name and its file.
func (n *namer) class(name, file string) class {
	pkg := pkgPath(name)
	if isRuntime(pkg) {
		return classRuntime
	}
	if n.inModule(pkg, file) {
		return classModule
	}
	return classOther
}

// inModule reports whether a function of package pkg defined in file is the
// module's own code. Without a module path, any package outside the standard
// library counts (its first element has a dot), dependencies included.
func (n *namer) inModule(pkg, file string) bool {
	if n.module == "" {
		first, _, _ := strings.Cut(pkg, "/")
		return strings.Contains(first, ".")
	}
	m := n.module
	if pkg == m || pkg == m+"_test" || strings.HasPrefix(pkg, m+"/") {
		return true
	}
	file = toSlash(file)
	if strings.HasPrefix(file, m+"/") {
		return true
	}
	for _, r := range n.roots {
		if strings.HasPrefix(file, r+"/") {
			return true
		}
	}
	return false
}

// relFile makes a profile's file name relative to the module root. The abs
// result reports a name that stayed absolute. Such a name is cut to its
// base name, so that no directory outside the module (a slot) is ever
// shown.
func (n *namer) relFile(file string) (rel string, abs bool) {
	file = toSlash(file)
	if n.module != "" && strings.HasPrefix(file, n.module+"/") {
		return file[len(n.module)+1:], false
	}
	for _, r := range n.roots {
		if strings.HasPrefix(file, r+"/") {
			return file[len(r)+1:], false
		}
	}
	if path.IsAbs(file) || isWindowsAbs(file) {
		return path.Base(file), true
	}
	return file, false
}

func toSlash(p string) string { return strings.ReplaceAll(p, `\`, "/") }

func isWindowsAbs(p string) bool {
	return len(p) >= 3 && p[1] == ':' && p[2] == '/'
}

// scrub removes the roots from a message, so that it names no slot.
func (n *namer) scrub(s string) string {
	for _, r := range n.roots {
		s = strings.ReplaceAll(s, r+"/", "")
		s = strings.ReplaceAll(s, r, ".")
	}
	return s
}
