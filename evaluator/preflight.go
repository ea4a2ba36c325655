package evaluator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/proc"
)

// ErrSandboxStart stops a job whose test or bench command cannot start in
// the sandbox: the message names the command, what is missing, and a way
// out.
var ErrSandboxStart = errors.New("cannot start in the sandbox")

// ErrBenchSkipped fails a job in which benchmarks ran and every one of
// them printed no result at base: nothing was measured, which is not a pass.
var ErrBenchSkipped = errors.New("every benchmark skipped")

// namedPaths are the absolute paths, existing on the host, that the job's
// commands, --bench-arg values and --copy-ignored files name. Every sandbox
// shows them read-only, so that a data directory under $TMPDIR or $HOME is
// not an empty mount inside. Paths in the repository's git directory (the
// store, the slots) are never shown.
func (j *job) namedPaths(common string) []string {
	var words []string
	for _, line := range []string{j.test, j.opts.Bench} {
		words = append(words, shellWords(line)...)
	}
	words = append(words, j.opts.BenchArgs...)
	var out []string
	add := func(p string) {
		p = filepath.Clean(p)
		if !filepath.IsAbs(p) || p == "/" || slices.Contains(out, p) || within(p, common) || within(p, j.opts.Repo) {
			return
		}
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	for _, w := range words {
		// -flag=/path and KEY=/path name a path after the '='.
		for part := range strings.SplitSeq(w, "=") {
			for p := range strings.SplitSeq(part, string(os.PathListSeparator)) {
				add(p)
			}
		}
	}
	for _, f := range j.opts.CopyFiles {
		if real, err := filepath.EvalSymlinks(filepath.Join(j.opts.Repo, filepath.FromSlash(f))); err == nil {
			add(real)
		}
	}
	return out
}

// within reports whether p is dir or lies under it.
func within(p, dir string) bool {
	if dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// shellWords splits a command line into words, roughly as sh would: on
// blanks, with quotes removed. It is for finding paths, not for running.
func shellWords(line string) []string {
	var words []string
	var w strings.Builder
	var quote rune
	in := false
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n' || r == ';' || r == '|' || r == '&' || r == '(' || r == ')':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words
}

// commandWord is the program a shell command line starts: its first word
// after any VAR=value assignments. It is "" for a line that starts with
// none. A builtin such as cd is still returned; preflight skips what the
// host cannot find either.
func commandWord(line string) string {
	for _, w := range shellWords(line) {
		if strings.Contains(w, "=") && !strings.HasPrefix(w, "=") && !strings.Contains(w, "/") {
			continue
		}
		if w == "exec" || w == "env" || w == "command" || w == "time" {
			continue
		}
		return w
	}
	return ""
}

// absPathRE finds absolute paths in a script: a shim's exec line.
var absPathRE = regexp.MustCompile(`(?:^|["'\s=])(/[A-Za-z0-9._+/-]+)`)

// preflight tries, before phase 1, whether the test and bench commands can
// start in the sandbox. Each command's program must be found inside as on
// the host. When it is a script (a pyenv shim, a wrapper), its interpreter
// and every absolute path it names that exists on the host must exist
// inside too. A command that cannot start stops the job with a message
// that names the sandbox and the ways out.
func (j *job) preflight(ctx context.Context) error {
	if j.jail == nil {
		return nil
	}
	type check struct{ flag, line string }
	checks := []check{{"--test", j.test}}
	if !j.noBench && j.opts.Bench != "" {
		checks = append(checks, check{"--bench", j.opts.Bench})
	}
	for _, c := range checks {
		word := commandWord(c.line)
		if word == "" || (strings.Contains(word, "/") && !filepath.IsAbs(word)) {
			continue // a program in the slot: the slot is inside
		}
		host, err := exec.LookPath(word)
		if err != nil {
			continue // not found on the host either: the command's own failure says so
		}
		host, _ = filepath.Abs(host)
		need := []string{host}
		need = append(need, scriptNeeds(host)...)
		missing, err := j.missingInside(ctx, word, need)
		if err != nil {
			return fmt.Errorf("try %s %q in the sandbox: %w", c.flag, c.line, err)
		}
		if len(missing) > 0 {
			return fmt.Errorf("%w: %s %q runs %s (%s), which needs %s, hidden by the sandbox (bwrap hides $HOME, $TMPDIR and the repository); "+
				"show it read-only with --sandbox-bind %s, point the command at the real program, or run with --sandbox off",
				ErrSandboxStart, c.flag, c.line, word, host, strings.Join(missing, ", "), bindSuggestion(missing, host))
		}
	}
	return nil
}

// scriptNeeds lists what a script at path needs besides itself: its
// interpreter, and the programs it names by absolute path that exist on
// the host (a shim's exec line). It is empty for a binary or a file too big
// to be a shim.
func scriptNeeds(path string) []string {
	fi, err := os.Stat(path)
	if err != nil || fi.Size() > 64<<10 {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(b, []byte("#!")) {
		return nil
	}
	first, _, _ := bytes.Cut(b, []byte("\n"))
	f := strings.Fields(strings.TrimPrefix(string(first), "#!"))
	var out []string
	if len(f) > 0 {
		out = append(out, f[0])
		if filepath.Base(f[0]) == "env" && len(f) > 1 {
			if p, err := exec.LookPath(f[1]); err == nil {
				out = append(out, p)
			}
		}
	}
	for _, m := range absPathRE.FindAllSubmatch(b, -1) {
		p := filepath.Clean(string(m[1]))
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// missingInside runs a check in a sandbox such as the job's (without a
// slot), and returns what is missing. The check is that word is found on
// PATH and that each of paths exists.
func (j *job) missingInside(ctx context.Context, word string, paths []string) ([]string, error) {
	script := `w=$1; shift
command -v "$w" >/dev/null 2>&1 || echo "missing $w on PATH"
for p; do [ -e "$p" ] || echo "missing $p"; done`
	box := &proc.Sandbox{Hidden: j.jail.hidden, ReadOnly: j.jail.readOnly, Env: j.jail.env, Net: j.jail.net}
	res, err := proc.Run(ctx, proc.Cmd{Dir: "/", Args: append([]string{"sh", "-c", script, "sh", word}, paths...),
		CPU: -1, Timeout: time.Minute, Sandbox: box})
	if err != nil {
		return nil, err
	}
	if res.ExitCode != 0 {
		return nil, fmt.Errorf("the check exited %d: %s", res.ExitCode, strings.TrimSpace(string(res.Output)))
	}
	var missing []string
	for line := range strings.SplitSeq(string(res.Output), "\n") {
		if m, ok := strings.CutPrefix(line, "missing "); ok {
			missing = append(missing, m)
		}
	}
	return missing, nil
}

// bindSuggestion is the directory to show for the first missing path
// (host's when only the program itself is missing). It is the top-level
// directory under $HOME that holds it, else its directory. So a pyenv
// shim's libexec/pyenv gives ~/.pyenv.
func bindSuggestion(missing []string, host string) string {
	p := host
	for _, m := range missing {
		if filepath.IsAbs(m) {
			p = m
			break
		}
	}
	if home, err := os.UserHomeDir(); err == nil && within(p, home) && p != home {
		rel, _ := filepath.Rel(home, p)
		top, _, _ := strings.Cut(rel, string(filepath.Separator))
		return filepath.Join(home, top)
	}
	return filepath.Dir(p)
}

// allSkipped returns ErrBenchSkipped, with what to do, when the job found
// benchmarks and every one it calibrated printed no result at base.
func (j *job) allSkipped() error {
	if len(j.skipped) == 0 {
		return nil
	}
	for _, counts := range j.calib {
		if len(counts) > 0 {
			return nil
		}
	}
	hint := ""
	if j.jail != nil {
		hint = "; the sandbox hides $HOME, $TMPDIR and the repository: name a data directory in --bench-arg (it is then shown read-only) or with --sandbox-bind"
	}
	return fmt.Errorf("%w: the %d benchmarks found print no result at base, so nothing was measured (their messages are in the warnings); "+
		"if they need a data directory or flags, pass them with --bench-arg%s", ErrBenchSkipped, len(j.skipped), hint)
}
