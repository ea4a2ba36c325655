package proc

import (
	"fmt"
	"sync"
)

// capture keeps the head and the tail of a stream in bounded memory. It is
// safe for concurrent use: stdout and stderr write to the same capture.
type capture struct {
	mu    sync.Mutex
	max   int
	head  []byte // the first max/2 bytes
	tail  []byte // ring of the last max-max/2 bytes
	pos   int    // next write position in tail once it is full
	total int64  // bytes written
}

func newCapture(max int) *capture {
	if max <= 0 {
		max = DefaultMaxOutput
	}
	return &capture{max: max}
}

// Write always accepts all of b.
func (c *capture) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(b)
	c.total += int64(n)
	if room := c.max/2 - len(c.head); room > 0 {
		k := min(room, len(b))
		c.head = append(c.head, b[:k]...)
		b = b[k:]
	}
	tmax := c.max - c.max/2
	if len(b) >= tmax {
		c.tail = append(c.tail[:0], b[len(b)-tmax:]...)
		c.pos = 0
		return n, nil
	}
	if room := tmax - len(c.tail); room > 0 {
		k := min(room, len(b))
		c.tail = append(c.tail, b[:k]...)
		b = b[k:]
	}
	for len(b) > 0 {
		k := copy(c.tail[c.pos:], b)
		b = b[k:]
		c.pos = (c.pos + k) % tmax
	}
	return n, nil
}

// bytes returns the kept output, with a marker where bytes were cut, and
// whether any were.
func (c *capture) bytes() ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	kept := int64(len(c.head) + len(c.tail))
	out := make([]byte, 0, kept+64)
	out = append(out, c.head...)
	cut := c.total - kept
	if cut > 0 {
		out = fmt.Appendf(out, "\n[… %d bytes cut …]\n", cut)
	}
	out = append(out, c.tail[c.pos:]...)
	out = append(out, c.tail[:c.pos]...)
	return out, cut > 0
}
