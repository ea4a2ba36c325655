package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/report"
	"github.com/optimizer-dev/optimizer/store"
)

// applyOptions are the flags and arguments of optimizer apply.
type applyOptions struct {
	storeOptions
	Job       string // "" is the latest job
	Candidate string // "" is the job's winner
	Force     bool   // apply a candidate that failed or never finished
}

func newApplyCmd(stdout, stderr io.Writer) *cobra.Command {
	var o applyOptions
	cmd := &cobra.Command{
		Use:   "apply [JOB [CANDIDATE]]",
		Short: "Apply a job's winner, or a named candidate, to the working tree",
		Long: `Apply the winner of JOB, or the candidate named, to the working tree. JOB is
a job id or a unique prefix of one; without it, the latest job, as for show.
This is the only command that changes the working tree. It refuses when the
working tree has changes to the files the candidate changes; the index, refs
and stash are left alone. A candidate that failed, or never finished, is
applied only with --force.`,
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				o.Job = args[0]
			}
			if len(args) == 2 {
				o.Candidate = args[1]
			}
			return apply(cmd.Context(), o, stdout, stderr)
		},
	}
	o.register(cmd.Flags())
	cmd.Flags().BoolVar(&o.Force, "force", false, "apply a candidate whose verdict is failed or pending")
	return cmd
}

// apply writes a candidate's change, as the job kept it, into the user's
// working tree.
func apply(ctx context.Context, o applyOptions, stdout, stderr io.Writer) error {
	db, r, err := o.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	j, err := findJob(ctx, db, o.Job)
	if err != nil {
		return err
	}
	name, err := chooseCandidate(ctx, db, j, o.Candidate, o.Force, stderr)
	if err != nil {
		return err
	}
	c, err := keptChange(j, r, name)
	if err != nil {
		return err
	}
	if err := checkContentID(ctx, db, j, r, c); err != nil {
		return err
	}
	paths := c.Paths()
	if err := checkClean(ctx, r.Root, paths); err != nil {
		return err
	}
	if head, err := r.resolve(ctx, "HEAD"); err == nil && head != j.Base {
		fmt.Fprintf(stderr, "optimizer: note: HEAD is %s, the job's base was %s\n", report.ShortHash(head), report.ShortHash(j.Base))
	}
	if len(c.Patch) > 0 {
		err = applyPatch(ctx, r.Root, c.Patch)
	} else {
		err = writeFiles(r.Root, c.Files, c.Deleted)
	}
	if err != nil {
		return fmt.Errorf("apply %s: %w", name, err)
	}
	fmt.Fprintf(stdout, "applied %s from job %s to %s: %s\n", name, j.ID, r.Root, strings.Join(paths, ", "))
	return nil
}

// chooseCandidate returns the named candidate, or the job's winner.
func chooseCandidate(ctx context.Context, db *store.DB, j store.Job, name string, force bool, stderr io.Writer) (string, error) {
	if name == "" {
		if j.Winner == "" {
			return "", fmt.Errorf("job %s has no winner: name the candidate to apply (see optimizer show %s)", j.ID, j.ID)
		}
		return j.Winner, nil
	}
	rows, err := db.Candidates(ctx, j.ID)
	if err != nil {
		return "", fmt.Errorf("read candidates of job %s: %w", j.ID, err)
	}
	for _, row := range rows {
		if row.Name != name {
			continue
		}
		if v := evaluator.Verdict(row.Verdict); v == evaluator.VerdictFailed || v == evaluator.VerdictPending {
			if !force {
				return "", fmt.Errorf("%s's verdict in job %s is %s: pass --force to apply it anyway", name, j.ID, v)
			}
			fmt.Fprintf(stderr, "optimizer: note: %s's verdict is %s\n", name, v)
		}
		return name, nil
	}
	return "", fmt.Errorf("job %s has no candidate %q", j.ID, name)
}

// keptChange is the change the job kept for a candidate under its artifacts:
// <artifacts>/<job>/candidates/*.json, written by the evaluator.
func keptChange(j store.Job, r repo, name string) (candidate.Candidate, error) {
	parent := readJobConfig(j.Config).Artifacts
	if parent == "" {
		parent = r.artifactsDir()
	}
	dir := filepath.Join(parent, j.ID, "candidates")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if j.Kind == "watch" && len(files) == 0 {
		if _, serr := os.Stat(filepath.Join(parent, j.ID)); errors.Is(serr, os.ErrNotExist) {
			return candidate.Candidate{}, fmt.Errorf("job %s kept no candidate changes: its artifacts (%s) were removed, as watch keeps them only for evaluations with a winner and the last %d others", j.ID, filepath.Join(parent, j.ID), defaultKeptArtifacts)
		}
	}
	if err != nil || len(files) == 0 {
		return candidate.Candidate{}, fmt.Errorf("job %s kept no candidate changes in %s", j.ID, dir)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return candidate.Candidate{}, fmt.Errorf("read kept change: %w", err)
		}
		var ch struct {
			Name    string            `json:"name"`
			Patch   string            `json:"patch"`
			Files   map[string]string `json:"files"`
			Deleted []string          `json:"deleted"`
		}
		if err := json.Unmarshal(b, &ch); err != nil {
			return candidate.Candidate{}, fmt.Errorf("read kept change %s: %w", f, err)
		}
		if ch.Name != name {
			continue
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

// checkContentID refuses a kept change whose content id is not the one the
// job recorded for the candidate: the kept file was edited after the job
// (by a candidate's test, say, writing into the artifacts), and applying it
// would install code that was never evaluated.
func checkContentID(ctx context.Context, db *store.DB, j store.Job, r repo, c candidate.Candidate) error {
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
	got, err := candidate.TreeID(ctx, r.Root, j.Base, c)
	if err != nil {
		return fmt.Errorf("compute the content id of %s's kept change: %w", c.Name, err)
	}
	if got != want {
		return fmt.Errorf("the kept change of %s is not what job %s evaluated (content id %s, recorded %s): it was altered after the job, so it is not applied", c.Name, j.ID, report.ShortHash(got), report.ShortHash(want))
	}
	return nil
}

// checkClean refuses when the working tree or index has changes to paths.
func checkClean(ctx context.Context, root string, paths []string) error {
	if len(paths) == 0 {
		return errors.New("the candidate changes no files")
	}
	args := append([]string{"status", "--porcelain", "-z", "--no-renames", "--untracked-files=all", "--"}, paths...)
	out, err := gitOutput(ctx, root, args...)
	if err != nil {
		return err
	}
	var dirty []string
	for rec := range strings.SplitSeq(out, "\x00") {
		// "XY path", though gitOutput trims a leading space off the first.
		if len(rec) > 3 {
			dirty = append(dirty, strings.TrimLeft(rec[2:], " "))
		}
	}
	if len(dirty) > 0 {
		return fmt.Errorf("the working tree has changes to %s: commit or stash them first", strings.Join(dirty, ", "))
	}
	return nil
}

// applyPatch applies a patch to the working tree (not the index) with git
// apply, which applies all of it or nothing.
func applyPatch(ctx context.Context, root string, patch []byte) error {
	_, err := gitcmd.Run(ctx, gitcmd.Cmd{Dir: root, Args: []string{"apply", "--whitespace=nowarn", "-"},
		Stdin: bytes.NewReader(patch), ReadOnly: true})
	return err
}

// writeFiles writes whole files and deletes files through os.Root, so that
// no path escapes the working tree.
func writeFiles(root string, files map[string][]byte, deleted []string) error {
	for p := range files {
		if err := candidate.ValidatePath(p); err != nil {
			return err
		}
	}
	for _, p := range deleted {
		if err := candidate.ValidatePath(p); err != nil {
			return err
		}
	}
	rt, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer rt.Close()
	for p, data := range files {
		if dir := path.Dir(p); dir != "." {
			if err := rt.MkdirAll(filepath.FromSlash(dir), 0o755); err != nil {
				return err
			}
		}
		if err := rt.WriteFile(filepath.FromSlash(p), data, 0o644); err != nil {
			return err
		}
	}
	for _, p := range deleted {
		if err := rt.Remove(filepath.FromSlash(p)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}
