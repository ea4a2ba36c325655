package jobspec

import (
	"encoding/json"
	"errors"
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
