package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Defaults for Options.
const (
	DefaultQuiet   = 300 * time.Millisecond
	DefaultMaxWait = 3 * time.Second
)

// Options configure a Watcher.
type Options struct {
	Root    string        // the working tree's root
	Extra   []string      // more directories to watch, e.g. a candidates folder
	Skip    []string      // absolute directories never watched, e.g. the slots
	Quiet   time.Duration // trailing debounce
	MaxWait time.Duration // cap on the total wait once a change is seen
	Logger  *slog.Logger
}

// Change is one settled burst of events.
type Change struct {
	Paths    []string // changed paths, relative to Root (or absolute for Extra), sorted
	Rescan   bool     // the event queue overflowed: anything may have changed
	Time     time.Time
	Extra    bool // some path is under an Extra directory
	GitState bool // HEAD, the index or refs moved
}

// Watcher watches a working tree. Run owns its goroutine; Close is not
// needed after Run returns.
type Watcher struct {
	opts    Options
	fsw     *fsnotify.Watcher
	log     *slog.Logger
	gitDir  string
	ignored map[string]bool // git-ignored directories found at start, absolute
	walked  bool            // the first walk is done: ask git about new directories
}

// New walks the tree and watches every directory in it.
func New(ctx context.Context, opts Options) (*Watcher, error) {
	if opts.Quiet <= 0 {
		opts.Quiet = DefaultQuiet
	}
	if opts.MaxWait <= 0 {
		opts.MaxWait = DefaultMaxWait
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, err
	}
	opts.Root = root
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("start watcher: %w", err)
	}
	w := &Watcher{opts: opts, fsw: fsw, log: opts.Logger.With("component", "watch"), ignored: ignoredDirs(ctx, root)}
	if w.gitDir = gitDir(ctx, root); w.gitDir != "" {
		if err := fsw.Add(w.gitDir); err != nil {
			w.log.Warn("watch git dir", "err", err)
		}
	}
	for _, d := range append([]string{root}, opts.Extra...) {
		if err := w.addTree(ctx, d); err != nil {
			fsw.Close()
			return nil, err
		}
	}
	w.walked = true
	return w, nil
}

// addTree watches dir and every directory under it that is not skipped.
func (w *Watcher) addTree(ctx context.Context, dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return fmt.Errorf("watch %s: %w", dir, err)
			}
			return nil // vanished while walking
		}
		if !d.IsDir() {
			return nil
		}
		if p != dir && w.skipDir(ctx, p) {
			return filepath.SkipDir
		}
		if err := w.fsw.Add(p); err != nil {
			return fmt.Errorf("watch %s: %w", p, err)
		}
		return nil
	})
}

func (w *Watcher) skipDir(ctx context.Context, p string) bool {
	base := filepath.Base(p)
	if base == ".git" || base == "node_modules" || strings.HasPrefix(base, ".optimizer") {
		return true
	}
	for _, s := range w.opts.Skip {
		if p == s || strings.HasPrefix(p, s+string(filepath.Separator)) {
			return true
		}
	}
	if w.underExtra(p) {
		return false // the user asked for it: git's ignore rules don't apply
	}
	if w.ignored[p] {
		return true
	}
	return w.walked && ignoredByGit(ctx, w.opts.Root, p)
}

// Ignored reports whether a file name is an editor's or tool's temporary,
// swap or backup file: never a trigger, never part of a snapshot.
func Ignored(name string) bool {
	base := filepath.Base(name)
	switch {
	case base == "4913", // vim's write test
		strings.HasSuffix(base, "~"),
		strings.HasSuffix(base, ".swp"), strings.HasSuffix(base, ".swx"), strings.HasSuffix(base, ".swo"),
		strings.HasPrefix(base, ".#"),
		strings.HasPrefix(base, "#") && strings.HasSuffix(base, "#"),
		strings.HasSuffix(base, ".tmp"),
		strings.HasPrefix(base, ".goutputstream-"),
		strings.HasSuffix(base, ".kate-swp"),
		strings.HasSuffix(base, "___jb_tmp___"), strings.HasSuffix(base, "___jb_old___"), // JetBrains' safe write
		sedTemp(base),
		strings.Contains(base, ".sw") && strings.HasPrefix(base, "."): // .file.swp variants
		return true
	}
	return false
}

// sedTemp reports whether base is the temporary file that sed -i (GNU and
// busybox) writes beside the file it edits: "sed" and six characters from
// mkstemp, such as sedKsiRms. The six must hold a capital or a digit, so
// that a word such as "sediment" is not taken for one.
func sedTemp(base string) bool {
	rest, ok := strings.CutPrefix(base, "sed")
	if !ok || len(rest) != 6 {
		return false
	}
	mixed := false
	for _, r := range rest {
		switch {
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			mixed = true
		case r >= 'a' && r <= 'z':
		default:
			return false
		}
	}
	return mixed
}

// gitEvent reports whether an event in the git dir means HEAD, the index or
// a ref moved. Lock files count. A commit on a branch rewrites neither HEAD
// nor (when nothing was added) the index. But git takes HEAD.lock to write
// HEAD's reflog, and that is the only sign of it in the git dir.
func (w *Watcher) gitEvent(p string) bool {
	if w.gitDir == "" || filepath.Dir(p) != w.gitDir {
		return false
	}
	switch strings.TrimSuffix(filepath.Base(p), ".lock") {
	case "HEAD", "index", "packed-refs", "ORIG_HEAD":
		return true
	}
	return false
}

// Run sends a Change on out after every settled burst of events, until ctx
// is done. It closes the underlying watcher when it returns.
func (w *Watcher) Run(ctx context.Context, out chan<- Change) error {
	defer w.fsw.Close()
	var (
		pending  = map[string]bool{}
		rescan   bool
		gitState bool
		first    time.Time
		timer    = time.NewTimer(time.Hour)
	)
	timer.Stop()
	arm := func() {
		now := time.Now()
		if first.IsZero() {
			first = now
		}
		wait := w.opts.Quiet
		if left := w.opts.MaxWait - now.Sub(first); left < wait {
			wait = max(left, 0)
		}
		timer.Reset(wait)
	}
	for {
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return nil
			}
			if w.gitEvent(ev.Name) {
				gitState = true
				arm()
				continue
			}
			if w.gitDir != "" && filepath.Dir(ev.Name) == w.gitDir {
				continue // the rest of the git dir: not the working tree
			}
			if !w.relevant(ev) {
				continue
			}
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
					// A new directory: watch it, and count the files already
					// in it. A change lists files, not directories.
					if !w.skipDir(ctx, ev.Name) {
						w.addTree(ctx, ev.Name)
						filepath.WalkDir(ev.Name, func(p string, d fs.DirEntry, err error) error {
							if err == nil && !d.IsDir() && !Ignored(p) {
								pending[p] = true
							}
							return nil
						})
						arm()
					}
					continue
				}
			}
			pending[ev.Name] = true
			arm()
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return nil
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.log.Warn("event queue overflowed: rescanning")
				rescan = true
				for _, d := range append([]string{w.opts.Root}, w.opts.Extra...) {
					w.addTree(ctx, d)
				}
				arm()
				continue
			}
			w.log.Warn("watch", "err", err)
		case <-timer.C:
			ch := Change{Rescan: rescan, GitState: gitState, Time: time.Now()}
			for p := range pending {
				if w.underExtra(p) {
					ch.Extra = true
					ch.Paths = append(ch.Paths, p)
				} else if rel, err := filepath.Rel(w.opts.Root, p); err == nil {
					ch.Paths = append(ch.Paths, filepath.ToSlash(rel))
				}
			}
			slices.Sort(ch.Paths)
			pending, rescan, gitState, first = map[string]bool{}, false, false, time.Time{}
			select {
			case out <- ch:
			case <-ctx.Done():
				return nil
			}
		}
	}
}

// relevant drops events that cannot change a candidate.
func (w *Watcher) relevant(ev fsnotify.Event) bool {
	if ev.Op == fsnotify.Chmod || Ignored(ev.Name) {
		return false
	}
	dir := filepath.Dir(ev.Name)
	for d := dir; ; d = filepath.Dir(d) {
		if filepath.Base(d) == ".git" {
			return false
		}
		for _, s := range w.opts.Skip {
			if d == s {
				return false
			}
		}
		if d == w.opts.Root || d == filepath.Dir(d) {
			break
		}
	}
	return true
}

func (w *Watcher) underExtra(p string) bool {
	for _, e := range w.opts.Extra {
		if p == e || strings.HasPrefix(p, e+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
