package gitcmd

import (
	"bytes"
	"context"
	"slices"
	"strconv"
	"strings"
)

// MaxHistory bounds the commits FirstParentOrder walks.
const MaxHistory = 10000

// A Commit is a commit and the first line of its message.
type Commit struct {
	Hash, Subject string
}

// FirstParentOrder returns those of commits that the repository has, with
// their subjects, oldest first, in the order of their first-parent
// histories. It runs git log --first-parent --topo-order from all of them,
// so that each comes after the commits it descends from by first parents.
// Only full lower-case hexadecimal object names are asked about, so that
// none can be read as an option. The walk stops after MaxHistory commits,
// and commits it did not reach are left out.
func (r Repo) FirstParentOrder(ctx context.Context, commits []string) ([]Commit, error) {
	var names []string
	seen := map[string]bool{}
	for _, c := range commits {
		if isObjectName(c) && !seen[c] {
			seen[c] = true
			names = append(names, c)
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	// git log stops at a name it does not have: ask which are commits first.
	out, err := Run(ctx, Cmd{Dir: r.Root, ReadOnly: true, Stdin: strings.NewReader(strings.Join(names, "\n") + "\n"),
		Args: []string{"cat-file", "--batch-check=%(objectname) %(objecttype)"}})
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	var in strings.Builder
	for line := range bytes.Lines(out) {
		if name, typ, _ := strings.Cut(strings.TrimSpace(string(line)), " "); typ == "commit" && seen[name] {
			want[name] = true
			in.WriteString(name + "\n")
		}
	}
	if len(want) == 0 {
		return nil, nil
	}
	out, err = Run(ctx, Cmd{Dir: r.Root, ReadOnly: true, Stdin: strings.NewReader(in.String()),
		Args: []string{"log", "--stdin", "--first-parent", "--topo-order", "--no-color",
			"--max-count=" + strconv.Itoa(MaxHistory), "--format=%H%x00%s"}})
	if err != nil {
		return nil, err
	}
	var order []Commit
	for line := range bytes.Lines(out) {
		hash, subject, ok := strings.Cut(strings.TrimRight(string(line), "\n"), "\x00")
		if ok && want[hash] {
			order = append(order, Commit{Hash: hash, Subject: subject})
		}
	}
	slices.Reverse(order)
	return order, nil
}

// isObjectName reports whether s is a full SHA-1 or SHA-256 object name
// in lower-case hexadecimal: nothing git could read as an option.
func isObjectName(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
