package jobspec

import (
	"encoding/json"
	"errors"
	"math"
	"testing"
	"time"
)

// TestSpec_JSON: durations travel as Go duration strings and come back
// whole, and a zero one is left out. A string that is no duration is a type
// error holding the string, which the daemon reports by its field.
func TestSpec_JSON(t *testing.T) {
	s := Spec{Timeout: Duration(90 * time.Second), BenchBudget: Duration(time.Minute), MinSpeedup: 2.5}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"timeout":"1m30s","min_speedup":2.5,"bench_budget":"1m0s"}`; string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
	var back Spec
	if err := json.Unmarshal(b, &back); err != nil || back.Timeout != s.Timeout || back.BenchBudget != s.BenchBudget || back.MinSpeedup != 2.5 {
		t.Errorf("read back %+v, %v; want %+v", back, err, s)
	}
	if b, _ := json.Marshal(Spec{}); string(b) != `{}` {
		t.Errorf("zero spec: %s, want {}", b)
	}
	for _, in := range []string{`{"timeout": "ten minutes"}`, `{"timeout": 5}`, `{"timeout": "0s"}`, `{"timeout": "-1m"}`} {
		err := json.Unmarshal([]byte(in), &back)
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) || te.Field != "timeout" {
			t.Errorf("%s: %v, want a type error of field timeout", in, err)
		}
	}
	if err := json.Unmarshal([]byte(`{"timeout": null}`), &back); err != nil {
		t.Errorf("null: %v", err)
	}
}

// TestRecord: a job's recorded configuration is its spec with the base,
// slots and artifacts. The environment is kept by name only, an older
// client's Config not at all, and a threshold that is no number is an
// error, not a record.
func TestRecord(t *testing.T) {
	spec := Spec{Test: "make", MinSpeedup: 2.5, Env: map[string]string{"Z": "1", "A": "secret"}, Config: json.RawMessage(`{"format": "text"}`)}
	b, err := Record(spec, "abc", 3, "/art", true)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"test":"make","min_speedup":2.5,"env":["A","Z"],"base_commit":"abc","slots":3,"artifacts":"/art","daemon":true}`
	if string(b) != want {
		t.Errorf("recorded %s, want %s", b, want)
	}
	spec.MinSpeedup = math.Inf(1)
	if b, err := Record(spec, "abc", 3, "/art", false); err == nil {
		t.Errorf("an infinite threshold recorded as %s, want an error", b)
	}
}
