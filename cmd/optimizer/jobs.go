package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/store"
)

// errNoStore is returned by the commands that read past jobs when no job
// has run in the repository yet.
var errNoStore = errors.New("no job has run in this repository yet")

// storeOptions are the flags of the commands that read past jobs.
type storeOptions struct {
	Repo string
	DB   string
}

func (o *storeOptions) register(fs *pflag.FlagSet) {
	fs.StringVar(&o.Repo, "repo", ".", "any directory in the git repository")
	fs.StringVar(&o.DB, "db", "", "store file (default <git-common-dir>/optimizer/optimizer.db)")
}

// open opens the store of an existing repository. It does not create one:
// a missing store is errNoStore. Running jobs whose process died are marked
// interrupted first, so that what is shown is true.
func (o storeOptions) open(ctx context.Context) (*store.DB, gitcmd.Repo, error) {
	r, err := gitcmd.FindRepo(ctx, o.Repo)
	if err != nil {
		return nil, gitcmd.Repo{}, err
	}
	path := r.StorePath(o.DB)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, r, fmt.Errorf("%w (no store at %s)", errNoStore, path)
	}
	db, err := openStoreToRead(ctx, path)
	return db, r, err
}

// findJob finds a job by id or unique prefix; "" is the latest job.
func findJob(ctx context.Context, db *store.DB, id string) (store.Job, error) {
	if id == "" {
		jobs, err := db.Jobs(ctx, 1)
		if err != nil {
			return store.Job{}, fmt.Errorf("list jobs: %w", err)
		}
		if len(jobs) == 0 {
			return store.Job{}, errNoStore
		}
		id = jobs[0].ID
	}
	j, err := db.Job(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return j, fmt.Errorf("no job %q in %s (see optimizer history)", id, db.Path())
	case errors.Is(err, store.ErrAmbiguous):
		return j, fmt.Errorf("job prefix %q matches more than one job: give more of it", id)
	case err != nil:
		return j, fmt.Errorf("read job %s: %w", id, err)
	}
	return j, nil
}

// readJobConfig reads back the configuration a job recorded; a missing or
// unreadable one gives the defaults.
func readJobConfig(b []byte) jobConfig {
	cfg := jobConfig{runOptions: defaultRunOptions()}
	if len(b) > 0 {
		_ = json.Unmarshal(b, &cfg)
	}
	return cfg
}
