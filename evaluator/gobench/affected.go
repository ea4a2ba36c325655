package gobench

import "context"

// Affected returns the import paths of the packages of the module at dir
// whose tests can see a change to files (slash paths relative to dir). They
// are the packages containing those files, and every package of the module
// that imports them. The import may be direct or transitive, from its own
// code or from its tests. A change to go.mod, go.sum, go.work or
// go.work.sum affects every package. The rules are those of Packages,
// without its filter on benchmarks. A file in no package's directory or
// parent affects none, such as a README at the root of a module without a
// root package. The paths are sorted; none is an empty slice and no error.
func Affected(ctx context.Context, dir string, files []string) ([]string, error) {
	pkgs, err := reached(ctx, dir, files, false)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(pkgs))
	for i, p := range pkgs {
		out[i] = p.ImportPath
	}
	return out, nil
}
