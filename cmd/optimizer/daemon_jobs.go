package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/optimizer-dev/optimizer/client"
	"github.com/optimizer-dev/optimizer/cmd/optimizer/internal/config"
)

func newJobsCmd(stdout io.Writer) *cobra.Command {
	var o config.Jobs
	cmd := &cobra.Command{
		Use:   "jobs [flags]",
		Short: "List the daemon's queued and running jobs",
		Long: `List the daemon's jobs: those queued and running, or with --all the ended
ones too, newest first. Their results are in each repository's store:
optimizer show RUN_ID there.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return listDaemonJobs(cmd.Context(), o, stdout)
		},
	}
	o.Register(cmd.Flags())
	return cmd
}

// needDaemon returns the daemon's client, or an error saying how to start one.
func needDaemon(ctx context.Context, socketFlag string) (*client.Client, error) {
	c, err := client.Dial(ctx, config.SocketPath(socketFlag))
	if err != nil {
		return nil, fmt.Errorf("%w: start one with optimizer daemon", err)
	}
	return c, nil
}

func listDaemonJobs(ctx context.Context, o config.Jobs, w io.Writer) error {
	if err := o.Validate(); err != nil {
		return &usageError{err}
	}
	c, err := needDaemon(ctx, o.Socket)
	if err != nil {
		return err
	}
	list, err := c.Jobs(ctx, o.ListOptions())
	if err != nil {
		return fmt.Errorf("list jobs: %w", err)
	}
	if o.Format == config.FormatJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(list.Jobs)
	}
	return client.WriteJobs(w, list.Jobs)
}

// cancelOptions are optimizer cancel's flags.
type cancelOptions struct {
	Socket string
}

func newCancelCmd(stdout io.Writer) *cobra.Command {
	var o cancelOptions
	cmd := &cobra.Command{
		Use:   "cancel JOB",
		Short: "Cancel a daemon's job: its processes are killed and its slots released",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := needDaemon(cmd.Context(), o.Socket)
			if err != nil {
				return err
			}
			j, err := c.Cancel(cmd.Context(), args[0])
			if err != nil {
				return fmt.Errorf("cancel %s: %w", args[0], err)
			}
			fmt.Fprintf(stdout, "%s %s\n", j.ID, j.State)
			return nil
		},
	}
	cmd.Flags().StringVar(&o.Socket, "socket", "", "the daemon's socket (default $OPTIMIZER_SOCKET, else "+client.DefaultSocket()+")")
	return cmd
}
