package main

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"

	"github.com/optimizer-dev/optimizer/testdata"
)

// changed is the one fixture file every trial's candidate replaces.
const changed = "sumsq/sumsq.go"

// changes holds the A/B changes of this harness as NAME/ trees of whole
// files, laid over the fixture. testdata/README.md says what each one does
// and how fast it is. The x2 change is the no-op set's real change
// (testdata.NoOp's twice), kept there once.
//
//go:embed testdata/x125
var changes embed.FS

// The kind of a trial: A/A, or one of the A/B changes.
const (
	kindAA   = "aa"
	kindX125 = "x125"
	kindX2   = "x2"
)

// A kind is what one trial's candidate is.
type kind struct {
	Name  string  // as in trial names and -changes
	Label string  // as the report prints it
	Ratio float64 // the speedup it was made to have, for the report; 1 for A/A
	Files fs.FS   // where its tree is; nil for A/A (base's file)
	Tree  string  // its tree in Files
}

var kinds = []kind{
	{kindAA, "A/A", 1, nil, ""},
	{kindX125, "1.25×", 1.25, changes, "testdata/x125"},
	{kindX2, "2×", 2, testdata.NoOp, "twice"},
}

func kindByName(name string) (kind, bool) {
	for _, k := range kinds {
		if k.Name == name {
			return k, true
		}
	}
	return kind{}, false
}

func changeNames() []string {
	var out []string
	for _, k := range kinds[1:] {
		out = append(out, k.Name)
	}
	return out
}

// A plannedTrial is one candidate of one job.
type plannedTrial struct {
	Job  int // from 1
	Seq  int // from 1, within its job: the order candidates are measured in
	Kind string
}

// Name is the candidate's name: tNNN-KIND. Names sort in Seq order, which is
// the order a candidates directory is read and measured in.
func (t plannedTrial) Name() string { return fmt.Sprintf("t%03d-%s", t.Seq, t.Kind) }

// trialName parses a candidate name made by Name.
var trialName = regexp.MustCompile(`^t([0-9]{3,})-([a-z0-9]+)$`)

// plan spreads the trials over jobs of at most perJob. The order of all
// trials is shuffled from seed, so that every kind meets the machine's good
// and bad minutes alike, then cut into jobs of nearly equal size.
func plan(aa, k int, changes []string, perJob int, seed uint64) [][]plannedTrial {
	var all []string
	for range aa {
		all = append(all, kindAA)
	}
	for _, c := range changes {
		for range k {
			all = append(all, c)
		}
	}
	rng := rand.New(rand.NewPCG(seed, 3))
	rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	jobs := (len(all) + perJob - 1) / perJob
	out := make([][]plannedTrial, jobs)
	for j := range jobs {
		lo, hi := j*len(all)/jobs, (j+1)*len(all)/jobs
		for i, kd := range all[lo:hi] {
			out[j] = append(out[j], plannedTrial{Job: j + 1, Seq: i + 1, Kind: kd})
		}
	}
	return out
}

// writeRepo writes the fixture repository into dir and commits it.
func writeRepo(ctx context.Context, dir string) error {
	if err := testdata.WriteFixture(dir); err != nil {
		return fmt.Errorf("write fixture: %w", err)
	}
	if _, err := testdata.InitRepo(ctx, dir); err != nil {
		return fmt.Errorf("commit fixture: %w", err)
	}
	return nil
}

// source returns the changed file of a trial's candidate: its kind's file
// (base's for A/A) with one comment line at the end naming the trial. So
// every candidate has its own content id and none is a duplicate. The
// comment changes no line of code above it, so an A/A candidate compiles to
// the same code as base.
func source(t plannedTrial) ([]byte, error) {
	k, ok := kindByName(t.Kind)
	if !ok {
		return nil, fmt.Errorf("unknown kind %q", t.Kind)
	}
	var (
		b   []byte
		err error
	)
	if k.Files == nil {
		b, err = fs.ReadFile(testdata.Fixture, changed)
	} else {
		b, err = fs.ReadFile(k.Files, path.Join(k.Tree, changed))
	}
	if err != nil {
		return nil, err
	}
	note := fmt.Sprintf("\n// bench/accuracy: trial %d of job %d, %s.\n", t.Seq, t.Job, k.Label)
	return slices.Concat(b, []byte(note)), nil
}

// writeCandidates writes one NAME/ tree per trial into dir.
func writeCandidates(dir string, trials []plannedTrial) error {
	for _, t := range trials {
		b, err := source(t)
		if err != nil {
			return err
		}
		file := filepath.Join(dir, t.Name(), filepath.FromSlash(changed))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(file, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
