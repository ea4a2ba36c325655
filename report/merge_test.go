package report

import (
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/shard"
)

func TestMerge(t *testing.T) {
	for _, tt := range []struct {
		name string
		res  shard.Result
		want string
	}{
		{"Missing", shard.Result{Job: "j1", Shards: []shard.Spec{{K: 1, N: 3}}, Missing: []shard.Spec{{K: 2, N: 3}, {K: 3, N: 3}},
			Candidates: 5, Added: []string{"a"}, Unjudged: []string{"b", "c"}},
			"all.db: job j1, shards 1/3: 5 candidates, 1 judged by this merge\nnot merged yet: shard 2/3, 3/3 (2 candidates unjudged)\n"},
		{"Whole", shard.Result{Job: "j1", Shards: []shard.Spec{{K: 1, N: 2}, {K: 2, N: 2}}, Candidates: 1, Added: []string{"a"}},
			"all.db: job j1, shards 1/2 2/2: 1 candidate, 1 judged by this merge\nevery shard is in: benchmark with optimizer bench --db all.db\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			Merge(&b, "all.db", &tt.res)
			if b.String() != tt.want {
				t.Errorf("Merge wrote\n%s\nwant\n%s", b.String(), tt.want)
			}
		})
	}
}
