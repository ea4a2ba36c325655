package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/optimizer-dev/optimizer/optimize"
)

const targetsDoc = `Base's hottest functions: runs base's Go benchmarks once with a CPU profile (in
a copy of base's tree, not the repository) and names the repository's functions with
the largest share of the samples, each with its source, its share and the cost of its
lines. A good place to start. Cached per base.`

// DefaultTargets is how many functions targets names unless asked.
const DefaultTargets = 5

// TargetsIn is the targets tool's input.
type TargetsIn struct {
	Repo   string `json:"repo,omitempty" jsonschema:"the repository: an absolute path; default: the one the server serves"`
	Base   string `json:"base,omitempty" jsonschema:"the revision to profile; default HEAD"`
	N      int    `json:"n,omitempty" jsonschema:"how many functions (default 5)"`
	Filter string `json:"filter,omitempty" jsonschema:"a -bench regular expression selecting the benchmarks to profile"`
}

// TargetsOut is the targets tool's result.
type TargetsOut struct {
	Base    string            `json:"base"`
	Targets []optimize.Target `json:"targets"`
}

func (t *tools) targets(ctx context.Context, _ *sdk.CallToolRequest, in TargetsIn) (*sdk.CallToolResult, TargetsOut, error) {
	if err := t.mayRunBase(); err != nil {
		return nil, TargetsOut{}, err
	}
	dir, err := t.repo(in.Repo)
	if err != nil {
		return nil, TargetsOut{}, err
	}
	r, base, err := baseOf(ctx, dir, in.Base)
	if err != nil {
		return nil, TargetsOut{}, err
	}
	n := in.N
	if n <= 0 {
		n = DefaultTargets
	}
	key := fmt.Sprintf("%s\x00%s\x00%d\x00%s", r.Root, base, n, in.Filter)
	ts, err := t.surveys.targets.get(ctx, key, func() ([]optimize.Target, error) {
		tree, err := exportBase(ctx, r, base)
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tree)
		return optimize.HotTargets(ctx, r.Root, base, tree, n, in.Filter)
	})
	if err != nil {
		return nil, TargetsOut{}, err
	}
	return nil, TargetsOut{Base: base, Targets: ts}, nil
}

// mayRunBase is nil when the server may run base's benchmarks outside the
// sandbox, else the error that says who can allow it.
func (t *tools) mayRunBase() error {
	if t.opts.RunBase {
		return nil
	}
	msg := t.opts.RunBaseRefusal
	if msg == "" {
		msg = "this server does not run base's benchmarks outside the sandbox"
	}
	return errors.New(msg)
}
