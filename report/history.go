package report

import (
	"fmt"
	"io"

	"github.com/optimizer-dev/optimizer/store"
)

// History writes optimizer history's table of past jobs in the order
// given: id, start (local time), kind, state, base, number of candidates
// (cands[i] is jobs[i]'s) and winner, "-" for none. With no jobs it says so.
func History(w io.Writer, jobs []store.Job, cands []int) {
	if len(jobs) == 0 {
		fmt.Fprintln(w, "no jobs yet")
		return
	}
	rows := [][]string{{"JOB", "STARTED", "KIND", "STATE", "BASE", "CANDIDATES", "WINNER"}}
	for i, j := range jobs {
		winner := j.Winner
		if winner == "" {
			winner = "-"
		}
		rows = append(rows, []string{j.ID, j.Started.Local().Format("2006-01-02 15:04:05"), j.Kind, j.State,
			ShortHash(j.Base), fmt.Sprint(cands[i]), winner})
	}
	Columns(w, "", rows)
}
