// Command optimizer evaluates candidate changes to a git repository: which
// are correct, which are really faster, and why. See DESIGN.md.
//
// Flags and optimizer.toml stop here. This package turns them into
// evaluator.Options and wires the store, the slot pool and the evaluator
// together. It owns the terminal (progress and reports) and maps errors to
// exit codes.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-sigs
		// After the first signal the job winds down; a second one kills at
		// once. The signal is the cause, so that the exit status says it.
		signal.Stop(sigs)
		if s, ok := sig.(syscall.Signal); ok {
			cancel(&signalError{s})
		} else {
			cancel(nil)
		}
	}()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		os.Exit(exitCode(err))
	}
}
