package main

import (
	"io"
	"os"

	"golang.org/x/term"
)

// showBars says whether a job's progress on w is drawn as bars
// (progress.Bars). It is on a terminal, and not with -v, whose log lines
// would tear them. Elsewhere it is plain lines.
func showBars(w io.Writer, verbose bool) bool { return !verbose && isTerminal(w) }

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
