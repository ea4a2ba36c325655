package config

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/pflag"
)

// WatchRefused are run flags that make no sense in watch mode, and why: on
// the command line they are refused (RefuseForWatch), from optimizer.toml
// (shared with run) they are ignored (ForWatch).
var WatchRefused = map[string]string{
	"base":               "watch compares against HEAD and follows it",
	"candidate-ref":      "watch evaluates the working tree (and --candidates DIR)",
	"fail-on-regression": "watch has no exit status per evaluation",
	"fail-on-failed":     "watch has no exit status per evaluation",
}

// RegisterForWatch adjusts run's flags on fs (Register) for watch: the
// refused ones hidden, and the usage of those that mean more to watch.
func RegisterForWatch(fs *pflag.FlagSet) {
	for name := range WatchRefused {
		fs.MarkHidden(name)
	}
	for name, usage := range map[string]string{
		"candidates": "a directory of candidates to watch too: each NAME.patch, NAME/ or .jsonl saved there is evaluated against HEAD (repeatable)",
		"all":        "test and benchmark every package, not only those the change touches or that import them",
		"test":       "test command, run with sh -c in each slot, with -count=1 added to GOFLAGS (default: go test -json of the affected packages, in a Go module)",
		"format":     "text (one line per evaluation) or json (one object per line)",
		"keep-slots": "keep the slots warm when watch stops, for the next run, instead of removing them",
		"verbose":    "log what happens to stderr, and print each evaluation's full report",
	} {
		fs.Lookup(name).Usage = usage
	}
}

// RefuseForWatch fails when a WatchRefused flag was given on the command
// line: changed reports whether it was.
func RefuseForWatch(changed func(flag string) bool) error {
	for name, why := range WatchRefused {
		if changed(name) {
			return fmt.Errorf("--%s is not allowed: %s", name, why)
		}
	}
	return nil
}

// ForWatch makes o, merged and validated, watch's. It drops the refused
// settings and turns every --candidates into a directory to watch. A
// Markdown format is refused when the command line gave it (formatGiven),
// and becomes plain text when optimizer.toml did.
func (o *Run) ForWatch(formatGiven bool) error {
	o.Base, o.CandidateRefs, o.FailOnRegr = "HEAD", nil, false
	if o.Format == FormatMarkdown {
		if formatGiven {
			return errors.New("--format markdown: watch prints text lines or JSON lines")
		}
		o.Format = FormatText
	}
	for _, p := range o.Candidates {
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			return fmt.Errorf("--candidates %s: watch takes a directory of candidates to watch", p)
		}
	}
	return nil
}
