package config

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/optimizer-dev/optimizer/report"
)

// CI is the settings of optimizer ci beside Run's: the pull request's head
// when no CI variables say it, the gate, the output directory and the
// job's time budget.
type CI struct {
	Head   string
	FailOn []string // report's Gate constants
	Out    string
	Budget time.Duration
}

// CIDefaults are the values before flags and optimizer.toml.
func CIDefaults() CI {
	return CI{FailOn: []string{report.GateRegression}, Out: "optimizer-ci"}
}

// Register defines ci's flags on fs, bound to c, and says what --base
// means to ci (run's Register defines it).
func (c *CI) Register(fs *pflag.FlagSet) {
	fs.Lookup("base").Usage = "the pull request's base, when no CI variables say it (with --head)"
	fs.Lookup("base").DefValue = ""
	fs.StringVar(&c.Head, "head", c.Head, "the pull request's head, when no CI variables say it (with --base)")
	fs.StringSliceVar(&c.FailOn, "fail-on", c.FailOn, "what fails the job with exit 3: regression, mixed, allocs, or none (comma-separated)")
	fs.StringVar(&c.Out, "out", c.Out, "directory for the comment, the reports, the store and the profiles: the artifact to upload")
	fs.DurationVar(&c.Budget, "budget", c.Budget, "time for the whole job; benchmarking stops when it is spent and the report names what was not settled (0: none)")
}

// Validate checks ci's own settings.
func (c *CI) Validate() error {
	if err := report.CheckGates(c.FailOn); err != nil {
		return fmt.Errorf("--fail-on %w", err)
	}
	if c.Budget < 0 {
		return fmt.Errorf("--budget %v: must be positive, or 0 for none", c.Budget)
	}
	if c.Out == "" {
		return errors.New("--out: name a directory")
	}
	return nil
}
