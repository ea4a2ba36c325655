package config

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/optimizer-dev/optimizer/client"
)

// Jobs is optimizer jobs' settings: which of the daemon's jobs to list, and
// how.
type Jobs struct {
	Socket string
	All    bool // ended jobs too
	Limit  int
	Format string // text or json
}

// Register defines optimizer jobs' flags on fs, bound to j.
func (j *Jobs) Register(fs *pflag.FlagSet) {
	fs.StringVar(&j.Socket, "socket", "", "the daemon's socket (default $OPTIMIZER_SOCKET, else "+client.DefaultSocket()+")")
	fs.BoolVar(&j.All, "all", false, "list ended jobs too")
	fs.IntVarP(&j.Limit, "limit", "n", 50, "most jobs listed")
	fs.StringVar(&j.Format, "format", FormatText, "text or json")
}

// Validate checks the format and the limit.
func (j Jobs) Validate() error {
	if j.Format != FormatText && j.Format != FormatJSON {
		return fmt.Errorf("--format %q: want text or json", j.Format)
	}
	if j.Limit < 1 || j.Limit > 1000 {
		return fmt.Errorf("--limit %d: want 1 to 1000", j.Limit)
	}
	return nil
}

// ListOptions ask the daemon for the jobs to list: those not yet ended,
// unless All.
func (j Jobs) ListOptions() client.ListOptions {
	lo := client.ListOptions{Limit: j.Limit}
	if !j.All {
		lo.States = client.Active
	}
	return lo
}
