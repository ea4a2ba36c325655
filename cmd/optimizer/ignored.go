package main

import (
	"context"
	"fmt"
	"path"
	"strings"
)

// ignoredFiles lists the ignored files of the working tree at root that the
// --copy-ignored patterns match. A pattern matches a file by its path or its
// base name (as a glob), or a directory that holds it. A pattern that
// matches no ignored file is an error: a slot would lack what the user
// meant to give it.
func ignoredFiles(ctx context.Context, root string, patterns []string) ([]string, error) {
	if len(patterns) == 0 {
		return nil, nil
	}
	for _, p := range patterns {
		if _, err := path.Match(p, ""); err != nil {
			return nil, usageErrorf("--copy-ignored %q: %v", p, err)
		}
	}
	out, err := gitOutput(ctx, root, "ls-files", "-z", "--others", "--ignored", "--exclude-standard")
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
			return nil, fmt.Errorf("--copy-ignored %q matches no ignored file in %s (git ls-files --others --ignored --exclude-standard lists them)", patterns[i], root)
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
