package worktreepool

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
)

// slotStatus is what git status says of a slot.
type slotStatus struct {
	head    string   // HEAD's commit
	index   bool     // the index differs from HEAD, or has conflicts
	changed []string // tracked files changed or deleted in the work tree
	extra   []string // untracked and ignored paths (directories end in /)
}

func (st slotStatus) clean() bool { return !st.index && len(st.changed) == 0 && len(st.extra) == 0 }

// status reads the slot's state in one git status, of the whole tree or of
// the given paths (each a file or a subtree) only.
func (s *Slot) status(ctx context.Context, paths ...string) (slotStatus, error) {
	args := []string{"--literal-pathspecs", "status", "--porcelain=v2", "-z", "--branch",
		"--untracked-files=normal", "--ignored=matching", "--no-renames"}
	if len(paths) > 0 {
		args = append(append(args, "--"), paths...)
	}
	out, err := s.git(ctx, nil, args...)
	if err != nil {
		return slotStatus{}, fmt.Errorf("read slot %s: %w", s.name, err)
	}
	return parseStatus(out)
}

// parseStatus reads git status --porcelain=v2 -z --branch output.
func parseStatus(out []byte) (slotStatus, error) {
	var st slotStatus
	for rec := range bytes.SplitSeq(out, []byte{0}) {
		line := string(rec)
		switch {
		case line == "":
		case strings.HasPrefix(line, "# branch.oid "):
			st.head = strings.TrimPrefix(line, "# branch.oid ")
		case strings.HasPrefix(line, "# "):
		case strings.HasPrefix(line, "? "), strings.HasPrefix(line, "! "):
			st.extra = append(st.extra, line[2:])
		case strings.HasPrefix(line, "1 "):
			f := strings.SplitN(line, " ", 9)
			if len(f) != 9 || len(f[1]) != 2 {
				return st, fmt.Errorf("parse git status: %q", line)
			}
			if f[1][0] != '.' {
				st.index = true
			}
			if f[1][1] != '.' {
				st.changed = append(st.changed, f[8])
			}
		default: // "2 " (renames, off here) and "u " (conflicts): only an index in trouble has them
			st.index = true
		}
	}
	if st.head == "" {
		return st, errors.New("parse git status: no HEAD")
	}
	return st, nil
}
