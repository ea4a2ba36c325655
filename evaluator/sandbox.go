package evaluator

import (
	"context"
	"fmt"
	"strings"

	"github.com/optimizer-dev/optimizer/evaluator/sandbox"
	"github.com/optimizer-dev/optimizer/proc"
	"github.com/optimizer-dev/optimizer/result"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// SandboxMode says whether the processes of candidates and of the base run
// in a sandbox (see proc.Sandbox).
type SandboxMode string

// The sandbox modes. The zero value is SandboxAuto.
const (
	SandboxAuto SandboxMode = "auto" // sandbox when bwrap works; warn once when it does not
	SandboxOn   SandboxMode = "on"   // refuse to run without a sandbox
	SandboxOff  SandboxMode = "off"  // never sandbox
)

// ErrSandboxStart stops a job whose test or bench command cannot start in
// the sandbox: the message names the command, what is missing, and a way
// out.
var ErrSandboxStart = sandbox.ErrStart

// setupSandbox decides, once per job, whether the job's processes run in a
// sandbox, and what every sandbox hides and shows (sandbox.New).
func (j *job) setupSandbox(ctx context.Context) error {
	mode := j.opts.Sandbox
	if mode == "" {
		mode = SandboxAuto
	}
	switch mode {
	case SandboxOff:
		j.sandbox = SandboxReport{Kind: result.SandboxNone, Containment: proc.Containment(), Note: "off"}
		return nil
	case SandboxAuto, SandboxOn:
	default:
		return fmt.Errorf("sandbox mode %q: want auto, on or off", mode)
	}
	if err := proc.SandboxAvailable(); err != nil {
		if mode == SandboxOn {
			return err
		}
		j.sandbox = SandboxReport{Kind: result.SandboxNone, Containment: proc.Containment(), Note: err.Error()}
		return nil
	}
	cfg := sandbox.Config{Repo: j.opts.Repo, Artifacts: j.opts.Artifacts, Hide: j.opts.SandboxHide, Bind: j.opts.SandboxBind,
		Net: j.opts.SandboxNet, BindNamed: j.opts.SandboxBindNamed, Commands: []string{j.test, j.opts.Bench},
		BenchArgs: j.opts.BenchArgs, CopyFiles: j.opts.CopyFiles}
	if j.db != nil {
		cfg.Store = j.db.Path()
	}
	jl, err := sandbox.New(ctx, cfg)
	if err != nil {
		return err
	}
	j.jail = jl
	j.sandbox = SandboxReport{Active: true, Kind: result.SandboxBwrap, Net: jl.Net}
	return nil
}

// preflight tries, before phase 1, whether the test and bench commands can
// start in the sandbox (sandbox.Jail.Preflight).
func (j *job) preflight(ctx context.Context) error {
	checks := []sandbox.Check{{Flag: "--test", Line: j.test}}
	if !j.noBench && j.opts.Bench != "" {
		checks = append(checks, sandbox.Check{Flag: "--bench", Line: j.opts.Bench})
	}
	return j.jail.Preflight(ctx, checks)
}

// box is the sandbox for a process run in slot, or nil when the job runs
// unsandboxed. The readOnly and writable arguments are further paths the
// process needs: a test binary, a profile's directory.
func (j *job) box(slot *worktreepool.Slot, readOnly, writable []string) *proc.Sandbox {
	if j.jail == nil {
		return nil
	}
	return j.jail.Box(slot.Dir(), slot.GitDir(), readOnly, writable)
}

// sandboxNotes says, once per job, what the report and stderr should know:
// that there is no sandbox where one was wanted, or that the network is open.
func (j *job) sandboxNotes(ctx context.Context) {
	switch {
	case !j.sandbox.Active && j.sandbox.Note != "off":
		j.warn(ctx, "%s; candidates' tests and benchmarks run unsandboxed, with your privileges", j.sandbox.Note)
	case j.sandbox.Net:
		j.warn(ctx, "the sandbox lets tests and benchmarks use the network")
	}
}

// download runs "go mod download" in slot, outside the sandbox, so that the
// modules its go.mod needs are in the (read-only, inside) module cache. It
// compiles and runs no code of the slot's. A failure is left for the tests
// to report, with go's own message.
func (j *job) download(ctx context.Context, slot *worktreepool.Slot) {
	if j.jail == nil || !j.goMod {
		return
	}
	res, err := proc.Run(ctx, proc.Cmd{Dir: slot.Dir(), Env: slot.Env(), Args: []string{"go", "mod", "download"},
		Timeout: j.opts.Timeout, CPU: -1})
	if err != nil || res.ExitCode != 0 {
		j.log.Info("go mod download before the sandboxed tests", "slot", slot.Dir(), "exit", res.ExitCode, "err", err,
			"output", strings.TrimSpace(string(res.Output)))
	}
}
