package main

import (
	"context"
	"io"

	"github.com/optimizer-dev/optimizer/cmd/optimizer/internal/config"
	"github.com/optimizer-dev/optimizer/report"
	"github.com/spf13/cobra"
)

// reportOptions are the flags of optimizer report.
type reportOptions struct {
	storeOptions
	Job    string
	Format string
}

func newReportCmd(stdout io.Writer) *cobra.Command {
	var o reportOptions
	cmd := &cobra.Command{
		Use:   "report [JOB]",
		Short: "Print a past job's report in a format: text, json or markdown",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Job = args[0]
			}
			if o.Format != config.FormatText && o.Format != config.FormatJSON && o.Format != config.FormatMarkdown {
				return usageErrorf("--format %q: want text, json or markdown", o.Format)
			}
			return printReport(cmd.Context(), o, stdout)
		},
	}
	o.register(cmd.Flags())
	cmd.Flags().StringVar(&o.Format, "format", config.FormatText, "text, json or markdown")
	return cmd
}

// printReport prints a stored job's report in o.Format. A job that did not
// finish is rebuilt from what it recorded, with its state.
func printReport(ctx context.Context, o reportOptions, w io.Writer) error {
	rep, _, err := o.jobReport(ctx, o.Job)
	if err != nil {
		return err
	}
	return report.Write(w, rep, o.Format)
}
