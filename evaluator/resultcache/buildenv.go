package resultcache

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"

	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/proc"
)

// BuildEnv is go env's output in repo, the part of Keys.Source that says
// how the toolchain builds. It is "" when the build reads a module from
// outside the tree: a go.work in use, or a replace by a directory in any
// go.mod of base.
func BuildEnv(ctx context.Context, repo, base string) string {
	cmd := exec.CommandContext(ctx, "go", "env", "-json")
	cmd.Dir = repo
	proc.Tag(cmd)
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	var vars map[string]string
	if json.Unmarshal(out, &vars) != nil || (vars["GOWORK"] != "" && vars["GOWORK"] != "off") {
		return ""
	}
	_, err = gitcmd.Run(ctx, gitcmd.Cmd{Dir: repo, ReadOnly: true,
		Args: []string{"grep", "-q", "-E", `=>[[:space:]]*(\.|/)`, base, "--", "go.mod", "**/go.mod"}})
	var ge *gitcmd.Error
	if err == nil {
		return "" // a replace by a directory: found
	} else if !errors.As(err, &ge) || ge.ExitCode() != 1 {
		return "" // git grep could not tell
	}
	// GOGCCFLAGS names a fresh temporary directory at every call; what it
	// says of the C compiler is in CC and CGO_CFLAGS.
	delete(vars, "GOGCCFLAGS")
	b, _ := json.Marshal(vars) // keys sorted
	return string(b)
}
