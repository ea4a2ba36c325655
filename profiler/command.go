package profiler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/proc"
)

// CommandOutput is the file in the artifacts directory that keeps a profile
// command's combined stdout and stderr (perf report and py-spy top print
// their profile there).
const CommandOutput = "profile-command.txt"

// MaxCommandFiles bounds the new files Command takes from a slot.
const MaxCommandFiles = 100

// ArtifactPatterns are the base-name patterns (path.Match) of the new files
// in a slot that Command keeps. They match the outputs of common profilers
// (pprof, perf, py-spy, valgrind, flame graph tools, node) and plain
// reports. Anything else a command creates there, such as a build's
// binaries, stays in the slot and goes when the slot is reset.
var ArtifactPatterns = []string{
	"*.pprof", "*.prof", "*.pb.gz", "*.profile", "*.cpuprofile", "*.heapprofile",
	"perf.data", "perf.data.*", "*.perf", "*.trace",
	"callgrind.out.*", "cachegrind.out.*", "massif.out.*",
	"*.svg", "*.html", "*.folded", "*.collapsed", "*.speedscope",
	"*.json", "*.txt", "*.out",
}

// skipDirs are directories of a slot that Command does not look into for
// new files. They are version control, and the dependency and cache trees
// that tools fill with .json and .txt files of their own.
var skipDirs = map[string]bool{
	".git": true, "node_modules": true, ".venv": true, "venv": true, "__pycache__": true,
	".tox": true, ".mypy_cache": true, ".pytest_cache": true, ".cache": true, "target": true,
}

// Command runs a user's profiling command line (sh -c) for languages other
// than Go. It runs in dir, the winner's slot, with OPTIMIZER_ARTIFACTS set
// to artifactsDir. It keeps the files the command creates or rewrites in
// artifactsDir, and its output in CommandOutput. New files in dir whose
// names match ArtifactPatterns are moved into artifactsDir under their
// slot-relative path. With box set, the command runs in that sandbox, which
// must let it write dir and artifactsDir. It returns the kept files'
// absolute paths, sorted. It does so even when it also returns an error (the
// command failed or was cancelled). The caller lists them and turns the
// error into a warning.
func Command(ctx context.Context, shellLine, dir, artifactsDir string, box *proc.Sandbox) ([]string, error) {
	if strings.TrimSpace(shellLine) == "" {
		return nil, ErrNoCommand
	}
	art, err := filepath.Abs(artifactsDir)
	if err != nil {
		return nil, fmt.Errorf("resolve artifacts directory: %w", err)
	}
	slot, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("resolve slot directory: %w", err)
	}
	if err := os.MkdirAll(art, 0o755); err != nil {
		return nil, fmt.Errorf("create artifacts directory: %w", err)
	}
	artBefore, err := stamps(art)
	if err != nil {
		return nil, fmt.Errorf("list artifacts: %w", err)
	}
	slotBefore, err := slotFiles(slot, art)
	if err != nil {
		return nil, fmt.Errorf("list slot files: %w", err)
	}

	res, err := proc.Run(ctx, proc.Cmd{Dir: slot, Args: proc.Shell(shellLine), CPU: -1,
		Env: []string{"OPTIMIZER_ARTIFACTS=" + art}, Sandbox: box})
	if err != nil {
		return nil, fmt.Errorf("run profile command: %w", err)
	}
	var errs []error
	switch {
	case res.Canceled:
		errs = append(errs, fmt.Errorf("run profile command: %w", context.Cause(ctx)))
	case res.ExitCode != 0:
		errs = append(errs, fmt.Errorf("run profile command: exit status %d: %s", res.ExitCode, tail(res.Output, 15)))
	}
	outFile := filepath.Join(art, CommandOutput)
	if err := os.WriteFile(outFile, res.Output, 0o644); err != nil {
		errs = append(errs, fmt.Errorf("keep profile command output: %w", err))
	}

	kept, err := newArtifacts(art, artBefore, outFile)
	if err != nil {
		errs = append(errs, fmt.Errorf("list artifacts: %w", err))
	}
	moved, err := takeSlotFiles(slot, art, slotBefore)
	if err != nil {
		errs = append(errs, err)
	}
	kept = append(kept, moved...)
	sort.Strings(kept)
	return kept, errors.Join(errs...)
}

// stamp tells a rewritten file from an untouched one.
type stamp struct {
	size int64
	mod  time.Time
}

// stamps returns every regular file under dir, by path, with its stamp.
func stamps(dir string) (map[string]stamp, error) {
	m := map[string]stamp{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return nil // gone meanwhile
		}
		m[p] = stamp{fi.Size(), fi.ModTime()}
		return nil
	})
	return m, err
}

// newArtifacts returns the files under art that are new or rewritten since
// before, and always the output file.
func newArtifacts(art string, before map[string]stamp, out string) ([]string, error) {
	now, err := stamps(art)
	var kept []string
	for p, st := range now {
		if old, ok := before[p]; !ok || old != st || p == out {
			kept = append(kept, p)
		}
	}
	return kept, err
}

// slotFiles returns the slot-relative paths of the regular files in slot,
// outside skipDirs and the artifacts directory.
func slotFiles(slot, art string) (map[string]bool, error) {
	m := map[string]bool{}
	err := filepath.WalkDir(slot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == slot {
				return err
			}
			return nil // unreadable corner: skip it
		}
		if d.IsDir() {
			if p != slot && (skipDirs[d.Name()] || p == art) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			if rel, err := filepath.Rel(slot, p); err == nil {
				m[filepath.ToSlash(rel)] = true
			}
		}
		return nil
	})
	return m, err
}

// takeSlotFiles moves the new files of the slot that match ArtifactPatterns
// into art, keeping their slot-relative paths, at most MaxCommandFiles.
func takeSlotFiles(slot, art string, before map[string]bool) ([]string, error) {
	now, err := slotFiles(slot, art)
	if err != nil {
		return nil, fmt.Errorf("list slot files: %w", err)
	}
	var rels []string
	for rel := range now {
		if !before[rel] && isArtifact(path.Base(rel)) {
			rels = append(rels, rel)
		}
	}
	sort.Strings(rels)
	var errs []error
	if len(rels) > MaxCommandFiles {
		errs = append(errs, fmt.Errorf("profile command left %d files in the slot: kept the first %d", len(rels), MaxCommandFiles))
		rels = rels[:MaxCommandFiles]
	}
	var kept []string
	for _, rel := range rels {
		dst, err := moveFile(filepath.Join(slot, filepath.FromSlash(rel)), filepath.Join(art, filepath.FromSlash(rel)))
		if err != nil {
			errs = append(errs, fmt.Errorf("keep %s: %w", rel, errorsNoPath(err)))
			continue
		}
		kept = append(kept, dst)
	}
	return kept, errors.Join(errs...)
}

func isArtifact(name string) bool {
	for _, pat := range ArtifactPatterns {
		if ok, _ := path.Match(pat, name); ok {
			return true
		}
	}
	return false
}

// moveFile moves src to dst, or to dst with a numeric suffix when dst
// exists, copying when a rename cannot cross file systems. It returns where
// the file went.
func moveFile(src, dst string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", err
	}
	ext := filepath.Ext(dst)
	stem := strings.TrimSuffix(dst, ext)
	for i := 1; ; i++ {
		if _, err := os.Lstat(dst); errors.Is(err, fs.ErrNotExist) {
			break
		}
		dst = fmt.Sprintf("%s.%d%s", stem, i, ext)
	}
	if err := os.Rename(src, dst); err == nil {
		return dst, nil
	}
	if err := copyFile(src, dst); err != nil {
		return "", err
	}
	_ = os.Remove(src)
	return dst, nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		os.Remove(dst)
		return err
	}
	return out.Close()
}

// errorsNoPath drops the path of a *fs.PathError or *os.LinkError, which
// would name the slot.
func errorsNoPath(err error) error {
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
