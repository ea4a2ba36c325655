package watch

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
)

// plan turns a change into work: the working tree, when anything in it (or
// HEAD) changed, and each entry of an Extra folder saved.
func (s *Session) plan(ctx context.Context, st *state, ch Change) []*Work {
	var tree, extra []string
	for _, p := range ch.Paths {
		switch {
		case filepath.IsAbs(p):
			extra = append(extra, p)
		case !s.isOwn(p):
			tree = append(tree, p)
		}
	}
	var out []*Work
	if len(tree) > 0 || ch.GitState || ch.Rescan {
		ch.Paths = tree
		if w := s.planTree(ctx, st, ch, false); w != nil {
			out = append(out, w)
		}
	}
	return append(out, s.planExtra(st, ch.Time, extra)...)
}

func (s *Session) isOwn(p string) bool { return s.Own != nil && s.Own(p) }

// planTree snapshots the working tree now. It returns nil when the snapshot
// equals the last one planned, and work with skip set when there is nothing
// to evaluate. The initial flag marks the evaluation at start, which a
// clean tree skips quietly.
func (s *Session) planTree(ctx context.Context, st *state, ch Change, initial bool) *Work {
	w := &Work{key: "tree", time: ch.Time, trigger: ch.Paths}
	snap, err := Take(ctx, s.Root, TreeCandidate)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		w.skip = fmt.Sprintf("snapshot the working tree: %v", err)
		return w
	}
	s.dropOwn(&snap.Candidate)
	w.head, w.headMoved = snap.Head, snap.Head != st.head
	st.head = snap.Head
	key := contentKey(snap.Head, snap.Candidate)
	if st.last[w.key] == key {
		return nil
	}
	st.last[w.key] = key
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
	if quick := cmp.Or(s.QuickBudget, DefaultQuickBudget); s.BenchBudget > quick {
		w.budget = quick
	}
	if initial {
		w.trigger = w.files
	}
	return w
}

// dropOwn removes optimizer's own files from a snapshot.
func (s *Session) dropOwn(c *candidate.Candidate) {
	for p := range c.Files {
		if s.isOwn(p) {
			delete(c.Files, p)
		}
	}
	c.Deleted = slices.DeleteFunc(c.Deleted, s.isOwn)
}

// planExtra loads the candidates saved in Extra folders: one work per entry
// (NAME.patch, NAME/, FILE.jsonl) that changed and still exists.
func (s *Session) planExtra(st *state, at time.Time, paths []string) []*Work {
	type entry struct {
		dir, path string
		trigger   []string
	}
	var entries []*entry
	byPath := map[string]*entry{}
	for _, p := range paths {
		for _, dir := range s.Extra {
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
	var out []*Work
	for _, e := range entries {
		if strings.HasPrefix(filepath.Base(e.path), ".") {
			continue // hidden, as candidate.Load has it
		}
		if _, err := os.Stat(e.path); err != nil {
			continue // deleted: nothing to evaluate
		}
		w := &Work{key: e.path, time: at, trigger: e.trigger, head: st.head}
		cands, err := loadEntry(e.dir, e.path)
		switch {
		case err != nil:
			w.skip = err.Error()
		case len(cands) == 0:
			continue // not a candidate: a stray file
		default:
			key := contentKey(st.head, cands...)
			if st.last[w.key] == key {
				continue
			}
			st.last[w.key] = key
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
// a patch or JSONL file on its own, or a NAME/ folder of whole files. A
// folder's candidate is found by loading dir and keeping that name.
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
