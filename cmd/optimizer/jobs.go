package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/store"
)

// storeOptions are the flags of the commands that read past jobs.
type storeOptions struct {
	Repo string
	DB   string
}

func (o *storeOptions) register(fs *pflag.FlagSet) {
	fs.StringVar(&o.Repo, "repo", ".", "any directory in the git repository")
	fs.StringVar(&o.DB, "db", "", "store file (default <git-common-dir>/optimizer/optimizer.db)")
}

// open opens the store of an existing repository (store.OpenToRead). It
// does not create one: a missing store is store.ErrNoJobs. Running jobs
// whose process died are marked interrupted first, so that what is shown is
// true.
func (o storeOptions) open(ctx context.Context) (*store.DB, gitcmd.Repo, error) {
	r, err := gitcmd.FindRepo(ctx, o.Repo)
	if err != nil {
		return nil, gitcmd.Repo{}, err
	}
	db, err := openStoreToRead(ctx, r.StorePath(o.DB))
	return db, r, o.ciHint(r, err)
}

// ciHint adds a hint to a store.ErrNoJobs when --db is not given and
// optimizer ci's store is found beside the repository or here. The hint
// says where ci keeps its jobs: apart from the repository's store, in --out
// (optimizer-ci).
func (o storeOptions) ciHint(r gitcmd.Repo, err error) error {
	if o.DB != "" || !errors.Is(err, store.ErrNoJobs) {
		return err
	}
	if p := ciStore(r); p != "" {
		return fmt.Errorf("%w; optimizer ci keeps its jobs apart, in %s: add --db %s", err, p, p)
	}
	return err
}

// ciStore is the path of optimizer ci's store with its default --out, in
// the current directory or at the repository's top, or "".
func ciStore(r gitcmd.Repo) string {
	for _, dir := range []string{".", r.Root} {
		p := filepath.Join(dir, "optimizer-ci", "optimizer.db")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// jobReport opens the store and reads job id's report back from it
// (evaluator.JobReport): the latest job's for "".
func (o storeOptions) jobReport(ctx context.Context, id string) (*evaluator.Report, store.Job, error) {
	db, r, err := o.open(ctx)
	if err != nil {
		return nil, store.Job{}, err
	}
	defer db.Close()
	j, err := db.FindJob(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		if runID := daemonRunID(ctx, id); runID != "" {
			j, err = db.FindJob(ctx, runID)
		}
	}
	if err != nil {
		return nil, j, o.ciHint(r, err)
	}
	rep, err := evaluator.JobReport(ctx, db, j)
	return rep, j, err
}

// daemonRunID is the run id a daemon's job id stands for, when a daemon
// answers and knows it, and "" otherwise. A job of an older daemon had an
// id of its own (d2026...) apart from its run's.
func daemonRunID(ctx context.Context, id string) string {
	c := daemonClient(ctx, "")
	if id == "" || c == nil {
		return ""
	}
	dj, err := c.Job(ctx, id)
	if err != nil || dj.RunID == id {
		return ""
	}
	return dj.RunID
}
