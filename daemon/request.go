package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/evaluator/benchformat"
	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/jobspec"
	"github.com/optimizer-dev/optimizer/proc"
)

// DefaultMaxBody bounds a request body: 64 MB, room for a few hundred
// candidates of the largest size a candidate may have.
const DefaultMaxBody = 64 << 20

// requestError is a bad request: its HTTP status, and the field to fix.
type requestError struct {
	status int
	field  string
	msg    string
}

func (e *requestError) Error() string {
	if e.field == "" {
		return e.msg
	}
	return e.field + ": " + e.msg
}

func badRequest(field, format string, args ...any) error {
	return &requestError{status: http.StatusBadRequest, field: field, msg: fmt.Sprintf(format, args...)}
}

func unprocessable(field, format string, args ...any) error {
	return &requestError{status: http.StatusUnprocessableEntity, field: field, msg: fmt.Sprintf(format, args...)}
}

// decodeJSON decodes a request body into v, strictly: one JSON value, no
// unknown fields, at most limit bytes, read within readBodyTimeout. A body
// whose Content-Length is over the limit is refused before a byte of it is
// read. One sent without a length is read in pieces, never more than the
// limit. So a refused body costs the daemon no more memory than the limit,
// and that only for a moment. Its errors are *requestError.
func decodeJSON(w http.ResponseWriter, r *http.Request, limit int64, v any) error {
	ct := r.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		return &requestError{status: http.StatusUnsupportedMediaType, field: "Content-Type", msg: fmt.Sprintf("Content-Type is %q: send application/json", ct)}
	}
	tooLarge := &requestError{status: http.StatusRequestEntityTooLarge, msg: fmt.Sprintf("the body is over %d bytes", limit)}
	if r.ContentLength > limit {
		return tooLarge
	}
	http.NewResponseController(w).SetReadDeadline(time.Now().Add(readBodyTimeout))
	body, err := readBody(http.MaxBytesReader(w, r.Body, limit))
	var maxErr *http.MaxBytesError
	switch {
	case errors.As(err, &maxErr):
		releaseMemory()
		return tooLarge
	case err != nil:
		return badRequest("", "read the body: %v", err)
	}
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	err = dec.Decode(v)
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			return badRequest("", "the body holds more than one JSON value")
		}
		return nil
	}
	var synErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &synErr):
		return badRequest("", "bad JSON at byte %d: %v", synErr.Offset, err)
	case errors.Is(err, io.EOF):
		return badRequest("", "empty body: send a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return badRequest("", "bad JSON: the body ends too soon")
	case errors.As(err, &typeErr) && typeErr.Type == reflect.TypeFor[jobspec.Duration]():
		return badRequest(typeErr.Field, "%s is no positive duration (say 90s or 10m)", typeErr.Value)
	case errors.As(err, &typeErr):
		return badRequest(typeErr.Field, "is %s, want %s", typeErr.Value, jsonType(typeErr.Type.Kind().String()))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return badRequest(name, "unknown field %q", name)
	}
	return badRequest("", "bad JSON: %v", err)
}

// bodyPiece is the size of the pieces readBody reads a body in: a buffer
// that doubled as it grew would allocate twice the body.
const bodyPiece = 1 << 20

// readBody reads r to its end in pieces and returns a reader of them.
func readBody(r io.Reader) (io.Reader, error) {
	var pieces []io.Reader
	for {
		buf := make([]byte, bodyPiece)
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			pieces = append(pieces, bytes.NewReader(buf[:n]))
		}
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			return io.MultiReader(pieces...), nil
		case err != nil:
			return nil, err
		}
	}
}

// lastRelease is when releaseMemory last gave memory back, in Unix nanoseconds.
var lastRelease atomic.Int64

// releaseMemory gives the memory of a refused body back to the system at
// once, rather than over minutes. It does so at most once every ten
// seconds, so a client that sends one after another gets no more garbage
// collections.
func releaseMemory() {
	now := time.Now().UnixNano()
	last := lastRelease.Load()
	if now-last < int64(10*time.Second) || !lastRelease.CompareAndSwap(last, now) {
		return
	}
	go debug.FreeOSMemory() // owned by nobody: it returns when the collection is done
}

func jsonType(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "slice":
		return "an array"
	case "struct", "map":
		return "an object"
	case "bool":
		return "true or false"
	case "int", "int64", "float64":
		return "a number"
	}
	return kind
}

// jobSpec is an accepted job, normalised: the repository found, the base
// resolved, every candidate loaded. It is what the queue keeps, as JSON,
// so that the job runs the same however late, and after a restart.
type jobSpec struct {
	Request    api.JobRequest    `json:"request"` // its inline candidates moved to Candidates
	Root       string            `json:"root"`
	CommonDir  string            `json:"common_dir"`
	Base       string            `json:"base"` // 40 hex
	Candidates []storedCandidate `json:"candidates"`
}

// storedCandidate is a candidate.Candidate as JSON.
type storedCandidate struct {
	Name        string            `json:"name"`
	Source      string            `json:"source,omitempty"`
	Patch       []byte            `json:"patch,omitempty"`
	Files       map[string][]byte `json:"files,omitempty"`
	Deleted     []string          `json:"deleted,omitempty"`
	Parent      string            `json:"parent,omitempty"`
	Explanation string            `json:"explanation,omitempty"`
	Invalid     string            `json:"invalid,omitempty"`
}

func storeCandidate(c candidate.Candidate) storedCandidate {
	s := storedCandidate{Name: c.Name, Source: c.Source, Patch: c.Patch, Files: c.Files, Deleted: c.Deleted,
		Parent: c.Parent, Explanation: c.Explanation}
	if c.Invalid != nil {
		s.Invalid = c.Invalid.Error()
	}
	return s
}

func (s storedCandidate) candidate() candidate.Candidate {
	c := candidate.Candidate{Name: s.Name, Source: s.Source, Patch: s.Patch, Files: s.Files, Deleted: s.Deleted,
		Parent: s.Parent, Explanation: s.Explanation}
	if s.Invalid != "" {
		c.Invalid = errors.New(s.Invalid)
	}
	return c
}

// validate checks a request against the machine and loads what it names.
// It reads the repository, never writes it. Its errors are *requestError.
func validate(ctx context.Context, req api.JobRequest) (*jobSpec, error) {
	if err := checkOptions(req); err != nil {
		return nil, err
	}
	spec := &jobSpec{Request: req}
	if err := spec.findRepo(ctx); err != nil {
		return nil, err
	}
	if err := spec.resolveBase(ctx); err != nil {
		return nil, err
	}
	if err := spec.loadCandidates(ctx); err != nil {
		return nil, err
	}
	if req.Options.Test == "" {
		if _, err := os.Stat(filepath.Join(spec.Root, "go.mod")); err != nil {
			return nil, unprocessable("options.test", "no test command, and %s is no Go module: give one", spec.Root)
		}
	}
	if req.Options.Sandbox == "on" {
		if err := proc.SandboxAvailable(); err != nil {
			return nil, unprocessable("options.sandbox", "on, but %v on the daemon's machine", err)
		}
	}
	spec.Request.Candidates = nil
	return spec, nil
}

// checkOptions checks what needs no look at the machine.
func checkOptions(req api.JobRequest) error {
	switch {
	case req.Repo == "":
		return badRequest("repo", "is required: the repository's directory, an absolute path")
	case !filepath.IsAbs(req.Repo):
		return badRequest("repo", "%q is relative: give an absolute path on the daemon's machine", req.Repo)
	case len(req.Candidates)+len(req.CandidatePaths)+len(req.CandidateRefs) == 0:
		return badRequest("candidates", "no candidates: give candidates, candidate_paths or candidate_refs")
	case strings.HasPrefix(req.Base, "-"):
		return badRequest("base", "%q is no revision", req.Base)
	}
	switch req.Kind {
	case "", "run", "watch":
	default:
		return badRequest("kind", "%q: want run or watch", req.Kind)
	}
	for i, p := range req.CandidatePaths {
		if !filepath.IsAbs(p) {
			return badRequest(fmt.Sprintf("candidate_paths[%d]", i), "%q is relative: give an absolute path on the daemon's machine", p)
		}
	}
	o := req.Options
	if o.Metric != "" && !evaluator.ValidMetric(evaluator.Metric(o.Metric)) {
		return badRequest("options.metric", "%q: want one of %s", o.Metric, evaluator.MetricList())
	}
	if o.BenchFormat != "" && !benchformat.Valid(benchformat.Format(o.BenchFormat)) {
		return badRequest("options.bench_format", "%q is no known format", o.BenchFormat)
	}
	for _, r := range o.BenchReports {
		if err := evaluator.CheckReportPath(r); err != nil {
			return badRequest("options.bench_reports", "%v", err)
		}
	}
	for _, r := range o.TestReports {
		if err := evaluator.CheckReportPath(r); err != nil {
			return badRequest("options.test_reports", "%v", err)
		}
	}
	switch o.Sandbox {
	case "", "auto", "on", "off":
	default:
		return badRequest("options.sandbox", "%q: want auto, on or off", o.Sandbox)
	}
	switch {
	case o.MinSpeedup < 0 || o.MinSpeedup >= 1000:
		return badRequest("options.min_speedup", "%v: want a percentage, such as 5", o.MinSpeedup)
	case o.MinPairs < 0:
		return badRequest("options.min_pairs", "%d is negative", o.MinPairs)
	case o.MaxPairs < 0 || (o.MaxPairs > 0 && o.MaxPairs < o.MinPairs):
		return badRequest("options.max_pairs", "%d: want at least min_pairs (%d)", o.MaxPairs, o.MinPairs)
	case o.Parallel < 0:
		return badRequest("options.parallel", "%d is negative", o.Parallel)
	case o.MemLimit < 0:
		return badRequest("options.mem_limit", "%d is negative", o.MemLimit)
	}
	for name := range o.Env {
		if name == "" || strings.ContainsAny(name, "= \x00") {
			return badRequest("options.env", "%q is no environment variable's name", name)
		}
	}
	for i, f := range o.CopyFiles {
		if f == "" || path.IsAbs(f) || !filepath.IsLocal(filepath.FromSlash(f)) {
			return badRequest(fmt.Sprintf("options.copy_files[%d]", i), "%q leaves the repository: give a relative path inside it", f)
		}
	}
	return nil
}

func (s *jobSpec) findRepo(ctx context.Context) error {
	fi, err := os.Stat(s.Request.Repo)
	if err != nil || !fi.IsDir() {
		return unprocessable("repo", "%s: no such directory on the daemon's machine", s.Request.Repo)
	}
	out, err := git(ctx, s.Request.Repo, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir")
	lines := strings.Split(out, "\n")
	if err != nil || len(lines) != 2 {
		return unprocessable("repo", "%s is not in a git repository", s.Request.Repo)
	}
	s.Root, s.CommonDir = lines[0], lines[1]
	return nil
}

func (s *jobSpec) resolveBase(ctx context.Context) error {
	rev := s.Request.Base
	if rev == "" {
		rev = "HEAD"
	}
	out, err := git(ctx, s.Root, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil || len(out) != 40 {
		return unprocessable("base", "unknown revision %q in %s", rev, s.Root)
	}
	s.Base = out
	return nil
}

func (s *jobSpec) loadCandidates(ctx context.Context) error {
	var all []candidate.Candidate
	for i, raw := range s.Request.Candidates {
		field := fmt.Sprintf("candidates[%d]", i)
		line := bytes.TrimSpace(raw)
		if len(line) == 0 || line[0] != '{' || bytes.ContainsAny(line, "\n") {
			return badRequest(field, "want a JSON object with name and patch or files")
		}
		cs, err := candidate.ParseJSONL(bytes.NewReader(line), field)
		if err != nil {
			var se *candidate.SyntaxError
			if errors.As(err, &se) {
				return badRequest(field, "%s", se.Msg)
			}
			return badRequest(field, "%v", err)
		}
		c := cs[0]
		if c.Invalid != nil {
			f := field
			if errors.Is(c.Invalid, candidate.ErrBadPath) {
				f += ".files"
			}
			return badRequest(f, "%v", c.Invalid)
		}
		all = append(all, c)
	}
	for i, p := range s.Request.CandidatePaths {
		field := fmt.Sprintf("candidate_paths[%d]", i)
		cs, err := candidate.Load(p)
		if err != nil {
			return unprocessable(field, "%v", err)
		}
		all = append(all, cs...)
	}
	for i, ref := range s.Request.CandidateRefs {
		field := fmt.Sprintf("candidate_refs[%d]", i)
		if strings.HasPrefix(ref, "-") {
			return badRequest(field, "%q is no revision", ref)
		}
		c, err := candidate.FromRef(ctx, s.Root, s.Base, ref)
		if err != nil {
			return unprocessable(field, "%v", err)
		}
		all = append(all, c)
	}
	if err := candidate.CheckNames(all); err != nil {
		return badRequest("candidates", "%v", err)
	}
	for _, c := range all {
		s.Candidates = append(s.Candidates, storeCandidate(c))
	}
	return nil
}

// git runs a read-only git command in dir and returns its trimmed stdout.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := gitcmd.Run(ctx, gitcmd.Cmd{Dir: dir, Args: args, ReadOnly: true})
	return strings.TrimSpace(string(out)), err
}
