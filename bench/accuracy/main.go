// Command accuracy runs real A/A and A/B trials of the fixture through the
// real optimizer CLI. It reports how often our method calls identical code
// faster or slower (false positives), and how often it calls a real speedup
// faster (detection). Beside them it applies codeflash's acceptance rule to
// the very same samples.
//
//	go run ./bench/accuracy -aa 100 -k 10 -o results.md
//
// What flows through it:
//   - the fixture repository (package testdata) and the candidates of every
//     trial are written to a work directory;
//   - the CLI is built once and run as a child process, one job per batch
//     of trials, all jobs recording into one store file;
//   - the store's raw samples are read back and summarised in Markdown.
//
// With -from, a store written by an earlier run is summarised again without
// measuring anything.
//
// docs/measuring.md has the results and explains the mapping of codeflash's
// protocol onto our interleaved samples (see codeflash.go).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "accuracy:", err)
		}
		os.Exit(exitCode(err))
	}
}

// exitCode maps errors to the exit status, in one place.
func exitCode(err error) int {
	var u usageError
	switch {
	case errors.Is(err, flag.ErrHelp), errors.As(err, &u):
		return 2
	default:
		return 1
	}
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// options are the harness's flags.
type options struct {
	AA        int      // A/A trials in all
	K         int      // trials of each A/B change
	Changes   []string // which A/B changes: kind names
	PerJob    int      // most trials in one optimizer job
	Seed      uint64   // shuffles the order of trials
	Out       string   // also write the Markdown report here
	CSV       string   // write one row per trial here
	Work      string   // work directory, kept; "" is a temporary one, removed
	From      []string // summarise these stores instead of measuring
	Optimizer string   // a prebuilt optimizer binary; "" builds one
	Flags     []string // extra optimizer flags, e.g. --no-pin
	Command   string   // the command line, as the report prints it
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("accuracy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&o.AA, "aa", 100, "A/A trials in all (identical code; only a comment differs)")
	fs.IntVar(&o.K, "k", 10, "trials of each A/B change")
	changes := fs.String("changes", "x125,x2", "A/B changes to run, comma-separated: "+strings.Join(changeNames(), ", "))
	fs.IntVar(&o.PerJob, "per-job", 20, "most trials in one optimizer job (a job calibrates once, on base)")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the order of trials within and across jobs")
	fs.StringVar(&o.Out, "o", "", "also write the Markdown report to this file")
	fs.StringVar(&o.CSV, "csv", "", "write one CSV row per trial to this file")
	fs.StringVar(&o.Work, "work", "", "work directory (repo, candidates, store, logs), kept afterwards; default: a temporary one")
	fs.Func("from", "summarise the trials in this store file, written by an earlier run, instead of measuring (repeatable)", func(s string) error {
		o.From = append(o.From, s)
		return nil
	})
	fs.StringVar(&o.Optimizer, "optimizer", "", "use this optimizer binary instead of building ./cmd/optimizer")
	fs.Func("flag", "extra optimizer flag, e.g. -flag=--no-pin (repeatable)", func(s string) error {
		o.Flags = append(o.Flags, s)
		return nil
	})
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: go run ./bench/accuracy [flags]\n\n"+
			"Runs A/A and A/B trials of the fixture through the optimizer CLI and prints\n"+
			"our verdicts next to codeflash's rule on the same samples, as Markdown.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, usageError{fmt.Sprintf("unexpected arguments: %q", fs.Args())}
	}
	if *changes != "" {
		o.Changes = strings.Split(*changes, ",")
	}
	for _, c := range o.Changes {
		if _, ok := kindByName(c); !ok || c == kindAA {
			return o, usageError{fmt.Sprintf("-changes: unknown change %q (have %s)", c, strings.Join(changeNames(), ", "))}
		}
	}
	if o.AA < 0 || o.K < 0 || o.PerJob < 1 {
		return o, usageError{"-aa and -k must be at least 0, -per-job at least 1"}
	}
	if o.From == nil && o.AA+o.K*len(o.Changes) == 0 {
		return o, usageError{"no trials: give -aa or -k"}
	}
	o.Command = "go run ./bench/accuracy " + strings.Join(args, " ")
	return o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	start := sampleMachine()
	stores := o.From
	if stores == nil {
		w, cleanup, err := makeWorkDir(o.Work)
		if err != nil {
			return err
		}
		defer cleanup()
		dbPath, err := measure(ctx, o, w, stderr)
		if err != nil {
			return err
		}
		m := measurement{Command: o.Command, Start: start, End: sampleMachine()}
		if err := m.write(string(w)); err != nil {
			return fmt.Errorf("record the machine: %w", err)
		}
		stores = []string{dbPath}
	}
	var (
		trials []trial
		runs   []measurement
	)
	for _, path := range stores {
		ts, err := readTrials(ctx, path)
		if err != nil {
			return err
		}
		trials, runs = append(trials, ts...), append(runs, readMeasurement(path))
	}
	if len(trials) == 0 {
		return fmt.Errorf("no trials in %s", strings.Join(stores, ", "))
	}
	rep := report{Command: o.Command, Runs: runs, Trials: trials, Summaries: summarise(trials)}
	var aa [][]float64
	var aaTrials []trial
	for _, t := range trials {
		if t.Kind == kindAA {
			aaTrials = append(aaTrials, t)
			if t.Series != nil {
				aa = append(aa, t.Series)
			}
		}
	}
	if len(aa) > 0 {
		rep.Replays, rep.Shape = replayAA(aa), shapeOf(aaTrials)
	}
	if err := writeOutputs(o, rep, stdout); err != nil {
		return err
	}
	return nil
}

// writeOutputs prints the Markdown report and writes the files asked for.
func writeOutputs(o options, rep report, stdout io.Writer) error {
	var md strings.Builder
	rep.writeMarkdown(&md)
	if _, err := io.WriteString(stdout, md.String()); err != nil {
		return err
	}
	if o.Out != "" {
		if err := os.WriteFile(o.Out, []byte(md.String()), 0o644); err != nil {
			return fmt.Errorf("write report: %w", err)
		}
	}
	if o.CSV != "" {
		f, err := os.Create(o.CSV)
		if err != nil {
			return fmt.Errorf("write trials: %w", err)
		}
		if err := writeCSV(f, rep.Trials); err != nil {
			f.Close()
			return fmt.Errorf("write trials: %w", err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("write trials: %w", err)
		}
	}
	return nil
}

// makeWorkDir returns dir, created, or a new temporary directory that
// cleanup removes.
func makeWorkDir(dir string) (workDir, func(), error) {
	if dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return "", nil, err
		}
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return "", nil, fmt.Errorf("make work directory: %w", err)
		}
		if entries, _ := os.ReadDir(abs); len(entries) > 0 {
			return "", nil, usageError{fmt.Sprintf("-work %s is not empty", dir)}
		}
		return workDir(abs), func() {}, nil
	}
	tmp, err := os.MkdirTemp("", "optimizer-accuracy-")
	if err != nil {
		return "", nil, fmt.Errorf("make work directory: %w", err)
	}
	return workDir(tmp), func() { os.RemoveAll(tmp) }, nil
}
