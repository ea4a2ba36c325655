package main

import (
	"cmp"
	"context"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/optimizer-dev/optimizer/client"
	"github.com/optimizer-dev/optimizer/daemon"
)

// daemonOptions are optimizer daemon's flags: the daemon's options, and
// those cmd turns into them.
type daemonOptions struct {
	daemon.Options
	PoolDisk string // --pool-disk, a size such as 20G: Options.DiskBudget
	Verbose  bool
}

func newDaemonCmd(stdout, stderr io.Writer) *cobra.Command {
	var o daemonOptions
	cmd := &cobra.Command{
		Use:   "daemon [flags]",
		Short: "Run the daemon: one owner of the machine's slots, queue and benchmark gate",
		Long: `Run the optimizer daemon in the foreground until SIGTERM or SIGINT.

It listens on a unix socket (--socket, or $OPTIMIZER_SOCKET; by default
$XDG_RUNTIME_DIR/optimizer/daemon.sock), takes jobs from many clients, keeps a
warm pool of slots per repository, runs behaviour phases side by side within
one machine-wide slot budget, and benchmarks one job at a time. optimizer run
and watch submit to it when it answers. Logs go to stderr. On SIGTERM it
cancels running jobs, which run again at its next start, and exits 0.
See docs/daemon.md.

It serves a dashboard at / (docs/dashboard.md): over the socket, and with
--listen at http://127.0.0.1:PORT/?token=TOKEN, which sets a cookie that
carries the token for the rest of the visit.`,
		Example: `  optimizer daemon
  optimizer daemon --listen 127.0.0.1:7070   # adds TCP, with a bearer token`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDaemon(cmd.Context(), o, stderr)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Socket, "socket", "", "unix socket to listen on (default $OPTIMIZER_SOCKET, else "+client.DefaultSocket()+")")
	fs.StringVar(&o.Listen, "listen", "", "also listen on this TCP address (127.0.0.1:PORT), for the dashboard and remote clients; every request needs the token")
	fs.BoolVar(&o.AllowRemote, "allow-remote", false, "allow a --listen address that is not loopback")
	fs.StringVar(&o.TokenFile, "token-file", "", "file holding the bearer token for --listen, made (mode 0600) if missing (default <state-dir>/token)")
	fs.StringVar(&o.StateDir, "state-dir", "", "directory of the daemon's queue and token (default $XDG_STATE_HOME/optimizer, else ~/.local/state/optimizer)")
	fs.IntVarP(&o.Slots, "slots", "j", 0, "the machine-wide slot budget shared by all jobs (default: CPUs-1, at least 2 on 2+ CPUs)")
	fs.IntVar(&o.MaxJobs, "max-jobs", daemon.DefaultMaxJobs, "jobs run at once; they share the slot budget")
	fs.StringVar(&o.PoolDisk, "pool-disk", "20G", "disk the warm pools of idle repositories may take before the least recently used is removed")
	fs.BoolVar(&o.Paranoid, "paranoid-reset", false, "prove every slot clean at every reset")
	fs.StringVar(&o.MachineLock, "machine-lock", "", "the lock file that orders the daemon's tests and benchmarks against optimizer runs outside it (default: the one every optimizer process shares)")
	fs.BoolVarP(&o.Verbose, "verbose", "v", false, "log at debug level")
	return cmd
}

// socketPath is the socket a command uses: flag, then $OPTIMIZER_SOCKET,
// then the default.
func socketPath(flag string) string {
	return cmp.Or(flag, os.Getenv(client.SocketEnv), client.DefaultSocket())
}

func runDaemon(ctx context.Context, o daemonOptions, stderr io.Writer) error {
	level := slog.LevelInfo
	if o.Verbose {
		level = slog.LevelDebug
	}
	opts := o.Options
	opts.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	if opts.StateDir == "" {
		var err error
		if opts.StateDir, err = daemon.DefaultStateDir(); err != nil {
			return usageErrorf("no home directory for the daemon's state: pass --state-dir")
		}
	}
	budget, err := parseBytes(o.PoolDisk)
	if err != nil || budget <= 0 {
		return usageErrorf("--pool-disk %q: want a size such as 20G", o.PoolDisk)
	}
	opts.DiskBudget = budget
	opts.Socket = socketPath(opts.Socket)
	opts.Slots = max(0, opts.Slots) // 0: daemon.AutoSlots
	srv, err := daemon.New(ctx, opts)
	if err != nil {
		if strings.Contains(err.Error(), "--listen") {
			return &usageError{err}
		}
		return err
	}
	return srv.Run(ctx)
}

// daemonClient returns a client of the daemon on the socket the flag or
// the environment names, or nil when none answers.
func daemonClient(ctx context.Context, socketFlag string) *client.Client {
	c, _ := client.Dial(ctx, socketPath(socketFlag))
	return c
}
