// Package sandbox builds what a job's bwrap sandboxes hide and show (a
// Jail) and the sandbox of each process run in a slot. Its preflight tries
// whether the job's commands can start inside.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/optimizer-dev/optimizer/evaluator/goenv"
	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/proc"
)

// Jail is what every sandbox of a job shares; Box adds a slot.
type Jail struct {
	Hidden   []string
	ReadOnly []string
	Env      []string
	Net      bool
	goCache  string // writable in every box; "" when go has none
}

// Config is what a job's jail is built from.
type Config struct {
	Repo      string   // the user's repository
	Store     string   // the store's file, whose directory is hidden; "" is none
	Artifacts string   // the artifacts' directory, hidden; "" is none
	Hide      []string // further directories to hide (--sandbox-hide)
	Bind      []string // further paths to show read-only (--sandbox-bind)
	Net       bool     // let processes use the network
	// BindNamed shows read-only the host paths that Commands, BenchArgs
	// and CopyFiles name (NamedPaths).
	BindNamed bool
	Commands  []string // the test and bench command lines
	BenchArgs []string
	CopyFiles []string // repository-relative, slash-separated
}

// New decides, once per job, what every sandbox hides and shows.
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
func New(ctx context.Context, cfg Config) (*Jail, error) {
	repo, err := gitcmd.FindRepo(ctx, cfg.Repo)
	if err != nil {
		return nil, fmt.Errorf("set up the sandbox: %w", err)
	}
	common := repo.CommonDir
	g, err := goEnv()
	if err != nil && !errors.Is(err, goenv.ErrRun) {
		return nil, fmt.Errorf("set up the sandbox: %w", err)
	}
	jl := &Jail{Net: cfg.Net}
	jl.Hidden = []string{cfg.Repo, common, os.TempDir()}
	if home, err := os.UserHomeDir(); err == nil {
		jl.Hidden = append(jl.Hidden, home)
		// Tools installed under $HOME (~/go/bin) stay on PATH, read-only.
		for _, d := range filepath.SplitList(os.Getenv("PATH")) {
			if rel, err := filepath.Rel(home, d); err == nil && filepath.IsAbs(d) && rel != "." && !strings.HasPrefix(rel, "..") {
				jl.ReadOnly = append(jl.ReadOnly, d)
			}
		}
	}
	if cfg.Store != "" {
		jl.Hidden = append(jl.Hidden, filepath.Dir(cfg.Store))
	}
	if cfg.Artifacts != "" {
		jl.Hidden = append(jl.Hidden, cfg.Artifacts)
	}
	// The daemon's socket and state (its queue, its token): a candidate that
	// reached them could queue a job of its own. Package proc hides every
	// runtime directory and covers every listening socket as well.
	jl.Hidden = append(jl.Hidden, cfg.Hide...)
	if sock := os.Getenv("OPTIMIZER_SOCKET"); filepath.IsAbs(sock) {
		jl.Hidden = append(jl.Hidden, filepath.Dir(sock))
	}
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		jl.Hidden = append(jl.Hidden, filepath.Join(d, "optimizer"))
	}
	jl.ReadOnly = append(jl.ReadOnly, cfg.Bind...)
	if cfg.BindNamed {
		jl.ReadOnly = append(jl.ReadOnly, NamedPaths(cfg, common)...)
	}
	for _, p := range []string{"objects", "refs", "packed-refs", "config", "HEAD", "shallow", "info"} {
		jl.ReadOnly = append(jl.ReadOnly, filepath.Join(common, p))
	}
	if c := g["GOCACHE"]; c != "" && c != "off" {
		jl.goCache = c
		jl.Env = append(jl.Env, "GOCACHE="+c)
	}
	if m := g["GOMODCACHE"]; m != "" {
		jl.ReadOnly = append(jl.ReadOnly, m)
		jl.Env = append(jl.Env, "GOMODCACHE="+m)
	}
	if r := g["GOROOT"]; r != "" {
		jl.ReadOnly = append(jl.ReadOnly, r)
	}
	if e := g["GOENV"]; e != "" && e != "off" {
		// go env -w settings (GOFLAGS, GOPRIVATE, GOTOOLCHAIN) hold inside too.
		jl.ReadOnly = append(jl.ReadOnly, e)
	}
	if !jl.Net {
		// No network: say so to go at once, instead of letting it try.
		jl.Env = append(jl.Env, "GOPROXY=off")
	}
	return jl, nil
}

// Box is the sandbox for a process run in the slot at dir, whose own git
// directory is gitDir; nil for a nil jail (the job runs unsandboxed). The
// readOnly and writable arguments are further paths the process needs: a
// test binary, a profile's directory.
func (jl *Jail) Box(dir, gitDir string, readOnly, writable []string) *proc.Sandbox {
	if jl == nil {
		return nil
	}
	s := &proc.Sandbox{
		Hidden:   append(append([]string(nil), jl.Hidden...), filepath.Dir(dir)),
		ReadOnly: append(append(append([]string(nil), jl.ReadOnly...), gitDir), readOnly...),
		Writable: append([]string{dir}, writable...),
		Env:      jl.Env,
		Net:      jl.Net,
	}
	if jl.goCache != "" {
		s.Writable = append(s.Writable, jl.goCache)
	}
	return s
}

// TouchesModules reports whether paths hold a go.mod or go.sum, so that
// their modules must be downloaded before sandboxed tests.
func TouchesModules(paths []string) bool {
	for _, p := range paths {
		if b := path.Base(p); b == "go.mod" || b == "go.sum" {
			return true
		}
	}
	return false
}

// goEnv asks go for the paths a sandbox must show, once per process.
// Without go (goenv.ErrRun), none is shown.
var goEnv = sync.OnceValues(func() (map[string]string, error) {
	return goenv.Read(context.Background(), "", "GOCACHE", "GOMODCACHE", "GOROOT", "GOENV")
})
