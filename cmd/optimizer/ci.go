package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/report"
)

// The --fail-on gates of optimizer ci.
const (
	gateRegression = report.GateRegression
	gateMixed      = report.GateMixed
	gateAllocs     = report.GateAllocs
	gateNone       = report.GateNone
)

// ciOptions are the flags of optimizer ci: run's, plus the pull request's
// sides when no CI variables say them, the gate, the output directory and
// the job's time budget.
type ciOptions struct {
	runOptions
	Head   string
	FailOn []string
	Out    string
	Budget time.Duration
}

func newCICmd(stdout, stderr io.Writer) *cobra.Command {
	o := ciOptions{runOptions: defaultRunOptions(), FailOn: []string{gateRegression}, Out: "optimizer-ci"}
	o.Kind = "ci"
	o.Base = ""
	// A pull request's test edits are reviewed by people, and the comment
	// lists them: its head is judged with its own tests unless told not to.
	o.TrustTests = true
	cmd := &cobra.Command{
		Use:   "ci [flags]",
		Short: "Judge a pull request in CI: its head against the merge base, with a gate and a PR comment",
		Long: `optimizer ci finds a pull request's base and head in the CI job's environment
(GitHub Actions, then GitLab CI), evaluates the head as a candidate against
the merge base on this machine (plus any --candidates), and writes:

  <out>/comment.md     the Markdown for a sticky PR comment
  <out>/report.md      the full Markdown report
  <out>/report.json    the JSON report
  <out>/optimizer.db   the store (unless --db), with every raw sample
  <out>/artifacts/     the profiles
  $GITHUB_STEP_SUMMARY the comment, appended, on GitHub Actions

Exit status: 0 the gate passed; 1 error; 2 usage; 3 the performance gate
failed (--fail-on); 4 the head itself failed: its patch does not apply, it
does not build, its tests fail or time out, or its benchmarks error.`,
		Example: `  optimizer ci                                   # in a pull_request job
  optimizer ci --fail-on regression,allocs --budget 20m
  optimizer ci --base main --head my-branch      # anywhere, by hand`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.configure(cmd.Context(), cmd); err != nil {
				return err
			}
			if err := o.validateCI(); err != nil {
				return err
			}
			return runCI(cmd.Context(), o, os.Getenv, stdout, stderr)
		},
	}
	fs := cmd.Flags()
	o.register(fs)
	fs.Lookup("base").Usage = "the pull request's base, when no CI variables say it (with --head)"
	fs.Lookup("base").DefValue = ""
	fs.StringVar(&o.Head, "head", o.Head, "the pull request's head, when no CI variables say it (with --base)")
	fs.StringSliceVar(&o.FailOn, "fail-on", o.FailOn, "what fails the job with exit 3: regression, mixed, allocs, or none (comma-separated)")
	fs.StringVar(&o.Out, "out", o.Out, "directory for the comment, the reports, the store and the profiles: the artifact to upload")
	fs.DurationVar(&o.Budget, "budget", o.Budget, "time for the whole job; benchmarking stops when it is spent and the report names what was not settled (0: none)")
	return cmd
}

// validateCI checks ci's own flags.
func (o *ciOptions) validateCI() error {
	for _, g := range o.FailOn {
		if !slices.Contains([]string{gateRegression, gateMixed, gateAllocs, gateNone}, g) {
			return usageErrorf("--fail-on %q: want regression, mixed, allocs or none", g)
		}
	}
	if slices.Contains(o.FailOn, gateNone) && len(o.FailOn) > 1 {
		return usageErrorf("--fail-on none cannot be combined with other gates")
	}
	if o.Budget < 0 {
		return usageErrorf("--budget %v: must be positive, or 0 for none", o.Budget)
	}
	if o.Out == "" {
		return usageErrorf("--out: name a directory")
	}
	return nil
}

// runCI is optimizer ci. getenv reads the CI's variables.
func runCI(ctx context.Context, o ciOptions, getenv func(string) string, stdout, stderr io.Writer) error {
	start := time.Now()
	pr, err := detectPullRequest(getenv, o.Base, o.Head)
	if err != nil {
		return err
	}
	r, err := gitcmd.FindRepo(ctx, o.Repo)
	if err != nil {
		return err
	}
	mergeBase, head, err := resolveSides(ctx, r, pr)
	if err != nil {
		return err
	}
	plan, err := ciPlan(ctx, o, r, pr, mergeBase, head)
	if err != nil {
		return err
	}
	out, err := filepath.Abs(o.Out)
	if err == nil {
		err = os.MkdirAll(out, 0o755)
	}
	if err != nil {
		return fmt.Errorf("make --out %s: %w", o.Out, err)
	}
	plan.artifacts = filepath.Join(out, "artifacts")
	run := o.runOptions
	if run.DB == "" {
		run.DB = filepath.Join(out, "optimizer.db")
	}
	if o.Budget > 0 {
		plan.deadline = start.Add(o.Budget)
	}
	fmt.Fprintf(stderr, "optimizer ci: %shead %s (%s) against the merge base %s of %s\n",
		prLabel(pr), report.ShortHash(head), plan.cands[0].Name, report.ShortHash(mergeBase), firstNonEmpty(pr.BaseRef, report.ShortHash(pr.BaseSHA)))

	return executeJob(ctx, run, plan, stderr, func(rep *evaluator.Report, err error) error {
		if rep == nil {
			if err == nil {
				err = errors.New("no report")
			}
			return fmt.Errorf("evaluate: %w", err)
		}
		g := report.JudgeGate(rep, plan.cands[0].Name, o.FailOn)
		if werr := writeCIOutputs(out, pr, rep, g, stdout, o.Format); werr != nil && err == nil {
			err = werr
		}
		switch {
		case ctx.Err() != nil:
			return fmt.Errorf("%w: job %s is recorded as interrupted", errInterrupted, rep.Job)
		case err != nil:
			return fmt.Errorf("evaluate: %w", err)
		}
		if g.Passed() {
			fmt.Fprintf(stderr, "optimizer ci: %s\n", g.Line())
		}
		return gateErr(g) // run prints it

	})
}

// prLabel names the pull request for the log: "github #12: ", "gitlab
// !7: ", or "" when the flags named the sides.
func prLabel(pr pullRequest) string {
	switch {
	case pr.Provider == "flags":
		return ""
	case pr.Number == "":
		return pr.Provider + ": "
	case pr.Provider == "gitlab":
		return "gitlab !" + pr.Number + ": "
	}
	return pr.Provider + " #" + pr.Number + ": "
}

// ciPlan is the job: the head as a candidate named after its branch, plus
// any --candidates, against the merge base.
func ciPlan(ctx context.Context, o ciOptions, r gitcmd.Repo, pr pullRequest, mergeBase, head string) (jobPlan, error) {
	c, err := candidate.FromRef(ctx, r.Root, mergeBase, head)
	if err != nil {
		return jobPlan{}, fmt.Errorf("read the head %s: %w", report.ShortHash(head), err)
	}
	c.Name = pr.headName()
	c.Source = "pull request head " + head
	cands := []candidate.Candidate{c}
	for _, p := range o.Candidates {
		cs, err := candidate.Load(p)
		if err != nil {
			return jobPlan{}, err
		}
		cands = append(cands, cs...)
	}
	if err := candidate.CheckNames(cands); err != nil {
		return jobPlan{}, err
	}
	return jobPlan{repo: r, base: mergeBase, label: "the merge base", cands: cands}, nil
}

// resolveSides finds the pull request's base and head commits in r and
// their merge base. When a side is missing, the error says what to fetch.
func resolveSides(ctx context.Context, r gitcmd.Repo, pr pullRequest) (mergeBase, head string, err error) {
	base, err := resolveSide(ctx, r, "base", pr.BaseSHA, pr.BaseRef)
	if err != nil {
		return "", "", err
	}
	head, err = resolveSide(ctx, r, "head", pr.HeadSHA, pr.HeadRef)
	if err != nil {
		return "", "", err
	}
	mergeBase, err = r.Output(ctx, "merge-base", base, head)
	if err != nil {
		if isShallow(ctx, r) {
			return "", "", fmt.Errorf("find the merge base of %s and %s: this clone is shallow and does not reach it: %s",
				report.ShortHash(base), report.ShortHash(head), fetchAdvice)
		}
		return "", "", fmt.Errorf("find the merge base of %s and %s: they have no common history: %w", report.ShortHash(base), report.ShortHash(head), err)
	}
	return mergeBase, head, nil
}

// fetchAdvice says how to make a CI checkout deep enough.
const fetchAdvice = "set fetch-depth: 0 on actions/checkout (GitLab: GIT_DEPTH: 0), or fetch both branches with enough history"

// resolveSide resolves one side of the pull request: its commit if the
// clone has it, else its branch, as a remote-tracking branch first.
func resolveSide(ctx context.Context, r gitcmd.Repo, side, sha, ref string) (string, error) {
	var tried []string
	for _, rev := range []string{sha, "refs/remotes/origin/" + ref, ref} {
		if rev == "" || rev == "refs/remotes/origin/" {
			continue
		}
		tried = append(tried, rev)
		if c, err := r.Resolve(ctx, rev); err == nil {
			return c, nil
		}
	}
	msg := fmt.Sprintf("the pull request's %s %s is not in this clone (looked for %s)", side, firstNonEmpty(ref, sha), strings.Join(tried, ", "))
	if isShallow(ctx, r) {
		return "", fmt.Errorf("%s, which is shallow: %s", msg, fetchAdvice)
	}
	return "", fmt.Errorf("%s: fetch it first (git fetch origin %s)", msg, firstNonEmpty(ref, sha))
}

func isShallow(ctx context.Context, r gitcmd.Repo) bool {
	out, err := r.Output(ctx, "rev-parse", "--is-shallow-repository")
	return err == nil && out == "true"
}

// writeCIOutputs writes the reports and the comment into out, appends the
// comment to GitHub's step summary, and the report in format to stdout.
func writeCIOutputs(out string, pr pullRequest, rep *evaluator.Report, g report.Gate, stdout io.Writer, format string) error {
	var comment, full, js bytes.Buffer
	if err := report.Comment(&comment, rep, g, out); err != nil {
		return err
	}
	if err := report.Markdown(&full, rep); err != nil {
		return err
	}
	if err := report.JSON(&js, rep); err != nil {
		return err
	}
	for name, b := range map[string][]byte{"comment.md": comment.Bytes(), "report.md": full.Bytes(), "report.json": js.Bytes()} {
		if err := os.WriteFile(filepath.Join(out, name), b, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	if pr.Summary != "" {
		if err := appendFile(pr.Summary, comment.Bytes()); err != nil {
			return fmt.Errorf("write GITHUB_STEP_SUMMARY: %w", err)
		}
	}
	return report.Write(stdout, rep, format)
}

func appendFile(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
