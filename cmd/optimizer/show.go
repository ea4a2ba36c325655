package main

import (
	"context"
	"fmt"
	"io"

	"github.com/optimizer-dev/optimizer/report"
	"github.com/spf13/cobra"
)

// showOptions are the flags of optimizer show.
type showOptions struct {
	storeOptions
	Job     string
	Profile bool
}

func newShowCmd(stdout io.Writer) *cobra.Command {
	var o showOptions
	cmd := &cobra.Command{
		Use:   "show [JOB]",
		Short: "Print a past job's report (default: the latest job)",
		Long: `Print a past job's report as text. JOB is a job id or a unique prefix of one;
without it, the latest job. A job that did not finish is shown from what it
recorded, with its state.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Job = args[0]
			}
			return show(cmd.Context(), o, stdout)
		},
	}
	o.register(cmd.Flags())
	cmd.Flags().BoolVar(&o.Profile, "profile", false, "print only the winner's profile")
	return cmd
}

// show prints a stored job's report as text, or only its profile.
func show(ctx context.Context, o showOptions, w io.Writer) error {
	rep, j, err := o.jobReport(ctx, o.Job)
	if err != nil {
		return err
	}
	if !o.Profile {
		return report.Text(w, rep)
	}
	ok, err := report.ProfileText(w, rep)
	if err == nil && !ok {
		err = fmt.Errorf("job %s has no profile", j.ID)
	}
	return err
}
