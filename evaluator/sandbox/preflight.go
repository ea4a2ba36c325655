package sandbox

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

// ErrStart stops a job whose test or bench command cannot start in the
// sandbox: the message names the command, what is missing, and a way out.
var ErrStart = errors.New("cannot start in the sandbox")

// Check is one command line to try, with the flag that gave it.
type Check struct{ Flag, Line string }

// Preflight tries, before phase 1, whether each command can start in a
// sandbox such as jl's. Each command's program must be found inside as on
// the host. When it is a script (a pyenv shim, a wrapper), its interpreter
// and every absolute path it names that exists on the host must exist
// inside too. A command that cannot start is an error wrapping ErrStart
// that names the sandbox and the ways out. A nil jail checks nothing.
func (jl *Jail) Preflight(ctx context.Context, checks []Check) error {
	if jl == nil {
		return nil
	}
	for _, c := range checks {
		word := commandWord(c.Line)
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
		missing, err := jl.missingInside(ctx, word, need)
		if err != nil {
			return fmt.Errorf("try %s %q in the sandbox: %w", c.Flag, c.Line, err)
		}
		if len(missing) > 0 {
			return fmt.Errorf("%w: %s %q runs %s (%s), which needs %s, hidden by the sandbox (bwrap hides $HOME, $TMPDIR and the repository); "+
				"show it read-only with --sandbox-bind %s, point the command at the real program, or run with --sandbox off",
				ErrStart, c.Flag, c.Line, word, host, strings.Join(missing, ", "), bindSuggestion(missing, host))
		}
	}
	return nil
}

// NamedPaths are the absolute paths, existing on the host, that cfg's
// commands, bench arguments and copied files name. Every sandbox shows them
// read-only, so that a data directory under $TMPDIR or $HOME is not an
// empty mount inside. Paths in the repository or its git directory,
// common (the store, the slots), are never shown.
func NamedPaths(cfg Config, common string) []string {
	var words []string
	for _, line := range cfg.Commands {
		words = append(words, shellWords(line)...)
	}
	words = append(words, cfg.BenchArgs...)
	var out []string
	add := func(p string) {
		p = filepath.Clean(p)
		if !filepath.IsAbs(p) || p == "/" || slices.Contains(out, p) || within(p, common) || within(p, cfg.Repo) {
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
	for _, f := range cfg.CopyFiles {
		if real, err := filepath.EvalSymlinks(filepath.Join(cfg.Repo, filepath.FromSlash(f))); err == nil {
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
// none. A builtin such as cd is still returned; Preflight skips what the
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

// missingInside runs a check in a sandbox such as jl's (without a slot),
// and returns what is missing. The check is that word is found on PATH and
// that each of paths exists.
func (jl *Jail) missingInside(ctx context.Context, word string, paths []string) ([]string, error) {
	script := `w=$1; shift
command -v "$w" >/dev/null 2>&1 || echo "missing $w on PATH"
for p; do [ -e "$p" ] || echo "missing $p"; done`
	box := &proc.Sandbox{Hidden: jl.Hidden, ReadOnly: jl.ReadOnly, Env: jl.Env, Net: jl.Net}
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
