package client

import (
	"bufio"
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/api"
)

// TestNewInProcess: a response streams as the handler writes it, and its
// status and header arrive before the handler returns. Closing the body
// ends the handler's request context, as a dropped connection would.
func TestNewInProcess(t *testing.T) {
	ended := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusAccepted)
		w.Write([]byte("data: one\n\n"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		close(ended)
	})
	c := NewInProcess(h)
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, c.base+"/v1/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusAccepted || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Errorf("status %d, type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || line != "data: one\n" {
		t.Fatalf("first line %q, %v", line, err)
	}
	resp.Body.Close()
	select {
	case <-ended:
	case <-time.After(time.Minute):
		t.Fatal("closing the body did not end the handler's request")
	}
}

// TestNewInProcess_Errors: the daemon's error answers reach the caller as
// *APIError, as over a socket.
func TestNewInProcess_Errors(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"error": "no job \"x\"", "field": "id"}`))
	})
	_, err := NewInProcess(h).Job(context.Background(), "x")
	apiErr, ok := err.(*api.Error)
	if !ok || apiErr.Status != http.StatusNotFound || apiErr.Message != `no job "x"` || apiErr.Field != "id" {
		t.Errorf("error %#v, want a 404 APIError naming the job", err)
	}
}
