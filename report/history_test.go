package report

import (
	"bytes"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/store"
)

func TestHistory(t *testing.T) {
	at := func(h int) time.Time { return time.Date(2026, 3, 1, h, 4, 5, 0, time.Local) }
	for _, tt := range []struct {
		name  string
		jobs  []store.Job
		cands []int
		want  string
	}{
		{name: "None", want: "no jobs yet\n"},
		{
			name: "NewestFirstAsGiven",
			jobs: []store.Job{
				{ID: "20260301-b", Started: at(15), Kind: "watch", State: "running", Base: "0123456789abcdef0123"},
				{ID: "20260301-a", Started: at(9), Kind: "run", State: "finished", Base: "fedcba9876543210", Winner: "fast"},
			},
			cands: []int{1, 12},
			want: "JOB         STARTED              KIND   STATE     BASE          CANDIDATES  WINNER\n" +
				"20260301-b  2026-03-01 15:04:05  watch  running   0123456789ab  1           -\n" +
				"20260301-a  2026-03-01 09:04:05  run    finished  fedcba987654  12          fast\n",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			History(&b, tt.jobs, tt.cands)
			if b.String() != tt.want {
				t.Errorf("History:\n%s\nwant:\n%s", b.String(), tt.want)
			}
		})
	}
}
