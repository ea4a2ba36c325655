package sumsq

import "os"

// probed is how many bytes the start-up probe wrote and read back. Nothing
// that SumSquares runs reads it: the file only adds file I/O at start-up.
var probed int

func init() {
	f, err := os.CreateTemp("", "probe")
	if err != nil {
		return
	}
	defer os.Remove(f.Name())
	defer f.Close()
	buf := make([]byte, 1<<20)
	for range 4 {
		if _, err := f.Write(buf); err != nil {
			return
		}
	}
	if err := f.Sync(); err != nil {
		return
	}
	b, err := os.ReadFile(f.Name())
	if err != nil {
		return
	}
	probed = len(b)
}
