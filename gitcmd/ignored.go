package gitcmd

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
)

// ErrNoMatch is a pattern of IgnoredFiles that matches no ignored file.
var ErrNoMatch = errors.New("matches no ignored file")

// IgnoredFiles lists the ignored files of the working tree that patterns
// match, as slash paths relative to the root. A pattern matches a file by
// its path or its base name (as a path.Match glob), or a directory that
// holds it. A pattern that matches no ignored file is an error (ErrNoMatch):
// the caller meant to get something by it. The caller checks the patterns' syntax.
func (r Repo) IgnoredFiles(ctx context.Context, patterns []string) ([]string, error) {
	if len(patterns) == 0 {
		return nil, nil
	}
	out, err := r.Output(ctx, "ls-files", "-z", "--others", "--ignored", "--exclude-standard")
	if err != nil {
		return nil, fmt.Errorf("list ignored files: %w", err)
	}
	var files []string
	used := make([]bool, len(patterns))
	for _, f := range strings.Split(out, "\x00") {
		if f == "" || strings.HasPrefix(f, ".git/") {
			continue
		}
		for i, p := range patterns {
			if ignoredMatch(strings.TrimSuffix(p, "/"), f) {
				files = append(files, f)
				used[i] = true
				break
			}
		}
	}
	for i, ok := range used {
		if !ok {
			return nil, fmt.Errorf("%q %w in %s (git ls-files --others --ignored --exclude-standard lists them)", patterns[i], ErrNoMatch, r.Root)
		}
	}
	return files, nil
}

func ignoredMatch(pattern, file string) bool {
	if ok, _ := path.Match(pattern, file); ok {
		return true
	}
	if ok, _ := path.Match(pattern, path.Base(file)); ok && !strings.Contains(pattern, "/") {
		return true
	}
	return strings.HasPrefix(file, pattern+"/")
}
