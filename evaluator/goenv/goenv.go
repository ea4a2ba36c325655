// Package goenv reads the go command's environment (go env -json), and
// makes the GOFLAGS every test command runs with.
package goenv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"

	"github.com/optimizer-dev/optimizer/proc"
)

// ErrRun is go env that could not run or exited non-zero: no go, say.
var ErrRun = errors.New("go env did not run")

// Read runs go env -json in dir ("" is this process's) for names (none is
// every variable) and returns its variables. A go that cannot run is an
// error wrapping ErrRun; output that is not a JSON object of strings is an
// error that says so and quotes its start.
func Read(ctx context.Context, dir string, names ...string) (map[string]string, error) {
	cmd := exec.CommandContext(ctx, "go", append([]string{"env", "-json"}, names...)...)
	cmd.Dir = dir
	proc.Tag(cmd)
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrRun, err)
	}
	return parse(out)
}

// parse decodes go env -json's output.
func parse(out []byte) (map[string]string, error) {
	var vars map[string]string
	if err := json.Unmarshal(out, &vars); err != nil {
		start := out[:min(len(out), 80)]
		return nil, fmt.Errorf("parse the output of go env -json (%q): %w", start, err)
	}
	return vars, nil
}
