package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// sections are the parts of a run, in the order they run.
var sections = []string{"overhead", "scaling", "first", "warm", "gocache", "memory"}

// config is one run of the harness.
type config struct {
	files    []int // repository sizes, in files
	fileSize int   // bytes per file, on average
	reps     int   // repetitions of each optimizer figure
	naive    int   // candidates run the naive ways, per repository

	overheadCands int           // candidates of the overhead job
	scaleCands    int           // candidates of a scaling job
	cpuCands      int           // candidates of a CPU-bound scaling job
	js            []int         // -j values of the scaling jobs
	coldJs        []int         // -j values of the cold scaling jobs
	sleep         time.Duration // the sleep-bound test's duration
	cpu           time.Duration // the CPU-bound test's CPU time, about
	firstCands    int           // candidates of the first-test job
	firstJ        int           // slots of the first-test job
	memCands      int           // candidates of the CLI memory run
	memJ          int           // slots of the CLI memory run
	goCands       int           // candidates of each Go build cache job

	noWatch bool      // every pool restores slots from full statuses (worktreepool.Options.NoWatch)
	trace   io.Writer // the scaling jobs' events, when -trace is set

	noMachineLock bool // measure without taking the machine lock

	only map[string]bool // sections to run
	work string          // scratch directory; "" is a new temporary one
	keep bool            // leave work behind

	stdout, stderr io.Writer
}

func parseConfig(args []string, stdout, stderr io.Writer) (*config, error) {
	c := &config{stdout: stdout, stderr: stderr}
	fs := flag.NewFlagSet("machinery", flag.ContinueOnError)
	fs.SetOutput(stderr)
	files := fs.String("files", "1000,20000", "repository sizes in files, comma-separated")
	fs.IntVar(&c.fileSize, "file-size", 1024, "bytes per file, on average")
	fs.IntVar(&c.reps, "reps", 3, "repetitions of each optimizer figure (medians are reported)")
	fs.IntVar(&c.naive, "naive", 5, "candidates run each naive way, per repository")
	fs.IntVar(&c.overheadCands, "overhead-candidates", 20, "candidates of the overhead job")
	fs.IntVar(&c.scaleCands, "candidates", 16, "candidates of each scaling job")
	fs.IntVar(&c.cpuCands, "cpu-candidates", 8, "candidates of each CPU-bound scaling job")
	js := fs.String("j", "1,2,4,8,16", "slot counts of the scaling jobs, comma-separated")
	coldJs := fs.String("cold-j", "1,8", "slot counts of the cold scaling jobs, comma-separated")
	fs.DurationVar(&c.sleep, "sleep", time.Second, "the sleep-bound test's duration")
	fs.DurationVar(&c.cpu, "cpu", 500*time.Millisecond, "the CPU-bound test's CPU time, about")
	fs.IntVar(&c.firstCands, "first-candidates", 8, "candidates of the time-to-first-test job")
	fs.IntVar(&c.firstJ, "first-j", 8, "slots of the time-to-first-test job")
	fs.IntVar(&c.memCands, "mem-candidates", 200, "candidates of the CLI memory run")
	fs.IntVar(&c.memJ, "mem-j", 8, "slots of the CLI memory run")
	fs.IntVar(&c.goCands, "go-candidates", 4, "candidates of each Go build cache job")
	only := fs.String("only", strings.Join(sections, ","), "sections to run: "+strings.Join(sections, ", "))
	fs.StringVar(&c.work, "work", "", "scratch directory (default: a new temporary one, removed at the end)")
	fs.BoolVar(&c.keep, "keep", false, "keep the scratch directory")
	trace := fs.Bool("trace", false, "print the scaling jobs' events with their times to stderr")
	fs.BoolVar(&c.noMachineLock, "no-machine-lock", false, "measure without holding the machine lock that keeps other optimizers on this machine out of the way")
	fs.BoolVar(&c.noWatch, "nowatch", false, "restore slots from full git statuses, as before the watch (for before/after numbers)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: go run ./bench/machinery [flags]\n\nMeasures optimizer's machinery against the naive ways and prints Markdown tables.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *trace {
		c.trace = stderr
	}
	var err error
	if c.files, err = ints(*files); err != nil {
		return nil, fmt.Errorf("-files: %w", err)
	}
	if c.js, err = ints(*js); err != nil {
		return nil, fmt.Errorf("-j: %w", err)
	}
	if c.coldJs, err = ints(*coldJs); err != nil {
		return nil, fmt.Errorf("-cold-j: %w", err)
	}
	c.only = map[string]bool{}
	for _, s := range strings.Split(*only, ",") {
		s = strings.TrimSpace(s)
		if !contains(sections, s) {
			return nil, fmt.Errorf("-only: unknown section %q", s)
		}
		c.only[s] = true
	}
	if c.reps < 1 || c.overheadCands < 1 || c.scaleCands < 1 || c.cpuCands < 1 || c.firstCands < 1 || c.memCands < 1 || c.goCands < 1 {
		return nil, errors.New("repetitions and candidate counts must be at least 1")
	}
	if c.firstJ < 1 || c.memJ < 1 {
		return nil, errors.New("slot counts must be at least 1")
	}
	return c, nil
}

// workDir makes the scratch directory and returns it with its clean-up.
func (c *config) workDir() (string, func(), error) {
	dir := c.work
	if dir == "" {
		d, err := os.MkdirTemp("", "machinery-")
		if err != nil {
			return "", nil, err
		}
		dir = d
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", nil, err
	}
	cleanup := func() {
		if c.keep {
			fmt.Fprintf(c.stderr, "machinery: kept %s\n", dir)
			return
		}
		forceRemove(dir)
	}
	return dir, cleanup, nil
}

func ints(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("want positive integers, got %q", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
