//go:build !linux

package proc

import "time"

// CPUShare is false outside Linux: a thread cannot be pinned there.
func CPUShare(int, time.Duration) (float64, bool) { return 0, false }
