package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/api"
)

// TestWriteJSON_Unencodable: an answer JSON cannot encode (a NaN) is a 500
// whose api.Error says what failed, not a 200 with an empty body.
func TestWriteJSON_Unencodable(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, api.Event{Kind: "job-start", MinSpeedup: math.NaN()})
	}))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var e api.Error
	if err := json.Unmarshal(body, &e); err != nil || resp.StatusCode != 500 || !strings.Contains(e.Message, "encode the answer") {
		t.Errorf("%d %s (%v), want a 500 saying the answer could not be encoded", resp.StatusCode, body, err)
	}
}

// TestStream_UnencodableEvent: an event JSON cannot encode is left out of
// the stream, and the events after it still come, each a JSON object.
func TestStream_UnencodableEvent(t *testing.T) {
	srv, c := startServer(t, nil)
	srv.broker.Publish(api.Event{Job: "nan", Kind: "job-start", MinSpeedup: math.NaN()})
	srv.broker.Publish(api.Event{Job: "nan", Kind: api.EventEnded, Message: "finished"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://optimizer/v1/events", nil)
	resp, err := unixHTTP(c.Socket()).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var kinds []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data:")
		if !ok {
			continue
		}
		var e api.Event
		if err := json.Unmarshal([]byte(data), &e); err != nil {
			t.Fatalf("event data %q: %v", data, err)
		}
		if kinds = append(kinds, e.Kind); e.Kind == api.EventEnded {
			break
		}
	}
	if len(kinds) != 1 || kinds[0] != api.EventEnded {
		t.Errorf("events %v, want the ended event alone", kinds)
	}
}
