package candidate

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Change is a candidate's difference from base, as git computes it.
type Change struct {
	// Patch is "git diff -U0" from base to the candidate: every hunk with
	// no context, renames as a deletion and an addition.
	Patch []byte
	// Paths are the files the candidate changes, sorted.
	Paths []string
	// Base and Cand hold the file at base and in the candidate, for each of
	// Paths that Diff's want selects. A file missing from one side (added,
	// deleted) is missing from its map.
	Base, Cand map[string][]byte
}

// Diff lays c over base as TreeID does, in a scratch index that touches
// nothing of the repository. It returns what c changes, with both versions
// of the changed files that want selects (nil: none). Its errors are
// TreeID's.
func Diff(ctx context.Context, repoDir, base string, c Candidate, want func(path string) bool) (Change, error) {
	s, err := laid(ctx, repoDir, base, c)
	if err != nil {
		return Change{}, err
	}
	defer s.close()
	// Prefixes, colour and renames are set here, whatever the user's
	// configuration says.
	diff := []string{"diff", "--cached", "--no-color", "--no-ext-diff", "--no-textconv", "--no-renames", "--no-relative"}
	names, stderr, err := s.git(ctx, nil, append(diff, "--name-only", "-z", base, "--")...)
	if err != nil {
		return Change{}, fmt.Errorf("diff %s: %w: %s", c.Name, err, stderr)
	}
	patch, stderr, err := s.git(ctx, nil, append(diff, "-U0", "--src-prefix=a/", "--dst-prefix=b/", base, "--")...)
	if err != nil {
		return Change{}, fmt.Errorf("diff %s: %w: %s", c.Name, err, stderr)
	}
	ch := Change{Patch: patch, Base: map[string][]byte{}, Cand: map[string][]byte{}}
	var (
		in    bytes.Buffer
		asked []string
	)
	for _, p := range strings.Split(strings.TrimRight(string(names), "\x00"), "\x00") {
		if p == "" {
			continue
		}
		ch.Paths = append(ch.Paths, p)
		if want != nil && want(p) && !strings.ContainsAny(p, "\n") {
			fmt.Fprintf(&in, "%s:%s\n:%s\n", base, p, p)
			asked = append(asked, p)
		}
	}
	if in.Len() == 0 {
		return ch, nil
	}
	out, stderr, err := s.git(ctx, in.Bytes(), "cat-file", "--batch")
	if err != nil {
		return Change{}, fmt.Errorf("read the files of %s: %w: %s", c.Name, err, stderr)
	}
	if err := readBatch(out, asked, ch); err != nil {
		return Change{}, fmt.Errorf("read the files of %s: %w", c.Name, err)
	}
	return ch, nil
}

// readBatch reads git cat-file --batch's answers to Diff's questions, a
// pair (BASE:PATH, :PATH) for each of asked, into ch.
func readBatch(out []byte, asked []string, ch Change) error {
	r := bufio.NewReader(bytes.NewReader(out))
	for _, p := range asked {
		for _, m := range []map[string][]byte{ch.Base, ch.Cand} {
			head, err := r.ReadString('\n')
			if err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			if strings.HasSuffix(head, " missing\n") {
				continue
			}
			f := strings.Fields(head)
			size, err := 0, error(nil)
			if len(f) == 3 {
				size, err = strconv.Atoi(f[2])
			}
			if len(f) != 3 || err != nil || size < 0 {
				return fmt.Errorf("%s: unexpected answer %q", p, head)
			}
			b := make([]byte, size+1) // the content and its newline
			if _, err := io.ReadFull(r, b); err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			m[p] = b[:size]
		}
	}
	return nil
}
