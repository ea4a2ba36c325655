package api

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/result"
)

// fullEvent is an evaluator event with every field set.
func fullEvent() result.Event {
	at := time.Date(2026, 11, 26, 17, 0, 0, 0, time.UTC)
	return result.Event{
		Kind: result.EventSample, Time: at, Phase: "benchmark", Candidate: "fast", Index: 2, Done: 1, Total: 4,
		Message: "m", Result: &result.CandidateResult{Name: "fast", Verdict: result.VerdictPending},
		Pair: 14, BaseSample: 300 * time.Millisecond, After: 500 * time.Millisecond, Forecast: 12, History: []result.PastBenchmark{{Candidate: "a", Pairs: 8}, {Candidate: "b", Pairs: 30}},
		Slots: 2, MinSpeedup: 0.05, Since: at.Add(-time.Second), AtBase: 10 * time.Millisecond,
	}
}

// TestEvent_RoundTrip: an evaluator event goes through the API's JSON and
// back whole, so that a client's progress and ETA read what an in-process
// one does. A field added to result.Event and not to the API fails it.
func TestEvent_RoundTrip(t *testing.T) {
	e := fullEvent()
	v := reflect.ValueOf(e)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Fatalf("fullEvent leaves %s unset: set it, and carry it in the API's Event", v.Type().Field(i).Name)
		}
	}
	data, err := json.Marshal(FromEvaluator("job1", e))
	if err != nil {
		t.Fatal(err)
	}
	var back Event
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.Job != "job1" {
		t.Errorf("job %q, want job1", back.Job)
	}
	if got := back.Evaluator(); !reflect.DeepEqual(got, e) {
		t.Errorf("through the API:\n got %+v\nwant %+v\n(JSON %s)", got, e, data)
	}
}
