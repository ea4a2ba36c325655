// Package proc runs one child process safely: bounded in time, bounded in
// memory, and leaving nothing behind.
//
// # What flows through it
//
// A [Cmd] goes in: an argv (often [Shell] of a user's command line), a
// directory, extra environment and a timeout. It may add a CPU to pin to and
// a tee for the full stdout stream. A [Result] comes out: the exit code, and
// the combined stdout and stderr (capped). It says whether the run timed out
// or was cancelled, and gives its wall and CPU time. [Run] returns an error
// only when the process could not be started. Everything that happens after
// that is in the Result.
//
// # Safety
//
// The child starts in its own process group (Setpgid) and, on Linux, with
// Pdeathsig set to SIGKILL. So it dies with the optimizer even when the
// optimizer is killed with SIGKILL. Every process the run starts is killed
// when the run ends, by exit, timeout or cancellation. That includes one
// that calls setsid with a clean environment ([Containment],
// [Result.Contained]):
//   - on Linux the run gets a cgroup v2 of its own where one can be made,
//     and cgroup.kill ends it whole;
//   - else a subreaper: this executable, started as a small wrapper, adopts
//     every orphan of the run and kills every descendant at the end;
//   - elsewhere only the process group is killed.
//
// Run then waits a short, bounded time ([PipeDelay]) for the output pipes
// to close.
//
// # Output
//
// Stdout and stderr are captured together, keeping at most [Cmd.MaxOutput]
// bytes in memory. That is the head and the tail, with a "[… N bytes cut …]"
// marker between them. [Cmd.Stdout], when set, receives the full stdout
// stream (not stderr) as it arrives. So a parser can follow 100 MB of test
// output without that output ever being held in memory.
//
// # CPU time and pinning
//
// [Result.CPU] is user plus system time from the child's rusage. For a
// waited child this includes the children it waited for itself (the shell's
// commands, go test's test binaries). It does not include processes killed
// as leftovers. In a [Sandbox] it is bwrap's own CPU time plus what a shell
// inside reports for the command (bash's times, to the millisecond). Since
// bwrap does not reap the sandbox's init, it passes no rusage on.
//
// With [Cmd.CPU] >= 0 the command runs under "taskset -c CPU" when taskset
// exists and that CPU is allowed for this process. Otherwise it runs unpinned
// and [Result.Pinned] is false, so the caller can say so once.
//
// # Peak memory
//
// With [Cmd.PeakRSS], [Result.MaxRSS] is the peak resident memory of the
// largest process of the run, as hyperfine and GNU time report it
// (ru_maxrss). It is not the sum over processes. A process starts with its
// parent's resident pages until it execs (vfork). This process may be a
// daemon of hundreds of MiB, so it does not start the command itself. A
// wrapper does: this executable again, as the run's subreaper. The wrapper
// frees what it can and resets its peak (/proc/self/clear_refs). It reports
// getrusage(RUSAGE_CHILDREN) for every process it reaped, on a descriptor
// the command does not get. In a [Sandbox] the wrapper runs inside, bound
// read-only, since bwrap passes no rusage on. A peak below the wrapper's
// own resident size (about 6 MiB) reads as that size. Outside Linux it is
// the leader's own rusage.
//
// # Sandbox
//
// With [Cmd.Sandbox] set, the command runs in bwrap (package bubblewrap):
// see [Sandbox] for what it sees. [SandboxAvailable] says whether bwrap
// works here; Run refuses a sandboxed Cmd where it does not. Setting a
// sandbox up can fail before the command starts, when a mount on the host
// changes as bwrap copies the mount table. Run then starts it again, up to
// three times in all. A command that ran and failed is never run again.
package proc
