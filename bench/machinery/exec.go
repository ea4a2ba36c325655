package main

import (
	"context"
	"os/exec"
)

// combined runs a command in dir and returns its combined output.
func combined(ctx context.Context, dir, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}
