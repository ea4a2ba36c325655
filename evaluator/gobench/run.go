package gobench

import (
	"context"
	"errors"
	"fmt"

	"github.com/optimizer-dev/optimizer/proc"
)

// tailLines and tailBytes bound the output an error carries.
const (
	tailLines = 30
	tailBytes = 8 << 10
)

var (
	// ErrNoResult is returned by Calibrate and Sample when the benchmark
	// exits zero without printing a result, as one that calls b.Skip does.
	ErrNoResult = errors.New("no benchmark result")
)

// run runs c and turns what went wrong into an error. When ctx ended the
// run, that is the context's error, wrapped; otherwise the exit status with
// the tail of the output. name says what ran, for the error.
func run(ctx context.Context, name string, c proc.Cmd) (proc.Result, error) {
	res, err := proc.Run(ctx, c)
	switch {
	case err != nil:
		return res, err
	case res.Canceled && ctx.Err() != nil:
		return res, fmt.Errorf("run %s: %w", name, ctx.Err())
	case res.TimedOut:
		return res, fmt.Errorf("run %s: timed out after %s", name, c.Timeout)
	case res.ExitCode < 0:
		return res, fmt.Errorf("%s was killed by a signal:\n%s", name, tail(res.Output))
	case res.ExitCode != 0:
		return res, fmt.Errorf("%s exits %d:\n%s", name, res.ExitCode, tail(res.Output))
	}
	return res, nil
}

// tail returns the last tailLines lines of out, at most tailBytes of them.
func tail(out []byte) string {
	s := proc.Tail(out, tailLines)
	if len(s) > tailBytes {
		s = "…" + s[len(s)-tailBytes:]
	}
	return s
}
