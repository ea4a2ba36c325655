package config

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"

	"github.com/spf13/pflag"

	"github.com/optimizer-dev/optimizer/client"
	"github.com/optimizer-dev/optimizer/daemon"
	"github.com/optimizer-dev/optimizer/mcp"
)

// SocketPath is the daemon's socket a command uses: flag, then
// $OPTIMIZER_SOCKET, then the default.
func SocketPath(flag string) string {
	return cmp.Or(flag, os.Getenv(client.SocketEnv), client.DefaultSocket())
}

// Daemon is optimizer daemon's settings: the daemon's options its flags
// fill, and those Options turns into them.
type Daemon struct {
	daemon.Options
	PoolDisk string // --pool-disk, a size such as 20G: Options.DiskBudget
	Verbose  bool
}

// Register defines the daemon's flags on fs, bound to d.
func (d *Daemon) Register(fs *pflag.FlagSet) {
	fs.StringVar(&d.Socket, "socket", "", "unix socket to listen on (default $OPTIMIZER_SOCKET, else "+client.DefaultSocket()+")")
	fs.StringVar(&d.Listen, "listen", "", "also listen on this TCP address (127.0.0.1:PORT), for the dashboard and remote clients; every request needs the token")
	fs.BoolVar(&d.AllowRemote, "allow-remote", false, "allow a --listen address that is not loopback")
	fs.StringVar(&d.TokenFile, "token-file", "", "file holding the bearer token for --listen, made (mode 0600) if missing (default <state-dir>/token)")
	fs.StringVar(&d.StateDir, "state-dir", "", "directory of the daemon's queue and token (default $XDG_STATE_HOME/optimizer, else ~/.local/state/optimizer)")
	fs.IntVarP(&d.Slots, "slots", "j", 0, "the machine-wide slot budget shared by all jobs (default: CPUs-1, at least 2 on 2+ CPUs)")
	fs.IntVar(&d.MaxJobs, "max-jobs", daemon.DefaultMaxJobs, "jobs run at once; they share the slot budget")
	fs.StringVar(&d.PoolDisk, "pool-disk", "20G", "disk the warm pools of idle repositories may take before the least recently used is removed")
	fs.BoolVar(&d.Paranoid, "paranoid-reset", false, "prove every slot clean at every reset")
	fs.StringVar(&d.MachineLock, "machine-lock", "", "the lock file that orders the daemon's tests and benchmarks against optimizer runs outside it (default: the one every optimizer process shares)")
	fs.BoolVar(&d.Policy.AllowUnsandboxed, "allow-unsandboxed", false, "let jobs run candidates outside the sandbox (sandbox off, or auto on a machine without a working bwrap); without it such a job is refused")
	fs.BoolVar(&d.Policy.AllowSandboxNet, "allow-sandbox-net", false, "let jobs give sandboxed processes the network (sandbox_net)")
	fs.BoolVar(&d.Policy.AllowSetup, "allow-setup", false, "let jobs run a setup command (--setup), which runs outside the sandbox")
	fs.BoolVar(&d.Policy.AllowCopyIgnored, "allow-copy-ignored", false, "let jobs copy ignored files of the working tree into slots (--copy-ignored)")
	fs.BoolVar(&d.Policy.AllowBuildFlags, "allow-build-flags", false, "let jobs pass go test -c any build flag (-toolexec, -exec, -overlay, ...), which runs outside the sandbox; without it only -tags, -race, -cover, -mod, -gcflags, -ldflags and the like")
	fs.StringSliceVar(&d.Policy.AllowEnv, "allow-env", nil, "environment variables jobs may set for their test, bench and setup commands, by name or prefix* (comma-separated or repeated; * for any; none for none) (default: what clients send by default: PATH, GOFLAGS, GOPATH, CGO_*, PYTHONPATH, NODE_PATH, ...)")
	fs.BoolVarP(&d.Verbose, "verbose", "v", false, "log at debug level")
}

// DaemonOptions are the daemon's options: the socket (SocketPath), the
// state directory (daemon.DefaultStateDir without --state-dir), the disk
// budget, and a logger writing to w, at debug level with Verbose.
func (d Daemon) DaemonOptions(w io.Writer) (daemon.Options, error) {
	level := slog.LevelInfo
	if d.Verbose {
		level = slog.LevelDebug
	}
	opts := d.Options
	opts.Logger = slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
	if opts.StateDir == "" {
		var err error
		if opts.StateDir, err = daemon.DefaultStateDir(); err != nil {
			return daemon.Options{}, errors.New("no home directory for the daemon's state: pass --state-dir")
		}
	}
	budget, err := ParseSize(d.PoolDisk)
	if err != nil || budget <= 0 {
		return daemon.Options{}, fmt.Errorf("--pool-disk %q: want a size such as 20G", d.PoolDisk)
	}
	opts.DiskBudget = budget
	opts.Socket = SocketPath(opts.Socket)
	opts.Slots = max(0, opts.Slots) // 0: daemon.AutoSlots
	opts.MCPJobs = func(api http.Handler) mcp.Jobs { return client.NewInProcess(api) }
	return opts, nil
}
