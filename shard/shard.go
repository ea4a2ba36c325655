// Package shard spreads a job's behaviour phase over machines and brings
// the pieces back together.
//
// A Spec (K/N) names one shard. A candidate belongs to the shard its
// content id hashes to (Of), so every machine, given the candidates in any
// order, agrees on which shard judges which candidate. A shard run
// (evaluator.Options.Shard) judges the base and its own candidates, and
// writes a store of its own. Merge combines those stores into one job,
// which optimizer bench then benchmarks on one machine: tests spread
// anywhere, but each base/candidate pair is measured on one host.
package shard

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A Spec is shard K of N, K counted from 1. The zero Spec is the whole job.
type Spec struct {
	K, N int
}

// ErrBadSpec is wrapped by every error of Parse and Auto.
var ErrBadSpec = errors.New("bad shard")

// Parse reads "K/N", as optimizer run --shard takes it.
func Parse(s string) (Spec, error) {
	ks, ns, ok := strings.Cut(strings.TrimSpace(s), "/")
	k, kerr := strconv.Atoi(ks)
	n, nerr := strconv.Atoi(ns)
	switch {
	case !ok || kerr != nil || nerr != nil:
		return Spec{}, fmt.Errorf("%w %q: want K/N, such as 2/5 (shard K of N, counted from 1), or auto", ErrBadSpec, s)
	case n < 1:
		return Spec{}, fmt.Errorf("%w %s: N, the number of shards, must be at least 1", ErrBadSpec, s)
	case k < 1 || k > n:
		return Spec{}, fmt.Errorf("%w %s: K must be 1 to %d (shards are counted from 1)", ErrBadSpec, s, n)
	}
	return Spec{K: k, N: n}, nil
}

// Auto is the Spec of an engine's zero-based shard index (Kubernetes'
// JOB_COMPLETION_INDEX) among count shards. indexVar names where the index
// came from, for messages.
func Auto(indexVar, index, count string) (Spec, error) {
	if index == "" {
		return Spec{}, fmt.Errorf("%w auto: %s is not set: --shard auto reads the shard index a Kubernetes Indexed Job sets; elsewhere pass --shard K/N", ErrBadSpec, indexVar)
	}
	i, err := strconv.Atoi(index)
	if err != nil || i < 0 {
		return Spec{}, fmt.Errorf("%w auto: %s=%q is not a shard index (0, 1, 2, …)", ErrBadSpec, indexVar, index)
	}
	if count == "" {
		return Spec{}, fmt.Errorf("%w auto: the number of shards is not known: pass --shards N or set OPTIMIZER_SHARDS (the Job's completions)", ErrBadSpec)
	}
	n, err := strconv.Atoi(count)
	if err != nil || n < 1 {
		return Spec{}, fmt.Errorf("%w auto: the number of shards %q is not a count of at least 1", ErrBadSpec, count)
	}
	if i >= n {
		return Spec{}, fmt.Errorf("%w auto: %s=%d, but there are %d shards (indexes 0 to %d)", ErrBadSpec, indexVar, i, n, n-1)
	}
	return Spec{K: i + 1, N: n}, nil
}

// IsZero reports whether s is the whole job.
func (s Spec) IsZero() bool { return s.N == 0 }

func (s Spec) String() string { return fmt.Sprintf("%d/%d", s.K, s.N) }

// Holds reports whether the candidate with this content id belongs to s.
// The zero Spec holds every candidate.
func (s Spec) Holds(contentID string) bool {
	return s.IsZero() || Of(contentID, s.N) == s.K
}

// Of is the shard, 1 to n, that a content id belongs to. It is a hash of
// the id, so the assignment depends on nothing but the candidate's content
// and n. n must be at least 1.
func Of(contentID string, n int) int {
	h := sha256.Sum256([]byte(contentID))
	return int(binary.BigEndian.Uint64(h[:8])%uint64(n)) + 1
}

// formatList is the jobs.shards form of a set of specs: sorted, comma-separated.
func formatList(specs []Spec) string {
	specs = slices.Clone(specs)
	slices.SortFunc(specs, func(a, b Spec) int { return a.K - b.K })
	specs = slices.Compact(specs)
	parts := make([]string, len(specs))
	for i, s := range specs {
		parts[i] = s.String()
	}
	return strings.Join(parts, ",")
}

// parseList reads a jobs.shards value.
func parseList(s string) ([]Spec, error) {
	if s == "" {
		return nil, nil
	}
	var out []Spec
	for _, p := range strings.Split(s, ",") {
		sp, err := Parse(p)
		if err != nil {
			return nil, err
		}
		out = append(out, sp)
	}
	return out, nil
}
