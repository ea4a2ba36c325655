package main

import (
	"context"

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
	return db, r, err
}

// jobReport opens the store and reads job id's report back from it
// (evaluator.JobReport): the latest job's for "".
func (o storeOptions) jobReport(ctx context.Context, id string) (*evaluator.Report, store.Job, error) {
	db, _, err := o.open(ctx)
	if err != nil {
		return nil, store.Job{}, err
	}
	defer db.Close()
	j, err := db.FindJob(ctx, id)
	if err != nil {
		return nil, j, err
	}
	rep, err := evaluator.JobReport(ctx, db, j)
	return rep, j, err
}
