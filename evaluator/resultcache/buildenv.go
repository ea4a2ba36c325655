package resultcache

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/optimizer-dev/optimizer/evaluator/goenv"
	"github.com/optimizer-dev/optimizer/gitcmd"
)

// BuildEnv is go env's output in repo, the part of Keys.Source that says
// how the toolchain builds. It is "" when go env cannot run. It is "" too
// when the build reads a module from outside the tree, through a go.work
// or a replace by a directory. Output of go env that is no
// JSON object of strings is an error that says so.
func BuildEnv(ctx context.Context, repo, base string) (string, error) {
	vars, err := goenv.Read(ctx, repo)
	if errors.Is(err, goenv.ErrRun) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("the build environment of %s: %w", repo, err)
	}
	if vars["GOWORK"] != "" && vars["GOWORK"] != "off" {
		return "", nil
	}
	_, err = gitcmd.Run(ctx, gitcmd.Cmd{Dir: repo, ReadOnly: true,
		Args: []string{"grep", "-q", "-E", `=>[[:space:]]*(\.|/)`, base, "--", "go.mod", "**/go.mod"}})
	var ge *gitcmd.Error
	if err == nil {
		return "", nil // a replace by a directory: found
	} else if !errors.As(err, &ge) || ge.ExitCode() != 1 {
		return "", nil // git grep could not tell
	}
	// GOGCCFLAGS names a fresh temporary directory at every call; what it
	// says of the C compiler is in CC and CGO_CFLAGS.
	delete(vars, "GOGCCFLAGS")
	b, _ := json.Marshal(vars) // keys sorted
	return string(b), nil
}
