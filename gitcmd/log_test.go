package gitcmd

import (
	"context"
	"strings"
	"testing"
)

// TestRepo_FirstParentOrder: the commits asked about come back oldest first
// along first parents, with their subjects. A commit the repository lacks
// and a name git could take for an option are left out.
func TestRepo_FirstParentOrder(t *testing.T) {
	ctx := context.Background()
	dir := newTestRepo(t) // "first"
	git := func(args ...string) string {
		t.Helper()
		out, err := Run(ctx, Cmd{Dir: dir, Args: append([]string{"-c", "user.name=t", "-c", "user.email=t@example.invalid"}, args...)})
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	first := git("rev-parse", "HEAD")
	git("commit", "-q", "--allow-empty", "-m", "second")
	git("checkout", "-q", "-b", "side")
	git("commit", "-q", "--allow-empty", "-m", "on the side")
	side := git("rev-parse", "HEAD")
	git("checkout", "-q", "main")
	git("merge", "-q", "--no-ff", "-m", "merge side", "side")
	merge := git("rev-parse", "HEAD")
	git("commit", "-q", "--allow-empty", "-m", "third")
	third := git("rev-parse", "HEAD")

	r := Repo{Root: dir}
	got, err := r.FirstParentOrder(ctx, []string{third, first, merge, first, strings.Repeat("0", 40), "--all", third[:12]})
	if err != nil {
		t.Fatal(err)
	}
	want := []Commit{{first, "first"}, {merge, "merge side"}, {third, "third"}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("commit %d is %v, want %v", i, got[i], want[i])
		}
	}

	// A commit off the first-parent line comes after its own first parents.
	got, err = r.FirstParentOrder(ctx, []string{side, first})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Hash != first || got[1] != (Commit{side, "on the side"}) {
		t.Errorf("got %v, want first, then the side commit", got)
	}

	if got, err := r.FirstParentOrder(ctx, []string{"--all"}); err != nil || len(got) != 0 {
		t.Errorf("only an option: %v, %v; want nothing asked of git", got, err)
	}
}
