package client

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/optimizer-dev/optimizer/api"
)

// Active are the states of jobs not yet ended, for ListOptions.States.
var Active = []string{"queued", "running"}

// WriteJobs writes jobs as optimizer jobs shows them, or "no jobs". The
// table has one line per job, its base shortened to 12 digits and its
// submission time in the local zone.
func WriteJobs(w io.Writer, jobs []api.Job) error {
	if len(jobs) == 0 {
		_, err := fmt.Fprintln(w, "no jobs")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "JOB\tSTATE\tSUBMITTED\tREPO\tBASE\tRUN")
	for _, j := range jobs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", j.ID, j.State, j.Submitted.Local().Format(time.DateTime), j.Repo, j.Base[:min(12, len(j.Base))], j.RunID)
	}
	return tw.Flush()
}
