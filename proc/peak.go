package proc

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"time"
)

// peak measures one run's peak resident memory, for Cmd.PeakRSS, in one of
// the ways of peakMode.
type peak struct {
	mode peakMode
	env  []string // the unsandboxed wrapper's environment
	r, w *os.File // the wrapper's report, with peakWrapper
}

// peakMode is how a run's peak memory is found.
type peakMode int

const (
	peakOff     peakMode = iota // not asked for
	peakLeader                  // the leader's rusage, which covers the children it waited for (outside Linux)
	peakWrapper                 // the subreaper wrapper's report of all it reaped
	peakNone                    // asked for, but there is no way here
)

// sandboxPeakFD is the descriptor a sandboxed wrapper reports on: 3 is
// cpuScript's.
const sandboxPeakFD = 4

// wrapSandboxed returns args under the wrapper, and box with what the
// wrapper needs: this executable, read-only, and its environment. Since
// bwrap does not reap the sandbox's init, no rusage of the command reaches
// Run's wait. The wrapper, the subreaper of the command inside, reports it.
func (p *peak) wrapSandboxed(args []string, dir string, box *Sandbox) ([]string, *Sandbox, error) {
	wrapped, env, ok, err := peakWrap(args, dir, sandboxPeakFD)
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		p.mode = peakNone
		return args, box, nil
	}
	b := *box
	b.ReadOnly = append(slices.Clone(box.ReadOnly), wrapped[0])
	b.Env = append(slices.Clone(box.Env), env...)
	p.mode = peakWrapper
	return wrapped, &b, nil
}

// wrap puts an unsandboxed run under the wrapper, which reports its peak.
// The leader's own rusage would count the memory of this process, which the
// leader shares until it execs (vfork). This process may be a daemon of
// hundreds of MiB. Under ContainReaper the guard's wrapper is already there
// and only needs asking.
func (p *peak) wrap(args []string, dir string, g guard) ([]string, error) {
	if p.mode != peakLeader || g.name() == ContainReaper {
		return args, nil
	}
	wrapped, env, ok, err := peakWrap(args, dir, 3)
	if err != nil || !ok {
		return args, err
	}
	p.mode, p.env = peakWrapper, env
	return wrapped, nil
}

// prepare gives cmd the wrapper's report pipe, after wrap or
// wrapSandboxed.
func (p *peak) prepare(cmd *exec.Cmd, g guard) error {
	if p.mode == peakLeader && g.name() == ContainReaper {
		p.mode, p.env = peakWrapper, []string{peakEnv + "=3"}
	}
	if p.mode != peakWrapper {
		return nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	p.r, p.w = r, w
	cmd.Env = append(cmd.Env, p.env...)
	cmd.ExtraFiles = append(cmd.ExtraFiles, w)
	return nil
}

// started closes this process's copy of the report's write end.
func (p *peak) started() {
	if p.w != nil {
		p.w.Close()
		p.w = nil
	}
}

// read returns the run's peak resident memory in bytes, or 0 when it is not
// known.
func (p *peak) read(ps *os.ProcessState) int64 {
	switch {
	case p.mode == peakLeader && ps != nil:
		return maxRSS(ps)
	case p.mode == peakWrapper && p.r != nil:
		// The wrapper is gone, so nothing holds the write end.
		p.r.SetReadDeadline(time.Now().Add(PipeDelay))
		b, _ := io.ReadAll(io.LimitReader(p.r, 64))
		v, ok := bytes.CutPrefix(bytes.TrimSpace(b), []byte("rss "))
		if !ok {
			return 0
		}
		rss, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil || rss < 0 {
			return 0
		}
		return rss
	}
	return 0
}

// close closes what is left of the report pipe.
func (p *peak) close() {
	for _, f := range []*os.File{p.r, p.w} {
		if f != nil {
			f.Close()
		}
	}
}
