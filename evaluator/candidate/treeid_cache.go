package candidate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// lastBase keeps what every TreeID of one job repeats: the repository's
// paths (git rev-parse) and base's index, as git read-tree wrote it. A job
// resolves all its candidates against one base, so the first TreeID pays
// for both and the others copy the index. On a tree of 20k files that saves
// two git processes and a 1.8 MB index build per candidate. Only a base
// named by its full object id is kept, since a ref can move.
var lastBase struct {
	mu    sync.Mutex
	key   string   // repoDir NUL base
	lines []string // repoPaths
	index []byte
}

// newBaseScratch makes a scratch whose index holds base's tree.
func newBaseScratch(ctx context.Context, repoDir, base string) (*scratch, error) {
	key := repoDir + "\x00" + base
	keep := isObjectID(base)
	if keep {
		lastBase.mu.Lock()
		lines, index, hit := lastBase.lines, lastBase.index, lastBase.key == key
		lastBase.mu.Unlock()
		if hit {
			s, err := scratchFor(lines)
			if err != nil {
				return nil, err
			}
			if err := os.WriteFile(filepath.Join(s.dir, "index"), index, 0o600); err != nil {
				s.close()
				return nil, fmt.Errorf("make scratch index: %w", err)
			}
			return s, nil
		}
	}
	lines, err := repoPaths(ctx, repoDir)
	if err != nil {
		return nil, err
	}
	s, err := scratchFor(lines)
	if err != nil {
		return nil, err
	}
	if _, stderr, err := s.git(ctx, nil, "read-tree", base+"^{tree}"); err != nil {
		s.close()
		return nil, fmt.Errorf("read base %s: %w: %s", base, err, stderr)
	}
	if keep {
		if index, err := os.ReadFile(filepath.Join(s.dir, "index")); err == nil {
			lastBase.mu.Lock()
			lastBase.key, lastBase.lines, lastBase.index = key, lines, index
			lastBase.mu.Unlock()
		}
	}
	return s, nil
}

// isObjectID reports whether s is a full SHA-1 or SHA-256 object id.
func isObjectID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
