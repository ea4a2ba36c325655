package resultcache

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/optimizer-dev/optimizer/profiler"
)

// Profile is a winner's Go profile as the cache keeps it: the summary and
// the raw profiles it was made from.
type Profile struct {
	Summary *profiler.Summary `json:"summary"`
	Files   map[string]string `json:"files"` // role (base, cand, base-mem, cand-mem) -> path
}

// Usable reports whether p has a summary and both sides' CPU profiles.
func (p Profile) Usable() bool {
	return p.Summary != nil && p.Files["base"] != "" && p.Files["cand"] != ""
}

// CopyTo copies p's raw profiles into dir, for the candidate whose files
// are named with prefix to where p's were named with from. It returns the
// summary with the copies' paths, and the copies by role. An error means a
// raw profile is gone: profile anew.
func (p Profile) CopyTo(dir, from, to string) (*profiler.Summary, map[string]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	moved := map[string]string{}
	byRole := map[string]string{}
	for role, src := range p.Files {
		dst := filepath.Join(dir, filepath.Base(src))
		if role == "cand" || role == "cand-mem" {
			dst = filepath.Join(dir, to+strings.TrimPrefix(filepath.Base(src), from))
		}
		b, err := os.ReadFile(src)
		if err == nil {
			err = os.WriteFile(dst, b, 0o644)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("copy the %s profile: %w", role, err)
		}
		moved[src], byRole[role] = dst, dst
	}
	sum := *p.Summary
	sum.Files = make([]string, len(p.Summary.Files))
	for i, f := range p.Summary.Files {
		sum.Files[i] = f
		if m, ok := moved[f]; ok {
			sum.Files[i] = m
		}
	}
	return &sum, byRole, nil
}
