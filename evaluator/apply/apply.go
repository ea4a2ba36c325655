// Package apply keeps each candidate's change, sealed, and installs the one
// the user chooses in the user's working tree: the only code that writes
// there (optimizer apply).
package apply

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/result"
	"github.com/optimizer-dev/optimizer/store"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// ArtifactsDir is the directory under which job j kept its artifacts: the
// one the store recorded (Options.Artifacts), else fallback.
func ArtifactsDir(j store.Job, fallback string) string {
	if j.Artifacts == "" {
		return fallback
	}
	return j.Artifacts
}

// ChooseCandidate is the candidate of job j to apply: name, or the job's
// winner for "". A named candidate whose verdict is failed or pending is
// refused unless force; then note says what was forced.
func ChooseCandidate(ctx context.Context, db *store.DB, j store.Job, name string, force bool) (chosen, note string, err error) {
	if name == "" {
		if j.Winner == "" {
			return "", "", fmt.Errorf("job %s has no winner: name the candidate to apply (see optimizer show %s)", j.ID, j.ID)
		}
		return j.Winner, "", nil
	}
	rows, err := db.Candidates(ctx, j.ID)
	if err != nil {
		return "", "", fmt.Errorf("read candidates of job %s: %w", j.ID, err)
	}
	for _, row := range rows {
		if row.Name != name {
			continue
		}
		if v := result.Verdict(row.Verdict); v == result.VerdictFailed || v == result.VerdictPending {
			if !force {
				return "", "", fmt.Errorf("%s's verdict in job %s is %s: pass --force to apply it anyway", name, j.ID, v)
			}
			note = fmt.Sprintf("%s's verdict is %s", name, v)
		}
		return name, note, nil
	}
	return "", "", fmt.Errorf("job %s has no candidate %q", j.ID, name)
}

// KeptChange is the change job j kept for candidate name under its
// artifacts, <artifacts>/<job>/candidates/*.json, as the job wrote it when
// it started (the evaluator's saveChanges). A change whose seal does not check out
// under this user's key (seal.go) is refused: it is not what the job
// loaded.
func KeptChange(j store.Job, artifacts, name string) (candidate.Candidate, error) {
	dir := filepath.Join(artifacts, j.ID, "candidates")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		return candidate.Candidate{}, fmt.Errorf("job %s kept no candidate changes in %s", j.ID, dir)
	}
	key, err := Key(false)
	if err != nil {
		return candidate.Candidate{}, fmt.Errorf("check the seal of job %s's kept changes: %w", j.ID, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return candidate.Candidate{}, fmt.Errorf("read kept change: %w", err)
		}
		var ch Change
		if err := json.Unmarshal(b, &ch); err != nil {
			return candidate.Candidate{}, fmt.Errorf("read kept change %s: %w", f, err)
		}
		if ch.Name != name {
			continue
		}
		if err := checkSeal(key, j.ID, ch); err != nil {
			return candidate.Candidate{}, fmt.Errorf("the kept change of %s in job %s (%s): %w", name, j.ID, f, err)
		}
		c := candidate.Candidate{Name: ch.Name, Patch: []byte(ch.Patch), Deleted: ch.Deleted}
		if len(ch.Files) > 0 {
			c.Files = make(map[string][]byte, len(ch.Files))
			for p, s := range ch.Files {
				c.Files[p] = []byte(s)
			}
		}
		return c, nil
	}
	return candidate.Candidate{}, fmt.Errorf("job %s kept no change for %s in %s", j.ID, name, dir)
}

// VerifyKept refuses a kept change whose content id is not the one job j
// recorded for the candidate. Then the kept file was edited after the job,
// by a candidate's test writing into the artifacts, say. Applying it would
// install code that was never evaluated. repo is the repository's root.
func VerifyKept(ctx context.Context, db *store.DB, j store.Job, repo string, c candidate.Candidate) error {
	rows, err := db.Candidates(ctx, j.ID)
	if err != nil {
		return fmt.Errorf("read candidates of job %s: %w", j.ID, err)
	}
	want := ""
	for _, row := range rows {
		if row.Name == c.Name {
			want = row.ContentID
		}
	}
	if want == "" {
		return fmt.Errorf("job %s recorded no content id for %s: nothing to check its kept change against, so it is not applied", j.ID, c.Name)
	}
	got, err := candidate.TreeID(ctx, repo, j.Base, c)
	if err != nil {
		return fmt.Errorf("compute the content id of %s's kept change: %w", c.Name, err)
	}
	if got != want {
		return fmt.Errorf("the kept change of %s is not what job %s evaluated (content id %s, recorded %s): it was altered after the job, so it is not applied",
			c.Name, j.ID, shortID(got), shortID(want))
	}
	return nil
}

func shortID(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// ToTree writes c's change into the working tree at root. A patch goes
// through git apply: all of it or nothing, the index untouched. Whole files
// and deletions are written as a slot takes them (worktreepool.WriteFiles:
// through os.Root, deletions first). It refuses when the tree or the index
// has changes to the paths c changes; an error past that check names c. It
// is the only code that writes to a user's working tree.
func ToTree(ctx context.Context, root string, c candidate.Candidate) error {
	if err := CheckClean(ctx, root, c.Paths()); err != nil {
		return err
	}
	var err error
	if len(c.Patch) > 0 {
		_, err = gitcmd.Run(ctx, gitcmd.Cmd{Dir: root, Args: []string{"apply", "--whitespace=nowarn", "-"},
			Stdin: bytes.NewReader(c.Patch), ReadOnly: true})
	} else {
		err = worktreepool.WriteFiles(root, c.Files, c.Deleted)
	}
	if err != nil {
		return fmt.Errorf("apply %s: %w", c.Name, err)
	}
	return nil
}

// CheckClean refuses when the working tree at root, or its index, has
// changes to paths.
func CheckClean(ctx context.Context, root string, paths []string) error {
	if len(paths) == 0 {
		return errors.New("the candidate changes no files")
	}
	args := append([]string{"status", "--porcelain", "-z", "--no-renames", "--untracked-files=all", "--"}, paths...)
	out, err := gitcmd.Run(ctx, gitcmd.Cmd{Dir: root, Args: args, ReadOnly: true})
	if err != nil {
		return err
	}
	var dirty []string
	for rec := range strings.SplitSeq(string(out), "\x00") {
		if len(rec) > 3 { // "XY path"
			dirty = append(dirty, rec[3:])
		}
	}
	if len(dirty) > 0 {
		return fmt.Errorf("the working tree has changes to %s: commit or stash them first", strings.Join(dirty, ", "))
	}
	return nil
}
