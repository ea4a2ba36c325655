package proc

import "bytes"

// Tail returns the last n lines of a process's output, without the
// newlines that end it or the blank lines that would start it. Error
// messages quote it; each caller adds its own byte cap.
func Tail(out []byte, n int) string {
	out = bytes.TrimRight(out, "\n")
	start := len(out)
	for k := 0; k < n && start > 0; k++ {
		start = bytes.LastIndexByte(out[:start], '\n')
		if start < 0 {
			start = 0
		}
	}
	return string(bytes.TrimLeft(out[start:], "\n"))
}
