package evaluator

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/optimizer-dev/optimizer/excerpt"
	"github.com/optimizer-dev/optimizer/proc"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// SetupError is the job's error when a slot cannot be prepared: an ignored
// file could not be copied into it, or the --setup command failed. It is a
// fault of the slot or the project, never of a candidate.
type SetupError struct {
	Slot   string
	Exit   int    // the setup command's exit status; 0 when copying failed
	Output string // the tail of the setup command's output
	Err    error
}

func (e *SetupError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "prepare slot %s: ", e.Slot)
	switch {
	case e.Err != nil:
		b.WriteString(e.Err.Error())
	default:
		fmt.Fprintf(&b, "the setup command exits %d", e.Exit)
	}
	if out := strings.TrimSpace(e.Output); out != "" {
		b.WriteString(":\n  " + strings.ReplaceAll(out, "\n", "\n  "))
	}
	return b.String()
}

func (e *SetupError) Unwrap() error { return e.Err }

// preparedPool hands out slots that have been prepared for the project:
// the listed ignored files copied in from the user's working tree, then the
// setup command run. A slot is restored when released, which removes what
// preparing added, so every slot is prepared each time it is lent.
type preparedPool struct {
	Pool
	j *job
}

var _ Pool = (*preparedPool)(nil)

func (p *preparedPool) Acquire(ctx context.Context) (*worktreepool.Slot, error) {
	s, err := p.Pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	if err := p.j.prepare(ctx, s); err != nil {
		p.Pool.Release(s)
		return nil, err
	}
	return s, nil
}

func (p *preparedPool) AcquireExclusive(ctx context.Context) ([]*worktreepool.Slot, error) {
	slots, err := p.Pool.AcquireExclusive(ctx)
	if err != nil {
		return nil, err
	}
	for _, s := range slots {
		if err := p.j.prepare(ctx, s); err != nil {
			for _, s := range slots {
				p.Pool.Release(s)
			}
			return nil, err
		}
	}
	return slots, nil
}

// prepare copies the ignored files and runs the setup command in slot. A
// failure stops the job: no candidate can be judged in a slot the project
// cannot run in.
func (j *job) prepare(ctx context.Context, slot *worktreepool.Slot) error {
	fail := func(e *SetupError) error {
		e.Slot = filepath.Base(slot.Dir())
		if ctx.Err() == nil && j.abort != nil {
			j.abort(e)
		}
		return e
	}
	if err := copyFiles(j.opts.Repo, slot.Dir(), j.opts.CopyFiles); err != nil {
		return fail(&SetupError{Err: err})
	}
	if j.opts.Setup == "" {
		return nil
	}
	res, err := proc.Run(ctx, proc.Cmd{Dir: slot.Dir(), Env: j.withEnv(slot.Env()), Args: proc.Shell(j.opts.Setup),
		Timeout: j.opts.Timeout, CPU: -1, MemLimit: j.opts.MemLimit})
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return fail(&SetupError{Err: fmt.Errorf("run the setup command: %w", err)})
	case res.TimedOut:
		return fail(&SetupError{Err: fmt.Errorf("the setup command ran past --timeout %s", j.opts.Timeout),
			Output: excerpt.Tail(string(res.Output), 20)})
	case res.ExitCode != 0:
		return fail(&SetupError{Exit: res.ExitCode, Output: excerpt.Tail(string(res.Output), 20)})
	}
	return nil
}

// copyFiles copies files, relative to the repository root, from the user's
// working tree into a slot, keeping their mode. Nothing is written outside
// the slot.
func copyFiles(repo, slot string, files []string) error {
	if len(files) == 0 {
		return nil
	}
	root, err := os.OpenRoot(slot)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, f := range files {
		if err := copyFile(repo, root, f); err != nil {
			return fmt.Errorf("copy ignored file %s: %w", f, err)
		}
	}
	return nil
}

func copyFile(repo string, root *os.Root, rel string) error {
	src, err := os.Open(filepath.Join(repo, filepath.FromSlash(rel)))
	if err != nil {
		return err
	}
	defer src.Close()
	fi, err := src.Stat()
	if err != nil {
		return err
	}
	if dir := filepath.Dir(filepath.FromSlash(rel)); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	dst, err := root.OpenFile(filepath.FromSlash(rel), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, fi.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
