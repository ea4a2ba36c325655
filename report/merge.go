package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/optimizer-dev/optimizer/shard"
)

// Merge writes what optimizer merge did into the store out. That is the
// job, the shards in it, and its candidates. Then it names either the
// shards not merged yet, or optimizer bench as the next step.
func Merge(w io.Writer, out string, res *shard.Result) {
	shards := make([]string, len(res.Shards))
	for i, s := range res.Shards {
		shards[i] = s.String()
	}
	fmt.Fprintf(w, "%s: job %s, shards %s: %s, %d judged by this merge\n",
		out, res.Job, strings.Join(shards, " "), Plural(res.Candidates, "candidate"), len(res.Added))
	if len(res.Missing) > 0 {
		missing := make([]string, len(res.Missing))
		for i, s := range res.Missing {
			missing[i] = s.String()
		}
		fmt.Fprintf(w, "not merged yet: shard %s (%s unjudged)\n", strings.Join(missing, ", "), Plural(len(res.Unjudged), "candidate"))
		return
	}
	fmt.Fprintf(w, "every shard is in: benchmark with optimizer bench --db %s\n", out)
}
