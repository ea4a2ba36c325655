package candidate

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"unicode"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	fdiff "github.com/go-git/go-git/v5/plumbing/format/diff"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// FromRef reads the candidate that ref makes of base: the diff from base's
// tree to ref's, as "git diff base ref". Give the merge base as base to see
// only a branch's own changes. Both ref and base are any revision go-git
// resolves: a branch, tag, full or short hash, or "HEAD~1"-style
// expression. repoDir is any directory in the repository, linked worktrees
// included. Nothing is written.
//
// Text changes become a unified diff in Patch. A text patch cannot hold a
// binary file that changes content, nor a new or deleted empty file (which
// go-git's encoder would write as binary). Those are carried whole in Files
// or listed in Deleted; their executable bit is not kept. A change to a
// submodule makes the candidate Invalid.
//
// The name is ref with every run of characters other than letters, digits,
// '.', '_', '-' and '/' turned into one '-' ("HEAD~1" gives "HEAD-1"). A
// commit hash longer than ShortHash characters is named by its first
// ShortHash, as tables can show it. Source is "ref " + ref, in full;
// Explanation is the commit message of ref.
//
// An unknown ref or base gives an error wrapping ErrUnknownRef that names it.
func FromRef(ctx context.Context, repoDir, base, ref string) (Candidate, error) {
	repo, err := gogit.PlainOpenWithOptions(repoDir, &gogit.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		return Candidate{}, fmt.Errorf("open repository %s: %w", repoDir, err)
	}
	from, err := resolveCommit(repo, base)
	if err != nil {
		return Candidate{}, fmt.Errorf("read base: %w", err)
	}
	to, err := resolveCommit(repo, ref)
	if err != nil {
		return Candidate{}, fmt.Errorf("read candidate ref: %w", err)
	}
	c := Candidate{Name: refName(ref, to.Hash.String()), Source: "ref " + ref, Explanation: strings.TrimSpace(to.Message)}
	problem, err := diffCommits(ctx, repo, from, to, &c)
	if ctx.Err() != nil {
		return Candidate{}, ctx.Err()
	}
	if err != nil { // go-git cannot diff it (a path with a control character...): only this candidate fails
		c.Patch, c.Files, c.Deleted = nil, nil, nil
		problem = fmt.Errorf("diff %s..%s: %w", short(base), ref, err)
	}
	if problem == nil {
		problem = c.Validate()
	}
	c.Invalid = invalid(c.Source, problem)
	return c, nil
}

func resolveCommit(repo *gogit.Repository, rev string) (*object.Commit, error) {
	h, err := repo.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		return nil, fmt.Errorf("%w %q: not a branch, tag or commit in this repository (%v)", ErrUnknownRef, rev, err)
	}
	commit, err := repo.CommitObject(*h)
	if err != nil {
		return nil, fmt.Errorf("%w %q: %s is not a commit (%v)", ErrUnknownRef, rev, h, err)
	}
	return commit, nil
}

// diffCommits fills c's Patch, Files and Deleted with the change from one
// commit's tree to another's. The problem it returns is candidate-level.
func diffCommits(ctx context.Context, repo *gogit.Repository, from, to *object.Commit, c *Candidate) (problem, err error) {
	fromTree, err := from.Tree()
	if err != nil {
		return nil, err
	}
	toTree, err := to.Tree()
	if err != nil {
		return nil, err
	}
	changes, err := object.DiffTreeWithOptions(ctx, fromTree, toTree, &object.DiffTreeOptions{})
	if err != nil {
		return nil, err
	}
	var submodules []string
	for _, ch := range changes {
		if ch.From.TreeEntry.Mode == filemode.Submodule || ch.To.TreeEntry.Mode == filemode.Submodule {
			name := ch.To.Name
			if name == "" {
				name = ch.From.Name
			}
			submodules = append(submodules, name)
		}
	}
	patch, err := changes.PatchContext(ctx)
	if err != nil {
		return nil, err
	}
	var text textPatch
	var size int64
	for _, fp := range patch.FilePatches() {
		f, t := fp.Files()
		switch {
		case f == nil && t == nil: // a submodule, listed above
		case !fp.IsBinary() || f != nil && t != nil && f.Hash() == t.Hash():
			text = append(text, fp)
		case t == nil:
			c.Deleted = append(c.Deleted, f.Path())
		default:
			blob, err := repo.BlobObject(t.Hash())
			if err != nil {
				return nil, err
			}
			if size += blob.Size; size > MaxBytes {
				c.Files, c.Patch = nil, nil
				return limit(MaxBytes).tooLarge(size), nil
			}
			b, err := readBlob(blob)
			if err != nil {
				return nil, err
			}
			if c.Files == nil {
				c.Files = map[string][]byte{}
			}
			c.Files[t.Path()] = b
		}
	}
	if len(text) > 0 {
		var buf bytes.Buffer
		if err := fdiff.NewUnifiedEncoder(&buf, fdiff.DefaultContextLines).Encode(text); err != nil {
			return nil, err
		}
		c.Patch = buf.Bytes()
	}
	if len(submodules) > 0 {
		return fmt.Errorf("changes submodule %s; a candidate cannot change a submodule", strings.Join(submodules, ", ")), nil
	}
	return nil, nil
}

func readBlob(blob *object.Blob) ([]byte, error) {
	r, err := blob.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// textPatch is a set of file patches to encode.
type textPatch []fdiff.FilePatch

func (p textPatch) FilePatches() []fdiff.FilePatch { return p }
func (p textPatch) Message() string                { return "" }

// refName makes a candidate name of a revision.
// ShortHash is the length of the name of a candidate given by its commit
// hash, as the CLI shows a base commit.
const ShortHash = 12

// refName is the candidate name of ref, which resolved to the commit hash.
func refName(ref, hash string) string {
	if len(ref) > ShortHash && strings.HasPrefix(hash, strings.ToLower(ref)) {
		return strings.ToLower(ref[:ShortHash])
	}
	var b strings.Builder
	dash := false
	for _, r := range ref {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("._-/", r)) {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	name := strings.Trim(b.String(), "-")
	if name == "" {
		return "ref"
	}
	return name
}
