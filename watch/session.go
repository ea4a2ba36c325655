package watch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/evaluator/gobench"
	"github.com/optimizer-dev/optimizer/store"
)

// TreeCandidate names the working tree's candidate in the store.
const TreeCandidate = "working-tree"

// DefaultQuickBudget is the benchmark budget of a save's first speed
// verdict, when the full budget is longer: a quick answer first. When that
// verdict is not settled and no newer save comes, the same snapshot is
// evaluated again with the full budget (a refinement).
const DefaultQuickBudget = 15 * time.Second

// DefaultKeptArtifacts is how many of a session's evaluations without a
// winner keep their artifacts (their changes, for optimizer apply): the
// most recent ones. Evaluations with a winner keep theirs.
const DefaultKeptArtifacts = 20

// Pool is what a Session needs of a slot pool: the evaluator's, and moving
// its base to follow HEAD.
type Pool interface {
	evaluator.Pool
	SetBase(base string)
}

// Session is one watch of a working tree. It evaluates the tree's
// difference from HEAD once if there is one, then again after every
// settled burst of saves. Each saved entry of an Extra folder is evaluated
// on its own. A newer save cancels the evaluation of the same thing in
// flight.
// One evaluation runs at a time. Run owns every goroutine it starts.
//
// The fields are set before Run and not changed after. Out, Ready,
// Started, Progress, Tick and Finished are called on Run's goroutine, one
// at a time.
type Session struct {
	Root  string   // the working tree, symbolic links resolved, as git reports paths
	Head  string   // HEAD at the start
	Extra []string // directories of candidates to watch too, absolute
	// Own reports whether a slash path relative to Root is optimizer's own
	// file: its configuration, a store, a candidates folder. Changes to it
	// are not the user's work. A nil Own owns nothing.
	Own  func(path string) bool
	Skip []string // directories not to watch, absolute (the pool's, optimizer's own)

	Pool Pool
	DB   *store.DB
	// Evaluate runs one job; nil runs evaluator.Run on Pool and DB in this
	// process, with Options. A client of the daemon sets it to submit the
	// job there, and Pool and DB may then be nil. It must send the job's
	// events to j.Events as the job goes, and return when ctx ends.
	Evaluate func(ctx context.Context, j Job) (*evaluator.Report, error)

	// Options gives the evaluator's options for one evaluation in this
	// process. Its Events and Quick are set from j afterwards.
	Options func(j Job) (evaluator.Options, error)

	Test        string        // the test command; "" is the default (in a Go module, go test of the affected packages)
	All         bool          // in a Go module, test and benchmark every package
	BenchBudget time.Duration // the configured benchmark budget
	QuickBudget time.Duration // the first verdict's budget; 0 is DefaultQuickBudget

	Artifacts     string // the directory of jobs' artifacts, to prune
	KeptArtifacts int    // 0 is DefaultKeptArtifacts

	Quiet   time.Duration // the watcher's debounce; 0 is DefaultQuiet
	MaxWait time.Duration // 0 is DefaultMaxWait
	Logger  *slog.Logger

	Out      func(Record)                   // each line: required
	Ready    func()                         // the tree is watched: a save from now on is seen
	Started  func(*Work)                    // an evaluation starts
	Progress func(*Work, evaluator.Event)   // an event of the evaluation in flight
	Tick     func(*Work)                    // every TickEvery while an evaluation is in flight: a status line's countdown
	Finished func(*Work, *evaluator.Report) // an evaluation ended with a report (not interrupted), after its lines
}

// A Job is one evaluation the session asks for: Cands against Head, with
// the test command Test and the benchmark budget Budget (0: the configured
// one). Quick says Budget is a first look's, which a later job refines.
type Job struct {
	Head   string
	Cands  []candidate.Candidate
	Test   string
	Budget time.Duration
	Quick  bool
	Events chan<- evaluator.Event
}

// TickEvery is how often Session.Tick is called while an evaluation is in
// flight.
const TickEvery = time.Second

// Work is one thing to evaluate: the working tree as snapshotted, or the
// candidates of one entry of an Extra folder.
type Work struct {
	// key is "tree", or the path of the candidates entry: a newer work of
	// the same key supersedes an older one, queued or in flight.
	key       string
	time      time.Time
	trigger   []string // the changed files, relative to the tree (or to the candidates folder's parent)
	head      string   // the commit to evaluate against
	headMoved bool     // HEAD moved since the last work
	cands     []candidate.Candidate
	files     []string      // the paths the candidates change, for scoping
	skip      string        // when set, nothing runs: the line says this
	budget    time.Duration // the benchmark budget; 0 is the configured one
	refine    bool          // a full measure of a quick verdict that did not settle
}

// Budget is the work's benchmark budget; 0 is the configured one.
func (w *Work) Budget() time.Duration { return w.budget }

// Subject is the start of the work's text line: the time of the save and
// what changed, "12:03:41 sumsq/sumsq.go".
func (w *Work) Subject() string {
	var parts []string
	if w.headMoved {
		parts = append(parts, "HEAD → "+shortHash(w.head))
	}
	if t := triggerText(w.trigger); t != "" {
		parts = append(parts, t)
	}
	if len(parts) == 0 {
		parts = append(parts, "working tree")
	}
	return w.time.Format("15:04:05") + " " + strings.Join(parts, ", ")
}

// triggerText names up to three changed files, then says how many more.
func triggerText(paths []string) string {
	if len(paths) <= 3 {
		return strings.Join(paths, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(paths[:2], ", "), len(paths)-2)
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// flight is the evaluation in flight. Its goroutine sends one outcome on
// done; the loop always waits for it.
type flight struct {
	w          *Work
	cancel     context.CancelFunc
	done       chan outcome
	superseded bool // a newer work of its key cancelled it
}

type outcome struct {
	rep  *evaluator.Report
	err  error
	skip string // nothing was run, and why
}

// state is what Run's goroutine alone reads and writes.
type state struct {
	head   string            // HEAD as last seen
	goMod  bool              // Root is a Go module
	last   map[string]string // work key -> content key of the last snapshot planned
	unkept []string          // jobs without a winner whose artifacts are still kept, oldest first
	// events come from the evaluation in flight. Unbuffered: every event
	// is taken before its job's outcome can be.
	events chan evaluator.Event
}

// Run watches until ctx is done, when it cancels the evaluation in flight,
// waits for it, and returns nil. It returns an error when the watcher
// cannot start or stops by itself.
func (s *Session) Run(ctx context.Context) error {
	if s.Logger == nil {
		s.Logger = slog.New(slog.DiscardHandler)
	}
	st := &state{head: s.Head, last: map[string]string{}, events: make(chan evaluator.Event)}
	if _, err := os.Stat(filepath.Join(s.Root, "go.mod")); err == nil {
		st.goMod = true
	}
	w, err := New(ctx, Options{Root: s.Root, Extra: s.Extra, Skip: s.Skip, Quiet: s.Quiet, MaxWait: s.MaxWait, Logger: s.Logger})
	if err != nil {
		return fmt.Errorf("watch %s: %w", s.Root, err)
	}
	// The watcher's goroutine is owned here: stopped and waited for on
	// every return. werr is read only after wdone is closed.
	wctx, stop := context.WithCancel(ctx)
	changes := make(chan Change)
	wdone := make(chan struct{})
	var werr error
	go func() {
		defer close(wdone)
		werr = w.Run(wctx, changes)
	}()
	defer func() { stop(); <-wdone }()

	// The tree as it is now, after the watcher started: a save from here on
	// is seen, as a change, even if this snapshot already has it.
	first := s.planTree(ctx, st, Change{Time: time.Now()}, true)
	if s.Ready != nil {
		s.Ready()
	}
	return s.loop(ctx, st, first, changes, wdone, func() error { return werr })
}

// loop owns the evaluation in flight. It starts with first, if any, then
// plans work from each change and starts one evaluation at a time. It
// cancels one that a newer save supersedes, and says what became of each.
// It returns when ctx is done or the watcher stops (wdone).
func (s *Session) loop(ctx context.Context, st *state, first *Work, changes <-chan Change, wdone <-chan struct{}, werr func() error) error {
	var (
		cur   *flight
		queue []*Work
	)
	queue = s.enqueue(queue, nil, first)
	var tick <-chan time.Time
	if s.Tick != nil {
		t := time.NewTicker(TickEvery)
		defer t.Stop()
		tick = t.C
	}
	for {
		for cur == nil && len(queue) > 0 && ctx.Err() == nil {
			cur, queue = s.start(ctx, st, queue[0]), queue[1:]
		}
		var done <-chan outcome
		if cur != nil {
			done = cur.done
		}
		select {
		case <-tick:
			if cur != nil {
				s.Tick(cur.w)
			}
		case <-ctx.Done():
			if cur != nil {
				cur.cancel()
				s.finish(st, cur, s.await(st, cur))
			}
			return nil
		case <-wdone:
			if cur != nil {
				cur.cancel()
				s.finish(st, cur, s.await(st, cur))
			}
			if ctx.Err() != nil {
				return nil
			}
			err := werr()
			if err == nil {
				err = errors.New("the file watcher stopped")
			}
			return fmt.Errorf("watch %s: %w", s.Root, err)
		case ch := <-changes:
			for _, w := range s.plan(ctx, st, ch) {
				queue = s.enqueue(queue, cur, w)
			}
		case e := <-st.events:
			s.progress(cur, e)
		case res := <-done:
			s.finish(st, cur, res)
			if r := s.refinement(cur, res); r != nil && len(queue) == 0 {
				queue = append(queue, r)
			}
			cur = nil
		}
	}
}

// refinement is the work that measures a finished quick verdict again,
// with the full budget, when the quick one did not settle; or nil. The
// loop queues it only while nothing newer waits, and a newer save
// supersedes it as any work of its key.
func (s *Session) refinement(f *flight, res outcome) *Work {
	if f.w.budget == 0 || f.superseded || res.rep == nil || res.rep.State != "finished" || len(res.rep.Candidates) != 1 {
		return nil
	}
	c := res.rep.Candidates[0]
	if c.Pairs == 0 || !c.Unsettled {
		return nil
	}
	r := *f.w
	r.budget, r.refine, r.headMoved = 0, true, false
	return &r
}

// enqueue queues w, replacing queued work of the same key, and cancels the
// evaluation in flight if w supersedes it.
func (s *Session) enqueue(queue []*Work, cur *flight, w *Work) []*Work {
	if w == nil {
		return queue
	}
	queue = slices.DeleteFunc(queue, func(q *Work) bool { return q.key == w.key })
	if cur != nil && cur.w.key == w.key && !cur.superseded {
		cur.superseded = true
		cur.cancel()
	}
	return append(queue, w)
}

// await waits for a cancelled flight to end, passing on its events.
func (s *Session) await(st *state, f *flight) outcome {
	for {
		select {
		case e := <-st.events:
			s.progress(f, e)
		case res := <-f.done:
			return res
		}
	}
}

// start starts evaluating w, or says its line at once when there is
// nothing to run. It returns nil when nothing is in flight.
func (s *Session) start(ctx context.Context, st *state, w *Work) *flight {
	if w.skip != "" {
		s.finish(st, &flight{w: w}, outcome{skip: w.skip})
		return nil
	}
	fctx, cancel := context.WithCancel(ctx)
	f := &flight{w: w, cancel: cancel, done: make(chan outcome, 1)}
	// Nothing else holds a slot now: the pool follows HEAD from here on.
	if s.Pool != nil {
		s.Pool.SetBase(w.head)
	}
	if s.Started != nil {
		s.Started(w)
	}
	go func() {
		defer cancel()
		f.done <- s.evaluate(fctx, st, w)
	}()
	return f
}

// evaluate runs one job on w. It runs on the flight's goroutine and reads
// only what no one changes while it runs.
func (s *Session) evaluate(ctx context.Context, st *state, w *Work) outcome {
	test, skip, err := s.scope(ctx, st.goMod, w.files)
	switch {
	case ctx.Err() != nil:
		return outcome{err: ctx.Err()}
	case err != nil:
		s.Logger.Warn("find the affected packages: testing every package", "err", err)
	case skip != "":
		return outcome{skip: skip}
	}
	// A budget is a quick look's, refined by a later job if it does not settle.
	j := Job{Head: w.head, Cands: w.cands, Test: test, Budget: w.budget, Quick: w.budget != 0, Events: st.events}
	if s.Evaluate != nil {
		rep, err := s.Evaluate(ctx, j)
		return outcome{rep: rep, err: err}
	}
	opts, err := s.Options(j)
	if err != nil {
		return outcome{err: err}
	}
	opts.Events, opts.Quick = j.Events, j.Quick
	rep, err := evaluator.Run(ctx, s.Pool, s.DB, opts)
	return outcome{rep: rep, err: err}
}

// scope returns the test command for a change to files. It is Test if
// given. In a Go module it is go test of the affected packages, or a
// reason to run nothing when none is affected. Else it is "", the
// evaluator's default.
func (s *Session) scope(ctx context.Context, goMod bool, files []string) (test, skip string, err error) {
	if s.Test != "" || !goMod || s.All {
		return s.Test, "", nil
	}
	pkgs, err := gobench.Affected(ctx, s.Root, files)
	if err != nil {
		return "", "", err
	}
	if len(pkgs) == 0 {
		return "", "no Go package is affected: nothing to test", nil
	}
	return "go test -json " + strings.Join(pkgs, " "), "", nil
}

// pruneArtifacts removes the artifacts of this session's evaluations
// without a winner, all but the most recent few. Then a long session does
// not fill the disk with snapshots of every save. The store keeps their
// records; only optimizer apply of such a job cannot work.
func (s *Session) pruneArtifacts(st *state, rep *evaluator.Report) {
	if rep == nil || rep.Job == "" || rep.Winner != nil || s.Artifacts == "" {
		return
	}
	keep := cmp.Or(s.KeptArtifacts, DefaultKeptArtifacts)
	st.unkept = append(st.unkept, rep.Job)
	for len(st.unkept) > keep {
		dir := filepath.Join(s.Artifacts, st.unkept[0])
		st.unkept = st.unkept[1:]
		if err := os.RemoveAll(dir); err != nil {
			s.Logger.Warn("prune the artifacts of an old evaluation", "dir", dir, "err", err)
		}
	}
}
