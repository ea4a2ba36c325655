package evaluator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/optimizer-dev/optimizer/gitcmd"
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

// jail is what every sandbox of a job shares; per slot, box adds the slot.
type jail struct {
	hidden   []string
	readOnly []string
	env      []string
	net      bool
}

// setupSandbox decides, once per job, whether the job's processes run in a
// sandbox, and what every sandbox hides and shows.
//   - Hidden behind an empty tmpfs: the user's working tree and git
//     directory, and the store's and the artifacts' directories. So are the
//     slots' directory (each run gets its own slot back), the temporary
//     directory (scratch binaries, the machine lock) and $HOME. So are the
//     daemon's socket and state directories. Package proc hides /run/user,
//     $XDG_RUNTIME_DIR and every other socket.
//   - Bound back read-only: what git needs to read the slot, the Go module
//     cache, GOROOT, and go's configuration file (GOENV). Git needs the
//     objects, refs, config and HEAD of the repository, and the slot's own
//     git directory. PATH's directories under $HOME are bound too.
//   - Writable: the slot and the Go build cache.
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
	common, err := commonDir(ctx, j.opts.Repo)
	if err != nil {
		return fmt.Errorf("set up the sandbox: %w", err)
	}
	jl := &jail{net: j.opts.SandboxNet}
	jl.hidden = []string{j.opts.Repo, common, os.TempDir()}
	if home, err := os.UserHomeDir(); err == nil {
		jl.hidden = append(jl.hidden, home)
		// Tools installed under $HOME (~/go/bin) stay on PATH, read-only.
		for _, d := range filepath.SplitList(os.Getenv("PATH")) {
			if rel, err := filepath.Rel(home, d); err == nil && filepath.IsAbs(d) && rel != "." && !strings.HasPrefix(rel, "..") {
				jl.readOnly = append(jl.readOnly, d)
			}
		}
	}
	if j.db != nil && j.db.Path() != "" {
		jl.hidden = append(jl.hidden, filepath.Dir(j.db.Path()))
	}
	if j.opts.Artifacts != "" {
		jl.hidden = append(jl.hidden, j.opts.Artifacts)
	}
	// The daemon's socket and state (its queue, its token): a candidate that
	// reached them could queue a job of its own. Package proc hides every
	// runtime directory and covers every listening socket as well.
	jl.hidden = append(jl.hidden, j.opts.SandboxHide...)
	if sock := os.Getenv("OPTIMIZER_SOCKET"); filepath.IsAbs(sock) {
		jl.hidden = append(jl.hidden, filepath.Dir(sock))
	}
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		jl.hidden = append(jl.hidden, filepath.Join(d, "optimizer"))
	}
	jl.readOnly = append(jl.readOnly, j.opts.SandboxBind...)
	if j.opts.SandboxBindNamed {
		jl.readOnly = append(jl.readOnly, j.namedPaths(common)...)
	}
	for _, p := range []string{"objects", "refs", "packed-refs", "config", "HEAD", "shallow", "info"} {
		jl.readOnly = append(jl.readOnly, filepath.Join(common, p))
	}
	g := goEnv()
	if g.GOCACHE != "" && g.GOCACHE != "off" {
		jl.env = append(jl.env, "GOCACHE="+g.GOCACHE)
	}
	if g.GOMODCACHE != "" {
		jl.readOnly = append(jl.readOnly, g.GOMODCACHE)
		jl.env = append(jl.env, "GOMODCACHE="+g.GOMODCACHE)
	}
	if g.GOROOT != "" {
		jl.readOnly = append(jl.readOnly, g.GOROOT)
	}
	if g.GOENV != "" && g.GOENV != "off" {
		// go env -w settings (GOFLAGS, GOPRIVATE, GOTOOLCHAIN) hold inside too.
		jl.readOnly = append(jl.readOnly, g.GOENV)
	}
	if !jl.net {
		// No network: say so to go at once, instead of letting it try.
		jl.env = append(jl.env, "GOPROXY=off")
	}
	j.jail = jl
	j.sandbox = SandboxReport{Active: true, Kind: result.SandboxBwrap, Net: jl.net}
	return nil
}

// box is the sandbox for a process run in slot, or nil when the job runs
// unsandboxed. The readOnly and writable arguments are further paths the
// process needs: a test binary, a profile's directory.
func (j *job) box(slot *worktreepool.Slot, readOnly, writable []string) *proc.Sandbox {
	if j.jail == nil {
		return nil
	}
	g := goEnv()
	s := &proc.Sandbox{
		Hidden:   append(append([]string(nil), j.jail.hidden...), filepath.Dir(slot.Dir())),
		ReadOnly: append(append(append([]string(nil), j.jail.readOnly...), slot.GitDir()), readOnly...),
		Writable: append([]string{slot.Dir()}, writable...),
		Env:      j.jail.env,
		Net:      j.jail.net,
	}
	if g.GOCACHE != "" && g.GOCACHE != "off" {
		s.Writable = append(s.Writable, g.GOCACHE)
	}
	return s
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

// touchesModules reports whether c changes a go.mod or go.sum, so that its
// modules must be downloaded before its sandboxed tests.
func touchesModules(paths []string) bool {
	for _, p := range paths {
		if b := path.Base(p); b == "go.mod" || b == "go.sum" {
			return true
		}
	}
	return false
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

// commonDir is the repository's git common directory, absolute.
func commonDir(ctx context.Context, repo string) (string, error) {
	out, err := gitcmd.Run(ctx, gitcmd.Cmd{Args: []string{"-C", repo, "rev-parse", "--path-format=absolute", "--git-common-dir"}, ReadOnly: true})
	if err != nil {
		return "", fmt.Errorf("find the git directory of %s: %w", repo, err)
	}
	dir := strings.TrimSpace(string(out))
	if dir == "" {
		return "", errors.New("git rev-parse --git-common-dir printed nothing")
	}
	return dir, nil
}

// goEnvVars are the go command's own paths that a sandbox must show.
type goEnvVars struct {
	GOCACHE    string
	GOMODCACHE string
	GOROOT     string
	GOENV      string
}

// goEnv asks go for its caches once; without go, all are empty.
var goEnv = sync.OnceValue(func() goEnvVars {
	var v goEnvVars
	cmd := exec.Command("go", "env", "-json", "GOCACHE", "GOMODCACHE", "GOROOT", "GOENV")
	proc.Tag(cmd)
	out, err := cmd.Output()
	if err == nil {
		_ = json.Unmarshal(out, &v)
	}
	return v
})
