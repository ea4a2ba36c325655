package daemon

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/store"
)

// keepAlive is how often an idle event stream gets a comment line, so that
// a dead client is noticed and proxies keep the connection.
const keepAlive = 15 * time.Second

func lastEventID(r *http.Request) (uint64, error) {
	v := r.Header.Get("Last-Event-ID")
	if v == "" {
		v = r.URL.Query().Get("after")
	}
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, badRequest("Last-Event-ID", "%q: want the id of the last event read, a number", v)
	}
	return n, nil
}

// handleJobEvents is GET /v1/jobs/{id}/events: the job's events as SSE,
// from after Last-Event-ID, ending with its "ended" event.
func (s *Server) handleJobEvents(w http.ResponseWriter, r *http.Request) {
	after, err := lastEventID(r)
	if err != nil {
		writeError(w, err)
		return
	}
	j, ok := s.jobOr404(w, r)
	if !ok {
		return
	}
	if j.Ended() {
		// Its stream ends, also where the store lacks its end: a daemon
		// killed between recording the end and publishing it, or one that
		// kept no events.
		s.broker.End(j.ID, j.State)
	}
	ch, err := s.broker.Subscribe(r.Context(), j.ID, after)
	if errors.Is(err, ErrUnknownJob) {
		// Queued by a daemon that kept no events: it waits in the queue.
		s.broker.Open(j.ID)
		ch, err = s.broker.Subscribe(r.Context(), j.ID, after)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	s.stream(w, r, ch)
}

// handleEvents is GET /v1/events: every job's events.
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
	after, err := lastEventID(r)
	if err != nil {
		writeError(w, err)
		return
	}
	ch, err := s.broker.Subscribe(r.Context(), "", after)
	if err != nil {
		writeError(w, err)
		return
	}
	s.stream(w, r, ch)
}

// stream writes events as SSE until ch closes or the client goes. A reader
// too slow for the broker has its channel closed: the stream ends, and the
// client resumes with Last-Event-ID.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, ch <-chan api.Event) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	rc.Flush()
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		select {
		case e, ok := <-ch:
			if !ok {
				return
			}
			if err := s.writeEvent(w, e); err != nil {
				return
			}
			for more := true; more; { // write what is queued before flushing
				select {
				case e, ok := <-ch:
					if !ok {
						rc.Flush()
						return
					}
					if err := s.writeEvent(w, e); err != nil {
						return
					}
				default:
					more = false
				}
			}
			if rc.Flush() != nil {
				return
			}
		case <-tick.C:
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil || rc.Flush() != nil {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
}

var _ = store.QueueQueued

// writeEvent writes e as one SSE event. An event that JSON cannot encode
// (a NaN in it) is logged and left out, and the stream goes on; an error
// is the write's, which ends the stream.
func (s *Server) writeEvent(w io.Writer, e api.Event) error {
	b, err := json.Marshal(e)
	if err != nil {
		s.log.Error("encode an event for a stream: it is left out", "job", e.Job, "kind", e.Kind, "seq", e.Seq, "err", err)
		return nil
	}
	_, err = fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", e.Seq, e.Kind, b)
	return err
}
