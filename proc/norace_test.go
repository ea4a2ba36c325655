//go:build !race

package proc

// raceOn reports whether the tests were built with the race detector.
const raceOn = false
