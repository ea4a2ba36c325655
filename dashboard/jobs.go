package dashboard

import (
	"cmp"
	"net/http"
	"net/url"
	"slices"
	"time"
)

// maxFinishedJobs is how many finished jobs the jobs page lists.
const maxFinishedJobs = 200

// jobsView is the jobs page: the queue, the running jobs and the finished
// ones.
type jobsView struct {
	Queued, Running, Finished []jobRow
	More                      int // finished jobs not listed
}

// jobRow is one job as the jobs page shows it.
type jobRow struct {
	Job
	Position  string // in the queue: 1 starts next; "" for other states
	StateText string // "running", "running, waiting for a slot"
	Link      string // the job's page
	RepoLink  string // the repository's page
	Progress  string // "3/6"
	ETAText   string
	Speedup   string
	Submitted string // when it was submitted, UTC
	Duration  string // waiting so far (queued), running so far, or how long it ran
}

func (h *Handler) jobsPage(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := requestContext(r)
	defer cancel()
	jobs, err := h.src.Jobs(ctx)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	var v jobsView
	now := time.Now()
	for _, j := range jobs {
		row := newJobRow(j, now)
		switch j.State {
		case "queued":
			v.Queued = append(v.Queued, row)
		case "running":
			v.Running = append(v.Running, row)
		default:
			if len(v.Finished) == maxFinishedJobs {
				v.More++
				continue
			}
			v.Finished = append(v.Finished, row)
		}
	}
	// The queue in the order it will run: the scheduler starts the oldest
	// submission first.
	slices.SortStableFunc(v.Queued, func(a, b jobRow) int { return cmp.Compare(a.Seq, b.Seq) })
	for i := range v.Queued {
		v.Queued[i].Position = itoa(i + 1)
	}
	h.render(w, http.StatusOK, "jobs", page{Title: "jobs", Body: v})
}

func newJobRow(j Job, now time.Time) jobRow {
	row := jobRow{Job: j, Link: jobLink(j.ID), RepoLink: repoLink(j.Repo), StateText: j.State}
	if j.WaitsForSlot {
		row.StateText += ", waiting for a slot"
	}
	if j.Total > 0 {
		row.Progress = itoa(j.Done) + "/" + itoa(j.Total)
	}
	if j.ETA > 0 {
		row.ETAText = shortDuration(j.ETA)
	}
	if j.Winner != "" && j.Speedup > 0 {
		row.Speedup = speedupText(j.Speedup)
	}
	if !j.Submitted.IsZero() {
		row.Submitted = j.Submitted.UTC().Format("2006-01-02 15:04:05Z")
	}
	switch {
	case !j.Finished.IsZero() && !j.Started.IsZero():
		row.Duration = shortDuration(j.Finished.Sub(j.Started))
	case !j.Started.IsZero():
		row.Duration = shortDuration(now.Sub(j.Started)) + " so far"
	case !j.Submitted.IsZero():
		row.Duration = "waiting " + shortDuration(now.Sub(j.Submitted))
	}
	return row
}

func jobLink(id string) string { return "/jobs/" + url.PathEscape(id) }

func repoLink(repo string) string {
	if repo == "" {
		return ""
	}
	return "/repo?path=" + url.QueryEscape(repo)
}
