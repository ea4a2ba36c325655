package shard

import (
	"context"
	"fmt"
	"strings"

	"github.com/optimizer-dev/optimizer/store"
)

// A jobError is a store's job that Job cannot choose as named; it is
// ErrNoJob.
type jobError string

func (e jobError) Error() string        { return string(e) }
func (e jobError) Is(target error) bool { return target == ErrNoJob }

// Job is the job of a store made by Merge (or by one shard run) to
// benchmark: the one named id, or, for "", the only one run in shards. A
// job run whole, a store with no job run in shards, and one with several
// but no id, are errors wrapping ErrNoJob; path names the store in them.
func Job(ctx context.Context, db *store.DB, path, id string) (store.Job, error) {
	if id != "" {
		j, err := db.Job(ctx, id)
		if err == nil && j.Shards == "" {
			err = jobError(fmt.Sprintf("job %s of %s was run whole, not in shards: it has no benchmark phase to finish", j.ID, path))
		}
		return j, err
	}
	jobs, err := db.Jobs(ctx, 0)
	if err != nil {
		return store.Job{}, err
	}
	var found []string
	var job store.Job
	for _, j := range jobs {
		if j.Shards != "" {
			found = append(found, j.ID)
			job = j
		}
	}
	switch len(found) {
	case 0:
		return store.Job{}, jobError(fmt.Sprintf("%s holds no job run in shards: make one with optimizer run --shard K/N --db FILE and optimizer merge", path))
	case 1:
		return job, nil
	}
	return store.Job{}, jobError(fmt.Sprintf("%s holds %d jobs run in shards (%s): name one with --job", path, len(found), strings.Join(found, ", ")))
}
