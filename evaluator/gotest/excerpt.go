package gotest

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits of one output excerpt.
const (
	ExcerptHeadLines = 10      // first lines kept
	ExcerptTailLines = 30      // last lines kept
	MaxExcerpt       = 4 << 10 // bytes kept in all
	MaxExcerptLine   = 512     // bytes kept of one line; its head is kept
	maxHeadBytes     = 1 << 10 // of MaxExcerpt, for the head
	maxTailBytes     = MaxExcerpt - maxHeadBytes
)

// excerpt keeps the head and the tail of a stream of output lines in bounded
// memory. Text may arrive in pieces that split lines anywhere.
type excerpt struct {
	head      []string
	headBytes int
	tail      []string // a queue: the oldest line first
	tailBytes int
	cut       int             // complete lines dropped between head and tail
	cur       strings.Builder // the line being assembled, at most MaxExcerptLine bytes
	curLong   bool            // cur was cut
}

// write adds text, which may hold several lines or part of one.
func (e *excerpt) write(text string) {
	for text != "" {
		line, rest, nl := strings.Cut(text, "\n")
		if room := MaxExcerptLine - e.cur.Len(); len(line) > room {
			e.cur.WriteString(line[:runeStart(line, max(room, 0))])
			e.curLong = true
		} else {
			e.cur.WriteString(line)
		}
		if !nl {
			return
		}
		e.endLine()
		text = rest
	}
}

// runeStart returns the largest i <= n at which a rune of s starts, so that
// cutting there leaves no broken UTF-8 sequence behind.
func runeStart(s string, n int) int {
	for i := n; i > 0 && i > n-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			return i
		}
	}
	return n
}

// endLine files the line being assembled.
func (e *excerpt) endLine() {
	line := e.cur.String()
	if e.curLong {
		line += "…"
	}
	e.cur.Reset()
	e.curLong = false
	if isFraming(line) {
		return
	}
	if e.cut == 0 && len(e.tail) == 0 && len(e.head) < ExcerptHeadLines && e.headBytes+len(line)+1 <= maxHeadBytes {
		e.head = append(e.head, line)
		e.headBytes += len(line) + 1
		return
	}
	e.tail = append(e.tail, line)
	e.tailBytes += len(line) + 1
	for len(e.tail) > ExcerptTailLines || e.tailBytes > maxTailBytes {
		e.tailBytes -= len(e.tail[0]) + 1
		e.tail[0] = ""
		e.tail = e.tail[1:]
		e.cut++
	}
}

// isFraming reports lines that only say which test runs: they carry nothing
// a reader of a failure needs.
func isFraming(line string) bool {
	for _, p := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME"} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// note adds a line of its own, after any partial line.
func (e *excerpt) note(msg string) {
	if e.cur.Len() > 0 || e.curLong {
		e.endLine()
	}
	e.write(msg + "\n")
}

// append adds another excerpt's text (a failing subtest's) at the end.
func (e *excerpt) append(o *excerpt) {
	if s := o.String(); s != "" {
		e.write(s + "\n")
	}
}

// String returns the kept text, with a marker where lines were cut. A
// partial last line is included.
func (e *excerpt) String() string {
	var b strings.Builder
	for _, l := range e.head {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if e.cut > 0 {
		fmt.Fprintf(&b, "[… %d lines cut …]\n", e.cut)
	}
	for _, l := range e.tail {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if e.cur.Len() > 0 {
		b.WriteString(e.cur.String())
		if e.curLong {
			b.WriteString("…")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
