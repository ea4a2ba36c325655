package config

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/optimizer-dev/optimizer/shard"
)

// The environment --shard auto reads.
const (
	EnvShardIndex = "JOB_COMPLETION_INDEX" // set by a Kubernetes Indexed Job, from 0
	EnvShardCount = "OPTIMIZER_SHARDS"     // the number of shards, when --shards is not given
)

// Shard is optimizer run's flags for one shard of a job spread over
// machines (docs/scale.md).
type Shard struct {
	Spec  string // K/N, auto, or "" for the whole job
	Count int    // N for auto; 0 reads OPTIMIZER_SHARDS
}

// Register defines the shard flags on fs, bound to f.
func (f *Shard) Register(fs *pflag.FlagSet) {
	fs.StringVar(&f.Spec, "shard", "", "test only shard K of N of the candidates (K/N, from 1; or auto: K from $"+EnvShardIndex+", a Kubernetes Indexed Job's index, N from --shards or $"+EnvShardCount+"), with no benchmark phase, into the store --db names: optimizer merge combines the shards, optimizer bench measures them")
	fs.IntVar(&f.Count, "shards", 0, "the number of shards, for --shard auto (default $"+EnvShardCount+")")
}

// Resolve is the shard the flags name, auto reading the environment: the
// zero Spec without --shard. A shard needs its own store file, db.
func (f Shard) Resolve(db string) (shard.Spec, error) {
	if f.Spec == "" {
		if f.Count != 0 {
			return shard.Spec{}, errors.New("--shards goes with --shard auto")
		}
		return shard.Spec{}, nil
	}
	var spec shard.Spec
	var err error
	if f.Spec == "auto" {
		count := os.Getenv(EnvShardCount)
		if f.Count != 0 {
			count = strconv.Itoa(f.Count)
		}
		spec, err = shard.Auto(EnvShardIndex, os.Getenv(EnvShardIndex), count)
	} else {
		spec, err = shard.Parse(f.Spec)
	}
	if err != nil {
		return shard.Spec{}, fmt.Errorf("--shard: %w", err)
	}
	if db == "" {
		return shard.Spec{}, fmt.Errorf("--shard %s needs --db FILE: each shard writes a store of its own, for optimizer merge", spec)
	}
	return spec, nil
}
