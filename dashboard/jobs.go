package dashboard

import (
	"net/http"
	"net/url"
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
	Link     string // the job's page
	RepoLink string // the repository's page
	Progress string // "3/6"
	ETAText  string
	Speedup  string
	Age      string
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
	h.render(w, http.StatusOK, "jobs", page{Title: "jobs", Body: v})
}

func newJobRow(j Job, now time.Time) jobRow {
	row := jobRow{Job: j, Link: jobLink(j.ID), RepoLink: repoLink(j.Repo)}
	if j.Total > 0 {
		row.Progress = itoa(j.Done) + "/" + itoa(j.Total)
	}
	if j.ETA > 0 {
		row.ETAText = shortDuration(j.ETA)
	}
	if j.Winner != "" && j.Speedup > 0 {
		row.Speedup = speedupText(j.Speedup)
	}
	if !j.Started.IsZero() {
		row.Age = shortDuration(now.Sub(j.Started)) + " ago"
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
