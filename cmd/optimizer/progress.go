package main

import (
	"io"
	"os"

	"golang.org/x/term"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/progress"
)

// showProgress drains events until the channel is closed, writing progress
// to w: bars on a terminal, plain lines elsewhere (and with -v, where log
// lines would tear bars). It is the only writer to the terminal while a job
// runs.
func showProgress(events <-chan evaluator.Event, w io.Writer, verbose bool, est *evaluator.ETA) {
	if !verbose && isTerminal(w) {
		progress.Bars(events, w, est)
		return
	}
	progress.Lines(events, w, est)
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
