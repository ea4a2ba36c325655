package main

import (
	"os"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/optimizer-dev/optimizer/evaluator/shard"
)

// The environment --shard auto reads.
const (
	envShardIndex = "JOB_COMPLETION_INDEX" // set by a Kubernetes Indexed Job, from 0
	envShardCount = "OPTIMIZER_SHARDS"     // the number of shards, when --shards is not given
)

// shardFlags are optimizer run's flags for one shard of a job spread over
// machines (docs/scale.md).
type shardFlags struct {
	spec  string // K/N, auto, or "" for the whole job
	count int    // N for auto; 0 reads OPTIMIZER_SHARDS
}

func (f *shardFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.spec, "shard", "", "test only shard K of N of the candidates (K/N, from 1; or auto: K from $"+envShardIndex+", a Kubernetes Indexed Job's index, N from --shards or $"+envShardCount+"), with no benchmark phase, into the store --db names: optimizer merge combines the shards, optimizer bench measures them")
	fs.IntVar(&f.count, "shards", 0, "the number of shards, for --shard auto (default $"+envShardCount+")")
}

// resolve is the shard the flags name: the zero Spec without --shard. A
// shard needs its own store file.
func (f shardFlags) resolve(db string) (shard.Spec, error) {
	if f.spec == "" {
		if f.count != 0 {
			return shard.Spec{}, usageErrorf("--shards goes with --shard auto")
		}
		return shard.Spec{}, nil
	}
	var spec shard.Spec
	var err error
	if f.spec == "auto" {
		count := os.Getenv(envShardCount)
		if f.count != 0 {
			count = strconv.Itoa(f.count)
		}
		spec, err = shard.Auto(envShardIndex, os.Getenv(envShardIndex), count)
	} else {
		spec, err = shard.Parse(f.spec)
	}
	if err != nil {
		return shard.Spec{}, usageErrorf("--shard: %w", err)
	}
	if db == "" {
		return shard.Spec{}, usageErrorf("--shard %s needs --db FILE: each shard writes a store of its own, for optimizer merge", spec)
	}
	return spec, nil
}
