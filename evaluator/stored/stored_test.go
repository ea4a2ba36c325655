package stored

import (
	"encoding/json"
	"testing"

	"github.com/optimizer-dev/optimizer/result"
	"github.com/optimizer-dev/optimizer/store"
)

// TestRestore_Winner: a stored winner comes back with the verdict it
// had before the earlier bench chose it. So choosing again ranks it as that
// choice did: faster, or not-faster when it won as faster on some
// benchmarks.
func TestRestore_Winner(t *testing.T) {
	for _, tt := range []struct {
		qualifier string
		want      result.Verdict
	}{{"", result.VerdictFaster}, {result.QualifierFasterOnSome, result.VerdictNotFaster}} {
		stored, err := json.Marshal(result.CandidateResult{Verdict: result.VerdictWinner, Qualifier: tt.qualifier, Speedup: 1.4})
		if err != nil {
			t.Fatal(err)
		}
		var res result.CandidateResult
		if err := Restore(&res, store.Candidate{Name: "w", Verdict: string(result.VerdictWinner), Result: stored}); err != nil {
			t.Fatal(err)
		}
		if res.Verdict != tt.want || res.Qualifier != tt.qualifier || res.Speedup != 1.4 {
			t.Errorf("winner with qualifier %q: %+v, want %s with the qualifier and speedup kept", tt.qualifier, res, tt.want)
		}
	}
}
