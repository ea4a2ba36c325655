package dashboard

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// events streams the source's events as Server-Sent Events: "id:" is the
// source's event id, so that a browser that reconnects resumes with
// Last-Event-ID, and data is {"job": …, "kind": …}. The page's script only
// needs to know that something changed.
func (h *Handler) events(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming is not supported on this connection", http.StatusInternalServerError)
		return
	}
	ctx := r.Context()
	ch, err := h.src.Subscribe(ctx, r.Header.Get("Last-Event-ID"))
	if err != nil {
		h.logger.Error("subscribe to events", "err", err)
		http.Error(w, "the event stream is not available: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "retry: 2000\n\n")
	flusher.Flush()
	var tick <-chan time.Time
	if h.heartbeat > 0 {
		t := time.NewTicker(h.heartbeat)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return
			}
		case e, ok := <-ch:
			if !ok {
				return
			}
			if err := writeEvent(w, e); err != nil {
				return
			}
		}
		flusher.Flush()
	}
}

func writeEvent(w http.ResponseWriter, e Event) error {
	data, err := json.Marshal(struct {
		Job  string `json:"job"`
		Kind string `json:"kind"`
	}{e.Job, e.Kind})
	if err != nil {
		return err
	}
	if e.ID != "" {
		if _, err := fmt.Fprintf(w, "id: %s\n", oneLine(e.ID)); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintf(w, "data: %s\n\n", data)
	return err
}

// oneLine keeps an id from breaking the stream's framing.
func oneLine(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c == '\n' || c == '\r' {
			b[i] = ' '
		}
	}
	return string(b)
}
