package proc

import (
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// pipes connects a child's stdout and stderr to the capture (and the tee).
// Run owns the read ends and their copying goroutines instead of leaving
// them to os/exec. After the group is killed it can then stop reading at
// once. When an escaped process keeps a write end open, it stops after a
// bounded delay.
type pipes struct {
	readers []*os.File // ours
	writers []*os.File // the child's ends, closed after Start
	wg      sync.WaitGroup
}

// openPipes sets cmd.Stdout and cmd.Stderr. Without a tee, stdout and stderr
// share one pipe so the capture keeps their exact interleaving.
func openPipes(cmd *exec.Cmd, tee io.Writer, out *capture) (*pipes, error) {
	p := &pipes{}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	p.readers, p.writers = append(p.readers, r), append(p.writers, w)
	cmd.Stdout, cmd.Stderr = w, w
	if tee == nil {
		p.wg.Go(func() { copyOut(r, out, nil) })
		return p, nil
	}
	er, ew, err := os.Pipe()
	if err != nil {
		p.abort()
		return nil, err
	}
	p.readers, p.writers = append(p.readers, er), append(p.writers, ew)
	cmd.Stderr = ew
	p.wg.Go(func() { copyOut(r, out, tee) })
	p.wg.Go(func() { copyOut(er, out, nil) })
	return p, nil
}

// started closes the child's ends in this process, so that EOF comes when
// the last process holding them exits.
func (p *pipes) started() {
	for _, w := range p.writers {
		w.Close()
	}
}

// abort closes everything after a failed start and stops the copiers.
func (p *pipes) abort() {
	p.started()
	for _, r := range p.readers {
		r.Close()
	}
	p.wg.Wait()
}

// wait waits for the copiers to reach EOF, at most d; then it closes the read
// ends, which stops them.
func (p *pipes) wait(d time.Duration) {
	done := make(chan struct{})
	go func() { p.wg.Wait(); close(done) }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
	for _, r := range p.readers {
		r.Close()
	}
	<-done
}

// copyOut copies r into out and, while it accepts, into tee.
func copyOut(r io.Reader, out *capture, tee io.Writer) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			out.Write(buf[:n])
			if tee != nil {
				if _, werr := tee.Write(buf[:n]); werr != nil {
					tee = nil
				}
			}
		}
		if err != nil {
			return
		}
	}
}
