package gobench

import (
	"context"
	"path/filepath"
	"slices"

	"github.com/optimizer-dev/optimizer/proc"
)

// Build compiles importPath's test binary to bin, running
// "go test -c -trimpath -o bin [flags...] importPath" in dir, unpinned.
// flags are the user's build flags (-tags=noasm). A relative bin is relative
// to the current directory, not to dir. The error carries the end of the
// compiler's output.
func Build(ctx context.Context, dir, importPath, bin string, flags []string) error {
	bin, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	args := slices.Concat([]string{"go", "test", "-c", "-trimpath", "-o", bin}, flags, []string{importPath})
	_, err = run(ctx, "go test -c", proc.Cmd{Dir: dir, Args: args, CPU: -1})
	return err
}
