// Command scale measures what limits a job spread over many machines: the
// size of shard stores and of their merge, and the time optimizer merge
// takes. The shard stores are synthetic, written through the real store
// package and merged by the real shard.Merge. See docs/scale.md.
//
//	go run ./bench/scale                             # 10,000 candidates in 100 shards
//	go run ./bench/scale -candidates 1000 -shards 10 # a smaller one
//
// Each shard store holds what optimizer run --shard writes:
//   - the job, and every candidate of the job (those of other shards
//     pending, with their content ids);
//   - for its own candidates, an outcome: 70% passed, with the change kept
//     for optimizer bench; 20% failed, with a failure excerpt; 10%
//     duplicates;
//   - -tests test results each, a few events, and the base's test results.
//
// The merge is timed -reps times into a fresh file each. It is timed once
// more into the finished output, where nothing is left to add: the cost of
// idempotence.
package main

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/shard"
	"github.com/optimizer-dev/optimizer/store"
)

func main() {
	var (
		nCands = flag.Int("candidates", 10000, "candidates in the job")
		nShard = flag.Int("shards", 100, "shards, one store each")
		nTests = flag.Int("tests", 20, "test results per judged candidate")
		reps   = flag.Int("reps", 3, "times the merge is timed")
		dir    = flag.String("dir", "", "where the stores go (default: a temporary directory, removed)")
	)
	flag.Parse()
	ctx := context.Background()
	work := *dir
	if work == "" {
		d, err := os.MkdirTemp("", "optimizer-scale-")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(d)
		work = d
	}
	cands := synthetic(*nCands)
	var ins []string
	var write []time.Duration
	for k := 1; k <= *nShard; k++ {
		path := filepath.Join(work, fmt.Sprintf("shard-%d.db", k))
		start := time.Now()
		if err := writeShard(ctx, path, shard.Spec{K: k, N: *nShard}, cands, *nTests); err != nil {
			log.Fatal(err)
		}
		write = append(write, time.Since(start))
		ins = append(ins, path)
	}
	var merges []time.Duration
	var out string
	for r := range *reps {
		out = filepath.Join(work, fmt.Sprintf("merged-%d.db", r))
		start := time.Now()
		res, err := shard.Merge(ctx, out, ins)
		if err != nil {
			log.Fatal(err)
		}
		merges = append(merges, time.Since(start))
		if len(res.Unjudged) != 0 || len(res.Added) == 0 {
			log.Fatalf("merge left %d unjudged, added %d", len(res.Unjudged), len(res.Added))
		}
	}
	start := time.Now()
	if _, err := shard.Merge(ctx, out, ins); err != nil {
		log.Fatal(err)
	}
	again := time.Since(start)

	shardSizes := make([]int64, len(ins))
	var total int64
	for i, p := range ins {
		shardSizes[i] = size(p)
		total += shardSizes[i]
	}
	fmt.Printf("| %d candidates, %d shards, %d test results per judged candidate | |\n|---|---|\n", *nCands, *nShard, *nTests)
	fmt.Printf("| writing one shard store (median of %d) | %v |\n", len(write), median(write).Round(time.Millisecond))
	fmt.Printf("| one shard store (median) | %s |\n", mb(medianInt(shardSizes)))
	fmt.Printf("| all shard stores | %s |\n", mb(total))
	fmt.Printf("| the merged store | %s |\n", mb(size(out)))
	fmt.Printf("| merge, %d stores into a new one (median of %d) | %v |\n", len(ins), len(merges), median(merges).Round(time.Millisecond))
	fmt.Printf("| merge again into the finished store (nothing to add) | %v |\n", again.Round(time.Millisecond))
}

type synth struct {
	name, id, verdict, kind, dupOf string
}

// synthetic makes n candidates with content ids like git's, and outcomes.
func synthetic(n int) []synth {
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]synth, n)
	for i := range out {
		h := sha1.Sum(fmt.Appendf(nil, "candidate %d", i))
		c := synth{name: fmt.Sprintf("cand%05d", i), id: hex.EncodeToString(h[:]), verdict: "passed"}
		switch p := rng.Float64(); {
		case p < 0.2:
			c.verdict, c.kind = "failed", "test"
		case p < 0.3 && i > 0:
			c.verdict, c.dupOf, c.id = "duplicate", out[i-1].name, out[i-1].id
		}
		out[i] = c
	}
	return out
}

// writeShard writes the store of shard s, as optimizer run --shard would.
func writeShard(ctx context.Context, path string, s shard.Spec, cands []synth, tests int) error {
	db, err := store.Open(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	jobID := fmt.Sprintf("20260101-000000-%06d", s.K)
	patch := strings.Repeat("+ a changed line of about sixty characters, as a patch has\n", 20)
	output := strings.Repeat("--- FAIL: TestSomething (0.01s)\n    x_test.go:12: got 1, want 2\n", 16)
	rows := make([]store.Candidate, len(cands))
	var trs []store.TestResult
	var evs []store.Event
	for i, c := range cands {
		row := store.Candidate{JobID: jobID, Seq: i, Name: c.name, ContentID: c.id, Verdict: "pending"}
		mine := s.Holds(c.id)
		switch {
		case c.verdict == "duplicate": // settled in every shard
			row.Verdict, row.DuplicateOf = "duplicate", c.dupOf
		case !mine:
		case c.verdict == "failed":
			row.Verdict, row.FailureKind = "failed", "test"
			row.Failure = fmt.Appendf(nil, `{"kind":"test","tests":["TestSomething"],"message":"a test that passed at base fails","output":%q}`, output)
		default:
			row.Verdict = "passed"
			row.Change = fmt.Appendf(nil, `{"name":%q,"patch":%q}`, c.name, patch)
		}
		if row.Verdict != "pending" {
			row.Result = fmt.Appendf(nil, `{"name":%q,"id":%q,"verdict":%q,"seconds":12.5,"tests_passed":%d,"tests_total":%d}`, c.name, c.id, row.Verdict, tests, tests)
		}
		if mine && c.verdict != "duplicate" {
			for t := range tests {
				trs = append(trs, store.TestResult{JobID: jobID, Candidate: c.name, Package: "example.com/p", Test: fmt.Sprintf("Test%02d", t), Status: "pass"})
			}
			evs = append(evs, store.Event{JobID: jobID, Kind: "verdict", Candidate: c.name, Message: row.Verdict})
		}
		rows[i] = row
	}
	for t := range tests {
		trs = append(trs, store.TestResult{JobID: jobID, Package: "example.com/p", Test: fmt.Sprintf("Test%02d", t), Status: "pass"})
	}
	err = db.StartJob(ctx, store.Job{ID: jobID, Kind: "run", Repo: "/repo", Base: strings.Repeat("b", 40), Parallel: 4,
		State: "finished", Shards: s.String(), Test: "go test -json ./..."}, rows)
	if err != nil {
		return err
	}
	if err := db.AddTestResults(ctx, trs); err != nil {
		return err
	}
	for _, e := range evs {
		if err := db.AddEvent(ctx, e); err != nil {
			return err
		}
	}
	return nil
}

// size is a store's size on disk, its WAL included.
func size(path string) int64 {
	var n int64
	for _, p := range []string{path, path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return n
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func medianInt(ns []int64) int64 {
	s := slices.Clone(ns)
	slices.Sort(s)
	return s[len(s)/2]
}
