package shard

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/store"
)

func TestJob(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "all.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	add := func(id, shards string) {
		t.Helper()
		if err := db.CreateJob(ctx, store.Job{ID: id, Kind: "run", Repo: "/r", Base: "b", Parallel: 1, State: "finished", Shards: shards}); err != nil {
			t.Fatal(err)
		}
	}
	noJob := func(t *testing.T, err error, want string) {
		t.Helper()
		if !errors.Is(err, ErrNoJob) || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want ErrNoJob saying %q", err, want)
		}
	}

	add("whole", "")
	_, err = Job(ctx, db, path, "")
	noJob(t, err, "all.db holds no job run in shards")
	_, err = Job(ctx, db, path, "whole")
	noJob(t, err, "job whole of "+path+" was run whole")
	if _, err := Job(ctx, db, path, "missing"); !errors.Is(err, store.ErrNotFound) || errors.Is(err, ErrNoJob) {
		t.Errorf("Job(missing) = %v, want store.ErrNotFound", err)
	}

	add("one", "1/2")
	for _, id := range []string{"", "one", "o"} {
		if j, err := Job(ctx, db, path, id); err != nil || j.ID != "one" {
			t.Errorf("Job(%q) = %s, %v; want one", id, j.ID, err)
		}
	}
	add("two", "2/3")
	_, err = Job(ctx, db, path, "")
	noJob(t, err, "holds 2 jobs run in shards (")
}
