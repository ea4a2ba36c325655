package daemon

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/store"
)

// Paging of GET /v1/jobs.
const (
	defaultPage = 50
	maxPage     = 1000
	// cancelWait bounds how long DELETE waits for a running job to stop.
	cancelWait = time.Minute
)

func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/jobs", s.handleSubmit)
	mux.HandleFunc("GET /v1/jobs", s.handleList)
	mux.HandleFunc("GET /v1/jobs/{id}", s.handleJob)
	mux.HandleFunc("DELETE /v1/jobs/{id}", s.handleCancel)
	mux.HandleFunc("GET /v1/jobs/{id}/report", s.handleReport)
	mux.HandleFunc("GET /v1/jobs/{id}/events", s.handleJobEvents)
	mux.HandleFunc("GET /v1/events", s.handleEvents)
	mux.HandleFunc("GET /v1/health", s.handleHealth)
	mux.HandleFunc("GET /v1/openapi.json", s.handleOpenAPI)
	mux.Handle("GET /metrics", s.met.handler())
	if s.opts.MCPJobs != nil {
		mux.Handle("/v1/mcp", s.mcpHandler(mux)) // daemon/mcp.go
	}
	mux.HandleFunc("/v1/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, &requestError{status: http.StatusNotFound, msg: fmt.Sprintf("no route %s %s: see /v1/openapi.json", r.Method, r.URL.Path)})
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if s.opts.Other != nil {
			s.opts.Other.ServeHTTP(w, r)
			return
		}
		writeError(w, &requestError{status: http.StatusNotFound, msg: "not found: the API is under /v1/"})
	})
	return mux
}

// writeJSON answers with status and v as indented JSON. A v that JSON
// cannot encode (a NaN in a report) is a 500 that says so, not a 200 with
// no body. A failed write is a client that went away: no one is left to tell.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		status = http.StatusInternalServerError
		// api.Error holds strings only: it always encodes.
		b, _ = json.MarshalIndent(api.Error{Message: "encode the answer: " + err.Error()}, "", "  ")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// writeError answers with err's status and a api.Error body naming the
// field to fix; an error that is no *requestError is a 500.
func writeError(w http.ResponseWriter, err error) {
	var re *requestError
	if !errors.As(err, &re) {
		re = &requestError{status: http.StatusInternalServerError, msg: err.Error()}
	}
	writeJSON(w, re.status, api.Error{Message: re.msg, Field: re.field})
}

// newJobID is a job's one id: in the queue, the API, the CLI and the
// repository's store (the evaluator records the run under it). Jobs of
// older daemons have an id that starts with d, and a run id apart.
func newJobID() string {
	var b [6]byte
	rand.Read(b[:])
	return time.Now().UTC().Format("20060102-150405-") + hex.EncodeToString(b[:])
}

// handleSubmit is POST /v1/jobs: validate, record durably, then 202.
func (s *Server) handleSubmit(w http.ResponseWriter, r *http.Request) {
	var req api.JobRequest
	if err := decodeJSON(w, r, s.opts.MaxBody, &req); err != nil {
		writeError(w, err)
		return
	}
	// The request's own errors first, then what the policy refuses, then
	// what needs a look at the repository.
	if err := checkOptions(req); err != nil {
		writeError(w, err)
		return
	}
	if err := s.opts.Policy.check(req, s.opts.sandboxErr); err != nil {
		writeError(w, err)
		return
	}
	spec, err := validate(r.Context(), req)
	if err != nil {
		writeError(w, err)
		return
	}
	b, err := json.Marshal(spec)
	if err != nil {
		writeError(w, err)
		return
	}
	id := newJobID()
	seq, err := s.db.Enqueue(r.Context(), store.QueuedJob{ID: id, Repo: spec.Root, Base: spec.Base, Request: b})
	if err != nil {
		writeError(w, fmt.Errorf("record the job: %w", err))
		return
	}
	s.broker.Open(id)
	s.broker.Publish(api.Event{Job: id, Kind: api.EventQueued, Time: time.Now(), Message: store.QueueQueued, Total: len(spec.Candidates)})
	if req.Session != "" {
		s.supersede(r.Context(), req.Session, id)
	}
	s.sched.poke()
	s.log.Info("job accepted", "job", id, "repo", spec.Root, "candidates", len(spec.Candidates))
	w.Header().Set("Location", "/v1/jobs/"+id)
	writeJSON(w, http.StatusAccepted, api.Submitted{ID: id, Seq: seq})
}

// supersede cancels the older jobs of a watch session: queued ones at once,
// running ones through their context.
func (s *Server) supersede(ctx context.Context, session, keep string) {
	queued, err := s.db.QueuedJobs(ctx, store.QueueFilter{States: []string{store.QueueQueued}})
	if err != nil {
		s.log.Error("read the queue to supersede a session's jobs", "session", session, "err", err)
	}
	for _, qj := range queued {
		if qj.ID == keep {
			continue
		}
		spec, err := decodeSpec(qj)
		if err != nil {
			s.log.Error("supersede", "err", err) // the scheduler fails it when it comes up
			continue
		}
		if spec.Request.Session == session && s.db.CancelQueued(ctx, qj.ID, errSuperseded.Error()) == nil {
			s.met.ended(store.QueueCancelled)
			s.broker.End(qj.ID, store.QueueCancelled)
		}
	}
	s.sched.supersede(session, keep)
}

func (s *Server) handleList(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := store.QueueFilter{Repo: q.Get("repo"), Limit: defaultPage}
	if st := q.Get("state"); st != "" {
		for _, v := range strings.Split(st, ",") {
			switch v {
			case store.QueueQueued, store.QueueRunning, store.QueueFinished, store.QueueFailed, store.QueueCancelled:
				f.States = append(f.States, v)
			default:
				writeError(w, badRequest("state", "%q: want queued, running, finished, failed or cancelled (comma-separated)", v))
				return
			}
		}
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxPage {
			writeError(w, badRequest("limit", "%q: want a number from 1 to %d", v, maxPage))
			return
		}
		f.Limit = n
	}
	if v := q.Get("before"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			writeError(w, badRequest("before", "%q: want a job's seq, a positive number", v))
			return
		}
		f.Before = n
	}
	jobs, err := s.Jobs(r.Context(), f)
	if err != nil {
		writeError(w, err)
		return
	}
	out := api.JobList{Jobs: jobs}
	if out.Jobs == nil {
		out.Jobs = []api.Job{}
	}
	if len(jobs) == f.Limit {
		out.Next = jobs[len(jobs)-1].Seq
	}
	writeJSON(w, http.StatusOK, out)
}

// Jobs lists the jobs f selects, newest first, without their reports. It
// is what GET /v1/jobs serves; the dashboard calls it in process.
func (s *Server) Jobs(ctx context.Context, f store.QueueFilter) ([]api.Job, error) {
	rows, err := s.db.QueuedJobs(ctx, f)
	if err != nil {
		return nil, err
	}
	out := make([]api.Job, 0, len(rows))
	for _, qj := range rows {
		out = append(out, toJob(qj))
	}
	return out, nil
}

// Job returns one job with its report: partial while it runs, whole once
// it ended, none while it is queued. An unknown id is store.ErrNotFound.
// It is what GET /v1/jobs/{id} serves; the dashboard calls it in process.
func (s *Server) Job(ctx context.Context, id string) (api.Job, error) {
	qj, err := s.db.QueuedJobByID(ctx, id)
	if err != nil {
		return api.Job{}, err
	}
	j := toJob(qj)
	switch {
	case len(qj.Report) > 0:
		rep, err := decodeReport(qj)
		if err != nil {
			return api.Job{}, err
		}
		j.Report = rep
	case qj.State == store.QueueRunning:
		if rj := s.sched.get(id); rj != nil {
			j.Report = rj.live.snapshot()
		}
	}
	return j, nil
}

func toJob(qj store.QueuedJob) api.Job {
	j := api.Job{ID: qj.ID, Seq: qj.Seq, Repo: qj.Repo, Base: qj.Base, State: qj.State, Submitted: qj.Submitted,
		Attempts: qj.Attempts, RunID: qj.RunID, Error: qj.Error}
	if !qj.Started.IsZero() {
		t := qj.Started
		j.Started = &t
	}
	if !qj.Finished.IsZero() {
		t := qj.Finished
		j.Finished = &t
	}
	return j
}

func (s *Server) jobOr404(w http.ResponseWriter, r *http.Request) (api.Job, bool) {
	id := r.PathValue("id")
	j, err := s.Job(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		writeError(w, &requestError{status: http.StatusNotFound, field: "id", msg: fmt.Sprintf("no job %q: GET /v1/jobs lists them", id)})
		return j, false
	}
	if err != nil {
		writeError(w, err)
		return j, false
	}
	return j, true
}

func (s *Server) handleJob(w http.ResponseWriter, r *http.Request) {
	if j, ok := s.jobOr404(w, r); ok {
		writeJSON(w, http.StatusOK, j)
	}
}

// handleCancel is DELETE /v1/jobs/{id}: a queued job ends at once; a
// running one is cancelled (its processes killed, its slots released) and
// waited for. A job that has ended is 409.
func (s *Server) handleCancel(w http.ResponseWriter, r *http.Request) {
	j, ok := s.jobOr404(w, r)
	if !ok {
		return
	}
	if err := s.Cancel(r.Context(), j.ID); err != nil {
		writeError(w, err)
		return
	}
	if j, ok = s.jobOr404(w, r); ok {
		writeJSON(w, http.StatusOK, j)
	}
}

// Cancel cancels a job and waits (a bounded time) until it has stopped.
func (s *Server) Cancel(ctx context.Context, id string) error {
	if err := s.db.CancelQueued(ctx, id, errCancelled.Error()); err == nil {
		s.met.ended(store.QueueCancelled)
		s.broker.End(id, store.QueueCancelled)
		return nil // it was queued
	}
	rj := s.sched.get(id)
	if rj == nil {
		j, err := s.db.QueuedJobByID(ctx, id)
		if err != nil {
			return err
		}
		return &requestError{status: http.StatusConflict, field: "id", msg: fmt.Sprintf("job %s has ended (%s): nothing to cancel", id, j.State)}
	}
	rj.cancel(errCancelled)
	select {
	case <-rj.done:
		return nil
	case <-time.After(cancelWait):
		return fmt.Errorf("job %s did not stop within %v", id, cancelWait)
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Server) handleReport(w http.ResponseWriter, r *http.Request) {
	format := r.URL.Query().Get("format")
	switch format {
	case "":
		format = "json"
	case "json", "text", "markdown":
	default:
		writeError(w, badRequest("format", "%q: want text, markdown or json", format))
		return
	}
	j, ok := s.jobOr404(w, r)
	if !ok {
		return
	}
	if j.Report == nil {
		writeError(w, &requestError{status: http.StatusConflict, field: "id", msg: fmt.Sprintf("job %s is %s: it has no report yet", j.ID, j.State)})
		return
	}
	if format == "json" {
		writeJSON(w, http.StatusOK, j.Report)
		return
	}
	if s.opts.Render == nil {
		writeError(w, &requestError{status: http.StatusNotImplemented, field: "format", msg: "this daemon renders json only"})
		return
	}
	var buf bytes.Buffer
	if err := s.opts.Render(&buf, j.Report, format); err != nil {
		writeError(w, fmt.Errorf("render the report: %w", err))
		return
	}
	ct := "text/plain; charset=utf-8"
	if format == "markdown" {
		ct = "text/markdown; charset=utf-8"
	}
	w.Header().Set("Content-Type", ct)
	w.Write(buf.Bytes())
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	n, err := s.db.CountQueued(r.Context())
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, api.Health{Status: "ok", PID: os.Getpid(), Queued: n[store.QueueQueued],
		Running: s.sched.count(), Slots: s.opts.Slots})
}
