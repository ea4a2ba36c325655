package gobench

import (
	"bytes"
	"io"
)

var _ io.Writer = (*resultWriter)(nil)

// maxKept bounds the result lines a resultWriter keeps.
const maxKept = 4 << 20

// resultWriter keeps, from a stream written in pieces, the lines that may be
// benchmark results (see isResultLine), at most maxKept bytes of them.
// Package proc keeps only the head and the tail of a long output; this keeps
// the results. The zero value is ready to use. It is not safe for concurrent
// use.
type resultWriter struct {
	line []byte // the line being written, while it is at most maxLine bytes
	long bool   // the line being written is longer than maxLine
	kept []byte
}

// Write never fails.
func (w *resultWriter) Write(p []byte) (int, error) {
	n := len(p)
	for {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.add(p)
			return n, nil
		}
		w.add(p[:i])
		w.end()
		p = p[i+1:]
	}
}

func (w *resultWriter) add(b []byte) {
	if w.long || len(w.line)+len(b) > maxLine {
		w.line, w.long = w.line[:0], true
		return
	}
	w.line = append(w.line, b...)
}

// end ends the line being written, keeping it if it may be a result.
func (w *resultWriter) end() {
	if !w.long && isResultLine(w.line) && len(w.kept)+len(w.line) < maxKept {
		w.kept = append(append(w.kept, w.line...), '\n')
	}
	w.line, w.long = w.line[:0], false
}

// bytes returns the lines kept, the last one included even if the stream
// did not end it with a newline.
func (w *resultWriter) bytes() []byte {
	w.end()
	return w.kept
}
