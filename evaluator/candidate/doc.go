// Package candidate loads and checks the candidates of a job: named changes
// against a base commit.
//
// # What flows through it
//
// [Load] reads a candidates path (--candidates) and [FromRef] reads a git
// ref (--candidate-ref); both give [Candidate] values. [CheckNames] checks
// that names are unique across every source. [TreeID] gives each candidate
// its content id, the git tree it makes of base. The evaluator uses it to
// find duplicates, and to refuse a patch that does not apply before any slot
// is spent. [Candidate.Paths] lists the files a candidate changes, which
// pick the benchmarks to run. Staging a candidate in a worktree is the
// worktreepool's job, not this package's.
//
// # Forms
//
// Load takes one of:
//
//   - NAME.patch or NAME.diff: a unified diff against base, as git apply
//     takes it. The candidate is named NAME.
//   - FILE.jsonl: one candidate a line, {"name": …, "patch": …} or
//     {"name": …, "files": {PATH: CONTENT, …}} with optional "parent" and
//     "explanation" (see [ParseJSONL]; a null CONTENT deletes PATH).
//   - a directory holding any mix of the above and of NAME/ directories.
//     Each NAME/ is a tree of whole files laid over the repository by
//     relative path, hidden files inside it (such as .gitignore) included.
//     A tree cannot delete files: use a patch or a JSONL line for that.
//
// In a candidates directory, entries whose names start with "." are skipped,
// and so are other files (README.md, notes.txt). They are not errors. When
// nothing is left, the error lists them, so that a misnamed candidate
// ("fast.txt") is easy to spot. Extensions match in any case (".PATCH").
// Candidates come in entry-name order; a JSONL file's candidates keep their
// line order at the file's place.
//
// # Job errors and candidate errors
//
// What stops a job before it starts is returned as an error by Load, with
// nothing else:
//   - a path that cannot be read;
//   - a directory or JSONL file with no candidate ([ErrNoCandidates]);
//   - a malformed JSONL line ([*SyntaxError], "FILE:LINE: …"), such as a
//     line naming both or neither of "patch" and "files";
//   - an empty, control-character or duplicate name ([ErrBadName],
//     [ErrDuplicateName]).
//
// What is wrong with one candidate only never stops the job: the candidate
// comes back with [Candidate.Invalid] set, prefixed with its Source, and the
// evaluator fails it with kind apply. These are:
//
//   - a path that [ValidatePath] refuses: absolute, with a ".." or ".git"
//     component, unclean, empty, or holding a NUL ([*PathError]);
//   - a patch in which no file header can be found ([ErrNotDiff]). So is
//     one that changes a file as binary data, "GIT binary patch" or "Binary
//     files … differ" ([ErrBinaryPatch]). Whole files may hold any bytes;
//   - a symlink in a candidates directory or candidate tree that points
//     outside it or dangles ([ErrSymlink]). So is one in a tree that points
//     to a directory. A symlink to a file inside is read as that file;
//   - a device, socket or pipe in a tree ([ErrNotRegular]);
//   - more than [MaxBytes] (50 MB) of patch and files in one candidate
//     ([ErrTooLarge]): the content is then not kept;
//   - nothing to change: an empty patch file, tree or "files" object
//     ([ErrEmpty]).
//
// TreeID finds a patch that does not apply to base, and whole files that
// would replace a directory or go through a symlink or submodule of base.
// It returns an [*ApplyError] with git's message.
//
// A JSONL line may be at most 4×MaxBytes long; a longer one is a
// *SyntaxError. Reading errors inside the candidates path stop the job:
// permissions, or a dangling symlink at its top level. Load refuses what it
// cannot read, and marks Invalid what it read and will not take.
package candidate
