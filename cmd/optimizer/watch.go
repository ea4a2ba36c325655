package main

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/evaluator/gobench"
	"github.com/optimizer-dev/optimizer/evaluator/watch"
	"github.com/optimizer-dev/optimizer/proc"
	"github.com/optimizer-dev/optimizer/report"
	"github.com/optimizer-dev/optimizer/store"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// treeCandidate names the working tree's candidate in the store.
const treeCandidate = "working-tree"

// watchOptions are the flags of optimizer watch: those of run, less the
// ones that fix a base or a set of candidates, and the watcher's timing,
// which tests set.
type watchOptions struct {
	runOptions
	Quiet   time.Duration // trailing debounce; 0 is watch.DefaultQuiet
	MaxWait time.Duration // cap on one debounce; 0 is watch.DefaultMaxWait
	// machineLock is the pool's machine lock; "" is the machine's own.
	// Tests use a private one, so that other optimizers on the machine
	// don't hold them up.
	machineLock string
	// keptArtifacts is how many evaluations without a winner keep their
	// artifacts; 0 is defaultKeptArtifacts. Tests set fewer.
	keptArtifacts int
	// quickBudget is the benchmark budget of a save's first speed verdict;
	// 0 is defaultQuickBudget. Tests set less.
	quickBudget time.Duration
}

// defaultQuickBudget is the benchmark budget of a save's first speed
// verdict, when --bench-budget is longer: a quick answer first. When that
// verdict is not settled and no newer save comes, the same snapshot is
// evaluated again with the whole --bench-budget (see refinement).
const defaultQuickBudget = 15 * time.Second

// defaultKeptArtifacts is how many of a watch session's evaluations without
// a winner keep their artifacts (their changes, for optimizer apply): the
// most recent ones. Evaluations with a winner keep theirs.
const defaultKeptArtifacts = 20

// watchRefused are run flags that make no sense in watch mode: on the
// command line they are usage errors, from optimizer.toml (shared with run)
// they are ignored.
var watchRefused = map[string]string{
	"base":               "watch compares against HEAD and follows it",
	"candidate-ref":      "watch evaluates the working tree (and --candidates DIR)",
	"fail-on-regression": "watch has no exit status per evaluation",
}

func newWatchCmd(stdout, stderr io.Writer) *cobra.Command {
	o := watchOptions{runOptions: defaultRunOptions()}
	o.Kind = "watch"
	cmd := &cobra.Command{
		Use:   "watch [flags]",
		Short: "Evaluate the working tree against HEAD every time a file is saved",
		Long: `Watch the working tree and, after every settled burst of saves, evaluate its
difference from HEAD (tracked edits, deletions and untracked files that git
does not ignore) as a candidate: tests, then benchmarks, as optimizer run does.
A new save cancels the evaluation in flight. In a Go module, only the packages
the change affects are tested and benchmarked (--all for every package).
Candidates saved in a --candidates DIR are evaluated on their own, against HEAD.
optimizer.toml, .optimizer*, the --candidates folder and editors' temporary
files (sed -i's sedXXXXXX, swap and backup files) are ignored.

The test verdict is printed as soon as the tests pass ("measuring speed…"),
then a quick speed verdict (a 15 s budget); when that does not settle and
no newer save comes, the same save is measured again with the whole
--bench-budget, and said as "refined:".

One line per evaluation on stdout; -v adds progress and the full report;
--format json prints one JSON object per line. Every evaluation is a job in
the store (kind watch). Ctrl-C stops, exiting 0. See docs/watch.md.`,
		Example: `  optimizer watch
  optimizer watch --test "make check" --bench none
  optimizer watch --candidates ./candidates --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.configure(cmd.Context(), cmd); err != nil {
				return err
			}
			return runWatch(cmd.Context(), o, stdout, stderr)
		},
	}
	o.register(cmd.Flags())
	for name := range watchRefused {
		cmd.Flags().MarkHidden(name)
	}
	for name, usage := range map[string]string{
		"candidates": "a directory of candidates to watch too: each NAME.patch, NAME/ or .jsonl saved there is evaluated against HEAD (repeatable)",
		"all":        "test and benchmark every package, not only those the change touches or that import them",
		"test":       "test command, run with sh -c in each slot, with -count=1 added to GOFLAGS (default: go test -json of the affected packages, in a Go module)",
		"format":     "text (one line per evaluation) or json (one object per line)",
		"keep-slots": "keep the slots warm when watch stops, for the next run, instead of removing them",
		"verbose":    "log what happens to stderr, and print each evaluation's full report",
	} {
		cmd.Flags().Lookup(name).Usage = usage
	}
	return cmd
}

// configure merges optimizer.toml under the flags, like run's, then drops
// what watch refuses and validates the rest.
func (o *watchOptions) configure(ctx context.Context, cmd *cobra.Command) error {
	for name, why := range watchRefused {
		if cmd.Flags().Changed(name) {
			return usageErrorf("--%s is not allowed: %s", name, why)
		}
	}
	fromFile := !cmd.Flags().Changed("format")
	if err := o.runOptions.configure(ctx, cmd); err != nil {
		return err
	}
	o.Base, o.CandidateRefs, o.FailOnRegr = "HEAD", nil, false
	if o.Format == formatMarkdown {
		if !fromFile {
			return usageErrorf("--format markdown: watch prints text lines or JSON lines")
		}
		o.Format = formatText
	}
	return o.validate()
}

// validate checks what run's validation does not: --candidates names
// directories, since watch watches them.
func (o *watchOptions) validate() error {
	for _, p := range o.Candidates {
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			return usageErrorf("--candidates %s: watch takes a directory of candidates to watch", p)
		}
	}
	return nil
}

// runWatch is optimizer watch: it evaluates the working tree once if it
// differs from HEAD, then again after every settled save, until ctx is
// done. Cancellation is the normal way to stop: it returns nil then, after
// cancelling the evaluation in flight and closing the pool.
func runWatch(ctx context.Context, o watchOptions, stdout, stderr io.Writer) (err error) {
	s, err := newSession(ctx, o, stdout, stderr)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := s.close(ctx); err == nil {
			err = cerr
		}
	}()

	w, err := watch.New(ctx, watch.Options{
		Root:    s.root,
		Extra:   s.extra,
		Skip:    []string{s.pool.Dir(), s.r.optimizerDir()},
		Quiet:   o.Quiet,
		MaxWait: o.MaxWait,
		Logger:  s.log,
	})
	if err != nil {
		return fmt.Errorf("watch %s: %w", s.root, err)
	}
	// The watcher's goroutine is owned here: stopped and waited for on
	// every return. werr is read only after wdone is closed.
	wctx, stop := context.WithCancel(ctx)
	changes := make(chan watch.Change)
	wdone := make(chan struct{})
	var werr error
	go func() {
		defer close(wdone)
		werr = w.Run(wctx, changes)
	}()
	defer func() { stop(); <-wdone }()

	// The tree as it is now, after the watcher started: a save from here on
	// is seen, as a change, even if this snapshot already has it.
	first := s.planTree(ctx, watch.Change{Time: time.Now()}, true)
	fmt.Fprintf(stderr, "optimizer: watching %s at HEAD %s, %s (%s); Ctrl-C to stop\n",
		s.root, report.ShortHash(s.head), plural(s.n, "slot"), s.why)
	return s.loop(ctx, first, changes, wdone, func() error { return werr })
}

// session is one watch: the pool, the store and what was last evaluated.
// Its fields are used by the goroutine that runs loop, except where said.
type session struct {
	o      watchOptions
	r      repo
	root   string // r.Root with symbolic links resolved, as git reports paths
	n      int
	why    string
	goMod  bool
	extra  []string // --candidates directories, absolute
	own    []string // optimizer's own files and folders inside the tree, relative slash paths
	log    *slog.Logger
	db     *store.DB
	pool   *worktreepool.Pool
	screen *screen
	// events come from the evaluation in flight. Unbuffered: every event is
	// taken before its job's outcome can be.
	events chan evaluator.Event

	head string            // HEAD as last seen
	last map[string]string // work key -> content key of the last snapshot planned
	// unkept are this session's jobs without a winner whose artifacts are
	// still kept, oldest first: see pruneArtifacts.
	unkept []string
}

func newSession(ctx context.Context, o watchOptions, stdout, stderr io.Writer) (*session, error) {
	r, err := findRepo(ctx, o.Repo)
	if err != nil {
		return nil, err
	}
	head, err := r.resolve(ctx, "HEAD")
	if err != nil {
		return nil, fmt.Errorf("resolve HEAD: %w (watch needs a commit to compare against)", err)
	}
	o.Kind = "watch"
	s := &session{o: o, r: r, root: r.Root, head: head, last: map[string]string{},
		events: make(chan evaluator.Event)}
	if real, err := filepath.EvalSymlinks(r.Root); err == nil {
		s.root = real
	}
	s.n, s.why = slots(o.Parallel, 1, o.Test, thisMachine())
	if o.Parallel > 0 {
		s.n, s.why = int(o.Parallel), "-j"
	}
	if _, err := os.Stat(filepath.Join(s.root, "go.mod")); err == nil {
		s.goMod = true
	}
	for _, p := range o.Candidates {
		abs, err := filepath.Abs(p)
		if err == nil {
			abs, err = filepath.EvalSymlinks(abs)
		}
		if err != nil {
			return nil, fmt.Errorf("find --candidates %s: %w", p, err)
		}
		s.extra = append(s.extra, abs)
	}
	s.screen = newScreen(stdout, stderr, o.Verbose)
	s.log = newLogger(o.Verbose, stderr)

	if s.db, err = openStoreForJob(ctx, r.storePath(o.DB), stderr); err != nil {
		return nil, err
	}
	proc.KillOrphans()
	evaluator.RemoveStaleScratch(pidAlive)
	s.pool, err = worktreepool.Open(ctx, worktreepool.Options{
		Repo: r.Root, Base: head, Size: s.n, Keep: o.KeepSlots, Paranoid: o.ParanoidReset, MachineLock: o.machineLock, Logger: s.log,
	})
	if err != nil {
		s.db.Close()
		return nil, fmt.Errorf("open slot pool: %w", err)
	}
	s.own = s.ownPaths()
	return s, nil
}

// ownPaths lists, relative to the tree, what optimizer itself writes there,
// if anything: a store given with --db, and candidate folders. Changes to
// them are not the user's work.
func (s *session) ownPaths() []string {
	var abs []string
	if s.o.DB != "" {
		db, _ := filepath.Abs(s.o.DB)
		for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
			abs = append(abs, db+suffix)
		}
	}
	abs = append(abs, s.extra...)
	abs = append(abs, s.pool.Dir(), s.r.optimizerDir())
	var out []string
	for _, a := range abs {
		if dir, err := filepath.EvalSymlinks(filepath.Dir(a)); err == nil {
			a = filepath.Join(dir, filepath.Base(a))
		}
		if rel, err := filepath.Rel(s.root, a); err == nil && filepath.IsLocal(rel) {
			out = append(out, filepath.ToSlash(rel))
		}
	}
	return out
}

// isOwn reports whether a slash path relative to the tree is optimizer's
// (see isOwnPath).
func (s *session) isOwn(p string) bool { return isOwnPath(p, s.own) }

// close removes the slots (or keeps them, with --keep-slots) and closes the
// store. It runs even when ctx is done.
func (s *session) close(ctx context.Context) error {
	s.screen.clear()
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
	defer cancel()
	var errs []error
	if err := s.pool.Close(cctx); err != nil {
		errs = append(errs, fmt.Errorf("close slot pool: %w", err))
	}
	if err := s.db.Close(); err != nil {
		errs = append(errs, fmt.Errorf("close store: %w", err))
	}
	return errors.Join(errs...)
}

// work is one thing to evaluate: the working tree as snapshotted, or the
// candidates of one entry of a --candidates folder.
type work struct {
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
	budget    time.Duration // the benchmark budget; 0 is --bench-budget
	refine    bool          // a full measure of a quick verdict that did not settle
}

// flight is the evaluation in flight. Its goroutine sends one outcome on
// done; loop always waits for it.
type flight struct {
	w          *work
	cancel     context.CancelFunc
	done       chan outcome
	superseded bool // a newer work of its key cancelled it
	tracker    *tracker
}

type outcome struct {
	rep  *evaluator.Report
	err  error
	skip string // nothing was run, and why
}

// loop owns the terminal and the evaluation in flight. It starts with
// first, if any, then plans work from each change, starts one evaluation at
// a time, cancels one that a newer save supersedes, and prints a line for
// each. It returns when ctx is done or the watcher stops (wdone).
func (s *session) loop(ctx context.Context, first *work, changes <-chan watch.Change, wdone <-chan struct{}, werr func() error) error {
	var (
		cur   *flight
		queue []*work
	)
	queue = s.enqueue(queue, nil, first)
	for {
		for cur == nil && len(queue) > 0 && ctx.Err() == nil {
			cur, queue = s.start(ctx, queue[0]), queue[1:]
		}
		var done <-chan outcome
		if cur != nil {
			done = cur.done
		}
		select {
		case <-ctx.Done():
			if cur != nil {
				cur.cancel()
				s.finish(cur, s.await(cur))
			}
			fmt.Fprintln(s.screen.err, "optimizer: stopped")
			return nil
		case <-wdone:
			if cur != nil {
				cur.cancel()
				s.finish(cur, s.await(cur))
			}
			if ctx.Err() != nil {
				return nil
			}
			err := werr()
			if err == nil {
				err = errors.New("the file watcher stopped")
			}
			return fmt.Errorf("watch %s: %w", s.root, err)
		case ch := <-changes:
			for _, w := range s.plan(ctx, ch) {
				queue = s.enqueue(queue, cur, w)
			}
		case e := <-s.events:
			s.progress(cur, e)
		case res := <-done:
			s.finish(cur, res)
			if r := s.refinement(cur, res); r != nil && len(queue) == 0 {
				queue = append(queue, r)
			}
			cur = nil
		}
	}
}

// refinement is the work that measures a finished quick verdict again,
// with the whole --bench-budget, when the quick one did not settle; or nil.
// The loop queues it only while nothing newer waits, and a newer save
// supersedes it as any work of its key.
func (s *session) refinement(f *flight, res outcome) *work {
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
func (s *session) enqueue(queue []*work, cur *flight, w *work) []*work {
	if w == nil {
		return queue
	}
	queue = slices.DeleteFunc(queue, func(q *work) bool { return q.key == w.key })
	if cur != nil && cur.w.key == w.key && !cur.superseded {
		cur.superseded = true
		cur.cancel()
	}
	return append(queue, w)
}

// await waits for a cancelled flight to end, draining its events.
func (s *session) await(f *flight) outcome {
	for {
		select {
		case e := <-s.events:
			s.progress(f, e)
		case res := <-f.done:
			return res
		}
	}
}

// start starts evaluating w, or prints its line at once when there is
// nothing to run. It returns nil when nothing is in flight.
func (s *session) start(ctx context.Context, w *work) *flight {
	if w.skip != "" {
		s.finish(&flight{w: w}, outcome{skip: w.skip})
		return nil
	}
	fctx, cancel := context.WithCancel(ctx)
	f := &flight{w: w, cancel: cancel, done: make(chan outcome, 1), tracker: newTracker(time.Now)}
	f.tracker.est.plan = etaPlan{slots: s.n, budget: cmp.Or(w.budget, s.o.BenchBudget), maxPairs: s.o.MaxPairs, timeout: s.o.Timeout, noBench: s.o.Bench == "none"}
	// Nothing else holds a slot now: the pool follows HEAD from here on.
	s.pool.SetBase(w.head)
	s.screen.setStatus(s.subject(w) + ": starting…")
	go func() {
		defer cancel()
		f.done <- s.evaluate(fctx, w)
	}()
	return f
}

// evaluate runs one job on w. It runs on the flight's goroutine and reads
// only what no one changes while it runs.
func (s *session) evaluate(ctx context.Context, w *work) outcome {
	o := s.o.runOptions
	test, skip, err := s.scope(ctx, w.files)
	switch {
	case ctx.Err() != nil:
		return outcome{err: ctx.Err()}
	case err != nil:
		s.log.Warn("find the affected packages: testing every package", "err", err)
	case skip != "":
		return outcome{skip: skip}
	}
	o.Test = test
	if w.budget > 0 {
		o.BenchBudget = w.budget
	}
	opts := o.evaluatorOptions(s.r, w.head, s.n, w.cands, s.log)
	opts.Events = s.events
	rep, err := evaluator.Run(ctx, s.pool, s.db, opts)
	return outcome{rep: rep, err: err}
}

// pruneArtifacts removes the artifacts of this session's evaluations
// without a winner, all but the most recent few, so that a long session
// does not fill the disk with snapshots of every save. The store keeps
// their records; only optimizer apply of such a job no longer works.
func (s *session) pruneArtifacts(rep *evaluator.Report) {
	if rep == nil || rep.Job == "" || rep.Winner != nil {
		return
	}
	keep := s.o.keptArtifacts
	if keep <= 0 {
		keep = defaultKeptArtifacts
	}
	s.unkept = append(s.unkept, rep.Job)
	for len(s.unkept) > keep {
		dir := filepath.Join(s.r.artifactsDir(), s.unkept[0])
		s.unkept = s.unkept[1:]
		if err := os.RemoveAll(dir); err != nil {
			s.log.Warn("prune the artifacts of an old evaluation", "dir", dir, "err", err)
		}
	}
}

// scope returns the test command for a change to files: --test if given;
// in a Go module, go test of the affected packages, or a reason to run
// nothing when none is affected; else "" (the evaluator's default).
func (s *session) scope(ctx context.Context, files []string) (test, skip string, err error) {
	if s.o.Test != "" || !s.goMod || s.o.All {
		return s.o.Test, "", nil
	}
	pkgs, err := gobench.Affected(ctx, s.root, files)
	if err != nil {
		return "", "", err
	}
	if len(pkgs) == 0 {
		return "", "no Go package is affected: nothing to test", nil
	}
	return "go test -json " + strings.Join(pkgs, " "), "", nil
}

// cancelled reports whether err is a context's: the evaluation was cut off.
func cancelled(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// plan turns a change into work: the working tree, when anything in it (or
// HEAD) changed, and each entry of a --candidates folder saved.
func (s *session) plan(ctx context.Context, ch watch.Change) []*work {
	var tree, extra []string
	for _, p := range ch.Paths {
		switch {
		case filepath.IsAbs(p):
			extra = append(extra, p)
		case !s.isOwn(p):
			tree = append(tree, p)
		}
	}
	var out []*work
	if len(tree) > 0 || ch.GitState || ch.Rescan {
		ch.Paths = tree
		if w := s.planTree(ctx, ch, false); w != nil {
			out = append(out, w)
		}
	}
	return append(out, s.planExtra(ch.Time, extra)...)
}

// planTree snapshots the working tree now. It returns nil when the snapshot
// equals the last one planned; work with skip set when there is nothing to
// evaluate. initial is the evaluation at start, which a clean tree skips
// quietly.
func (s *session) planTree(ctx context.Context, ch watch.Change, initial bool) *work {
	w := &work{key: "tree", time: ch.Time, trigger: ch.Paths}
	snap, err := watch.Take(ctx, s.root, treeCandidate)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		w.skip = fmt.Sprintf("snapshot the working tree: %v", err)
		return w
	}
	s.dropOwn(&snap.Candidate)
	w.head, w.headMoved = snap.Head, snap.Head != s.head
	s.head = snap.Head
	key := contentKey(snap.Head, snap.Candidate)
	if s.last[w.key] == key {
		return nil
	}
	s.last[w.key] = key
	empty := len(snap.Candidate.Files) == 0 && len(snap.Candidate.Deleted) == 0
	switch {
	case empty && initial:
		return nil
	case empty:
		w.skip = "the working tree matches HEAD: nothing to evaluate"
		return w
	}
	w.cands = []candidate.Candidate{snap.Candidate}
	w.files = snap.Candidate.Paths()
	if quick := cmp.Or(s.o.quickBudget, defaultQuickBudget); s.o.BenchBudget > quick {
		w.budget = quick
	}
	if initial {
		w.trigger = w.files
	}
	return w
}

// dropOwn removes optimizer's own files from a snapshot.
func (s *session) dropOwn(c *candidate.Candidate) {
	for p := range c.Files {
		if s.isOwn(p) {
			delete(c.Files, p)
		}
	}
	c.Deleted = slices.DeleteFunc(c.Deleted, s.isOwn)
}

// planExtra loads the candidates saved in --candidates folders: one work
// per entry (NAME.patch, NAME/, FILE.jsonl) that changed and still exists.
func (s *session) planExtra(at time.Time, paths []string) []*work {
	type entry struct {
		dir, path string
		trigger   []string
	}
	var entries []*entry
	byPath := map[string]*entry{}
	for _, p := range paths {
		for _, dir := range s.extra {
			rel, err := filepath.Rel(dir, p)
			if err != nil || !filepath.IsLocal(rel) {
				continue
			}
			top := filepath.Join(dir, strings.Split(filepath.ToSlash(rel), "/")[0])
			e := byPath[top]
			if e == nil {
				e = &entry{dir: dir, path: top}
				byPath[top] = e
				entries = append(entries, e)
			}
			e.trigger = append(e.trigger, filepath.ToSlash(filepath.Join(filepath.Base(dir), rel)))
			break
		}
	}
	var out []*work
	for _, e := range entries {
		if strings.HasPrefix(filepath.Base(e.path), ".") {
			continue // hidden, as candidate.Load has it
		}
		if _, err := os.Stat(e.path); err != nil {
			continue // deleted: nothing to evaluate
		}
		w := &work{key: e.path, time: at, trigger: e.trigger, head: s.head}
		cands, err := loadEntry(e.dir, e.path)
		switch {
		case err != nil:
			w.skip = err.Error()
		case len(cands) == 0:
			continue // not a candidate: a stray file
		default:
			key := contentKey(s.head, cands...)
			if s.last[w.key] == key {
				continue
			}
			s.last[w.key] = key
			w.cands = cands
			for _, c := range cands {
				w.files = append(w.files, c.Paths()...)
			}
		}
		out = append(out, w)
	}
	return out
}

// loadEntry loads the candidates of one entry of the candidates folder dir:
// a patch or JSONL file on its own, or a NAME/ folder of whole files, found
// by loading dir and keeping the candidate of that name.
func loadEntry(dir, path string) ([]candidate.Candidate, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read candidate: %w", err)
	}
	if !fi.IsDir() {
		switch strings.ToLower(filepath.Ext(path)) {
		case ".patch", ".diff", ".jsonl":
			return candidate.Load(path)
		}
		return nil, nil
	}
	all, err := candidate.Load(dir)
	if err != nil {
		return nil, err
	}
	name := filepath.Base(path)
	for _, c := range all {
		if c.Name == name {
			return []candidate.Candidate{c}, nil
		}
	}
	return nil, nil
}

// contentKey identifies what would be evaluated: equal keys, equal work.
func contentKey(head string, cands ...candidate.Candidate) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00", head)
	for _, c := range cands {
		fmt.Fprintf(h, "%s\x00%s\x00", c.Name, c.Digest())
	}
	return hex.EncodeToString(h.Sum(nil))
}

// plural is "1 slot" or "2 slots".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
