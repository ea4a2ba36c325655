// Command machinery measures the speed of optimizer's machinery: the slot
// pool, the evaluator's phase 1 and the store. It compares them against the
// naive ways of doing the same, on synthetic repositories, and prints
// Markdown tables.
//
//	go run ./bench/machinery                       # 1k and 20k files, every section
//	go run ./bench/machinery -files 1000 -reps 1   # a quick look
//
// Every optimizer figure is measured through the real code: evaluator.Run
// with a worktreepool.Pool and a store.DB, or the real CLI binary. The naive
// baselines run the git commands directly. All configurations run in the
// same process, one after the other, so their ratios are comparable; each
// figure is the median of -reps repetitions. See bench/README.md.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == spinCommand {
		spinMain(os.Args[2:])
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "machinery:", err)
		os.Exit(1)
	}
}
