package sumsq

import "testing"

func TestPad(t *testing.T) {
	if Pad(3) != Pad(3) {
		t.Fatal("Pad is not a function")
	}
}
