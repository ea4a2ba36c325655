package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/optimizer-dev/optimizer/gitcmd"
	mach "github.com/optimizer-dev/optimizer/machine"
)

// run is the whole harness: it makes the repositories, runs each section
// on each, and prints the tables.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parseConfig(args, stdout, stderr)
	if err != nil {
		return err
	}
	work, cleanup, err := c.workDir()
	if err != nil {
		return err
	}
	defer cleanup()
	h := &harness{config: c, work: work, started: time.Now(), loadBefore: mach.Load(),
		machine: machine(ctx), args: args, addTime: map[int]time.Duration{}}
	h.spin, err = os.Executable()
	if err != nil {
		return err
	}
	for _, n := range c.files {
		h.logf("making a repository of %d files", n)
		r, err := makeRepo(ctx, filepath.Join(work, fmt.Sprintf("repo-%d", n)), n, c.fileSize)
		if err != nil {
			return fmt.Errorf("make repository: %w", err)
		}
		h.repos = append(h.repos, r)
	}
	// Write the new repositories out, so that their writeback does not slow
	// the first measurements.
	syscall.Sync()
	// Each table is printed as soon as its section ends, so that a run cut
	// short still shows what it measured.
	h.printHeading(stdout)
	for _, s := range sections {
		if !c.only[s] {
			continue
		}
		n := len(h.tables)
		if err := h.section(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
		for _, t := range h.tables[n:] {
			t.write(stdout)
		}
	}
	fmt.Fprintf(stdout, "- load average (1, 5, 15 min) at the end: %s; the run took %s\n",
		mach.Load(), time.Since(h.started).Round(time.Second))
	return nil
}

// harness is the state of one run.
type harness struct {
	*config
	work       string
	spin       string // this binary, for the CPU-bound test
	repos      []*synthRepo
	started    time.Time
	loadBefore string
	tables     []*table
	machine    string
	args       []string
	addTime    map[int]time.Duration // files -> median git worktree add, from the overhead section
}

func (h *harness) section(ctx context.Context, name string) error {
	switch name {
	case "overhead":
		return h.overhead(ctx)
	case "scaling":
		return h.scaling(ctx)
	case "first":
		return h.firstTest(ctx)
	case "warm":
		return h.warmRerun(ctx)
	case "gocache":
		return h.goCache(ctx)
	case "memory":
		return h.memory(ctx)
	}
	return fmt.Errorf("unknown section")
}

func (h *harness) logf(format string, args ...any) {
	fmt.Fprintf(h.stderr, "machinery: %s: "+format+"\n", append([]any{time.Since(h.started).Round(time.Second)}, args...)...)
}

// gitIn runs git in dir and returns its stdout.
func gitIn(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := gitcmd.Run(ctx, gitcmd.Cmd{Dir: dir, Args: args, Env: fixedIdentity})
	return string(out), err
}

// fixedIdentity makes the harness's commits the same on every run.
var fixedIdentity = []string{
	"GIT_AUTHOR_NAME=machinery", "GIT_AUTHOR_EMAIL=machinery@example.com", "GIT_AUTHOR_DATE=2025-01-01T00:00:00Z",
	"GIT_COMMITTER_NAME=machinery", "GIT_COMMITTER_EMAIL=machinery@example.com", "GIT_COMMITTER_DATE=2025-01-01T00:00:00Z",
	"GIT_CONFIG_NOSYSTEM=1"}

// runIn runs a command in dir with stdin, and returns its stdout.
func runIn(ctx context.Context, dir string, stdin []byte, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), fixedIdentity...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

// machine describes this machine for the tables' heading.
func machine(ctx context.Context) string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		fmt.Sscanf(strings.TrimPrefix(strings.SplitN(string(b), "\n", 2)[0], "MemTotal:"), "%d", &kb)
		mem = fmt.Sprintf(", %.0f GiB", float64(kb)/(1<<20))
	}
	gitv, _ := gitIn(ctx, "", "--version")
	kernel, _ := runIn(ctx, "", nil, "uname", "-sr")
	return fmt.Sprintf("%d × %s%s; %s; %s; %s", runtime.NumCPU(), cpu, mem,
		strings.TrimSpace(kernel), runtime.Version(), strings.TrimSpace(gitv))
}

// forceRemove removes dir, making read-only directories in it writable
// first if it has to.
func forceRemove(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
	os.RemoveAll(dir)
}
