package client

import (
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
)

func TestInlineCandidate(t *testing.T) {
	for _, tt := range []struct {
		name    string
		c       candidate.Candidate
		want    string
		wantErr string
	}{
		{name: "Patch", c: candidate.Candidate{Name: "a", Patch: []byte("diff"), Parent: "p", Explanation: "why"},
			want: `{"explanation":"why","name":"a","parent":"p","patch":"diff"}`},
		{name: "Files", c: candidate.Candidate{Name: "b", Files: map[string][]byte{"x.go": []byte("package x")}, Deleted: []string{"y.go"}},
			want: `{"files":{"x.go":"package x","y.go":null},"name":"b"}`},
		{name: "Both", c: candidate.Candidate{Name: "c", Patch: []byte("diff"), Deleted: []string{"y.go"}},
			wantErr: "candidate c has both a patch and files"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := InlineCandidate(tt.c)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Errorf("InlineCandidate = %s, %v; want %s", got, err, tt.want)
			}
		})
	}
}
