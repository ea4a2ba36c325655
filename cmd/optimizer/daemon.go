package main

import (
	"context"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/optimizer-dev/optimizer/client"
	"github.com/optimizer-dev/optimizer/cmd/optimizer/internal/config"
	"github.com/optimizer-dev/optimizer/daemon"
)

func newDaemonCmd(stdout, stderr io.Writer) *cobra.Command {
	var o config.Daemon
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
carries the token for the rest of the visit.

What a job may do is the daemon's policy, set by these flags, not the
client's wish. By default candidates run only in the sandbox (a job with
sandbox off, or any job on a machine without a working bwrap, is refused),
and no job runs a setup command, copies ignored files, gives sandboxed
processes the network, passes go test -c a flag that runs a program
(-toolexec, -exec) or sets environment variables beyond those clients send
by default (PATH, GOFLAGS, ...). --allow-unsandboxed,
--allow-setup, --allow-copy-ignored, --allow-sandbox-net,
--allow-build-flags and --allow-env allow them; a refused request is HTTP
403 naming the flag.`,
		Example: `  optimizer daemon
  optimizer daemon --listen 127.0.0.1:7070   # adds TCP, with a bearer token
  optimizer daemon --allow-setup --allow-copy-ignored   # jobs may prepare their slots`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDaemon(cmd.Context(), o, stderr)
		},
	}
	o.Register(cmd.Flags())
	return cmd
}

func runDaemon(ctx context.Context, o config.Daemon, stderr io.Writer) error {
	opts, err := o.DaemonOptions(stderr)
	if err != nil {
		return &usageError{err}
	}
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
	c, _ := client.Dial(ctx, config.SocketPath(socketFlag))
	return c
}
