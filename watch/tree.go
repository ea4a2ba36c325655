package watch

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/optimizer-dev/optimizer/gitcmd"
)

// NewSession is a session of r's working tree against its HEAD.
//   - Root is r's root with symbolic links resolved, as git reports paths.
//   - Head is HEAD.
//   - Skip holds the optimizer's folder in r (the slots are under it).
//   - Artifacts is r's.
//
// The caller sets the rest before Run, and may add to Extra and Skip.
func NewSession(ctx context.Context, r gitcmd.Repo) (*Session, error) {
	head, err := r.Resolve(ctx, "HEAD")
	if err != nil {
		return nil, fmt.Errorf("resolve HEAD: %w (watch needs a commit to compare against)", err)
	}
	root := r.Root
	if real, err := filepath.EvalSymlinks(r.Root); err == nil {
		root = real
	}
	return &Session{Root: root, Head: head, Skip: []string{r.OptimizerDir()}, Artifacts: r.ArtifactsDir()}, nil
}

// OwnFiles is an Own for s. It owns config (the configuration file's name),
// and anything named .optimizer* at the root. It owns a store at db ("" is
// none) with its -wal, -shm and -journal files, and what is under Extra and
// Skip. Call it once Extra and Skip are complete.
func (s *Session) OwnFiles(config, db string) func(path string) bool {
	var store []string
	if db != "" {
		for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
			store = append(store, db+suffix)
		}
	}
	own := Rel(s.Root, slices.Concat(store, s.Extra, s.Skip))
	return func(p string) bool { return IsOwn(p, config, own) }
}
