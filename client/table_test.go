package client

import (
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/api"
)

func TestWriteJobs(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	for _, tt := range []struct {
		name string
		jobs []api.Job
		want string
	}{
		{"None", nil, "no jobs\n"},
		{"Two", []api.Job{
			{ID: "j-2", State: "queued", Submitted: at, Repo: "/src/long-repository", Base: "0123456789abcdef0123456789abcdef01234567"},
			{ID: "j-1", State: "finished", Submitted: at, Repo: "/r", Base: "abc", RunID: "run-1"},
		}, strings.Join([]string{
			"JOB  STATE     SUBMITTED            REPO                  BASE          RUN",
			"j-2  queued    " + at.Local().Format(time.DateTime) + "  /src/long-repository  0123456789ab  ",
			"j-1  finished  " + at.Local().Format(time.DateTime) + "  /r                    abc           run-1",
			"",
		}, "\n")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := WriteJobs(&b, tt.jobs); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("WriteJobs:\n%s\nwant:\n%s", b.String(), tt.want)
			}
		})
	}
}
