package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/optimizer-dev/optimizer/client"
	"github.com/optimizer-dev/optimizer/daemon"
	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/mcp"
)

// mcpOptions are optimizer mcp's flags.
type mcpOptions struct {
	Repo     string
	Socket   string
	NoDaemon bool
	// Policy is the private daemon's, when no daemon answers: what a job
	// may ask for, as optimizer daemon's flags say.
	Policy  daemon.Policy
	Verbose bool
}

func newMCPCmd(stdout, stderr io.Writer) *cobra.Command {
	var o mcpOptions
	cmd := &cobra.Command{
		Use:   "mcp [flags]",
		Short: "Serve optimizer's tools to a coding agent over MCP on stdio",
		Long: `Serve optimizer's tools over the Model Context Protocol on stdin and stdout,
for a coding agent (Claude Code, Codex, Cursor) to call optimizer as its judge:
evaluate, job, report, profile, benchmarks and targets. See docs/agents.md.

Jobs go to the daemon when one answers on the socket, and then its policy
applies. Otherwise (or with --no-daemon) they run in this process, on a
private daemon with no listener of its own and a state directory removed at
exit, under the policy the --allow flags give (by default: sandbox only).
No tool writes the repository; optimizer apply stays a person's command.
Logs go to stderr.`,
		Example: `  optimizer mcp                       # in the repository's directory
  claude mcp add optimizer -- optimizer mcp --repo /path/to/repo`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMCP(cmd.Context(), o, os.Stdin, stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Repo, "repo", ".", "the repository that calls naming none are about")
	f.StringVar(&o.Socket, "socket", "", "the daemon's unix socket (default $OPTIMIZER_SOCKET, else "+client.DefaultSocket()+")")
	f.BoolVar(&o.NoDaemon, "no-daemon", false, "run jobs in this process even when a daemon answers")
	f.BoolVar(&o.Policy.AllowUnsandboxed, "allow-unsandboxed", false, "without a daemon: let jobs run candidates outside the sandbox")
	f.BoolVar(&o.Policy.AllowSetup, "allow-setup", false, "without a daemon: let jobs run a setup command")
	f.BoolVar(&o.Policy.AllowCopyIgnored, "allow-copy-ignored", false, "without a daemon: let jobs copy ignored files into slots")
	f.BoolVarP(&o.Verbose, "verbose", "v", false, "log at debug level")
	return cmd
}

// runMCP serves the tools on in and out until the client goes or ctx ends.
func runMCP(ctx context.Context, o mcpOptions, in io.Reader, out, stderr io.Writer) error {
	level := slog.LevelWarn
	if o.Verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	r, err := gitcmd.FindRepo(ctx, o.Repo)
	if err != nil {
		return &usageError{fmt.Errorf("--repo %s: %w", o.Repo, err)}
	}
	var c *client.Client
	if !o.NoDaemon {
		c = daemonClient(ctx, o.Socket)
	}
	where := "on the daemon at " + socketOf(c)
	if c == nil {
		priv, stop, err := privateDaemon(ctx, o.Policy, logger)
		if err != nil {
			return err
		}
		defer stop()
		c, where = priv, "in this process"
	}
	fmt.Fprintf(stderr, "optimizer mcp: serving %s on stdio; jobs run %s\n", r.Root, where)
	return mcp.Serve(ctx, mcp.Options{Jobs: c, Repo: r.Root, RunBase: true, Version: version(), Logger: logger}, in, out)
}

func socketOf(c *client.Client) string {
	if c == nil {
		return ""
	}
	return c.Socket()
}

// privateDaemon starts a daemon in this process and returns a client of it.
// Its socket and queue are in a private temporary directory. stop ends it,
// waits, and removes the directory.
func privateDaemon(ctx context.Context, policy daemon.Policy, logger *slog.Logger) (*client.Client, func(), error) {
	dir, err := os.MkdirTemp("", "optimizer-mcp-")
	if err != nil {
		return nil, nil, err
	}
	ready := make(chan struct{})
	opts := daemon.Options{
		Socket:   filepath.Join(dir, "d.sock"),
		StateDir: dir,
		Policy:   policy,
		Logger:   logger,
		Ready:    func() { close(ready) },
	}
	srv, err := daemon.New(ctx, opts)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	dctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan error, 1)
	go func() { done <- srv.Run(dctx) }() // owned by stop
	stop := func() {
		cancel()
		if err := <-done; err != nil {
			logger.Warn("private daemon", "err", err)
		}
		os.RemoveAll(dir)
	}
	select {
	case <-ready:
	case err := <-done:
		cancel()
		os.RemoveAll(dir)
		if err == nil {
			err = errors.New("it stopped at once")
		}
		return nil, nil, fmt.Errorf("start a private daemon: %w", err)
	}
	return client.New(opts.Socket), stop, nil
}
