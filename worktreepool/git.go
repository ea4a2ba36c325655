package worktreepool

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/optimizer-dev/optimizer/gitcmd"
)

// runGit runs one git command through the git runner (its own process
// group, killed whole when ctx is done, no hooks, no fsmonitor) and returns
// its stdout.
func runGit(ctx context.Context, stdin io.Reader, args ...string) ([]byte, error) {
	return gitcmd.Run(ctx, gitcmd.Cmd{Args: args, Stdin: stdin})
}

// inRepo runs git against the user's repository at root. Only worktree
// bookkeeping goes through it.
func inRepo(ctx context.Context, root string, args ...string) ([]byte, error) {
	return runGit(ctx, nil, append([]string{"-C", root}, args...)...)
}

// commonDir returns the absolute git common dir of the repository at root.
func commonDir(ctx context.Context, root string) (string, error) {
	out, err := inRepo(ctx, root, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return "", fmt.Errorf("not a git repository: %s: %w", root, err)
	}
	return strings.TrimSpace(string(out)), nil
}
