package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/evaluator"
)

// Name is the server's name, as clients see it in their tool lists.
const Name = "optimizer"

// Jobs is what the job tools need of a daemon. *client.Client is one: cmd
// gives it, to this package and to the daemon (daemon.Options.MCPJobs).
type Jobs interface {
	Submit(ctx context.Context, req api.JobRequest) (api.Submitted, error)
	Job(ctx context.Context, id string) (api.Job, error)
	Report(ctx context.Context, id, format string) ([]byte, error)
	Events(ctx context.Context, id string, after uint64, fn func(api.Event) error) error
	Follow(ctx context.Context, id string, each func(evaluator.Event)) (api.Job, error)
}

// Options configure the tools. Only cmd and the daemon fill them.
type Options struct {
	// Jobs runs and reads jobs; required.
	Jobs Jobs
	// Repo is the repository a call that names none is about: the
	// directory `optimizer mcp` serves. "" makes repo a required argument
	// (the daemon's case: it serves many repositories).
	Repo string
	// RunBase lets the benchmarks and targets tools run base's benchmarks
	// outside the sandbox, as optimizer optimize does to find targets.
	// Without it they answer with an error saying so.
	RunBase bool
	// RunBaseRefusal is the error's message without RunBase: what the
	// person who started the server can do about it.
	RunBaseRefusal string
	// Version is the server's version, as clients see it; "" is "dev".
	Version string
	Logger  *slog.Logger
}

// New returns an MCP server with optimizer's tools. It is safe for
// concurrent sessions.
func New(opts Options) *sdk.Server {
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	t := &tools{opts: opts, surveys: newSurveys()}
	s := sdk.NewServer(&sdk.Implementation{Name: Name, Title: "optimizer: the judge of optimisation candidates", Version: opts.Version},
		&sdk.ServerOptions{Instructions: instructions, Logger: opts.Logger, Capabilities: &sdk.ServerCapabilities{}})
	t.register(s)
	return s
}

// SessionTimeout closes an HTTP session that has sent no request for this
// long, so that a long-lived daemon does not keep every session a client
// ever opened.
const SessionTimeout = 2 * time.Hour

// Handler serves New's tools over streamable HTTP. The caller puts its own
// checks (token, origin, host) in front of it.
func Handler(opts Options) http.Handler {
	s := New(opts)
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s },
		&sdk.StreamableHTTPOptions{Logger: opts.Logger, SessionTimeout: SessionTimeout})
}

// Serve serves New's tools on in and out, newline-delimited JSON-RPC as
// the stdio transport speaks it, until the client closes in or ctx ends.
func Serve(ctx context.Context, opts Options, in io.Reader, out io.Writer) error {
	t := &sdk.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}}
	err := New(opts).Run(ctx, t)
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil
	}
	return err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// instructions tell a client's model how to use the tools.
const instructions = `optimizer judges optimisation candidates: it runs each candidate's tests,
then benchmarks the passing ones against base in interleaved pairs and gives each
a verdict with a confidence interval. Propose several candidates in one evaluate
call; read each failure's tests and output; use profile on the winner and targets
to see where time goes. Only a candidate whose verdict is winner or faster is
faster: never claim a speedup optimizer did not give. A suspect candidate is
faster by not doing the work (a result cached across iterations, a benchmark
body the compiler removes): fix the change, not the benchmark. No tool changes the
repository; a person applies a winner with optimizer apply.`

// tools holds what every tool call shares.
type tools struct {
	opts    Options
	surveys *surveys
}

func (t *tools) register(s *sdk.Server) {
	sdk.AddTool(s, &sdk.Tool{Name: "evaluate", Title: "Evaluate candidates", Description: evaluateDoc,
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: false, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)}}, t.evaluate)
	sdk.AddTool(s, &sdk.Tool{Name: "job", Title: "A job's status and events", Description: jobDoc,
		Annotations: readOnly()}, t.job)
	sdk.AddTool(s, &sdk.Tool{Name: "report", Title: "A job's report", Description: reportDoc,
		Annotations: readOnly()}, t.report)
	sdk.AddTool(s, &sdk.Tool{Name: "profile", Title: "The winner's profile", Description: profileDoc,
		Annotations: readOnly()}, t.profile)
	sdk.AddTool(s, &sdk.Tool{Name: "benchmarks", Title: "Benchmarks that run a function", Description: benchmarksDoc,
		Annotations: readOnly()}, t.benchmarks)
	sdk.AddTool(s, &sdk.Tool{Name: "targets", Title: "Base's hottest functions", Description: targetsDoc,
		Annotations: readOnly()}, t.targets)
}

func readOnly() *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}
}

func ptr[T any](v T) *T { return &v }

// repo is the repository a call names, made absolute against the served
// one; the served one when it names none.
func (t *tools) repo(given string) (string, error) {
	switch {
	case given == "" && t.opts.Repo == "":
		return "", errors.New("repo is required: the repository's absolute path on the daemon's machine")
	case given == "":
		return t.opts.Repo, nil
	case filepath.IsAbs(given):
		return filepath.Clean(given), nil
	case t.opts.Repo == "":
		return "", fmt.Errorf("repo %q is relative: give an absolute path on the daemon's machine", given)
	}
	return filepath.Join(t.opts.Repo, given), nil
}

// callError is the message a person would get for err: the daemon's own
// words for an API error, without the HTTP status.
func callError(what string, err error) error {
	var apiErr *api.Error
	if errors.As(err, &apiErr) {
		if apiErr.Field != "" {
			return fmt.Errorf("%s: %s (%s)", what, apiErr.Message, apiErr.Field)
		}
		return fmt.Errorf("%s: %s", what, apiErr.Message)
	}
	return fmt.Errorf("%s: %w", what, err)
}
