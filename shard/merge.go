package shard

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/store"
)

// Errors a caller can recognise.
var (
	// ErrNotShardStore: an input is not the store of a shard run.
	ErrNotShardStore = errors.New("not a shard store")
	// ErrDifferentJobs: the stores are of different jobs (base, test
	// command, candidate set or shard count).
	ErrDifferentJobs = errors.New("stores of different jobs")
	// ErrConflict: a candidate has two different outcomes.
	ErrConflict = errors.New("conflicting outcomes")
	// ErrNoJob: a store holds no job run in shards that Job can choose.
	ErrNoJob = errors.New("no job run in shards to choose")
)

// StateMerged is the state of a merged job until optimizer bench finishes it.
const StateMerged = "merged"

// A Conflict is one candidate judged differently by two stores.
type Conflict struct {
	Candidate string
	A, B      Outcome
	InA, InB  string // the stores' paths
}

// An Outcome is what a shard decided about a candidate: what merging
// compares. Messages and times may differ between machines; these may not.
type Outcome struct {
	Verdict, FailureKind, DuplicateOf string
}

func (o Outcome) String() string {
	s := o.Verdict
	if o.FailureKind != "" {
		s += " (" + o.FailureKind + ")"
	}
	if o.DuplicateOf != "" {
		s += " of " + o.DuplicateOf
	}
	return s
}

func outcomeOf(c store.Candidate) Outcome {
	return Outcome{Verdict: c.Verdict, FailureKind: c.FailureKind, DuplicateOf: c.DuplicateOf}
}

// A ConflictError lists every conflict of a merge; it wraps ErrConflict.
// Nothing was written.
type ConflictError struct{ Conflicts []Conflict }

func (e *ConflictError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d candidates judged differently by two stores (nothing was merged; run the shard again, or leave one of the stores out):", len(e.Conflicts))
	for _, c := range e.Conflicts {
		fmt.Fprintf(&b, "\n  %s: %s in %s, %s in %s", c.Candidate, c.A, c.InA, c.B, c.InB)
	}
	return b.String()
}

// Unwrap returns ErrConflict.
func (e *ConflictError) Unwrap() error { return ErrConflict }

// A Result says what a merge made.
type Result struct {
	Job        string // the merged job's id
	Shards     []Spec // the shards the output holds
	Missing    []Spec // shards that no store merged so far holds
	Candidates int
	Added      []string // candidates this merge judged for the output
	Unjudged   []string // candidates no shard merged so far judged
}

// pending is the verdict of a candidate a shard left to another.
const pending = "pending"

// piece is one store's job, read whole.
type piece struct {
	path   string
	job    store.Job
	shards []Spec
	cands  []store.Candidate
	db     *store.DB
	events []store.Event // read once, by copyRuns
}

// Merge merges the shard stores ins into the store at out, made if
// missing. The output holds one job with every candidate once: each with
// the outcome of the shard that judged it, its test results and events.
// Stores of different jobs are refused (ErrDifferentJobs), as is a
// candidate judged differently by two stores (a *ConflictError); then out
// is left as it was. Merging what out already holds changes nothing.
func Merge(ctx context.Context, out string, ins []string) (*Result, error) {
	if len(ins) == 0 {
		return nil, errors.New("no stores to merge")
	}
	var pieces []*piece
	defer func() {
		for _, p := range pieces {
			p.db.Close()
		}
	}()
	for _, path := range ins {
		p, err := readPiece(ctx, path, store.OpenReadOnly)
		if err != nil {
			return nil, err
		}
		pieces = append(pieces, p)
		if err := sameJob(pieces[0], p); err != nil {
			return nil, err
		}
	}
	odb, err := openOut(ctx, out)
	if err != nil {
		return nil, err
	}
	defer odb.Close()
	have, err := outPiece(ctx, out, odb)
	if err != nil {
		return nil, err
	}
	if have != nil {
		if err := sameJob(have, pieces[0]); err != nil {
			return nil, err
		}
	}
	return write(ctx, odb, have, pieces)
}

// openOut opens (or makes) the output store.
func openOut(ctx context.Context, path string) (*store.DB, error) {
	db, err := store.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open the output store %s: %w", path, err)
	}
	return db, nil
}

type opener func(ctx context.Context, path string) (*store.DB, error)

// readPiece reads the one shard job of the store at path.
func readPiece(ctx context.Context, path string, open opener) (*piece, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("read shard store: %w", err)
	}
	db, err := open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", path, ErrNotShardStore, err)
	}
	p, err := loadPiece(ctx, path, db)
	if err == nil && p == nil {
		err = fmt.Errorf("%s: %w: it holds no shard run's job; make one with optimizer run --shard K/N --db FILE", path, ErrNotShardStore)
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	if p.job.State != "finished" && p.job.State != StateMerged {
		db.Close()
		return nil, fmt.Errorf("%s: %w: its job %s (shard %s) is %s, not finished: run that shard again", path, ErrNotShardStore, p.job.ID, p.job.Shards, p.job.State)
	}
	return p, nil
}

// outPiece reads what the output store already holds; nil when it holds
// no job.
func outPiece(ctx context.Context, path string, db *store.DB) (*piece, error) {
	jobs, err := db.Jobs(ctx, 0)
	if err != nil {
		return nil, err
	}
	if len(jobs) == 0 {
		return nil, nil
	}
	p, err := loadPiece(ctx, path, db)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, fmt.Errorf("the output store %s holds jobs that are not shard runs: merge into a new file", path)
	}
	p.db = nil // not ours to close
	return p, nil
}

// loadPiece reads the one job of db with shards; nil when there is none.
func loadPiece(ctx context.Context, path string, db *store.DB) (*piece, error) {
	jobs, err := db.Jobs(ctx, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var found []store.Job
	for _, j := range jobs {
		if j.Shards != "" {
			found = append(found, j)
		}
	}
	switch len(found) {
	case 0:
		return nil, nil
	case 1:
	default:
		return nil, fmt.Errorf("%s holds %d shard jobs: give each shard run its own --db file", path, len(found))
	}
	p := &piece{path: path, job: found[0], db: db}
	if p.shards, err = parseList(p.job.Shards); err != nil {
		return nil, fmt.Errorf("%s: job %s: %w", path, p.job.ID, err)
	}
	if p.cands, err = db.Candidates(ctx, p.job.ID); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// sameJob refuses b unless it is a piece of a's job: the same base, test
// command, shard count and candidates (names and content ids).
func sameJob(a, b *piece) error {
	var why []string
	if a.job.Base != b.job.Base {
		why = append(why, fmt.Sprintf("base %s, not %s", short(b.job.Base), short(a.job.Base)))
	}
	if a.job.Test != b.job.Test {
		why = append(why, fmt.Sprintf("test command %q, not %q", b.job.Test, a.job.Test))
	}
	if a.shards[0].N != b.shards[0].N {
		why = append(why, fmt.Sprintf("%d shards, not %d", b.shards[0].N, a.shards[0].N))
	}
	why = append(why, candidateSetDiff(a, b)...)
	if len(why) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s is not a shard of the job in %s: it has %s", ErrDifferentJobs, b.path, a.path, strings.Join(why, "; "))
}

// candidateSetDiff says how b's candidates differ from a's, at most a few.
func candidateSetDiff(a, b *piece) []string {
	ids := func(p *piece) map[string]string {
		m := make(map[string]string, len(p.cands))
		for _, c := range p.cands {
			m[c.Name] = c.ContentID
		}
		return m
	}
	am, bm := ids(a), ids(b)
	var why []string
	for _, c := range b.cands {
		id, ok := am[c.Name]
		switch {
		case !ok:
			why = append(why, fmt.Sprintf("candidate %s, which the other lacks", c.Name))
		case id != c.ContentID:
			why = append(why, fmt.Sprintf("another change under the name %s (content id %s, not %s)", c.Name, short(c.ContentID), short(id)))
		}
	}
	for _, c := range a.cands {
		if _, ok := bm[c.Name]; !ok {
			why = append(why, fmt.Sprintf("no candidate %s", c.Name))
		}
	}
	if len(why) > 5 {
		why = append(why[:5], fmt.Sprintf("%d more differences in the candidate set", len(why)-5))
	}
	return why
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	if id == "" {
		return "(none)"
	}
	return id
}

// write finds each candidate's outcome, refuses conflicts, and writes in
// one transaction what out lacks.
func write(ctx context.Context, db *store.DB, have *piece, pieces []*piece) (*Result, error) {
	first := pieces[0]
	job := first.job
	job.ID = mergedID(first)
	job.State = StateMerged
	job.Report, job.Winner, job.Error, job.Finished = nil, "", "", time.Time{}
	job.PID, job.OwnerStart = 0, ""
	shards := slices.Clone(first.shards)
	judged := map[string]*piece{} // candidate -> the store whose outcome it has
	all := pieces
	if have != nil {
		job.ID = have.job.ID
		shards = append(shards, have.shards...)
		all = append([]*piece{have}, pieces...)
	}
	var conflicts []Conflict
	byName := map[string]store.Candidate{}
	for _, p := range all {
		shards = append(shards, p.shards...)
		for _, c := range p.cands {
			if c.Verdict == pending || c.Verdict == "" {
				continue
			}
			prev, ok := judged[c.Name]
			if !ok {
				judged[c.Name] = p
				byName[c.Name] = c
				continue
			}
			if a, b := outcomeOf(byName[c.Name]), outcomeOf(c); a != b {
				conflicts = append(conflicts, Conflict{Candidate: c.Name, A: a, B: b, InA: prev.path, InB: p.path})
			}
		}
	}
	if len(conflicts) > 0 {
		return nil, &ConflictError{Conflicts: conflicts}
	}
	job.Shards = formatList(shards)
	m := store.Merge{Job: job}
	res := &Result{Job: job.ID, Candidates: len(first.cands)}
	for _, c := range first.cands {
		from := judged[c.Name]
		if from == nil {
			res.Unjudged = append(res.Unjudged, c.Name)
			if have == nil {
				c.JobID = job.ID
				m.Candidates = append(m.Candidates, c)
			}
			continue
		}
		if from == have {
			continue
		}
		row := byName[c.Name]
		row.JobID = job.ID
		m.Candidates = append(m.Candidates, row)
		res.Added = append(res.Added, c.Name)
		if err := copyRuns(ctx, &m, from, c.Name, job.ID); err != nil {
			return nil, err
		}
	}
	if have == nil {
		if err := copyRuns(ctx, &m, first, "", job.ID); err != nil {
			return nil, err
		}
	}
	for _, p := range pieces {
		m.Events = append(m.Events, store.Event{JobID: job.ID, Kind: "merge",
			Message: fmt.Sprintf("merged %s (job %s, shard %s)", p.path, p.job.ID, p.job.Shards)})
	}
	if err := db.WriteMerge(ctx, m); err != nil {
		return nil, err
	}
	res.Shards, _ = parseList(job.Shards)
	res.Missing = missing(res.Shards)
	return res, nil
}

// copyRuns adds to m the test results and events of one candidate ("" for
// base) in p, under the merged job's id.
func copyRuns(ctx context.Context, m *store.Merge, p *piece, name, jobID string) error {
	trs, err := p.db.TestResults(ctx, p.job.ID, name)
	if err != nil {
		return fmt.Errorf("%s: %w", p.path, err)
	}
	for _, r := range trs {
		r.JobID = jobID
		m.TestResults = append(m.TestResults, r)
	}
	if p.events == nil {
		evs, err := p.db.Events(ctx, p.job.ID)
		if err != nil {
			return fmt.Errorf("%s: %w", p.path, err)
		}
		p.events = append(evs, store.Event{}) // not nil once read
	}
	for _, e := range p.events {
		if e.Candidate == name && e.JobID != "" {
			e.JobID = jobID
			m.Events = append(m.Events, e)
		}
	}
	return nil
}

// mergedID is the merged job's id: the same for every store of one job, so
// that stores merged in any order, or again, make one job.
func mergedID(p *piece) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00", p.job.Base, p.job.Test, p.shards[0].N)
	names := make([]string, 0, len(p.cands))
	for _, c := range p.cands {
		names = append(names, c.Name+"\x00"+c.ContentID)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(h, "%s\x00", n)
	}
	return "merged-" + hex.EncodeToString(h.Sum(nil))[:16]
}

// missing lists the shards of N that have is missing.
func missing(have []Spec) []Spec {
	if len(have) == 0 {
		return nil
	}
	var out []Spec
	for k := 1; k <= have[0].N; k++ {
		if !slices.Contains(have, Spec{K: k, N: have[0].N}) {
			out = append(out, Spec{K: k, N: have[0].N})
		}
	}
	return out
}
