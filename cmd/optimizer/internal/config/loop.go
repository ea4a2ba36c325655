package config

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/optimizer-dev/optimizer/optimize"
)

// Loop is the settings of optimizer optimize beside Run's: the generators,
// the targets and the loop's limits (optimize.Loop).
type Loop struct {
	Generate     []string // stdout generators' commands
	GenerateEdit []string // edit-in-place generators' commands
	Targets      []string
	HotTargets   int
	Rounds       int
	PerRound     int
	Repairs      int
	Budget       time.Duration
	GenTimeout   time.Duration
	Holdout      string // "auto", or a fraction: 0 holds none out
	HoldoutSeed  uint64
}

// LoopDefaults are the values before flags and optimizer.toml.
func LoopDefaults() Loop {
	return Loop{HotTargets: 1, Rounds: optimize.DefaultRounds, PerRound: optimize.DefaultPerRound,
		Repairs: optimize.DefaultRepairs, GenTimeout: optimize.DefaultGeneratorTimeout, Holdout: "auto"}
}

// Register defines the loop's flags on fs, bound to l.
func (l *Loop) Register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&l.Generate, "generate", nil, "a generator that reads a request on stdin and prints JSONL candidates, run with sh -c (repeatable)")
	fs.StringArrayVar(&l.GenerateEdit, "generate-edit", nil, "a generator that edits files in a private worktree at base; the change it leaves is a candidate (repeatable)")
	fs.StringArrayVar(&l.Targets, "target", nil, "a function to make faster: pkg.Func, pkg.T.Method or file.go:Func (repeatable; default: the hottest in a profile of the base)")
	fs.IntVar(&l.HotTargets, "hot-targets", l.HotTargets, "without --target: how many of the hottest functions to target")
	fs.IntVar(&l.Rounds, "rounds", l.Rounds, "most rounds of generate, evaluate, repair and refine")
	fs.IntVar(&l.PerRound, "per-round", l.PerRound, "candidates asked of each generator per target in a round")
	fs.IntVar(&l.Repairs, "repairs", l.Repairs, "times a failed candidate's line goes back to its generator for repair")
	fs.DurationVar(&l.Budget, "budget", l.Budget, "wall time for the whole loop (0: none)")
	fs.DurationVar(&l.GenTimeout, "generator-timeout", l.GenTimeout, "limit on one call of a generator")
	fs.StringVar(&l.Holdout, "holdout", l.Holdout, fmt.Sprintf("share of the benchmarks that execute the targets hidden from generators and judged at the end (0: none; auto: %g when at least %d benchmarks execute them)",
		optimize.DefaultHoldout, optimize.DefaultHoldoutMin))
	fs.Uint64Var(&l.HoldoutSeed, "holdout-seed", 0, "seed of the choice of held-out benchmarks (0: from the base commit)")
}

// HoldoutShare is --holdout as the loop takes it: the fraction and the
// fewest benchmarks for any to be held out.
func (l *Loop) HoldoutShare() (float64, int, error) {
	if l.Holdout == "auto" {
		return optimize.DefaultHoldout, optimize.DefaultHoldoutMin, nil
	}
	f, err := strconv.ParseFloat(l.Holdout, 64)
	if err != nil || f < 0 || f >= 1 {
		return 0, 0, fmt.Errorf("--holdout %q: want auto, or a fraction from 0 (none) up to, not including, 1", l.Holdout)
	}
	return f, 2, nil
}

// Validate checks the loop's settings, and what of run's the loop cannot
// take: candidates of its own, a Markdown report.
func (l *Loop) Validate(run Run) error {
	switch {
	case len(l.Generate)+len(l.GenerateEdit) == 0:
		return errors.New("no generator: pass --generate CMD or --generate-edit CMD")
	case len(run.Candidates) > 0 || len(run.CandidateRefs) > 0:
		return errors.New("optimize takes its candidates from generators: drop --candidates and --candidate-ref")
	case l.Rounds < 1:
		return fmt.Errorf("--rounds %d: need at least 1", l.Rounds)
	case l.PerRound < 1:
		return fmt.Errorf("--per-round %d: need at least 1", l.PerRound)
	case l.Repairs < 0:
		return fmt.Errorf("--repairs %d: must not be negative", l.Repairs)
	case l.HotTargets < 1:
		return fmt.Errorf("--hot-targets %d: need at least 1", l.HotTargets)
	case l.Budget < 0 || l.GenTimeout <= 0:
		return errors.New("--budget must not be negative, --generator-timeout must be positive")
	case l.holdoutErr() != nil:
		return l.holdoutErr()
	case run.Format == FormatMarkdown:
		return errors.New("--format markdown: optimize prints text or json")
	}
	return nil
}

func (l *Loop) holdoutErr() error {
	_, _, err := l.HoldoutShare()
	return err
}
