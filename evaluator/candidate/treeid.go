package candidate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/optimizer-dev/optimizer/gitcmd"
)

// TreeID returns c's content id: the hash of the git tree that c produces
// when laid over base (a commit in the repository at repoDir). Candidates
// that make the same tree have the same id, whatever their form, and a
// candidate that changes nothing has base's tree id.
//
// It runs the git CLI against a scratch index and object directory in a
// temporary directory. The repository's objects are read through
// GIT_ALTERNATE_OBJECT_DIRECTORIES. Nothing is written to the repository,
// its index, its refs or its working tree. A patch is applied with "git
// apply --cached". Whole files are hashed as they are (no clean filters),
// and keep the mode of the file they replace. So 100755 stays executable,
// and a new file is 100644.
//
// An Invalid candidate returns its Invalid error. One that does not lay over
// base gives an *ApplyError. Either git apply refused the patch (Stderr has
// git's message), or a whole file would replace a directory, a symlink or a
// submodule, or be written through one.
//
// TreeID is safe to call concurrently.
func TreeID(ctx context.Context, repoDir, base string, c Candidate) (string, error) {
	s, err := laid(ctx, repoDir, base, c)
	if err != nil {
		return "", err
	}
	defer s.close()
	out, stderr, err := s.git(ctx, nil, "write-tree")
	if err != nil {
		return "", fmt.Errorf("write tree: %w: %s", err, stderr)
	}
	return strings.TrimSpace(string(out)), nil
}

// laid returns a scratch whose index holds c laid over base, by TreeID's
// rules and with its errors. The caller closes it.
func laid(ctx context.Context, repoDir, base string, c Candidate) (*scratch, error) {
	if c.Invalid != nil {
		return nil, c.Invalid
	}
	if err := c.Validate(); err != nil {
		return nil, invalid(c.Source, err)
	}
	if base == "" || strings.HasPrefix(base, "-") {
		return nil, fmt.Errorf("%w %q", ErrUnknownRef, base)
	}
	s, err := newBaseScratch(ctx, repoDir, base)
	if err != nil {
		return nil, err
	}
	if len(c.Patch) > 0 {
		if _, stderr, err := s.git(ctx, c.Patch, "apply", "--cached", "--whitespace=nowarn"); err != nil {
			s.close()
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, &ApplyError{Base: base, Stderr: atBase.Replace(stderr), Err: err}
		}
	}
	if len(c.Files) > 0 || len(c.Deleted) > 0 {
		if err := s.layFiles(ctx, base, c); err != nil {
			s.close()
			return nil, err
		}
	}
	return s, nil
}

// atBase rewords git apply --cached's messages: the index is base's tree.
var atBase = strings.NewReplacer("does not exist in index", "does not exist at base", "already exists in index", "already exists at base")

// scratch is a temporary index and object directory over a repository.
type scratch struct {
	dir string
	env []string // added to the git runner's: the scratch's index and objects over the repository's
}

// repoPaths returns the repository's absolute git dir and objects dir.
func repoPaths(ctx context.Context, repoDir string) ([]string, error) {
	out, err := gitcmd.Run(ctx, gitcmd.Cmd{Args: []string{"-C", repoDir, "rev-parse", "--path-format=absolute",
		"--absolute-git-dir", "--git-path", "objects"}, ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("find repository at %s: %w", repoDir, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		return nil, fmt.Errorf("find repository at %s: unexpected rev-parse output %q", repoDir, out)
	}
	return lines, nil
}

// scratchFor makes a scratch directory over the repository whose git dir and
// objects dir repoPaths returned.
func scratchFor(lines []string) (*scratch, error) {
	// Named with the PID, so that a later run can remove it if this one is
	// killed (evaluator.RemoveStaleScratch).
	dir, err := os.MkdirTemp("", fmt.Sprintf("optimizer-treeid-%d-", os.Getpid()))
	if err != nil {
		return nil, fmt.Errorf("make scratch index: %w", err)
	}
	for _, sub := range []string{"objects", "worktree", "blobs"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o700); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("make scratch index: %w", err)
		}
	}
	s := &scratch{dir: dir}
	s.env = []string{"LC_ALL=C",
		"GIT_DIR=" + lines[0],
		"GIT_WORK_TREE=" + filepath.Join(dir, "worktree"),
		"GIT_INDEX_FILE=" + filepath.Join(dir, "index"),
		"GIT_OBJECT_DIRECTORY=" + filepath.Join(dir, "objects"),
		"GIT_ALTERNATE_OBJECT_DIRECTORIES=" + quoteAlternate(lines[1]),
		"GIT_LITERAL_PATHSPECS=1",
	}
	return s, nil
}

// quoteAlternate quotes a path for GIT_ALTERNATE_OBJECT_DIRECTORIES, whose
// entries are colon-separated unless C-quoted.
func quoteAlternate(p string) string {
	if !strings.ContainsAny(p, ":\"\\\n") {
		return p
	}
	return strconv.Quote(p)
}

func (s *scratch) close() { os.RemoveAll(s.dir) }

// git runs git in the scratch, taking no optional locks on the
// repository it reads through, and returns its stdout and trimmed stderr.
func (s *scratch) git(ctx context.Context, stdin []byte, args ...string) ([]byte, string, error) {
	args = append([]string{"-c", "core.splitIndex=false",
		"-c", "core.untrackedCache=false", "-c", "gc.auto=0", "-c", "maintenance.auto=false"}, args...)
	c := gitcmd.Cmd{Dir: s.dir, Args: args, Env: s.env, ReadOnly: true}
	if stdin != nil {
		c.Stdin = bytes.NewReader(stdin)
	}
	out, err := gitcmd.Run(ctx, c)
	var ge *gitcmd.Error
	if errors.As(err, &ge) {
		return out, strings.TrimSpace(ge.Stderr), ge.Err
	}
	return out, "", err
}

// layFiles writes c's whole files and deletions into the scratch index.
func (s *scratch) layFiles(ctx context.Context, base string, c Candidate) error {
	paths := sortedKeys(c.Files)
	deleted := map[string]bool{}
	for _, p := range c.Deleted {
		deleted[p] = true
	}
	modes, err := s.baseModes(ctx, base, paths)
	if err != nil {
		return err
	}
	if reason := blocked(paths, modes, deleted); reason != "" {
		return &ApplyError{Base: base, Stderr: reason}
	}
	if len(c.Deleted) > 0 {
		var in bytes.Buffer
		for _, p := range c.Deleted {
			in.WriteString(p)
			in.WriteByte(0)
		}
		if _, stderr, err := s.git(ctx, in.Bytes(), "update-index", "-z", "--force-remove", "--stdin"); err != nil {
			return &ApplyError{Base: base, Stderr: stderr, Err: err}
		}
	}
	if len(paths) == 0 {
		return nil
	}
	ids, err := s.hashBlobs(ctx, paths, c.Files)
	if err != nil {
		return err
	}
	var in bytes.Buffer
	for i, p := range paths {
		mode := "100644"
		if modes[p] == "100755" {
			mode = "100755"
		}
		fmt.Fprintf(&in, "%s %s\t%s\x00", mode, ids[i], p)
	}
	if _, stderr, err := s.git(ctx, in.Bytes(), "update-index", "-z", "--index-info"); err != nil {
		return &ApplyError{Base: base, Stderr: stderr, Err: err}
	}
	return nil
}

// blocked says why a file in paths cannot be laid over base, or "".
func blocked(paths []string, modes map[string]string, deleted map[string]bool) string {
	for _, p := range paths {
		switch modes[p] {
		case "040000":
			return fmt.Sprintf("%s is a directory at base; a file cannot replace it", p)
		case "120000":
			return fmt.Sprintf("%s is a symlink at base; a candidate cannot write through a symlink", p)
		case "160000":
			return fmt.Sprintf("%s is a submodule at base; a candidate cannot change a submodule", p)
		}
		for a := path.Dir(p); a != "."; a = path.Dir(a) {
			if deleted[a] {
				continue
			}
			switch modes[a] {
			case "100644", "100755":
				return fmt.Sprintf("cannot write %s: %s is a file at base", p, a)
			case "120000":
				return fmt.Sprintf("cannot write %s: %s is a symlink at base, and a path through a symlink is refused", p, a)
			case "160000":
				return fmt.Sprintf("cannot write %s: %s is a submodule at base; a candidate cannot change a submodule", p, a)
			}
		}
	}
	return ""
}

// baseModes returns the mode of each of paths, and of each of their parent
// directories, that base's tree holds. A directory may be missing from the
// result when a deeper path was asked for: only files, symlinks and
// submodules are sure to be listed.
func (s *scratch) baseModes(ctx context.Context, base string, paths []string) (map[string]string, error) {
	var ask []string
	seen := map[string]bool{}
	for _, p := range paths {
		for a := p; a != "." && !seen[a]; a = path.Dir(a) {
			seen[a] = true
			ask = append(ask, a)
		}
	}
	modes := map[string]string{}
	for len(ask) > 0 {
		n, size := 0, 0
		for n < len(ask) && size < 64<<10 {
			size += len(ask[n]) + 1
			n++
		}
		out, stderr, err := s.git(ctx, nil, append([]string{"ls-tree", "-z", "--full-tree", base, "--"}, ask[:n]...)...)
		if err != nil {
			return nil, fmt.Errorf("list base tree: %w: %s", err, stderr)
		}
		for _, rec := range bytes.Split(out, []byte{0}) {
			meta, name, ok := bytes.Cut(rec, []byte("\t"))
			if !ok {
				continue
			}
			mode, _, _ := bytes.Cut(meta, []byte(" "))
			modes[string(name)] = string(mode)
		}
		ask = ask[n:]
	}
	return modes, nil
}

// hashBlobs writes each file's content as a blob into the scratch object
// directory, in one git process, and returns the ids in paths' order.
func (s *scratch) hashBlobs(ctx context.Context, paths []string, files map[string][]byte) ([]string, error) {
	var list bytes.Buffer
	for i, p := range paths {
		name := filepath.Join(s.dir, "blobs", strconv.Itoa(i))
		if err := os.WriteFile(name, files[p], 0o600); err != nil {
			return nil, fmt.Errorf("stage %s: %w", p, err)
		}
		list.WriteString(name)
		list.WriteByte('\n')
	}
	out, stderr, err := s.git(ctx, list.Bytes(), "hash-object", "-w", "--no-filters", "--stdin-paths")
	if err != nil {
		return nil, fmt.Errorf("hash files: %w: %s", err, stderr)
	}
	ids := strings.Fields(string(out))
	if len(ids) != len(paths) {
		return nil, errors.New("hash files: git hash-object returned too few ids")
	}
	return ids, nil
}
