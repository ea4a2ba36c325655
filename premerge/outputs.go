package premerge

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/optimizer-dev/optimizer/report"
	"github.com/optimizer-dev/optimizer/result"
)

// WriteOutputs writes into the directory out what the CI shows of rep,
// judged by g: comment.md (the sticky comment, which links to the
// artifacts in out), report.md and report.json. It appends the comment to
// the pull request's step summary, if it has one.
func WriteOutputs(out string, pr PullRequest, rep *result.Report, g report.Gate) error {
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
	return nil
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
