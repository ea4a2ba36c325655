package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultMaxOutput is the number of output bytes kept in memory when
// [Cmd.MaxOutput] is zero.
const DefaultMaxOutput = 1 << 20

// PipeDelay bounds how long Run waits for the output pipes to close after the
// process and its group are gone. Only a process that left the group (setsid)
// and still holds the pipes can make Run wait that long.
const PipeDelay = 2 * time.Second

var (
	// ErrNoArgs is returned by Run for a Cmd without Args.
	ErrNoArgs = errors.New("no command to run")
)

// Cmd describes one process to run. The zero value of CPU pins to CPU 0: set
// it to -1 for no pinning.
type Cmd struct {
	Dir     string        // working directory; "" is the current one
	Args    []string      // argv; Args[0] is looked up in PATH
	Env     []string      // appended to os.Environ()
	Timeout time.Duration // 0: no timeout other than ctx

	// MaxOutput is the number of bytes of combined stdout and stderr kept in
	// Result.Output: the head and the tail. 0 means DefaultMaxOutput.
	MaxOutput int

	// Stdout, when set, receives the full stdout stream as it arrives (not
	// stderr). It is called from one goroutine at a time. If it returns an
	// error it is not called again; the run goes on.
	Stdout io.Writer

	// CPU >= 0 pins the process to that CPU with "taskset -c CPU"; -1 runs
	// it unpinned.
	CPU int

	// OnStart, when set, is called with the PID (which is also the process
	// group id) once the process has started, before Run waits for it. It
	// is called once per start, so twice when a sandbox is set up again
	// (Run).
	OnStart func(pid int)

	// MemLimit > 0 caps the address space of the process and of each of its
	// children at that many bytes (prlimit --as), where prlimit exists.
	MemLimit int64

	// PeakRSS asks for Result.MaxRSS. In a Sandbox, and under the
	// subreaper wrapper (ContainReaper), it costs a wrapper process: this
	// executable, bound read-only into the sandbox.
	PeakRSS bool

	// Sandbox, when set, runs the process in a bwrap sandbox (see Sandbox).
	// Run returns an error wrapping ErrNoSandbox, and starts nothing, when
	// bwrap does not work here: a caller that asked for a sandbox never gets
	// a run without one.
	Sandbox *Sandbox
}

// Result is what happened to one run.
type Result struct {
	// ExitCode is the process's exit status, or -1 when a signal ended it
	// (as on timeout or cancellation).
	ExitCode int

	// Output is the combined stdout and stderr, capped to MaxOutput bytes:
	// head and tail around a "[… N bytes cut …]" marker when Truncated.
	Output    []byte
	Truncated bool

	TimedOut  bool // killed at Cmd.Timeout
	Canceled  bool // killed because ctx was done (and not TimedOut)
	Pinned    bool // the process ran under taskset on Cmd.CPU
	Limited   bool // the process ran under prlimit with Cmd.MemLimit
	Sandboxed bool // the process ran in Cmd.Sandbox

	// Containment says how every process of the run was tracked and
	// killed at its end: ContainCgroup, ContainReaper or ContainGroup.
	// Contained says the run is proven to have left nothing running; it is
	// false with ContainGroup, unsandboxed, where a process that called
	// setsid may have survived.
	Containment string
	Contained   bool

	Wall time.Duration // from start to exit
	CPU  time.Duration // user+sys from rusage, including waited-for children

	// MaxRSS is, with Cmd.PeakRSS, the peak resident memory in bytes of the
	// largest process of the run (ru_maxrss). See "Peak memory" in the
	// package doc. It is 0 when it could not be measured.
	MaxRSS int64
}

// Shell returns the argv that runs a shell command line: {"sh", "-c", line}.
func Shell(line string) []string {
	return []string{"sh", "-c", line}
}

// setupAttempts is how many times Run starts a sandboxed command whose
// sandbox bwrap failed to set up (setupFailed).
const setupAttempts = 3

// Run starts c, waits for it and for every process of its group to end, and
// returns what happened. The error is non-nil only when the process could not
// be started. A ctx already done before the start returns Canceled without
// starting anything. Run is safe for concurrent use.
//
// A sandboxed command whose sandbox bwrap could not set up never started.
// It is started again, up to setupAttempts times in all; the Result is the
// last attempt's.
func Run(ctx context.Context, c Cmd) (Result, error) {
	if len(c.Args) == 0 {
		return Result{ExitCode: -1}, ErrNoArgs
	}
	for attempt := 1; ; attempt++ {
		res, started, err := runOnce(ctx, c)
		if err != nil || attempt == setupAttempts || !setupFailed(res, started) {
			return res, err
		}
		select {
		case <-ctx.Done():
			return res, nil
		case <-time.After(time.Duration(attempt) * 50 * time.Millisecond):
		}
	}
}

// runOnce is one attempt of Run; started says whether a sandboxed
// command started (cpuScript's mark).
func runOnce(ctx context.Context, c Cmd) (_ Result, started bool, _ error) {
	if ctx.Err() != nil {
		return Result{ExitCode: -1, Canceled: true}, false, nil
	}
	args := c.Args
	var cpuR, cpuW *os.File // the sandbox's report of CPU time
	peak := &peak{}
	if c.PeakRSS {
		peak.mode = peakLeader
	}
	defer peak.close()
	if c.Sandbox != nil {
		var err error
		box, wrapped := c.Sandbox, args
		if c.PeakRSS {
			if wrapped, box, err = peak.wrapSandboxed(args, c.Dir, c.Sandbox); err != nil {
				return Result{ExitCode: -1}, false, fmt.Errorf("start %s: %w", c.Args[0], err)
			}
		}
		if args, err = sandboxArgs(box, c.Dir, wrapped); err != nil {
			return Result{ExitCode: -1}, false, fmt.Errorf("start %s: %w", c.Args[0], err)
		}
		if cpuR, cpuW, err = os.Pipe(); err != nil {
			return Result{ExitCode: -1}, false, fmt.Errorf("start %s: %w", c.Args[0], err)
		}
		defer cpuR.Close()
	}
	args, limited := limitArgs(args, c.MemLimit)
	args, pinned := pinArgs(args, c.CPU)
	g := newGuard(c.Sandbox != nil)
	if c.Sandbox == nil {
		var err error
		if args, err = peak.wrap(args, c.Dir, g); err != nil {
			g.close(0, nil)
			return Result{ExitCode: -1}, false, fmt.Errorf("start %s: %w", args[0], err)
		}
	}
	wrapped, err := g.wrap(args, c.Dir)
	if err != nil {
		g.close(0, nil)
		return Result{ExitCode: -1}, false, fmt.Errorf("start %s: %w", args[0], err)
	}
	args = wrapped
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = c.Dir
	cmd.Env = append(append(os.Environ(), c.Env...), ownerTag())
	cmd.SysProcAttr = sysProcAttr()
	g.prepare(cmd)
	// Run owns the pipes (see pipes), so exec starts no copying goroutines;
	// WaitDelay is a backstop should that ever change.
	cmd.WaitDelay = PipeDelay
	if cpuW != nil {
		cmd.ExtraFiles = []*os.File{cpuW} // fd 3
	}
	if err := peak.prepare(cmd, g); err != nil {
		g.close(0, nil)
		return Result{ExitCode: -1}, false, fmt.Errorf("start %s: %w", args[0], err)
	}

	out := newCapture(c.MaxOutput)
	p, err := openPipes(cmd, c.Stdout, out)
	if err != nil {
		g.close(0, nil)
		return Result{ExitCode: -1}, false, fmt.Errorf("start %s: %w", args[0], err)
	}
	start := time.Now()
	err = cmd.Start()
	if cpuW != nil {
		cpuW.Close()
	}
	peak.started()
	if err != nil {
		p.abort()
		g.close(0, nil)
		return Result{ExitCode: -1}, false, fmt.Errorf("start %s: %w", args[0], err)
	}
	p.started()
	pid := cmd.Process.Pid
	if c.OnStart != nil {
		c.OnStart(pid)
	}

	res := Result{Pinned: pinned, Limited: limited, Sandboxed: c.Sandbox != nil, Containment: g.name()}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { res.TimedOut, res.Canceled = enforce(ctx, c.Timeout, pid, cmd.Process, g, done) })
	waitErr := cmd.Wait()
	res.Wall = time.Since(start)
	close(done)
	wg.Wait()
	// The leader is gone; take whatever is left of the run with it, so
	// that no descendant lingers or holds the pipes open.
	res.Contained = g.close(pid, cmd.Process) || c.Sandbox != nil
	if !res.Contained {
		uncontained.Add(1)
	}
	p.wait(PipeDelay)

	res.ExitCode = exitCode(cmd.ProcessState, waitErr)
	if ps := cmd.ProcessState; ps != nil {
		res.CPU = ps.UserTime() + ps.SystemTime()
	}
	res.MaxRSS = peak.read(cmd.ProcessState)
	if cpuR != nil {
		// The sandbox's init is gone, so nothing holds the write end.
		cpuR.SetReadDeadline(time.Now().Add(PipeDelay))
		b, _ := io.ReadAll(io.LimitReader(cpuR, 256))
		var d time.Duration
		var ok bool
		if started, d, ok = sandboxReport(b); ok {
			res.CPU += d // bwrap's own, which both sides of a comparison pay, and the command's
			unreaped.Add(int64(d))
		}
	}
	res.Output, res.Truncated = out.bytes()
	return res, started, nil
}

// uncontained counts the runs not proven to have left nothing running.
var uncontained atomic.Int64

// Uncontained is how many runs Run has made in this process that are not
// proven to have left nothing running (Result.Contained false). While it is
// above 0, a process of one of them may still be writing anywhere the user
// may. It only grows, and is safe for concurrent use.
func Uncontained() int64 { return uncontained.Load() }

// unreaped adds up the CPU time of the sandboxed commands Run has run.
var unreaped atomic.Int64

// UnreapedCPU is the CPU time that every sandboxed command run so far used
// and that getrusage(RUSAGE_CHILDREN) does not count, because bwrap does not
// reap the sandbox's init. Add it to that figure for all the CPU time this
// process's children used. It only grows, and is safe for concurrent use.
func UnreapedCPU() time.Duration { return time.Duration(unreaped.Load()) }

// enforce kills the run at the timeout or when ctx is done, until done is
// closed. It reports which of the two happened.
func enforce(ctx context.Context, timeout time.Duration, pid int, p *os.Process, g guard, done <-chan struct{}) (timedOut, canceled bool) {
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-done:
		return false, false
	case <-expired:
		g.kill(pid, p)
		return true, false
	case <-ctx.Done():
		g.kill(pid, p)
		return false, true
	}
}

func exitCode(ps *os.ProcessState, waitErr error) int {
	if ps == nil {
		return -1
	}
	if code := ps.ExitCode(); code >= 0 || waitErr == nil {
		return code
	}
	return -1
}
