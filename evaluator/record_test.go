package evaluator

import (
	"errors"
	"io"
	"log/slog"
	"math"
	"testing"
)

// TestEncode_Unencodable: a result that JSON cannot hold (a NaN speedup)
// leaves its column NULL and is a failed write, which the job reports.
func TestEncode_Unencodable(t *testing.T) {
	j := &job{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if b := j.encode("fast's result", CandidateResult{Name: "fast", Speedup: 1.5}); string(b) == "" {
		t.Fatal("a plain result encoded to nothing")
	}
	if err := j.unrecorded(); err != nil {
		t.Fatalf("after a good result: %v", err)
	}
	if b := j.encode("fast's result", CandidateResult{Name: "fast", Speedup: math.NaN()}); b != nil {
		t.Errorf("a NaN speedup encoded to %s", b)
	}
	err := j.unrecorded()
	if !errors.Is(err, ErrNotRecorded) {
		t.Fatalf("unrecorded() = %v, want ErrNotRecorded", err)
	}
	if len(j.warnings) != 1 {
		t.Errorf("warnings %q, want one that says the store could not record", j.warnings)
	}
	t.Log(err)
}
