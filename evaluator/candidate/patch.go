package candidate

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
)

// Paths returns the repo-relative slash paths c changes, sorted and without
// repeats. They are both sides of every file header in its patch (a rename
// gives its old and new path; /dev/null is left out), its whole files and
// its deleted paths. A path that ValidatePath would refuse is returned as
// written, so that a message can name it.
func (c Candidate) Paths() []string {
	var out []string
	if len(c.Patch) > 0 {
		out = append(out, scanPatch(c.Patch).paths...)
	}
	out = append(out, sortedKeys(c.Files)...)
	out = append(out, c.Deleted...)
	slices.Sort(out)
	return slices.Compact(out)
}

// patchInfo is what scanPatch learns from a patch's headers.
type patchInfo struct {
	paths   []string // sorted, unique
	binary  []string // files changed as binary data
	headers int      // file headers found
}

// scanPatch reads the file headers of a unified or git diff the way git
// apply does: "diff --git" lines with their extended headers (rename/copy
// from/to), and "--- "/"+++ " pairs. It counts hunk lines, so that a removed
// line reading "-- x" (shown as "--- x") is not taken for a header. Text
// before, between and after the file sections (a mail header, a diffstat) is
// skipped. It never fails: what it cannot read it ignores.
func scanPatch(patch []byte) patchInfo {
	s := patchScanner{seen: map[string]bool{}}
	lines := bytes.Split(patch, []byte("\n"))
	for i := 0; i < len(lines); i++ {
		line := string(bytes.TrimSuffix(lines[i], []byte("\r")))
		if s.inHunk(line) {
			continue
		}
		var next string
		if i+1 < len(lines) {
			next = string(bytes.TrimSuffix(lines[i+1], []byte("\r")))
		}
		if s.header(line, next) {
			i++ // consumed the +++ line
		}
	}
	s.endBlock()
	slices.Sort(s.info.paths)
	return s.info
}

type patchScanner struct {
	info patchInfo
	seen map[string]bool

	oldLeft, newLeft int // lines left in the current hunk

	// the current "diff --git" block
	inGit          bool
	gitOld, gitNew string // names from the diff --git line
	named          bool   // the block named its files in ---/+++ or rename/copy lines
	dashes         bool   // the block had its ---/+++ pair
}

// inHunk consumes line if it belongs to the current hunk.
func (s *patchScanner) inHunk(line string) bool {
	if s.oldLeft <= 0 && s.newLeft <= 0 {
		return strings.HasPrefix(line, `\`) // "\ No newline" after a hunk's last line
	}
	switch {
	case line == "" || line[0] == ' ':
		s.oldLeft--
		s.newLeft--
	case line[0] == '-':
		s.oldLeft--
	case line[0] == '+':
		s.newLeft--
	case line[0] == '\\': // "\ No newline at end of file"
	default:
		s.oldLeft, s.newLeft = 0, 0
		return false
	}
	return true
}

// header reads one line outside hunks. It reports whether it consumed next
// as well (a "+++ " line).
func (s *patchScanner) header(line, next string) bool {
	switch {
	case strings.HasPrefix(line, "diff --git "):
		s.endBlock()
		s.inGit = true
		s.gitOld, s.gitNew = splitGitLine(line[len("diff --git "):])
		s.info.headers++
	case strings.HasPrefix(line, "--- ") && strings.HasPrefix(next, "+++ "):
		if !s.inGit || s.dashes {
			s.endBlock()
			s.info.headers++
		}
		s.named, s.dashes = true, true
		s.add(stripPrefix(headerName(line[4:])))
		s.add(stripPrefix(headerName(next[4:])))
		return true
	case strings.HasPrefix(line, "@@ "):
		s.oldLeft, s.newLeft = hunkCounts(line)
	case s.inGit && hasAnyPrefix(line, "rename from ", "rename to ", "copy from ", "copy to "):
		f := strings.SplitN(line, " ", 3)
		s.named = true
		s.add(headerName(f[2]))
	case line == "GIT binary patch" || strings.HasPrefix(line, "Binary files ") && strings.HasSuffix(line, " differ"):
		name := s.binaryName(line)
		if !s.inGit { // "diff -u" or "git diff --no-prefix" style: the line is the file's header
			s.info.headers++
			s.add(name)
		}
		s.info.binary = append(s.info.binary, name)
	}
	return false
}

// endBlock closes a diff --git block. A block that named no file in ---/+++
// or rename lines (a mode change, an empty new file) takes its names from
// the diff --git line.
func (s *patchScanner) endBlock() {
	if s.inGit && !s.named {
		s.add(stripPrefix(s.gitOld))
		s.add(stripPrefix(s.gitNew))
	}
	s.inGit, s.named, s.dashes, s.gitOld, s.gitNew = false, false, false, "", ""
}

func (s *patchScanner) add(p string) {
	if p == "" || p == "/dev/null" || s.seen[p] {
		return
	}
	s.seen[p] = true
	s.info.paths = append(s.info.paths, p)
}

func (s *patchScanner) binaryName(line string) string {
	if s.inGit {
		if n := stripPrefix(s.gitNew); n != "" && n != "/dev/null" {
			return n
		}
		if n := stripPrefix(s.gitOld); n != "" {
			return n
		}
	}
	// "Binary files a/x and b/x differ" outside a git block
	rest := strings.TrimSuffix(strings.TrimPrefix(line, "Binary files "), " differ")
	if i := strings.LastIndex(rest, " and "); i >= 0 {
		if n := stripPrefix(rest[i+len(" and "):]); n != "/dev/null" {
			return n
		}
		return stripPrefix(rest[:i])
	}
	return "a file"
}

// hunkCounts reads "@@ -l[,n] +l[,n] @@"; a missing count is 1.
func hunkCounts(line string) (oldN, newN int) {
	f := strings.Fields(line)
	if len(f) < 4 || f[3] != "@@" || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return 0, 0
	}
	return rangeCount(f[1][1:]), rangeCount(f[2][1:])
}

func rangeCount(r string) int {
	_, n, ok := strings.Cut(r, ",")
	if !ok {
		return 1
	}
	v, err := strconv.Atoi(n)
	if err != nil || v < 0 {
		return 0
	}
	return v
}

// headerName reads the file name of a ---/+++ or rename line: a C-quoted
// string, or the text up to a tab (traditional diffs put a date after it).
func headerName(s string) string {
	if strings.HasPrefix(s, `"`) {
		name, _, ok := unquote(s)
		if ok {
			return name
		}
	}
	s, _, _ = strings.Cut(s, "\t")
	return strings.TrimRight(s, " ")
}

// stripPrefix drops the first path component ("a/", "b/"), as git apply -p1
// does. An absolute name is kept whole so that it is refused, not quietly
// made relative.
func stripPrefix(name string) string {
	if name == "" || name == "/dev/null" || strings.HasPrefix(name, "/") {
		return name
	}
	if _, rest, ok := strings.Cut(name, "/"); ok {
		return rest
	}
	return name
}

// splitGitLine splits the names of a "diff --git A B" line. Quoted names are
// unquoted. Unquoted names may hold spaces. Then the split is the one that
// makes both names equal after their prefix. That holds for every change but
// a rename, whose names come from its rename lines anyway.
func splitGitLine(rest string) (string, string) {
	if strings.HasPrefix(rest, `"`) {
		a, tail, ok := unquote(rest)
		if !ok {
			return "", ""
		}
		return a, headerName(strings.TrimPrefix(tail, " "))
	}
	if i := strings.Index(rest, ` "`); i >= 0 && strings.HasSuffix(rest, `"`) {
		b, _, ok := unquote(rest[i+1:])
		if ok {
			return rest[:i], b
		}
	}
	for i := 0; i < len(rest); i++ {
		if rest[i] == ' ' && stripPrefix(rest[:i]) == stripPrefix(rest[i+1:]) {
			return rest[:i], rest[i+1:]
		}
	}
	a, b, _ := strings.Cut(rest, " ")
	return a, b
}

// unquote reads a C-style quoted name as git writes it from the start of s,
// and returns the rest of s after the closing quote. The escapes are \\ \"
// \a \b \f \n \r \t \v and three-digit octal.
func unquote(s string) (name, rest string, ok bool) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			return b.String(), s[i+1:], true
		case c != '\\':
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(s) {
			return "", "", false
		}
		switch e := s[i]; e {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\', '"':
			b.WriteByte(e)
		case '0', '1', '2', '3':
			if i+2 >= len(s) || !isOctal(s[i+1]) || !isOctal(s[i+2]) {
				return "", "", false
			}
			b.WriteByte((e-'0')<<6 | (s[i+1]-'0')<<3 | (s[i+2] - '0'))
			i += 2
		default:
			return "", "", false
		}
	}
	return "", "", false
}

func isOctal(c byte) bool { return '0' <= c && c <= '7' }

func hasAnyPrefix(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
